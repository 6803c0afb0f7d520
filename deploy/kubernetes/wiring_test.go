package kubernetes

import (
	"fmt"
	"maps"
	"net"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hopbench/hopbench/internal/experiment"
)

// Names and paths the manifests, spec.yaml and README.md agree on.
const (
	namespace = "hopbench"
	image     = "hopbench:dev"
	specPath  = "/etc/hopbench/spec/spec.yaml"
	tlsDir    = "/etc/hopbench/tls"
	tlsSecret = "hopbench-tls"
)

// bundle is what `hopbench hosts certs --out DIR` writes in DIR.
var bundle = []string{"ca.pem", "server.pem", "server-key.pem", "client.pem", "client-key.pem"}

// wiring is what the checks found, for README.md to name.
type wiring struct {
	job         string   // the coordinator Job's name
	agentHosts  []string // the agents' host names, as their certificates name them
	resultsPod  string   // the pod holding the results claim
	resultsPath string   // the run's directory in that pod
}

// workload is a pod template (or a bare pod) and what holds it.
type workload struct {
	name   string // Kind/name
	labels map[string]string
	spec   *corev1.PodSpec
}

func (m *manifests) workloads() []workload {
	var ws []workload
	for _, p := range m.pods {
		ws = append(ws, workload{"Pod/" + p.Name, p.Labels, &p.Spec})
	}
	for _, s := range m.statefulSets {
		ws = append(ws, workload{"StatefulSet/" + s.Name, s.Spec.Template.Labels, &s.Spec.Template.Spec})
	}
	for _, d := range m.deployments {
		ws = append(ws, workload{"Deployment/" + d.Name, d.Spec.Template.Labels, &d.Spec.Template.Spec})
	}
	for _, j := range m.jobs {
		ws = append(ws, workload{"Job/" + j.Name, j.Spec.Template.Labels, &j.Spec.Template.Spec})
	}
	return ws
}

// checkWiring checks that the objects fit together: the coordinator reads
// the spec it is given, reaches every agent the spec names at an address
// the agents' Service and StatefulSet give them, and holds the certificate
// bundle they require; its results land on a claim another pod holds.
func checkWiring(t *testing.T, m *manifests) wiring {
	t.Helper()
	checkNamespace(t, m)
	checkContainers(t, m)
	job, c := coordinator(t, m)
	spec := specOf(t, m, job, c)
	checkHosts(t, spec)
	w := wiring{job: strings.TrimPrefix(job.name, "Job/")}
	for _, h := range spec.Hosts {
		host, err := checkAgent(m, h.Agent)
		if err != nil {
			t.Errorf("host %s, agent %q: %v", h.Name, h.Agent, err)
		}
		w.agentHosts = append(w.agentHosts, host)
	}
	checkWaitsForAgents(t, job, spec)
	if err := checkTLS(m, job, c); err != nil {
		t.Errorf("%s: %v", job.name, err)
	}
	w.resultsPod, w.resultsPath = checkResults(t, m, job, c)
	return w
}

func checkNamespace(t *testing.T, m *manifests) {
	t.Helper()
	if len(m.namespaces) != 1 || m.namespaces[0].Name != namespace {
		t.Errorf("want exactly one Namespace, %s; have %d", namespace, len(m.namespaces))
	}
}

// checkContainers checks what every container shares: the image kind
// loads, resources, and $(VAR) references Kubernetes can expand.
func checkContainers(t *testing.T, m *manifests) {
	t.Helper()
	for _, w := range m.workloads() {
		for _, c := range slices.Concat(w.spec.InitContainers, w.spec.Containers) {
			where := w.name + ", container " + c.Name
			if c.Image != image || c.ImagePullPolicy != corev1.PullIfNotPresent {
				t.Errorf("%s: image %q, pull policy %q; want %q, %q (the image kind load puts on the node)", where, c.Image, c.ImagePullPolicy, image, corev1.PullIfNotPresent)
			}
			for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				if _, ok := c.Resources.Requests[r]; !ok {
					t.Errorf("%s: no %s request", where, r)
				}
				if _, ok := c.Resources.Limits[r]; !ok {
					t.Errorf("%s: no %s limit", where, r)
				}
			}
			if err := checkVars(c); err != nil {
				t.Errorf("%s: %v", where, err)
			}
		}
	}
}

var varReference = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// checkVars checks that every $(VAR) in c's command and args names one of
// its env variables: Kubernetes passes any other reference on unexpanded.
func checkVars(c corev1.Container) error {
	for _, arg := range slices.Concat(c.Command, c.Args) {
		for _, ref := range varReference.FindAllStringSubmatch(arg, -1) {
			if env(c, ref[1]) == nil {
				return fmt.Errorf("%s names no env variable of the container", ref[0])
			}
		}
	}
	return nil
}

func env(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// coordinator is the Job and its container running `hopbench run`.
func coordinator(t *testing.T, m *manifests) (workload, corev1.Container) {
	t.Helper()
	if len(m.jobs) != 1 {
		t.Fatalf("want one Job, the coordinator; have %d", len(m.jobs))
	}
	j := m.jobs[0]
	job := workload{"Job/" + j.Name, j.Spec.Template.Labels, &j.Spec.Template.Spec}
	var runs []corev1.Container
	for _, c := range job.spec.Containers {
		if len(c.Args) > 0 && c.Args[0] == "run" {
			runs = append(runs, c)
		}
	}
	if len(runs) != 1 {
		t.Fatalf("%s: want one container with args `run ...`; have %d", job.name, len(runs))
	}
	return job, runs[0]
}

// specOf returns the spec the coordinator runs, read from the ConfigMap
// mounted where its args say the spec is.
func specOf(t *testing.T, m *manifests, job workload, c corev1.Container) *experiment.Spec {
	t.Helper()
	if len(c.Args) < 2 || c.Args[1] != specPath {
		t.Fatalf("%s: args %q; want run %s ...", job.name, c.Args, specPath)
	}
	v, rel, err := volumeAt(job.spec, c, specPath)
	if err != nil {
		t.Fatalf("%s: %v", job.name, err)
	}
	if v.ConfigMap == nil {
		t.Fatalf("%s: %s is on volume %s, not a ConfigMap", job.name, specPath, v.Name)
	}
	key := rel
	for _, item := range v.ConfigMap.Items {
		if item.Path == rel {
			key = item.Key
		}
	}
	cm := find(m.configMaps, v.ConfigMap.Name, func(c *corev1.ConfigMap) string { return c.Name })
	if cm == nil || cm.Data[key] == "" {
		t.Fatalf("%s: %s is key %s of ConfigMap %s, which no manifest or generator holds", job.name, specPath, key, v.ConfigMap.Name)
	}
	spec, err := experiment.Parse([]byte(cm.Data[key]))
	if err != nil {
		t.Fatalf("ConfigMap %s, %s: %v", cm.Name, key, err)
	}
	return spec
}

// checkHosts checks that host names are unique and that placement names
// only declared hosts.
func checkHosts(t *testing.T, spec *experiment.Spec) {
	t.Helper()
	if len(spec.Hosts) == 0 {
		t.Fatal("the spec names no hosts")
	}
	declared := map[string]bool{}
	for i, h := range spec.Hosts {
		if h.Name == "" || h.Agent == "" {
			t.Errorf("hosts[%d]: name %q, agent %q: want both", i, h.Name, h.Agent)
		}
		if declared[h.Name] {
			t.Errorf("hosts[%d]: host %s declared twice", i, h.Name)
		}
		declared[h.Name] = true
	}
	for i, p := range spec.Placement {
		for _, name := range slices.Concat(p.Generator, p.Nodes) {
			if !declared[name] {
				t.Errorf("placement[%d] names host %s, which hosts does not declare", i, name)
			}
		}
	}
}

// checkAgent checks that addr, <pod>.<service>:<port>, reaches an agent:
// service is the headless Service of a StatefulSet whose pods it selects,
// pod one of that StatefulSet's, and port the port its agent listens on.
// It returns addr's host, the name the agent's certificate must carry.
func checkAgent(m *manifests, addr string) (string, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return host, fmt.Errorf("port: %w", err)
	}
	pod, service, ok := strings.Cut(host, ".")
	if !ok || strings.Contains(service, ".") {
		return host, fmt.Errorf("want <pod>.<service>:<port>")
	}
	svc := find(m.services, service, func(s *corev1.Service) string { return s.Name })
	if svc == nil {
		return host, fmt.Errorf("no Service %s", service)
	}
	sts := find(m.statefulSets, service, func(s *appsv1.StatefulSet) string { return s.Spec.ServiceName })
	if sts == nil {
		return host, fmt.Errorf("no StatefulSet has serviceName %s", service)
	}
	if err := checkGoverningService(m, svc, sts); err != nil {
		return host, err
	}
	if err := checkOrdinal(sts, pod); err != nil {
		return host, err
	}
	c, err := agentContainer(sts)
	if err != nil {
		return host, err
	}
	agents := workload{"StatefulSet/" + sts.Name, sts.Spec.Template.Labels, &sts.Spec.Template.Spec}
	if err := checkAgentPort(svc, c, int32(port)); err != nil {
		return host, fmt.Errorf("%s, container %s: %w", agents.name, c.Name, err)
	}
	if err := checkTLS(m, agents, c); err != nil {
		return host, fmt.Errorf("%s: %w", agents.name, err)
	}
	return host, nil
}

// checkGoverningService checks that svc is headless and selects sts's pods
// and no other workload's: only then does <pod>.<service> name one agent.
func checkGoverningService(m *manifests, svc *corev1.Service, sts *appsv1.StatefulSet) error {
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		return fmt.Errorf("Service %s: clusterIP %q; want None (headless), which gives each pod a name", svc.Name, svc.Spec.ClusterIP)
	}
	if len(svc.Spec.Selector) == 0 {
		return fmt.Errorf("Service %s selects no pods", svc.Name)
	}
	if sts.Spec.Selector == nil || !selects(sts.Spec.Selector.MatchLabels, sts.Spec.Template.Labels) {
		return fmt.Errorf("StatefulSet %s: its selector does not match its pod template's labels", sts.Name)
	}
	for _, w := range m.workloads() {
		own := w.name == "StatefulSet/"+sts.Name
		switch selected := selects(svc.Spec.Selector, w.labels); {
		case own && !selected:
			return fmt.Errorf("Service %s: selector %v does not select StatefulSet %s's pods", svc.Name, svc.Spec.Selector, sts.Name)
		case !own && selected:
			return fmt.Errorf("Service %s: selector %v also selects %s's pods", svc.Name, svc.Spec.Selector, w.name)
		}
	}
	return nil
}

// selects tells whether a non-empty selector matches labels.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return len(selector) > 0
}

func checkOrdinal(sts *appsv1.StatefulSet, pod string) error {
	replicas := int32(1)
	if sts.Spec.Replicas != nil {
		replicas = *sts.Spec.Replicas
	}
	n, ok := strings.CutPrefix(pod, sts.Name+"-")
	ordinal, err := strconv.Atoi(n)
	if !ok || err != nil || ordinal < 0 || strconv.Itoa(ordinal) != n {
		return fmt.Errorf("pod %s is not %s-<ordinal>", pod, sts.Name)
	}
	if ordinal >= int(replicas) {
		return fmt.Errorf("pod %s: StatefulSet %s has %d replicas, ordinals 0 to %d", pod, sts.Name, replicas, replicas-1)
	}
	return nil
}

func agentContainer(sts *appsv1.StatefulSet) (corev1.Container, error) {
	var agents []corev1.Container
	for _, c := range sts.Spec.Template.Spec.Containers {
		if len(c.Args) > 0 && c.Args[0] == "agent" {
			agents = append(agents, c)
		}
	}
	if len(agents) != 1 {
		return corev1.Container{}, fmt.Errorf("StatefulSet %s: want one container with args `agent ...`; have %d", sts.Name, len(agents))
	}
	return agents[0], nil
}

// checkAgentPort checks that the agent listens on port, declares it, that
// the Service forwards port to it and the readiness probe knocks on it; and
// that it advertises the pod's IP.
func checkAgentPort(svc *corev1.Service, c corev1.Container, port int32) error {
	listen, ok := flag(c.Args, "--listen")
	if !ok {
		return fmt.Errorf("no --listen")
	}
	if _, p, err := net.SplitHostPort(listen); err != nil || p != strconv.Itoa(int(port)) {
		return fmt.Errorf("--listen %s; want port %d", listen, port)
	}
	if !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.ContainerPort == port }) {
		return fmt.Errorf("no containerPort %d", port)
	}
	i := slices.IndexFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Port == port })
	if i < 0 {
		return fmt.Errorf("Service %s has no port %d", svc.Name, port)
	}
	target := svc.Spec.Ports[i].TargetPort
	if target == (intstr.IntOrString{}) {
		target = intstr.FromInt32(port)
	}
	if containerPort(c, target) != port {
		return fmt.Errorf("Service %s forwards port %d to %s, not to the agent's %d", svc.Name, port, target.String(), port)
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.TCPSocket == nil || containerPort(c, c.ReadinessProbe.TCPSocket.Port) != port {
		return fmt.Errorf("want a tcpSocket readiness probe on port %d", port)
	}
	return checkAdvertise(c)
}

// containerPort resolves a port given by number or by name; 0 if it names
// no port of c.
func containerPort(c corev1.Container, p intstr.IntOrString) int32 {
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	return 0
}

// checkAdvertise checks that --advertise is $(VAR) with VAR the pod's IP
// from the downward API: the nodes an agent starts must be reachable there.
func checkAdvertise(c corev1.Container) error {
	adv, _ := flag(c.Args, "--advertise")
	ref := varReference.FindStringSubmatch(adv)
	if ref == nil || ref[0] != adv {
		return fmt.Errorf("--advertise %q; want $(VAR) with VAR the pod's IP", adv)
	}
	e := env(c, ref[1])
	if e == nil || e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "status.podIP" {
		return fmt.Errorf("--advertise %s: env %s is not the downward API's status.podIP", adv, ref[1])
	}
	return nil
}

// checkTLS checks that c is given --tls-dir and that the whole certificate
// bundle, the Secret generated from it, is mounted there.
func checkTLS(m *manifests, w workload, c corev1.Container) error {
	if dir, _ := flag(c.Args, "--tls-dir"); dir != tlsDir {
		return fmt.Errorf("container %s: --tls-dir %q; want %s", c.Name, dir, tlsDir)
	}
	v, rel, err := volumeAt(w.spec, c, tlsDir)
	if err != nil {
		return fmt.Errorf("container %s: %w", c.Name, err)
	}
	if rel != "." || v.Secret == nil || v.Secret.SecretName != tlsSecret || len(v.Secret.Items) > 0 {
		return fmt.Errorf("container %s: want all of Secret %s mounted at %s", c.Name, tlsSecret, tlsDir)
	}
	s := find(m.secrets, tlsSecret, func(s *corev1.Secret) string { return s.Name })
	if s == nil {
		return fmt.Errorf("no Secret %s", tlsSecret)
	}
	if keys, want := slices.Sorted(maps.Keys(s.Data)), slices.Sorted(slices.Values(bundle)); !slices.Equal(keys, want) {
		return fmt.Errorf("Secret %s holds %q; want the bundle %q", tlsSecret, keys, want)
	}
	return nil
}

// checkWaitsForAgents checks that the coordinator's wait for the agents
// ($AGENTS of one of its init containers) waits for those the spec names.
func checkWaitsForAgents(t *testing.T, job workload, spec *experiment.Spec) {
	t.Helper()
	var want []string
	for _, h := range spec.Hosts {
		want = append(want, h.Agent)
	}
	for _, c := range job.spec.InitContainers {
		if e := env(c, "AGENTS"); e != nil {
			if have := strings.Fields(e.Value); !slices.Equal(have, want) {
				t.Errorf("%s, init container %s: AGENTS %q; the spec's agents are %q", job.name, c.Name, have, want)
			}
			return
		}
	}
	t.Errorf("%s: no init container waits for $AGENTS", job.name)
}

// checkResults checks that the coordinator's --out is on a claim which a
// pod of its own also mounts, and returns that pod and the run's directory
// in it, from where it is copied out.
func checkResults(t *testing.T, m *manifests, job workload, c corev1.Container) (pod, dir string) {
	t.Helper()
	out, _ := flag(c.Args, "--out")
	v, rel, err := volumeAt(job.spec, c, out)
	if err != nil || v.PersistentVolumeClaim == nil || rel == "." {
		t.Fatalf("%s: --out %q: want a directory on a PersistentVolumeClaim (%v)", job.name, out, err)
	}
	claim := v.PersistentVolumeClaim.ClaimName
	if find(m.claims, claim, func(c *corev1.PersistentVolumeClaim) string { return c.Name }) == nil {
		t.Errorf("%s: no PersistentVolumeClaim %s", job.name, claim)
	}
	for _, p := range m.pods {
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != claim {
				continue
			}
			for _, c := range p.Spec.Containers {
				for _, vm := range c.VolumeMounts {
					if vm.Name == v.Name && vm.SubPath == "" {
						return p.Name, path.Join(vm.MountPath, rel)
					}
				}
			}
		}
	}
	t.Fatalf("no Pod mounts claim %s, which holds the coordinator's results", claim)
	return "", ""
}

// volumeAt returns the volume mounted in c where p lies, and p relative to
// that mount.
func volumeAt(spec *corev1.PodSpec, c corev1.Container, p string) (*corev1.Volume, string, error) {
	var best *corev1.VolumeMount
	for i, vm := range c.VolumeMounts {
		if p == vm.MountPath || strings.HasPrefix(p, strings.TrimSuffix(vm.MountPath, "/")+"/") {
			if best == nil || len(vm.MountPath) > len(best.MountPath) {
				best = &c.VolumeMounts[i]
			}
		}
	}
	if best == nil {
		return nil, "", fmt.Errorf("container %s mounts nothing at %s", c.Name, p)
	}
	if best.SubPath != "" {
		return nil, "", fmt.Errorf("container %s: %s is on a subPath mount", c.Name, p)
	}
	i := slices.IndexFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == best.Name })
	if i < 0 {
		return nil, "", fmt.Errorf("container %s mounts volume %s, which the pod does not have", c.Name, best.Name)
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p, best.MountPath), "/")
	if rel == "" {
		rel = "."
	}
	return &spec.Volumes[i], rel, nil
}

// flag returns the value of the flag name in args, written `name value` or
// `name=value`.
func flag(args []string, name string) (string, bool) {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// find returns the object whose key is key, or nil.
func find[T any](objs []*T, key string, keyOf func(*T) string) *T {
	for _, o := range objs {
		if keyOf(o) == key {
			return o
		}
	}
	return nil
}

package kubernetes

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// root is the repository's root, from this package's directory.
const root = "../.."

func TestKustomization(t *testing.T) {
	k := mustKustomization(t)
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		t.Errorf("apiVersion %q, kind %q; want kustomize.config.k8s.io/v1beta1 Kustomization", k.APIVersion, k.Kind)
	}
	if k.Namespace != namespace {
		t.Errorf("namespace %q; want %s", k.Namespace, namespace)
	}
	if !k.GeneratorOptions.DisableNameSuffixHash {
		t.Error("generatorOptions.disableNameSuffixHash is off: the manifests name the generated ConfigMap and Secret as written")
	}
	listed := map[string]bool{}
	for _, r := range k.Resources {
		if listed[r] {
			t.Errorf("resource %s listed twice", r)
		}
		listed[r] = true
		checkRegularFile(t, r)
	}
	for _, g := range k.ConfigMapGenerator {
		for _, f := range g.files() {
			listed[f.path] = true
			checkRegularFile(t, f.path)
		}
	}
	checkSecretGenerators(t, k)
	yamls, err := filepath.Glob("*.y*ml")
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range yamls {
		if y != "kustomization.yaml" && !listed[y] {
			t.Errorf("%s is not in kustomization.yaml: kubectl apply -k would leave it out", y)
		}
	}
}

// checkSecretGenerators checks that the certificate bundle's Secret is made
// from exactly the files `hopbench hosts certs --out tls` writes (absent
// from a checkout: each user makes their own), and any other Secret from
// files that exist.
func checkSecretGenerators(t *testing.T, k *kustomization) {
	t.Helper()
	found := false
	for _, g := range k.SecretGenerator {
		if g.Name != tlsSecret {
			for _, f := range g.files() {
				checkRegularFile(t, f.path)
			}
			continue
		}
		found = true
		var want []string
		for _, b := range bundle {
			want = append(want, "tls/"+b)
		}
		if have := slices.Sorted(slices.Values(g.Files)); !slices.Equal(have, slices.Sorted(slices.Values(want))) {
			t.Errorf("secretGenerator %s: files %q; want the bundle %q", g.Name, g.Files, want)
		}
	}
	if !found {
		t.Errorf("no secretGenerator %s", tlsSecret)
	}
}

func checkRegularFile(t *testing.T, name string) {
	t.Helper()
	if fi, err := os.Stat(name); err != nil {
		t.Error(err)
	} else if !fi.Mode().IsRegular() {
		t.Errorf("%s is not a regular file", name)
	}
}

func mustKustomization(t *testing.T) *kustomization {
	t.Helper()
	k, err := readKustomization(".")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustSource(t *testing.T) *manifests {
	t.Helper()
	m, err := readSource(".", mustKustomization(t))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestManifests(t *testing.T) {
	t.Run("source", func(t *testing.T) {
		checkWiring(t, mustSource(t))
	})
	t.Run("kubectl kustomize", func(t *testing.T) {
		kubectl, err := exec.LookPath("kubectl")
		if err != nil {
			t.Skip("kubectl is not on PATH: the kustomize build is not checked, the sources are")
		}
		k := mustKustomization(t)
		out, standIns, err := kustomizeBuild(t.Context(), kubectl, ".", t.TempDir(), k)
		if err != nil {
			t.Fatal(err)
		}
		built := &manifests{}
		if err := built.add("kubectl kustomize", out); err != nil {
			t.Fatal(err)
		}
		checkWiring(t, built)
		checkBuild(t, mustSource(t), built, standIns)
	})
}

// checkBuild checks that the build holds the sources' objects, in the
// namespace, with the generated ConfigMaps' contents and Secret's files.
func checkBuild(t *testing.T, source, built *manifests, standIns map[string]string) {
	t.Helper()
	if have, want := built.names(), source.names(); !slices.Equal(have, want) {
		t.Errorf("the build holds %q; the sources %q", have, want)
	}
	for _, o := range built.objects {
		if ns := o.GetNamespace(); o.kind != "Namespace" && ns != namespace {
			t.Errorf("%s/%s: namespace %q; want %s", o.kind, o.GetName(), ns, namespace)
		}
	}
	for _, cm := range source.configMaps {
		b := find(built.configMaps, cm.Name, func(c *corev1.ConfigMap) string { return c.Name })
		if b == nil || !maps.Equal(b.Data, cm.Data) {
			t.Errorf("ConfigMap %s: the build's data differs from its files'", cm.Name)
		}
	}
	s := find(built.secrets, tlsSecret, func(s *corev1.Secret) string { return s.Name })
	if s == nil {
		t.Fatalf("the build has no Secret %s", tlsSecret)
	}
	for key, want := range standIns {
		if string(s.Data[key]) != want {
			t.Errorf("Secret %s, %s: %q; want the file's %q", tlsSecret, key, s.Data[key], want)
		}
	}
}

func TestDecoderRejects(t *testing.T) {
	for _, c := range []struct {
		name, doc, fixed, want string
	}{
		{
			name:  "unknown field",
			doc:   "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  clusterIp: None\n",
			fixed: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  clusterIP: None\n",
			want:  `unknown field "spec.clusterIp"`,
		},
		{
			name:  "wrong type",
			doc:   "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec:\n  replicas: \"three\"\n",
			fixed: "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec:\n  replicas: 3\n",
			want:  "replicas",
		},
		{
			name:  "unknown kind",
			doc:   "apiVersion: v1\nkind: Gadget\nmetadata: {name: g}\n",
			fixed: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: g}\n",
			want:  "unexpected kind v1 Gadget",
		},
		{
			name:  "kind of another apiVersion",
			doc:   "apiVersion: v1\nkind: Job\nmetadata: {name: j}\n",
			fixed: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n",
			want:  "unexpected kind v1 Job",
		},
		{
			name:  "no kind",
			doc:   "apiVersion: v1\nmetadata: {name: ns}\n",
			fixed: "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n",
			want:  "no apiVersion or kind",
		},
		{
			name:  "duplicate key",
			doc:   "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\nmetadata: {name: b}\n",
			fixed: "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n",
			want:  "metadata",
		},
		{
			name:  "unknown field in a later document",
			doc:   "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b, label: demo}\n",
			fixed: "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b, labels: {app: demo}}\n",
			want:  "document 2",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := (&manifests{}).add("doc.yaml", []byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("decoding\n%s\nerror %v; want one saying %q", c.doc, err, c.want)
			}
			if err := (&manifests{}).add("fixed.yaml", []byte(c.fixed)); err != nil {
				t.Errorf("decoding the fixed document\n%s\n%v", c.fixed, err)
			}
		})
	}
	t.Run("kustomization field", func(t *testing.T) {
		_, err := decodeKustomization([]byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ncommonLabel: {a: b}\n"))
		if err == nil || !strings.Contains(err.Error(), "commonLabel") {
			t.Errorf("error %v; want one naming commonLabel", err)
		}
	})
}

// TestReadme checks that the walk-through's commands name what the
// manifests hold: the image, the agents' certificate names, the Job, the
// pod and path the results are copied from.
func TestReadme(t *testing.T) {
	w := checkWiring(t, mustSource(t))
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	run := "./results/" + path.Base(w.resultsPath)
	want := []string{
		"docker build -f deploy/kubernetes/Dockerfile -t " + image,
		"kind load docker-image " + image,
		"hosts certs --out tls",
		"kubectl apply -k deploy/kubernetes",
		"kubectl -n " + namespace + " wait --for=condition=complete job/" + w.job,
		"kubectl -n " + namespace + " cp " + w.resultsPod + ":" + w.resultsPath + " " + run,
		"hopbench report " + run,
		"kubectl delete -k deploy/kubernetes",
	}
	for _, h := range w.agentHosts {
		want = append(want, "--name "+h)
	}
	for _, s := range want {
		if !strings.Contains(string(readme), s) {
			t.Errorf("README.md does not say %q", s)
		}
	}
}

var (
	goDirective = regexp.MustCompile(`(?m)^go (\d+\.\d+(?:\.\d+)?)\s*$`)
	goImage     = regexp.MustCompile(`(?m)^FROM golang:(\d+\.\d+(?:\.\d+)?)-bookworm AS build\s*$`)
	versionX    = regexp.MustCompile(`-X github\.com/hopbench/hopbench/(\S+)\.Version=`)
)

func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// One instruction a line, continuations joined.
	dockerfile := strings.ReplaceAll(string(data), "\\\n", " ")
	mod, img := goDirective.FindStringSubmatch(string(gomod)), goImage.FindStringSubmatch(dockerfile)
	if mod == nil || img == nil {
		t.Fatalf("want go.mod's go directive and a FROM golang:<version>-bookworm AS build; have %q, %q", mod, img)
	}
	if err := checkGoImage(img[1], mod[1]); err != nil {
		t.Error(err)
	}
	checkBuildLine(t, dockerfile)
	for _, want := range []string{
		"FROM debian:bookworm-slim\n",
		"COPY --from=build /out/hopbench /usr/local/bin/hopbench\n",
		`ENTRYPOINT ["hopbench"]` + "\n",
	} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("the Dockerfile has no line %q", strings.TrimSpace(want))
		}
	}
	ignore, err := os.ReadFile("Dockerfile.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ignore), "\n"), "deploy/kubernetes/tls") {
		t.Error("Dockerfile.dockerignore does not keep deploy/kubernetes/tls, the private keys, out of the image")
	}
}

// checkGoImage checks that the build image's Go can build the module: the
// same release, and no older patch (golang images set GOTOOLCHAIN=local, so
// an older Go refuses rather than downloading a newer one).
func checkGoImage(image, module string) error {
	iv, mv := strings.Split(image, "."), strings.Split(module, ".")
	if iv[0] != mv[0] || iv[1] != mv[1] {
		return fmt.Errorf("the Dockerfile builds with Go %s; go.mod says go %s", image, module)
	}
	if len(iv) == 3 && len(mv) == 3 {
		ip, _ := strconv.Atoi(iv[2])
		mp, _ := strconv.Atoi(mv[2])
		if ip < mp {
			return fmt.Errorf("the Dockerfile builds with Go %s, older than go.mod's go %s", image, module)
		}
	}
	return nil
}

// checkBuildLine checks that the Dockerfile builds ./cmd/hopbench statically
// into /out/hopbench, stamping a version variable that exists.
func checkBuildLine(t *testing.T, dockerfile string) {
	t.Helper()
	i := slices.IndexFunc(strings.Split(dockerfile, "\n"), func(l string) bool { return strings.Contains(l, "go build") })
	if i < 0 {
		t.Fatal("the Dockerfile runs no go build")
	}
	line := strings.Split(dockerfile, "\n")[i]
	for _, want := range []string{"CGO_ENABLED=0 go build", "-o /out/hopbench", " ./cmd/hopbench"} {
		if !strings.Contains(line, want) {
			t.Errorf("the go build line %q has no %q", line, want)
		}
	}
	checkRegularFile(t, filepath.Join(root, "cmd/hopbench/main.go"))
	x := versionX.FindStringSubmatch(line)
	if x == nil {
		t.Errorf("the go build line %q sets no Version with -X", line)
		return
	}
	if fi, err := os.Stat(filepath.Join(root, x[1])); err != nil || !fi.IsDir() {
		t.Errorf("-X %s.Version: no package %s", x[1], x[1])
	}
}

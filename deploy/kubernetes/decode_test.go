package kubernetes

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// manifests is every object of the directory, or of its kustomize build,
// decoded into its k8s.io/api type.
type manifests struct {
	namespaces   []*corev1.Namespace
	services     []*corev1.Service
	configMaps   []*corev1.ConfigMap
	secrets      []*corev1.Secret
	pods         []*corev1.Pod
	claims       []*corev1.PersistentVolumeClaim
	statefulSets []*appsv1.StatefulSet
	deployments  []*appsv1.Deployment
	jobs         []*batchv1.Job

	objects []object // all of the above, in the order read
}

// object is any of the manifests with its kind.
type object struct {
	kind string
	metav1.Object
}

// kinds are the objects the manifests may hold, by apiVersion/kind; any
// other kind is an error rather than a document nothing checks.
var kinds = map[string]func(*manifests, string, []byte) error{
	"v1/Namespace":             adder(func(m *manifests) *[]*corev1.Namespace { return &m.namespaces }),
	"v1/Service":               adder(func(m *manifests) *[]*corev1.Service { return &m.services }),
	"v1/ConfigMap":             adder(func(m *manifests) *[]*corev1.ConfigMap { return &m.configMaps }),
	"v1/Secret":                adder(func(m *manifests) *[]*corev1.Secret { return &m.secrets }),
	"v1/Pod":                   adder(func(m *manifests) *[]*corev1.Pod { return &m.pods }),
	"v1/PersistentVolumeClaim": adder(func(m *manifests) *[]*corev1.PersistentVolumeClaim { return &m.claims }),
	"apps/v1/StatefulSet":      adder(func(m *manifests) *[]*appsv1.StatefulSet { return &m.statefulSets }),
	"apps/v1/Deployment":       adder(func(m *manifests) *[]*appsv1.Deployment { return &m.deployments }),
	"batch/v1/Job":             adder(func(m *manifests) *[]*batchv1.Job { return &m.jobs }),
}

// adder decodes one document strictly into a new T and appends it to its
// list.
func adder[T any, P interface {
	*T
	metav1.Object
}](list func(*manifests) *[]*T) func(*manifests, string, []byte) error {
	return func(m *manifests, kind string, doc []byte) error {
		obj := new(T)
		if err := decodeStrict(doc, obj); err != nil {
			return err
		}
		l := list(m)
		*l = append(*l, obj)
		m.objects = append(m.objects, object{kind, P(obj)})
		return nil
	}
}

// decodeStrict decodes a YAML document as the API server's strict field
// validation does: duplicate keys, unknown fields and wrong types are
// errors, and so is a key matching a field only in another case.
// sigs.k8s.io/yaml's UnmarshalStrict decodes with encoding/json, which
// takes clusterIp for clusterIP; the API server would not.
func decodeStrict(doc []byte, v any) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strict, err := kjson.UnmarshalStrict(j, v, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// documentSeparator is a line of three dashes, which starts a YAML document.
var documentSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// add decodes every document of one file (file names it in errors).
// Documents holding nothing but comments are skipped.
func (m *manifests) add(file string, data []byte) error {
	for i, doc := range documentSeparator.Split(string(data), -1) {
		var content any
		if err := yaml.Unmarshal([]byte(doc), &content); err != nil {
			return fmt.Errorf("%s, document %d: %w", file, i+1, err)
		}
		if content == nil {
			continue
		}
		if err := m.addDocument([]byte(doc)); err != nil {
			return fmt.Errorf("%s, document %d: %w", file, i+1, err)
		}
	}
	return nil
}

func (m *manifests) addDocument(doc []byte) error {
	var typ struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &typ); err != nil {
		return err
	}
	if typ.APIVersion == "" || typ.Kind == "" {
		return fmt.Errorf("no apiVersion or kind")
	}
	add, ok := kinds[typ.APIVersion+"/"+typ.Kind]
	if !ok {
		return fmt.Errorf("unexpected kind %s %s (expected one of %s)", typ.APIVersion, typ.Kind, strings.Join(kindNames(), ", "))
	}
	if err := add(m, typ.Kind, doc); err != nil {
		return fmt.Errorf("%s: %w", typ.Kind, err)
	}
	return nil
}

func kindNames() []string {
	return slices.Sorted(maps.Keys(kinds))
}

// names lists every object as Kind/name, for comparing two sets of manifests.
func (m *manifests) names() []string {
	names := make([]string, 0, len(m.objects))
	for _, o := range m.objects {
		names = append(names, o.kind+"/"+o.GetName())
	}
	slices.Sort(names)
	return names
}

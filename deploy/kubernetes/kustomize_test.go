package kubernetes

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kustomization is the part of kustomize's Kustomization these manifests
// use; decoding it strictly makes any other field an error, so a field this
// test does not know cannot change the build unchecked.
type kustomization struct {
	APIVersion         string      `json:"apiVersion"`
	Kind               string      `json:"kind"`
	Namespace          string      `json:"namespace"`
	Resources          []string    `json:"resources"`
	ConfigMapGenerator []generator `json:"configMapGenerator"`
	SecretGenerator    []generator `json:"secretGenerator"`
	GeneratorOptions   struct {
		DisableNameSuffixHash bool `json:"disableNameSuffixHash"`
	} `json:"generatorOptions"`
}

// generator is a configMapGenerator or secretGenerator entry.
type generator struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
}

// file is one entry of a generator's files: a path, or key=path.
type file struct{ key, path string }

func (g generator) files() []file {
	files := make([]file, 0, len(g.Files))
	for _, f := range g.Files {
		key, path, ok := strings.Cut(f, "=")
		if !ok {
			key, path = filepath.Base(f), f
		}
		files = append(files, file{key, path})
	}
	return files
}

func decodeKustomization(data []byte) (*kustomization, error) {
	var k kustomization
	if err := decodeStrict(data, &k); err != nil {
		return nil, fmt.Errorf("kustomization.yaml: %w", err)
	}
	return &k, nil
}

func readKustomization(dir string) (*kustomization, error) {
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	return decodeKustomization(data)
}

// readSource decodes every resource kustomization.yaml lists in dir and
// adds the ConfigMaps and Secrets its generators would make, as kustomize
// would: a ConfigMap holds its files' contents; a Secret's files (the
// certificate bundle, absent from a checkout) only their keys.
func readSource(dir string, k *kustomization) (*manifests, error) {
	m := &manifests{}
	for _, r := range k.Resources {
		data, err := os.ReadFile(filepath.Join(dir, r))
		if err != nil {
			return nil, err
		}
		if err := m.add(r, data); err != nil {
			return nil, err
		}
	}
	for _, g := range k.ConfigMapGenerator {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: g.Name}, Data: map[string]string{}}
		for _, f := range g.files() {
			data, err := os.ReadFile(filepath.Join(dir, f.path))
			if err != nil {
				return nil, err
			}
			cm.Data[f.key] = string(data)
		}
		m.configMaps = append(m.configMaps, cm)
		m.objects = append(m.objects, object{"ConfigMap", cm})
	}
	for _, g := range k.SecretGenerator {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: g.Name}, Data: map[string][]byte{}}
		for _, f := range g.files() {
			s.Data[f.key] = nil
		}
		m.secrets = append(m.secrets, s)
		m.objects = append(m.objects, object{"Secret", s})
	}
	return m, nil
}

// kustomizeBuild copies what kustomization.yaml in dir names into a
// temporary directory, writes stand-ins for the user's certificate bundle
// there (secretGenerator reads its files), and runs kubectl kustomize on it.
// It returns the build's output and the stand-ins' contents by key.
func kustomizeBuild(ctx context.Context, kubectl, dir, tmp string, k *kustomization) ([]byte, map[string]string, error) {
	copied := []string{"kustomization.yaml"}
	copied = append(copied, k.Resources...)
	for _, g := range k.ConfigMapGenerator {
		for _, f := range g.files() {
			copied = append(copied, f.path)
		}
	}
	for _, name := range copied {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, nil, err
		}
		if err := writeFile(filepath.Join(tmp, name), data); err != nil {
			return nil, nil, err
		}
	}
	standIns := map[string]string{}
	for _, g := range k.SecretGenerator {
		for _, f := range g.files() {
			standIns[f.key] = "stand-in for " + f.path + "\n"
			if err := writeFile(filepath.Join(tmp, f.path), []byte(standIns[f.key])); err != nil {
				return nil, nil, err
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, kubectl, "kustomize", tmp)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("kubectl kustomize: %w: %s", err, stderr.Bytes())
	}
	return stdout.Bytes(), standIns, nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

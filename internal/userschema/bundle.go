package userschema

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Bundle is a payload's source made whole for another host: each .proto
// file its message reaches, by the name it is imported by, the files
// named, the message, and its fill or its samples' bytes.
type Bundle struct {
	Files   map[string][]byte
	Names   []string
	Message string
	Fill    *Fill
	Samples []byte
}

// MaxBundleBytes bounds a bundle's files and samples together: what a
// run ships to each host of its own.
const MaxBundleBytes = 64 << 20

// Bundle gathers p's source from where it was compiled; Google's
// standard imports, which every hopbench has, are left out.
func (p *Payload) Bundle() (Bundle, error) {
	b := Bundle{Files: map[string][]byte{}, Names: p.Schema.Names, Message: string(p.Message.FullName())}
	size := 0
	var err error
	p.Schema.Registry.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		var content []byte
		if content, err = p.Schema.source(fd.Path()); err == nil && content != nil {
			b.Files[fd.Path()] = content
			size += len(content)
		}
		return err == nil
	})
	if err != nil {
		return b, err
	}
	if p.samplesPath == "" {
		fill := p.fill
		b.Fill = &fill
	} else if b.Samples, err = os.ReadFile(p.samplesPath); err != nil {
		return b, fmt.Errorf("samples: %w", err)
	}
	if size += len(b.Samples); size > MaxBundleBytes {
		return b, fmt.Errorf("%s: its .proto files and samples come to %d bytes, over the %d a run ships to a host of its own: use fewer samples there", b.Message, size, MaxBundleBytes)
	}
	return b, nil
}

// source reads the file imported as name where Compile found it: in the
// first import path that holds it (nil for a standard import).
func (s *Schema) source(name string) ([]byte, error) {
	for _, dir := range s.ImportPaths {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			return b, err
		}
	}
	if strings.HasPrefix(name, "google/protobuf/") {
		return nil, nil
	}
	return nil, fmt.Errorf("%s: no longer in the import paths (%s) it was compiled from", name, strings.Join(s.ImportPaths, ", "))
}

// Unpack writes b under dir (proto/ and samples.jsonl) and returns the
// Source that reads it there. It refuses a name that would leave dir, and
// bounds what it writes as Bundle does.
func (b Bundle) Unpack(dir string) (Source, error) {
	if len(b.Files) > MaxFiles {
		return Source{}, fmt.Errorf("%s: %d .proto files, over the %d a message may reach", b.Message, len(b.Files), MaxFiles)
	}
	size := len(b.Samples)
	root := filepath.Join(dir, "proto")
	for name, content := range b.Files {
		if size += len(content); !filepath.IsLocal(filepath.FromSlash(name)) || len(content) > MaxFileBytes || size > MaxBundleBytes {
			return Source{}, fmt.Errorf("%s: file %q: not a relative import name of at most %d bytes, or the bundle passes %d bytes", b.Message, name, MaxFileBytes, MaxBundleBytes)
		}
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return Source{}, err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return Source{}, err
		}
	}
	src := Source{ImportPaths: []string{root}, Message: b.Message, Fill: b.Fill}
	for _, n := range b.Names {
		src.Files = append(src.Files, filepath.Join(root, filepath.FromSlash(n)))
	}
	if b.Samples != nil {
		src.Samples = filepath.Join(dir, "samples.jsonl")
		if err := os.WriteFile(src.Samples, b.Samples, 0o644); err != nil {
			return Source{}, err
		}
	}
	return src, nil
}

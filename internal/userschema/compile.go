// Package userschema is the door for a user's own messages: their .proto
// files compiled in this process (protocompile, no protoc), a message type
// found in them, and lists of that message generated from hints or read
// from sample lines, as payload models every codec and stack carries.
package userschema

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Bounds on what a compile reads and how long it may take: a .proto is
// source text, and a schema of thousands of files or megabytes of source
// is not a message format but a mistake.
const (
	MaxFileBytes   = 4 << 20
	MaxFiles       = 1024
	CompileTimeout = 30 * time.Second
)

// Schema is a user's compiled .proto files, imports included.
type Schema struct {
	// Files are the named files, in the order named.
	Files []protoreflect.FileDescriptor
	// Registry resolves every file and type the named files reach.
	Registry *protoregistry.Files
	// Names are the named files as imports name them, and ImportPaths
	// where they and their imports were found (Bundle gathers them).
	Names       []string
	ImportPaths []string
}

// Compile parses and links files, each found in importPaths (default: the
// directory each file is in), with Google's well-known types available
// as protoc has them. Errors name file:line:column; a missing file names
// the paths searched.
func Compile(ctx context.Context, files, importPaths []string) (*Schema, error) {
	if len(files) == 0 {
		return nil, errors.New("no .proto file named: name one or more (files: [orders.proto])")
	}
	paths := importPaths
	if len(paths) == 0 {
		for _, f := range files {
			if d := filepath.Dir(f); !slices.Contains(paths, d) {
				paths = append(paths, d)
			}
		}
	}
	names, err := relativeNames(files, paths)
	if err != nil {
		return nil, err
	}
	var opened atomic.Int64
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: paths,
			Accessor:    func(p string) (io.ReadCloser, error) { return openBounded(p, &opened) },
		}),
	}
	ctx, cancel := context.WithTimeout(ctx, CompileTimeout)
	defer cancel()
	linked, err := c.Compile(ctx, names...)
	if err != nil {
		return nil, compileError(err, paths, ctx)
	}
	s, err := newSchema(linked)
	if s != nil {
		s.Names, s.ImportPaths = names, paths
	}
	return s, err
}

// relativeNames are files as protocompile names them: relative to the
// first import path that holds each.
func relativeNames(files, paths []string) ([]string, error) {
	names := make([]string, len(files))
	for i, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			ap, err := filepath.Abs(p)
			if err != nil {
				return nil, err
			}
			if rel, err := filepath.Rel(ap, abs); err == nil && !strings.HasPrefix(rel, "..") {
				names[i] = filepath.ToSlash(rel)
				break
			}
		}
		if names[i] == "" {
			return nil, fmt.Errorf("%s is in none of the import paths (%s): add its directory to them", f, strings.Join(paths, ", "))
		}
	}
	return names, nil
}

// openBounded opens one source file, refusing a file past MaxFileBytes or
// a compile past MaxFiles files.
func openBounded(path string, opened *atomic.Int64) (io.ReadCloser, error) {
	if opened.Add(1) > MaxFiles {
		return nil, fmt.Errorf("more than %d .proto files reached: a message format needs fewer", MaxFiles)
	}
	return openFile(path, MaxFileBytes, "a .proto")
}

// compileError keeps protocompile's file:line:column message and adds what
// to do: where a missing file was looked for, or that the time ran out.
func compileError(err error, paths []string, ctx context.Context) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w (searched: %s; add the directory that holds it to the import paths)", err, strings.Join(paths, ", "))
	case ctx.Err() != nil:
		return fmt.Errorf("compiling the .proto files took over %s: %w", CompileTimeout, err)
	}
	return err
}

func newSchema(linked linker.Files) (*Schema, error) {
	s := &Schema{Registry: new(protoregistry.Files)}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor) error
	add = func(fd protoreflect.FileDescriptor) error {
		if seen[fd.Path()] {
			return nil
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			if err := add(imports.Get(i).FileDescriptor); err != nil {
				return err
			}
		}
		return s.Registry.RegisterFile(fd)
	}
	for _, f := range linked {
		s.Files = append(s.Files, f)
		if err := add(f); err != nil {
			return nil, err
		}
	}
	return s, nil
}

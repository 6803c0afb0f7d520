// Package jvm runs hopbench's second runtime: the node in jvm/node
// (Quarkus in JVM mode, Jackson on plain classes, protobuf-java), which
// serves the node contract (schema/NODE-API.md) for the rest and grpc
// stacks. It finds the node's build, says which stacks it serves, builds
// its command line, and writes the seeds file that gives its get replies
// the Go generator's data.
package jvm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/toolpath"
	"github.com/hopbench/hopbench/internal/transport"
)

// The runtimes a node runs on.
const (
	Go  = "go"
	JVM = "jvm"
)

// Runtimes are the runtimes in the order reports list them.
var Runtimes = []string{Go, JVM}

// CheckRuntime refuses a runtime that is neither go nor jvm.
func CheckRuntime(name string) error {
	if !slices.Contains(Runtimes, name) {
		return fmt.Errorf("runtime %q: want %s", name, strings.Join(Runtimes, " or "))
	}
	return nil
}

// jarPath is where scripts/setup.sh jvm puts the node's build, under the
// checkout.
var jarPath = filepath.Join(".tools", "jvm", "node", "quarkus-app", "quarkus-run.jar")

// ErrNotBuilt says the JVM node has not been built here.
var ErrNotBuilt = errors.New("the JVM node is not built: run scripts/setup.sh jvm in the hopbench checkout (it needs Java 17 and fetches Maven 3.9 and the node's libraries from Maven Central), or set HOPBENCH_JVM_NODE to its quarkus-run.jar")

// Jar finds the JVM node's jar: $HOPBENCH_JVM_NODE, else the checkout's
// .tools beside the running binary (bin/hopbench) or above the working
// directory.
func Jar() (string, error) {
	if p := os.Getenv("HOPBENCH_JVM_NODE"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("HOPBENCH_JVM_NODE: %w", err)
		}
		return p, nil
	}
	if p, ok := toolpath.Find(jarPath, toolpath.Exists); ok {
		return p, nil
	}
	return "", ErrNotBuilt
}

// Serves says whether the JVM node serves a stack: rest with JSON or
// Protobuf, and grpc, each with or without gzip.
func Serves(st transport.Stack) error {
	ok := (st.Transport == "rest" && (st.Codec == "json" || st.Codec == "proto") || st.Transport == "grpc") &&
		(st.Compression == "none" || st.Compression == "gzip")
	if !ok {
		return fmt.Errorf("stack %s: the JVM node serves rest, rest+proto, rest+gzip, rest+proto+gzip, grpc and grpc+gzip; the other stacks run on the Go runtime only", st)
	}
	return nil
}

// Options are how a JVM node is started beyond the node contract's flags.
type Options struct {
	// Memory is the node's memory limit in bytes (0: none): the JVM sizes
	// its heap from it (-XX:MaxRAM) as it would from a container's limit.
	Memory int64
}

// Flags are the JVM's own flags for a node, recorded with each run.
func (o Options) Flags() []string {
	// HotSpot's warnings go to stderr: stdout carries the ready line alone.
	flags := []string{"-XX:+DisplayVMOutputToStderr"}
	if o.Memory > 0 {
		// The limit as a container-aware JVM sees its container's, and
		// 75 % of it for the heap: a common setting for services in
		// containers (HotSpot's default is 25 %).
		flags = append(flags, fmt.Sprintf("-XX:MaxRAM=%d", o.Memory), "-XX:MaxRAMPercentage=75")
	}
	return flags
}

// Command is the command that starts a JVM node with the JVM's flags,
// before the node contract's flags (--stack, --listen, ...).
func Command(jar string, flags []string) []string {
	return append(append([]string{"java"}, flags...), "-jar", jar)
}

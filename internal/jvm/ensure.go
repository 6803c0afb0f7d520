package jvm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hopbench/hopbench/internal/toolpath"
)

// Sources says where the JVM node's sources are, for a hopbench that
// runs outside its checkout.
const Sources = "jvm/node in the hopbench repository (https://github.com/hopbench/hopbench)"

// setupScript builds the JVM node in a checkout: it installs a JDK
// (apt, as root) and Maven 3.9 where missing, and builds jvm/node into
// .tools/jvm/node; a build already current is left alone.
var setupScript = filepath.Join("scripts", "setup.sh")

// logTail is how many of a failed build's last log lines its error shows.
const logTail = 15

// Ensure finds the JVM node's jar as Jar does and, where it is missing
// and hopbench runs from its checkout, builds it first with
// scripts/setup.sh jvm, as brokers are set up on first use: a line on
// stderr before and after, the script's output in a log file whose path
// is shown. Cancelling ctx kills the build and all its processes.
// HOPBENCH_JVM_NODE, when set, is taken as is: nothing is built.
func Ensure(ctx context.Context, stderr io.Writer) (string, error) {
	jar, err := Jar()
	if !errors.Is(err, ErrNotBuilt) {
		return jar, err
	}
	checkout, ok := Checkout()
	if !ok {
		return "", fmt.Errorf("the JVM node is not built, and this hopbench cannot build it: neither it nor the working directory is in a hopbench checkout. "+
			"The node's sources are %s: build it there with scripts/setup.sh jvm (and run that checkout's bin/hopbench), or set HOPBENCH_JVM_NODE to the quarkus-run.jar of a build", Sources)
	}
	return build(ctx, checkout, stderr)
}

// Checkout finds the hopbench checkout hopbench runs from (beside its
// binary or above the working directory, as Jar looks): a directory
// holding scripts/setup.sh and the node's sources, jvm/node/pom.xml.
func Checkout() (string, bool) {
	setup, ok := toolpath.Find(setupScript, func(p string) bool {
		root := filepath.Dir(filepath.Dir(p))
		return toolpath.Exists(p) && toolpath.Exists(filepath.Join(root, "jvm", "node", "pom.xml"))
	})
	if !ok {
		return "", false
	}
	return filepath.Dir(filepath.Dir(setup)), true
}

// build runs scripts/setup.sh jvm in checkout and returns the jar it
// made.
func build(ctx context.Context, checkout string, stderr io.Writer) (string, error) {
	logPath := filepath.Join(checkout, ".tools", "jvm", "setup.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return "", fmt.Errorf("building the JVM node: %w", err)
	}
	log, err := os.Create(logPath)
	if err != nil {
		return "", fmt.Errorf("building the JVM node: %w", err)
	}
	defer log.Close()
	fmt.Fprintf(stderr, "building the JVM node (first use): scripts/setup.sh jvm ... (a few minutes: a JDK and Maven where missing, then the node's libraries from Maven Central; log %s)\n", logPath)
	began := time.Now()
	cmd := exec.CommandContext(ctx, filepath.Join(checkout, setupScript), "jvm")
	cmd.Dir, cmd.Stdout, cmd.Stderr = checkout, log, log
	// The script and what it starts (apt-get, Maven's JVM) form a process
	// group of their own, killed whole when ctx ends (hopbench's Ctrl-C):
	// killing the script alone would leave Maven running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err = cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("building the JVM node: stopped after %s: %w", time.Since(began).Round(time.Second), context.Cause(ctx))
	}
	if err != nil {
		return "", buildFailed(logPath, err)
	}
	jar := filepath.Join(checkout, jarPath)
	if !toolpath.Exists(jar) {
		return "", fmt.Errorf("building the JVM node: scripts/setup.sh jvm succeeded but left no %s (log %s)", jar, logPath)
	}
	fmt.Fprintf(stderr, "built the JVM node in %s: %s\n", time.Since(began).Round(time.Second), jar)
	return jar, nil
}

// buildFailed says why scripts/setup.sh jvm failed: packages that need
// root to install, or else the end of its log.
func buildFailed(logPath string, err error) error {
	out, _ := os.ReadFile(logPath)
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	for _, l := range lines {
		if _, missing, ok := strings.Cut(l, "need root to install: "); ok {
			return fmt.Errorf("the JVM node is not built, and building it needs packages that only root can install: %s; then hopbench builds the node itself (log %s)", missing, logPath)
		}
	}
	lines = lines[max(0, len(lines)-logTail):]
	var tail bytes.Buffer
	for _, l := range lines {
		fmt.Fprintf(&tail, "\n  %s", l)
	}
	return fmt.Errorf("building the JVM node failed (scripts/setup.sh jvm: %v); the end of its log, %s:%s", err, logPath, tail.String())
}

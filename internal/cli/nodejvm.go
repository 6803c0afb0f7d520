package cli

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/cpuset"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
)

// jvmNodeFlags are the node flags the JVM node takes; the others are
// refused by name with --runtime jvm.
var jvmNodeFlags = []string{"runtime", "stack", "listen", "downstream", "max-bytes", "max-in-flight", "announce", "admin", "seed", "gets", "seeds", "cache", "cpus", "jvm-flag",
	"proto", "proto-path", "message", "proto-fill", "proto-samples"}

// execJVMNode replaces this process with a JVM node (jvm/node) serving
// the same contract, so its PID, signals and memory are the JVM's. Its
// get replies are the Go generator's, written to a seeds file first
// unless --seeds names one; a user's message (--proto) goes to it as the
// descriptor set it builds the message from. Pinned to cpus first (none:
// left be), it passes the mask on to every thread of the JVM.
func execJVMNode(cmd *cobra.Command, f nodeFlags, st transport.Stack, cpus cpuset.Set, m *payload.Model) error {
	if err := checkJVMFlags(cmd, f, st); err != nil {
		return err
	}
	user, descriptors, err := jvmDescriptors(m)
	if err != nil {
		return err
	}
	seeds, gets, err := jvmSeeds(f, user)
	if err != nil {
		return err
	}
	jar, err := jvm.Jar()
	if err != nil {
		return err
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return fmt.Errorf("--runtime jvm: %w (scripts/setup.sh jvm installs Java 17)", err)
	}
	if gets != nil {
		if err := jvm.WriteSeeds(seeds, gets, *f.contract.Seed); err != nil {
			return err
		}
	}
	if err := pinNode(cpus); err != nil {
		return err
	}
	argv := jvmArgv(f, st, jar, seeds)
	if user != nil {
		argv = append(argv, "--descriptors", descriptors, "--message", string(user.Message.FullName()))
	}
	return syscall.Exec(java, argv, os.Environ())
}

// jvmDescriptors writes the descriptor set of the user's message the node
// serves, m (--proto; nil: none), to the cache, named by what it holds.
func jvmDescriptors(m *payload.Model) (*userschema.Payload, string, error) {
	if m == nil {
		return nil, "", nil
	}
	p, ok := userschema.Used(m.Name)
	if !ok {
		return nil, "", fmt.Errorf("--proto: %s is not registered here", m.Name) // Use registered it
	}
	dir, err := jvmSeedsCache()
	if err != nil {
		return nil, "", err
	}
	sum := p.Fingerprint()
	path := filepath.Join(dir, fmt.Sprintf("%x.descriptors", sum[:16]))
	return p, path, jvm.WriteDescriptors(path, p)
}

// checkJVMFlags refuses, by name, what the JVM node does not take.
func checkJVMFlags(cmd *cobra.Command, f nodeFlags, st transport.Stack) error {
	if err := jvm.Serves(st); err != nil {
		return usageError{fmt.Errorf("--runtime jvm: %w", err)}
	}
	var refused []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if !slices.Contains(jvmNodeFlags, fl.Name) {
			refused = append(refused, "--"+fl.Name)
		}
	})
	if len(refused) > 0 {
		return usageError{fmt.Errorf("--runtime jvm: the JVM node does not take %s; it takes --%s", strings.Join(refused, ", "), strings.Join(jvmNodeFlags[1:], ", --"))}
	}
	if len(f.contract.Downstream) > 1 {
		return usageError{fmt.Errorf("--runtime jvm: the JVM node calls one downstream node (chains), not %d; fan-out needs the Go node", len(f.contract.Downstream))}
	}
	if f.contract.Seeds != "" {
		for _, name := range []string{"gets", "seed"} {
			if cmd.Flags().Changed(name) {
				return usageError{fmt.Errorf("--seeds and --%s: the seeds file already holds the get replies, generated when it was written; give one or the other", name)}
			}
		}
	}
	return nil
}

// jvmSeeds is the seeds file the JVM node reads: --seeds, or one to
// write here with gets, the replies --gets asks for (with a user's
// message, its own among them).
func jvmSeeds(f nodeFlags, user *userschema.Payload) (seeds string, gets []jvm.Get, err error) {
	if f.contract.Seeds != "" {
		if _, err := os.Stat(f.contract.Seeds); err != nil {
			return "", nil, usageError{fmt.Errorf("--seeds: %w", err)}
		}
		return f.contract.Seeds, nil, nil
	}
	if gets, err = parseGets(f.contract.Gets, user); err != nil {
		return "", nil, usageError{fmt.Errorf("--gets: %w", err)}
	}
	dir, err := jvmSeedsCache()
	if err != nil {
		return "", nil, err
	}
	key := fmt.Appendf(nil, "%v %d", gets, *f.contract.Seed)
	if user != nil { // the same name, another .proto or fill: other messages
		sum := user.Fingerprint()
		key = append(key, sum[:]...)
	}
	seeds = filepath.Join(dir, fmt.Sprintf("%x.bin", sha256.Sum256(key)))
	return seeds, gets, nil
}

// jvmSeedsMaxAge is how long a seeds file of the cache outlives its last
// use.
const jvmSeedsMaxAge = 24 * time.Hour

// jvmSeedsCache is the directory of the seeds files lone JVM nodes read:
// hopbench/jvm-seeds in the user's cache directory ($XDG_CACHE_HOME or
// ~/.cache), not the system's temp folder. This process is replaced by
// the JVM (its PID and signals are the node's), so nothing is left to
// remove the file when the node ends: files are named by what they hold,
// so nodes asking the same share one, and each node that writes one
// removes those no node wrote for a day. A node already running has read
// its file (the JVM maps it at start); one starting now rewrites its own.
func jvmSeedsCache() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("--runtime jvm: no cache directory to write the seeds file in (%w): give --seeds FILE", err)
	}
	dir := filepath.Join(base, "hopbench", "jvm-seeds")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("--runtime jvm: the seeds cache: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("--runtime jvm: the seeds cache: %w", err)
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) > jvmSeedsMaxAge {
			os.Remove(filepath.Join(dir, e.Name())) // another node may have removed it first
		}
	}
	return dir, nil
}

// jvmArgv is the command line of the JVM node: the JVM's flags, then the
// node contract's.
func jvmArgv(f nodeFlags, st transport.Stack, jar, seeds string) []string {
	c := f.contract
	listen := c.Listen
	if listen == "" {
		listen = defaultAddr(st, false, false)
	}
	argv := append(jvm.Command(jar, c.JVMFlags), "--stack", st.String(), "--listen", listen, "--seeds", seeds,
		"--max-bytes", strconv.Itoa(f.maxBytes), "--max-in-flight", strconv.Itoa(f.cfg.MaxInFlight))
	if c.Admin != "" {
		argv = append(argv, "--admin", c.Admin)
	}
	if len(c.Downstream) > 0 {
		argv = append(argv, "--downstream", c.Downstream[0])
	}
	if c.Announce {
		argv = append(argv, "--announce")
	}
	if c.Cache {
		argv = append(argv, "--cache")
	}
	return argv
}

// parseGets reads MODEL:COUNT,... ; none means every model at its first
// standard count, the user's message's (none: nil) too.
func parseGets(specs []string, user *userschema.Payload) ([]jvm.Get, error) {
	var gets []jvm.Get
	if len(specs) == 0 {
		models := payload.Models()
		if user != nil {
			models = append(models, user.Model())
		}
		for _, m := range models {
			gets = append(gets, jvm.Get{Model: m.Name, Count: m.Counts[0]})
		}
		return gets, nil
	}
	for _, s := range specs {
		name, count, ok := strings.Cut(s, ":")
		n, err := strconv.Atoi(count)
		if !ok || err != nil {
			return nil, fmt.Errorf("%q: want MODEL:COUNT, e.g. user:10", s)
		}
		m, err := payload.Lookup(name)
		if err != nil {
			return nil, err
		}
		if err := m.CheckCount(n); err != nil {
			return nil, err
		}
		gets = append(gets, jvm.Get{Model: name, Count: n})
	}
	return gets, nil
}

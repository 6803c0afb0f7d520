package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/cli"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all" // every stack, to know which need a broker
)

// Every line of every command's Example text (hopbench --help and each
// subcommand's --help) that starts with `hopbench` is run here, for real,
// end to end, in one working directory, in the order its example lists it.
// So no example can name a flag, a preset or a file that is not there, or
// fail. The only changes made to a line, each below where it is made:
//
//   - a --duration above a few hundred milliseconds is shortened, and a
//     capacity search gets a short budget and step;
//   - a `hopbench node ... &` line starts the node in the background on a
//     free port (a broker stack's node on a queue of its own), the same
//     example's loads of that stack are pointed at it, and it is
//     interrupted, and must exit cleanly, after the example (or before its
//     `brokers down`);
//   - `hopbench run` checks its spec with --dry-run instead of running it;
//   - a results directory an example names (results/quick-...) is made
//     where it names it, a copy of one of two results sets that short
//     loads (--out) make first: rest's for the first a line names, grpc's
//     for the second, so that compare has two stacks to compare;
//   - files an example reads (a spec, a requirements file) are written
//     first: exampleFiles;
//   - brokers examples use a data directory of the test's own (--dir), and
//     a line that needs a broker is skipped under -short or when that
//     broker is not installed (NATS is embedded: never); advise --measure
//     (an experiment of fixed length) is skipped under -short;
//   - `> FILE` writes stdout to FILE; lines of other programs (benchstat)
//     and comments are not run.
func TestEveryHelpExampleRuns(t *testing.T) {
	groups := exampleGroups(cli.Commands())
	lines := 0
	for _, g := range groups {
		lines += len(g.lines)
	}
	if len(groups) < 7 || lines < 20 {
		t.Fatalf("found %d examples with %d lines: has the help text's layout changed?", len(groups), lines)
	}
	r := &exampleRun{work: t.TempDir(), brokerDir: t.TempDir(), results: [2]string{t.TempDir(), t.TempDir()}}
	t.Cleanup(func() { hopbench(t, "brokers", "down", "--dir", r.brokerDir) }) // only if an example failed before its own down
	for name, content := range exampleFiles {
		if err := os.WriteFile(filepath.Join(r.work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for text := range exampleChecks {
		if !slices.ContainsFunc(groups, func(g exampleGroup) bool { return slices.Contains(g.lines, text) }) {
			t.Errorf("no help example reads `%s` any more: check what it checked on the example that replaced it", text)
		}
	}
	if !t.Run("make results", r.makeResults) {
		t.FailNow()
	}
	for _, g := range groups {
		t.Run(g.command, func(t *testing.T) { r.runGroup(t, g) })
	}
}

// exampleFiles are the files examples name, written into their working
// directory first: small specs for run's examples (one with thresholds), requirements for
// advise's, a .proto for codec's and a second version of it for evolve's.
var exampleFiles = map[string]string{
	"my-experiment.yaml": exampleSpec,
	"my.yaml":            exampleSpec,
	"gated.yaml":         exampleSpec + "thresholds: {p99: \"< 50ms\", errors: \"< 0.1%\"}\n",
	"needs.yaml":         "model: user\ncount: 3\nschema_evolution: true\nstacks: [rest, grpc]\n",
	"orders.proto":       "syntax = \"proto3\";\npackage shop;\nmessage Order {\n  string id = 1;\n  repeated int64 items = 2;\n  map<string, string> labels = 3;\n}\n",
	"orders-v2.proto":    "syntax = \"proto3\";\npackage shop;\nmessage Order {\n  string order_id = 1;\n  repeated int64 items = 2;\n  map<string, string> labels = 3;\n  string note = 4;\n}\n",
}

const exampleSpec = `name: mine
stacks: [rest, grpc]
payloads: [{model: user, counts: [3]}]
loads: [{closed: {clients: 1}}]
warmup: 1s
duration: 5s
`

// exampleDuration is what a longer --duration is shortened to.
const exampleDuration = 300 * time.Millisecond

type exampleGroup struct {
	command string   // e.g. "hopbench load"
	lines   []string // its Example, line by line
}

// exampleGroups walks the command tree: each command's Example text.
func exampleGroups(c *cobra.Command) []exampleGroup {
	var all []exampleGroup
	if c.Example != "" {
		g := exampleGroup{command: c.CommandPath()}
		for _, l := range strings.Split(c.Example, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				g.lines = append(g.lines, l)
			}
		}
		all = append(all, g)
	}
	for _, sub := range c.Commands() {
		all = append(all, exampleGroups(sub)...)
	}
	return all
}

// exampleRun is what the examples share: their working directory, the
// brokers' data directory and the two results sets results paths get.
type exampleRun struct {
	work, brokerDir string
	results         [2]string
}

// exampleChecks are what some examples must print, checked on the
// example's own run rather than by running the same command again in a
// test of its own.
var exampleChecks = map[string]func(t *testing.T, stdout string){
	"hopbench advise --model text --count 100 --rate 1000 --sla 20ms --measure --stacks rest,grpc,nats": checkAdviseFitsAll,
}

// checkAdviseFitsAll: the issue's own example of advise --measure ranks
// rest, grpc and nats as fitting 1 000 req/s within p99 ≤ 20ms, each with
// an open-loop capacity figure in its evidence.
func checkAdviseFitsAll(t *testing.T, out string) {
	t.Helper()
	for _, s := range []string{"rest", "grpc", "nats"} {
		if !regexp.MustCompile(`\d\. ` + regexp.QuoteMeta(s) + `: fits`).MatchString(out) {
			t.Errorf("%s does not fit:\n%s", s, out)
		}
	}
	if n := len(regexp.MustCompile(`\(capacity:p99<=20ms/budget:\w+, 1 repetition\), headroom ×`).FindAllString(out, -1)); n != 3 {
		t.Errorf("%d stacks cite a capacity run, want 3:\n%s", n, out)
	}
}

// exampleLine is one example line, parsed and adjusted.
type exampleLine struct {
	text       string
	args       []string // after "hopbench", as run
	background bool     // ends in &
	stdoutFile string   // > FILE
	cmd        *cobra.Command
	positional []string
}

// makeResults makes the two results sets (r.results), as hopbench load --out writes them:
// rest, then grpc, each echoing text×100 and payment×5 at one client.
func (r *exampleRun) makeResults(t *testing.T) {
	for i, stack := range []string{"rest", "grpc"} {
		addr := startNode(t, "--stack", stack)
		for _, p := range [][]string{{"text", "100"}, {"payment", "5"}} {
			// A count of requests, not a time: a 200ms window on a machine
			// busy with the suite's other packages once saw no call end.
			if out, code := hopbench(t, "load", "--stack", stack, "--target", addr, "--model", p[0], "--count", p[1],
				"--clients", "1", "--requests", "200", "--out", r.results[i]); code != 0 {
				t.Fatalf("load --out: exit %d: %s", code, out)
			}
		}
	}
}

// runGroup runs one command's example lines in order; the nodes it starts
// in the background are interrupted at its end.
func (r *exampleRun) runGroup(t *testing.T, g exampleGroup) {
	nodes := map[string]*exampleNode{} // by stack
	stopNodes := func() {
		for stack, n := range nodes {
			n.stop(t)
			delete(nodes, stack)
		}
	}
	defer stopNodes()
	for _, text := range g.lines {
		if !strings.HasPrefix(text, "hopbench ") && text != "hopbench" {
			if !strings.HasPrefix(text, "#") {
				t.Logf("not run (not hopbench): %s", text)
			}
			continue
		}
		l, err := parseExample(text)
		if err != nil {
			t.Errorf("the example `%s`: %v", text, err)
			continue
		}
		if why := skipExample(l); why != "" {
			t.Logf("skipped `%s`: %s", text, why)
			continue
		}
		if err := r.adjust(l, nodes); err != nil {
			t.Errorf("the example `%s`: %v", text, err)
			continue
		}
		if l.cmd.Name() == "brokers" && l.positional[0] == "down" {
			stopNodes() // as a user would: a broker in use by a node is not stopped
		}
		if l.background {
			if n := startExampleNode(t, l); n != nil {
				nodes[flagValue(l.cmd, "stack")] = n
			}
			continue
		}
		r.run(t, l)
	}
}

// shellOnly are what a line may not hold: the test runs no shell.
var shellOnly = regexp.MustCompile("[|;<$`'\"\\\\]|&&")

// parseExample splits an example line and parses its flags as its command
// does: a misspelled flag or command fails here, as in a shell.
func parseExample(text string) (*exampleLine, error) {
	if shellOnly.MatchString(text) {
		return nil, errors.New("holds shell syntax this test does not run (only a trailing & and > FILE)")
	}
	l := &exampleLine{text: text, args: strings.Fields(text)[1:]}
	if n := len(l.args); n > 0 && l.args[n-1] == "&" {
		l.background, l.args = true, l.args[:n-1]
	}
	if n := len(l.args); n >= 2 && l.args[n-2] == ">" {
		l.stdoutFile, l.args = l.args[n-1], l.args[:n-2]
	}
	if slices.ContainsFunc(l.args, func(a string) bool { return strings.ContainsAny(a, "&>") }) {
		return nil, errors.New("holds shell syntax this test does not run (only a trailing & and > FILE)")
	}
	c, rest, err := cli.Commands().Find(l.args)
	if err != nil {
		return nil, err
	}
	if err := c.ParseFlags(rest); err != nil {
		return nil, c.FlagErrorFunc()(c, err)
	}
	l.cmd, l.positional = c, c.Flags().Args()
	if c.Name() == "brokers" && len(l.positional) == 0 {
		return nil, errors.New("brokers without an action")
	}
	return l, nil
}

// skipExample says why a line is not run here, or "".
func skipExample(l *exampleLine) string {
	for _, b := range brokersNeeded(l) {
		switch {
		case testing.Short():
			return "needs " + b + " (-short)"
		case !brokerInstalled(b):
			return b + " is not installed here (scripts/setup.sh installs it)"
		}
	}
	switch {
	case testing.Short() && l.cmd.Name() == "advise" && flagValue(l.cmd, "measure") == "true":
		return "advise --measure runs an experiment of fixed length (-short)"
	case testing.Short() && flagValue(l.cmd, "runtime") == "jvm":
		return "needs Java (-short)"
	}
	return ""
}

// brokersNeeded are the brokers a line starts or talks through.
func brokersNeeded(l *exampleLine) []string {
	if l.cmd.Name() == "brokers" {
		if l.positional[0] != "up" {
			return nil // status and down only look
		}
		if len(l.positional) == 1 {
			return broker.Names
		}
		return l.positional[1:]
	}
	var need []string
	for _, name := range []string{"stack", "stacks"} {
		for _, s := range flagValues(l.cmd, name) {
			st, err := transport.ParseStack(s)
			if err != nil {
				continue // the command itself says what is wrong
			}
			if tr, err := transport.Lookup(st.Transport); err == nil {
				if b := transport.BrokerOf(tr); b != "" && !slices.Contains(need, b) {
					need = append(need, b)
				}
			}
		}
	}
	return need
}

// rabbitmqServer is where broker.Start looks for RabbitMQ (Debian's
// rabbitmq-server, which scripts/setup.sh installs).
const rabbitmqServer = "/usr/lib/rabbitmq/bin/rabbitmq-server"

// mosquittoServer is where broker.Start looks for Mosquitto (Debian's
// mosquitto, which scripts/setup.sh installs).
const mosquittoServer = "/usr/sbin/mosquitto"

func brokerInstalled(name string) bool {
	switch name {
	case "rabbitmq":
		_, err := os.Stat(rabbitmqServer)
		return err == nil
	case "kafka":
		_, errLibs := broker.FindKafkaLibs()
		_, errJava := exec.LookPath("java")
		return errLibs == nil && errJava == nil
	case "mosquitto":
		_, err := os.Stat(mosquittoServer)
		return err == nil
	}
	return true // NATS is embedded in hopbench
}

// adjust makes the changes listed above TestEveryHelpExampleRuns. A flag
// given again takes the later value, so most are flags appended.
func (r *exampleRun) adjust(l *exampleLine, nodes map[string]*exampleNode) error {
	c := l.cmd
	made := 0
	for _, p := range l.positional {
		if l.cmd.Name() == "run" || !strings.HasPrefix(p, "results/") {
			continue
		}
		dst := filepath.Join(r.work, p)
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		if err := os.CopyFS(dst, os.DirFS(r.results[made%2])); err != nil {
			return err
		}
		made++
	}
	if flagValue(c, "capacity") == "true" {
		// A capacity search's budget is its --duration (default 40 s);
		// a step of 500 ms is the shortest it takes.
		l.args = append(l.args, "--duration", "2s", "--step", "500ms")
	} else if f := c.Flags().Lookup("duration"); f != nil && f.Changed {
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d > exampleDuration {
			l.args = append(l.args, "--duration", exampleDuration.String())
		}
	}
	switch c.CommandPath() {
	case "hopbench run":
		if c.Flags().Lookup("dry-run") == nil {
			return errors.New("hopbench run has no --dry-run, which this test runs its examples with")
		}
		if !c.Flags().Changed("dry-run") {
			l.args = append(l.args, "--dry-run")
		}
	case "hopbench brokers":
		l.args = append(l.args, "--dir", r.brokerDir)
	case "hopbench node":
		if l.background {
			l.args = append(l.args, "--listen", exampleListen(flagValue(c, "stack")), "--admin", "")
		}
	case "hopbench load":
		stack := flagValue(c, "stack")
		n := nodes[stack]
		if n == nil {
			return fmt.Errorf("loads a %s node, and no `hopbench node --stack %s &` before it in the same example starts one", stack, stack)
		}
		l.args = append(l.args, "--target", n.addr)
	}
	return nil
}

// exampleListen is where the test's node of stack serves: a free port, or
// for a broker stack the broker's usual address with a queue, topic or
// subject of the test's own (other tests may use the broker at once).
func exampleListen(stack string) string {
	st, err := transport.ParseStack(stack)
	if err != nil {
		return "127.0.0.1:0"
	}
	tr, err := transport.Lookup(st.Transport)
	if err != nil {
		return "127.0.0.1:0"
	}
	if c := tr.Caps(); c.Broker != "" {
		return fmt.Sprintf("%s://%s/hopbench-examples-%d", c.Scheme, broker.DefaultAddr[c.Broker], os.Getpid())
	}
	return "127.0.0.1:0"
}

// run runs a line in the foreground: it must exit 0.
func (r *exampleRun) run(t *testing.T, l *exampleLine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, l.args...)
	cmd.Dir = r.work
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if l.stdoutFile != "" {
		f, err := os.Create(filepath.Join(r.work, l.stdoutFile))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdout = f
	}
	began := time.Now()
	err := cmd.Run()
	t.Logf("`%s` as %s: %v, %s", l.text, shellQuote(l.args), err, time.Since(began).Round(time.Millisecond))
	if err != nil {
		t.Errorf("the example `%s` (run as hopbench %s) failed: %v\nstderr:\n%s\nstdout:\n%s", l.text, shellQuote(l.args), err, stderr.String(), stdout.String())
	} else if check := exampleChecks[l.text]; check != nil {
		check(t, stdout.String())
	}
}

// exampleNode is a `hopbench node ... &` of an example.
type exampleNode struct {
	text   string
	addr   string
	cmd    *exec.Cmd
	exited chan error
	stderr *watchedOutput
}

var servingOn = regexp.MustCompile(`serving on ([^\s,;]+)[\s,;]`)

// startExampleNode starts a background line's node and waits for the
// address it serves on.
func startExampleNode(t *testing.T, l *exampleLine) *exampleNode {
	t.Helper()
	n := &exampleNode{text: l.text, exited: make(chan error, 1), stderr: &watchedOutput{found: make(chan string, 1)}}
	n.cmd = exec.Command(bin, l.args...)
	n.cmd.Stderr = n.stderr
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { n.exited <- n.cmd.Wait() }()
	select {
	case n.addr = <-n.stderr.found:
		t.Logf("`%s` as %s: serving on %s", l.text, shellQuote(l.args), n.addr)
		return n
	case err := <-n.exited:
		t.Errorf("the example `%s` (run as hopbench %s) exited: %v\n%s", l.text, shellQuote(l.args), err, n.stderr)
	case <-time.After(30 * time.Second):
		n.cmd.Process.Kill()
		<-n.exited
		t.Errorf("the example `%s` (run as hopbench %s) did not serve within 30 s\n%s", l.text, shellQuote(l.args), n.stderr)
	}
	return nil
}

// stop interrupts the node, which must exit cleanly.
func (n *exampleNode) stop(t *testing.T) {
	n.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-n.exited:
		if err != nil {
			t.Errorf("the example's `%s` exited with %v after an interrupt, want 0\n%s", n.text, err, n.stderr)
		}
	case <-time.After(10 * time.Second):
		n.cmd.Process.Kill()
		<-n.exited
		t.Errorf("the example's `%s` still ran 10 s after an interrupt", n.text)
	}
}

// watchedOutput keeps a process's output and sends the address of its
// first "serving on" line.
type watchedOutput struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	found chan string
	sent  bool
}

func (w *watchedOutput) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := servingOn.FindSubmatch(w.buf.Bytes()); m != nil && !w.sent {
		w.sent = true
		w.found <- string(m[1])
	}
	return len(p), nil
}

func (w *watchedOutput) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// flagValue is a parsed flag's value as text, "" if c has no such flag.
func flagValue(c *cobra.Command, name string) string {
	if f := c.Flags().Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// flagValues is a list flag's values, or a plain flag's one value.
func flagValues(c *cobra.Command, name string) []string {
	f := c.Flags().Lookup(name)
	if f == nil {
		return nil
	}
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return s.GetSlice()
	}
	return []string{f.Value.String()}
}

func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" {
			q[i] = `""`
		}
	}
	return strings.Join(q, " ")
}

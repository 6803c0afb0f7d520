package cli

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/advise"
	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/report"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
	"github.com/hopbench/hopbench/presets"
)

// adviseLong is hopbench advise --help's text.
const adviseLong = `Rank the stacks for stated requirements, from measured results: the results
directories given, or else the newest under results/. Each stack's place is
explained by the figures it rests on (which run, which percentile, what
rate) and by the trade-offs its technology brings that no run measures
(a broker to operate, browser reach, schema evolution, durability).

Requirements come as flags or a YAML file (--requirements) with the same
names (model, count, rate, sla, percentile, topology, async, durable,
browser, schema_evolution, memory_mib, feed, first_message_sla); flags
override the file.

With --feed N (your service streams its replies, N messages each: server
streaming) advise reads the runs of feed:N instead of echo: --sla judges a
feed's time to its last message and --first-message-sla its time to the
first, at the same percentile. Stacks that carry no feeds are listed as
unable to, with why.

An SLA at a rate (--rate with --sla) is judged from open-loop runs only
(rate, ramp of rate, or capacity runs) at or above that rate: a closed loop
measures what a stack carries, not its latency at a given rate. Stacks that
fit are ranked by headroom: the highest rate an open-loop run held within
the SLA, over the rate asked.

No stack is ranked without a measurement behind it. When the results hold
no run of the payload and topology asked for, or no open-loop run at the
rate asked, advise says what is missing and the command that measures it;
with --measure it runs that short experiment of every stack (for a rate
with an SLA, a capacity search per stack starting at the rate, under 5
minutes for the quick preset's 11 stacks; brokers are started and stopped)
and advises from it.`

func newAdviseCommand(a *app) *cobra.Command {
	var req advise.Requirements
	var file string
	var measure bool
	var proto protoOptions
	var v2 userschema.Files
	cmd := &cobra.Command{
		Use:         "advise [RESULTS...] --model M --count N [requirements]",
		Annotations: generatesLoad,
		Short:       "Rank the stacks for your requirements, from measured results",
		Long:        adviseLong,
		Example: `  hopbench advise --model payment --count 5 --rate 2000 --sla 20ms
  hopbench advise results/quick-20261122-210550 --model text --count 100 --async --durable
  hopbench advise --model text --count 100 --rate 1000 --sla 20ms --measure --stacks rest,grpc,nats
  hopbench advise --requirements needs.yaml --measure`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(v2.Files) > 0 {
				req.ProtoV2 = &v2
			}
			return runAdvise(cmd, a, args, &req, file, measure, &proto)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&file, "requirements", "", "a YAML file of requirements (flags override it)")
	fl.StringVar(&req.Model, "model", "", "payload model your services exchange (text, user, payment, recipe, alltypes, ...)")
	fl.IntVar(&req.Count, "count", 0, "items per message (its size)")
	fl.Float64Var(&req.Rate, "rate", 0, "calls per second a service must carry")
	fl.DurationVar(&req.SLA, "sla", 0, "latency the percentile's calls must stay within, e.g. 20ms")
	fl.Float64Var(&req.Percentile, "percentile", 99, "the SLA's percentile")
	fl.StringVar(&req.Topology, "topology", "direct", "how the services call each other: direct, chain:N, tree:D, star:N")
	fl.BoolVar(&req.Async, "async", false, "callers and services must be decoupled by a broker")
	fl.BoolVar(&req.Durable, "durable", false, "requests must survive a restart")
	fl.BoolVar(&req.Browser, "browser", false, "browsers or third parties call the service")
	fl.BoolVar(&req.SchemaEvolution, "schema-evolution", false, "the schema must be able to change safely")
	fl.Float64Var(&req.MemoryMiB, "memory-mib", 0, "memory budget of one service, its broker included (MiB)")
	fl.IntVar(&req.Feed, "feed", 0, "messages a reply carries, when your service streams its replies (server streaming, feed:N)")
	fl.DurationVar(&req.FirstMessageSLA, "first-message-sla", 0, "time to a feed's first message the percentile's calls must stay within (with --feed)")
	fl.BoolVar(&req.OneWay, "oneway", false, "messages are published one way and consumed later (broker stacks): rank one-way runs by end-to-end latency")
	fl.StringSliceVar(&req.Stacks, "stacks", nil, "consider (and measure) only these stacks, e.g. rest+proto,grpc")
	fl.BoolVar(&measure, "measure", false, "when the results cannot answer, run a short experiment for exactly these requirements")
	proto.add(fl)
	v2Flags(fl, &v2)
	return cmd
}

// runAdvise reads the requirements and results, advises, and with measure
// runs what the results could not answer first.
func runAdvise(cmd *cobra.Command, a *app, args []string, req *advise.Requirements, file string, measure bool, proto *protoOptions) error {
	if file != "" {
		if err := readRequirements(file, cmd, req); err != nil {
			return err
		}
	}
	if err := adviseProto(cmd, proto, req); err != nil {
		return err
	}
	req.Defaults()
	if err := req.Validate(); err != nil {
		return usageError{fmt.Errorf("advise: %w", err)}
	}
	recs, err := adviseResults(a, args)
	if err != nil {
		return err
	}
	adv, err := advise.Advise(*req, recs)
	if err != nil {
		return err
	}
	if measure && adv.NeedsMeasurement() {
		spec, data, err := adviseSpec(*req)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "advise: %s; measuring it now\n", measuring(*req))
		if recs, err = runExperiment(cmd, a, spec, data, runFlags{}); err != nil {
			return err
		}
		if adv, err = advise.Advise(*req, recs); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout)
	}
	if err := unsettled(adv, recs); err != nil {
		return err
	}
	return adv.Write(a.stdout)
}

// unsettled adds to adv the orders of stacks at its payload that flip
// between two loads with nothing measured to explain it (report.Flip).
func unsettled(adv *advise.Advice, recs []results.Record) error {
	req := adv.Requirements
	// Flips name no operation: read only the runs of the one advised.
	recs = slices.DeleteFunc(slices.Clone(recs), func(r results.Record) bool { return r.Op != req.Op() })
	if adv.Count == 0 || len(recs) == 0 {
		return nil
	}
	v, err := report.VerdictOf(recs)
	if err != nil {
		return err
	}
	for _, f := range v.Flips {
		if !f.Explained && f.Model == req.Model && f.Count == adv.Count && f.Topology == req.Topology {
			adv.Unsettled = append(adv.Unsettled, f.Text)
		}
	}
	return nil
}

// readRequirements reads file into req, then lets the flags the user set
// win.
func readRequirements(file string, cmd *cobra.Command, req *advise.Requirements) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return usageError{fmt.Errorf("--requirements: %w", err)}
	}
	var fromFile advise.Requirements
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&fromFile); err != nil {
		return usageError{fmt.Errorf("--requirements %s: %w", file, err)}
	}
	flags := *req
	*req = fromFile
	set := func(name string, apply func()) {
		if cmd.Flags().Changed(name) {
			apply()
		}
	}
	set("model", func() { req.Model = flags.Model })
	set("count", func() { req.Count = flags.Count })
	set("rate", func() { req.Rate = flags.Rate })
	set("sla", func() { req.SLA = flags.SLA })
	set("percentile", func() { req.Percentile = flags.Percentile })
	set("topology", func() { req.Topology = flags.Topology })
	set("async", func() { req.Async = flags.Async })
	set("durable", func() { req.Durable = flags.Durable })
	set("browser", func() { req.Browser = flags.Browser })
	set("schema-evolution", func() { req.SchemaEvolution = flags.SchemaEvolution })
	set("memory-mib", func() { req.MemoryMiB = flags.MemoryMiB })
	set("feed", func() { req.Feed = flags.Feed })
	set("first-message-sla", func() { req.FirstMessageSLA = flags.FirstMessageSLA })
	set("stacks", func() { req.Stacks = flags.Stacks })
	set("oneway", func() { req.OneWay = flags.OneWay })
	return nil
}

// adviseResults reads the results given, or the newest under results/;
// none at all is no error: advise says so.
func adviseResults(a *app, args []string) ([]results.Record, error) {
	if len(args) > 0 {
		recs, _, err := readResults(a, args)
		return recs, err
	}
	dirs, _ := filepath.Glob(filepath.Join("results", "*", experiment.ResultsFile))
	slices.SortFunc(dirs, func(x, y string) int { return modTime(y).Compare(modTime(x)) })
	for _, f := range dirs {
		if recs, _, err := results.Read(f); err == nil && len(recs) > 0 {
			fmt.Fprintf(a.stderr, "advise: using %s (the newest results; name others to use them)\n", filepath.Dir(f))
			return recs, nil
		}
	}
	return nil, nil
}

// adviseProto makes the user's message named by --proto, or by the
// requirements' proto, their model, so that advise reads the runs of it
// and --measure sends it.
func adviseProto(cmd *cobra.Command, proto *protoOptions, req *advise.Requirements) error {
	m, err := proto.use(cmd.Context())
	switch {
	case err != nil:
		return err
	case m != nil && (req.Model != "" || req.Proto != nil):
		return usageError{errors.New("give --model (or the requirements' model or proto) or --proto, not both: your message is the model")}
	case m != nil:
		src, err := userschema.Absolute(proto.src)
		if err != nil {
			return err
		}
		req.Model, req.Proto = m.Name, &src
		return adviseChange(cmd, req)
	case req.Proto == nil && req.ProtoV2 != nil:
		return usageError{errors.New("--proto-v2 (proto_v2) is your message's next version: give its first with --proto (proto)")}
	case req.Proto == nil:
		return nil
	}
	src, err := userschema.Absolute(*req.Proto)
	if err == nil {
		var mm payload.Model
		mm, err = userschema.Use(cmd.Context(), src)
		req.Model, req.Proto = mm.Name, &src
	}
	if err != nil {
		return usageError{fmt.Errorf("advise: proto: %w", err)}
	}
	return adviseChange(cmd, req)
}

// adviseChange tries the change to the user's message's next version, when
// one is named, so that each stack is judged on its codec's trials.
func adviseChange(cmd *cobra.Command, req *advise.Requirements) error {
	if req.ProtoV2 == nil {
		return nil
	}
	m, err := payload.Lookup(req.Model)
	if err != nil {
		return err
	}
	req.Trials, err = changeTrials(cmd, *req.ProtoV2, m)
	return err
}

// measuring says what advise --measure is about to measure.
func measuring(req advise.Requirements) string {
	what := fmt.Sprintf("%s×%d through %s", req.Model, req.Count, req.Topology)
	if req.Feed > 0 {
		what = fmt.Sprintf("%s of %s", req.Op(), what)
	}
	var also string
	if req.Feed > 0 && req.FirstMessageSLA > 0 && req.Rate > 0 {
		also = fmt.Sprintf(", and running it at %.0f req/s for its first message", req.Rate)
	}
	if req.Rate > 0 && req.SLA > 0 {
		return fmt.Sprintf("searching each stack's capacity at p%v ≤ %s for %s, from %.0f req/s%s", req.Percentile, req.SLA, what, req.Rate, also)
	}
	return "measuring " + what + " at 1 and 32 clients" + also
}

// adviseBudget is each stack's capacity search budget under advise
// --measure: the quick preset's 11 stacks, their boots and brokers in
// under 5 minutes (25 s until redis and mqtt made them 12).
const adviseBudget = 21 * time.Second

// adviseLoads is what advise --measure runs: a capacity search from the
// rate asked for an SLA at a rate, else latency at one client and
// throughput at 32.
func adviseLoads(req advise.Requirements) string {
	loads := "  - closed: {clients: 1}\n  - closed: {clients: 32}\n"
	start := max(1, math.Round(req.Rate))
	if req.Rate > 0 && req.SLA > 0 {
		loads = fmt.Sprintf("  - capacity: {sla: %s, percentile: %v, start: %v, max_rate: %v, budget: %s}\n", req.SLA, req.Percentile, start, max(200_000, 4*start), adviseBudget)
	}
	if req.Feed > 0 && req.FirstMessageSLA > 0 && req.Rate > 0 {
		// A feed's first message is kept by rate runs only, not by a
		// capacity search's probes.
		loads += fmt.Sprintf("  - rate: {rate: %v}\n", start)
	}
	return loads
}

// adviseSpec is a short experiment of every stack of the quick preset (or
// those asked for) for exactly the payload and topology asked for.
func adviseSpec(req advise.Requirements) (*experiment.Spec, []byte, error) {
	quick, _ := presets.Read("quick")
	var q struct {
		Stacks []string `yaml:"stacks"`
	}
	if err := yaml.Unmarshal(quick, &q); err != nil {
		return nil, nil, fmt.Errorf("reading the quick preset's stacks: %w", err)
	}
	if len(req.Stacks) > 0 {
		q.Stacks = req.Stacks
	}
	pl, err := advisePayload(req)
	if err != nil {
		return nil, nil, err
	}
	if req.Proto != nil && len(req.Stacks) == 0 {
		m, _ := payload.Lookup(req.Model)
		q.Stacks = slices.DeleteFunc(q.Stacks, func(s string) bool { return experiment.CarriesProto(s, m) != nil })
	}
	if req.Feed > 0 {
		asked := q.Stacks
		if q.Stacks = advise.Feeding(asked); len(q.Stacks) == 0 {
			return nil, nil, usageError{fmt.Errorf("advise --measure: none of the stacks asked (%s) carries feeds", strings.Join(asked, ", "))}
		}
	}
	mode := ""
	if req.OneWay {
		asked := q.Stacks
		if q.Stacks = messengers(asked); len(q.Stacks) == 0 {
			return nil, nil, usageError{fmt.Errorf("advise --measure: none of the stacks asked (%s) carries one-way messages", strings.Join(asked, ", "))}
		}
		mode = "mode: oneway\n"
	}
	data := []byte(fmt.Sprintf(`# written by hopbench advise --measure
name: advise
%sstacks: [%s]
payloads:
%sops: [%q]
topologies: [%q]
loads:
%swarmup: 1s
duration: 3s
`, mode, strings.Join(q.Stacks, ", "), pl, req.Op(), req.Topology, adviseLoads(req)))
	spec, err := experiment.Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("the experiment advise would run: %w", err)
	}
	return spec, data, nil
}

// messengers are the stacks of names that carry one-way messages.
func messengers(names []string) []string {
	var out []string
	for _, n := range names {
		if st, err := transport.ParseStack(n); err == nil {
			if _, err := transport.MessengerOf(st.Transport); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// advisePayload is the spec's payloads entry for req: its model, or the
// user's message it names, at its count.
func advisePayload(req advise.Requirements) (string, error) {
	entry := map[string]any{"model": req.Model, "counts": []int{req.Count}}
	if req.Proto != nil {
		entry = map[string]any{"proto": req.Proto, "counts": []int{req.Count}}
	}
	b, err := yaml.Marshal([]any{entry})
	if err != nil {
		return "", err
	}
	return indent(string(b), "  "), nil
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(strings.TrimRight(s, "\n"), "\n")
	return prefix + strings.Join(lines, prefix) + "\n"
}

func modTime(path string) time.Time {
	st, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/userschema"
)

type evolveFlags struct {
	proto      protoOptions
	v2         userschema.Files
	codecs     []string
	paths      []string
	count      int
	seed       uint64
	format     string
	maxChanges int
}

func newEvolveCommand(a *app) *cobra.Command {
	f := evolveFlags{}
	cmd := &cobra.Command{
		Use:   "evolve --proto FILE --message NAME --proto-v2 FILE",
		Short: "Try your schema change on the wire: what each codec keeps, drops, corrupts or refuses",
		Long: `Compare two versions of your .proto's message field by field (added, removed,
renamed, renumbered, widened, narrowed, retyped, enum value added, oneof
changed), then send a message of each version through chains of the other
(v2,v1,v2: a v2 service calling a chain whose first node is still on v1;
v1,v2,v1), each node decoding into its own version and encoding on, as a
chain's nodes do, in every codec, and say what came back of each changed
field: kept, dropped, corrupted or refused, and where. The chains run in
this process, in the codecs' own code (docs/your-messages.md).`,
		Example: `  # what your next schema change does, in every codec
  hopbench evolve --proto orders.proto --message shop.Order --proto-v2 orders-v2.proto`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEvolve(cmd, a, &f) },
	}
	fl := cmd.Flags()
	f.proto.add(fl)
	v2Flags(fl, &f.v2)
	fl.StringSliceVar(&f.codecs, "codec", nil, "codecs (default: every codec that carries your message)")
	fl.StringArrayVar(&f.paths, "path", []string{"v2,v1,v2", "v1,v2,v1"}, "a chain, the sender's version first, then each node's (repeatable)")
	fl.IntVar(&f.count, "count", 3, "messages a trial sends (1 to 1000)")
	fl.Uint64Var(&f.seed, "seed", payload.DefaultSeed, "generator seed")
	fl.StringVar(&f.format, "format", "table", "output: table, or json (every trial)")
	fl.IntVar(&f.maxChanges, "max-changes", 200, "refuse a pair of versions with more changes than this")
	return cmd
}

func runEvolve(cmd *cobra.Command, a *app, f *evolveFlags) error {
	pair, codecs, paths, err := f.setUp(cmd)
	if err != nil {
		return err
	}
	trials, err := evolution.MatrixIn(pair, codecs, paths, f.count, f.seed)
	if err != nil {
		return err
	}
	if f.format == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(trials)
	}
	return writeEvolution(a.stdout, pair, codecs, paths, trials)
}

// setUp checks the flags and loads both versions.
func (f *evolveFlags) setUp(cmd *cobra.Command) (evolution.Pair, []codec.Codec, []evolution.Path, error) {
	var none evolution.Pair
	switch {
	case f.format != "table" && f.format != "json":
		return none, nil, nil, usageError{fmt.Errorf("--format %q: want table or json", f.format)}
	case f.count < 1 || f.count > 1000:
		return none, nil, nil, usageError{fmt.Errorf("--count %d: want 1 to 1000", f.count)}
	case len(f.v2.Files) == 0:
		return none, nil, nil, usageError{errors.New("--proto-v2 FILE: name version 2 of your .proto")}
	}
	m, err := f.proto.use(cmd.Context())
	if err != nil {
		return none, nil, nil, err
	}
	if m == nil {
		return none, nil, nil, usageError{errors.New("--proto FILE --message NAME: name version 1 of your .proto and the message")}
	}
	pair, err := loadPair(cmd, m.Name, f.v2, f.maxChanges)
	if err != nil {
		return none, nil, nil, err
	}
	codecs, err := evolveCodecs(f.codecs, *m)
	if err != nil {
		return none, nil, nil, err
	}
	var paths []evolution.Path
	for _, s := range f.paths {
		p, err := evolution.ParsePath(s)
		if err != nil {
			return none, nil, nil, usageError{err}
		}
		paths = append(paths, p)
	}
	return pair, codecs, paths, nil
}

func loadPair(cmd *cobra.Command, model string, v2 userschema.Files, maxChanges int) (evolution.Pair, error) {
	pair, err := userschema.UsedPair(cmd.Context(), model, v2)
	if err != nil {
		return pair, usageError{err}
	}
	if n := len(pair.Changed); n > maxChanges {
		return pair, usageError{fmt.Errorf("%d changes between the versions, over --max-changes %d", n, maxChanges)}
	}
	return pair, nil
}

// evolveCodecs are the codecs named, or every codec that carries m.
func evolveCodecs(names []string, m payload.Model) ([]codec.Codec, error) {
	var out []codec.Codec
	for _, c := range codec.All() {
		named := slices.Contains(names, c.Name())
		if len(names) > 0 && !named {
			continue
		}
		if err := codecbench.Carries(c.Name(), m); err != nil {
			if named {
				return nil, usageError{err}
			}
			continue
		}
		out = append(out, c)
	}
	for _, n := range names {
		if _, err := codec.Lookup(n); err != nil {
			return nil, usageError{err}
		}
	}
	return out, nil
}

// writeEvolution prints the changes, then per path a table of change x
// codec outcomes, then what each refusal and corruption said.
func writeEvolution(w io.Writer, pair evolution.Pair, codecs []codec.Codec, paths []evolution.Path, trials []evolution.Trial) error {
	fmt.Fprintf(w, "%d changes from v1 to v2 of %s:\n", len(pair.Changed), pair.Model)
	for _, ch := range pair.Changed {
		fmt.Fprintf(w, "  %s\n", ch.Doc)
	}
	byKey := map[string]evolution.Trial{}
	for _, t := range trials {
		byKey[t.Path+"|"+t.Change+"|"+t.Codec] = t
	}
	for _, p := range paths {
		fmt.Fprintf(w, "\nover %s (the sender's version, then each node's):\n", p)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		head := []string{"change"}
		for _, c := range codecs {
			head = append(head, c.Name())
		}
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, ch := range pair.Changed {
			row := []string{ch.Name}
			for _, c := range codecs {
				row = append(row, cell(byKey[p.String()+"|"+ch.Name+"|"+c.Name()]))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	writeDetails(w, trials)
	fmt.Fprintln(w, "\nkept: came back as sent; dropped: came back empty; corrupted: another value; refused: a node or the sender could not decode it; others: every field no change touches.")
	return nil
}

func cell(t evolution.Trial) string {
	if t.Others != evolution.Kept && t.Others != t.Outcome {
		return fmt.Sprintf("%s (others %s)", t.Outcome, t.Others)
	}
	return string(t.Outcome)
}

// writeDetails says what each refusal and corruption was, once a codec,
// change and path.
func writeDetails(w io.Writer, trials []evolution.Trial) {
	var lines []string
	for _, t := range trials {
		if t.Outcome == evolution.Refused || t.Outcome == evolution.Corrupted {
			lines = append(lines, fmt.Sprintf("  %s, %s over %s: %s", t.Codec, t.Change, t.Path, t.Detail))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintln(w, "\nwhat was refused or corrupted:")
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
}

// v2Flags name version 2 of a user's .proto, for evolve and advise.
func v2Flags(fl *pflag.FlagSet, v2 *userschema.Files) { nodeapi.BindProtoV2(fl, v2) }

// changeTrials are the trials of the change from v1 to v2 of a user's
// message over the two mixed chains, in every codec that carries it.
func changeTrials(cmd *cobra.Command, v2 userschema.Files, m payload.Model) ([]evolution.Trial, error) {
	pair, err := loadPair(cmd, m.Name, v2, 200)
	if err != nil {
		return nil, err
	}
	codecs, err := evolveCodecs(nil, m)
	if err != nil {
		return nil, err
	}
	paths := []evolution.Path{{evolution.V2, evolution.V1, evolution.V2}, {evolution.V1, evolution.V2, evolution.V1}}
	return evolution.MatrixIn(pair, codecs, paths, 3, payload.DefaultSeed)
}

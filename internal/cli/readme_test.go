package cli_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/hopbench/hopbench/internal/cli"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
)

// The README's and the docs pages' code blocks are checked as benchstat
// checks its doc: a usage block must name exactly the flags its command
// has, and an output example must be what the command prints. Every page
// of docs/ is linked from the README, and no relative link leads nowhere.

const readmePath = "../../README.md"

// docPaths are the README and every page of docs/ (not docs/plans/).
func docPaths(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("docs/ has no pages: has the layout changed?")
	}
	slices.Sort(pages)
	return append([]string{readmePath}, pages...)
}

// docName is a page's path as the repository names it, for messages.
func docName(path string) string {
	return strings.TrimPrefix(filepath.ToSlash(path), "../../")
}

// docBlock is one fenced code block: its page, the line it starts on and
// its lines.
type docBlock struct {
	page  string
	line  int
	lines []string
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.page, b.line) }

// docBlocks are the fenced code blocks of the README and of every page.
func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	var blocks []docBlock
	for _, p := range docPaths(t) {
		blocks = append(blocks, fencedBlocks(t, p)...)
	}
	return blocks
}

// fencedBlocks are one file's fenced code blocks.
func fencedBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []docBlock
	var cur docBlock
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```") && in:
			blocks, in = append(blocks, cur), false
		case strings.HasPrefix(line, "```"):
			cur, in = docBlock{page: docName(path), line: n + 1}, true
		case in:
			cur.lines = append(cur.lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

var (
	flagName = regexp.MustCompile(`--[a-z][a-z0-9-]*`)
	// helpFlag is a flag's own line in --help, not a mention of it.
	helpFlag = regexp.MustCompile(`(?m)^\s+(?:-[a-z], )?(--[a-z][a-z0-9-]*)`)
)

// TestTheREADMEsUsageBlocksNameEveryFlag holds each `hopbench CMD ...`
// usage block, in the README or a docs page, to the flags `hopbench CMD
// --help` lists, both ways: every flag a block names exists, and every
// flag is named by some usage block of its command.
func TestTheREADMEsUsageBlocksNameEveryFlag(t *testing.T) {
	where := map[string][]string{}            // command: its usage blocks
	named := map[string]map[string][]string{} // command: flag: the blocks naming it
	for _, b := range docBlocks(t) {
		if len(b.lines) == 0 {
			continue
		}
		fields := strings.Fields(b.lines[0])
		if len(fields) < 2 || fields[0] != "hopbench" || !slices.ContainsFunc(b.lines, func(l string) bool { return strings.Contains(l, "[--") }) {
			continue // not a usage block
		}
		cmd := fields[1]
		flags := flagName.FindAllString(strings.Join(b.lines, " "), -1)
		where[cmd] = append(where[cmd], b.String())
		if named[cmd] == nil {
			named[cmd] = map[string][]string{}
		}
		for _, f := range flags {
			named[cmd][f] = append(named[cmd][f], b.String())
		}
	}
	if len(where) < 8 {
		t.Fatalf("found usage blocks for %d commands (%v): has the docs' layout changed?", len(where), where)
	}
	for cmd := range where {
		help, _, err := run(t, cmd, "--help")
		if err != nil {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		_, flags, _ := strings.Cut(help, "Flags:")
		var has []string
		for _, m := range helpFlag.FindAllStringSubmatch(flags, -1) {
			has = append(has, m[1])
		}
		for f, blocks := range named[cmd] {
			if !slices.Contains(has, f) {
				t.Errorf("the usage of hopbench %s at %s names %s, which the command does not have", cmd, strings.Join(slices.Compact(blocks), ", "), f)
			}
		}
		for _, f := range has {
			if f != "--help" && named[cmd][f] == nil {
				t.Errorf("hopbench %s has %s, which its usage block (%s) leaves out", cmd, f, strings.Join(where[cmd], ", "))
			}
		}
	}
}

// follows checks that example (an output block, its command line left out)
// is what got printed: each run of lines between "..." lines appears in
// got, in order and contiguously; "..." inside a line stands for any text.
func follows(t *testing.T, where docBlock, example []string, got string) {
	t.Helper()
	out := strings.Split(got, "\n")
	for i := range out {
		out[i] = strings.TrimRight(out[i], " ")
	}
	at := 0
	for _, chunk := range chunks(example) {
		found := -1
		for i := at; i+len(chunk) <= len(out) && found < 0; i++ {
			if matchAll(chunk, out[i:i+len(chunk)]) {
				found = i
			}
		}
		if found < 0 {
			t.Errorf("%s shows\n%s\nwhich is not what the command printed (from line %d on):\n%s", where, strings.Join(chunk, "\n"), at+1, got)
			return
		}
		at = found + len(chunk)
	}
}

func chunks(example []string) [][]string {
	var all [][]string
	var cur []string
	for _, l := range example {
		if strings.TrimSpace(l) == "..." {
			all, cur = append(all, cur), nil
			continue
		}
		cur = append(cur, l)
	}
	return slices.DeleteFunc(append(all, cur), func(c []string) bool { return len(c) == 0 })
}

func matchAll(want, got []string) bool {
	for i, w := range want {
		parts := strings.Split(w, "...")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		if !regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got[i]) {
			return false
		}
	}
	return true
}

// example is the output block, in the README or a docs page, whose
// command line starts with prefix: the block, the command's arguments and
// the lines it shows.
func example(t *testing.T, prefix string) (where docBlock, args []string, lines []string) {
	t.Helper()
	for _, b := range docBlocks(t) {
		if len(b.lines) > 0 && strings.HasPrefix(b.lines[0], prefix) {
			return b, strings.Fields(strings.TrimPrefix(b.lines[0], "$ hopbench")), b.lines[1:]
		}
	}
	t.Fatalf("neither the README nor a docs page has an example starting %q", prefix)
	return docBlock{}, nil, nil
}

// The advise example is run as the README shows it, on the results it
// names.
func TestTheREADMEsAdviceExampleIsWhatAdvisePrints(t *testing.T) {
	where, args, lines := example(t, "$ hopbench advise")
	t.Chdir("../..")
	out, _, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	follows(t, where, lines, out)
}

// The compare example compares the rest+proto and graphql runs of
// compare's test data, split into two results directories as it says.
func TestTheREADMEsCompareExampleIsWhatComparePrints(t *testing.T) {
	where, args, lines := example(t, "$ hopbench compare")
	recs, _, err := results.Read("../compare/testdata/a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, r := range recs {
		name := strings.SplitN(r.Stack, "+", 2)[0]
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := results.Append(filepath.Join(dir, name, "results.jsonl"), &r); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	out, _, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	follows(t, where, lines, out)
}

// The capacity example came from a live search; its probes are fed to the
// printer as they were measured, and what it prints must read as shown.
func TestTheREADMEsCapacityExampleIsWhatLoadPrints(t *testing.T) {
	where, _, lines := example(t, "$ hopbench load --stack rest --target 127.0.0.1:7171 --capacity")
	probe := func(rate, achieved float64, p99us, lateCalls int64, verdict string) results.Step {
		return results.Step{Value: rate, RPS: achieved, PercentileUs: p99us, Errors: lateCalls,
			ErrorsByClass: map[string]int64{load.ClassOverSLA.String(): lateCalls}, Probe: verdict}
	}
	again := func(st results.Step) results.Step { st.Retry = true; return st }
	transient := probe(19027, 19020, 10500, 434, results.ProbeOverSLA)
	transient.Transient = "the generator's own lateness: its calls went out late, those sent answered within the SLA"
	steps := []results.Step{
		probe(1000, 1000, 411, 0, results.ProbeWithin), probe(2000, 2000, 871, 0, results.ProbeWithin),
		probe(4000, 3999, 1177, 0, results.ProbeWithin), probe(8000, 8000, 1461, 0, results.ProbeWithin),
		probe(16000, 15999, 7655, 182, results.ProbeWithin),
		probe(32000, 29704, 232400, 63456, results.ProbeOverSLA), again(probe(32000, 32000, 103300, 44306, results.ProbeOverSLA)),
		probe(22627, 22627, 18100, 1408, results.ProbeOverSLA), again(probe(22627, 22627, 23100, 2556, results.ProbeOverSLA)),
		transient, again(probe(19027, 19026, 3805, 0, results.ProbeWithin)),
		probe(20749, 20749, 24200, 1917, results.ProbeOverSLA), again(probe(20749, 20748, 24600, 3382, results.ProbeOverSLA)),
		probe(19870, 19868, 20800, 1854, results.ProbeOverSLA),
	}
	c := &results.SearchResult{Percentile: 99, SLAUs: (10 * time.Millisecond).Microseconds(), MaxErrors: 0.001,
		RPS: 19027, Above: 19870, Step: 10, Confirmed: 3, Transients: 1,
		Ended: "the time budget (40s) ran out; 19870 req/s failed once and was not probed again"}
	out, err := cli.PrintCapacity(c, steps)
	if err != nil {
		t.Fatal(err)
	}
	follows(t, where, lines, out)
}

var (
	// mdLink is a Markdown link's or image's target.
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("`[^`]*`")
	heading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// mdText is a Markdown file's prose: its lines outside fenced code blocks,
// inline code removed, and the anchors of its headings as GitHub makes
// them.
func mdText(t *testing.T, path string) (prose string, anchors map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors = map[string]bool{}
	var lines []string
	in := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "```") {
			in = !in
			continue
		}
		if in {
			continue
		}
		lines = append(lines, l)
		if m := heading.FindStringSubmatch(l); m != nil {
			a := anchor(m[1])
			for i := 1; anchors[a]; i++ { // GitHub numbers repeated headings
				a = fmt.Sprintf("%s-%d", anchor(m[1]), i)
			}
			anchors[a] = true
		}
	}
	return codeSpan.ReplaceAllString(strings.Join(lines, "\n"), ""), anchors
}

// anchor is a heading's anchor as GitHub makes it: lower case, spaces as
// hyphens, punctuation other than hyphens and underscores dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// relativeLinks are a Markdown file's links within the repository, each
// as the path it leads to (cleaned, from this package) and its fragment.
func relativeLinks(t *testing.T, path string) (links [][2]string, anchors map[string]bool) {
	t.Helper()
	prose, anchors := mdText(t, path)
	for _, m := range mdLink.FindAllStringSubmatch(prose, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		file, frag, _ := strings.Cut(target, "#")
		if file == "" {
			file = path
		} else {
			file = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
		}
		links = append(links, [2]string{filepath.Clean(file), frag})
	}
	return links, anchors
}

// TestEveryDocsPageIsLinkedFromTheREADME: a page no one can find from the
// README is a page no one reads.
func TestEveryDocsPageIsLinkedFromTheREADME(t *testing.T) {
	links, _ := relativeLinks(t, readmePath)
	for _, page := range docPaths(t)[1:] {
		if !slices.ContainsFunc(links, func(l [2]string) bool { return l[0] == filepath.Clean(page) }) {
			t.Errorf("README.md has no link to %s", docName(page))
		}
	}
}

// TestEveryRelativeLinkInTheDocsLeadsSomewhere: every link from the README
// or a docs page to a file of the repository finds the file, and a link to
// a heading of a Markdown page finds the heading.
func TestEveryRelativeLinkInTheDocsLeadsSomewhere(t *testing.T) {
	anchorsOf := map[string]map[string]bool{}
	for _, p := range docPaths(t) {
		links, anchors := relativeLinks(t, p)
		anchorsOf[filepath.Clean(p)] = anchors
		for _, l := range links {
			file, frag := l[0], l[1]
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s links to %s, which does not exist", docName(p), docName(file))
				continue
			}
			if frag == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			if anchorsOf[file] == nil {
				_, anchorsOf[file] = mdText(t, file)
			}
			if !anchorsOf[file][frag] {
				t.Errorf("%s links to %s#%s, a heading %s does not have", docName(p), docName(file), frag, docName(file))
			}
		}
	}
}

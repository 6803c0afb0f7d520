package expdoc

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The template may type a figure in only where it is not a measurement:
// each kind below is a pattern of the text around the figure. Any other
// number in the template's text (outside {{ }}, code and link targets)
// is taken for a hand-typed measurement, which must be a template call
// drawn from the records instead.
var handTyped = []struct {
	kind string
	res  []*regexp.Regexp
}{
	{"a study's year", patterns(`\((?:19|20)\d\d\)`)},
	{"a version", patterns(`(?:Go|Java|JMH|Jackson|protobuf-java|Quarkus|RabbitMQ|Kafka|TLS|\.NET)\s+\d+(?:\.\d+)*`)},
	{"a place in a study's text", patterns(`(?:Figures?|Table|its)\s+\d+(?:\.\d+)?(?:-\d+)?`)},
	{"the ratio of no difference", patterns(`×1(?:[^\d.]|$)`, `\bspans? 1\b`, `above 1\b`)},
	{"the verdicts' method (reproduce's constants)", phrases(
		"4 000 resamples", "p ≤ 0.05", "×0.8 to ×1.25", "within 10 % of it", "×0.909 to ×1.1",
		"a factor of 1.25", "**95 % CI**", "26 % smaller", "95 % bootstrap", "[95 % CI]", "95 % interval",
		"a 10 % tolerance")},
	{"a setting of a spec (experiments/*/spec.yaml) or of the machine", phrases(
		"reads 5 times", "made 5 times", "24 GiB", "(1 to 300 000)", "(5 to 650)", "400 MiB",
		"100 sequential requests", "5 for every flat payload, 1 to 300 000 users", "case 5 times",
		"360 MiB", "up to 300 MiB", "runs of 300 000 users", "of 100 000 users", "POST of 650",
		"on 650 nested", "**300 000 users:", "serve 300 000 users within 400 MB",
		"allowed 75 %", "at 100 000 users", "at 90 % of the limit", "runs of 100 requests",
		"(1 or 5 users", "five users, 100 requests", "GET of 325 payments", "case but 300 000 users",
		"| 1 s of load", "| 1, 5, 50 and 100 sequential requests | 100 (at quick scale, 5 for every flat payload) | 1, 5 and 50 are prefixes of the 100 |",
		"averaged into 100", "rests on 5 |", "in a 400 MB pod", "to 400 MiB by cgroups", "at 90 %, the JVM",
		"75 % a common", "survive 300 000 users", "| 5 runs a case", "10 s a run, 5 runs a", "POST 5 times",
		"quick scale 5 requests/s for 6 s", "case 5 times in", "the 10 000 integers", "a 615 000-character",
		"writes 10 000 numbers", "(0.1 ms one way, 1 Gbit/s", "| 1 request/s for 5 minutes (300 requests a case) | 5 requests/s for 6 s,",
		"5 runs a case |", "at 5/s", "text of 10 to 1 000 000 characters", "records of 10 to 10 000 properties",
		"latency at 1 client (2 s a run)", "ramped 10 to 70 by 20 every 2 s", "later than 1 s", "call with 10 characters",
		"Every case 5 times", "the 10 000-property", "Kafka at 10 000 properties", "Kafka at 100 000 characters", "up to 1000 properties (Kafka)", "the 10-character ramps", "the ramp's 1 s", "At 10 000 properties",
		"on 10-character text", "at 70 clients", "for 10 characters", "5 request/response hops", "at 1 client | 2 s closed loop at 1 client, 5 runs a case",
		"over 5 runs of 2 s", "| 10 to 70 by 20 every 2 s, on text×10 and alltypes×10 000, 5 runs", "past 70 clients", "within 1 s",
		"last step (70 clients) on 10-character", "(2 s a run)", "(5 calls a run", "at 1 client, on loopback",
		"(0.1 ms one way, 1 Gbit/s) and", "(20 ms one way, 50 Mbit/s)", "(of 5 calls", "3 repetitions) the degree",
		"0.2 ms, 1 Gbit/s", "40 ms, 50 Mbit/s", "move 1 Gbit/s", "at 50 Mbit/s", "20 against 10 through five", "One run of 5 calls",
		"JSON), 1 client", "(3 repetitions, 5 s warm-up and 5 s measured", "(once, 0.5 s warm-up, 1 s measured)", "at 1 and at 3 items",
		"1 client).", "at 1 s, so", "(3 runs of 5 s, about 20 minutes)", "at 1 client and at 16, 5 repetitions of 5 s after 1 s of warm-up",
		"one 2-core", "**The ramp to 200 clients**", "clients +20 every second from 20 to 200", "and up to 200 clients", "goes to 200 by +20 every second", "at 1 client |", "at 16 clients |", "at 16 clients, one-host", "2-core machine's",
		"at 1 000 messages/s for 10 s after 1 s of warm-up", "MQTT 5 at QoS 1", "at 1 000\nmessages/s the guarantees",
		"with up to 250 in flight on one connection", "with up to 150 in flight", "prefetch 100",
		"with 64 in flight", "half of each batch, 5 runs each", "one message a second for 5 s",
		"at a fixed 300\nrequests/s", "at a p99 within 10 ms", "and at 300 requests/s", "per 1 000 requests/s", "per 1 000 req/s",
		"rest at 300 requests/s", "a p99 of 10 ms", "queued at 300 requests/s",
		"(1-second probes from 400 requests/s, 25 seconds a search", "searches from 200 requests/s in 12 seconds")},
	{"a study's own figure, in its words", phrases(
		"at 1 176, 4 696 and 9 312 bytes", "1 048 575 records a test",
		"Istio's page (1.13) has Envoy adding 2.65 ms to the p90 and using 0.35 vCPU per 1 000 requests/s",
		"MeshInsight finds up to 269 % more latency", "by 16 connections at 1 000 requests/s",
		"the study's jump from 4 to 22 ms", "(the study: 4 → 22 ms)", "REST at 3-4 ms against gRPC's 7-8 ms",
		"the study's 3-4 against 7-8 ms", "not 3 to 8 ms", "(REST 4 → 22 ms)", "the study's \"6 of 8\"",
		".NET 6 on", "9850H", "RabbitMQ 3.10, Kafka 3.2", "equation (1), which sums 4 calls each way between the 5 services",
		"plus 4 calls", ", not 40 (", "failed from 100 to 140 clients", "ramped 10 to 200, +10 every 30 s", "(the study: +10 every 30 s from 10 to 200)", "(the study: 10 to 200 by 10 every 30 s)",
		"past 50 clients\" read off 1 000 000-character runs", "(300 requests a case)")},
}

// phrases match each text as it stands, a line break or a run of spaces
// wherever it has a space.
func phrases(texts ...string) []*regexp.Regexp {
	res := make([]*regexp.Regexp, len(texts))
	for i, t := range texts {
		res[i] = regexp.MustCompile(strings.Join(strings.Fields(regexp.QuoteMeta(t)), `\s+`))
	}
	return res
}

func patterns(exprs ...string) []*regexp.Regexp {
	res := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		res[i] = regexp.MustCompile(e)
	}
	return res
}

var (
	actionRe = regexp.MustCompile(`(?s)\{\{.*?\}\}`)
	fenceRe  = regexp.MustCompile("(?s)```.*?```")
	codeRe   = regexp.MustCompile("`[^`\n]*`")
	linkRe   = regexp.MustCompile(`\]\([^)]*\)`)
	numberRe = regexp.MustCompile(`\d+(?:[.,]\d+)*`)
	letterRe = regexp.MustCompile(`^[A-Za-z_]$`)
)

// proseText is the template's text with its actions, code and link targets
// blanked out, each to spaces of its own length so positions stay.
func proseText(text string) string {
	for _, re := range []*regexp.Regexp{actionRe, fenceRe, codeRe, linkRe} {
		text = re.ReplaceAllStringFunc(text, func(s string) string {
			return strings.Map(func(r rune) rune {
				if r == '\n' {
					return r
				}
				return ' '
			}, s)
		})
	}
	return text
}

// handTypedFigures are the numbers of the text that are no name's part
// (int32, chain:5, text×100, HTTP/2, i7) and no allowed kind covers, each
// with its context.
func handTypedFigures(text string) []string {
	p := proseText(text)
	var covered [][]int
	for _, k := range handTyped {
		for _, re := range k.res {
			covered = append(covered, re.FindAllStringIndex(p, -1)...)
		}
	}
	var out []string
	for _, m := range numberRe.FindAllStringIndex(p, -1) {
		if partOfName(p, m[0], m[1]) || inside(covered, m) {
			continue
		}
		out = append(out, fmt.Sprintf("%q in %q", p[m[0]:m[1]], context(p, m)))
	}
	return out
}

func partOfName(p string, start, end int) bool {
	before, after := "", ""
	if start > 0 {
		before = p[start-1 : start]
	}
	if end < len(p) {
		after = p[end : end+1]
	}
	if letterRe.MatchString(before) || letterRe.MatchString(after) {
		return true
	}
	for _, joiner := range []string{":", "×", "/", "-"} {
		at := start - len(joiner)
		if at > 0 && p[at:start] == joiner && letterRe.MatchString(p[at-1:at]) {
			return true
		}
	}
	return false
}

func inside(spans [][]int, m []int) bool {
	for _, s := range spans {
		if s[0] <= m[0] && m[1] <= s[1] {
			return true
		}
	}
	return false
}

func context(p string, m []int) string {
	from, to := max(m[0]-40, 0), min(m[1]+30, len(p))
	return strings.Join(strings.Fields(p[from:to]), " ")
}

// Every number EXPERIMENTS.md quotes from a measurement is drawn from the
// records: the template types in none, only the kinds handTyped allows.
func TestTheTemplateTypesInNoMeasuredFigure(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(root, Template))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range handTypedFigures(string(text)) {
		t.Errorf("a figure typed in by hand: %s (draw it from the records, or, if it is not a measurement, add its kind to handTyped)", f)
	}
	p := proseText(string(text))
	for _, k := range handTyped {
		for _, re := range k.res {
			if !re.MatchString(p) {
				t.Errorf("handTyped %q allows %q, which the template no longer types: remove it", k.kind, re)
			}
		}
	}
}

// The check catches a floor typed in by hand, and lets the same figure
// through drawn from the records.
func TestAHandTypedFloorIsCaught(t *testing.T) {
	if got := handTypedFigures("a TCP round trip of 19 µs and an HTTP one of 44 µs"); len(got) != 2 {
		t.Errorf("hand-typed floors: caught %d, want 2: %v", len(got), got)
	}
	if got := handTypedFigures(`a TCP round trip of {{floor "thesis" "tcp"}} µs, chain:5, text×100, int32, HTTP/2 (2021)`); len(got) != 0 {
		t.Errorf("drawn figures and names taken for typed ones: %v", got)
	}
}

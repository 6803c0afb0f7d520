package experiment

import (
	"strings"
	"testing"
)

// A threshold that does not parse is refused as the spec is read, before
// anything runs: its key's path and line, the text, the column in it and
// what was expected there.
func TestAThresholdThatDoesNotParseIsRefusedWithItsPosition(t *testing.T) {
	for spec, want := range map[string][]string{
		with("thresholds:\n  p99: \"< 10 mss\"\n"):                                       {`spec: thresholds.p99 (line 2): "< 10 mss": column 6: "mss": want a unit of time: ms, µs (or us) or s`},
		with("thresholds:\n  - {p99: \"< 10ms\"}\n  - {stacks: rest, p50: \"< 1ms\"}\n"): {"thresholds[1].stacks (line 3): want a list"},
		with("thresholds: {p98: \"< 10ms\"}\n"):                                          {"thresholds.p98 (line 1): not a threshold key", "p99.9", "stacks and topologies"},
		with("thresholds: {stacks: [rest]}\n"):                                           {"thresholds (line 1): no limit"},
		with("parts: [{name: a, thresholds: {p99: \"< 1s\"}}]\n"):                        {"parts[0].thresholds", "at the top level"},
	} {
		_, err := Parse([]byte(spec))
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant it to say %s", spec, err, w)
			}
		}
	}
	s, err := Parse([]byte(with("thresholds: {p99: \"< 10ms\", errors: \"< 0.1%\"}\n")))
	if err != nil || len(s.Thresholds) != 1 || len(s.Thresholds[0].Limits) != 2 {
		t.Fatalf("%v: %+v", err, s)
	}
}

package experiment

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const withParts = `
name: study
stacks: [rest, rest+proto]
payloads: [{model: user, counts: [5]}]
loads: [{closed: {clients: 1}}]
requests: 100
order: listed
parts:
  - name: latency
    ops: [get]
    cache: [false, true]
  - name: sizes
    ops: [post]
    payloads: [{model: payment, counts: [5, 650]}]
scales:
  quick:
    requests: 5
    parts:
      sizes: {payloads: [{model: payment, counts: [5]}]}
`

func TestPartsRunOneAfterAnotherEachOverTheTopLevel(t *testing.T) {
	s, err := Parse([]byte(withParts))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	// latency: 2 stacks x 2 cache; sizes: 2 stacks x 2 counts.
	if len(runs) != 8 {
		t.Fatalf("%d runs, want 8", len(runs))
	}
	for i, r := range runs {
		want := "latency"
		if i >= 4 {
			want = "sizes"
		}
		if r.Part != want || r.Index != i || r.Requests != 100 || !strings.HasPrefix(r.Case(), want+": ") {
			t.Errorf("run %d: part %q index %d requests %d case %q", i, r.Part, r.Index, r.Requests, r.Case())
		}
	}
	if runs[4].Model != "payment" || runs[0].Model != "user" || runs[4].Op != "post" || !runs[1].Cache && !runs[3].Cache {
		t.Errorf("parts did not write their fields over the top level: %+v / %+v", runs[0], runs[4])
	}
}

func TestRunsAreShuffledWithinEachRepetitionAcrossParts(t *testing.T) {
	spec := strings.Replace(withParts, "order: listed\n", "repetitions: 3\n", 1)
	listed, err := Parse([]byte(strings.Replace(withParts, "order: listed\n", "repetitions: 3\norder: listed\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Parse([]byte(spec))
	want, got, again := listed.Runs(), a.Runs(), b.Runs()
	if len(got) != 24 || len(want) != 24 {
		t.Fatalf("%d and %d runs, want 24", len(got), len(want))
	}
	key := func(r Run) string { return fmt.Sprintf("%d %s", r.Repetition, r.Case()) }
	moved := 0
	for i, r := range got {
		if r.Index != i || r.OrderSeed != 1 || key(r) != key(again[i]) {
			t.Fatalf("run %d: index %d, order seed %d, %q then %q: want the index, the seed recorded, one order for one seed", i, r.Index, r.OrderSeed, key(r), key(again[i]))
		}
		// Repetitions stay outermost, across parts: rep 0 is runs 0-7.
		if r.Repetition != i/8 {
			t.Fatalf("run %d is of repetition %d: want every case once before any twice", i, r.Repetition)
		}
		if key(r) != key(want[i]) {
			moved++
		}
		if want[i].OrderSeed != 0 {
			t.Fatalf("a listed run records order seed %d", want[i].OrderSeed)
		}
	}
	sorted := func(rs []Run) []string {
		var ks []string
		for _, r := range rs {
			ks = append(ks, key(r))
		}
		slices.Sort(ks)
		return ks
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("shuffling changed which runs are made")
	}
	if moved < 12 {
		t.Fatalf("only %d of 24 runs moved from the listed order", moved)
	}
	if _, err := Parse([]byte(spec + "order: random\n")); err == nil || !strings.Contains(err.Error(), "order") {
		t.Fatalf("order: random was accepted or not named: %v", err)
	}
}

func TestAScaleWritesOverTheSpecAndItsParts(t *testing.T) {
	s, err := ParseScale([]byte(withParts), "quick")
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 6 || s.Scale() != "quick" {
		t.Fatalf("%d runs at scale %q, want 6 at quick", len(runs), s.Scale())
	}
	for _, r := range runs {
		if r.Requests != 5 || r.Part == "sizes" && r.Count != 5 {
			t.Errorf("%s: requests %d count %d", r.Case(), r.Requests, r.Count)
		}
	}
}

func TestAScaleRunsOnlyThePartsItNames(t *testing.T) {
	spec := withParts + "  sizes-only:\n    only: [sizes]\n"
	s, err := ParseScale([]byte(spec), "sizes-only")
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 4 {
		t.Fatalf("%d runs, want the sizes part's 4 alone", len(runs))
	}
	for _, r := range runs {
		if r.Part != "sizes" {
			t.Errorf("%s: a part the scale left out ran", r.Case())
		}
	}
	for _, bad := range []string{"only: [size]", "only: []", "only: sizes"} {
		_, err := ParseScale([]byte(withParts+"  bad:\n    "+bad+"\n"), "bad")
		if err == nil || !strings.Contains(err.Error(), "only") {
			t.Errorf("%s: accepted or the error does not name only: %v", bad, err)
		}
	}
}

package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/stats"
)

// A feed's record carries its time to first message, as figures and as a
// histogram, and its messages per second, and reads them back; a unary
// record has none of their keys, and a record whose calls failed drops
// the figures with the others.
func TestAFeedsFiguresGoThereAndBack(t *testing.T) {
	h := stats.NewHistogram()
	stats.Record(h, 3*time.Millisecond)
	enc, err := stats.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	feed := record("feed", 0, 100, 20*time.Millisecond, OutcomeOK)
	feed.Op = "feed:100"
	first := stats.Summarize(h)
	feed.FirstMessage, feed.MessagesPerS, feed.FirstMessageHistogram = &first, 10_000, enc
	unary := record("echo", 0, 100, time.Millisecond, OutcomeOK)
	path := filepath.Join(t.TempDir(), "results.jsonl")
	for _, r := range []*Record{feed, unary} {
		if err := Append(path, r); err != nil {
			t.Fatal(err)
		}
	}
	back, _, err := Read(path)
	if err != nil || len(back) != 2 {
		t.Fatalf("read %d records: %v", len(back), err)
	}
	got := back[0]
	if got.FirstMessage == nil || *got.FirstMessage != first || got.MessagesPerS != 10_000 {
		t.Errorf("read back: first message %+v, %v messages/s; want %+v and 10000", got.FirstMessage, got.MessagesPerS, first)
	}
	if h, err := stats.Decode(got.FirstMessageHistogram); err != nil || h.TotalCount() != 1 || h.Max() < 3000 {
		t.Errorf("first message histogram read back: %v", err)
	}
	if back[1].FirstMessage != nil || back[1].MessagesPerS != 0 || back[1].FirstMessageHistogram != "" {
		t.Errorf("a unary record read back with feed figures: %+v", back[1].Figures)
	}
	lines, _ := os.ReadFile(path)
	unaryLine := strings.Split(string(lines), "\n")[1]
	for _, k := range []string{`"first_message"`, `"messages_per_s"`, `"first_message_histogram"`} {
		if !strings.Contains(string(lines), k) || strings.Contains(unaryLine, k) {
			t.Errorf("%s: want it in the feed's line only:\n%s", k, lines)
		}
	}
	got.Figures.Withhold()
	if got.FirstMessage != nil || got.MessagesPerS != 0 {
		t.Errorf("withheld, a feed keeps first message %+v, %v messages/s", got.FirstMessage, got.MessagesPerS)
	}
}

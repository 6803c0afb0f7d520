package results

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/stats"
)

// A summary with feeds shows their messages/s after req/s and their time
// to the first message after p99 (before the lateness, when there is
// one), blank for cases of one reply a call; CSV gives both.
func TestTheSummaryShowsAFeedsFirstMessageAndMessagesPerSecond(t *testing.T) {
	var recs []Record
	for rep, p50 := range []int64{3000, 5000, 4000} {
		r := record("feed", rep, 100, 20*time.Millisecond, OutcomeOK)
		r.Op = "feed:100"
		r.FirstMessage, r.MessagesPerS = &stats.Summary{P50Us: p50, P99Us: 2 * p50}, 10_000+float64(rep)
		r.Lateness = &stats.Summary{P99Us: 50}
		recs = append(recs, *r)
	}
	recs = append(recs, *record("echo", 0, 100, time.Millisecond, OutcomeOK))
	header, cells := Table(Summarize(recs))
	want := []string{"req/s", "messages/s", "p50 ms", "p99 ms", "first message p50 ms", "lateness p99 ms", "errors"}
	at := slices.Index(header, "req/s")
	if at < 0 || !slices.Equal(header[at:at+len(want)], want) {
		t.Fatalf("header %v, want %v in a row", header, want)
	}
	feed, echo := cells[0][at:at+len(want)], cells[1][at:at+len(want)]
	if feed[1] != "10001 (10000–10002)" || feed[4] != "4.000 (3.000–5.000)" {
		t.Errorf("the feed's cells %v: want messages/s and first message p50 as median (min–max)", feed)
	}
	if echo[1] != "" || echo[4] != "" {
		t.Errorf("the echo's cells %v: want its feed cells blank", echo)
	}
	var csv bytes.Buffer
	if err := CSV(&csv, Summarize(recs)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if !strings.HasSuffix(lines[0], ",first_message_p50_us_median,first_message_p99_us_median,messages_per_s_median") ||
		!strings.HasSuffix(lines[1], ",4000,8000,10001") || !strings.HasSuffix(lines[2], ",,,") {
		t.Errorf("CSV:\n%s", csv.String())
	}
}

package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hopbench/hopbench/internal/results"
)

// progress reports how far a long run is: one line rewritten in place on a
// terminal, a plain line every few seconds otherwise (logs, CI).
type progress struct {
	w        io.Writer
	total    int
	n        int
	tty      bool
	start    time.Time
	lastLine time.Time
	interval time.Duration
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, total: total, tty: isTerminal(w), start: time.Now(), interval: 5 * time.Second}
}

func (p *progress) step(label string) {
	p.n++
	elapsed := time.Since(p.start).Round(time.Second)
	switch {
	case p.tty:
		fmt.Fprintf(p.w, "\r\033[K[%d/%d %s] %s", p.n, p.total, elapsed, label)
	case time.Since(p.lastLine) >= p.interval || p.n == p.total:
		fmt.Fprintf(p.w, "progress: %d/%d cases, %s elapsed, last %s\n", p.n, p.total, elapsed, label)
		p.lastLine = time.Now()
	}
}

func (p *progress) done() {
	if p.tty && p.n > 0 {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// liveLine shows a running load: one line per measured second, rewritten
// in place on a terminal and printed every 5 seconds otherwise.
type liveLine struct {
	w        io.Writer
	label    string
	total    time.Duration
	tty      bool
	errors   int64
	lastLine time.Time
}

// newLiveLine shows label's seconds as they end, out of the window's
// duration; a window ended by a request count shows the seconds alone.
func newLiveLine(w io.Writer, label string, duration time.Duration, requests int64) *liveLine {
	total := duration
	if requests > 0 {
		total = 0 // ended by a count: its length is not known
	}
	return &liveLine{w: w, label: label, total: total, tty: isTerminal(w), lastLine: time.Now()}
}

func (l *liveLine) second(s results.Second) {
	l.errors += s.Errors
	elapsed := fmt.Sprintf("%ds", s.T+1)
	if l.total > 0 {
		elapsed += "/" + l.total.String()
	}
	line := fmt.Sprintf("%s  %s  %d req/s  p99 %s  %d errors", l.label, elapsed, s.Requests, us(s.P99Us), l.errors)
	switch {
	case l.tty:
		fmt.Fprint(l.w, "\r\033[K"+line)
	case time.Since(l.lastLine) >= 5*time.Second:
		fmt.Fprintln(l.w, line)
		l.lastLine = time.Now()
	}
}

func (l *liveLine) done() {
	if l.tty {
		fmt.Fprint(l.w, "\r\033[K")
	}
}

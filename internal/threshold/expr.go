package threshold

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hopbench/hopbench/internal/check"
)

// Limit is one threshold: a key, a comparison and a value in the key's
// unit (µs for times, % for rates of errors, req/s, bytes).
type Limit struct {
	Key   string
	Op    string // <, <=, > or >=
	Value float64
	// Text is the limit as written, spaced as "< 10ms".
	Text string
}

// String is the limit as a check names it: "p99 < 10ms".
func (l Limit) String() string { return l.Key + " " + l.Text }

// ExprError is a limit that does not parse: the text, the column (from 1)
// where it goes wrong, and what was expected there.
type ExprError struct {
	Key, Text string
	Column    int
	Msg       string
}

func (e *ExprError) Error() string {
	return fmt.Sprintf("%s: %q: column %d: %s", e.Key, e.Text, e.Column, e.Msg)
}

// units are the suffixes each unit of figure takes, with their factor
// to the unit checks are made in.
var units = map[check.Unit]struct {
	suffixes map[string]float64
	// bare: a number with no suffix is allowed (in the check's unit).
	bare bool
	want string
}{
	check.Micros:  {map[string]float64{"s": 1e6, "ms": 1e3, "µs": 1, "us": 1}, false, "a unit of time: ms, µs (or us) or s, e.g. 10ms"},
	check.Percent: {map[string]float64{"%": 1}, false, "a percentage, e.g. 0.1%"},
	check.PerSec:  {map[string]float64{"k": 1e3, "M": 1e6}, true, "a number of requests a second, with k or M if you like, e.g. 5000 or 5k"},
	check.Bytes:   {map[string]float64{"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}, true, "a size: B, KB, MB, GB (or KiB, MiB, GiB), e.g. 2KB"},
}

// ParseLimit reads a limit on key, such as "< 10ms" or ">= 5k": a
// comparison, a number and the key's unit, spaces allowed between them.
func ParseLimit(key, text string) (Limit, error) {
	k, ok := lookup(key)
	if !ok {
		return Limit{}, fmt.Errorf("%s: not a threshold key (known: %s)", key, strings.Join(Keys(), ", "))
	}
	fail := func(at int, format string, args ...any) (Limit, error) {
		return Limit{}, &ExprError{Key: key, Text: text, Column: utf8.RuneCountInString(text[:at]) + 1, Msg: fmt.Sprintf(format, args...)}
	}
	i := skipSpace(text, 0)
	op := ""
	for _, o := range []string{"<=", ">=", "<", ">"} {
		if strings.HasPrefix(text[i:], o) {
			op = o
			break
		}
	}
	if op == "" {
		return fail(i, "want a comparison first: <, <=, > or >=, e.g. %q", k.sample())
	}
	i = skipSpace(text, i+len(op))
	j := i
	for j < len(text) && (text[j] >= '0' && text[j] <= '9' || text[j] == '.') {
		j++
	}
	v, err := strconv.ParseFloat(text[i:j], 64)
	if err != nil {
		return fail(i, "want a number after %s, e.g. %q", op, op+" "+k.example)
	}
	u := units[k.unit]
	at := skipSpace(text, j)
	suffix := strings.TrimRightFunc(text[at:], unicode.IsSpace)
	mult, ok := u.suffixes[suffix]
	switch {
	case suffix == "" && u.bare:
		mult = 1
	case !ok && suffix == "":
		return fail(at, "want %s after the number", u.want)
	case !ok:
		return fail(at, "%q: want %s", suffix, u.want)
	}
	return Limit{Key: key, Op: op, Value: v * mult, Text: op + " " + strings.TrimSpace(text[i:])}, nil
}

func skipSpace(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// ParseFlag reads a threshold as --threshold gives it: a key and its
// limit, "p99<10ms" or "errors < 0.1%".
func ParseFlag(s string) (Limit, error) {
	i := strings.IndexAny(s, "<>")
	if i < 0 {
		return Limit{}, fmt.Errorf("--threshold %q: want a key, a comparison and a limit, e.g. 'p99<10ms' (keys: %s)", s, strings.Join(Keys(), ", "))
	}
	key := strings.TrimSpace(s[:i])
	l, err := ParseLimit(key, s[i:])
	if e, ok := err.(*ExprError); ok {
		e.Text, e.Column = s, e.Column+utf8.RuneCountInString(s[:i]) // the column in what was given
	}
	if err != nil {
		return l, fmt.Errorf("--threshold: %w", err)
	}
	return l, nil
}

// met says whether v is within the limit.
func (l Limit) met(v float64) bool {
	switch l.Op {
	case "<":
		return v < l.Value
	case "<=":
		return v <= l.Value
	case ">":
		return v > l.Value
	}
	return v >= l.Value
}

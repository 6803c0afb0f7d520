// Package stats holds hopbench's measuring instruments: latency histograms
// with one fixed geometry everywhere, their summaries and encoding, and
// process figures (CPU seconds, RSS) and a host's counters (CPU, memory,
// network bytes) read from /proc.
package stats

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Every latency histogram in hopbench records from 1µs to 60s with 3
// significant digits, so histograms from any run, node or worker merge.
const (
	MinUs  = 1
	MaxUs  = 60_000_000
	Digits = 3
)

// NewHistogram returns an empty latency histogram (microseconds).
func NewHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(MinUs, MaxUs, Digits) }

// Record adds d, clamped to the histogram's range so it never fails: a
// latency beyond 60s is recorded as 60s (and the max says so).
func Record(h *hdrhistogram.Histogram, d time.Duration) {
	us := d.Microseconds()
	h.RecordValue(min(max(us, MinUs), MaxUs))
}

// Summary is a histogram's key figures, in microseconds.
type Summary struct {
	Count  int64   `json:"count"`
	MeanUs float64 `json:"mean_us"`
	P50Us  int64   `json:"p50_us"`
	P90Us  int64   `json:"p90_us"`
	P99Us  int64   `json:"p99_us"`
	P999Us int64   `json:"p999_us"`
	MaxUs  int64   `json:"max_us"`
}

// Summarize reads a histogram's key figures; an empty one gives zeros.
func Summarize(h *hdrhistogram.Histogram) Summary {
	if h.TotalCount() == 0 {
		return Summary{}
	}
	return Summary{
		Count: h.TotalCount(), MeanUs: h.Mean(),
		P50Us: h.ValueAtQuantile(50), P90Us: h.ValueAtQuantile(90), P99Us: h.ValueAtQuantile(99),
		P999Us: h.ValueAtQuantile(99.9), MaxUs: h.Max(),
	}
}

// Encode writes h in HdrHistogram's compressed V2 form, base64: readable by
// every HdrHistogram implementation (Java, C, Python, Go).
func Encode(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encoding a histogram: %w", err)
	}
	return string(b), nil
}

// Decode reads what Encode wrote.
func Decode(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decoding a histogram: %w", err)
	}
	return h, nil
}

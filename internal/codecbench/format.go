package codecbench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/hopbench/hopbench/internal/payload"
)

// Record is one result as written by --format json and csv: flat, with
// times in nanoseconds per operation and allocations per operation.
type Record struct {
	Model    string `json:"model"`
	Count    int    `json:"count"`
	Codec    string `json:"codec"`
	Compress string `json:"compress"`
	// Runtime is jvm for the JVM's timings (JMH), empty for Go's; Method
	// then says how JMH ran.
	Runtime         string  `json:"runtime,omitempty"`
	Method          string  `json:"method,omitempty"`
	Bytes           int     `json:"bytes"`
	CompressedBytes int     `json:"compressed_bytes"`
	MarshalNs       float64 `json:"marshal_ns"`
	MarshalMinNs    float64 `json:"marshal_min_ns"`
	MarshalMaxNs    float64 `json:"marshal_max_ns"`
	UnmarshalNs     float64 `json:"unmarshal_ns"`
	UnmarshalMinNs  float64 `json:"unmarshal_min_ns"`
	UnmarshalMaxNs  float64 `json:"unmarshal_max_ns"`
	// The allocation counts are absent where they were not counted (the
	// JVM's timings).
	MarshalAllocs   *float64 `json:"marshal_allocs,omitempty"`
	UnmarshalAllocs *float64 `json:"unmarshal_allocs,omitempty"`
	MarshalBytesOp  float64  `json:"marshal_alloc_bytes"`
	UnmarshalBytes  float64  `json:"unmarshal_alloc_bytes"`
	MarshalSamples  int      `json:"marshal_samples"`
	UnmarshalSamp   int      `json:"unmarshal_samples"`
	// The timed samples, ns per op each (older files have none).
	MarshalSamplesNs   []float64 `json:"marshal_samples_ns,omitempty"`
	UnmarshalSamplesNs []float64 `json:"unmarshal_samples_ns,omitempty"`
	// The independent runs, one figure each (processes or JMH forks):
	// what a comparison's runs are. Older files have none.
	MarshalRunsNs   []float64 `json:"marshal_runs_ns,omitempty"`
	UnmarshalRunsNs []float64 `json:"unmarshal_runs_ns,omitempty"`
}

// Record flattens r.
func (r Result) Record() Record {
	return Record{
		Model: r.Model, Count: r.Count, Codec: r.Codec, Compress: r.Compress, Runtime: r.Runtime, Method: r.Method,
		Bytes: r.Bytes, CompressedBytes: r.CompressedBytes,
		MarshalNs: r.Marshal.MedianNs, MarshalMinNs: r.Marshal.MinNs, MarshalMaxNs: r.Marshal.MaxNs,
		UnmarshalNs: r.Unmarshal.MedianNs, UnmarshalMinNs: r.Unmarshal.MinNs, UnmarshalMaxNs: r.Unmarshal.MaxNs,
		MarshalAllocs: allocs(r.Marshal), UnmarshalAllocs: allocs(r.Unmarshal),
		MarshalBytesOp: r.Marshal.BytesPerOp, UnmarshalBytes: r.Unmarshal.BytesPerOp,
		MarshalSamples: r.Marshal.Samples, UnmarshalSamp: r.Unmarshal.Samples,
		MarshalSamplesNs: r.Marshal.SamplesNs, UnmarshalSamplesNs: r.Unmarshal.SamplesNs,
		MarshalRunsNs: r.Marshal.RunsNs, UnmarshalRunsNs: r.Unmarshal.RunsNs,
	}
}

func allocs(t Timing) *float64 {
	if t.NoAllocs {
		return nil
	}
	return &t.AllocsPerOp
}

// Formats are the output formats WriteFormat accepts.
var Formats = []string{"table", "json", "csv", "markdown"}

// WriteFormat writes results in one of Formats.
func WriteFormat(w io.Writer, format string, results []Result) error {
	switch format {
	case "table":
		return WriteTable(w, results)
	case "json":
		return WriteJSON(w, results)
	case "csv":
		return WriteCSV(w, results)
	case "markdown":
		return WriteMarkdown(w, results)
	}
	return fmt.Errorf("unknown format %q (known: table, json, csv, markdown)", format)
}

// WriteJSON writes a JSON array of records.
func WriteJSON(w io.Writer, results []Result) error {
	records := make([]Record, len(results))
	for i, r := range results {
		records[i] = r.Record()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(records)
}

// ReadJSON reads what WriteJSON wrote.
func ReadJSON(r io.Reader) ([]Record, error) {
	var records []Record
	if err := json.NewDecoder(r).Decode(&records); err != nil {
		return nil, fmt.Errorf("codec timings: %w", err)
	}
	return records, nil
}

var csvHeader = []string{
	"model", "count", "codec", "compress", "bytes", "compressed_bytes",
	"marshal_ns", "marshal_min_ns", "marshal_max_ns", "unmarshal_ns", "unmarshal_min_ns", "unmarshal_max_ns",
	"marshal_allocs", "unmarshal_allocs", "marshal_alloc_bytes", "unmarshal_alloc_bytes", "runtime",
}

// WriteCSV writes a header and one row per result, with the JSON keys.
func WriteCSV(w io.Writer, results []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	opt := func(v *float64) string { // empty where not counted
		if v == nil {
			return ""
		}
		return f(*v)
	}
	for _, r := range results {
		x := r.Record()
		row := []string{
			x.Model, strconv.Itoa(x.Count), x.Codec, x.Compress, strconv.Itoa(x.Bytes), strconv.Itoa(x.CompressedBytes),
			f(x.MarshalNs), f(x.MarshalMinNs), f(x.MarshalMaxNs), f(x.UnmarshalNs), f(x.UnmarshalMinNs), f(x.UnmarshalMaxNs),
			opt(x.MarshalAllocs), opt(x.UnmarshalAllocs), f(x.MarshalBytesOp), f(x.UnmarshalBytes), x.Runtime,
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// tableRows renders results as human-readable cells, with each codec's size
// and time relative to json on the same payload when json was measured.
func tableRows(results []Result) (header []string, rows [][]string) {
	header = []string{"MODEL", "COUNT", "CODEC", "COMPRESS", "BYTES", "WIRE BYTES", "SIZE/JSON",
		"MARSHAL", "(MIN-MAX)", "UNMARSHAL", "(MIN-MAX)", "ALLOCS M/U"}
	if slices.ContainsFunc(results, func(r Result) bool { return r.Runtime != "" }) {
		header[len(header)-1] = "ALLOCS (JVM: BYTES) M/U"
	}
	ref := map[Case]Result{}
	for _, r := range results {
		if r.Codec == "json" {
			ref[Case{Model: r.Model, Count: r.Count, Compress: r.Compress}] = r
		}
	}
	for _, r := range results {
		ratio := "-"
		if j, ok := ref[Case{Model: r.Model, Count: r.Count, Compress: r.Compress}]; ok && j.CompressedBytes > 0 {
			ratio = fmt.Sprintf("%.2f", float64(r.CompressedBytes)/float64(j.CompressedBytes))
		}
		rows = append(rows, []string{
			r.Model, strconv.Itoa(r.Count), codecCell(r), r.Compress,
			HumanBytes(r.Bytes), HumanBytes(r.CompressedBytes), ratio,
			HumanNs(r.Marshal.MedianNs), HumanNs(r.Marshal.MinNs) + "-" + HumanNs(r.Marshal.MaxNs),
			HumanNs(r.Unmarshal.MedianNs), HumanNs(r.Unmarshal.MinNs) + "-" + HumanNs(r.Unmarshal.MaxNs),
			allocCell(r),
		})
	}
	return header, rows
}

// codecCell names the codec, and the runtime's library where not Go.
func codecCell(r Result) string {
	libs := jvmLibrary
	if !slices.Contains(payload.Names(), r.Model) {
		libs = jvmUserLibrary
	}
	if lib := libs[r.Codec]; r.Runtime == "jvm" && lib != "" {
		return r.Codec + " (" + lib + ")"
	}
	return r.Codec
}

// jvmLibrary is the library the JVM's timings of a codec are of, and
// jvmUserLibrary of a user's message's (built from its descriptors).
var (
	jvmLibrary     = map[string]string{"json": "Jackson", "proto": "protobuf-java", "proto+convert": "protobuf-java with Ensor's conversion"}
	jvmUserLibrary = map[string]string{"json": "JsonFormat", "proto": "protobuf-java DynamicMessage"}
)

// allocCell is allocations per marshal/unmarshal, or, where only their
// bytes were measured (the JVM), those.
func allocCell(r Result) string {
	if r.Marshal.NoAllocs {
		return HumanBytes(int(r.Marshal.BytesPerOp)) + "/" + HumanBytes(int(r.Unmarshal.BytesPerOp))
	}
	return fmt.Sprintf("%.0f/%.0f", r.Marshal.AllocsPerOp, r.Unmarshal.AllocsPerOp)
}

// WriteTable writes an aligned table for a terminal.
func WriteTable(w io.Writer, results []Result) error {
	header, rows := tableRows(results)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range append([][]string{header}, rows...) {
		for i, cell := range row {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// WriteMarkdown writes the table as a Markdown table.
func WriteMarkdown(w io.Writer, results []Result) error {
	header, rows := tableRows(results)
	line := func(cells []string) string {
		s := "|"
		for _, c := range cells {
			s += " " + c + " |"
		}
		return s + "\n"
	}
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
	}
	out := line(header) + line(sep)
	for _, row := range rows {
		out += line(row)
	}
	_, err := io.WriteString(w, out)
	return err
}

// HumanNs formats nanoseconds with a unit suited to their size.
func HumanNs(ns float64) string {
	switch {
	case ns < 1e3:
		return fmt.Sprintf("%.0fns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.1fµs", ns/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.1fms", ns/1e6)
	}
	return fmt.Sprintf("%.2fs", ns/1e9)
}

// HumanBytes formats a byte count in B, KiB or MiB.
func HumanBytes(n int) string {
	switch {
	case n < 10*1024:
		return fmt.Sprintf("%dB", n)
	case n < 10*1024*1024:
		return fmt.Sprintf("%.1fKiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fMiB", float64(n)/(1024*1024))
}

package results

import (
	"os"
	"testing"
)

// The results reader takes any bytes without panicking: whole records, a
// torn last line, or an error naming the line.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("../advise/testdata/capacity.jsonl"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"version":1,"case":"x","outcome":"ok"}` + "\n" + `{"version":1,"ca`))
	f.Add([]byte(`{"version":3}` + "\n"))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, skipped, err := parse(data, "fuzz.jsonl")
		if err != nil && (recs != nil || skipped != 0) {
			t.Fatalf("an error with %d records and %d skipped", len(recs), skipped)
		}
		for _, r := range recs {
			if r.Version != FormatVersion && r.Version != 1 {
				t.Fatalf("a record of version %d read", r.Version)
			}
		}
	})
}

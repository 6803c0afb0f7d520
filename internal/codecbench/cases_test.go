package codecbench

import (
	"slices"
	"testing"
)

// A spec's codecs are timed once on each payload its runs use, in order;
// a codec that is not one is refused by name.
func TestCasesOfTimesEachPayloadOnce(t *testing.T) {
	got, err := CasesOf([]Case{{Model: "user", Count: 1}, {Model: "text", Count: 10}, {Model: "user", Count: 1}}, []string{"json", "proto+gzip"})
	want := []Case{
		{Model: "user", Count: 1, Codec: "json", Compress: "none"}, {Model: "user", Count: 1, Codec: "proto", Compress: "gzip"},
		{Model: "text", Count: 10, Codec: "json", Compress: "none"}, {Model: "text", Count: 10, Codec: "proto", Compress: "gzip"},
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("cases %v (%v), want %v", got, err, want)
	}
	if _, err := CasesOf([]Case{{Model: "user", Count: 1}}, []string{"jsn"}); err == nil {
		t.Error("an unknown codec was taken")
	}
}

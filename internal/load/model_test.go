package load

import (
	"reflect"
	"testing"
	"time"
)

// A load hopbench load was given reads, in its record, as the spec would
// have written it: ModelOf is Config's inverse.
func TestModelOfIsTheInverseOfConfig(t *testing.T) {
	for _, c := range []Config{
		{Kind: Closed, Clients: 32},
		{Kind: Rate, Rate: 1500, Poisson: true, Workers: 64},
		{Kind: Ramp, RampOf: "clients", Steps: Steps{From: 1, To: 8, Step: 1, Every: 2 * time.Second}},
		{Kind: Capacity, SLA: 10 * time.Millisecond, Duration: 15 * time.Second,
			Search: Search{Percentile: 99.9, MaxErrors: 0.01, Step: time.Second, Start: 500, MaxRate: 9000}},
	} {
		back := ModelOf(c).Config()
		if !reflect.DeepEqual(back, c) || back.String() != c.String() {
			t.Errorf("%s came back as %s (%+v)", c.String(), back.String(), back)
		}
	}
}

package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// Runs placed on hosts get a Hosts section: each host's roles and CPU per
// request, and each scenario on two placements set against the spec's
// first, whatever order the runs came in.
func TestRunsOnHostsAreShownByHostAndPlacement(t *testing.T) {
	var recs []results.Record
	for _, r := range fixture(t) {
		if (r.Stack != "rest" && r.Stack != "grpc") || r.Outcome != results.OutcomeOK {
			continue
		}
		for i, where := range []string{"three-hosts", "one-host"} { // listed in the spec as one-host, three-hosts
			p := r
			p.Options = strings.TrimSpace(r.Options + " on " + where)
			p.Case = r.Case + " on " + where
			p.Config, _ = json.Marshal(map[string]any{"placement": map[string]any{"name": where, "index": 1 - i}})
			p.P50Us = r.P50Us * int64(2-i) // three-hosts at twice one-host's p50
			p.Hosts = []results.Host{{Name: "a", Roles: []string{"generator"}, CPUUsPerReq: 10, NetPerReq: &results.WirePerRequest{Sent: 100, Received: 90}},
				{Name: "b", Roles: []string{"node 0"}, CPUUsPerReq: 30, NetPerReq: &results.WirePerRequest{Sent: 90, Received: 100}}}
			recs = append(recs, p)
		}
	}
	r, err := Build("hosts", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	sec := sectionOf(r, "hosts")
	if sec == nil {
		t.Fatal("no hosts section")
	}
	var byHost, byPlacement int
	for _, f := range sec.Figures {
		switch {
		case strings.Contains(f.Title, "CPU per request on each host"):
			byHost++
			if !strings.Contains(f.Finding, "on b (30.0 µs)") {
				t.Errorf("%s: %q, want host b named the busiest", f.Title, f.Finding)
			}
		case strings.Contains(f.Title, "p50 by placement"):
			byPlacement++
			if f.Table.Header[4] != "p50 ÷ one-host" {
				t.Errorf("%s: set against %q, want the spec's first placement, one-host", f.Title, f.Table.Header[4])
			}
			for _, row := range f.Table.Rows {
				if row[1] == "three-hosts" && !strings.HasPrefix(row[4], "×2.00") {
					t.Errorf("%s: %v, want three-hosts at twice one-host's p50", f.Title, row)
				}
			}
		}
	}
	if byHost == 0 || byPlacement == 0 {
		t.Errorf("%d host charts and %d placement charts, want some of each", byHost, byPlacement)
	}
}

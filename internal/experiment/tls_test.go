package experiment

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// Every stack of the quick preset, brokers included, with TLS off and on
// (mutual), completes with no errors, and each TLS record says which legs
// were encrypted.
func TestTLSOnEveryStack(t *testing.T) {
	if testing.Short() {
		t.Skip("starts brokers and nodes")
	}
	recs := runSpec(t, brokerRunner(t), `
stacks: [rest, rest+proto, rest+json+gzip, grpc, graphql, amqp, kafka, nats, redis, mqtt]
payloads: [{model: text, counts: [10]}]
topologies: [chain:2]
loads: [{closed: {clients: 2}}]
tls: [false, true]
mtls: true
duration: 1s
warmup: 1s
sla: 2s
`)
	if len(recs) != 20 {
		t.Fatalf("%d records, want 20", len(recs))
	}
	for _, r := range recs {
		if r.Outcome != results.OutcomeOK || r.Errors != 0 || r.Requests == 0 {
			t.Errorf("%s: %s (%s), %d requests, errors %v", r.Case, r.Outcome, r.Reason, r.Requests, r.ErrorsByClass)
		}
		var cfg struct{ TLS bool }
		if err := json.Unmarshal(r.Config, &cfg); err != nil {
			t.Fatal(err)
		}
		switch {
		case !cfg.TLS && r.Encrypted != nil:
			t.Errorf("%s: plain, but encrypted %+v", r.Case, r.Encrypted)
		case cfg.TLS && (r.Encrypted == nil || !r.Encrypted.Mutual):
			t.Errorf("%s: TLS, but encrypted %+v", r.Case, r.Encrypted)
		case cfg.TLS && len(r.Brokers) > 0 && !strings.Contains(strings.Join(r.Encrypted.Legs, " "), "broker"):
			t.Errorf("%s: legs %v, want the broker's", r.Case, r.Encrypted.Legs)
		case cfg.TLS && len(r.Brokers) == 0 && strings.Join(r.Encrypted.Legs, " ") != "generator→node node→node":
			t.Errorf("%s: legs %v", r.Case, r.Encrypted.Legs)
		}
	}
}

package cli

import (
	"strings"
	"testing"
)

// The commands that call services and measure them are load generators;
// the processes that are measured (nodes, brokers, codec timing) are not,
// and keep Go's defaults.
func TestGeneratesLoad(t *testing.T) {
	for args, want := range map[string]bool{
		"load --stack grpc --clients 4": true,
		"run quick":                     true,
		"advise --measure":              true,
		"calibrate":                     true,
		"agent":                         true,
		"node --stack grpc":             false,
		"broker-process nats":           false,
		"codec-process":                 false,
		"codec":                         false,
		"report results":                false,
		"hosts up 2":                    false,
		"nonsense":                      false,
		"":                              false,
	} {
		if got := GeneratesLoad(strings.Fields(args)); got != want {
			t.Errorf("GeneratesLoad(%q) = %v, want %v", args, got, want)
		}
	}
}

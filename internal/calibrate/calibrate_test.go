package calibrate

import (
	"context"
	"testing"
)

func TestFloorIsMeasured(t *testing.T) {
	c, err := Measure(context.Background(), 500)
	if err != nil {
		t.Fatal(err)
	}
	if c.TCPRoundTripUs <= 0 || c.HTTPRoundTripUs <= 0 || c.GeneratorCPUUsPerReq <= 0 || c.Samples != 500 {
		t.Fatalf("%+v", c)
	}
	// An HTTP exchange does more than a bare TCP round trip on the same
	// loopback; if not, one of the two is not measuring what it says.
	if c.HTTPRoundTripUs < c.TCPRoundTripUs {
		t.Errorf("HTTP %vµs below TCP %vµs", c.HTTPRoundTripUs, c.TCPRoundTripUs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Measure(ctx, 500); err == nil {
		t.Error("a cancelled calibration succeeded")
	}
}

// The noise is a spread of medians: a share, finite, from the same
// workload timed in batches.
func TestNoiseIsTheSpreadOfAFixedWorkload(t *testing.T) {
	n, err := Noise(context.Background(), 500)
	if err != nil {
		t.Fatal(err)
	}
	if n < 0 || n > 100 || n != n {
		t.Fatalf("noise %v: want a spread, (max − min) / median", n)
	}
	t.Logf("noise here: %.1f %%", 100*n)
}

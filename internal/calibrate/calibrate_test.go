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

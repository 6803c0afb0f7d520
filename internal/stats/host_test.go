package stats

import "testing"

// This host's counters are read, and hold together: busy CPU since boot,
// memory available within the total.
func TestReadHostReadsThisHostsCounters(t *testing.T) {
	h, err := ReadHost()
	if err != nil {
		t.Fatal(err)
	}
	if h.CPUSeconds <= 0 || h.MemTotal <= 0 || h.MemAvailable <= 0 || h.MemAvailable > h.MemTotal {
		t.Errorf("%+v: want CPU time since boot and 0 < available ≤ total memory", h)
	}
	if h.NetRx < 0 || h.NetTx < 0 {
		t.Errorf("negative interface bytes: %+v", h)
	}
}

package load

import (
	"strings"
	"testing"
)

func TestLimitsNameTheBoundAndHowToRaiseIt(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string // "" for valid
	}{
		{"clients within the default", Config{Kind: Closed, Clients: MaxClients, Duration: 1}, ""},
		{"clients past the default", Config{Kind: Closed, Clients: MaxClients + 1, Duration: 1}, "limit of 10000 (each is a goroutine"},
		{"clients within a raised limit", Config{Kind: Closed, Clients: 11, Duration: 1, Limits: Limits{Clients: 11}}, ""},
		{"clients past a raised limit", Config{Kind: Closed, Clients: 12, Duration: 1, Limits: Limits{Clients: 11}}, "limit of 11 (each"},
		{"a limit past the open files", Config{Kind: Closed, Clients: 1, Duration: 1, Limits: Limits{Clients: openFileLimit()}}, "open-file limit is"},
		{"rate past the default", Config{Kind: Rate, Rate: 2e6, Duration: 1}, "--rate-limit N"},
		{"rate within a raised limit", Config{Kind: Rate, Rate: 2e6, Duration: 1, Limits: Limits{Rate: 3e6}}, ""},
		{"workers past the limit", Config{Kind: Rate, Rate: 5, Workers: 20, Duration: 1, Limits: Limits{Clients: 10}}, "workers 20: more than the limit of 10"},
		{"a ramp past the limit", Config{Kind: Ramp, RampOf: "clients", Steps: Steps{From: 1, To: 20, Step: 1, Every: 1e9}, Limits: Limits{Clients: 10}}, "ramp to 20"},
	}
	for _, c := range cases {
		err := c.cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want valid", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

func TestPeakConcurrency(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want int
	}{
		{Config{Kind: Closed, Clients: 12000}, 12000},
		{Config{Kind: Ramp, RampOf: "clients", Steps: Steps{To: 9000}}, 9000},
		{Config{Kind: Rate, Workers: 20000}, 20000},
		{Config{Kind: Rate}, 256},
	} {
		if got := c.cfg.PeakConcurrency(); got != c.want {
			t.Errorf("%+v: %d, want %d", c.cfg, got, c.want)
		}
	}
}

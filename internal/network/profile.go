// Package network emulates the network between hopbench's processes: a
// one-way delay, jitter and a bandwidth on each direction of every hop.
// In process (the default, no privileges), each connection is shaped at
// the end that dials it (Profile.Connect), and every connection of a run is
// dialled by hopbench: the generator's, a node's calls downstream and both
// ends' connections to a broker. Each direction of each hop is therefore
// delayed and paced once.
package network

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Profile is a network to emulate. The zero Profile is loopback: nothing.
type Profile struct {
	// Name is the named profile this is (lan, wan...), empty for one given
	// by its settings.
	Name string
	// Delay is one-way: each direction of every hop pays it.
	Delay time.Duration
	// Jitter varies each delay uniformly by up to this much either way;
	// bytes still arrive in order, as TCP delivers them.
	Jitter time.Duration
	// Bandwidth caps each direction of each connection, in bits/s; 0 for
	// no cap.
	Bandwidth Bandwidth
}

// Bandwidth is in bits per second.
type Bandwidth int64

// Bounds on what a profile may ask: beyond them an emulation says nothing
// about a network users have.
const (
	MaxDelay     = 10 * time.Second
	MinBandwidth = Bandwidth(8_000) // 1 kB/s
)

// Named are the named profiles, in the order help lists them.
var Named = []Profile{
	{Name: "loopback"},
	{Name: "lan", Delay: 100 * time.Microsecond, Bandwidth: 1_000_000_000},
	{Name: "region", Delay: time.Millisecond, Bandwidth: 1_000_000_000},
	{Name: "wan", Delay: 20 * time.Millisecond, Bandwidth: 50_000_000},
}

// Names lists the named profiles.
func Names() []string {
	names := make([]string, len(Named))
	for i, p := range Named {
		names[i] = p.Name
	}
	return names
}

// IsLoopback reports whether p emulates nothing.
func (p Profile) IsLoopback() bool { return p.Delay == 0 && p.Jitter == 0 && p.Bandwidth == 0 }

// RTT is the round trip p adds: its delay each way.
func (p Profile) RTT() time.Duration { return 2 * p.Delay }

// String is p's name, or its settings as Parse reads them.
func (p Profile) String() string {
	if p.Name != "" {
		return p.Name
	}
	if p.IsLoopback() {
		return "loopback"
	}
	var parts []string
	if p.Delay > 0 {
		parts = append(parts, "delay="+p.Delay.String())
	}
	if p.Jitter > 0 {
		parts = append(parts, "jitter="+p.Jitter.String())
	}
	if p.Bandwidth > 0 {
		parts = append(parts, "bandwidth="+p.Bandwidth.String())
	}
	return strings.Join(parts, ",")
}

// Describe spells p out, named or not: "lan (delay 100µs, 1gbit)".
func (p Profile) Describe() string {
	if p.IsLoopback() {
		return "loopback (nothing emulated)"
	}
	var parts []string
	if p.Delay > 0 {
		parts = append(parts, "delay "+p.Delay.String()+" each way")
	}
	if p.Jitter > 0 {
		parts = append(parts, "jitter ±"+p.Jitter.String())
	}
	if p.Bandwidth > 0 {
		parts = append(parts, p.Bandwidth.String()+" each direction")
	}
	s := strings.Join(parts, ", ")
	if p.Name != "" {
		return p.Name + " (" + s + ")"
	}
	return s
}

// MarshalText writes p as Parse reads it.
func (p Profile) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads p as Parse does.
func (p *Profile) UnmarshalText(b []byte) error {
	q, err := Parse(string(b))
	*p = q
	return err
}

// Parse reads a named profile (loopback, lan, region, wan) or settings:
// "delay=5ms,jitter=100us,bandwidth=8mbit", any of them left out.
func Parse(s string) (Profile, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Profile{}, nil
	}
	if i := slices.IndexFunc(Named, func(p Profile) bool { return p.Name == s }); i >= 0 {
		if s == "loopback" {
			return Profile{}, nil
		}
		return Named[i], nil
	}
	if !strings.Contains(s, "=") {
		return Profile{}, fmt.Errorf("network %q: want one of %s, or settings such as delay=5ms,jitter=100us,bandwidth=8mbit", s, strings.Join(Names(), ", "))
	}
	var p Profile
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		if err := p.set(k, v); err != nil {
			return Profile{}, fmt.Errorf("network %q: %w", s, err)
		}
	}
	return p, p.Check()
}

func (p *Profile) set(k, v string) error {
	var err error
	switch k {
	case "delay":
		p.Delay, err = time.ParseDuration(v)
	case "jitter":
		p.Jitter, err = time.ParseDuration(v)
	case "bandwidth":
		p.Bandwidth, err = ParseBandwidth(v)
	default:
		return fmt.Errorf("unknown setting %q (known: delay, jitter, bandwidth)", k)
	}
	if err != nil {
		return fmt.Errorf("%s=%s: %w", k, v, err)
	}
	return nil
}

// Check refuses settings no network has, naming the one at fault.
func (p Profile) Check() error {
	switch {
	case p.Delay < 0 || p.Delay > MaxDelay:
		return fmt.Errorf("delay %v: want 0 to %v", p.Delay, MaxDelay)
	case p.Jitter < 0 || p.Jitter > p.Delay:
		return fmt.Errorf("jitter %v: want 0 up to the delay (%v), since a delay never goes below zero", p.Jitter, p.Delay)
	case p.Bandwidth < 0 || p.Bandwidth > 0 && p.Bandwidth < MinBandwidth:
		return fmt.Errorf("bandwidth %v: want at least %v (or none for no cap)", p.Bandwidth, MinBandwidth)
	}
	return nil
}

var bandwidthUnits = []struct {
	suffix string
	bits   float64
}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1}}

// ParseBandwidth reads a rate in tc's units: 50mbit, 1gbit, 512kbit.
func ParseBandwidth(s string) (Bandwidth, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	for _, u := range bandwidthUnits {
		if num, ok := strings.CutSuffix(l, u.suffix); ok {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil || f <= 0 || math.IsInf(f, 0) || f*u.bits > 1e12 {
				break
			}
			return Bandwidth(f * u.bits), nil
		}
	}
	return 0, fmt.Errorf("bandwidth %q: want a rate such as 8mbit, 100mbit or 1gbit", s)
}

// String writes b in the largest unit that keeps it whole.
func (b Bandwidth) String() string {
	for _, u := range bandwidthUnits {
		if v := float64(b) / u.bits; v >= 1 && v == math.Trunc(v) {
			return strconv.FormatFloat(v, 'f', -1, 64) + u.suffix
		}
	}
	return strconv.FormatInt(int64(b), 10) + "bit"
}

// transmit is how long n bytes take to leave at b; 0 when b is no cap.
func (b Bandwidth) transmit(n int) time.Duration {
	if b <= 0 {
		return 0
	}
	return time.Duration(float64(n) * 8 / float64(b) * float64(time.Second))
}

// Set reads a flag's value (pflag.Value), as Parse does.
func (p *Profile) Set(s string) error { return p.UnmarshalText([]byte(s)) }

// Type names the flag's value in help.
func (p *Profile) Type() string { return "network" }

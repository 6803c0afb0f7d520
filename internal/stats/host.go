package stats

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Host is a host's counters at one moment.
type Host struct {
	// CPUSeconds is the CPU time its processes have had since boot:
	// /proc/stat's cpu line but idle, iowait and steal, over the clock's
	// ticks.
	CPUSeconds float64
	// NetRx and NetTx sum the bytes of every interface but loopback in
	// this network namespace (/proc/net/dev).
	NetRx, NetTx int64
	// MemTotal and MemAvailable are /proc/meminfo's.
	MemTotal, MemAvailable int64
}

// ReadHost reads this host's counters from /proc.
func ReadHost() (Host, error) {
	var h Host
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return h, fmt.Errorf("host: %w", err)
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return h, fmt.Errorf("host: /proc/stat does not start with the cpu line")
	}
	var busy int64
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		if i != 3 && i != 4 && i < 7 { // not idle, iowait, steal (another guest's); guest is already in user
			busy += n
		}
	}
	h.CPUSeconds = float64(busy) / clockTicks
	if h.NetRx, h.NetTx, err = netDev(); err != nil {
		return h, err
	}
	h.MemTotal, h.MemAvailable = meminfo()
	return h, nil
}

func netDev() (rx, tx int64, err error) {
	f, err := os.Open("/proc/net/dev")
	if err != nil {
		return 0, 0, fmt.Errorf("host: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, counters, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(name) == "lo" {
			continue
		}
		c := strings.Fields(counters)
		if len(c) < 9 {
			continue
		}
		r, _ := strconv.ParseInt(c[0], 10, 64)
		t, _ := strconv.ParseInt(c[8], 10, 64)
		rx, tx = rx+r, tx+t
	}
	return rx, tx, sc.Err()
}

// meminfo is /proc/meminfo's MemTotal and MemAvailable; zero for what
// it does not say.
func meminfo() (total, available int64) {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(b), "\n") {
		key, val, _ := strings.Cut(line, ":")
		switch key {
		case "MemTotal":
			total = kB(val)
		case "MemAvailable":
			available = kB(val)
		}
	}
	return total, available
}

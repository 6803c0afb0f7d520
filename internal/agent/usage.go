package agent

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/stats"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// Usage reads the host's counters and the CPU and memory of the session's
// processes asked for, and the agent's own (it runs the load shares).
func (s *Server) Usage(ctx context.Context, req *agentv1.UsageRequest) (*agentv1.UsageReply, error) {
	ss, err := s.session(req.Session)
	if err != nil {
		return nil, err
	}
	pids := ss.pids(req.Pids)
	if req.ResetPeak {
		for _, pid := range append(pids, os.Getpid()) {
			stats.ResetPeak(pid)
		}
	}
	h, err := ReadHost()
	if err != nil {
		return nil, err
	}
	out := &agentv1.UsageReply{HostCpuSeconds: h.CPUSeconds, NetRxBytes: h.NetRx, NetTxBytes: h.NetTx,
		MemTotalBytes: h.MemTotal, MemAvailableBytes: h.MemAvailable, Agent: process(os.Getpid())}
	for _, pid := range pids {
		out.Processes = append(out.Processes, process(pid))
	}
	return out, nil
}

func process(pid int) *agentv1.Process {
	p, err := stats.ReadProc(pid)
	if err != nil {
		return &agentv1.Process{Pid: int32(pid)}
	}
	return &agentv1.Process{Pid: int32(pid), CpuSeconds: p.CPUSeconds, RssBytes: p.RSSBytes, PeakRssBytes: p.PeakRSSBytes, AnonRssBytes: p.AnonRSSBytes}
}

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

// clockTicks is USER_HZ, 100 on every Linux hopbench runs on.
const clockTicks = 100

// ReadHost reads this host's counters from /proc.
func ReadHost() (Host, error) {
	var h Host
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return h, fmt.Errorf("agent: %w", err)
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return h, fmt.Errorf("agent: /proc/stat does not start with the cpu line")
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
	h.MemTotal, h.MemAvailable = meminfo("MemTotal:"), meminfo("MemAvailable:")
	return h, nil
}

func netDev() (rx, tx int64, err error) {
	f, err := os.Open("/proc/net/dev")
	if err != nil {
		return 0, 0, fmt.Errorf("agent: %w", err)
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

func meminfo(key string) int64 {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

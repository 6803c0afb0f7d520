package agent

import (
	"context"
	"os"

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
	h, err := stats.ReadHost()
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

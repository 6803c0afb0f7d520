package stats

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Noise is what else the machine did to a measurement while it ran: the
// CPU time the hypervisor gave other guests (steal), and how late this
// process's own timers woke (a sleeping goroutine's oversleep: the wait
// for a core that the generator's requests wait for too).
type Noise struct {
	// StealShare is steal over all CPU time in the window (/proc/stat);
	// -1 when not read.
	StealShare float64 `json:"steal_share"`
	// TimerLateP99Us and TimerLateMaxUs are a 1 ms sleep's oversleep,
	// sampled every 10 ms through the window.
	TimerLateP99Us int64 `json:"timer_late_p99_us"`
	TimerLateMaxUs int64 `json:"timer_late_max_us"`
	Samples        int64 `json:"samples"`
}

// NoiseProbe samples the machine's noise until Stop.
type NoiseProbe struct {
	steal0, total0 int64
	stop           chan struct{}
	done           chan *hdrhistogram.Histogram
}

// Probe sampling: a sleep of noiseSleep every noisePeriod.
const (
	noiseSleep  = time.Millisecond
	noisePeriod = 10 * time.Millisecond
)

// StartNoise begins sampling, until Stop or the end of ctx.
func StartNoise(ctx context.Context) *NoiseProbe {
	p := &NoiseProbe{stop: make(chan struct{}), done: make(chan *hdrhistogram.Histogram, 1)}
	p.steal0, p.total0, _ = readSteal()
	go p.sample(ctx)
	return p
}

func (p *NoiseProbe) sample(ctx context.Context) {
	h := hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 2)
	for {
		t := time.Now()
		time.Sleep(noiseSleep)
		_ = h.RecordValue(max(1, int64((time.Since(t)-noiseSleep)/time.Microsecond)))
		select {
		case <-p.stop:
			p.done <- h
			return
		case <-ctx.Done():
			p.done <- h
			return
		case <-time.After(noisePeriod - noiseSleep):
		}
	}
}

// Stop ends the sampling and says what it saw. Call it once.
func (p *NoiseProbe) Stop() Noise {
	close(p.stop)
	h := <-p.done
	n := Noise{StealShare: -1, TimerLateP99Us: h.ValueAtQuantile(99), TimerLateMaxUs: h.Max(), Samples: h.TotalCount()}
	if steal, total, err := readSteal(); err == nil && p.total0 > 0 && total > p.total0 {
		n.StealShare = float64(steal-p.steal0) / float64(total-p.total0)
	}
	return n
}

// readSteal reads /proc/stat's cpu line: steal and all ticks.
func readSteal() (steal, total int64, err error) {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: no cpu line with steal")
	}
	for i, v := range f[1:9] { // user nice system idle iowait irq softirq steal
		n, _ := strconv.ParseInt(v, 10, 64)
		total += n
		if i == 7 {
			steal = n
		}
	}
	return steal, total, nil
}

package results

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// A Flag marks a run whose figures stand for less than a clean
// measurement of its configuration. A flag is set once, where the run is
// recorded; the verdict, the report, compare and advise read it through
// Stands and Marks alike.
type Flag string

const (
	// FlagPartlyFailed: more than MaxFailedShare of the run's calls
	// failed (for any reason but lateness) or were never sent. Its
	// latency and throughput stand for a service that did not answer, so
	// no ranking uses them.
	FlagPartlyFailed Flag = "partly failed"
	// FlagContaminated: something else took this machine's CPUs while
	// the run measured: another hopbench process measuring, steal time
	// past MaxStealShare, or this process's timers late past
	// MaxTimerLate at p99. Its figures stand, marked beside them: a
	// ranking that rests on them says so.
	FlagContaminated Flag = "contaminated"
	// FlagContradicted: the run's figure contradicts another of the same
	// stack and payload by far more than noise: a capacity under
	// MinCapacityShare of what the stack carried in a closed loop. One of
	// the two is not the stack's (a stall, another process), and the
	// records cannot say which: the answer is unsettled until measured
	// again, and no ranking uses it.
	FlagContradicted Flag = "contradicted"
	// FlagGeneratorLate: an open loop's generator sent its requests late
	// past its schedule (Figures.Lateness p99 over MaxLateShare of the
	// run's p99 latency, and over MinLateBound): the service saw a load
	// other than the one asked for. The latency does not carry the
	// lateness, so its figures stand, marked beside them.
	FlagGeneratorLate Flag = "generator late"
)

// Bounds past which an open loop's generator is late: a share of the p99
// it reports, never below twice the millisecond Go's timers on Linux may
// wake late by design.
const (
	MaxLateShare = 0.1
	MinLateBound = 2 * time.Millisecond
)

// MinCapacityShare is the share of its closed-loop peak below which a
// stack's capacity at an SLA contradicts it.
const MinCapacityShare = 0.1

// Bounds past which a run is contaminated.
const (
	MaxStealShare = 0.05
	MaxTimerLate  = 5 * time.Millisecond
)

// withholds says which flags take a run's figures out of every ranking;
// the others mark figures that are shown with their mark.
var withholds = map[Flag]bool{FlagPartlyFailed: true, FlagContradicted: true, FlagLost: true}

// MaxFailedShare is the share of a run's calls that may fail (lateness
// aside) or go unsent while its figures still stand for the service: the
// bound a capacity search holds its probes to by default.
const MaxFailedShare = 0.001

// Mark is a flag set on a record and why.
type Mark struct {
	Flag Flag   `json:"flag"`
	Why  string `json:"why"`
}

// Marks are a record's flags, each at most once.
type Marks []Mark

// Has says whether f is set.
func (m Marks) Has(f Flag) bool {
	return slices.ContainsFunc(m, func(k Mark) bool { return k.Flag == f })
}

// Set sets f with why, replacing its earlier reason.
func (m *Marks) Set(f Flag, why string) {
	if i := slices.IndexFunc(*m, func(k Mark) bool { return k.Flag == f }); i >= 0 {
		(*m)[i].Why = why
		return
	}
	*m = append(*m, Mark{Flag: f, Why: why})
}

// Withholds says whether f takes a run's figures out of every ranking.
func (f Flag) Withholds() bool { return withholds[f] }

// Withhold says whether a flag set takes the run out of rankings.
func (m Marks) Withhold() bool {
	return slices.ContainsFunc(m, func(k Mark) bool { return k.Flag.Withholds() })
}

// String is the marks as a reader sees them: "partly failed (why); …".
func (m Marks) String() string {
	parts := make([]string, len(m))
	for i, k := range m {
		parts[i] = fmt.Sprintf("%s (%s)", k.Flag, k.Why)
	}
	return strings.Join(parts, "; ")
}

// Stands reports whether the run's figures stand for its configuration:
// it measured to its end and no flag withholds them. Every ranking,
// verdict and comparison reads a run through Stands.
func (r *Record) Stands() bool { return r.Completed() && !r.Flags.Withhold() }

// MarkFailures sets FlagPartlyFailed on a completed run that partly
// failed (PartlyFailed), and FlagLost on a one-way run that lost
// messages.
func (r *Record) MarkFailures() {
	if m, ok := PartlyFailed(&r.Figures, r.Steps); ok && r.Completed() {
		r.Flags.Set(m.Flag, m.Why)
	}
	r.markLost()
}

// PartlyFailed is the mark of figures whose failed and unsent calls pass
// MaxFailedShare: of the whole load, or of a capacity search's probe at
// its capacity (steps; the probes above it fail by design).
func PartlyFailed(f *Figures, steps []Step) (Mark, bool) {
	failed, total, detail := f.failures(steps)
	if total == 0 || float64(failed) <= MaxFailedShare*float64(total) {
		return Mark{}, false
	}
	return Mark{Flag: FlagPartlyFailed, Why: fmt.Sprintf("%d of %d calls failed or went unsent (%s), over the %g %% bound",
		failed, total, strings.Join(detail, ", "), 100*MaxFailedShare)}, true
}

// failures are the calls that failed or went unsent, all calls, and the
// failures by kind; for a capacity search, those of its probe at the
// capacity (none when it found none).
func (f *Figures) failures(steps []Step) (failed, total int64, detail []string) {
	byClass, unsent, unsentAs := f.ErrorsByClass, f.NotSent, "never sent"
	failed, total = f.Errors-byClass[ClassOverSLA], f.Requests
	if c := f.Capacity; c != nil {
		if c.Step < 0 || c.Step >= len(steps) {
			return 0, 0, nil
		}
		st := steps[c.Step]
		byClass, unsent, unsentAs = st.ErrorsByClass, st.Unanswered, "unanswered"
		failed, total = st.Failed(), st.Requests
	}
	for _, c := range slices.Sorted(maps.Keys(byClass)) {
		if n := byClass[c]; n > 0 && c != ClassOverSLA {
			detail = append(detail, fmt.Sprintf("%s %d", c, n))
		}
	}
	if unsent > 0 {
		detail = append(detail, fmt.Sprintf("%s %d", unsentAs, unsent))
	}
	return failed + unsent, total + unsent, detail
}

// MarkNoise sets FlagContaminated on a run that shared the machine with
// another measurement or with more noise than the bounds allow, and
// FlagGeneratorLate on an open loop whose generator fell behind its
// schedule.
func (r *Record) MarkNoise() {
	var why []string
	if len(r.OthersMeasuring) > 0 {
		why = append(why, "other hopbench processes measured on this machine during it: "+strings.Join(r.OthersMeasuring, ", "))
	}
	if n := r.Noise; n != nil && n.StealShare > MaxStealShare {
		why = append(why, fmt.Sprintf("steal time %.1f %% of the CPU, over %g %%", 100*n.StealShare, 100*MaxStealShare))
	}
	if n := r.Noise; n != nil && time.Duration(n.TimerLateP99Us)*time.Microsecond > MaxTimerLate {
		why = append(why, fmt.Sprintf("this process's timers woke %v late at p99, over %v", time.Duration(n.TimerLateP99Us)*time.Microsecond, MaxTimerLate))
	}
	if len(why) > 0 {
		r.Flags.Set(FlagContaminated, strings.Join(why, "; "))
	}
	r.markLate()
}

// markLate sets FlagGeneratorLate on an open loop whose generator's
// lateness passes its bounds.
func (r *Record) markLate() {
	l := r.Lateness
	if l == nil || r.P99Us <= 0 {
		return
	}
	late := time.Duration(l.P99Us) * time.Microsecond
	bound := max(MinLateBound, time.Duration(MaxLateShare*float64(r.P99Us))*time.Microsecond)
	if late > bound {
		r.Flags.Set(FlagGeneratorLate, fmt.Sprintf("the generator sent its requests %v late at p99, over the %v bound (×%g of the p99 latency, at least %v): the service saw another load than asked",
			late, bound, MaxLateShare, MinLateBound))
	}
}

// MarkContradictions sets FlagContradicted on every capacity search of
// recs whose capacity is under MinCapacityShare of the highest rate a
// closed loop of the same stack, topology, op, payload and options
// carried in recs.
func MarkContradictions(recs []Record) {
	key := func(r *Record) string {
		return strings.Join([]string{r.Stack, r.Topology, r.Op, r.Model, fmt.Sprint(r.Count), r.Options, r.Runtime, r.Schema}, "|")
	}
	peak, peakLoad := map[string]float64{}, map[string]string{}
	for i := range recs {
		r := &recs[i]
		if r.Stands() && strings.HasPrefix(r.Load, "closed:") && r.RPS > peak[key(r)] {
			peak[key(r)], peakLoad[key(r)] = r.RPS, r.Load
		}
	}
	for i := range recs {
		r := &recs[i]
		c, k := r.Capacity, key(r)
		if c == nil || !r.Completed() || c.RPS <= 0 || c.RPS >= MinCapacityShare*peak[k] {
			continue
		}
		r.Flags.Set(FlagContradicted, fmt.Sprintf("its capacity, %.0f req/s, is ×%.3f of the %.0f req/s the same stack carried at %s on the same payload, under the ×%g bound: one of the two is not the stack's; measure again",
			c.RPS, c.RPS/peak[k], peak[k], peakLoad[k], MinCapacityShare))
	}
}

package codecbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/userschema"
)

// MaxProcesses bounds the processes a timing is spread over.
const MaxProcesses = 20

// Job is what a child process times: its cases and options.
type Job struct {
	Cases []Case  `json:"cases"`
	Opts  Options `json:"opts"`
}

// RunProcesses times cases in n processes of their own, one after
// another, each a fresh run of argv (this binary's codec-process command,
// reading a Job on stdin and writing its Results as JSON on stdout), and
// merges them: each case's figure is the median of the processes' medians,
// and RunsNs keeps one median a process, so that a comparison counts
// independent runs, not samples taken back to back in one process. A
// child is killed if this process dies.
func RunProcesses(ctx context.Context, argv []string, cases []Case, opts Options, n int, progress func(process int)) ([]Result, error) {
	if n < 1 || n > MaxProcesses {
		return nil, fmt.Errorf("processes %d: want 1 to %d", n, MaxProcesses)
	}
	job, err := json.Marshal(Job{Cases: cases, Opts: opts})
	if err != nil {
		return nil, err
	}
	var each [][]Result
	for p := range n {
		rs, err := runProcess(ctx, argv, job)
		if err != nil {
			return nil, fmt.Errorf("codec timing process %d of %d: %w", p+1, n, err)
		}
		each = append(each, rs)
		if progress != nil {
			progress(p)
		}
	}
	return Merge(each)
}

func runProcess(ctx context.Context, argv []string, job []byte) ([]Result, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stdin, cmd.Stderr = bytes.NewReader(job), os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var rs []Result
	if err := json.Unmarshal(out, &rs); err != nil {
		return nil, fmt.Errorf("reading its results: %w", err)
	}
	return rs, nil
}

// ServeProcess is the child's side: a Job from in, its Results to out.
func ServeProcess(ctx context.Context, in io.Reader, out io.Writer) error {
	var job Job
	if err := json.NewDecoder(in).Decode(&job); err != nil {
		return fmt.Errorf("reading the job: %w", err)
	}
	for _, src := range job.Opts.Protos {
		if _, err := userschema.Use(ctx, src); err != nil {
			return err
		}
	}
	rs, err := Run(ctx, job.Cases, job.Opts, nil)
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(rs)
}

// Merge makes one result a case of the processes' results (each the same
// cases in the same order): the median of their medians, the min and max
// of them, every sample kept, one run a process in RunsNs.
func Merge(each [][]Result) ([]Result, error) {
	if len(each) == 0 {
		return nil, nil
	}
	out := slices.Clone(each[0])
	for i := range out {
		var marshal, unmarshal []Timing
		for p, rs := range each {
			if len(rs) != len(out) || rs[i].Case != out[i].Case {
				return nil, fmt.Errorf("process %d timed other cases than the first", p+1)
			}
			marshal, unmarshal = append(marshal, rs[i].Marshal), append(unmarshal, rs[i].Unmarshal)
		}
		out[i].Marshal, out[i].Unmarshal = mergeTimings(marshal), mergeTimings(unmarshal)
	}
	return out, nil
}

func mergeTimings(ts []Timing) Timing {
	m := ts[0]
	m.RunsNs, m.SamplesNs, m.Samples = nil, nil, 0
	for _, t := range ts {
		m.RunsNs = append(m.RunsNs, t.MedianNs)
		m.SamplesNs = append(m.SamplesNs, t.SamplesNs...)
		m.Samples += t.Samples
	}
	slices.Sort(m.SamplesNs)
	runs := slices.Sorted(slices.Values(m.RunsNs))
	m.MedianNs, m.MinNs, m.MaxNs = results.SpreadOf(runs).Median, runs[0], runs[len(runs)-1]
	return m
}

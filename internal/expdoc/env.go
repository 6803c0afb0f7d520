package expdoc

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/environment"
	"github.com/hopbench/hopbench/internal/results"
)

// duration is the measured time of the records, summed: "9 min 36 s".
func (d *Doc) duration(name string, where ...string) (string, error) {
	recs, err := d.records(name, where)
	if err != nil {
		return "", err
	}
	var t time.Duration
	for _, r := range recs {
		t += r.Ended.Sub(r.Started)
	}
	t = t.Round(time.Second)
	return fmt.Sprintf("%d min %d s", int(t.Minutes()), int(t.Seconds())%60), nil
}

// date is the day (UTC) the experiment's first recorded run started.
func (d *Doc) date(name string) (string, error) {
	e, err := d.exp(name)
	if err != nil {
		return "", err
	}
	if len(e.recs) == 0 {
		return "", fmt.Errorf("%s has no records", name)
	}
	first := e.recs[0].Started
	for _, r := range e.recs {
		if r.Started.Before(first) {
			first = r.Started
		}
	}
	return first.UTC().Format(time.DateOnly), nil
}

// codec is the one codec timing of the experiment that every "key=value"
// of where names (keys: codec, runtime, model, compress).
func (d *Doc) codec(name string, where ...string) (codecbench.Record, error) {
	e, err := d.exp(name)
	if err != nil {
		return codecbench.Record{}, err
	}
	var found []codecbench.Record
	for _, c := range e.m.Codecs {
		got := map[string]string{"codec": c.Codec, "runtime": cmp.Or(c.Runtime, "go"), "model": c.Model, "compress": c.Compress}
		ok := true
		for _, w := range where {
			k, v, _ := strings.Cut(w, "=")
			g, known := got[k]
			if !known {
				return codecbench.Record{}, fmt.Errorf("codec key %q: want codec, runtime, model or compress", k)
			}
			ok = ok && g == v
		}
		if ok {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		return codecbench.Record{}, fmt.Errorf("%s: %s picks %d codec timings, want 1", name, strings.Join(where, " "), len(found))
	}
	return found[0], nil
}

// env is the environment the experiment's first record was made in.
func (d *Doc) env(name string) (environment.Environment, error) {
	e, err := d.exp(name)
	if err != nil {
		return environment.Environment{}, err
	}
	if len(e.recs) == 0 {
		return environment.Environment{}, fmt.Errorf("%s has no records", name)
	}
	return e.recs[0].Environment, nil
}

// totalMinutes is the measured time of every record of the experiments
// named, summed, in minutes, rounded.
func (d *Doc) totalMinutes(names ...string) (int, error) {
	var all []results.Record
	for _, n := range names {
		e, err := d.exp(n)
		if err != nil {
			return 0, err
		}
		all = append(all, e.recs...)
	}
	return minutes(all), nil
}

// brokerVersion is the version of the broker named that the experiment's
// records list.
func (d *Doc) brokerVersion(name, broker string) (string, error) {
	e, err := d.exp(name)
	if err != nil {
		return "", err
	}
	for _, r := range e.recs {
		for _, b := range r.Brokers {
			if b.Name == broker && b.Version != "" {
				return b.Version, nil
			}
		}
	}
	return "", fmt.Errorf("%s: no record lists a %s broker", name, broker)
}

// library is the version of the library named (environment.Library's
// Name: "nats-server") the experiment's first record was built with.
func (d *Doc) library(name, lib string) (string, error) {
	env, err := d.env(name)
	if err != nil {
		return "", err
	}
	for _, l := range env.Libraries {
		if l.Name == lib {
			return l.Version, nil
		}
	}
	return "", fmt.Errorf("%s: no library %q in its environment", name, lib)
}

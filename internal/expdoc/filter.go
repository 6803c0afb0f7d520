package expdoc

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/results"
)

// filter keeps the records matching every condition of where: "key=value"
// (one of several: "count=1|5"), or "key!=value". Keys: case, part,
// stack, topology, op, model, count, load, runtime (go matches the empty
// one), outcome, options (the whole string), option (one word of it:
// "option=tls"), net (loopback, or the net:X word's X), schema, and
// errclass (the run's error classes, sorted and joined by "+": "over_sla",
// "" for none), exited (the indexes of the nodes that ended early, joined
// by "+": "0" for the entry node), proxy (the proxies on the hops:
// haproxy/l7/x2/mtls, or none).
func filter(recs []results.Record, where []string) ([]results.Record, error) {
	conds, err := parseWhere(where)
	if err != nil {
		return nil, err
	}
	var out []results.Record
	for i := range recs {
		ok, err := conds.match(&recs[i])
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, recs[i])
		}
	}
	return out, nil
}

// cond is one condition of a where list.
type cond struct {
	key    string
	values []string
	negate bool
}

type conds []cond

func parseWhere(where []string) (conds, error) {
	cs := make(conds, 0, len(where))
	for _, w := range where {
		k, v, found := strings.Cut(w, "=")
		if !found || k == "" {
			return nil, fmt.Errorf("filter %q: want key=value or key!=value", w)
		}
		c := cond{key: k, values: strings.Split(v, "|")}
		if strings.HasSuffix(k, "!") {
			c.key, c.negate = strings.TrimSuffix(k, "!"), true
		}
		cs = append(cs, c)
	}
	return cs, nil
}

func (cs conds) match(r *results.Record) (bool, error) {
	for _, c := range cs {
		var in bool
		if c.key == "option" {
			words := strings.Fields(r.Options)
			in = slices.ContainsFunc(c.values, func(v string) bool { return slices.Contains(words, v) })
		} else {
			got, err := field(r, c.key)
			if err != nil {
				return false, err
			}
			in = slices.Contains(c.values, got)
		}
		if in == c.negate {
			return false, nil
		}
	}
	return true, nil
}

var fields = map[string]func(r *results.Record) string{
	"case":     func(r *results.Record) string { return r.Case },
	"proxy":    func(r *results.Record) string { return results.ProxyOf(r.Options) },
	"part":     func(r *results.Record) string { return r.Part },
	"stack":    func(r *results.Record) string { return r.Stack },
	"topology": func(r *results.Record) string { return r.Topology },
	"op":       func(r *results.Record) string { return r.Op },
	"model":    func(r *results.Record) string { return r.Model },
	"count":    func(r *results.Record) string { return strconv.Itoa(r.Count) },
	"load":     func(r *results.Record) string { return r.Load },
	"runtime":  func(r *results.Record) string { return r.RuntimeName() },
	"outcome":  func(r *results.Record) string { return r.Outcome },
	"options":  func(r *results.Record) string { return r.Options },
	"schema":   func(r *results.Record) string { return r.Schema },
	"net":      func(r *results.Record) string { return results.NetworkOf(r.Options) },
	"errclass": errorClasses,
	"exited":   exitedNodes,
	"contaminated": func(r *results.Record) string {
		return strconv.FormatBool(r.Flags.Has(results.FlagContaminated))
	},
}

func field(r *results.Record, k string) (string, error) {
	f, ok := fields[k]
	if !ok {
		return "", fmt.Errorf("filter key %q: want one of %s or option", k, strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
	}
	return f(r), nil
}

// exitedNodes are the indexes of the run's nodes that ended early,
// joined by "+": "0" when the entry node was killed.
func exitedNodes(r *results.Record) string {
	var ns []string
	for _, n := range r.Nodes {
		if n.Exit != "" {
			ns = append(ns, strconv.Itoa(n.Index))
		}
	}
	return strings.Join(ns, "+")
}

// errorClasses are the classes of the run's failed calls: "over_sla".
func errorClasses(r *results.Record) string {
	var cs []string
	for c, n := range r.ErrorsByClass {
		if n > 0 {
			cs = append(cs, c)
		}
	}
	slices.Sort(cs)
	return strings.Join(cs, "+")
}

package expdoc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/results"
)

// ranking is a superlative finding's stacks here, first to last, as its
// row ranks them.
func (d *Doc) ranking(name, id string) ([]string, error) {
	row, err := d.finding(name, id)
	if err != nil {
		return nil, err
	}
	if row.Ranking == "" {
		return nil, fmt.Errorf("%s: %s ranks no stacks", name, id)
	}
	var stacks []string
	for _, part := range strings.Split(row.Ranking, ", ") {
		stack, _, _ := strings.Cut(part, " ")
		stacks = append(stacks, stack)
	}
	return stacks, nil
}

// leaders are, for each case the runs where picks hold apart from their
// stack, the stack with the lowest median of measure (highest, when
// highest is true), in the order the cases were first recorded.
func (d *Doc) leaders(name, measure string, highest bool, where ...string) ([]string, error) {
	recs, err := d.records(name, where)
	if err != nil {
		return nil, err
	}
	groups := map[string][]string{} // case without its stack → stacks' cases
	var order []string
	for _, r := range recs {
		key := withoutStack(&r)
		if !slices.Contains(groups[key], r.Case) {
			if len(groups[key]) == 0 {
				order = append(order, key)
			}
			groups[key] = append(groups[key], r.Case)
		}
	}
	var out []string
	for _, key := range order {
		best, stack := 0.0, ""
		for _, c := range groups[key] {
			v, err := d.median(name, measure, "case="+c)
			if err != nil {
				return nil, err
			}
			if stack == "" || highest && v > best || !highest && v < best {
				best, stack = v, stackOfCase(recs, c)
			}
		}
		out = append(out, stack)
	}
	return out, nil
}

func withoutStack(r *results.Record) string {
	words := strings.Fields(r.Case)
	return strings.Join(slices.DeleteFunc(words, func(w string) bool { return w == r.Stack }), " ")
}

func stackOfCase(recs []results.Record, c string) string {
	for _, r := range recs {
		if r.Case == c {
			return r.Stack
		}
	}
	return ""
}

// position is where s stands in list, from 1; 0 when it is not there.
func position(list []string, s string) int { return slices.Index(list, s) + 1 }

// count is how many of the list are s.
func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// distinct is the list without repeats, in order.
func distinct(list []string) []string {
	var out []string
	for _, x := range list {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// words joins a list as prose: "a", "a and b", "a, b and c".
func words(list []string) string {
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0]
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

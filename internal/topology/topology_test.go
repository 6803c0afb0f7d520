package topology

import (
	"reflect"
	"strings"
	"testing"
)

func TestShapes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want [][]int
	}{
		{"direct", [][]int{nil}},
		{"chain:3", [][]int{{1}, {2}, nil}},
		{"tree:1", [][]int{{1, 2}, nil, nil}},
		{"tree:2", [][]int{{1, 2}, {3, 4}, {5, 6}, nil, nil, nil, nil}},
		{"star:3", [][]int{{1, 2, 3}, nil, nil, nil}},
	} {
		top, err := Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := top.Downstream(); !reflect.DeepEqual(got, c.want) || top.String() != c.in {
			t.Errorf("%s: %v (%s), want %v", c.in, got, top, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ring:3", "unknown kind (known: direct, chain:N, tree:D, star:N)"},
		{"chain", "want chain:N"},
		{"chain:x", "want chain:N"},
		{"tree:9", "N must be from 1 to 6"},
		{"star:0", "N must be from 1 to 64"},
	} {
		if _, err := Parse(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

package userschema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/evolution"
)

var ordersV2 = Source{
	Files:       []string{"../../examples/proto-v2/shop/orders.proto"},
	ImportPaths: []string{"../../examples/proto-v2"},
	Message:     "shop.Order",
}

func ordersPair(t *testing.T) evolution.Pair {
	t.Helper()
	p, err := Evolution(load(t, orders), load(t, ordersV2))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTheChangesBetweenTwoVersionsAreNamedFieldByField(t *testing.T) {
	var got []string
	for _, ch := range ordersPair(t).Changes() {
		got = append(got, ch.Name+" ["+ch.Field[0]+" | "+ch.Field[1]+"]")
	}
	want := []string{
		"scalar-narrowed common.Money.units [items.lines.price.units | items.lines.price.units]",
		"field-renamed shop.Order.note [items.note | items.remark]",
		"enum-value-added shop.STATUS_RETURNED [items.status | items.status]",
		"field-added shop.Order.gift_note [ | items.gift_note]",
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("no change %q among:\n%s", w, strings.Join(got, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d changes, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}

// The examples' two versions make a field added, one renamed and one
// narrowed (examples/proto-v2): through mixed chains, in every codec that
// carries them, each comes back as the payload schema's change of the same
// kind does (evolution.Changes), a narrowing as a widening met from the
// other side: its wide sender's path mirrored.
func TestAUsersSchemaChangeFaresAsTheBuiltInChangeOfItsKind(t *testing.T) {
	pair := ordersPair(t)
	var codecs []codec.Codec
	for _, c := range codec.All() {
		if c.Name() != "json-fast" {
			codecs = append(codecs, c)
		}
	}
	v212 := evolution.Path{evolution.V2, evolution.V1, evolution.V2}
	v121 := evolution.Path{evolution.V1, evolution.V2, evolution.V1}
	user, err := evolution.MatrixIn(pair, codecs, []evolution.Path{v212, v121}, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	built, err := evolution.Matrix(codecs, []evolution.Path{v212, v121}, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	outcome := map[string]string{}
	for _, tr := range built {
		outcome[tr.Change+" "+tr.Path+" "+tr.Codec] = fmt.Sprintf("%s, others %s", tr.Outcome, tr.Others)
	}
	mirror := map[string]string{v212.String(): v121.String(), v121.String(): v212.String()}
	compared := 0
	for _, tr := range user {
		kind, _, _ := strings.Cut(tr.Change, " ")
		path := tr.Path
		switch kind {
		case ScalarNarrowed:
			kind, path = "scalar-widened", mirror[path]
		case FieldAdded, FieldRenamed:
		default:
			continue
		}
		want := outcome[kind+" "+path+" "+tr.Codec]
		if got := fmt.Sprintf("%s, others %s", tr.Outcome, tr.Others); got != want {
			t.Errorf("%s over %s in %s: %s (%s); the payload schema's %s over %s: %s", tr.Change, tr.Path, tr.Codec, got, tr.Detail, kind, path, want)
		}
		compared++
	}
	if compared != 3*2*len(codecs) {
		t.Errorf("compared %d trials, want %d", compared, 3*2*len(codecs))
	}
}

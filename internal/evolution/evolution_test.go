package evolution_test

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/payload"
)

func trial(t *testing.T, codecName, change, path string) evolution.Trial {
	t.Helper()
	c, err := codec.Lookup(codecName)
	if err != nil {
		t.Fatal(err)
	}
	ch, ok := evolution.LookupChange(change)
	if !ok {
		t.Fatalf("no change %q", change)
	}
	p, err := evolution.ParsePath(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := evolution.Run(c, ch, p, 3, payload.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %s %s: %s (others %s) %s; %d bytes sent, %d back", codecName, change, path, tr.Outcome, tr.Others, tr.Detail, tr.SentBytes, tr.ReplyBytes)
	return tr
}

// The engine's expected truths: Go's Protobuf keeps a field it does not
// know through an old middle node (unknown fields are kept and written
// again); encoding/json into structs drops it.
func TestProtoKeepsAnAddedFieldThroughAnOldNodeAndJSONDropsIt(t *testing.T) {
	if tr := trial(t, "proto", "field-added", "v2,v1,v2"); tr.Outcome != evolution.Kept || tr.Others != evolution.Kept {
		t.Errorf("proto: the added field %s, the others %s; want both kept", tr.Outcome, tr.Others)
	}
	if tr := trial(t, "json", "field-added", "v2,v1,v2"); tr.Outcome != evolution.Dropped || tr.Others != evolution.Kept {
		t.Errorf("json: the added field %s, the others %s; want it dropped and the others kept", tr.Outcome, tr.Others)
	}
	// Nodes of one version keep everything, in every codec.
	for _, c := range codec.Names() {
		for _, ch := range evolution.Changes {
			for _, path := range []string{"v1,v1,v1", "v2,v2,v2"} {
				if tr := trial(t, c, ch.Name, path); (tr.Outcome != evolution.Kept && tr.Outcome != evolution.NotSent) || tr.Others != evolution.Kept {
					t.Errorf("%s %s over %s: %s (others %s): %s", c, ch.Name, path, tr.Outcome, tr.Others, tr.Detail)
				}
			}
		}
	}
}

// Protobuf reads a field by its number: a renamed field keeps its value
// through nodes of the other version; the JSON codecs read it by name.
func TestARenamedFieldIsReadByNumberInProtoAndByNameInJSON(t *testing.T) {
	if tr := trial(t, "proto", "field-renamed", "v2,v1,v2"); tr.Outcome != evolution.Kept {
		t.Errorf("proto: renamed field %s", tr.Outcome)
	}
	if tr := trial(t, "json", "field-renamed", "v1,v2,v1"); tr.Outcome != evolution.Dropped {
		t.Errorf("json: renamed field %s, want dropped", tr.Outcome)
	}
}

// A value beyond int32 sent by v2 through a v1 node: Protobuf's v1 node
// truncates it to 32 bits, a different value, not an error.
func TestAWidenedScalarBeyondTheOldRangeIsCorruptedByProto(t *testing.T) {
	tr := trial(t, "proto", "scalar-widened", "v2,v1,v2")
	if tr.Outcome != evolution.Corrupted || tr.Detail == "" {
		t.Errorf("proto: widened scalar %s (%s), want corrupted and what it became", tr.Outcome, tr.Detail)
	}
}

// The field v2 removed and reserved, sent by v1 through a v2 node, is
// never read as another field: every other field comes back as sent, or
// the trial says the codec refused the message. (A codec that misreads it
// would show here as others: corrupted.)
func TestARemovedReservedFieldIsNotMisreadAsAnother(t *testing.T) {
	for _, c := range codec.Names() {
		tr := trial(t, c, "field-removed", "v1,v2,v1")
		if tr.Others == evolution.Corrupted {
			t.Logf("%s misreads the removed field as another: %s", c, tr.Detail)
		}
		if c == "proto" && (tr.Others != evolution.Kept || tr.Outcome != evolution.Kept) {
			t.Errorf("proto: removed field %s, others %s; want the unknown field kept and nothing misread", tr.Outcome, tr.Others)
		}
	}
}

func TestPathsAreChecked(t *testing.T) {
	for _, bad := range []string{"v1", "v1,v3", "", "v1,v1,v1,v1,v1,v1,v1,v1,v1,v1"} {
		if _, err := evolution.ParsePath(bad); err == nil {
			t.Errorf("path %q accepted", bad)
		}
	}
	p, err := evolution.ParsePath("v2, v1 ,v2")
	if err != nil || p.String() != "v2,v1,v2" || !p.Mixed() {
		t.Errorf("path %v %v", p, err)
	}
}

// Every codec, change and mixed path has an outcome, and a refusal says
// where it happened.
func TestTheMatrixHasAnOutcomeForEveryCodecAndChange(t *testing.T) {
	var paths []evolution.Path
	for _, s := range []string{"v2,v1,v2", "v1,v2,v1"} {
		p, _ := evolution.ParsePath(s)
		paths = append(paths, p)
	}
	trials, err := evolution.Matrix(codec.All(), paths, 3, payload.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(paths) * len(evolution.Changes) * len(codec.Names()); len(trials) != want {
		t.Fatalf("%d trials, want %d", len(trials), want)
	}
	for _, tr := range trials {
		t.Logf("%-9s %-19s %s  %-9s others %-9s %s", tr.Codec, tr.Change, tr.Path, tr.Outcome, tr.Others, tr.Detail)
		if tr.Outcome == "" || tr.Others == "" || (tr.Outcome == evolution.Refused && tr.Detail == "") {
			t.Errorf("%+v: no outcome, or a refusal without its reason", tr)
		}
	}
}

// Avro with the writer's schema in each body resolves it as Avro's
// specification says, and schema by schema, not field by field: a v1 node
// reads a v2 payment (its added nested field skipped, so dropped), but no
// v2 user, because v2 widened User.age to long and Avro reads no long as
// an int, whichever field a message was sent to exercise. Plain Avro,
// reading every body with its own schema, refuses the payment too.
func TestResolvedAvroResolvesWholeSchemas(t *testing.T) {
	if tr := trial(t, "avro-resolved", "nested-field-added", "v2,v1,v2"); tr.Outcome != evolution.Dropped || tr.Others != evolution.Kept {
		t.Errorf("avro-resolved: nested field %s (others %s), want dropped (others kept)", tr.Outcome, tr.Others)
	}
	if tr := trial(t, "avro", "nested-field-added", "v2,v1,v2"); tr.Outcome != evolution.Refused {
		t.Errorf("avro: nested field %s, want refused", tr.Outcome)
	}
	tr := trial(t, "avro-resolved", "field-added", "v2,v1,v2")
	if tr.Outcome != evolution.Refused || !strings.Contains(tr.Detail, "node 1 (v1)") || !strings.Contains(tr.Detail, "long") {
		t.Errorf("avro-resolved: a v2 user through a v1 node %s (%s), want refused by node 1 for the long", tr.Outcome, tr.Detail)
	}
}

package payload_test

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hopbench/hopbench/internal/payload"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

func generate[T proto.Message](t *testing.T, model string, count int) T {
	t.Helper()
	m, err := payload.Generate(model, count, payload.DefaultSeed)
	if err != nil {
		t.Fatalf("Generate(%s, %d): %v", model, count, err)
	}
	return m.(T)
}

func TestCountsMeanWhatTheModelSays(t *testing.T) {
	if got := len(generate[*pb.UserList](t, "user", 37).Users); got != 37 {
		t.Errorf("user 37: %d users", got)
	}
	payments := generate[*pb.PaymentList](t, "payment", 4).Payments
	if len(payments) != 4 {
		t.Fatalf("payment 4: %d payments", len(payments))
	}
	for _, p := range payments {
		if len(p.Transactions) != 2 || len(p.Transactions[0].ItemList.Items) != 5 {
			t.Fatalf("payment shape: %d transactions, %d items; docs/payloads-and-codecs.md documents 2 x 5",
				len(p.Transactions), len(p.Transactions[0].ItemList.Items))
		}
	}
	recipes := generate[*pb.RecipeList](t, "recipe", 2).Recipes
	if len(recipes) != 2 || len(recipes[0].Ingredients) != 6 {
		t.Errorf("recipe 2: %d recipes of %d ingredients", len(recipes), len(recipes[0].Ingredients))
	}
	for _, n := range []int{0, 1, 10, 1000, 100_000} {
		if got := len(generate[*pb.Text](t, "text", n).Text); got != n {
			t.Errorf("text %d: %d characters", n, got)
		}
	}
	ints := generate[*pb.Ints](t, "ints", 10_000).Values
	for i, v := range ints {
		if v != int32(i) {
			t.Fatalf("ints[%d] = %d, want %d", i, v, i)
		}
	}
	if len(ints) != 10_000 {
		t.Errorf("ints 10000: %d values", len(ints))
	}
	if v := generate[*pb.Int](t, "int", 1).Value; v != 2147483647 {
		t.Errorf("int: %d", v)
	}
}

func TestAllTypesCarriesExactlyNProperties(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 100, 1000, 10_000} {
		list := generate[*pb.AllTypesList](t, "alltypes", n)
		set := 0
		for _, r := range list.Records {
			r.ProtoReflect().Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool {
				set++
				return true
			})
		}
		if set != n {
			t.Errorf("alltypes %d: %d properties set", n, set)
		}
		if want := (n + 8) / 9; len(list.Records) != want {
			t.Errorf("alltypes %d: %d records, want %d", n, len(list.Records), want)
		}
	}
}

func TestBlobsHaveTheirSizeAndKind(t *testing.T) {
	pdf := generate[*pb.Blob](t, "blob", 100_000)
	if len(pdf.Content) != 100_000 || !bytes.HasPrefix(pdf.Content, []byte("%PDF-1.7")) || !bytes.HasSuffix(pdf.Content, []byte("%%EOF\n")) {
		t.Errorf("blob: %d bytes, starts %q", len(pdf.Content), pdf.Content[:8])
	}
	txt := generate[*pb.Blob](t, "textfile", 50_000)
	if len(txt.Content) != 50_000 {
		t.Errorf("textfile: %d bytes", len(txt.Content))
	}
	for _, b := range txt.Content {
		if b != '\n' && (b < ' ' || b > '~') {
			t.Fatalf("textfile holds a non-text byte %#x", b)
		}
	}
}

func TestSameSeedSameMessage(t *testing.T) {
	for _, m := range payload.Models() {
		count := m.Counts[0]
		a, _ := m.Message(count, 7)
		b, _ := m.Message(count, 7)
		if !proto.Equal(a, b) {
			t.Errorf("%s: seed 7 made two different messages", m.Name)
		}
	}
}

func TestBadInputIsRefusedWithAReason(t *testing.T) {
	cases := []struct {
		model string
		count int
		want  string
	}{
		{"xml", 1, `unknown payload model "xml" (known: user, payment, recipe`},
		{"user", -1, "count -1 is negative"},
		{"int", 2, "count 2 is above its maximum of 1"},
	}
	for _, c := range cases {
		_, err := payload.Generate(c.model, c.count, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Generate(%s, %d) = %v, want an error containing %q", c.model, c.count, err, c.want)
		}
	}
}

func TestEveryModelHasStudySizesAndDocs(t *testing.T) {
	for _, m := range payload.Models() {
		if len(m.Counts) == 0 || m.Doc == "" || m.Unit == "" || m.Source == "" {
			t.Errorf("%s: missing counts, doc, unit or source", m.Name)
		}
		for _, n := range m.Counts {
			if err := m.CheckCount(n); err != nil {
				t.Errorf("%s: its own study size %d is refused: %v", m.Name, n, err)
			}
		}
	}
}

// The issue asks for 300 000 users or 650 payments "well under a second";
// that is a performance target, so it is a benchmark, not a timed test.
func BenchmarkGenerate(b *testing.B) {
	for _, c := range []struct {
		model string
		count int
	}{{"user", 300_000}, {"payment", 650}, {"text", 1_000_000}, {"blob", 3_400 * 1024}} {
		b.Run(c.model, func(b *testing.B) {
			for b.Loop() {
				if _, err := payload.Generate(c.model, c.count, payload.DefaultSeed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestLenCountsInTheModelsUnit(t *testing.T) {
	for _, m := range payload.Models() {
		for _, n := range []int{0, 1, m.Counts[0]} {
			if err := m.CheckCount(n); err != nil {
				continue
			}
			msg, _ := m.Message(n, payload.DefaultSeed)
			if got := m.Len(msg); got != n {
				t.Errorf("%s: Len of %d items = %d", m.Name, n, got)
			}
		}
	}
	user, _ := payload.Lookup("user")
	if got := user.Len(&pb.Text{}); got != -1 {
		t.Errorf("user.Len(Text) = %d, want -1", got)
	}
}

package userschema

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/hopbench/hopbench/internal/payload"
)

var orders = Source{
	Files:       []string{"../../examples/proto/shop/orders.proto"},
	ImportPaths: []string{"../../examples/proto"},
	Message:     "shop.Order",
}

func load(t *testing.T, src Source) *Payload {
	t.Helper()
	p, err := Load(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAGeneratedListIsTheSameForASeedAndCarriesEveryKindOfField(t *testing.T) {
	p := load(t, orders)
	a := p.Generate(rand.New(rand.NewPCG(7, 7)), 50)
	b := p.Generate(rand.New(rand.NewPCG(7, 7)), 50)
	if !proto.Equal(a, b) {
		t.Fatal("two lists for one seed differ")
	}
	if proto.Equal(a, p.Generate(rand.New(rand.NewPCG(8, 8)), 50)) {
		t.Fatal("lists for two seeds are equal")
	}
	items := a.ProtoReflect().Get(p.List.Fields().Get(0)).List()
	if items.Len() != 50 {
		t.Fatalf("%d items, want 50", items.Len())
	}
	set := map[protoreflect.Name]bool{}
	for i := range items.Len() {
		items.Get(i).Message().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
			set[fd.Name()] = true
			return true
		})
	}
	fields := p.Message.Fields()
	for i := range fields.Len() {
		if name := fields.Get(i).Name(); !set[name] {
			t.Errorf("no item of 50 sets %s", name)
		}
	}
	// Every generated message is valid in the proto JSON mapping (its
	// Timestamps and Durations within their ranges).
	if _, err := protojson.Marshal(a); err != nil {
		t.Fatal(err)
	}
}

func TestAMessageThatContainsItselfEndsAtTheFillsDepth(t *testing.T) {
	src := orders
	fill := DefaultFill()
	fill.Depth = 3
	fill.Repeated = Range{2, 2}
	fill.Fields = map[string]Hint{"shop.Order.payment": {Branch: "voucher"}}
	src.Fill = &fill
	p := load(t, src)
	list := p.Generate(rand.New(rand.NewPCG(1, 1)), 1).ProtoReflect()
	order := list.Get(p.List.Fields().Get(0)).List().Get(0).Message()
	if got := order.WhichOneof(p.Message.Oneofs().ByName("payment")); got == nil || got.Name() != "voucher" {
		t.Fatalf("payment set to %v, want the hinted voucher", got)
	}
	depth := 0
	for c := order.Get(p.Message.Fields().ByName("category")).Message(); c.IsValid(); depth++ {
		children := c.Get(c.Descriptor().Fields().ByName("children")).List()
		if children.Len() == 0 {
			break
		}
		c = children.Get(0).Message()
	}
	// Order is depth 1, its category 2, the category's children 3: the
	// children of depth 3 have no children.
	if depth != 1 {
		t.Fatalf("categories nest %d levels below the order's, want 1 (depth 3)", depth)
	}
}

func TestHintsShapeTheFields(t *testing.T) {
	src := orders
	fill := DefaultFill()
	no := false
	fill.Fields = map[string]Hint{
		"shop.Order.id":            {Length: &Range{40, 40}},
		"shop.Order.lines":         {Size: &Range{7, 7}},
		"shop.Order.Line.quantity": {Range: &Range{5, 5}},
		"shop.Order.note":          {Set: &no},
	}
	src.Fill = &fill
	p := load(t, src)
	list := p.Generate(rand.New(rand.NewPCG(3, 3)), 5).ProtoReflect()
	items := list.Get(p.List.Fields().Get(0)).List()
	fd := p.Message.Fields()
	for i := range items.Len() {
		o := items.Get(i).Message()
		if n := len(o.Get(fd.ByName("id")).String()); n != 40 {
			t.Errorf("id of %d characters, want 40", n)
		}
		lines := o.Get(fd.ByName("lines")).List()
		if lines.Len() != 7 {
			t.Errorf("%d lines, want 7", lines.Len())
		}
		for j := range lines.Len() {
			if q := lines.Get(j).Message().Get(fd.ByName("lines").Message().Fields().ByName("quantity")).Uint(); q != 5 {
				t.Errorf("quantity %d, want 5", q)
			}
		}
		if o.Has(fd.ByName("note")) {
			t.Error("note set against its hint")
		}
	}
}

func TestSamplesAreCycledFromASeededStart(t *testing.T) {
	src := orders
	src.Samples = "../../examples/proto/orders.jsonl"
	p := load(t, src)
	list := p.Generate(rand.New(rand.NewPCG(1, 1)), 5).ProtoReflect()
	items := list.Get(p.List.Fields().Get(0)).List()
	ids := ""
	for i := range items.Len() {
		ids += items.Get(i).Message().Get(p.Message.Fields().ByName("id")).String() + " "
	}
	if ids != "o-1 o-2 o-1 o-2 o-1 " && ids != "o-2 o-1 o-2 o-1 o-2 " {
		t.Fatalf("items %q: want the two samples in turn", ids)
	}
}

func TestAUserModelIsFoundByNameAndSizedBeforeItIsSent(t *testing.T) {
	p := load(t, orders)
	m := p.Model()
	if err := payload.Register(m); err != nil {
		t.Fatal(err)
	}
	got, err := payload.Lookup("shop.Order")
	if err != nil {
		t.Fatal(err)
	}
	msg, err := got.Message(100, payload.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	if n := got.Len(msg); n != 100 {
		t.Fatalf("Len %d, want 100", n)
	}
	for _, c := range []int{1, 64, 1000} {
		bound, err := got.EncodedSize(c, proto.Marshal)
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := got.Message(c, payload.DefaultSeed+99)
		size := proto.Size(msg)
		if int64(size) > bound {
			t.Errorf("%d orders: %d bytes, over the bound %d", c, size, bound)
		}
	}
	if err := payload.Register(payload.FromDynamic(payload.Dynamic{Name: "user", New: func() proto.Message { return dynamicpb.NewMessage(p.List) }})); err == nil {
		t.Error("a user model named like a built-in one was registered")
	}
}

func TestBadInputIsNamed(t *testing.T) {
	bad := func(files ...string) Source {
		return Source{Files: files, ImportPaths: []string{"testdata/bad"}, Message: "M"}
	}
	badFill := DefaultFill()
	badFill.Fields = map[string]Hint{"shop.Order.idd": {Length: &Range{1, 2}}}
	wrongBranch := DefaultFill()
	wrongBranch.Fields = map[string]Hint{"shop.Order.payment": {Branch: "cash"}}
	withFill := orders
	withFill.Fill = &badFill
	withBranch := orders
	withBranch.Fill = &wrongBranch
	unknown := orders
	unknown.Message = "shop.Ordr"
	samples := orders
	samples.Samples = "testdata/bad.jsonl"
	for _, c := range []struct {
		name string
		src  Source
		want []string
	}{
		{"syntax error", bad("testdata/bad/syntax.proto"), []string{"syntax.proto:5:3", "syntax error"}},
		{"missing import", bad("testdata/bad/missing.proto"), []string{"nowhere/gone.proto", "searched: testdata/bad"}},
		{"any", Source{Files: []string{"testdata/bad/any.proto"}, Message: "Envelope"}, []string{"Envelope.body is google.protobuf.Any"}},
		{"import cycle", bad("testdata/bad/cycle_a.proto"), []string{"cycle"}},
		{"unknown message", unknown, []string{`no message "shop.Ordr"`, "shop.Order", "shop.Card", "common.Money"}},
		{"hint for no field", withFill, []string{"shop.Order.idd", "no such field"}},
		{"no such branch", withBranch, []string{"branch: one of card, voucher, invoice"}},
		{"bad sample", samples, []string{"bad.jsonl:2", "quantitty"}},
		{"outside the import paths", Source{Files: []string{"testdata/bad.jsonl"}, ImportPaths: []string{"../../examples/proto"}, Message: "M"}, []string{"in none of the import paths"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(context.Background(), c.src)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestAFileOverTheBoundIsRefused(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.proto")
	writeFile(t, big, "syntax = \"proto3\";\n"+strings.Repeat("// padding\n", MaxFileBytes/11+1)+"message M { string id = 1; }\n")
	_, err := Load(context.Background(), Source{Files: []string{big}, Message: "M"})
	if err == nil || !strings.Contains(err.Error(), "over the") {
		t.Fatalf("error %v, want the file refused by its size", err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestAFillFileKeepsTheDefaultsItLeavesOutAndRefusesUnknownKeys(t *testing.T) {
	f, err := ReadFill("../../examples/proto/orders-fill.json")
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultFill()
	if f.Strings != def.Strings || f.Repeated != (Range{1, 3}) || f.Depth != 3 || *f.Fields["shop.Order.lines"].Size != (Range{2, 8}) {
		t.Fatalf("fill %+v: want the file's repeated, depth and hints over the defaults", f)
	}
	src := orders
	src.Fill = &f
	load(t, src) // every hint names a field of shop.Order and fits it
	bad := filepath.Join(t.TempDir(), "bad.json")
	writeFile(t, bad, `{"strngs": 3}`)
	if _, err := ReadFill(bad); err == nil || !strings.Contains(err.Error(), `unknown field "strngs"`) {
		t.Fatalf("error %v, want the unknown key named", err)
	}
}

// A .proto, a fill or samples that are not regular files are refused at
// once, naming the path: /dev/zero says 0 bytes and never ends (a compile
// reached 12.5 GB, a fill 4 GB).
func TestFilesThatAreNotRegularAreRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	const want = "/dev/zero is not a regular file"
	if _, err := Load(context.Background(), Source{Files: []string{"/dev/zero"}, ImportPaths: []string{"/dev"}, Message: "a.B"}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a .proto of /dev/zero: %v, want %q", err, want)
	}
	if _, err := ReadFill("/dev/zero"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a fill of /dev/zero: %v, want %q", err, want)
	}
	src := orders
	src.Samples = "/dev/zero"
	if _, err := Load(context.Background(), src); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("samples of /dev/zero: %v, want %q", err, want)
	}
}

// A file that grows past its bound while it is read fails the read.
func TestAFileThatGrowsPastItsBoundFailsItsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(path, []byte(strings.Repeat(" ", 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := openFile(path, 10, "a fill")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(path, []byte(strings.Repeat(" ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(f); err == nil || !strings.Contains(err.Error(), "grew past") {
		t.Errorf("reading a file grown past its 10 bytes: %v, want it refused", err)
	}
}

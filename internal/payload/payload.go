// Package payload defines the data hopbench carries over every stack: the
// models of the published studies and their deterministic generators, so that
// every stack, codec and run carries byte-identical data for a seed and count.
package payload

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// DefaultSeed is the seed used when none is given, so that two runs of the
// same experiment carry the same bytes.
const DefaultSeed uint64 = 1

// Model is one payload model: what its count means, the sizes the studies
// used, and how to make a message of it.
type Model struct {
	Name string
	// Unit says what the count counts, e.g. "users" or "characters".
	Unit string
	// Doc is one line for help texts and reports.
	Doc string
	// Source names the study the model comes from.
	Source string
	// Counts are the sizes the source study measured; the default matrix.
	Counts []int
	// MaxCount bounds the count a generator accepts (0: no bound but memory).
	MaxCount int
	// New returns an empty message of the model's type, to decode into.
	New func() proto.Message
	// generate fills a message with count items drawn from g.
	generate func(g *gen, count int) proto.Message
	// length counts the items a message of the model carries.
	length func(proto.Message) int
	// shape says how the encoded size grows with the count (SizeBound).
	shape shape
	// unitsPerItem is how many units of the count one list item carries
	// (alltypes: a record of 9 properties); 0 means 1.
	unitsPerItem int
}

// Len returns how many items msg carries, in the model's unit; -1 when msg
// is not of the model's type.
func (m Model) Len(msg proto.Message) int {
	if msg.ProtoReflect().Descriptor() != m.New().ProtoReflect().Descriptor() {
		return -1
	}
	return m.length(msg)
}

// CheckCount says whether the model can carry count items.
func (m Model) CheckCount(count int) error {
	if count < 0 {
		return fmt.Errorf("payload %s: count %d is negative", m.Name, count)
	}
	if m.MaxCount > 0 && count > m.MaxCount {
		return fmt.Errorf("payload %s: count %d is above its maximum of %d (%s)", m.Name, count, m.MaxCount, m.Doc)
	}
	return nil
}

// Message makes the model's message for count items, deterministically for seed.
func (m Model) Message(count int, seed uint64) (proto.Message, error) {
	if err := m.CheckCount(count); err != nil {
		return nil, err
	}
	return m.generate(newGen(seed), count), nil
}

// EncodedSize is an upper bound on the encoded size of count items with
// marshal (see SizeBound), so that a reply or request too large to send can
// be refused before it is generated. A caller checking many counts keeps
// the model's SizeBound instead: this measures it anew.
func (m Model) EncodedSize(count int, marshal Marshal) (int64, error) {
	if err := m.CheckCount(count); err != nil {
		return 0, err
	}
	b, err := m.SizeBound(marshal)
	if err != nil {
		return 0, err
	}
	return b.Size(count), nil
}

// ItemBytes is an upper bound on the bytes one unit of the model adds with
// marshal, whatever the count (for ints, the widest int32's), leaving out
// the bytes a message has whatever its count: for a rough cost of many
// counts. SizeBound gives the bound for a count.
func (m Model) ItemBytes(marshal Marshal) (float64, error) {
	b, err := m.SizeBound(marshal)
	if err != nil {
		return 0, err
	}
	if b.sizes != nil {
		return float64(b.sizes[len(b.sizes)-1]), nil
	}
	per := 0.0
	for _, s := range b.steps {
		per = max(per, s.per)
	}
	return per / float64(b.unitsPerItem), nil
}

// models is the closed set of payload models, in the order reports list them.
var models = []Model{
	{
		Name: "user", Unit: "users", Source: "thesis (seed 000)",
		Doc:    "flat user records: uid, email, username, profile_picture_url, age",
		Counts: []int{1, 5, 100_000, 300_000},
		New:    func() proto.Message { return new(pb.UserList) }, generate: genUsers, length: func(m proto.Message) int { return len(m.(*pb.UserList).Users) },
	},
	{
		Name: "payment", Unit: "payments", Source: "thesis (seed 000)",
		Doc:    fmt.Sprintf("PayPal-v1-style payments nested 4 levels deep, %d transactions of %d items each", transactionsPerPayment, itemsPerTransaction),
		Counts: []int{5, 325, 650},
		New:    func() proto.Message { return new(pb.PaymentList) }, generate: genPayments, length: func(m proto.Message) int { return len(m.(*pb.PaymentList).Payments) },
	},
	{
		Name: "recipe", Unit: "recipes", Source: "Ensor, DZone (seeds 001, 003)",
		Doc:    fmt.Sprintf("recipes of %d ingredients each, with a unit enum", ingredientsPerRecipe),
		Counts: []int{1},
		New:    func() proto.Message { return new(pb.RecipeList) }, generate: genRecipes, length: func(m proto.Message) int { return len(m.(*pb.RecipeList).Recipes) },
	},
	{
		Name: "text", Unit: "characters", Source: "five-technology study (seed 002)",
		Doc:    "one string of N ASCII characters of lorem text",
		Counts: []int{10, 1_000, 100_000, 1_000_000},
		New:    func() proto.Message { return new(pb.Text) }, generate: genText, length: func(m proto.Message) int { return len(m.(*pb.Text).Text) },
		shape: linear,
	},
	{
		Name: "alltypes", Unit: "properties", Source: "five-technology study (seed 002)",
		Doc:    fmt.Sprintf("records of %d scalar properties (text, bool, byte, date-time, decimal, float, int, short, long); N properties in all", propertiesPerRecord),
		Counts: []int{10, 100, 1_000, 10_000},
		New:    func() proto.Message { return new(pb.AllTypesList) }, generate: genAllTypes, length: allTypesLen,
		unitsPerItem: propertiesPerRecord,
	},
	{
		Name: "int", Unit: "int32", Source: "REST-vs-gRPC study (seed 004)",
		Doc:    "one int32, 2147483647; the count must be 1",
		Counts: []int{1}, MaxCount: 1,
		New: func() proto.Message { return new(pb.Int) }, generate: genInt, length: func(m proto.Message) int { return min(1, int(m.(*pb.Int).Value)) },
		shape: exact,
	},
	{
		Name: "ints", Unit: "int32s", Source: "REST-vs-gRPC study (seed 004)",
		Doc:    "an int32 array 0..N-1",
		Counts: []int{10_000},
		New:    func() proto.Message { return new(pb.Ints) }, generate: genInts, length: func(m proto.Message) int { return len(m.(*pb.Ints).Values) },
		shape: counting,
	},
	{
		Name: "textfile", Unit: "bytes", Source: "REST-vs-gRPC study (seed 004)",
		Doc:    "a text file of N bytes (lines of lorem text) carried as bytes",
		Counts: []int{455 * 1024},
		New:    func() proto.Message { return new(pb.Blob) }, generate: genTextFile, length: blobLen,
		shape: linear,
	},
	{
		Name: "blob", Unit: "bytes", Source: "REST-vs-gRPC study (seed 004)",
		Doc:    "N bytes of PDF-like binary file content (PDF syntax around incompressible streams)",
		Counts: []int{3_400 * 1024},
		New:    func() proto.Message { return new(pb.Blob) }, generate: genBlob, length: blobLen,
		shape: linear,
	},
}

// Models returns every payload model, in report order.
func Models() []Model { return slices.Clone(models) }

// Names returns the model names, in report order.
func Names() []string {
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = m.Name
	}
	return names
}

// Lookup returns the model called name, or an error listing the known ones.
func Lookup(name string) (Model, error) {
	for _, m := range models {
		if m.Name == name {
			return m, nil
		}
	}
	if m, ok := lookupRegistered(name); ok {
		return m, nil
	}
	return Model{}, fmt.Errorf("unknown payload model %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Generate makes count items of the named model for seed.
func Generate(name string, count int, seed uint64) (proto.Message, error) {
	m, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return m.Message(count, seed)
}

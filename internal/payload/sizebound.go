package payload

import (
	"fmt"
	"math"
	"sort"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// shape says how a model's encoded size grows with its count: what an upper
// bound on it is computed from.
type shape int

const (
	// drawn: a list of items drawn independently from the generator. Every
	// item is bounded by the widest of a sample drawn over several seeds.
	drawn shape = iota
	// counting: a list whose i-th item is the number i (ints). An item's
	// width grows with its value, so the first items say nothing of the last.
	counting
	// linear: count bytes or characters in one field. The size is an affine
	// function of the count, up to length prefixes and base64 padding.
	linear
	// exact: a model of at most a few items whose size does not depend on
	// the seed (int); every count is encoded.
	exact
)

// Marshal encodes a message: a codec's Marshal.
type Marshal = func(proto.Message) ([]byte, error)

// SizeBound is an upper bound on the encoded size of a model's messages in
// one codec, as a function of the count, measured once (a few milliseconds;
// a payment's JSON, 16) so that a caller checking many counts, a node on
// every get, pays arithmetic. It holds for any seed: items are sampled
// over several seeds; each is charged at most the widest sampled item, and
// many of them at most their mean with a margin of several standard
// deviations (manyItems); every item its share of the list's framing
// (separators, Avro's block headers); the message a fixed slack for length
// prefixes and array headers that widen with the count. It is tightest for
// large counts (about 1 % over at 300 000 users), loosest for a few items
// or characters (tested: at most 4 times the encoded size from 64 items
// on, for every model and codec; 1.6 at most seen).
type SizeBound struct {
	model string
	// fixed is charged once whatever the count: the empty message and slack.
	fixed float64
	// steps charge each item (of unitsPerItem units) by its index.
	steps        []sizeStep
	unitsPerItem int
	// sizes are the encoded sizes by count of an exact model.
	sizes []int64
	// many bounds a drawn model's many items by their mean (0: unused).
	many manyItems
}

// manyItems bounds the sum of many independently drawn items more tightly
// than the widest item times their number: by the sample's mean marginal
// size raised by 4 standard errors (the sample is 256 items), plus 6
// standard deviations of the sum. At 300 000 users, the thesis's largest
// count, that is 1.3 % over the encoded size where the widest item is 18 %.
type manyItems struct {
	mean, sd float64
}

func (m manyItems) size(items int64) float64 {
	if m.mean == 0 {
		return math.Inf(1)
	}
	n := float64(items)
	return n*m.mean + 6*m.sd*math.Sqrt(n)
}

// sizeStep charges every item of index below before (and at or above the
// previous step's) at most per bytes.
type sizeStep struct {
	before int64
	per    float64
}

// boundSlack covers the bytes a sample does not show: length prefixes and
// array headers that widen with the count (a varint, MessagePack's and
// CBOR's array headers: at most 8 more bytes each) and base64's padding.
const boundSlack = 32

// boundSeeds and boundSample are how many seeds and items per seed a drawn
// model's widest item is sampled from.
const (
	boundSeeds  = 4
	boundSample = 64
)

// Size is the upper bound on the encoded size of count items.
func (b *SizeBound) Size(count int) int64 {
	if count <= 0 {
		count = 0
	}
	if b.sizes != nil {
		return b.sizes[min(count, len(b.sizes)-1)]
	}
	items := (int64(count) + int64(b.unitsPerItem) - 1) / int64(b.unitsPerItem)
	total, from := b.fixed, int64(0)
	for _, s := range b.steps {
		if from >= items {
			break
		}
		n := min(items, s.before) - from
		total += float64(n) * s.per
		from = min(items, s.before)
	}
	total = min(total, b.fixed+b.many.size(items))
	if total >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(math.Ceil(total))
}

// SizeBound measures the model's size bound with marshal.
func (m Model) SizeBound(marshal Marshal) (*SizeBound, error) {
	b := &SizeBound{model: m.Name, unitsPerItem: max(m.unitsPerItem, 1)}
	var err error
	switch m.shape {
	case exact:
		err = m.boundExact(b, marshal)
	case linear:
		err = m.boundLinear(b, marshal)
	case counting:
		err = m.boundCounting(b, marshal)
	default:
		err = m.boundDrawn(b, marshal)
	}
	if err != nil {
		return nil, fmt.Errorf("payload %s: bounding its encoded size: %w", m.Name, err)
	}
	return b, nil
}

func size(marshal Marshal, msg proto.Message) (float64, error) {
	b, err := marshal(msg)
	return float64(len(b)), err
}

func (m Model) boundExact(b *SizeBound, marshal Marshal) error {
	for count := range m.MaxCount + 1 {
		s, err := size(marshal, m.generate(newGen(DefaultSeed), count))
		if err != nil {
			return err
		}
		b.sizes = append(b.sizes, int64(s)+boundSlack)
	}
	return nil
}

// boundLinear fits the size through two counts large enough that every
// byte of the content's structure repeats (a multiple of 3 for base64, of
// the blob's 4 KiB streams): the content's bytes do not depend on the seed,
// only their values do, and no codec here escapes the generated text.
func (m Model) boundLinear(b *SizeBound, marshal Marshal) error {
	const k = 3 * 4096
	s1, err := size(marshal, m.generate(newGen(DefaultSeed), k))
	if err != nil {
		return err
	}
	s2, err := size(marshal, m.generate(newGen(DefaultSeed), 2*k))
	if err != nil {
		return err
	}
	per := (s2 - s1) / k
	b.fixed = max(0, s1-per*k) + boundSlack
	b.steps = []sizeStep{{before: math.MaxInt64, per: per}}
	return nil
}

// boundDrawn charges every item the widest marginal size in a sample of
// items drawn over several seeds, plus the list's framing per item.
func (m Model) boundDrawn(b *SizeBound, marshal Marshal) error {
	var items []protoreflect.Value
	for seed := range uint64(boundSeeds) {
		msg := m.generate(newGen(DefaultSeed+seed), boundSample*b.unitsPerItem).ProtoReflect()
		list := msg.Get(listField(msg)).List()
		for i := range list.Len() {
			items = append(items, list.Get(i))
		}
	}
	ib, err := m.itemBound(marshal, items)
	b.fixed, b.steps = ib.fixed, []sizeStep{{before: math.MaxInt64, per: ib.widest + ib.framing}}
	b.many = manyItems{mean: ib.mean + 4*ib.sd/math.Sqrt(float64(len(items))) + ib.framing, sd: ib.sd}
	return err
}

// boundCounting charges the items of each range of indices the marginal
// size of the range's last value: every codec here writes a non-negative
// integer at most as wide as a larger one, and the ranges end at powers of
// 2 and of 10, where varints, fixed-width headers and decimal digits widen.
// Indices past int32's range wrap to negative values: charged the widest.
func (m Model) boundCounting(b *SizeBound, marshal Marshal) error {
	ends := []int64{math.MaxInt32 + 1}
	for p := int64(2); p <= math.MaxInt32; p *= 2 {
		ends = append(ends, p)
	}
	for p := int64(10); p <= math.MaxInt32; p *= 10 {
		ends = append(ends, p)
	}
	sort.Slice(ends, func(i, j int) bool { return ends[i] < ends[j] })
	ends = append(ends, math.MaxInt64)
	for _, e := range ends {
		v := int32(math.MinInt32) // past int32's range
		if e <= math.MaxInt32+1 {
			v = int32(e - 1)
		}
		ib, err := m.itemBound(marshal, []protoreflect.Value{protoreflect.ValueOfInt32(v)})
		if err != nil {
			return err
		}
		b.fixed = max(b.fixed, ib.fixed)
		b.steps = append(b.steps, sizeStep{before: e, per: ib.widest + ib.framing})
	}
	return nil
}

// framingCopies is how many copies of an item measure a list's framing per
// item: past two of Avro's blocks of 100 items, whose headers are the only
// framing no pair of items shows.
const framingCopies = 201

// itemSizes are what a sample of items adds to a list of the model: their
// marginal sizes (after a first item, separator included) at most, on
// average and their standard deviation; the list's framing per item; and
// the fixed bytes, the empty list and the slack.
type itemSizes struct {
	widest, mean, sd, framing, fixed float64
}

func (m Model) itemBound(marshal Marshal, items []protoreflect.Value) (ib itemSizes, err error) {
	sizeOf := func(vs ...protoreflect.Value) float64 {
		if err != nil {
			return 0
		}
		msg := m.New().ProtoReflect()
		list := msg.Mutable(listField(msg)).List()
		for _, v := range vs {
			list.Append(v)
		}
		var s float64
		s, err = size(marshal, msg.Interface())
		return s
	}
	first := items[0]
	one := sizeOf(first)
	widest := first
	var sum, sumSq float64
	for _, v := range items {
		marginal := sizeOf(first, v) - one
		if marginal > ib.widest {
			widest, ib.widest = v, marginal
		}
		sum, sumSq = sum+marginal, sumSq+marginal*marginal
	}
	n := float64(len(items))
	ib.mean = sum / n
	ib.sd = math.Sqrt(max(0, sumSq/n-ib.mean*ib.mean))
	copies := make([]protoreflect.Value, framingCopies)
	for i := range copies {
		copies[i] = widest
	}
	framing := (sizeOf(copies...)-sizeOf(widest))/(framingCopies-1) - ib.widest
	ib.framing = max(framing, 0)
	ib.fixed = sizeOf() + boundSlack
	return ib, err
}

// listField is the one repeated field a list model's message holds.
func listField(msg protoreflect.Message) protoreflect.FieldDescriptor {
	return msg.Descriptor().Fields().Get(0)
}

package payload

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"google.golang.org/protobuf/proto"
)

// Dynamic describes a model made at run time, such as a list of a user's
// own message type (internal/userschema): its list message's first field
// is the repeated field of its items, as the built-in lists'.
type Dynamic struct {
	Name, Unit, Doc, Source string
	// New returns an empty list, to decode into.
	New func() proto.Message
	// Generate makes the list of count items, drawing from r only.
	Generate func(r *rand.Rand, count int) proto.Message
	// MaxCount bounds the count (0: no bound but memory).
	MaxCount int
	// Counts are the default counts.
	Counts []int
}

// FromDynamic is the model d describes. Its items are drawn independently,
// so SizeBound bounds them as it bounds the built-in lists'.
func FromDynamic(d Dynamic) Model {
	return Model{
		Name: d.Name, Unit: d.Unit, Doc: d.Doc, Source: d.Source, MaxCount: d.MaxCount, Counts: d.Counts,
		New:      d.New,
		generate: func(g *gen, count int) proto.Message { return d.Generate(g.r, count) },
		length: func(m proto.Message) int {
			r := m.ProtoReflect()
			return r.Get(listField(r)).List().Len()
		},
		shape: drawn,
	}
}

// registered are the models a process added at run time (Register), after
// the built-in ones in Lookup's order.
var registered struct {
	sync.RWMutex
	models []Model
}

// Register adds a model made at run time, so that Lookup finds it by name
// in this process: a node or a generator of a user's messages registers
// them once, before it serves or sends. A name a built-in model has is
// refused; registering a name again replaces the earlier model.
func Register(m Model) error {
	if slices.Contains(Names(), m.Name) {
		return fmt.Errorf("payload %q: a built-in model has this name; name the message differently", m.Name)
	}
	registered.Lock()
	defer registered.Unlock()
	registered.models = slices.DeleteFunc(registered.models, func(o Model) bool { return o.Name == m.Name })
	registered.models = append(registered.models, m)
	return nil
}

func lookupRegistered(name string) (Model, bool) {
	registered.RLock()
	defer registered.RUnlock()
	for _, m := range registered.models {
		if m.Name == name {
			return m, true
		}
	}
	return Model{}, false
}

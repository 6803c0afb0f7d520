package evolution

import (
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Change is one way v2 differs from v1 (schema/hopbench/v2/payload.proto
// marks each), and the field of a model where it shows.
type Change struct {
	Name  string
	Model string
	// Field is the changed field's path in v1 and in v2 ("users.username",
	// "users.handle"), through lists to every item; "" where a version
	// lacks it.
	Field [2]string
	// Sent, where set, is the value a sender of that version gives the
	// field in every item, in place of the generator's: one only the new
	// schema can carry (an age beyond int32, the added enum value), or one
	// for a field the generator does not fill.
	Sent map[Version]protoreflect.Value
	// Doc says what the change is, for tables.
	Doc string
}

// Changes are the changes v2 makes, in the order the issue of schema
// evolution names them.
var Changes = []Change{
	{Name: "field-added", Model: "user", Field: [2]string{"", "users.locale"},
		Sent: map[Version]protoreflect.Value{V2: protoreflect.ValueOfString("sv-SE")},
		Doc:  "User.locale (6) added in v2"},
	{Name: "field-removed", Model: "user", Field: [2]string{"users.profile_picture_url", ""},
		Doc: "User.profile_picture_url (4) removed in v2, its number and name reserved"},
	{Name: "field-renamed", Model: "user", Field: [2]string{"users.username", "users.handle"},
		Doc: "User.username (3) renamed handle in v2, same number"},
	{Name: "scalar-widened", Model: "user", Field: [2]string{"users.age", "users.age"},
		Sent: map[Version]protoreflect.Value{V2: protoreflect.ValueOfInt64(3_000_000_000)},
		Doc:  "User.age (5) int32 in v1, int64 in v2; v2 sends 3 000 000 000, beyond int32"},
	{Name: "enum-value-added", Model: "recipe", Field: [2]string{"recipes.ingredients.type", "recipes.ingredients.type"},
		Sent: map[Version]protoreflect.Value{V2: protoreflect.ValueOfEnum(9)},
		Doc:  "UnitType LITRE (9) added in v2; v2 sends it"},
	{Name: "nested-field-added", Model: "payment", Field: [2]string{"", "payments.transactions.item_list.shipping_address.delivery_notes"},
		Sent: map[Version]protoreflect.Value{V2: protoreflect.ValueOfString("ring twice")},
		Doc:  "ShippingAddress.delivery_notes (9) added in v2, three messages deep"},
}

// LookupChange finds a change by name.
func LookupChange(name string) (Change, bool) {
	for _, c := range Changes {
		if c.Name == name {
			return c, true
		}
	}
	return Change{}, false
}

// added says whether the change adds a field in v: one v has and v1 lacks.
func (c Change) added(v Version) bool { return c.field(v) != "" && c.Field[V1.index()] == "" }

// field is the change's field path in version v; "" where v lacks it.
func (c Change) field(v Version) string { return c.Field[v.index()] }

// leaves calls f with the message holding the last field of path and that
// field, for every item the lists on the way hold.
func leaves(m protoreflect.Message, path string, f func(protoreflect.Message, protoreflect.FieldDescriptor)) {
	name, rest, deeper := strings.Cut(path, ".")
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		return
	}
	if !deeper {
		f(m, fd)
		return
	}
	switch {
	case fd.IsList():
		l := m.Get(fd).List()
		for i := range l.Len() {
			leaves(l.Get(i).Message(), rest, f)
		}
	case fd.Message() != nil && m.Has(fd):
		leaves(m.Get(fd).Message(), rest, f)
	}
}

// set gives the field at path value v in every item.
func set(m protoreflect.Message, path string, v protoreflect.Value) {
	leaves(m, path, func(m protoreflect.Message, fd protoreflect.FieldDescriptor) { m.Set(fd, v) })
}

// value is a field's value in one item, and whether the item has it set
// (proto3 does not tell a zero from absent: a zero is unset).
type value struct {
	v   protoreflect.Value
	set bool
}

// values are the field's values at path, item by item.
func values(m protoreflect.Message, path string) []value {
	var out []value
	leaves(m, path, func(m protoreflect.Message, fd protoreflect.FieldDescriptor) {
		out = append(out, value{m.Get(fd), m.Has(fd)})
	})
	return out
}

// clearField clears the field at path in every item.
func clearField(m protoreflect.Message, path string) {
	leaves(m, path, func(m protoreflect.Message, fd protoreflect.FieldDescriptor) { m.Clear(fd) })
}

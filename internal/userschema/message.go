package userschema

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Message finds the message type called name (its full name, or a name
// only one message has) in the named files and the files they import
// (Google's well-known types aside), and checks that every codec can
// carry it.
func (s *Schema) Message(name string) (protoreflect.MessageDescriptor, error) {
	var all []protoreflect.MessageDescriptor
	s.Registry.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		if !strings.HasPrefix(f.Path(), "google/protobuf/") {
			all = appendMessages(all, f.Messages())
		}
		return true
	})
	var found []protoreflect.MessageDescriptor
	for _, md := range all {
		if string(md.FullName()) == name {
			return md, Supported(md)
		}
		if string(md.Name()) == name {
			found = append(found, md)
		}
	}
	switch len(found) {
	case 1:
		return found[0], Supported(found[0])
	case 0:
		return nil, fmt.Errorf("no message %q in %s; they define: %s", name, s.fileNames(), messageList(all))
	}
	return nil, fmt.Errorf("message %q is ambiguous: %s; give its full name", name, messageList(found))
}

func appendMessages(to []protoreflect.MessageDescriptor, mds protoreflect.MessageDescriptors) []protoreflect.MessageDescriptor {
	for i := range mds.Len() {
		md := mds.Get(i)
		if md.IsMapEntry() {
			continue
		}
		to = appendMessages(append(to, md), md.Messages())
	}
	return to
}

func (s *Schema) fileNames() string {
	names := make([]string, len(s.Files))
	for i, f := range s.Files {
		names[i] = f.Path()
	}
	return strings.Join(names, ", ")
}

// messageList names messages, at most 20 of them.
func messageList(mds []protoreflect.MessageDescriptor) string {
	if len(mds) == 0 {
		return "no message"
	}
	names := make([]string, 0, len(mds))
	for _, md := range mds {
		names = append(names, string(md.FullName()))
	}
	slices.Sort(names)
	if len(names) > 20 {
		return strings.Join(names[:20], ", ") + fmt.Sprintf(" and %d more", len(names)-20)
	}
	return strings.Join(names, ", ")
}

// Supported refuses, by name, what hopbench cannot generate and carry in
// every codec: google.protobuf.Any (a value of any type, which only a
// reader holding that type's schema can read) and proto2 groups.
func Supported(md protoreflect.MessageDescriptor) error {
	return supported(md, map[protoreflect.FullName]bool{})
}

func supported(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) error {
	if seen[md.FullName()] {
		return nil
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Kind() == protoreflect.GroupKind {
			return fmt.Errorf("field %s is a proto2 group, which hopbench does not carry: make it a message field", fd.FullName())
		}
		sub := fd.Message()
		if fd.IsMap() {
			sub = fd.MapValue().Message()
		}
		if sub == nil {
			continue
		}
		if sub.FullName() == "google.protobuf.Any" {
			return fmt.Errorf("field %s is google.protobuf.Any, which hopbench refuses: a value of any type can be read only by a reader that holds its type's schema, which JSON, MessagePack, CBOR and Avro peers do not; use the message type it carries", fd.FullName())
		}
		if err := supported(sub, seen); err != nil {
			return err
		}
	}
	return nil
}

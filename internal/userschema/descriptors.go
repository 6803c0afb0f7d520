package userschema

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// DescriptorSet is every file the list of p's message reaches, its own
// file last and each file after the files it imports: what a node on
// another runtime builds the message from (the JVM node's --descriptors),
// as protoc --include_imports writes it.
func (p *Payload) DescriptorSet() *descriptorpb.FileDescriptorSet {
	set := new(descriptorpb.FileDescriptorSet)
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	add(p.List.ParentFile())
	return set
}

// Fingerprint tells apart two payloads that would generate different
// messages: their files, their message, and their fill or samples.
func (p *Payload) Fingerprint() [sha256.Size]byte {
	h := sha256.New()
	det := proto.MarshalOptions{Deterministic: true}
	write := func(m proto.Message) {
		b, err := det.Marshal(m)
		if err != nil {
			panic(fmt.Sprintf("userschema: a compiled message does not marshal: %v", err))
		}
		fmt.Fprintf(h, "%d:", len(b))
		h.Write(b)
	}
	write(p.DescriptorSet())
	fmt.Fprintf(h, "%s;", p.Message.FullName())
	fill, err := json.Marshal(p.fill)
	if err != nil {
		panic(fmt.Sprintf("userschema: a fill does not marshal: %v", err))
	}
	h.Write(fill)
	for _, s := range p.samples {
		write(s)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

package jvm

import (
	"bufio"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/userschema"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// Get is one get reply a node is asked for: count items of a model.
type Get struct {
	Model string
	Count int
}

// WriteSeeds writes to path the replies to gets, generated from seed as
// the Go node generates them, for a JVM node's --seeds: a stream of
// delimited Seed messages (schema/hopbench/v1/seeds.proto), each with the
// message as Protobuf and as the Go node's JSON. Nobody ports the
// generator, and both runtimes answer with the same data.
func WriteSeeds(path string, gets []Get, seed uint64) error {
	js, err := codec.Lookup("json")
	if err != nil {
		return err
	}
	// Written whole or not at all: a node reading it never sees half.
	return results.WriteFileAtomic(path, func(out io.Writer) error {
		w := bufio.NewWriter(out)
		seen := map[Get]bool{}
		for _, g := range gets {
			if seen[g] {
				continue
			}
			seen[g] = true
			s, err := seedOf(g, seed, js)
			if err != nil {
				return err
			}
			if _, err := protodelim.MarshalTo(w, s); err != nil {
				return fmt.Errorf("writing seeds to %s: %w", path, err)
			}
		}
		return w.Flush()
	})
}

func seedOf(g Get, seed uint64, js codec.Codec) (*pb.Seed, error) {
	m, err := payload.Lookup(g.Model)
	if err != nil {
		return nil, err
	}
	msg, err := m.Message(g.Count, seed)
	if err != nil {
		return nil, err
	}
	body, err := js.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("seeds: %s×%d as JSON: %w", g.Model, g.Count, err)
	}
	s := &pb.Seed{Model: g.Model, Count: int64(g.Count), Seed: seed, Json: body}
	if _, ok := userschema.Used(g.Model); ok {
		// A user's list has no Payload field: it travels bare, as the
		// JVM node builds it from --descriptors.
		if s.Items, err = (proto.MarshalOptions{Deterministic: true}).Marshal(msg); err != nil {
			return nil, fmt.Errorf("seeds: %s×%d as Protobuf: %w", g.Model, g.Count, err)
		}
		return s, nil
	}
	s.Payload = new(pb.Payload)
	fd := s.Payload.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(g.Model))
	if fd == nil {
		return nil, fmt.Errorf("seeds: no Payload field for model %q", g.Model)
	}
	s.Payload.ProtoReflect().Set(fd, protoreflect.ValueOfMessage(proto.Clone(msg).ProtoReflect()))
	return s, nil
}

// WriteDescriptors writes to path the descriptor set a JVM node builds a
// user's message from (its --descriptors): every file the message's list
// reaches, as protoc --include_imports writes them.
func WriteDescriptors(path string, p *userschema.Payload) error {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(p.DescriptorSet())
	if err != nil {
		return fmt.Errorf("descriptors of %s: %w", p.Message.FullName(), err)
	}
	return results.WriteFileAtomic(path, func(out io.Writer) error {
		_, err := out.Write(b)
		return err
	})
}

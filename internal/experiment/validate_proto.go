package experiment

import (
	"context"
	"fmt"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
)

// A user's message in a spec: compiled and registered as the payload's
// model, its version 2 paired with it, and the stacks that carry it.

// payloadModel is payload i's model: a built-in one by name, or the user's
// message its proto names, compiled, registered in this process and named
// in the payload from now on (its paths made absolute, so that nodes
// started anywhere find the files).
func (s *Spec) payloadModel(i int) (payload.Model, error) {
	p := &s.Payloads[i]
	if p.Proto == nil {
		return payload.Lookup(p.Model)
	}
	if p.Model != "" && p.Model != p.Proto.Message {
		if m, err := payload.Lookup(p.Model); err != nil || m.Source != userschema.SourceName {
			return payload.Model{}, fmt.Errorf("give model or proto, not both: a proto payload is named after its message")
		}
	}
	src, err := userschema.Absolute(*p.Proto)
	if err != nil {
		return payload.Model{}, err
	}
	m, err := userschema.Use(context.Background(), src)
	if err != nil {
		return payload.Model{}, err
	}
	p.Proto, p.Model = &src, m.Name
	if p.ProtoV2 != nil {
		if err := usePair(m.Name, p); err != nil {
			return m, err
		}
	}
	return m, nil
}

// usePair registers the pair of versions of payload p's message, its
// version 2's paths made absolute.
func usePair(model string, p *PayloadSpec) error {
	abs, err := userschema.Absolute(userschema.Source{Files: p.ProtoV2.Files, ImportPaths: p.ProtoV2.ImportPaths})
	if err != nil {
		return err
	}
	files := userschema.Files{Files: abs.Files, ImportPaths: abs.ImportPaths}
	pair, err := userschema.UsedPair(context.Background(), model, files)
	if err != nil {
		return fmt.Errorf("proto_v2: %w", err)
	}
	evolution.RegisterPair(pair)
	p.ProtoV2 = &files
	return nil
}

// CarriesProto says whether stack carries a user's message, model (one
// userschema registered), and why not: every technology does, but not in
// json-fast, which needs Go structs.
func CarriesProto(stack string, model payload.Model) error {
	st, err := transport.ParseStack(stack)
	if err != nil {
		return err
	}
	if err := codecbench.Carries(st.Codec, model); err != nil {
		return fmt.Errorf("stack %s: %w", stack, err)
	}
	return nil
}

// validateProtoCarriers refuses what does not carry a user's message yet:
// json-fast stacks, version 2 on hosts of their own, schema trials without
// version 2.
func (s *Spec) validateProtoCarriers(bad func(string, string, ...any), at string, m payload.Model, hasV2 bool) {
	for _, name := range s.Stacks {
		if _, ok := s.stacks[name]; !ok {
			continue // refused at the stack, once
		}
		if err := CarriesProto(name, m); err != nil {
			bad(at+".proto", "%v: leave it out of this experiment", err)
		}
	}
	switch {
	case len(s.Hosts) > 0 && hasV2:
		bad(at+".proto_v2", "hosts of their own do not take your message's version 2 yet: try the change on this machine")
	case len(s.Schemas) > 0 && !hasV2:
		bad(at+".proto_v2", "schemas try a change between two versions: give your message's version 2 (proto_v2: {files, import_paths}), or leave schemas out")
	}
}

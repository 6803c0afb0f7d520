package userschema

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/hopbench/hopbench/internal/payload"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// Source is a user's message as a spec or a command line names it: the
// .proto files, the message type, and how messages of it are made: from
// Fill's hints, or cycled from Samples, a file of JSON lines in the proto
// JSON mapping.
type Source struct {
	Files       []string `json:"files" yaml:"files" jsonschema:"required"`
	ImportPaths []string `json:"import_paths,omitempty" yaml:"import_paths"`
	Message     string   `json:"message" yaml:"message" jsonschema:"required"`
	Fill        *Fill    `json:"fill,omitempty" yaml:"fill"`
	Samples     string   `json:"samples,omitempty" yaml:"samples"`
}

// Files are .proto files and where their imports are found: a message's
// version 2, which names no message of its own.
type Files struct {
	Files       []string `json:"files" yaml:"files" jsonschema:"required"`
	ImportPaths []string `json:"import_paths,omitempty" yaml:"import_paths"`
}

// SourceName is the Source of every model made from a user's .proto.
const SourceName = "your .proto"

// Absolute is src with its files, import paths and samples made absolute
// (relative to the working directory), for processes started elsewhere.
func Absolute(src Source) (Source, error) {
	abs := func(paths []string) ([]string, error) {
		out := make([]string, len(paths))
		for i, p := range paths {
			a, err := filepath.Abs(p)
			if err != nil {
				return nil, err
			}
			out[i] = a
		}
		return out, nil
	}
	var err error
	if src.Files, err = abs(src.Files); err != nil {
		return src, err
	}
	if src.ImportPaths, err = abs(src.ImportPaths); err != nil {
		return src, err
	}
	if src.Samples != "" {
		src.Samples, err = filepath.Abs(src.Samples)
	}
	return src, err
}

// Bounds on a samples file.
const (
	MaxSamplesBytes = 256 << 20
	MaxSampleLine   = 64 << 20
)

// Payload is a user's message type ready to generate: the type, the list
// of it a payload of count items is, and how items are made.
type Payload struct {
	Schema  *Schema
	Message protoreflect.MessageDescriptor
	// List is hopbench.user.NameList { repeated Name items = 1; }.
	List protoreflect.MessageDescriptor
	// Service is hopbench.user.NameService, gRPC's for the list: Get
	// (hopbench.v1.GetRequest) returns NameList, Post(NameList) returns
	// hopbench.v1.Ack, Echo(NameList) returns NameList.
	Service protoreflect.ServiceDescriptor
	fill    Fill
	samples []proto.Message
	// samplesPath is the samples' file ("": none), for Bundle.
	samplesPath string
}

// Load compiles src's files, finds its message and checks its fill or
// reads its samples.
func Load(ctx context.Context, src Source) (*Payload, error) {
	s, err := Compile(ctx, src.Files, src.ImportPaths)
	if err != nil {
		return nil, err
	}
	md, err := s.Message(src.Message)
	if err != nil {
		return nil, err
	}
	list, err := listOf(md, s)
	if err != nil {
		return nil, err
	}
	p := &Payload{Schema: s, Message: md, List: list, Service: list.ParentFile().Services().Get(0), fill: DefaultFill()}
	if src.Fill != nil {
		p.fill = *src.Fill
	}
	if src.Samples != "" {
		p.samplesPath = src.Samples
		if src.Fill != nil {
			return nil, errors.New("a payload from a .proto takes fill hints or samples, not both: samples are sent as they are")
		}
		p.samples, err = readSamples(src.Samples, md, s)
		return p, err
	}
	return p, p.fill.Check(md)
}

// listOf builds the list message of md and its gRPC service, in a file of
// their own that imports md's and hopbench's service.proto.
func listOf(md protoreflect.MessageDescriptor, s *Schema) (protoreflect.MessageDescriptor, error) {
	name := string(md.Name()) + "List"
	method := func(name, in, out string) *descriptorpb.MethodDescriptorProto {
		return &descriptorpb.MethodDescriptorProto{Name: proto.String(name), InputType: proto.String(in), OutputType: proto.String(out)}
	}
	list := ".hopbench.user." + name
	feed := method("Feed", ".hopbench.v1.FeedRequest", list)
	feed.ServerStreaming = proto.Bool(true)
	fdp := &descriptorpb.FileDescriptorProto{
		Name:       proto.String("hopbench/user/" + string(md.FullName()) + ".list.proto"),
		Package:    proto.String("hopbench.user"),
		Syntax:     proto.String("proto3"),
		Dependency: []string{md.ParentFile().Path(), pb.File_hopbench_v1_service_proto.Path()},
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String(name),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("items"), JsonName: proto.String("items"), Number: proto.Int32(1),
				Label:    descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum(),
				Type:     descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
				TypeName: proto.String("." + string(md.FullName())),
			}},
		}},
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String(string(md.Name()) + "Service"),
			Method: []*descriptorpb.MethodDescriptorProto{
				method("Get", ".hopbench.v1.GetRequest", list),
				method("Post", list, ".hopbench.v1.Ack"),
				method("Echo", list, list),
				feed,
			},
		}},
	}
	fd, err := protodesc.NewFile(fdp, resolvers{s.Registry, protoregistry.GlobalFiles})
	if err != nil {
		return nil, fmt.Errorf("making the list of %s: %w", md.FullName(), err)
	}
	return fd.Messages().Get(0), nil
}

// readSamples reads one message of md a line, in the proto JSON mapping;
// blank lines are skipped.
func readSamples(path string, md protoreflect.MessageDescriptor, s *Schema) ([]proto.Message, error) {
	f, err := openFile(path, MaxSamplesBytes, "a samples file")
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, MaxSampleLine)
	opts := protojson.UnmarshalOptions{Resolver: dynamicpb.NewTypes(s.Registry)}
	var out []proto.Message
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		m := dynamicpb.NewMessage(md)
		if err := opts.Unmarshal([]byte(text), m); err != nil {
			return nil, fmt.Errorf("samples %s:%d: not a %s in the proto JSON mapping: %w", path, line, md.FullName(), err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("samples %s: %w (a line may have at most %d bytes)", path, err, MaxSampleLine)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("samples %s: no message in it (one a line, in the proto JSON mapping)", path)
	}
	return out, nil
}

// Generate is the list of count items drawn from r: from the fill, or
// the samples in turn from one drawn (the list holds the samples
// themselves, not copies).
func (p *Payload) Generate(r *rand.Rand, count int) proto.Message {
	list := dynamicpb.NewMessage(p.List)
	items := list.Mutable(p.List.Fields().Get(0)).List()
	g := &filler{f: p.fill, r: r}
	start := 0
	if len(p.samples) > 0 {
		start = r.IntN(len(p.samples))
	}
	for i := range count {
		if len(p.samples) > 0 {
			items.Append(protoreflect.ValueOfMessage(p.samples[(start+i)%len(p.samples)].ProtoReflect()))
			continue
		}
		items.Append(protoreflect.ValueOfMessage(g.message(p.Message, 1)))
	}
	return list
}

// Use loads src and registers its model in this process (payload.Register),
// so that every codec, node and generator here finds it by name; it
// returns the model.
func Use(ctx context.Context, src Source) (payload.Model, error) {
	p, err := Load(ctx, src)
	if err != nil {
		return payload.Model{}, err
	}
	m := p.Model()
	if err := payload.Register(m); err != nil {
		return m, err
	}
	used.Lock()
	defer used.Unlock()
	used.byModel[m.Name] = p
	return m, nil
}

// used are the payloads Use registered in this process, by model name.
var used = struct {
	sync.Mutex
	byModel map[string]*Payload
}{byModel: map[string]*Payload{}}

// Used is the payload Use registered for the model called name.
func Used(name string) (*Payload, bool) {
	used.Lock()
	defer used.Unlock()
	p, ok := used.byModel[name]
	return p, ok
}

// AllUsed are the payloads Use registered in this process, by model name.
func AllUsed() []*Payload {
	used.Lock()
	defer used.Unlock()
	names := slices.Sorted(maps.Keys(used.byModel))
	out := make([]*Payload, len(names))
	for i, n := range names {
		out[i] = used.byModel[n]
	}
	return out
}

// Resolver resolves the files of every payload Use registered and their
// services, then hopbench's and Google's: what gRPC's reflection serves.
func Resolver() protodesc.Resolver {
	var r resolvers
	for _, p := range AllUsed() {
		r = append(r, p.Schema.Registry, fileOf(p.List.ParentFile()))
	}
	return append(r, protoregistry.GlobalFiles)
}

func fileOf(fd protoreflect.FileDescriptor) *protoregistry.Files {
	f := new(protoregistry.Files)
	f.RegisterFile(fd) // a new registry takes any one file
	return f
}

// resolvers resolve in each in turn.
type resolvers []*protoregistry.Files

func (r resolvers) FindFileByPath(path string) (protoreflect.FileDescriptor, error) {
	for _, f := range r {
		if fd, err := f.FindFileByPath(path); err == nil {
			return fd, nil
		}
	}
	return nil, protoregistry.NotFound
}

func (r resolvers) FindDescriptorByName(name protoreflect.FullName) (protoreflect.Descriptor, error) {
	for _, f := range r {
		if d, err := f.FindDescriptorByName(name); err == nil {
			return d, nil
		}
	}
	return nil, protoregistry.NotFound
}

// Model is the payload model of p, named after its message's full name.
func (p *Payload) Model() payload.Model {
	how := "generated from fill hints"
	if len(p.samples) > 0 {
		how = fmt.Sprintf("cycled from %d samples", len(p.samples))
	}
	return payload.FromDynamic(payload.Dynamic{
		Name: string(p.Message.FullName()), Unit: string(p.Message.Name()) + " messages",
		Doc:      fmt.Sprintf("a list of %s (%s), %s", p.Message.FullName(), p.Message.ParentFile().Path(), how),
		Source:   SourceName,
		Counts:   []int{1, 10, 100, 1000},
		New:      func() proto.Message { return dynamicpb.NewMessage(p.List) },
		Generate: p.Generate,
	})
}

// Depth is how deep generated messages nest: the fill's depth (samples are
// as deep as they are).
func (p *Payload) Depth() int { return p.fill.Depth }

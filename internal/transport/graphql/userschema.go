package graphql

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	gql "github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/gqlerrors"
	"github.com/graphql-go/graphql/language/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// A user's message (internal/userschema) is served by a GraphQL schema of
// its own, built from its descriptor at run time with graphql-go (gqlgen
// generates its schema at build time and cannot), at POST /graphql/MODEL:
//
//	type Query    { get(count: Int!): shop_OrderList }
//	type Mutation { post(input: shop_OrderListInput!): Ack
//	                echo(input: shop_OrderListInput!): shop_OrderList }
//
// Its types follow the proto JSON mapping, so that a body is the json
// codec's (protojson) as it is: an object and an input type per message,
// fields by their JSON names, an enum per enum. What GraphQL has no type
// for is a scalar of the mapping's own JSON: a map field (ProtoMap, the
// JSON object protojson writes), 64-bit and unsigned 32-bit integers
// (Int64, UInt64 as strings; UInt32, past GraphQL's 32-bit signed Int),
// bytes (Bytes, base64), Timestamp, Duration and FieldMask (their strings),
// Struct, Value, ListValue and Empty (JSON), and a wrapper its value's.

// userTypes builds one user schema's types, each once.
type userTypes struct {
	objects map[protoreflect.FullName]*gql.Object
	inputs  map[protoreflect.FullName]*gql.InputObject
	enums   map[protoreflect.FullName]*gql.Enum
}

// scalar passes a value of the proto JSON mapping through as it is.
func scalar(name, doc string) *gql.Scalar {
	return gql.NewScalar(gql.ScalarConfig{
		Name: name, Description: doc,
		Serialize:    func(v any) any { return v },
		ParseValue:   func(v any) any { return v },
		ParseLiteral: literal,
	})
}

// literal is an inline argument's value, for the scalars above.
func literal(v ast.Value) any {
	switch v := v.(type) {
	case *ast.StringValue:
		return v.Value
	case *ast.IntValue:
		return v.Value
	case *ast.FloatValue:
		return v.Value
	case *ast.BooleanValue:
		return v.Value
	}
	return nil
}

// The scalars every user schema shares.
var scalars = sync.OnceValue(func() map[string]*gql.Scalar {
	return map[string]*gql.Scalar{
		"ProtoMap":  scalar("ProtoMap", "A map field: the JSON object the proto JSON mapping writes (GraphQL has no map type)."),
		"Int64":     scalar("Int64", "A 64-bit integer, as a string (the proto JSON mapping's)."),
		"UInt64":    scalar("UInt64", "An unsigned 64-bit integer, as a string (the proto JSON mapping's)."),
		"UInt32":    scalar("UInt32", "An unsigned 32-bit integer, past GraphQL's 32-bit signed Int."),
		"Bytes":     scalar("Bytes", "Bytes, base64 (the proto JSON mapping's)."),
		"Timestamp": scalar("Timestamp", "A google.protobuf.Timestamp, RFC 3339."),
		"Duration":  scalar("Duration", "A google.protobuf.Duration, such as \"1.5s\"."),
		"FieldMask": scalar("FieldMask", "A google.protobuf.FieldMask, its paths comma-separated."),
		"JSON":      scalar("JSON", "A google.protobuf.Struct, Value, ListValue or Empty: any JSON."),
	}
})

// wellKnown is the scalar a well-known message is (nil: an object).
func wellKnown(md protoreflect.MessageDescriptor) gql.Type {
	s := scalars()
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		return s["Timestamp"]
	case "google.protobuf.Duration":
		return s["Duration"]
	case "google.protobuf.FieldMask":
		return s["FieldMask"]
	case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.Empty":
		return s["JSON"]
	}
	if md.ParentFile().Package() == "google.protobuf" && strings.HasSuffix(string(md.Name()), "Value") {
		if v := md.Fields().ByName("value"); v != nil {
			return scalarOf(v)
		}
	}
	return nil
}

func typeName(d protoreflect.Descriptor) string {
	return strings.ReplaceAll(string(d.FullName()), ".", "_")
}

// scalarOf is the GraphQL type of a scalar field's values.
func scalarOf(fd protoreflect.FieldDescriptor) gql.Type {
	s := scalars()
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return gql.Boolean
	case protoreflect.StringKind:
		return gql.String
	case protoreflect.BytesKind:
		return s["Bytes"]
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return gql.Float
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return gql.Int
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return s["UInt32"]
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return s["UInt64"]
	}
	return s["Int64"]
}

// fieldType is the type of fd's values, as output or as input.
func (u *userTypes) fieldType(fd protoreflect.FieldDescriptor, input bool) gql.Type {
	var t gql.Type
	switch {
	case fd.IsMap():
		return scalars()["ProtoMap"]
	case fd.Enum() != nil:
		t = u.enum(fd.Enum())
	case fd.Message() != nil:
		if t = wellKnown(fd.Message()); t == nil {
			t = u.message(fd.Message(), input)
		}
	default:
		t = scalarOf(fd)
	}
	if fd.IsList() {
		return gql.NewList(t)
	}
	return t
}

// message is md's object type, or its input type.
func (u *userTypes) message(md protoreflect.MessageDescriptor, input bool) gql.Type {
	if input {
		if in, ok := u.inputs[md.FullName()]; ok {
			return in
		}
		in := gql.NewInputObject(gql.InputObjectConfig{Name: typeName(md) + "Input", Fields: gql.InputObjectConfigFieldMapThunk(func() gql.InputObjectConfigFieldMap {
			out := gql.InputObjectConfigFieldMap{}
			fds := md.Fields()
			for i := range fds.Len() {
				out[fds.Get(i).JSONName()] = &gql.InputObjectFieldConfig{Type: u.fieldType(fds.Get(i), true).(gql.Input)}
			}
			return out
		})})
		u.inputs[md.FullName()] = in
		return in
	}
	if o, ok := u.objects[md.FullName()]; ok {
		return o
	}
	o := gql.NewObject(gql.ObjectConfig{Name: typeName(md), Fields: gql.FieldsThunk(func() gql.Fields {
		out := gql.Fields{}
		fds := md.Fields()
		for i := range fds.Len() {
			out[fds.Get(i).JSONName()] = &gql.Field{Type: u.fieldType(fds.Get(i), false).(gql.Output)}
		}
		return out
	})})
	u.objects[md.FullName()] = o
	return o
}

func (u *userTypes) enum(ed protoreflect.EnumDescriptor) *gql.Enum {
	if e, ok := u.enums[ed.FullName()]; ok {
		return e
	}
	values := gql.EnumValueConfigMap{}
	for i := range ed.Values().Len() {
		name := string(ed.Values().Get(i).Name())
		values[name] = &gql.EnumValueConfig{Value: name}
	}
	e := gql.NewEnum(gql.EnumConfig{Name: typeName(ed), Values: values})
	// graphql-go (v0.8.1) builds an enum's lookups on first use, unguarded:
	// concurrent requests raced writing them. Built here, before serving.
	first := string(ed.Values().Get(0).Name())
	e.ParseValue(first)
	e.Serialize(first)
	u.enums[ed.FullName()] = e
	return e
}

// userSelection selects every field of md to depth levels of messages: what
// a query asks of a list of it, built from the same descriptor. At the
// bottom a message field selects its __typename alone (GraphQL has no
// empty selection), so a message that contains itself keeps a present,
// empty value there (a oneof's branch set to an empty list).
func userSelection(md protoreflect.MessageDescriptor, depth int) string {
	var b strings.Builder
	b.WriteString("{")
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		b.WriteString(" " + fd.JSONName())
		switch {
		case fd.Message() == nil || fd.IsMap() || wellKnown(fd.Message()) != nil:
		case depth <= 1:
			b.WriteString(" { __typename }")
		default:
			b.WriteString(" " + userSelection(fd.Message(), depth-1))
		}
	}
	b.WriteString(" }")
	return b.String()
}

// userReply is a reply of a user's message as the proto JSON mapping reads
// it: the nulls GraphQL writes for every field selected and unset (which
// the mapping reads as a oneof set twice) and the __typename of a message
// selected at the bottom dropped, but the nulls inside a JSON value
// (Struct, Value, ListValue) kept.
func userReply(data []byte, md protoreflect.MessageDescriptor) ([]byte, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, transport.Errorf(transport.CodeInternal, "the reply's data is not JSON: %v", err)
	}
	return json.Marshal(tidy(v, md))
}

// tidy tidies v, an object of md, and the objects of its message fields.
func tidy(v any, md protoreflect.MessageDescriptor) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for k, x := range obj {
		fd := md.Fields().ByJSONName(k)
		switch {
		case x == nil || k == "__typename":
			delete(obj, k)
		case fd == nil || fd.Message() == nil || fd.IsMap() || wellKnown(fd.Message()) != nil:
		case fd.IsList():
			for _, e := range asList(x) {
				tidy(e, fd.Message())
			}
		default:
			tidy(x, fd.Message())
		}
	}
	return obj
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// selectionDepth is how deep a query selects a user's message: one level
// past the depth its fill generates.
func selectionDepth(p *userschema.Payload) int { return p.Depth() + 1 }

// serveUser is the handler a user schema's resolvers call.
type serveUser func(context.Context, *transport.MessageRequest) (proto.Message, error)

// userSchema is p's schema, its resolvers calling serve.
func userSchema(p *userschema.Payload, serve serveUser) (gql.Schema, error) {
	u := &userTypes{objects: map[protoreflect.FullName]*gql.Object{}, inputs: map[protoreflect.FullName]*gql.InputObject{}, enums: map[protoreflect.FullName]*gql.Enum{}}
	model := string(p.Message.FullName())
	list, input := u.message(p.List, false).(*gql.Object), u.message(p.List, true).(*gql.InputObject)
	ack := gql.NewObject(gql.ObjectConfig{Name: "Ack", Fields: gql.Fields{"model": {Type: gql.String}, "count": {Type: gql.Int}}})
	call := func(op transport.Op) gql.FieldResolveFn {
		return func(rp gql.ResolveParams) (any, error) {
			req := &transport.MessageRequest{Op: op, Model: model}
			if c, ok := rp.Args["count"].(int); ok {
				req.Count = c
			} else {
				body, err := fromGraphQL(rp.Args["input"], p)
				if err != nil {
					return nil, coded(transport.Errorf(transport.CodeBadRequest, "%s: %w", model, err))
				}
				req.Body = body
			}
			reply, err := serve(rp.Context, req)
			if err != nil {
				return nil, coded(err)
			}
			if a, ok := reply.(*pb.Ack); ok {
				return map[string]any{"model": a.Model, "count": a.Count}, nil
			}
			return toGraphQL(reply)
		}
	}
	inputArg := gql.FieldConfigArgument{"input": {Type: gql.NewNonNull(input)}}
	return gql.NewSchema(gql.SchemaConfig{
		Query: gql.NewObject(gql.ObjectConfig{Name: "Query", Fields: gql.Fields{
			"get": {Type: list, Args: gql.FieldConfigArgument{"count": {Type: gql.NewNonNull(gql.Int)}}, Resolve: call(transport.OpGet)},
		}}),
		Mutation: gql.NewObject(gql.ObjectConfig{Name: "Mutation", Fields: gql.Fields{
			"post": {Type: ack, Args: inputArg, Resolve: call(transport.OpPost)},
			"echo": {Type: list, Args: inputArg, Resolve: call(transport.OpEcho)},
		}}),
	})
}

// fromGraphQL is the list input graphql-go coerced, as the message: its
// JSON read in the proto JSON mapping.
func fromGraphQL(v any, p *userschema.Payload) (proto.Message, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	msg := dynamicpb.NewMessage(p.List)
	return msg, protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(b, msg)
}

// toGraphQL is a reply as graphql-go resolves fields from: the proto JSON
// mapping's object.
func toGraphQL(m proto.Message) (any, error) {
	b, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v any
	return v, json.Unmarshal(b, &v)
}

// codedError carries a transport error's code into the GraphQL error's
// extensions, as gqlgen's presenter does for the built-in schema.
type codedError struct{ error }

func (e codedError) Extensions() map[string]any {
	return map[string]any{"code": transport.CodeOf(e.error).String()}
}

func coded(err error) error { return codedError{err} }

// userHandler serves a user schema at POST /graphql/MODEL: a JSON body of
// query and variables, the result as JSON; a query that asks for the
// schema (__schema, __type) is refused without introspection, and every
// query is bounded (checkUserQuery) as the built-in schema's are.
func userHandler(schema gql.Schema, introspection bool, model string, bound replyLimit) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Query     string         `json:"query"`
			Variables map[string]any `json:"variables"`
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": "reading the request: " + err.Error(), "extensions": map[string]any{"code": transport.CodeBadRequest.String()}}}})
			return
		}
		if err := checkUserQuery(body.Query, body.Variables, model, bound, introspection); err != nil {
			json.NewEncoder(w).Encode(map[string]any{"errors": gqlerror.List{err}})
			return
		}
		res := gql.Do(gql.Params{Schema: schema, RequestString: body.Query, VariableValues: body.Variables, Context: r.Context()})
		res.Errors = firstErrors(res.Errors, func(more int) gqlerrors.FormattedError {
			return gqlerrors.FormattedError{Message: fmt.Sprintf("and %d more errors", more)}
		})
		json.NewEncoder(w).Encode(res)
	})
}

// userRoutes serves every user's message this process uses, each at
// POST /graphql/MODEL.
func userRoutes(mux *http.ServeMux, limit int, introspection bool, serve serveUser) error {
	for _, p := range userschema.AllUsed() {
		schema, err := userSchema(p, serve)
		if err != nil {
			return fmt.Errorf("graphql: the schema of %s: %w", p.Message.FullName(), err)
		}
		mux.Handle("POST /graphql/"+string(p.Message.FullName()), limitBody(limit, userHandler(schema, introspection, string(p.Message.FullName()), newReplyLimit(limit))))
	}
	return nil
}

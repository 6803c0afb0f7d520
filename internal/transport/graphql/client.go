package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/rest"
	"github.com/hopbench/hopbench/internal/userschema"
)

// Dial returns a client for the graphql server at target.
func (Transport) Dial(_ context.Context, target string, cfg transport.Config) (transport.Client, error) {
	return &client{url: rest.BaseURL(target, cfg) + "/graphql", maxBytes: cfg.MaxBytesOrDefault(), http: rest.NewHTTPClient(cfg)}, nil
}

type client struct {
	url      string
	maxBytes int
	http     *http.Client
}

func (c *client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// fragments holds, per model, the inline fragment selecting every field of
// its type, derived from the proto descriptors like the schema's types.
var fragments = func() map[string]string {
	out := map[string]string{}
	for _, m := range payload.Models() {
		md := m.New().ProtoReflect().Descriptor()
		typ := string(md.Name())
		if typ == "Int" {
			typ = "IntValue" // Int is GraphQL's own scalar
		}
		out[m.Name] = " ...on " + typ + " " + selection(md)
	}
	return out
}()

func selection(md protoreflect.MessageDescriptor) string {
	var b strings.Builder
	b.WriteString("{")
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		b.WriteString(" ")
		b.WriteString(string(fd.Name()))
		if fd.Kind() == protoreflect.MessageKind && fd.Message().FullName() != "google.protobuf.Timestamp" {
			b.WriteString(selection(fd.Message()))
		}
	}
	b.WriteString(" }")
	return b.String()
}

// request builds the GraphQL request body. A post or echo body is the json
// codec's encoding of the message, spliced in as the variable's value so it
// is not encoded twice.
func request(req *transport.Request) ([]byte, string, error) {
	var b bytes.Buffer
	switch req.Op {
	case transport.OpGet:
		q := "query($model: String!, $count: Int!) { get(model: $model, count: $count) { __typename" + fragments[req.Model] + " } }"
		model, _ := json.Marshal(req.Model)
		fmt.Fprintf(&b, `{"query":%q,"variables":{"model":%s,"count":%d}}`, q, model, req.Count)
		return b.Bytes(), "get", nil
	case transport.OpPost, transport.OpEcho:
		sel := "{ model count }"
		if req.Op == transport.OpEcho {
			sel = "{ __typename" + fragments[req.Model] + " }"
		}
		q := "mutation($input: PayloadInput!) { " + string(req.Op) + "(input: $input) " + sel + " }"
		model, _ := json.Marshal(req.Model)
		fmt.Fprintf(&b, `{"query":%q,"variables":{"input":{%s:`, q, model)
		b.Write(req.Body)
		b.WriteString("}}}")
		return b.Bytes(), string(req.Op), nil
	}
	return nil, "", transport.Errorf(transport.CodeBadRequest, "unknown operation %q", req.Op)
}

type response struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message    string `json:"message"`
		Extensions struct {
			Code string `json:"code"`
		} `json:"extensions"`
	} `json:"errors"`
}

// gqlgenCodes are the extensions.code values gqlgen gives requests it
// refuses before any resolver runs; ours are transport.Code names.
var gqlgenCodes = map[string]transport.Code{
	"GRAPHQL_PARSE_FAILED": transport.CodeBadRequest, "GRAPHQL_VALIDATION_FAILED": transport.CodeBadRequest,
	"BAD_USER_INPUT": transport.CodeBadRequest, "COMPLEXITY_LIMIT_EXCEEDED": transport.CodeTooLarge,
}

func codeNamed(name string) (transport.Code, bool) {
	if c, ok := transport.CodeNamed(name); ok {
		return c, true
	}
	c, ok := gqlgenCodes[name]
	return c, ok
}

func (c *client) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	if err := transport.CheckBody("request body", req.Body, c.maxBytes); err != nil {
		return nil, err
	}
	url, build := c.url, request
	user, isUser := userschema.Used(req.Model)
	if isUser {
		url += "/" + req.Model
		build = func(req *transport.Request) ([]byte, string, error) { return userRequest(req, user) }
	}
	body, field, err := build(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, transport.Errorf(transport.CodeBadRequest, "%w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, rest.ClassifyError(ctx, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.maxBytes)+1))
	if err != nil {
		return nil, rest.ClassifyError(ctx, err)
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, transport.Errorf(transport.CodeInternal, "HTTP %d with a body that is not a GraphQL response: %.200s", resp.StatusCode, raw)
	}
	if len(r.Errors) > 0 {
		code, ok := codeNamed(r.Errors[0].Extensions.Code)
		switch {
		case resp.StatusCode == http.StatusRequestEntityTooLarge:
			code = transport.CodeTooLarge
		case !ok && resp.StatusCode >= 400 && resp.StatusCode < 500:
			code = transport.CodeBadRequest
		case !ok:
			code = transport.CodeInternal
		}
		return nil, &transport.Error{Code: code, Msg: r.Errors[0].Message}
	}
	data, ok := r.Data[field]
	if !ok || string(data) == "null" {
		return nil, transport.Errorf(transport.CodeInternal, "HTTP %d: the reply has no data.%s", resp.StatusCode, field)
	}
	if isUser {
		return userReply(data, user.List)
	}
	return data, nil
}

// userRequest is the GraphQL request for a user's message (userSchema):
// a post or echo body, the json codec's (protojson), spliced in as the
// input variable, as the built-in models' are.
func userRequest(req *transport.Request, p *userschema.Payload) ([]byte, string, error) {
	var b bytes.Buffer
	sel := userSelection(p.List, selectionDepth(p))
	switch req.Op {
	case transport.OpGet:
		fmt.Fprintf(&b, `{"query":%q,"variables":{"count":%d}}`, "query($count: Int!) { get(count: $count) "+sel+" }", req.Count)
		return b.Bytes(), "get", nil
	case transport.OpPost, transport.OpEcho:
		if req.Op == transport.OpPost {
			sel = "{ model count }"
		}
		q := "mutation($input: " + typeName(p.List) + "Input!) { " + string(req.Op) + "(input: $input) " + sel + " }"
		fmt.Fprintf(&b, `{"query":%q,"variables":{"input":`, q)
		b.Write(req.Body)
		b.WriteString("}}")
		return b.Bytes(), string(req.Op), nil
	}
	return nil, "", transport.Errorf(transport.CodeBadRequest, "unknown operation %q", req.Op)
}

package brokered

import (
	"testing"

	"github.com/hopbench/hopbench/internal/transport"
)

// The broker request envelope (a message's headers and body) is parsed
// without panicking whatever a broker delivers, and what is accepted is a
// call a node can serve: a known op, a count of zero or more, a body
// within the limit, a codec and a compression.
func FuzzParseRequest(f *testing.F) {
	f.Add("get", "user", "5", "application/json", "", []byte(nil))
	f.Add("echo", "text", "", "application/x-protobuf", "gzip", []byte("\x0a\x02hi"))
	f.Add("post", "x", "-1", "text/plain", "br", []byte("{}"))
	f.Add("feed", "user", "3", "application/json", "", []byte(nil))
	f.Add("feed", "user", "3", "application/x-protobuf", "zstd", []byte("0"))
	f.Fuzz(func(t *testing.T, op, model, count, contentType, encoding string, body []byte) {
		m := Meta{HeaderOp: op, HeaderModel: model, HeaderCount: count, HeaderContentType: contentType, HeaderEncoding: encoding, HeaderMessages: string(body)}
		req, err := parseRequest(m, body, 1<<10)
		if err != nil {
			if transport.CodeOf(err) == transport.CodeInternal {
				t.Fatalf("a bad envelope is an internal error: %v", err)
			}
			return
		}
		if req.Count < 0 || len(req.Body) > 1<<10 || req.Codec == nil || req.Compression == nil || req.Op == transport.OpFeed && req.Messages < 1 {
			t.Fatalf("accepted %+v", req)
		}
	})
}

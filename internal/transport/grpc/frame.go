package grpc

import (
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the codec rawCodec falls back to
	"google.golang.org/grpc/mem"

	"github.com/hopbench/hopbench/internal/transport/hopframe"
)

// rawCodec passes frames through and leaves other messages (server
// reflection's) to grpc-go's proto codec. Its name is "proto", so the
// content type on the wire is the standard application/grpc+proto.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	if f, ok := v.(*hopframe.Frame); ok { // sent as two buffers: the body is not copied
		if len(f.Header) == 0 {
			return mem.BufferSlice{mem.SliceBuffer(f.Body)}, nil
		}
		return mem.BufferSlice{mem.SliceBuffer(f.Header), mem.SliceBuffer(f.Body)}, nil
	}
	return encoding.GetCodecV2("proto").Marshal(v)
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if f, ok := v.(*hopframe.Frame); ok {
		f.Header, f.Body = nil, data.Materialize()
		return nil
	}
	return encoding.GetCodecV2("proto").Unmarshal(data, v)
}

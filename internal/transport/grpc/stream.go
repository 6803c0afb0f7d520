package grpc

import (
	"context"
	"errors"
	"io"
	"sync"

	"google.golang.org/grpc"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/hopframe"
	"github.com/hopbench/hopbench/internal/transport/streamed"
)

// streamProcedure is Hop's bidirectional method that carries a client's
// calls of every model (the grpc-stream stack's; every grpc node serves it).
const streamProcedure = "/" + hopframe.ServiceName + "/Stream"

// streamDesc serves Hop's Stream: every call on it answered by h.
func streamDesc(h transport.Handler, maxBytes int) grpc.StreamDesc {
	return grpc.StreamDesc{
		StreamName: "Stream", ServerStreams: true, ClientStreams: true,
		Handler: func(_ any, ss grpc.ServerStream) error {
			err := streamed.Serve(&frameStream{s: ss}, h, maxBytes)
			if errors.Is(err, io.EOF) {
				return nil // the client closed its side
			}
			return err
		},
	}
}

// frameStream is a gRPC stream as a streamed.Stream: each message one
// frame, sent one at a time (a gRPC stream's SendMsg is not safe for
// concurrent use), received errors classified as unary calls' are.
type frameStream struct {
	s      grpc.Stream
	mu     sync.Mutex
	cancel context.CancelFunc // a client's: ends the stream
}

func (f *frameStream) Send(b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.s.SendMsg(&hopframe.Frame{Body: b})
}

func (f *frameStream) Recv() ([]byte, error) {
	var in hopframe.Frame
	if err := f.s.RecvMsg(&in); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, fromStatus(err)
	}
	return in.Body, nil
}

func (f *frameStream) Close() error {
	if f.cancel != nil {
		f.cancel()
	}
	return nil
}

// dialStream opens the client's stream on conn; its calls go over it, and
// over another when it ends.
func dialStream(conn *grpc.ClientConn, maxBytes int) (transport.Client, error) {
	open := func(context.Context) (*streamed.Client, error) {
		ctx, cancel := context.WithCancel(context.Background()) // the stream's life, not the call's
		cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, streamProcedure)
		if err != nil {
			cancel()
			return nil, fromStatus(err)
		}
		return streamed.NewClient(&frameStream{s: cs, cancel: cancel}, maxBytes), nil
	}
	c, err := streamed.NewReopening(context.Background(), open, conn.Close)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

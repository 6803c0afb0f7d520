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

// dialStream opens the client's one stream on conn; its calls go over it.
func dialStream(conn *grpc.ClientConn, maxBytes int) (transport.Client, error) {
	c := &streamClient{conn: conn, maxBytes: maxBytes}
	var err error
	if c.stream, err = c.open(); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// streamClient calls over one stream at a time: a stream that ended (its
// server went, or a message past the limit ended it, as gRPC ends a
// stream) fails the calls on it, and the next call opens another.
type streamClient struct {
	conn     *grpc.ClientConn
	maxBytes int
	mu       sync.Mutex
	stream   *streamed.Client
}

func (c *streamClient) open() (*streamed.Client, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cs, err := c.conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, streamProcedure)
	if err != nil {
		cancel()
		return nil, fromStatus(err)
	}
	return streamed.NewClient(&frameStream{s: cs, cancel: cancel}, c.maxBytes), nil
}

// current is the live stream, opened again if the last one ended.
func (c *streamClient) current() (*streamed.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.stream.Ended():
		c.stream.Close()
		s, err := c.open()
		if err != nil {
			return nil, err
		}
		c.stream = s
	default:
	}
	return c.stream, nil
}

func (c *streamClient) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	s, err := c.current()
	if err != nil {
		return nil, err
	}
	b, err := s.Call(ctx, req)
	if errors.Is(err, streamed.ErrNotSent) {
		// The stream ended between current and the call (a message past
		// the limit ended it as the last call returned): send it on the
		// next.
		if s, err = c.current(); err != nil {
			return nil, err
		}
		return s.Call(ctx, req)
	}
	return b, err
}

func (c *streamClient) Close() error {
	c.mu.Lock()
	c.stream.Close()
	c.mu.Unlock()
	return c.conn.Close()
}

package grpc

import (
	"context"
	"errors"
	"io"

	"google.golang.org/grpc"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/hopframe"
)

// feedDesc serves f's Feed, a server stream: the request's one frame in,
// each message a frame out, an error as the stream's status.
func feedDesc(h transport.Handler, f hopframe.Family) grpc.StreamDesc {
	return grpc.StreamDesc{
		StreamName: hopframe.Methods[transport.OpFeed], ServerStreams: true,
		Handler: func(_ any, ss grpc.ServerStream) error {
			var in hopframe.Frame
			if err := ss.RecvMsg(&in); err != nil {
				return err // grpc-go has answered, as for a unary call
			}
			send := func(out *hopframe.Frame) error { return ss.SendMsg(out) }
			if err := hopframe.ServeFeed(ss.Context(), h, f, &in, send); err != nil {
				return toStatus(err)
			}
			return nil
		},
	}
}

// Feed calls a feed on its own server stream; each message is handed to
// each as it arrives, and an error from each cancels the stream.
func (c *client) Feed(ctx context.Context, req *transport.Request, each func([]byte) error) error {
	f, in, err := hopframe.Call(req)
	if err != nil {
		return err
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cs, err := c.conn.NewStream(sctx, &grpc.StreamDesc{ServerStreams: true}, f.Procedure(transport.OpFeed))
	if err == nil {
		err = cs.SendMsg(in) // io.EOF: the stream ended, RecvMsg says why
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = cs.CloseSend()
	}
	for err == nil {
		var out hopframe.Frame
		if err = cs.RecvMsg(&out); err != nil {
			break
		}
		var body []byte
		if body, err = f.Reply(transport.OpFeed, &out); err == nil {
			if err = each(body); err != nil {
				return err
			}
		}
	}
	if errors.Is(err, io.EOF) {
		return nil
	}
	var te *transport.Error
	if errors.As(err, &te) {
		return err
	}
	return transport.CutOff(ctx, fromStatus(err))
}

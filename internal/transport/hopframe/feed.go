package hopframe

import (
	"context"

	"github.com/hopbench/hopbench/internal/transport"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// ServeFeed answers a feed on f, its FeedRequest in: each message the
// handler sends is framed for f and handed to send, in order.
func ServeFeed(ctx context.Context, h transport.Handler, f Family, in *Frame, send func(*Frame) error) error {
	if h.Feed == nil {
		return transport.Errorf(transport.CodeBadRequest, "this service serves no feeds")
	}
	var fr pb.FeedRequest
	if err := decodeRequest(in, &fr); err != nil {
		return err
	}
	if err := f.serves(fr.Model); err != nil {
		return err
	}
	req := &transport.Request{Op: transport.OpFeed, Model: fr.Model, Count: int(fr.Count), Messages: int(fr.Messages),
		Codec: bodyCodec(in.JSON), Compression: noCompression}
	return h.Feed(ctx, req, func(msg []byte) error {
		out, err := f.wrap(in.JSON, req.Model, msg)
		if err != nil {
			return err
		}
		return send(out)
	})
}

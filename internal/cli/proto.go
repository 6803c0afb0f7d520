package cli

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/userschema"
)

// protoOptions are the flags that name a user's message, for codec, node
// and load alike (nodeapi binds them, and renders them for a node).
type protoOptions struct {
	src userschema.Source
}

func (o *protoOptions) add(fl *pflag.FlagSet) { nodeapi.BindProto(fl, &o.src) }

// use registers the message named, so that this process finds it by
// name, and returns its model; nil without --proto.
func (o *protoOptions) use(ctx context.Context) (*payload.Model, error) {
	if len(o.src.Files) == 0 {
		if o.src.Message != "" || o.src.Samples != "" || len(o.src.ImportPaths) > 0 || o.src.Fill != nil {
			return nil, usageError{errors.New("--message, --proto-fill, --proto-samples and --proto-path go with --proto FILE: name your .proto")}
		}
		return nil, nil
	}
	if o.src.Message == "" {
		return nil, usageError{errors.New("--proto needs --message: the message type, e.g. --message shop.Order")}
	}
	m, err := userschema.Use(ctx, o.src)
	if err != nil {
		return nil, usageError{err}
	}
	return &m, nil
}

package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/userschema"
)

// protoOptions are the flags that name a user's message, for codec, node
// and load alike (nodeapi.ProtoArgs renders them for a node).
type protoOptions struct {
	src  userschema.Source
	fill string
}

func (o *protoOptions) add(fl *pflag.FlagSet) {
	fl.StringSliceVar(&o.src.Files, "proto", nil, "your .proto `FILE`s: your message (--message) instead of the built-in models")
	fl.StringSliceVar(&o.src.ImportPaths, "proto-path", nil, "`DIR`s the .proto files and their imports are found in (default: each file's directory)")
	fl.StringVar(&o.src.Message, "message", "", "with --proto: the message type, e.g. shop.Order; a payload of count N is a list of N of them")
	fl.StringVar(&o.src.Samples, "proto-samples", "", "with --proto: a `FILE` of sample messages, one a line in the proto JSON mapping, sent in turn instead of generated ones")
	fl.StringVar(&o.fill, "proto-fill", "", "with --proto: fill hints (docs/your-messages.md), a JSON `FILE` or the JSON itself, instead of the default fill")
}

// use registers the message named, so that this process finds it by
// name, and returns its model; nil without --proto.
func (o *protoOptions) use(ctx context.Context) (*payload.Model, error) {
	if len(o.src.Files) == 0 {
		if o.src.Message != "" || o.src.Samples != "" || len(o.src.ImportPaths) > 0 || o.fill != "" {
			return nil, usageError{errors.New("--message, --proto-fill, --proto-samples and --proto-path go with --proto FILE: name your .proto")}
		}
		return nil, nil
	}
	if o.src.Message == "" {
		return nil, usageError{errors.New("--proto needs --message: the message type, e.g. --message shop.Order")}
	}
	if o.fill != "" {
		fill, err := readFill(o.fill)
		if err != nil {
			return nil, usageError{err}
		}
		o.src.Fill = &fill
	}
	m, err := userschema.Use(ctx, o.src)
	if err != nil {
		return nil, usageError{err}
	}
	return &m, nil
}

// readFill reads fill hints from a file, or from the flag itself when it
// is a JSON object.
func readFill(arg string) (userschema.Fill, error) {
	if strings.HasPrefix(strings.TrimSpace(arg), "{") {
		return userschema.ParseFill([]byte(arg), "--proto-fill")
	}
	return userschema.ReadFill(arg)
}

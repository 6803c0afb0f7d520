package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hopbench/hopbench/internal/userschema"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// maxHoldBytes bounds a session's opening: its users' messages, whole.
const maxHoldBytes = userschema.MaxBundleBytes + 1<<20

// messagesOf are bundles as the agent API carries them, refused together
// past what an agent takes.
func messagesOf(bundles []userschema.Bundle) ([]*agentv1.UserMessage, error) {
	var out []*agentv1.UserMessage
	size := 0
	for _, b := range bundles {
		m := &agentv1.UserMessage{Files: b.Files, Names: b.Names, Message: b.Message, Samples: b.Samples}
		if b.Fill != nil {
			fill, err := json.Marshal(b.Fill)
			if err != nil {
				return nil, err
			}
			m.Fill = fill
		}
		for _, f := range b.Files {
			size += len(f)
		}
		if size += len(b.Samples); size > userschema.MaxBundleBytes {
			return nil, fmt.Errorf("your messages' .proto files and samples come to over %d bytes, what a run ships to a host of its own: use fewer samples there", userschema.MaxBundleBytes)
		}
		out = append(out, m)
	}
	return out, nil
}

// unpack writes the session's users' messages into a directory of its
// own (removed when the session ends) and registers each in this process,
// whose load shares carry them; the session's nodes are told where they
// are (nodeConfig).
func (s *Server) unpack(ctx context.Context, ss *session, msgs []*agentv1.UserMessage) error {
	if len(msgs) == 0 {
		return nil
	}
	base := s.BrokerDir
	if base == "" {
		base = os.TempDir()
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return status.Errorf(codes.Internal, "host %s: %v", s.Host, err)
	}
	dir, err := os.MkdirTemp(base, "messages-")
	if err != nil {
		return status.Errorf(codes.Internal, "host %s: %v", s.Host, err)
	}
	ss.dir, ss.messages = dir, map[string]userschema.Source{}
	for i, m := range msgs {
		b := userschema.Bundle{Files: m.Files, Names: m.Names, Message: m.Message, Samples: m.Samples}
		if len(m.Fill) > 0 {
			fill, err := userschema.ParseFill(m.Fill, m.Message+"'s fill")
			if err != nil {
				return status.Errorf(codes.InvalidArgument, "host %s: %v", s.Host, err)
			}
			b.Fill = &fill
		}
		src, err := b.Unpack(filepath.Join(dir, strconv.Itoa(i)))
		if err == nil {
			_, err = userschema.Use(ctx, src)
		}
		if err != nil {
			return status.Errorf(codes.InvalidArgument, "host %s: %s: %v", s.Host, m.Message, err)
		}
		ss.messages[m.Message] = src
	}
	return nil
}

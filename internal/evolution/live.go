package evolution

import (
	"context"
	"fmt"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

// TrialCounts are the items a message of each change carries in a live
// run's trials: one, where a codec that decodes by position can misread a
// message without an error, and three.
var TrialCounts = []int{1, 3}

// Live sends a message of every change of schema s, at each of counts
// items, through a live chain whose entry node cl calls on stack st, in
// echo, and returns what came back of each (ThroughIn). The nodes speak
// p's versions; each call may take timeout.
func Live(ctx context.Context, cl transport.Client, st transport.Stack, s Schema, p Path, counts []int, seed uint64, timeout time.Duration) ([]Trial, error) {
	tr, err := transport.Lookup(st.Transport)
	if err != nil {
		return nil, err
	}
	c, z, err := transport.BodyCodec(tr, st)
	if err != nil {
		return nil, err
	}
	body := codec.Compressed(c, z, codec.DefaultMaxBytes)
	var out []Trial
	for _, count := range counts {
		for _, ch := range s.Changes() {
			carry := func(b []byte) ([]byte, error) {
				ctx, cancel := context.WithTimeout(ctx, timeout)
				defer cancel()
				return cl.Call(ctx, &transport.Request{Op: transport.OpEcho, Model: ch.Model, Count: count, Codec: c, Compression: z, Body: b})
			}
			t, err := ThroughIn(s, body, ch, p, count, seed, carry)
			if err != nil {
				return nil, fmt.Errorf("%s over %s: %w", ch.Name, p, err)
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			t.Codec = c.Name()
			out = append(out, t)
		}
	}
	return out, nil
}

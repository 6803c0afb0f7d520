//go:build !hopbench_only || hopbench_nats

package all

import _ "github.com/hopbench/hopbench/internal/transport/nats" // registers nats

//go:build !hopbench_only || hopbench_amqp

package all

import _ "github.com/hopbench/hopbench/internal/transport/amqp" // registers amqp

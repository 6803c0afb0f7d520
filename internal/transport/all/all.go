// Package all registers every stack hopbench ships; import it for its side
// effect wherever stacks are named (the CLI, the experiment runner).
package all

import (
	_ "github.com/hopbench/hopbench/internal/transport/amqp"    // registers amqp
	_ "github.com/hopbench/hopbench/internal/transport/graphql" // registers graphql
	_ "github.com/hopbench/hopbench/internal/transport/grpc"    // registers grpc
	_ "github.com/hopbench/hopbench/internal/transport/kafka"   // registers kafka
	_ "github.com/hopbench/hopbench/internal/transport/nats"    // registers nats
	_ "github.com/hopbench/hopbench/internal/transport/rest"    // registers rest
)

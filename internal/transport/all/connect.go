//go:build !hopbench_only || hopbench_connect

package all

import _ "github.com/hopbench/hopbench/internal/transport/connect" // registers connect, grpcweb and connect-grpc

//go:build !hopbench_only || hopbench_grpc

package all

import _ "github.com/hopbench/hopbench/internal/transport/grpc" // registers grpc

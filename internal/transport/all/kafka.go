//go:build !hopbench_only || hopbench_kafka

package all

import _ "github.com/hopbench/hopbench/internal/transport/kafka" // registers kafka

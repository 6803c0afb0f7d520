//go:build !hopbench_only || hopbench_ws

package all

import _ "github.com/hopbench/hopbench/internal/transport/ws" // registers ws

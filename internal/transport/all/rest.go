//go:build !hopbench_only || hopbench_rest

package all

import _ "github.com/hopbench/hopbench/internal/transport/rest" // registers rest

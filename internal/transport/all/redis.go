//go:build !hopbench_only || hopbench_redis

package all

import _ "github.com/hopbench/hopbench/internal/transport/redis" // registers redis

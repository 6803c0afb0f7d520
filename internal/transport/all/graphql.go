//go:build !hopbench_only || hopbench_graphql

package all

import _ "github.com/hopbench/hopbench/internal/transport/graphql" // registers graphql

//go:build !hopbench_only || hopbench_mqtt

package all

import _ "github.com/hopbench/hopbench/internal/transport/mqtt" // registers mqtt

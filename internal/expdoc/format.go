package expdoc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ratioText is a ratio as the tables write it: ×0.72 (-28 %).
func ratioText(r float64) string {
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return "no ratio (a median of 0)"
	}
	return fmt.Sprintf("×%.3g (%+.0f %%)", r, (r-1)*100)
}

// groupThousands writes an integer with a thin space between thousands:
// 1 134.
func groupThousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// digits writes v with n significant digits, trailing zeros kept, never
// in exponent form: 40.93, 0.219, 3428.
func digits(n int, v float64) string {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return fmt.Sprint(v)
	}
	prec := max(n-1-int(math.Floor(math.Log10(math.Abs(v)))), 0)
	s := strconv.FormatFloat(v, 'f', prec, 64)
	// Rounding may carry into a new digit (9.996 to 10.00): one fewer.
	if prec > 0 && len(strings.TrimLeft(strings.Replace(s, ".", "", 1), "-0")) > n {
		s = strconv.FormatFloat(v, 'f', prec-1, 64)
	}
	return s
}

// ms writes a millisecond figure as the tables do: three decimals below
// 10, four significant digits above (0.219, 40.93, 205.2, 3428).
func ms(v float64) string {
	if math.Abs(v) < 10 {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return digits(4, v)
}

// stackNames are the stacks as prose names them.
var stackNames = map[string]string{"rest": "REST", "amqp": "RabbitMQ", "kafka": "Kafka", "grpc": "gRPC", "graphql": "GraphQL", "nats": "NATS", "redis": "Redis",
	"connect": "Connect", "grpcweb": "gRPC-Web", "connect-grpc": "gRPC on connect-go", "ws": "WebSocket", "grpc-stream": "gRPC over one stream", "rest-h3": "REST over HTTP/3", "mqtt": "MQTT"}

// stackName is a stack as prose names it: kafka is Kafka; a stack
// without a prose name stays as it is (rest+proto).
func stackName(s string) string {
	if n, ok := stackNames[s]; ok {
		return n
	}
	return s
}

// stackNamesOf is stackName of each.
func stackNamesOf(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = stackName(s)
	}
	return out
}

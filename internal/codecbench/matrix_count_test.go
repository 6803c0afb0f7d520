package codecbench

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
)

// A count whose message could pass a body's limit is refused before
// anything is generated (hopbench codec --count 1000000000 grew to 4 GB),
// and every model's study sizes pass.
func TestACountPastABodysLimitIsRefused(t *testing.T) {
	var models []string
	for _, m := range payload.Models() {
		models = append(models, m.Name)
	}
	if _, err := Matrix(models, nil, codec.Names(), codec.CompressionNames()); err != nil {
		t.Errorf("the study sizes: %v", err)
	}
	if _, err := Matrix([]string{"user"}, []int{1_000_000_000}, []string{"json"}, []string{"none"}); err == nil || !strings.Contains(err.Error(), "over the 67108864 bytes a body may have") {
		t.Errorf("a billion users: %v, want it refused", err)
	}
}

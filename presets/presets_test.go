package presets

import (
	"testing"

	"github.com/hopbench/hopbench/internal/experiment"
)

// Every preset parses as written and at every scale it names.
func TestEveryPresetParsesAtEveryScale(t *testing.T) {
	for _, name := range Names() {
		data, _ := Read(name)
		for _, scale := range append([]string{""}, experiment.ScaleNames(data)...) {
			s, err := experiment.ParseNamed(data, name, scale)
			if err != nil {
				t.Errorf("%s at scale %q: %v", name, scale, err)
				continue
			}
			if len(s.Runs()) == 0 {
				t.Errorf("%s at scale %q: no runs", name, scale)
			}
		}
	}
}

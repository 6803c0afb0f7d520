// Package presets holds ready experiment specs, built into the binary so
// `hopbench run NAME` works from anywhere.
package presets

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Read returns the preset called name (with or without .yaml).
func Read(name string) ([]byte, bool) {
	b, err := files.ReadFile(strings.TrimSuffix(name, ".yaml") + ".yaml")
	return b, err == nil
}

// Names lists the presets.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return names
}

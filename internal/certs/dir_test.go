package certs

import (
	"os"
	"path/filepath"
	"testing"
)

// An empty directory given for certificates is filled, as a missing one
// is made; one holding a bundle is read as it is.
func TestLoadOrCreateFillsAnEmptyDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	made, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatalf("an empty directory: %v", err)
	}
	again, err := LoadOrCreate(dir)
	if err != nil || string(again.CAPEM) != string(made.CAPEM) {
		t.Errorf("the bundle made there is not read back (%v)", err)
	}
}

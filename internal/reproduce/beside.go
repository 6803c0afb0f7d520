package reproduce

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hopbench/hopbench/internal/codecbench"
)

// ReadBeside adds the figures kept beside a results file in dir: the
// codec timings (codecFile) and the binary sizes (BinariesFile), each if
// present.
func (m *Measured) ReadBeside(dir, codecFile string) error {
	err := readIfPresent(filepath.Join(dir, codecFile), func(r io.Reader) error {
		codecs, err := codecbench.ReadJSON(r)
		m.Codecs = append(m.Codecs, codecs...)
		return err
	})
	if err != nil {
		return err
	}
	return readIfPresent(filepath.Join(dir, BinariesFile), func(r io.Reader) error {
		m.Binaries = &Binaries{}
		return json.NewDecoder(r).Decode(m.Binaries)
	})
}

// Value is one side of a finding as the verdicts measure it: measure of
// the one case sel picks, the median over its runs.
func (m Measured) Value(measure string, sel map[string]string) (Value, error) {
	return m.value(measure, sel)
}

// readIfPresent reads the file at path with read, if there is one.
func readIfPresent(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := read(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

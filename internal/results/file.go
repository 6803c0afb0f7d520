package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Append writes rec as one line at the end of path. The line goes down in
// a single write to a file opened for appending, then is synced, so a run
// that is killed leaves either the whole record or none of it.
func Append(path string, rec *Record) error {
	rec.Version = FormatVersion
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding the result: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("results: writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("results: syncing %s: %w", path, err)
	}
	return f.Close()
}

// Read reads every record of a results.jsonl file. A last line without its
// newline (a writer killed mid-line on a filesystem that tore the write) is
// skipped and reported in skipped; any other bad line is an error.
func Read(path string) (recs []Record, skipped int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("results: %w", err)
	}
	return parse(data, path)
}

// parse reads records from data, which came from path.
func parse(data []byte, path string) (recs []Record, skipped int, err error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 256<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			if n == bytes.Count(data, []byte("\n"))+1 { // the unterminated last line
				MarkContradictions(recs)
				return recs, 1, nil
			}
			return nil, 0, fmt.Errorf("results: %s line %d: %w", path, n, err)
		}
		if rec.Version == 0 {
			return nil, 0, fmt.Errorf("results: %s line %d: not a hopbench record (it has no format version); hopbench run and hopbench load --out write results.jsonl", path, n)
		}
		switch rec.Version {
		case FormatVersion:
		case 1:
			rec.MarkFailures()
			rec.MarkNoise()
		default:
			return nil, 0, fmt.Errorf("results: %s line %d: format version %d; this hopbench reads versions 1 to %d", path, n, rec.Version, FormatVersion)
		}
		recs = append(recs, rec)
	}
	MarkContradictions(recs)
	return recs, 0, sc.Err()
}

// WriteSummaries writes summary.md and summary.csv for recs into dir, each
// through a temporary file renamed into place.
func WriteSummaries(dir string, recs []Record) error {
	rows := Summarize(recs)
	for name, write := range map[string]func(io.Writer, []Row) error{"summary.md": Markdown, "summary.csv": CSV} {
		if err := WriteFileAtomic(filepath.Join(dir, name), func(w io.Writer) error { return write(w, rows) }); err != nil {
			return err
		}
	}
	return nil
}

// WriteFileAtomic writes path through a temporary file beside it renamed
// into place, so a crash or an interruption never leaves a half-written
// file where an older whole one stood.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

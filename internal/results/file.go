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
				return recs, 1, nil
			}
			return nil, 0, fmt.Errorf("results: %s line %d: %w", path, n, err)
		}
		if rec.Version != FormatVersion {
			return nil, 0, fmt.Errorf("results: %s line %d: format version %d; this hopbench reads version %d", path, n, rec.Version, FormatVersion)
		}
		recs = append(recs, rec)
	}
	return recs, 0, sc.Err()
}

// WriteSummaries writes summary.md and summary.csv for recs into dir, each
// through a temporary file renamed into place.
func WriteSummaries(dir string, recs []Record) error {
	rows := Summarize(recs)
	for name, write := range map[string]func(io.Writer, []Row) error{"summary.md": Markdown, "summary.csv": CSV} {
		var buf bytes.Buffer
		if err := write(&buf, rows); err != nil {
			return err
		}
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("results: %w", err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("results: %w", err)
		}
	}
	return nil
}

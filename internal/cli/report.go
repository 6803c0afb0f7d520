package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/codectiming"
	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/report"
	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
)

func newReportCommand(a *app) *cobra.Command {
	var out, title string
	cmd := &cobra.Command{
		Use:   "report RESULTS... [-o DIR]",
		Short: "Write report.html (charts), report.md and charts/*.svg from results",
		Long: `Write a report of one or more results (a results directory, or its
results.jsonl): report.html, one self-contained page with every chart beside
its table (no network needed); report.md with the same tables for terminals
and code review; and each chart as an SVG file in charts/. hopbench run
writes one into its results directory at the end of every experiment.`,
		Example: `  hopbench report results/quick-20261122-210550
  hopbench report results/a results/b -o report-ab`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			recs, sources, err := readResults(a, args)
			if err != nil {
				return err
			}
			if out == "" {
				out = defaultReportDir(args)
			}
			if title == "" {
				title = experimentNames(recs)
			}
			if _, err := writeReport(out, title, sources, recs); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "report: %s\n", filepath.Join(out, report.HTMLFile))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "directory to write into (default: the results directory, for one; else report)")
	cmd.Flags().StringVar(&title, "title", "", "the report's title (default: the experiments' names)")
	return cmd
}

// writeReport writes everything read from recs (sources') into dir, in
// this one place: the summaries (summary.md, summary.csv) and the report;
// runs of a study's preset get its paper-vs-here table, with the codec
// timings kept beside their results.
func writeReport(dir, title string, sources []string, recs []results.Record) (*report.Report, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := results.WriteSummaries(dir, recs); err != nil {
		return nil, err
	}
	r, err := report.Build(title, sources, recs)
	if err != nil {
		return nil, err
	}
	m := reproduce.Measured{Records: recs}
	for _, src := range sources {
		file, err := resultsFile(src)
		if err != nil {
			return nil, err
		}
		if err := m.ReadBeside(filepath.Dir(file), codectiming.File); err != nil {
			return nil, err
		}
	}
	if err := r.Reproduce(m); err != nil {
		return nil, err
	}
	return r, r.Write(dir)
}

// readResults reads every record of each path: a results directory or a
// results.jsonl file. A torn last line (a run killed mid-write) is skipped
// with a warning; anything else wrong is an error naming the file.
func readResults(a *app, paths []string) ([]results.Record, []string, error) {
	var all []results.Record
	var sources []string
	for _, p := range paths {
		file, err := resultsFile(p)
		if err != nil {
			return nil, nil, err
		}
		recs, skipped, err := results.Read(file)
		if err != nil {
			return nil, nil, err
		}
		if skipped > 0 {
			fmt.Fprintf(a.stderr, "hopbench: %s: skipped a torn last line (a run stopped while writing it)\n", file)
		}
		if len(recs) == 0 {
			return nil, nil, usageError{fmt.Errorf("%s: no records in it yet", file)}
		}
		all = append(all, recs...)
		sources = append(sources, p)
	}
	return all, sources, nil
}

func resultsFile(p string) (string, error) {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", usageError{fmt.Errorf("%s: no such results directory or file (hopbench run writes results/<name>-<time>/)", p)}
	}
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return p, nil
	}
	f := filepath.Join(p, experiment.ResultsFile)
	if _, err := os.Stat(f); err != nil {
		return "", usageError{fmt.Errorf("%s: not a results directory (no %s in it)", p, experiment.ResultsFile)}
	}
	return f, nil
}

// defaultReportDir is the results directory itself when there is one.
func defaultReportDir(args []string) string {
	if len(args) == 1 {
		if st, err := os.Stat(args[0]); err == nil {
			if st.IsDir() {
				return args[0]
			}
			return filepath.Dir(args[0])
		}
	}
	return "report"
}

func experimentNames(recs []results.Record) string {
	var names []string
	seen := map[string]bool{}
	for _, r := range recs {
		if !seen[r.Experiment] {
			seen[r.Experiment] = true
			names = append(names, r.Experiment)
		}
	}
	return strings.Join(names, " + ")
}

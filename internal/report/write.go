package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/hopbench/hopbench/internal/results"
)

//go:embed templates/report.html.tmpl
var templates embed.FS

var page = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	// svg marks a chart gonum/plot drew as safe: it is generated here, and
	// its only text (titles, stack names) was escaped when drawn.
	"svg":       func(b []byte) template.HTML { return template.HTML(b) },
	"fields":    strings.Fields,
	"breakable": breakable,
}).ParseFS(templates, "templates/report.html.tmpl"))

// breakable says whether a browser may break a line inside word: it
// breaks after a hyphen, a dash or a slash (a stack's "rest-grpc", a
// range's "(1.535–1.662)", a load's "1/1s"), so the page keeps every
// word holding anything but letters, digits, points and commas whole in
// a span it does not wrap (template "words").
func breakable(word string) bool {
	return strings.IndexFunc(word, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != ','
	}) >= 0
}

// Files written into a report directory.
const (
	HTMLFile     = "report.html"
	MarkdownFile = "report.md"
	ChartsDir    = "charts"
)

// HTML writes the self-contained page.
func (r *Report) HTML(w io.Writer) error {
	if err := page.Execute(w, r); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// Markdown writes the report's tables, each under its chart's image.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Title)
	if len(r.Sources) > 0 {
		fmt.Fprintf(&b, "From %s.\n\n", "`"+strings.Join(r.Sources, "`, `")+"`")
	}
	r.Verdict.markdown(&b)
	b.WriteString("\n## About this run\n\n")
	for _, e := range r.Environment {
		fmt.Fprintf(&b, "- **%s**: %s\n", e[0], e[1])
	}
	b.WriteString("\n## Summary\n\n")
	writeMarkdownTable(&b, r.Summary)
	for _, rp := range r.Reproductions {
		fmt.Fprintf(&b, "\n## Paper vs here: %s\n\n%s\n\n%d findings: %s.\n\n%s\n\n", rp.Title, rp.Citation, rp.Findings, rp.Counts, rp.Method)
		writeMarkdownTable(&b, rp.Table)
	}
	if len(r.Missing) > 0 {
		b.WriteString("\nNot drawn:\n\n")
		for _, m := range r.Missing {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	}
	for _, s := range r.Sections {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", s.Title, s.Intro)
		for _, f := range s.Figures {
			fmt.Fprintf(&b, "\n### %s\n\n", f.Title)
			if f.SVG != nil {
				fmt.Fprintf(&b, "![%s](%s/%s.svg)\n\n", f.Title, ChartsDir, f.ID)
			}
			if f.Finding != "" {
				fmt.Fprintf(&b, "%s\n\n", f.Finding)
			}
			writeMarkdownTable(&b, f.Table)
			if f.Caption != "" {
				fmt.Fprintf(&b, "\n%s\n", f.Caption)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// verdictKey says how to read a ranking's line.
const verdictKey = "Per case, the stacks best first: the best's median, then each other's × the best's; ≈ no significant difference from the best, ≠ a significant one."

// Lines are the rankings as plain text, a line per case: "- **case**
// (figure): 1. grpc 0.312 ms · 2. rest ×1.43 [1.28–1.61] · …".
func (v Verdict) Lines() []string {
	var lines []string
	for _, rk := range v.Rankings {
		var parts []string
		for _, e := range rk.Entries {
			what := e.Value
			if e.Factor != "" {
				what = e.Factor + e.Versus
			}
			if e.Marks != "" {
				what += " [" + e.Marks + "]"
			}
			parts = append(parts, fmt.Sprintf("%d. %s %s", e.Rank, e.Stack, what))
		}
		parts = append(parts, rk.Without...)
		line := fmt.Sprintf("- **%s** (%s): %s", rk.Case, rk.Figure, strings.Join(parts, " · "))
		if rk.Rounds != "" {
			line += " (" + rk.Rounds + ")"
		}
		lines = append(lines, line)
	}
	for _, f := range v.Flips {
		lines = append(lines, "- **Order flips with the load:** "+f.Text)
	}
	return lines
}

// Text writes what the run says for a terminal: the key, the rankings and
// how they were reached; nothing when no case was ranked.
func (v Verdict) Text(w io.Writer) error {
	if len(v.Rankings) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "What this run says. %s\n%s\n%s\n", verdictKey, strings.Join(v.Lines(), "\n"), v.Method)
	return err
}

// markdown writes the verdict as plain text reads it: a line per case,
// its stacks best first, then the heat maps as tables.
func (v Verdict) markdown(b *strings.Builder) {
	b.WriteString("## What this run says\n\n")
	if len(v.Rankings) > 0 {
		b.WriteString(verdictKey + "\n\n" + strings.Join(v.Lines(), "\n") + "\n")
	}
	fmt.Fprintf(b, "\n%s\n", v.Method)
	for _, m := range v.Maps {
		fmt.Fprintf(b, "\n### %s\n\n%s\n\n", m.Title, m.Note)
		t := Table{Header: []string{m.Corner}}
		for _, c := range m.Columns {
			t.Header = append(t.Header, c.Text)
		}
		for _, row := range m.Rows {
			cells := []string{row.Text}
			for _, c := range row.Cells {
				if c.Best {
					c.Text = "**" + c.Text + "**"
				}
				cells = append(cells, c.Text)
			}
			t.Rows = append(t.Rows, cells)
		}
		writeMarkdownTable(b, t)
	}
	for _, u := range v.Unranked {
		fmt.Fprintf(b, "\n- Not ranked: %s", u)
	}
	if len(v.Unranked) > 0 {
		b.WriteString("\n")
	}
}

func writeMarkdownTable(b *strings.Builder, t Table) {
	escape := strings.NewReplacer("|", "\\|", "\n", " ")
	line := func(cells []string) {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = escape.Replace(c)
		}
		b.WriteString("| " + strings.Join(out, " | ") + " |\n")
	}
	line(t.Header)
	seps := make([]string, len(t.Header))
	for i := range seps {
		seps[i] = "---"
	}
	line(seps)
	for _, r := range t.Rows {
		line(r)
	}
}

// Write writes report.html, report.md and charts/*.svg into dir, each file
// through a temporary one renamed into place, so an older report is never
// left half overwritten.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, ChartsDir), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, s := range r.Sections {
		for _, f := range s.Figures {
			if f.SVG == nil {
				continue // a table alone
			}
			if err := writeAtomic(filepath.Join(dir, ChartsDir, f.ID+".svg"), f.SVG); err != nil {
				return err
			}
		}
	}
	for name, render := range map[string]func(io.Writer) error{HTMLFile: r.HTML, MarkdownFile: r.Markdown} {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			return err
		}
		if err := writeAtomic(filepath.Join(dir, name), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	return results.WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

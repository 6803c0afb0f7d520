package report

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chartState is what the page says of one chart once laid out.
type chartState struct {
	ID     string  `json:"id"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Paths  int     `json:"paths"`
}

// The report is opened in headless Chromium (Debian's chromium, which
// make test installs) from a file, in a 1400×900 window: every chart must
// be laid out with a size and drawn paths, the verdict must be the first
// thing in view with its direct cases, no table may overflow its box,
// no word in a table may be broken across lines, every stack must have
// one colour in every chart's legend, and the console must stay silent.
// The first screen is saved as a PNG. The page is then narrowed to
// 1000×900, where the charts, the tables' boxes and their words are
// checked again.
//
// HOPBENCH_REPORT=DIR checks the report in DIR instead of the fixture's,
// and HOPBENCH_SCREENSHOT=FILE keeps the first screen (how the README's
// screenshot of make run's report is made).
func TestReportRendersInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil && testing.Short() {
		t.Skip("chromium is not installed; -short runs without it (make test installs it and runs this)")
	}
	if err != nil {
		t.Fatal("chromium is not installed: scripts/setup.sh chromium installs it (make test does)")
	}
	dir := os.Getenv("HOPBENCH_REPORT")
	if dir == "" {
		_, dir = writtenFixture(t)
	}
	bctx, console := openInChromium(t, bin, filepath.Join(dir, HTMLFile))
	checkCharts(t, bctx)
	checkFirstScreen(t, bctx)
	checkTablesFit(t, bctx)
	checkWordsWhole(t, bctx)
	checkLegendColours(t, bctx)
	png := screenshot(t, bctx)
	if out := os.Getenv("HOPBENCH_SCREENSHOT"); out != "" {
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A laptop's window, or one beside another: the tables keep their
	// words whole and scroll in boxes of their own, never the page.
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1000, 900)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if w := evaluate[float64](t, bctx, `window.innerWidth`); w != 1000 {
		t.Fatalf("the narrowed page is %.0f px wide, want 1000", w)
	}
	checkCharts(t, bctx)
	checkTablesFit(t, bctx)
	checkWordsWhole(t, bctx)
	for _, m := range console() {
		t.Error(m)
	}
}

// openInChromium opens page in a headless Chromium of its own, 1400×900,
// and returns its context and what the console said so far. Everything
// it starts is gone when the test ends.
func openInChromium(t *testing.T, bin, page string) (context.Context, func() []string) {
	t.Helper()
	profile := filepath.Join(t.TempDir(), "profile")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile), chromedp.WindowSize(1400, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	// Chromium's helpers (zygote, renderer) outlive a killed browser for a
	// moment; the test closes it properly and waits for every one.
	t.Cleanup(func() { waitGone(t, profile) })
	t.Cleanup(cancelAlloc)
	t.Cleanup(cancelBrowser)
	t.Cleanup(func() { _ = chromedp.Cancel(bctx) })

	var mu sync.Mutex
	var console []string
	if err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				console = append(console, fmt.Sprintf("console.%s: %v", e.Type, e.Args))
			}
		case *runtime.EventExceptionThrown:
			console = append(console, "exception: "+e.ExceptionDetails.Text)
		}
	}); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return bctx, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(console) }
}

func evaluate[T any](t *testing.T, bctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(bctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return v
}

// checkCharts: every figure with a chart has it laid out and drawn.
func checkCharts(t *testing.T, bctx context.Context) {
	charts := evaluate[[]chartState](t, bctx, `[...document.querySelectorAll('.figure')].filter(f => f.querySelector('svg.chart')).map(f => {
			const svg = f.querySelector('svg.chart');
			const box = svg.getBoundingClientRect();
			return {id: f.dataset.chart, width: box.width, height: box.height, paths: svg.querySelectorAll('path').length};
		})`)
	if len(charts) == 0 {
		t.Fatal("the page has no charts")
	}
	for _, c := range charts {
		if c.Width < 100 || c.Height < 50 || c.Paths < 5 {
			t.Errorf("chart %+v, want it laid out and drawn", c)
		}
	}
}

// checkFirstScreen: the verdict is the first section, it starts near the
// top, its first case is within the first 900 pixels, and so is every
// direct case's ranking (of up to a dozen).
func checkFirstScreen(t *testing.T, bctx context.Context) {
	type screen struct {
		FirstH2    string    `json:"firstH2"`
		VerdictTop float64   `json:"verdictTop"`
		Direct     []float64 `json:"direct"`
		Rows       int       `json:"rows"`
		First      float64   `json:"first"`
	}
	s := evaluate[screen](t, bctx, `(() => {
			const h2 = document.querySelector('main h2');
			const rows = [...document.querySelectorAll('#verdict table.ranking tbody tr')];
			return {firstH2: h2 ? h2.textContent : '', verdictTop: document.getElementById('verdict').getBoundingClientRect().top,
				direct: rows.filter(r => r.querySelector('th').textContent.startsWith('direct')).map(r => r.getBoundingClientRect().bottom),
				rows: rows.length, first: rows.length ? rows[0].getBoundingClientRect().bottom : 1e9};
		})()`)
	if s.FirstH2 != "What this run says" || s.VerdictTop > 150 {
		t.Errorf("the first section is %q at %.0f px, want the verdict at the top", s.FirstH2, s.VerdictTop)
	}
	if s.Rows == 0 || s.First > 900 {
		t.Fatalf("the verdict ranks %d cases, the first ending at %.0f px: want it in the first screen", s.Rows, s.First)
	}
	// A screen holds about a dozen cases: a run with more direct ones
	// shows them first, as many as fit.
	if len(s.Direct) > 12 {
		return
	}
	for i, bottom := range s.Direct {
		if bottom > 900 {
			t.Errorf("direct case %d of the verdict ends at %.0f px, below the first screen", i+1, bottom)
		}
	}
}

// checkTablesFit: a table wider than its box scrolls in it (the box is
// a scroll container of its own), no box runs past the page's column,
// and the page does not scroll sideways.
func checkTablesFit(t *testing.T, bctx context.Context) {
	over := evaluate[[]string](t, bctx, `(() => {
			const out = [], main = document.querySelector('main');
			const column = main.getBoundingClientRect().right - parseFloat(getComputedStyle(main).paddingRight);
			for (const tb of document.querySelectorAll('main table')) {
				const name = tb.closest('[data-chart]')?.dataset.chart || tb.className || tb.closest('.summary')?.className || 'table';
				const parent = tb.parentElement, box = parent.getBoundingClientRect(), r = tb.getBoundingClientRect();
				const scrolls = ['auto', 'scroll'].includes(getComputedStyle(parent).overflowX);
				if ((r.right > box.right + 1 && !scrolls) || tb.scrollWidth > tb.clientWidth + 1) out.push(name + ': ' + Math.round(r.width) + ' px in ' + Math.round(box.width));
				if (box.right > column + 1) out.push(name + ': its box ends at ' + Math.round(box.right) + ' px, past the page column at ' + Math.round(column));
			}
			if (document.documentElement.scrollWidth > window.innerWidth) out.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px');
			return out;
		})()`)
	for _, o := range over {
		t.Errorf("overflows: %s", o)
	}
}

// checkWordsWhole: in every table cell, each word (a run of text between
// whitespace, even one that crosses inline elements) is laid out on one
// line; a word broken in the middle, or after a hyphen, has boxes on two.
func checkWordsWhole(t *testing.T, bctx context.Context) {
	type words struct {
		Checked int      `json:"checked"`
		Broken  []string `json:"broken"`
	}
	w := evaluate[words](t, bctx, `(() => {
			const out = [], width = window.innerWidth;
			let checked = 0;
			const name = tb => tb.closest('[data-chart]')?.dataset.chart || tb.className || tb.closest('.summary')?.className || 'table';
			// Text on both sides of a box of its own (a block, a list's
			// item) is two words even with no space between.
			const apart = (a, b) => {
				const common = document.createRange();
				common.setStart(a, 0);
				common.setEnd(b, 0);
				for (const n of [a, b])
					for (let e = n.parentElement; e && e !== common.commonAncestorContainer; e = e.parentElement)
						if (getComputedStyle(e).display !== 'inline') return true;
				return false;
			};
			const oneLine = rects => {
				const rs = [...rects].filter(r => r.width > 0 && r.height > 0);
				return rs.length < 2 || Math.max(...rs.map(r => r.top)) < Math.min(...rs.map(r => r.bottom));
			};
			for (const tb of document.querySelectorAll('main table')) {
				for (const cell of tb.querySelectorAll('th, td')) {
					if (cell.closest('table') !== tb) continue;
					const nodes = [], walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
					let text = '';
					for (let n; (n = walk.nextNode());) {
						if (nodes.length && apart(nodes[nodes.length - 1].n, n)) text += ' ';
						nodes.push({n, at: text.length});
						text += n.data;
					}
					const locate = i => { let k = nodes.length - 1; while (nodes[k].at > i) k--; return [nodes[k].n, i - nodes[k].at]; };
					for (const m of text.matchAll(/\S+/g)) {
						const range = document.createRange();
						const [last, at] = locate(m.index + m[0].length - 1);
						range.setStart(...locate(m.index));
						range.setEnd(last, at + 1);
						checked++;
						if (!oneLine(range.getClientRects())) out.push(name(tb) + ': "' + m[0] + '" at ' + width + ' px');
					}
				}
			}
			return {checked, broken: out};
		})()`)
	if w.Checked == 0 {
		t.Error("no word found in any table")
	}
	const most = 20
	for i, b := range w.Broken {
		if i == most {
			t.Errorf("and %d more of the %d words broken", len(w.Broken)-most, w.Checked)
			break
		}
		t.Errorf("a word broken across lines in %s", b)
	}
}

// checkLegendColours reads each chart's legend in the page: a stack (a
// name the verdict lists) has one swatch colour in all of them.
func checkLegendColours(t *testing.T, bctx context.Context) {
	colours := evaluate[map[string][]string](t, bctx, `(() => {
			const stacks = new Set([...document.querySelectorAll('#verdict [data-stack]')].map(e => e.dataset.stack));
			const seen = {};
			for (const g of document.querySelectorAll('svg.chart g.legend')) {
				let swatch = '';
				for (const el of g.children) {
					const m = /(?:stroke|fill):(#[0-9A-Fa-f]{6})/.exec(el.getAttribute('style') || '');
					if (el.tagName === 'text') {
						const name = el.textContent.trim();
						if (stacks.has(name)) (seen[name] ||= new Set()).add(swatch.toLowerCase());
					} else if (m) swatch = (/stroke:(#[0-9A-Fa-f]{6})/.exec(el.getAttribute('style')) || m)[1];
				}
			}
			return Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, [...v]]));
		})()`)
	if len(colours) == 0 {
		t.Error("no stack found in any chart's legend")
	}
	for st, cs := range colours {
		if len(cs) != 1 {
			t.Errorf("%s has %d colours across the charts: %v", st, len(cs), cs)
		}
	}
}

// screenshot is the first screen as a PNG, 1400×900.
func screenshot(t *testing.T, bctx context.Context) []byte {
	buf, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(buf))
	if err != nil || cfg.Width != 1400 || cfg.Height != 900 {
		t.Errorf("screenshot %dx%d (%v), want 1400x900", cfg.Width, cfg.Height, err)
	}
	return buf
}

// waitGone waits until no process has marker in its command line.
func waitGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		left := processesWith(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("chromium processes left behind: %v", left)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func processesWith(marker string) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []string
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), marker) {
			pids = append(pids, filepath.Base(filepath.Dir(f)))
		}
	}
	return pids
}

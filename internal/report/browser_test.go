package report

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
// make test installs) from a file: every chart must be laid out with a
// size and drawn paths, and the console must stay silent.
func TestReportRendersInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil && testing.Short() {
		t.Skip("chromium is not installed; -short runs without it (make test installs it and runs this)")
	}
	if err != nil {
		t.Fatal("chromium is not installed: scripts/setup.sh chromium installs it (make test does)")
	}
	r, dir := writtenFixture(t)
	var figures []string
	for _, s := range r.Sections {
		for _, f := range s.Figures {
			figures = append(figures, f.ID)
		}
	}

	profile := filepath.Join(t.TempDir(), "profile")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	// Chromium's helpers (zygote, renderer) outlive a killed browser for a
	// moment; the test closes it properly and waits for every one.
	t.Cleanup(func() { waitGone(t, profile) })
	defer chromedp.Cancel(bctx)

	var mu sync.Mutex
	var console []string
	err = chromedp.Listen(bctx, func(ev any) {
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
	})
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}

	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+filepath.Join(dir, HTMLFile))); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	charts, err := chromedp.Run(bctx, chromedp.Evaluate[[]chartState](`[...document.querySelectorAll('.figure')].map(f => {
			const svg = f.querySelector('svg.chart');
			const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
			return {id: f.dataset.chart, width: box.width, height: box.height, paths: svg ? svg.querySelectorAll('path').length : 0};
		})`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if len(charts) != len(figures) {
		t.Fatalf("the page has %d charts, the report %d", len(charts), len(figures))
	}
	for i, c := range charts {
		if c.ID != figures[i] || c.Width < 100 || c.Height < 50 || c.Paths < 5 {
			t.Errorf("chart %d: %+v, want %s laid out and drawn", i, c, figures[i])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, m := range console {
		t.Error(m)
	}
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

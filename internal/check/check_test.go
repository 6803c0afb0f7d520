package check_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/check"
	"github.com/hopbench/hopbench/internal/check/checktest"
)

// checks are one of each outcome, with figures as thresholds and the
// gate make them.
var checks = []check.Check{
	{Name: "p99 < 10ms", Kind: "threshold", Subject: "rest direct echo text×10 closed:1", Figure: 1520, Low: 1400, High: 1610, Unit: check.Micros,
		Measured: true, Limit: "< 10ms", Runs: 5, Outcome: check.Pass, Why: "the 95% interval of the median of 5 runs is within the limit"},
	{Name: "p50 < 1us", Kind: "threshold", Subject: "rest direct echo text×10 closed:1", Figure: 412, Low: 398, High: 431, Unit: check.Micros,
		Measured: true, Limit: "< 1us", Runs: 5, Outcome: check.Fail, Why: "the 95% interval of the median of 5 runs is past the limit"},
	{Name: "p50:+10%", Kind: "gate", Subject: "direct echo payment×5 closed:1", Figure: 4.2, Low: -3.1, High: 12.5, Unit: check.Percent,
		Measured: true, Limit: "+10%", Runs: 3, Outcome: check.Undecided, Why: "3 and 3 runs: 4 or more a side can show a significant change"},
	{Name: "errors < 0.1%", Kind: "threshold", Subject: "grpc direct echo text×10 closed:1 <&>", Unit: check.Percent,
		Limit: "< 0.1%", Runs: 2, Outcome: check.Fail, Why: "1 of 2 runs have no errors figure: calls failed"},
}

func TestUnitsReadAsAReaderWantsThem(t *testing.T) {
	for _, c := range []struct {
		u    check.Unit
		v    float64
		want string
	}{
		{check.Micros, 412, "412µs"}, {check.Micros, 12100, "12.1ms"}, {check.Micros, 2.5e6, "2.5s"},
		{check.Percent, 0.125, "0.125%"}, {check.PerSec, 5120, "5120 req/s"}, {check.Bytes, 6449, "6.45KB"}, {check.Bytes, 3.2e7, "32MB"},
	} {
		if got := c.u.Format(c.v); got != c.want {
			t.Errorf("%s of %v: %q, want %q", c.u, c.v, got, c.want)
		}
	}
}

func TestTheTableListsEveryCheckWithItsFigureAndInterval(t *testing.T) {
	var b strings.Builder
	if err := check.Table(&b, "thresholds", checks); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"thresholds: 1 passed, 2 failed, 1 undecided",
		"PASS       rest direct echo text×10 closed:1",
		"p50 < 1us", "412µs", "[398µs, 431µs]",
		"UNDECIDED", "4.2%", "[-3.1%, 12.5%]",
		"none", "calls failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if !check.Failed(checks) || check.Failed(checks[:1]) || check.Failed(checks[2:3]) {
		t.Error("Failed: want true for a failed check only, undecided not")
	}
}

// junitDoc reads back what WriteJUnit wrote.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suite    struct {
		Name    string `xml:"name,attr"`
		Skipped int    `xml:"skipped,attr"`
		Cases   []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitHasATestCaseForEveryCheckWithItsFigure(t *testing.T) {
	var b bytes.Buffer
	if err := check.WriteJUnit(&b, "hopbench thresholds", checks); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Tests != 4 || doc.Failures != 2 || doc.Suite.Skipped != 1 || len(doc.Suite.Cases) != 4 {
		t.Fatalf("tests %d, failures %d, skipped %d, cases %d; want 4, 2, 1, 4:\n%s", doc.Tests, doc.Failures, doc.Suite.Skipped, len(doc.Suite.Cases), b.String())
	}
	pass, fail, undecided, unmeasured := doc.Suite.Cases[0], doc.Suite.Cases[1], doc.Suite.Cases[2], doc.Suite.Cases[3]
	if pass.Failure != nil || pass.Skipped != nil || !strings.Contains(pass.SystemOut, "1.52ms [1.4ms, 1.61ms] over 5 runs, limit < 10ms: pass") {
		t.Errorf("a passed check: %+v", pass)
	}
	if fail.Failure == nil || !strings.Contains(fail.Failure.Message, "412µs [398µs, 431µs] over 5 runs, limit < 1us: fail") || fail.Classname != checks[1].Subject {
		t.Errorf("a failed check: %+v", fail)
	}
	if undecided.Skipped == nil || undecided.Failure != nil || !strings.Contains(undecided.Skipped.Message, "4.2% [-3.1%, 12.5%]") {
		t.Errorf("an undecided check: %+v", undecided)
	}
	if unmeasured.Failure == nil || !strings.Contains(unmeasured.Failure.Message, "none over 2 runs") || unmeasured.Classname != checks[3].Subject {
		t.Errorf("a check with no figure: %+v", unmeasured)
	}
}

// What WriteJUnit writes is valid against the Jenkins JUnit schema
// (testdata/junit-10.xsd, testdata/README.md says where it is from), by
// xmllint: with a check of each outcome, and with none.
func TestJUnitIsValidAgainstTheJenkinsSchema(t *testing.T) {
	for name, cs := range map[string][]check.Check{"every-outcome": checks, "no-check": nil} {
		path := filepath.Join(t.TempDir(), name+".xml")
		var b bytes.Buffer
		if err := check.WriteJUnit(&b, "hopbench thresholds", cs); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		checktest.ValidJUnit(t, path)
	}
}

// Package checktest validates JUnit XML against the Jenkins JUnit schema
// committed in package check's testdata, with xmllint, for the tests of
// every package that writes it.
package checktest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// ValidJUnit fails t unless the file at path is valid against the Jenkins
// JUnit schema (check/testdata/junit-10.xsd). It skips t under -short, or
// where xmllint is not installed, unless HOPBENCH_REQUIRE_XMLLINT is set
// (make test), when it fails instead.
func ValidJUnit(t *testing.T, path string) {
	t.Helper()
	if testing.Short() {
		t.Skip("validating JUnit XML with xmllint: not under -short (make test does)")
	}
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("HOPBENCH_REQUIRE_XMLLINT") != "" {
			t.Fatal("xmllint is not installed and HOPBENCH_REQUIRE_XMLLINT is set: scripts/setup.sh xmllint installs it")
		}
		t.Skip("xmllint is not installed (Debian's libxml2-utils: scripts/setup.sh xmllint; make test installs it)")
	}
	_, here, _, _ := runtime.Caller(0)
	xsd := filepath.Join(filepath.Dir(here), "..", "testdata", "junit-10.xsd")
	if out, err := exec.Command(xmllint, "--noout", "--schema", xsd, path).CombinedOutput(); err != nil {
		data, _ := os.ReadFile(path)
		t.Errorf("%s is not valid JUnit XML by the Jenkins schema: xmllint: %v\n%s\n%s", path, err, out, data)
	}
}

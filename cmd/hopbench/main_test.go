package main_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bin is hopbench built once for these end-to-end tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hopbench-bin")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "hopbench")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building hopbench: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func hopbench(t *testing.T, args ...string) (stdout string, exitCode int) {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return string(out), 0
}

func TestVersionPrintsEveryLinkedStackLibrary(t *testing.T) {
	out, code := hopbench(t, "version")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"go1.", "google.golang.org/protobuf", "github.com/goccy/go-json",
		"github.com/vmihailenco/msgpack/v5", "github.com/fxamacker/cbor/v2", "github.com/hamba/avro/v2", "github.com/klauspost/compress"} {
		if !strings.Contains(out, want) {
			t.Errorf("version lacks %s:\n%s", want, out)
		}
	}
}

type record struct {
	Codec       string  `json:"codec"`
	Compress    string  `json:"compress"`
	Bytes       int     `json:"bytes"`
	MarshalNs   float64 `json:"marshal_ns"`
	UnmarshalNs float64 `json:"unmarshal_ns"`
}

func codecRecords(t *testing.T, args ...string) map[string]record {
	t.Helper()
	out, code := hopbench(t, append([]string{"codec", "--format", "json", "--compress", "none", "--samples", "3", "--budget", "200ms"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var records []record
	if err := json.Unmarshal([]byte(out), &records); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	byCodec := map[string]record{}
	for _, r := range records {
		byCodec[r.Codec] = r
	}
	return byCodec
}

// The must-show commands, as a user would run them. Sizes are
// deterministic; timings are only checked for being measured at all
// (the speed comparison is a benchmark: see the README).
func TestMustShowCommands(t *testing.T) {
	pay := codecRecords(t, "--model", "payment", "--count", "650", "--codec", "json,proto")
	if p, j := pay["proto"].Bytes, pay["json"].Bytes; p == 0 || float64(p) > 0.5*float64(j) {
		t.Errorf("payment 650: proto %d bytes vs json %d", p, j)
	}
	rec := codecRecords(t, "--model", "recipe", "--count", "1", "--codec", "json,proto")
	for name, r := range rec {
		if r.MarshalNs <= 0 || r.UnmarshalNs <= 0 {
			t.Errorf("recipe %s: no timing measured: %+v", name, r)
		}
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	if _, code := hopbench(t, "codec", "--codec", "xml"); code != 2 {
		t.Errorf("unknown codec: exit %d, want 2", code)
	}
	if _, code := hopbench(t, "nope"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// TestVersionText: what schedsim version prints for a build with and
// without version control information.
func TestVersionText(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name string
		b    workload.Build
		want string
	}{
		{"checkout", workload.Build{Module: "v0.0.0-20260301120000-0123456789ab+dirty", Revision: "0123456789abcdef0123456789abcdef01234567",
			Time: "2026-03-01T12:00:00Z", Modified: true, Go: "go1.26.8"},
			"schedsim v0.0.0-20260301120000-0123456789ab+dirty\n" +
				"module    github.com/schedsim/schedsim v0.0.0-20260301120000-0123456789ab+dirty\n" +
				"revision  0123456789abcdef0123456789abcdef01234567\n" +
				"time      2026-03-01T12:00:00Z\n" +
				"modified  true\n" +
				"go        go1.26.8 " + platform + "\n"},
		{"release", workload.Build{Module: "v1.2.0", Go: "go1.26.8"},
			"schedsim v1.2.0\n" +
				"module    github.com/schedsim/schedsim v1.2.0\n" +
				"revision  unknown (the build recorded no version control information)\n" +
				"go        go1.26.8 " + platform + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.Text(); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestVersionCommand: schedsim version and schedsim --version print the
// running build; under go test it is "(devel)", as in every output.
func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := run(t, args...)
		if code != exitOK || !strings.HasPrefix(stdout, "schedsim "+workload.Version()+"\n") || !strings.Contains(stdout, "\ngo        "+runtime.Version()+" ") {
			t.Errorf("%v: exit %d:\n%s%s", args, code, stdout, stderr)
		}
	}
	if code, _, stderr := run(t, "version", "extra"); code != exitUsage || !strings.Contains(stderr, `unexpected argument "extra"`) {
		t.Errorf("version extra: exit %d: %s", code, stderr)
	}
}

// TestSummaryVersion: summary.json records the version; two runs of one
// build write the same summary.json, and a baseline made by another build
// (another version) compares equal under check: the version describes the
// build, not the run.
func TestSummaryVersion(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "small.swf", smallTrace)
	var sums [2][]byte
	for i := range sums {
		out := filepath.Join(dir, fmt.Sprint(i))
		if code, _, stderr := run(t, "run", "--trace", trace, "--out", out, "-q", "--plots=false"); code != exitOK {
			t.Fatal(stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		sums[i] = b
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Fatal("two identical runs wrote different summary.json files")
	}
	want := fmt.Sprintf("{\n  \"schedsim_version\": %q,\n  \"trace\": ", workload.Version())
	if !bytes.HasPrefix(sums[0], []byte(want)) {
		t.Fatalf("summary.json does not start with %q:\n%.200s", want, sums[0])
	}
	other := bytes.Replace(sums[0], []byte(want), []byte("{\n  \"schedsim_version\": \"v0.1.0\",\n  \"trace\": "), 1)
	baseline := writeFile(t, dir, "old.json", string(other))
	code, stdout, stderr := run(t, "check", "--baseline", baseline, filepath.Join(dir, "0"))
	changed := false
	for _, l := range strings.Split(stdout, "\n") {
		for _, verdict := range []string{"better", "worse", "tolerance", "REGRESSION"} {
			changed = changed || strings.HasSuffix(l, verdict)
		}
	}
	if code != exitOK || changed || !strings.Contains(stdout, "ok: ") {
		t.Errorf("check against a baseline of another version: exit %d:\n%s%s", code, stdout, stderr)
	}
	baseline2 := filepath.Join(dir, "baseline.json")
	if code, _, stderr := run(t, "check", "--write-baseline", baseline2, filepath.Join(dir, "0")); code != exitOK {
		t.Fatal(stderr)
	}
	if b, _ := os.ReadFile(baseline2); !bytes.Contains(b, []byte(`"schedsim_version": "`+workload.Version()+`"`)) {
		t.Errorf("the baseline does not record the version:\n%.300s", b)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCommand writes a baseline from a fresh run, passes on the same
// configuration, fails on a worse one, and refuses a run of another trace.
func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	trace := genTrace(t, dir, "t.swf", 1500, "6")
	other := genTrace(t, dir, "o.swf", 1500, "7")
	baseline := filepath.Join(dir, "baseline.json")
	code, stdout, stderr := run(t, "check", "--write-baseline", baseline, "--trace", trace, "--lookahead", "all")
	if code != exitOK || !strings.Contains(stdout, "wrote baseline") {
		t.Fatalf("write baseline: exit %d: %s %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	nullUtil := writeFile(t, dir, "null.json", strings.Replace(string(b), `"utilisation": 0.`, `"utilisation": null, "x": 0.`, 1))
	res := filepath.Join(dir, "res")
	if code, _, stderr := run(t, "run", "--trace", trace, "--lookahead", "0", "--out", res, "-q", "--plots=false"); code != exitOK {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{"same config", []string{"--trace", trace, "--lookahead", "all"}, exitOK, "ok: no checked metric got worse", ""},
		{"worse config", []string{"--trace", trace, "--backfill", "off"}, exitError, "REGRESSION", "regression: wait_mean +"},
		{"worse summary.json", []string{filepath.Join(res, "summary.json")}, exitError, "REGRESSION", "regression: "},
		{"worse run dir, tolerances off", []string{res, "--tolerance", "wait_mean=off,bounded_slowdown_mean=off,utilisation=off"}, exitOK, "worse", ""},
		{"other trace", []string{"--trace", other}, exitUsage, "", "compare runs of the same trace"},
		{"summary and options", []string{res, "--lookahead", "1"}, exitUsage, "", "not both"},
		{"missing baseline", []string{"--trace", trace, "--baseline", filepath.Join(dir, "absent.json")}, exitUsage, "", "absent.json"},
		{"baseline is no baseline", []string{"--trace", trace, "--baseline", trace}, exitUsage, "", "not a baseline"},
		{"same options", []string{"--trace", trace, "--lookahead", "all"}, exitOK, "scenario: the baseline's, with the same input files", ""},
		{"other options", []string{"--trace", trace, "--lookahead", "all", "--sjbf"}, exitOK, `scenario: DIFFERS from the baseline's: sjbf: saved null, now true`, ""},
		{"utilisation null", []string{"--trace", trace, "--baseline", nullUtil}, exitUsage, "", "has no utilisation (absent or null)"},
		{"utilisation null, unchecked", []string{"--trace", trace, "--baseline", nullUtil, "--tolerance", "utilisation=off"}, exitOK, "not in the baseline", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"check", "--baseline", baseline}, tc.args...)
			code, stdout, stderr := run(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.inStdout) || !strings.Contains(stderr, tc.inStderr) {
				t.Errorf("stdout %q lacks %q or stderr %q lacks %q", stdout, tc.inStdout, stderr, tc.inStderr)
			}
		})
	}
	// A summary.json serves as a baseline.
	if code, _, stderr := run(t, "check", "--baseline", filepath.Join(res, "summary.json"), res); code != exitOK {
		t.Errorf("summary.json against itself: exit %d: %s", code, stderr)
	}
	for _, bad := range [][]string{{"check"}, {"check", "--baseline", baseline, "--write-baseline", baseline}, {"check", "--baseline", baseline, "--tolerance", "x=1"}} {
		if code, _, _ := run(t, bad...); code != exitUsage {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
}

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/report"
)

func TestParseTolerances(t *testing.T) {
	for _, tc := range []struct {
		name  string
		texts []string
		want  map[string]tolerance
		err   string
	}{
		{"defaults", nil, map[string]tolerance{
			"wait_mean":             {"wait_mean", 5, true},
			"bounded_slowdown_mean": {"bounded_slowdown_mean", 5, true},
			"utilisation":           {"utilisation", 1, false},
		}, ""},
		{"override and add", []string{"wait_mean=10%", "wait_p95=600,utilisation=off"}, map[string]tolerance{
			"wait_mean":             {"wait_mean", 10, true},
			"bounded_slowdown_mean": {"bounded_slowdown_mean", 5, true},
			"wait_p95":              {"wait_p95", 600, false},
		}, ""},
		{"unknown metric", []string{"speed=5%"}, nil, `unknown metric "speed"`},
		{"negative", []string{"wait_mean=-5%"}, nil, "not a number ≥ 0"},
		{"not a number", []string{"wait_mean=lots"}, nil, "not a number"},
		{"no value", []string{"wait_mean"}, nil, "want METRIC=T%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseTolerances(tc.texts)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s: got %+v, want %+v", k, got[k], v)
				}
			}
		})
	}
}

func TestCheckMetrics(t *testing.T) {
	base := report.Summary{Wait: report.Dist{Mean: 1000, P95: 5000}, MeanBoundedSlowdown: 10, Utilisation: 0.80, MaxQueue: 10}
	tols, err := parseTolerances([]string{"wait_p95=100"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		change  func(s *report.Summary)
		metric  string
		verdict string
	}{
		{"same", func(s *report.Summary) {}, "wait_mean", "="},
		{"wait within 5%", func(s *report.Summary) { s.Wait.Mean = 1049 }, "wait_mean", "worse, within tolerance"},
		{"wait at exactly 5%", func(s *report.Summary) { s.Wait.Mean = 1050 }, "wait_mean", "worse, within tolerance"},
		{"wait beyond 5%", func(s *report.Summary) { s.Wait.Mean = 1051 }, "wait_mean", "REGRESSION"},
		{"wait better", func(s *report.Summary) { s.Wait.Mean = 500 }, "wait_mean", "better"},
		{"slowdown beyond 5%", func(s *report.Summary) { s.MeanBoundedSlowdown = 10.6 }, "bounded_slowdown_mean", "REGRESSION"},
		{"utilisation down 0.9 pt", func(s *report.Summary) { s.Utilisation = 0.791 }, "utilisation", "worse, within tolerance"},
		{"utilisation down 1.1 pt", func(s *report.Summary) { s.Utilisation = 0.789 }, "utilisation", "REGRESSION"},
		{"utilisation up", func(s *report.Summary) { s.Utilisation = 0.9 }, "utilisation", "better"},
		{"absolute tolerance", func(s *report.Summary) { s.Wait.P95 = 5101 }, "wait_p95", "REGRESSION"},
		{"unchecked metric worse", func(s *report.Summary) { s.MaxQueue = 100 }, "max_queue", "worse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base
			tc.change(&cur)
			var found bool
			nbad := 0
			for _, r := range checkMetrics(&base, &cur, tols) {
				if r.regressed {
					nbad++
				}
				if r.metric.Name != tc.metric {
					continue
				}
				found = true
				if r.verdict != tc.verdict || r.regressed != (tc.verdict == "REGRESSION") {
					t.Errorf("%s: verdict %q (regressed %v), want %q", tc.metric, r.verdict, r.regressed, tc.verdict)
				}
			}
			if !found {
				t.Fatalf("no row for %s", tc.metric)
			}
			if want := map[bool]int{true: 1, false: 0}[tc.verdict == "REGRESSION"]; nbad != want {
				t.Errorf("%d regressions, want %d", nbad, want)
			}
		})
	}
}

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

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets bench measure this test binary as if it were schedsim: a
// child started with benchChildEnv set runs the command line it was given.
func TestMain(m *testing.M) {
	if os.Getenv(benchChildEnv) == "1" {
		os.Exit(mainWith(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestBenchCommand(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "small.swf", smallTrace)
	keep := filepath.Join(dir, "keep")
	code, stdout, stderr := run(t, "bench", "--jobs", "3000", "--procs", "64", "--repeat", "2", "--keep", keep, trace)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"lublin 3000 jobs, load 0.85", "lublin 3000 jobs, load 1.10", "small.swf", "--lookahead all", "--lookahead 1000", "MiB", "CPU median", "2 runs per case, with plots"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("bench table lacks %q:\n%s", want, stdout)
		}
	}
	// The generated traces are kept and are valid input.
	if code, _, stderr := run(t, "verify", filepath.Join(keep, "out-1")); code != exitOK {
		t.Errorf("verify of the overload run: %s", stderr)
	}
	// Every run's CPU profile is written, gzip-compressed as pprof writes it.
	prof := filepath.Join(dir, "prof")
	if code, _, stderr := run(t, "bench", "--jobs", "2000", "--procs", "64", "--repeat", "1", "--loads", "0.85", "--cpuprofile-dir", prof); code != exitOK {
		t.Fatalf("bench --cpuprofile-dir: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(prof, "case1-run1.pprof")); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("case1-run1.pprof: %d bytes, %v; want a gzip-compressed profile", len(b), err)
	}
	// --plots=false: the runs write their tables, and no plot.
	noPlots := filepath.Join(dir, "noplots")
	code, stdout, stderr = run(t, "bench", "--jobs", "2000", "--procs", "64", "--repeat", "1", "--loads", "0.85", "--plots=false", "--keep", noPlots)
	if code != exitOK || !strings.Contains(stdout, "without plots") {
		t.Fatalf("bench --plots=false: exit %d: %s\n%s", code, stdout, stderr)
	}
	for name, want := range map[string]bool{"jobs.csv": true, "summary.json": true, "report.html": false, "utilisation.svg": false} {
		if _, err := os.Stat(filepath.Join(noPlots, "out-0", name)); (err == nil) != want {
			t.Errorf("bench --plots=false: out-0/%s exists: %v, want %v", name, err == nil, want)
		}
	}
	for _, bad := range [][]string{{"bench", "--repeat", "0"}, {"bench", "--loads", "x"}, {"bench", "--loads", ""}} {
		if code, _, _ := run(t, bad...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// genTrace writes a seeded Lublin–Feitelson trace of jobs jobs on 64
// processors into dir and returns its path.
func genTrace(t *testing.T, dir, name string, jobs int, seed string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if code, _, stderr := run(t, "generate", "--jobs", strconv.Itoa(jobs), "--procs", "64", "--load", "0.9", "--seed", seed, "--out", path); code != exitOK {
		t.Fatalf("generate: %s", stderr)
	}
	return path
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// countPoints counts the committed point files in dir/points.
func countPoints(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "points", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

func TestSweepUsage(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.swf", smallTrace)
	out := filepath.Join(dir, "out")
	badFile := writeFile(t, dir, "bad.sweep", "lookahead = 1, 2\nnonsense\n")
	scenario := writeFile(t, dir, "s.toml", "backfill = \"easy\"\n")
	for _, tc := range []struct {
		name     string
		args     []string
		inStderr string
	}{
		{"nothing to sweep", []string{"--trace", good, "--out", out}, "nothing to sweep"},
		{"unknown option", []string{"--param", "frobs=1,2", "--out", out}, "no option --frobs"},
		{"twice", []string{"--param", "lookahead=1", "--param", "lookahead=2", "--out", out}, "given twice"},
		{"bad value", []string{"--trace", good, "--param", "backfill=easy,sometimes", "--out", out}, `backfill=sometimes`},
		{"missing trace", []string{"--param", "trace=" + good + "," + filepath.Join(dir, "absent.swf"), "--out", out}, "absent.swf"},
		{"no out", []string{"--trace", good, "--param", "lookahead=1,2"}, "--out DIR is required"},
		{"bad x", []string{"--trace", good, "--param", "lookahead=1,2", "--x", "order", "--out", out}, "--x order"},
		{"bad metric", []string{"--trace", good, "--param", "lookahead=1,2", "--plot-metrics", "wait_mean,nope", "--out", out}, `unknown metric "nope"`},
		{"bad jobs", []string{"--trace", good, "--param", "lookahead=1,2", "--jobs", "0", "--out", out}, "--jobs"},
		{"bad file line", []string{"--file", badFile, "--out", out}, "bad.sweep:2"},
		{"task without manifest", []string{"--task", "1"}, "--task needs --manifest"},
		{"two modes", []string{"--merge", dir, "--manifest", "m.json"}, "at most one"},
		{"merge with params", []string{"--merge", dir, "--param", "lookahead=1"}, "take the sweep from the manifest"},
		{"merge without manifest", []string{"--merge", dir}, "manifest.json"},
		{"bad chunk", []string{"--trace", good, "--param", "lookahead=1,2", "--emit-slurm", out, "--chunk", "0"}, "--chunk"},
		{"output key", []string{"--trace", good, "--param", "plots=true,false", "--out", out}, "writes no run outputs"},
		{"bad number", []string{"--trace", good, "--param", "procs=8,many", "--out", out}, "procs=many: want a whole number"},
		{"scenario file and merge", []string{scenario, "--merge", dir}, "give no scenario file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, append([]string{"sweep"}, tc.args...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitUsage, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.inStderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.inStderr)
			}
		})
	}
}

// TestSweepDeterministic runs the same sweep with --jobs 1 and --jobs 3, and
// from a sweep file: the tables and plots are byte-identical.
func TestSweepDeterministic(t *testing.T) {
	dir := t.TempDir()
	a := genTrace(t, dir, "a.swf", 1500, "1")
	b := genTrace(t, dir, "b.swf", 1500, "2")
	args := []string{"sweep", "--param", "lookahead=1,10,all", "--param", "trace=" + a + "," + b, "--param", "order=fcfs,sjf", "-q"}
	outs := []string{filepath.Join(dir, "j1"), filepath.Join(dir, "j3"), filepath.Join(dir, "file")}
	for i, jobs := range []string{"1", "3"} {
		if code, _, stderr := run(t, append(args, "--jobs", jobs, "--out", outs[i])...); code != exitOK {
			t.Fatalf("--jobs %s: exit %d: %s", jobs, code, stderr)
		}
	}
	sweepFile := writeFile(t, dir, "grid.sweep", "# the same grid\nlookahead = 1, 10, all\n\ntrace = "+a+", "+b+"\norder = fcfs | sjf\n")
	if code, _, stderr := run(t, "sweep", "--file", sweepFile, "--out", outs[2], "-q"); code != exitOK {
		t.Fatalf("--file: exit %d: %s", code, stderr)
	}
	csv := string(readFile(t, filepath.Join(outs[0], "sweep.csv")))
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 1+12 {
		t.Fatalf("sweep.csv has %d lines, want 13:\n%s", len(lines), csv)
	}
	for _, col := range []string{"point,key,lookahead,trace,order,", "wait_mean", "bounded_slowdown_mean", "utilisation", "cleaning_kept"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("header lacks %q: %s", col, lines[0])
		}
	}
	if !strings.HasPrefix(lines[1], "0,") || !strings.Contains(lines[1], ",1,"+a+",fcfs,") || !strings.Contains(lines[12], ",all,"+b+",sjf,") {
		t.Errorf("rows not in grid order:\n%s\n%s", lines[1], lines[12])
	}
	for _, name := range []string{"sweep.csv", "sweep.parquet", "sweep_wait_mean.svg", "sweep_bounded_slowdown_mean.svg", "sweep_utilisation.svg", "sweep_wait_p95.png"} {
		ref := readFile(t, filepath.Join(outs[0], name))
		for _, o := range outs[1:] {
			if !bytes.Equal(ref, readFile(t, filepath.Join(o, name))) {
				t.Errorf("%s differs between %s and %s", name, outs[0], o)
			}
		}
	}
	svg := string(readFile(t, filepath.Join(outs[0], "sweep_wait_mean.svg")))
	for _, want := range []string{"a.swf, order=fcfs", "b.swf, order=sjf", "lookahead"} {
		if !strings.Contains(svg, want) {
			t.Errorf("sweep_wait_mean.svg lacks %q", want)
		}
	}
}

// TestSweepSIGKILL kills a sweep running in a child process with SIGKILL
// part-way, then resumes it: the kept points are whole, only the others are
// simulated, and the table equals an uninterrupted sweep's.
func TestSweepSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	trace := genTrace(t, dir, "t.swf", 20000, "4") // about 0.1 s a point
	out := filepath.Join(dir, "out")
	args := []string{"sweep", "--trace", trace, "--param", "lookahead=1,2,5,10,20,50,200,all", "--jobs", "1", "--out", out, "-q", "--plots=false", "--progress", "never"}
	// The child says on stderr as each point is done (after writing its
	// file): it is killed as soon as it says the third is, with five of
	// about 0.1 s each to go.
	childArgs := append(slices.Clone(args[:len(args)-2]), "--progress", "always")
	cmd := exec.Command(os.Args[0], childArgs...)
	cmd.Env = append(os.Environ(), benchChildEnv+"=1")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var childErr strings.Builder
	third := false
	for sc := bufio.NewScanner(pipe); !third && sc.Scan(); {
		childErr.WriteString(sc.Text() + "\n")
		third = strings.HasPrefix(sc.Text(), "[3/8] ")
	}
	if third {
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("the child was not killed (it finished first?): %v\n%s", err, childErr.String())
	}
	kept := countPoints(t, out)
	if kept < 3 || kept >= 8 {
		t.Fatalf("%d of 8 points kept after SIGKILL; want at least 3 and not all", kept)
	}
	t.Logf("killed with %d of 8 points done", kept)
	code, _, stderr := run(t, args[:len(args)-2]...)
	if code != exitOK {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if want := "8 points: " + strconv.Itoa(8-kept) + " simulated, " + strconv.Itoa(kept) + " already done"; !strings.Contains(stderr, want) {
		t.Errorf("resume stderr %q lacks %q", stderr, want)
	}
	fresh := filepath.Join(dir, "fresh")
	fargs := slices.Clone(args[:len(args)-2])
	for i, a := range fargs {
		if a == out {
			fargs[i] = fresh
		}
	}
	fargs = append(fargs, "--jobs", "2")
	if code, _, stderr := run(t, fargs...); code != exitOK {
		t.Fatal(stderr)
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, "sweep.csv")), readFile(t, filepath.Join(fresh, "sweep.csv"))) {
		t.Errorf("the resumed sweep's table differs from an uninterrupted one")
	}
}

// TestSweepSlurmEmitTaskMerge emits a Slurm sweep, runs its array tasks by
// hand (as Slurm would), merges before and after the last part, and compares
// the merged table with a local sweep of the same points.
func TestSweepSlurmEmitTaskMerge(t *testing.T) {
	dir := t.TempDir()
	trace := genTrace(t, dir, "t.swf", 1000, "5")
	em := filepath.Join(dir, "em")
	grid := []string{"--trace", trace, "--param", "lookahead=1,10,100,all", "--param", "backfill=easy,off"}
	code, stdout, stderr := run(t, append(append([]string{"sweep"}, grid...), "--emit-slurm", em, "--chunk", "3", "--array-limit", "2", "--sbatch-option=--time=10:00")...)
	if code != exitOK {
		t.Fatalf("emit: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "sbatch "+filepath.Join(em, "sweep.sbatch")) {
		t.Errorf("emit does not say how to submit: %s", stdout)
	}
	script := string(readFile(t, filepath.Join(em, "sweep.sbatch")))
	for _, want := range []string{"#!/bin/bash\n", "#SBATCH --array=0-2%2\n", "#SBATCH --time=10:00\n", "#SBATCH --output=" + filepath.Join(em, "logs", "task-%a.out"),
		"sweep --manifest '" + filepath.Join(em, "manifest.json") + "' --task \"${SLURM_ARRAY_TASK_ID}\""} {
		if !strings.Contains(script, want) {
			t.Errorf("sweep.sbatch lacks %q:\n%s", want, script)
		}
	}
	manifest := filepath.Join(em, "manifest.json")
	for _, task := range []string{"0", "2"} {
		if code, stdout, stderr := run(t, "sweep", "--manifest", manifest, "--task", task); code != exitOK || !strings.Contains(stdout, "task "+task+": wrote") {
			t.Fatalf("task %s: exit %d: %s %s", task, code, stdout, stderr)
		}
	}
	code, _, stderr = run(t, "sweep", "--merge", em)
	if code != exitError || !strings.Contains(stderr, "missing: task 1 (points 3 to 5): no part") || !strings.Contains(stderr, "sbatch --array=1 ") {
		t.Fatalf("merge with a part missing: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, "sweep", "--manifest", manifest, "--task", "3"); code != exitUsage {
		t.Errorf("task 3 of 3: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, "sweep", "--manifest", manifest, "--task", "1"); code != exitOK {
		t.Fatal(stderr)
	}
	if code, _, stderr := run(t, "sweep", "--merge", em, "-q"); code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	local := filepath.Join(dir, "local")
	if code, _, stderr := run(t, append(append([]string{"sweep"}, grid...), "--out", local, "-q")...); code != exitOK {
		t.Fatal(stderr)
	}
	for _, name := range []string{"sweep.csv", "sweep.parquet", "sweep_wait_mean.svg"} {
		if !bytes.Equal(readFile(t, filepath.Join(em, name)), readFile(t, filepath.Join(local, name))) {
			t.Errorf("merged %s differs from the local sweep's", name)
		}
	}
	// A part of another sweep is refused, as missing.
	os.WriteFile(filepath.Join(em, "parts", "part-1.json"), []byte(`{"format":"schedsim-sweep-part/1","task":1,"points":[]}`), 0o644)
	if code, _, stderr := run(t, "sweep", "--merge", em); code != exitError || !strings.Contains(stderr, "is not this sweep's part") {
		t.Errorf("merge with a foreign part: exit %d: %s", code, stderr)
	}
}

// TestSweepScenarioFile sweeps TOML keys over a scenario file: the file is
// every point's base, and a key and its option name are one parameter.
func TestSweepScenarioFile(t *testing.T) {
	dir := t.TempDir()
	genTrace(t, dir, "t.swf", 800, "12")
	file := writeFile(t, dir, "s.toml", "trace = \"t.swf\"\norder = \"sjf\"\nout = \"ignored\"\n")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := run(t, "sweep", file, "--param", "reservation_depth=1,2", "--out", out, "--plots=false")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	csv := string(readFile(t, filepath.Join(out, "sweep.csv")))
	if !strings.HasPrefix(csv, "point,key,reservation-depth,trace_name,") || !strings.Contains(csv, "order=sjf") {
		t.Errorf("sweep.csv: want a reservation-depth column and the file's order in every policy:\n%s", csv)
	}
	if !strings.Contains(stdout, "reservation-depth") {
		t.Errorf("table: %s", stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "ignored")); err == nil {
		t.Errorf("a point wrote the scenario file's out")
	}
	// The same points under the option's name are kept, not simulated again.
	code, _, stderr = run(t, "sweep", file, "--param", "reservation-depth=1,2", "--out", out, "--plots=false", "-q")
	if code != exitOK || !strings.Contains(stderr, "2 points: 0 simulated, 2 already done") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

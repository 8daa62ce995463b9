package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readDir returns every file in dir, by name.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// killAtCheckpoint runs schedsim with args in a child process that stops
// just before writing checkpoint n (with the rows since the previous one
// already in the partial jobs.csv), and kills it with SIGKILL there.
func killAtCheckpoint(t *testing.T, n int, args ...string) {
	t.Helper()
	cmd := child(t, []string{"SCHEDSIM_TEST_STALL_CHECKPOINT=" + strconv.Itoa(n)}, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stalled := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var all strings.Builder
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "stalled before checkpoint") {
				stalled <- ""
				return
			}
		}
		stalled <- all.String()
	}()
	select {
	case msg := <-stalled:
		if msg != "" {
			cmd.Wait()
			t.Fatalf("the run ended before checkpoint %d:\n%s", n, msg)
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("the run never reached the checkpoint")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
}

// killResumeCompare runs schedsim with args (a run command without --out)
// into dir/whole, then again into dir/resumed with checkpoints every
// `every` of simulated time, killed with SIGKILL just before checkpoint n
// and resumed with --resume alone; it fails the test unless the two
// directories hold the same files, byte for byte, and returns the
// uninterrupted run's files.
func killResumeCompare(t *testing.T, dir string, n int, every string, args ...string) map[string][]byte {
	t.Helper()
	whole, resumed := filepath.Join(dir, "whole"), filepath.Join(dir, "resumed")
	ck := filepath.Join(dir, "run.ckpt")
	if code, _, stderr := run(t, append(args, "--out", whole)...); code != 0 {
		t.Fatal(stderr)
	}
	killAtCheckpoint(t, n, append(args, "--out", resumed, "--checkpoint", ck, "--checkpoint-every", every)...)
	if _, err := os.Stat(filepath.Join(resumed, "jobs.csv")); err == nil {
		t.Fatal("a killed run left a jobs.csv that looks complete")
	}
	if _, err := os.Stat(ck); err != nil {
		t.Fatalf("no checkpoint after the kill: %v", err)
	}
	// What a kill while a plot was written leaves: its temporary file in
	// the staging directory, which the resumed run must not commit.
	stages, _ := filepath.Glob(filepath.Join(dir, ".resumed.staging-*"))
	if len(stages) != 1 {
		t.Fatalf("staging directories after the kill: %v, want one", stages)
	}
	if err := os.WriteFile(filepath.Join(stages[0], ".wait.svg.tmp-1"), []byte("<svg"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "run", "--resume", ck); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	want, got := readDir(t, whole), readDir(t, resumed)
	if len(want) < 4 {
		t.Fatalf("the uninterrupted run wrote %v", names(want))
	}
	if !slices.Equal(names(got), names(want)) {
		t.Errorf("resumed run wrote %v, uninterrupted %v", names(got), names(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs after kill and resume", name)
		}
	}
	if _, err := os.Stat(ck); err == nil {
		t.Error("the checkpoint of a completed run was left behind")
	}
	return want
}

// A run of LANL-CM5 under EASY, killed with SIGKILL after some checkpoints
// and resumed with --resume alone, writes the same files as a run never
// interrupted, byte for byte (jobs.csv, summary.json, plots and report).
func TestCheckpointKillResumeLANL(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", trace)
	}
	killResumeCompare(t, t.TempDir(), 7, "30d", "run", "--trace", trace, "--backfill", "easy", "--lookahead", "all", "-q")
}

// SCore-D's queues in gang and exclusive mode, killed with SIGKILL after
// some checkpoints of a LANL-CM5 run and resumed, write the same files as
// an uninterrupted run (the gang clock, rows, suspended and demoted jobs
// are saved exactly).
func TestCheckpointKillResumeScoreD(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", trace)
	}
	for _, mode := range []string{"gang", "exclusive"} {
		t.Run(mode, func(t *testing.T) {
			files := killResumeCompare(t, t.TempDir(), 9, "30d", "run", "--trace", trace, "--mode", mode, "-q")
			if !bytes.Contains(files["jobs.csv"], []byte(",suspensions,")) {
				t.Error("jobs.csv has no SCore-D columns")
			}
		})
	}
}

// A checkpoint that cannot be used is refused with exit status 2 and a
// message that says why, and nothing is written.
func TestCheckpointRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ck := filepath.Join(dir, "run.ckpt")
	trace := writeFile(t, dir, "t.swf", smallTrace)
	big := filepath.Join(dir, "big.swf")
	if code, _, stderr := run(t, "generate", "--jobs", "2000", "--procs", "64", "--out", big); code != 0 {
		t.Fatal(stderr)
	}
	args := []string{"run", "--trace", big, "-q", "--plots=false", "--out", out, "--checkpoint", ck, "--checkpoint-every", "6h"}
	killAtCheckpoint(t, 4, args...)
	good, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	variant := func(name string, edit func([]byte) []byte) string {
		b := edit(bytes.Clone(good))
		return writeFile(t, dir, name, string(b))
	}
	flip := variant("flipped", func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b })
	trunc := variant("truncated", func(b []byte) []byte { return b[:len(b)-9] })
	version := variant("version", func(b []byte) []byte { b[len("schedsim-checkpoint\n")+3] = 99; return b })
	notCk := writeFile(t, dir, "notck", smallTrace)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"corrupt", []string{"run", "--resume", flip}, "corrupt: checksum"},
		{"truncated", []string{"run", "--resume", trunc}, "truncated"},
		{"version", []string{"run", "--resume", version}, "format version 99"},
		{"not a checkpoint", []string{"run", "--resume", notCk}, "not a schedsim checkpoint"},
		{"missing", []string{"run", "--resume", filepath.Join(dir, "nope")}, "no such file"},
		{"other options", append(append([]string{}, args...), "--lookahead", "all", "--resume", ck), "the checkpoint was taken with other options (lookahead: saved \"1000\", now \"all\")"},
		{"every without checkpoint", []string{"run", "--trace", trace, "--checkpoint-every", "1d"}, "--checkpoint-every needs --checkpoint"},
		{"no directory", []string{"run", "--trace", trace, "--checkpoint", filepath.Join(dir, "nodir", "x.ckpt")}, "--checkpoint " + filepath.Join(dir, "nodir", "x.ckpt") + ": no directory"},
		{"bad every", []string{"run", "--trace", trace, "--checkpoint", ck + "2", "--checkpoint-every", "soon"}, "--checkpoint-every \"soon\""},
		{"order", []string{"run", "--trace", trace, "--order", "wfp3", "--checkpoint", ck + "2", "--checkpoint-every", "1h"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if tc.want == "" { // accepted
				if code != 0 {
					t.Fatalf("exit %d, stderr %q", code, stderr)
				}
				return
			}
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(out, "jobs.csv")); err == nil {
		t.Fatal("a refused resume wrote jobs.csv")
	}

	// The trace changed since the checkpoint.
	changed := writeFile(t, dir, "changed.ckpt", string(good))
	orig, err := os.ReadFile(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, append(bytes.Clone(orig), []byte("\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "run", "--resume", changed); code != 2 || !strings.Contains(stderr, "the trace is now") {
		t.Fatalf("changed trace: exit %d, %q", code, stderr)
	}
	if err := os.WriteFile(big, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	// The partial jobs.csv is gone.
	partial, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".staging-*", ".jobs.csv.tmp-*"))
	if len(partial) != 1 {
		t.Fatalf("partial files: %v", partial)
	}
	saved, err := os.ReadFile(partial[0])
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(partial[0])
	if code, _, stderr := run(t, "run", "--resume", ck); code != 2 || !strings.Contains(stderr, "partial file is gone") {
		t.Fatalf("no partial file: exit %d, %q", code, stderr)
	}
	// Restored, the checkpoint resumes.
	if err := os.WriteFile(partial[0], saved, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "run", "--resume", ck); code != 0 {
		t.Fatalf("resume: exit %d, %q", code, stderr)
	}
}

// A run with node events, killed after some
// checkpoints and resumed, writes the same files as a run never
// interrupted: the summary's node-failure figures (jobs killed by a node,
// capacity out of service) must survive the checkpoint too.
func TestCheckpointKillResumeNodeEvents(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.swf")
	if code, _, stderr := run(t, "generate", "--jobs", "2000", "--procs", "64", "--out", big); code != 0 {
		t.Fatal(stderr)
	}
	events := writeFile(t, dir, "ev.nodes", "1d DOWN 0-3 fan\n2d RESUME 0-3\n3d DRAIN 5-10\n4d RESUME 5-10\n5d DOWN 8-15\n6d RESUME 8-15\n")
	for _, onFail := range []string{"kill", "requeue"} {
		t.Run(onFail, func(t *testing.T) {
			want := killResumeCompare(t, filepath.Join(dir, onFail), 14, "12h",
				"run", "--trace", big, "-q", "--node-events", events, "--node-size", "4", "--on-node-fail", onFail)
			if !bytes.Contains(want["summary.json"], []byte(`"node_failures"`)) {
				t.Fatal("the run has no node failures: the test does not exercise them")
			}
		})
	}
}

// A run with growing jobs (--grow, Amdahl), killed after some checkpoints
// and resumed, writes the same files as a run never interrupted (jobs.csv
// with the grown jobs' steps, the Gantt chart's pieces, the summary).
func TestCheckpointKillResumeGrow(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "malleable.parquet")
	writeParquetTrace(t, trace, 64, growScenarioJobs())
	killResumeCompare(t, dir, 5, "6h", "run", "--trace", trace, "-q", "--grow", "--speedup", "amdahl:0.1")
}

// A --config without HPC Pack filters or templates (only a [cluster], or
// only [hpcpack] grow = true) can be checkpointed: the README promises
// checkpoints with [cluster], and such a file has no filter state to save.
// Killed and resumed, each run writes the files of an uninterrupted one.
func TestCheckpointConfigWithoutFilters(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.swf")
	if code, _, stderr := run(t, "generate", "--jobs", "2000", "--procs", "64", "--out", big); code != 0 {
		t.Fatal(stderr)
	}
	malleable := filepath.Join(dir, "malleable.parquet")
	writeParquetTrace(t, malleable, 64, growScenarioJobs())
	cluster := writeFile(t, dir, "cluster.toml", "[cluster]\nselect = \"linear\"\n[[cluster.groups]]\nname = \"a\"\ncount = 16\ncores = 4\n")
	grow := writeFile(t, dir, "grow.toml", "[hpcpack]\ngrow = true\nspeedup = \"amdahl:0.1\"\n")
	for _, tc := range []struct {
		name, trace, config string
	}{{"cluster", big, cluster}, {"hpcpack-grow", malleable, grow}} {
		t.Run(tc.name, func(t *testing.T) {
			killResumeCompare(t, filepath.Join(dir, tc.name), 3, "12h", "run", "--trace", tc.trace, "-q", "--config", tc.config)
		})
	}
}

// A checkpointed run that stops on bad input (exit 2) leaves nothing
// behind: resuming it could only stop on the same line again, so its
// checkpoint and partial jobs.csv go, as the outputs of any failed run do.
func TestCheckpointBadInputLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.swf")
	if code, _, stderr := run(t, "generate", "--jobs", "2000", "--procs", "64", "--out", big); code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(big)
	if err != nil {
		t.Fatal(err)
	}
	bad := writeFile(t, dir, "bad.swf", string(b)+"99999 9000000 -1 1x0 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n")
	out, ck := filepath.Join(dir, "out"), filepath.Join(dir, "run.ckpt")
	code, _, stderr := run(t, "run", "--trace", bad, "-q", "--out", out, "--checkpoint", ck, "--checkpoint-every", "6h")
	if code != exitUsage || !strings.Contains(stderr, "1x0") {
		t.Fatalf("exit %d, stderr %q; want %d and the bad field", code, stderr, exitUsage)
	}
	if _, err := os.Stat(ck); err == nil {
		t.Error("the checkpoint of a run stopped by bad input was left behind")
	}
	if left, _ := filepath.Glob(filepath.Join(out, "*")); len(left) > 0 {
		t.Errorf("files left in %s: %v", out, left)
	}
}

// A run with reservations, a start window, limits and a scheduler cycle,
// killed with SIGKILL after some checkpoints and resumed, writes the same
// files as a run never interrupted: the limits' counts, the calendar's
// wake-ups and the ends a cycle keeps between passes survive.
func TestCheckpointKillResumeCalendar(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.swf")
	if code, _, stderr := run(t, "generate", "--jobs", "2000", "--procs", "64", "--out", big); code != 0 {
		t.Fatal(stderr)
	}
	conf := writeFile(t, dir, "calendar.toml", `
[[reservation]]
name = "nightly"
start = "2h"
duration = "1h"
recur = "daily"

[[reservation]]
name = "half"
start = "2d"
duration = "6h"
procs = 32

[[start_window]]
days = "Mon-Fri"
hours = "08:00-18:00"
max_wall = "2h"

[[limit]]
users = ["*"]
max_jobs_per_user = 3
grp_cpus = 60
`)
	want := killResumeCompare(t, dir, 6, "12h", "run", "--trace", big, "-q", "--config", conf, "--sched-interval", "60")
	if !bytes.Contains(want["summary.json"], []byte(`"constraints"`)) {
		t.Fatal("the summary records no constraints: the test does not exercise them")
	}
}

// A run with a submission latency under conservative backfilling, killed
// with SIGKILL after some checkpoints and resumed, writes the files of a
// run never interrupted: the jobs waiting out their latency at a
// checkpoint are saved with the held ones.
func TestCheckpointKillResumeLatency(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.swf")
	if code, _, stderr := run(t, "generate", "--jobs", "2000", "--procs", "64", "--out", big); code != 0 {
		t.Fatal(stderr)
	}
	want := killResumeCompare(t, dir, 5, "12h", "run", "--trace", big, "-q", "--backfill", "conservative", "--submit-latency", "45s")
	if !bytes.Contains(want["summary.json"], []byte(`"submit_latency": "45s"`)) || !bytes.Contains(want["jobs.csv"], []byte("hold_until=")) {
		t.Fatal("the run has no latency: the test does not exercise it")
	}
}

// A replay of LANL-CM5's first jobs with its time-shared queue 1
// (--shared-queues, on a machine whose processors are numbered, as
// checkpoints need), killed after some checkpoints and resumed, writes the
// files of a run never interrupted: the processors the running
// time-shared jobs share beyond those they took are recounted from the
// saved allocations.
func TestCheckpointKillResumeShared(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", trace)
	}
	dir := t.TempDir()
	want := killResumeCompare(t, dir, 4, "1d", "run", "--trace", trace, "-q", "--max-jobs", "6000", "--backfill", "easy",
		"--shared-queues", "1", "--immediate-queues", "6", "--submit-latency", "2s")
	if !bytes.Contains(want["summary.json"], []byte(`"shared_queues": [`)) {
		t.Fatal("the run has no shared queue: the test does not exercise it")
	}
}

// A run in ms (--time-unit ms) of HPC2N's first jobs as a Batsim
// workload, with node events and Slurm's backfill, killed with SIGKILL
// after some checkpoints (spaced in simulated seconds) and resumed with
// --resume alone, writes the files of a run never interrupted, byte for
// byte: jobs.csv in seconds with 3 decimals, jobs.parquet in ms,
// summary.json, the plots.
func TestCheckpointKillResumeTimeUnit(t *testing.T) {
	swf := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(swf); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", swf)
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "hpc2n.json")
	if code, _, stderr := run(t, "convert", swf, trace); code != 0 {
		t.Fatal(stderr)
	}
	events := writeFile(t, dir, "ev.nodes", "2d DOWN 0-9 fan\n3d RESUME 0-9\n10d DRAIN 50-60\n12d RESUME 50-60\n")
	want := killResumeCompare(t, filepath.Join(dir, "ms"), 4, "3d", "run", "--trace", trace, "-q", "--time-unit", "ms",
		"--backfill", "slurm", "--node-events", events, "--node-size", "2", "--format", "csv,parquet")
	if !bytes.Contains(want["summary.json"], []byte(`"time_unit": "ms"`)) || !bytes.Contains(want["jobs.csv"], []byte(".000,")) {
		t.Fatal("the run is not in ms")
	}
}

// Activation filters on a cluster of nodes, killed after some checkpoints
// and resumed, write the same files as a run never interrupted: the nodes
// each reserving job keeps (result 2) are saved with the filters' notes.
func TestCheckpointKillResumeNodesActivation(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", trace)
	}
	dir := t.TempDir()
	config := writeFile(t, dir, "nodes.toml", "[cluster]\nselect = \"cons_res\"\n[[cluster.groups]]\nname = \"n\"\ncount = 120\ncores = 2\n"+
		"[filters]\nactivation = [\"licenses\"]\n[licenses]\nwhen_short = 2\n[licenses.pool]\nfluent = 12\n"+
		"[templates.Big]\nlicenses = \"fluent:2\"\n[[template_rules]]\ntemplate = \"Big\"\nmin_procs = 8\n")
	want := killResumeCompare(t, dir, 3, "10d", "run", "--trace", trace, "-q", "--max-jobs", "1500", "--config", config, "--backfill", "easy")
	if !bytes.Contains(want["jobs.csv"], []byte("reserving_sec=")) {
		t.Fatal("no job kept its nodes reserved: the test does not exercise them")
	}
}

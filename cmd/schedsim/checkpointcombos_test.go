package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hpc2nFirst returns the path of the first 3,170 jobs of HPC2N-2002 (57
// days on 240 processors) in ../shared/traces, or skips the test.
func hpc2nFirst(t *testing.T) string {
	t.Helper()
	return sharedTrace(t, "HPC2N-2002-first3170.swf.gz")
}

// killResumeVerify is killResumeCompare followed by schedsim verify on the
// uninterrupted run's directory (which holds the resumed run's bytes).
func killResumeVerify(t *testing.T, dir string, n int, every string, args ...string) map[string][]byte {
	t.Helper()
	files := killResumeCompare(t, dir, n, every, args...)
	if code, stdout, stderr := run(t, "verify", filepath.Join(dir, "resumed")); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
		t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
	return files
}

// jobs.parquet with checkpoints: a run of HPC2N-2002 killed with SIGKILL
// part-way and resumed writes the jobs.parquet (and every other file) of an
// uninterrupted run, byte for byte: the rows written before the
// checkpoint come back from its sidecar file, in order, and the footer
// describes the same row groups. With jobs.parquet alone, and beside
// jobs.csv.
func TestCheckpointKillResumeParquet(t *testing.T) {
	trace := hpc2nFirst(t)
	for _, format := range []string{"parquet", "csv,parquet"} {
		t.Run(format, func(t *testing.T) {
			files := killResumeVerify(t, t.TempDir(), 12, "2d", "run", "--trace", trace, "-q", "--format", format)
			if len(files["jobs.parquet"]) == 0 {
				t.Fatal("no jobs.parquet")
			}
			if _, csv := files["jobs.csv"]; csv != strings.Contains(format, "csv") {
				t.Errorf("--format %s wrote %v", format, names(files))
			}
		})
	}
}

// hpcPackCheckpointConfig has every built-in filter, with state to save:
// a license pool that runs short (result 2 keeps the resources), a quota
// that holds users until the next day (result 3), require-runtime and
// max-size at submission, and templates that give jobs licenses and
// priorities by rule.
const hpcPackCheckpointConfig = `
[filters]
submission = ["require-runtime", "max-size"]
activation = ["licenses", "quota"]
reevaluate = "5m"

[licenses]
when_short = 2
[licenses.pool]
fluent = 96
matlab = 3

[quota]
proc_seconds = 2e6
window = "1d"

[require_runtime]
runtime = "1h"

[max_size]
procs = 64

[templates.Wide]
licenses = "fluent:*"
[templates.Small]
licenses = "matlab:1"
priority = 5

[[template_rules]]
template = "Wide"
min_procs = 16
[[template_rules]]
template = "Small"
max_procs = 2
`

// HPC Pack's built-in filters with checkpoints: a run of HPC2N-2002 under
// license pools, quotas, submission filters and templates, killed with
// SIGKILL part-way and resumed, writes the files of an uninterrupted run,
// byte for byte (jobs.csv's filter notes included), and verify accepts
// them: the licenses taken, the users' usage and the jobs' notes are in
// the checkpoint.
func TestCheckpointKillResumeFilters(t *testing.T) {
	trace := hpc2nFirst(t)
	dir := t.TempDir()
	conf := writeFile(t, dir, "hpcpack.toml", hpcPackCheckpointConfig)
	files := killResumeVerify(t, dir, 10, "2d", "run", "--trace", trace, "-q", "--config", conf)
	for _, want := range []string{",2x", ",3x", "reserving_sec=", "held_sec=", "COMPLETED_FAILED", "submission filter failed the job (max-size"} {
		if !bytes.Contains(files["jobs.csv"], []byte(want)) {
			t.Errorf("jobs.csv has no %q: the test does not exercise it", want)
		}
	}
}

// filterProgram is an activation filter program that decides from its
// arguments and the job file alone: a job of more than 32 cores is kept
// waiting (result 2, with a line on standard error) at the passes whose
// number is not a multiple of 3. It keeps nothing in files.
const filterProgram = `#!/bin/sh
[ "$SCHEDSIM_FILTER_REVERT" = 1 ] && exit 0
[ "$SCHEDSIM_FILTER_KIND" = activation ] || exit 0
cores=$(grep -o 'MaxCores="[0-9]*"' "$1" | head -n 1 | tr -dc 0-9)
if [ "${cores:-0}" -gt 32 ] && [ $(($2 % 3)) -ne 0 ]; then
	echo "wide job: $cores cores at pass $2, index $3" >&2
	exit 2
fi
exit 0
`

// A filter program with checkpoints: it runs outside schedsim, which
// calls it again, after a resume, for the calls after the checkpoint. A
// program that decides from the job file and its arguments (the pass
// number, which the checkpoint saves) gives the same answers, so a run of
// HPC2N-2002's first 400 jobs killed part-way and resumed writes the files
// of an uninterrupted one, filters.log (its standard error) included.
func TestCheckpointKillResumeFilterProgram(t *testing.T) {
	trace := hpc2nFirst(t)
	dir := t.TempDir()
	prog := writeFile(t, dir, "wide.sh", filterProgram)
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	conf := writeFile(t, dir, "hpcpack.toml", "[filters]\nactivation = [\"wide\"]\n[programs.wide]\npath = \"./wide.sh\"\n")
	files := killResumeVerify(t, dir, 4, "1d", "run", "--trace", trace, "-q", "--max-jobs", "400", "--config", conf)
	if !bytes.Contains(files["filters.log"], []byte("wide job: ")) || !bytes.Contains(files["jobs.csv"], []byte(",2x")) {
		t.Error("the program refused no job: the test does not exercise it")
	}
}

// withFeedback writes the SWF trace at path into dir with SWF's feedback
// fields filled in: each job names the previous job of its user that was
// submitted less than a day before it as its preceding job (field 17),
// with a think time (field 18) of 0 to 9 minutes by job number. Real logs
// rarely record them; this gives a closed loop a real trace's jobs.
func withFeedback(t *testing.T, dir, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	last := map[string][2]int64{} // user: job number, submit time
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		if strings.HasPrefix(line, ";") || len(fs) != 18 {
			b.WriteString(line + "\n")
			continue
		}
		id, _ := strconv.ParseInt(fs[0], 10, 64)
		submit, _ := strconv.ParseInt(fs[1], 10, 64)
		if prev, ok := last[fs[11]]; ok && submit-prev[1] < 86400 {
			fs[16], fs[17] = strconv.FormatInt(prev[0], 10), strconv.FormatInt(60*(id%10), 10)
		}
		last[fs[11]] = [2]int64{id, submit}
		b.WriteString(strings.Join(fs, " ") + "\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "feedback.swf", b.String())
}

// A closed loop with checkpoints: a run of HPC2N-2002 with feedback, its
// jobs submitted as their preceding jobs end, killed with SIGKILL
// part-way and resumed, writes the files of an uninterrupted run (the jobs
// waiting for their preceding job, and those delayed to a later instant,
// are in the checkpoint), and verify accepts them.
func TestCheckpointKillResumeClosedLoop(t *testing.T) {
	dir := t.TempDir()
	trace := withFeedback(t, dir, hpc2nFirst(t))
	files := killResumeVerify(t, dir, 10, "2d", "run", "--trace", trace, "-q", "--closed-loop")
	var sum struct {
		ClosedLoop struct {
			Following, Delayed int
		} `json:"closed_loop"`
	}
	if err := json.Unmarshal(files["summary.json"], &sum); err != nil {
		t.Fatal(err)
	}
	if sum.ClosedLoop.Delayed < 100 {
		t.Errorf("closed_loop %+v: too few jobs delayed for the test to exercise the loop", sum.ClosedLoop)
	}
}

// A power model with checkpoints: a run of HPC2N-2002 metered on 60 nodes
// of 4 cores with two power states, killed with SIGKILL part-way and
// resumed, writes the files of an uninterrupted run — consumed_energy in
// jobs.csv, consumed_energy.csv, pstate_changes.csv, machine_states.csv,
// the energy in summary.json — and verify accepts them: the records the
// meter keeps to the end of the run are in the checkpoint's FILE.energy.
func TestCheckpointKillResumePower(t *testing.T) {
	trace := hpc2nFirst(t)
	dir := t.TempDir()
	conf := writeFile(t, dir, "power.toml", "[[power.groups]]\nname = \"seth\"\ncount = 60\ncores = 4\nwatts = [\"100:120:200\", \"60:70:110\"]\n")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"easy", nil},
		// SCore-D's gang matrix, metered by its processors' busy
		// stretches (their start times are in the checkpoint).
		{"scored gang", []string{"--mode", "gang"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", "--trace", trace, "-q", "--config", conf}, c.args...)
			files := killResumeVerify(t, t.TempDir(), 10, "2d", args...)
			for _, name := range []string{"consumed_energy.csv", "pstate_changes.csv", "machine_states.csv"} {
				if len(files[name]) == 0 {
					t.Errorf("no %s", name)
				}
			}
			if !bytes.Contains(files["summary.json"], []byte(`"energy"`)) {
				t.Error("summary.json has no energy")
			}
		})
	}
}

// Switching nodes off with checkpoints: runs of HPC2N-2002 that switch
// idle nodes off (idle:T, and plan with the head's reservation), killed
// with SIGKILL part-way and resumed, write the files of uninterrupted runs
// — pstate_changes.csv's switches included — and verify accepts them: the
// nodes' power states, the switches under way and the engine's timers are
// in the checkpoint, the switches logged so far in FILE.energy.
func TestCheckpointKillResumeSwitching(t *testing.T) {
	trace := hpc2nFirst(t)
	dir := t.TempDir()
	conf := writeFile(t, dir, "power.toml", switchingPower)
	for _, pol := range []string{"idle:10m", "plan"} {
		t.Run(pol, func(t *testing.T) {
			files := killResumeVerify(t, filepath.Join(dir, strings.ReplaceAll(pol, ":", "-")), 10, "2d", "run", "--trace", trace, "-q", "--config", conf, "--power-policy", pol)
			if bytes.Count(files["pstate_changes.csv"], []byte("\n")) < 50 {
				t.Errorf("pstate_changes.csv has few switches: the test does not exercise them\n%.300s", files["pstate_changes.csv"])
			}
		})
	}
	// SCore-D's queues, gang and exclusive: the nodes' power states, the
	// switches under way and the idle timeouts are in SCore-D's state.
	for _, mode := range []string{"gang", "exclusive"} {
		t.Run("scored "+mode, func(t *testing.T) {
			files := killResumeVerify(t, filepath.Join(dir, "scored-"+mode), 10, "2d", "run", "--trace", trace, "-q", "--config", conf, "--power-policy", "idle:10m", "--mode", mode)
			if bytes.Count(files["pstate_changes.csv"], []byte("\n")) < 50 {
				t.Errorf("pstate_changes.csv has few switches: the test does not exercise them\n%.300s", files["pstate_changes.csv"])
			}
		})
	}
	// With node failures that requeue jobs: the nodes' service states
	// beside their power states, and the cut-short runs the meter keeps,
	// survive the checkpoint.
	t.Run("node events", func(t *testing.T) {
		events := writeFile(t, dir, "events.txt", "4950000 DOWN 0-29 power supply\n4955000 RESUME 0-29\n4980000 DOWN 30-59 cooling\n4990000 RESUME 30-59\n")
		files := killResumeVerify(t, filepath.Join(dir, "events"), 10, "2d", "run", "--trace", trace, "-q", "--config", conf, "--power-policy", "idle:10m",
			"--node-events", events, "--node-size", "4", "--on-node-fail", "requeue")
		if !bytes.Contains(files["summary.json"], []byte(`"requeued"`)) {
			t.Error("summary.json has no node failures")
		}
	})
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// licenseJobs is the license scenario: a 128-processor machine; 10 jobs of
// 8 processors and 2 h each need 4 of 8 fluent licenses (one a minute in
// the first 10 min), while unlicensed jobs of 4 processors and 10–30 min keep
// arriving, one a minute, for 12 h (a load of about 75 %).
func licenseJobs() []workload.Job {
	var jobs []workload.Job
	add := func(submit workload.Time, procs int, run, est workload.Time, lic string) {
		id := int64(len(jobs) + 1)
		jobs = append(jobs, workload.Job{ID: id, Submit: submit, Procs: procs, Run: run, Estimate: est,
			RawWait: -1, RawRun: float64(run), AllocProcs: procs, ReqProcs: procs, ReqTime: float64(est),
			AvgCPUSec: -1, UsedMemKB: -1, ReqMemKB: -1, Status: 1, User: 1 + int(id%7), Group: -1,
			Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1, Licenses: lic})
	}
	lic := 0
	for t := workload.Time(0); t < 12*3600; t += 60 {
		if lic < 10 && t == workload.Time(lic)*60 {
			add(t, 8, 7200, 7200, "fluent:4")
			lic++
		}
		run := 600 + (t*7919)%1200
		add(t, 4, run, run+run/2, "")
	}
	return jobs
}

// writeParquetTrace writes jobs as a Parquet trace with MaxProcs procs.
func writeParquetTrace(t testing.TB, path string, procs int, jobs []workload.Job) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := workload.NewParquetWriter(f, &workload.Header{MaxProcs: procs, Fields: []workload.HeaderField{{Key: "MaxProcs", Value: fmt.Sprint(procs)}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		if err := w.Write(&jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLicenseScenario compares the results a license filter gives when
// licenses are short: 1 (block the queue: HPC Pack 2008's only choice)
// idles the cluster, 2 (keep the resources) and 3 (hold) do not — what the
// 2008 R2 change was for.
func TestLicenseScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the license scenario in -short mode")
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "licenses.parquet")
	writeParquetTrace(t, trace, 128, licenseJobs())
	var runs []string
	for _, short := range []int{1, 2, 3} {
		cfg := writeFile(t, dir, fmt.Sprintf("short%d.toml", short), fmt.Sprintf(`
[filters]
activation = ["licenses"]
[licenses]
when_short = %d
[licenses.pool]
fluent = 8
`, short))
		runs = append(runs, "--run", fmt.Sprintf("result-%d: --config %s", short, cfg))
	}
	var stdout, stderr bytes.Buffer
	args := append([]string{"compare", "--trace", trace, "--jobs", "1", "--progress", "never", "--run", "no-filter:"}, runs...)
	if code := mainWith(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	t.Logf("schedsim compare on the license scenario:\n%s", stdout.String())

	// The same runs one by one, for their summaries and per-job records.
	sums := map[int]report.Summary{}
	for _, short := range []int{1, 2, 3} {
		out := filepath.Join(dir, fmt.Sprintf("out%d", short))
		cfg := filepath.Join(dir, fmt.Sprintf("short%d.toml", short))
		if code := mainWith([]string{"run", "--trace", trace, "--config", cfg, "--out", out, "--plots=false", "-q", "--progress", "never"}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s report.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		sums[short] = s
		rows := simtest.ReadCSV(t, filepath.Join(out, "jobs.csv"))
		// The 8 licensed jobs that found no licenses say so in their notes.
		state := map[int]string{1: "blocked_sec=", 2: "reserving_sec=", 3: "held_sec="}[short]
		noted := 0
		for _, r := range rows[1:] {
			if strings.Contains(r[16], state) {
				noted++
			}
		}
		if noted < 8 {
			t.Errorf("result %d: %d jobs noted %s, want ≥ 8", short, noted, state)
		}
	}
	for short, s := range sums {
		t.Logf("result %d: utilisation %.3f, mean wait %.0f s, loss of capacity %.3f, makespan %d s",
			short, s.Utilisation, s.Wait.Mean, s.LossOfCapacity, s.MakespanSec)
		if s.Started != s.Jobs {
			t.Errorf("result %d: %d of %d jobs ran", short, s.Started, s.Jobs)
		}
	}
	// Blocking the queue idles the cluster: far more capacity lost, far
	// longer waits than with 2 or 3.
	for _, other := range []int{2, 3} {
		if !(sums[1].LossOfCapacity > 2*sums[other].LossOfCapacity && sums[1].Wait.Mean > 2*sums[other].Wait.Mean) {
			t.Errorf("result 1 (loss %.3f, wait %.0f) should idle the cluster far more than result %d (loss %.3f, wait %.0f)",
				sums[1].LossOfCapacity, sums[1].Wait.Mean, other, sums[other].LossOfCapacity, sums[other].Wait.Mean)
		}
	}
}

// TestRunWithFilterPrograms runs real filter programs (shell scripts) in a
// simulation: a submission filter that changes job 1 (result 1) and fails
// job 2, an activation filter that keeps job 3 waiting once (result 2). The
// outputs say what happened: valid CSV with the filters' messages, and the
// programs' standard error in DIR/filters.log.
func TestRunWithFilterPrograms(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "small.swf", smallTrace)
	sub := writeFile(t, dir, "sub.sh", `#!/bin/sh
if grep -q ' Id="1"' "$1"; then sed -i 's/RuntimeSeconds="[0-9]*"/RuntimeSeconds="150"/' "$1"; exit 1; fi
if grep -q ' Id="2"' "$1"; then echo "8 cores, too big, for \"site\" rules" >&2; exit 3; fi
exit 0
`)
	act := writeFile(t, dir, "act.sh", `#!/bin/sh
if grep -q ' Id="3"' "$1" && [ ! -e "`+dir+`/seen3" ]; then touch "`+dir+`/seen3"; echo "no license yet" >&2; exit 2; fi
exit 0
`)
	for _, p := range []string{sub, act} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := writeFile(t, dir, "cfg.toml", fmt.Sprintf(`
[filters]
submission = ["sub"]
activation = ["act"]
reevaluate = "30s"
[programs.sub]
path = %q
[programs.act]
path = %q
`, sub, act))
	out := filepath.Join(dir, "out")
	code, _, stderr := run(t, "run", "--trace", trace, "--config", cfg, "--out", out, "--plots=false", "-q", "--progress", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "filter programs: 7 calls") {
		t.Errorf("stderr %q lacks the program call count (4 submissions, 3 activations)", stderr)
	}
	rows := simtest.ReadCSV(t, filepath.Join(out, "jobs.csv"))
	byID := map[string][]string{}
	for _, r := range rows[1:] {
		byID[r[0]] = r
	}
	// Job 1: its requested time became 150 s.
	if r := byID["1"]; r[5] != "150" || r[7] != "COMPLETED_SUCCESSFULLY" || r[16] != "submit=1 activate=0x1" {
		t.Errorf("job 1: %q", r)
	}
	// Job 2: failed at submission, with the program's message.
	if r := byID["2"]; r[7] != "COMPLETED_FAILED" || r[16] != `submission filter failed the job (sub: 3, 8 cores, too big, for "site" rules); submit=3 failed_at=0` {
		t.Errorf("job 2: %q", r)
	}
	// Job 3 (submitted at 5, 4 processors, fits beside job 1): kept
	// waiting with its processors reserved, re-evaluated 30 s later.
	if r := byID["3"]; r[8] != "35" || r[16] != "submit=0 activate=0x1,2x1 reserving_sec=30" {
		t.Errorf("job 3: %q", r)
	}
	log, err := os.ReadFile(filepath.Join(out, "filters.log"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "act job 3 activation: no license yet\n"; !strings.Contains(string(log), want) {
		t.Errorf("filters.log %q lacks %q", log, want)
	}
	if code, stdout, stderr := run(t, "verify", out); code != 0 {
		t.Errorf("verify: exit %d: %s %s", code, stdout, stderr)
	}
}

// BenchmarkRunExecFilter measures the exec path: a run of 10,000 generated
// jobs with a trivial shell script ("exit 0") as submission and activation
// filter, so every job costs at least two program calls. It reports the
// program calls per second and the run's wall time; run it with
// -benchtime 1x.
func BenchmarkRunExecFilter(b *testing.B) {
	dir := b.TempDir()
	trace := filepath.Join(dir, "gen.swf")
	var out, errb bytes.Buffer
	if code := mainWith([]string{"generate", "--jobs", "10000", "--procs", "128", "--load", "0.9", "--seed", "7", "--out", trace}, &out, &errb); code != 0 {
		b.Fatalf("generate: %s", errb.String())
	}
	prog := filepath.Join(dir, "ok.sh")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	cfg := filepath.Join(dir, "cfg.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[filters]\nsubmission = [\"ok\"]\nactivation = [\"ok\"]\n[programs.ok]\npath = %q\n", prog)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		errb.Reset()
		if code := mainWith([]string{"run", "--trace", trace, "--config", cfg, "-q", "--progress", "never"}, &out, &errb); code != 0 {
			b.Fatalf("run: %s", errb.String())
		}
	}
	b.StopTimer()
	var calls int64
	var secs, rate float64
	if _, err := fmt.Sscanf(strings.TrimSpace(errb.String()), "filter programs: %d calls in %f s (%f calls/s)", &calls, &secs, &rate); err != nil {
		b.Fatalf("stderr %q: %v", errb.String(), err)
	}
	b.ReportMetric(float64(calls), "calls/run")
	b.ReportMetric(rate, "calls/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
}

package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// follow is a job of hpc2nSessions that follows another.
type follow struct {
	pred, think, submit int64
}

// hpc2nSessions writes HPC2N's first 3170 jobs into dir as user sessions:
// each job whose user's previous job had ended (by the log) when it was
// submitted follows that job (SWF field 17) after the think time the log
// shows (field 18). It returns the trace's path and, by job number, the
// jobs that follow another; it skips the test without the trace.
func hpc2nSessions(t *testing.T, dir string) (string, map[string]follow) {
	t.Helper()
	src := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	f, err := os.Open(src)
	if err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", src)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	type prev struct{ id, end int64 }
	last := map[string]prev{}
	follows := map[string]follow{}
	var b strings.Builder
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		if strings.HasPrefix(line, ";") || len(fs) != 18 {
			b.WriteString(line + "\n")
			continue
		}
		n := make([]int64, 5)
		for i, k := range []int{0, 1, 2, 3, 11} {
			n[i], _ = strconv.ParseInt(fs[k], 10, 64)
		}
		id, submit, wait, run, user := n[0], n[1], max(n[2], 0), max(n[3], 0), fs[11]
		fs[16], fs[17] = "-1", "-1"
		if p, ok := last[user]; ok && p.end <= submit {
			fs[16], fs[17] = strconv.FormatInt(p.id, 10), strconv.FormatInt(submit-p.end, 10)
			follows[fs[0]] = follow{p.id, submit - p.end, submit}
		}
		last[user] = prev{id, submit + wait + run}
		b.WriteString(strings.Join(fs, " ") + "\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(follows) < 500 {
		t.Fatalf("only %d jobs follow another: the sessions are not derived", len(follows))
	}
	return writeFile(t, dir, "hpc2n-sessions.swf", b.String()), follows
}

// TestScoreDClosedLoopHPC2N replays HPC2N's first 3170 jobs as user
// sessions under SCore-D's queues with --closed-loop: each job whose user's
// previous job had ended (by the log) when it was submitted follows that
// job (SWF field 17) after the think time the log shows (field 18). In gang
// and exclusive mode every run passes verify, and every job that follows
// another is submitted at max(its recorded time, the other's end + the
// think time), the other's end as jobs.csv records it.
func TestScoreDClosedLoopHPC2N(t *testing.T) {
	dir := t.TempDir()
	trace, follows := hpc2nSessions(t, dir)
	for _, mode := range []string{"gang", "exclusive"} {
		out := filepath.Join(dir, mode)
		if code, _, stderr := run(t, "run", "--trace", trace, "--mode", mode, "--closed-loop", "--out", out, "-q", "--plots=false"); code != exitOK {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
			t.Fatalf("%s: verify: exit %d:\n%s%s", mode, code, stdout, stderr)
		}
		jobs := readScoreDJobs(t, out)
		delayed := 0
		for id, fl := range follows {
			j, ok := jobs[id]
			if !ok {
				continue // dropped by a cleaning rule
			}
			p, ok := jobs[strconv.FormatInt(fl.pred, 10)]
			if !ok {
				continue
			}
			end := p["finish_time"]
			if p["final_state"] == "REJECTED" {
				end = p["submission_time"]
			}
			pe, _ := strconv.ParseInt(end, 10, 64)
			want := max(fl.submit, pe+fl.think)
			if got := j["submission_time"]; got != fmt.Sprint(want) {
				t.Fatalf("%s: job %s (recorded %d, after %d ending at %d, think %d) submitted at %s, want %d", mode, id, fl.submit, fl.pred, pe, fl.think, got, want)
			}
			if want > fl.submit {
				delayed++
			}
		}
		s := readSummary(t, out)
		if s.ClosedLoop == nil || s.ClosedLoop.Delayed == 0 || delayed == 0 {
			t.Fatalf("%s: closed_loop %+v, %d jobs delayed: the loop did nothing", mode, s.ClosedLoop, delayed)
		}
		t.Logf("%s: %d jobs follow another, %d delayed by the loop; mean wait %.1f s", mode, s.ClosedLoop.Following, s.ClosedLoop.Delayed, s.Wait.Mean)
	}
}

// TestScoreDTimeUnitBatsim runs SCore-D's queues on the recorded Batsim
// workload (801 jobs, times to the µs) with --time-unit ms and us. In ms,
// exclusive mode with one queue is FCFS: every job's submission, start,
// end and processors equal the main engine's FCFS run in ms. Gang and
// exclusive runs in ms and us pass verify, which reads jobs.csv's times in
// the run's unit; verify catches a start moved before its submission.
func TestScoreDTimeUnitBatsim(t *testing.T) {
	w := filepath.Join("..", "..", "..", "shared", "reference", "batsim-energy", "medium_late.json")
	if _, err := os.Stat(w); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", w)
	}
	dir := t.TempDir()
	cols := func(out string) map[string]string {
		t.Helper()
		m := map[string]string{}
		for id, j := range readScoreDJobs(t, out) {
			m[id] = strings.Join([]string{j["submission_time"], j["starting_time"], j["finish_time"], j["allocated_resources"]}, " ")
		}
		return m
	}
	for _, unit := range []string{"ms", "us"} {
		for _, mode := range []string{"gang", "exclusive"} {
			out := filepath.Join(dir, mode+"-"+unit)
			if code, _, stderr := run(t, "run", "--trace", w, "--mode", mode, "--time-unit", unit, "--out", out, "-q", "--plots=false"); code != exitOK {
				t.Fatalf("%s %s: exit %d: %s", mode, unit, code, stderr)
			}
			if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "801 jobs, all invariants hold") {
				t.Fatalf("%s %s: verify: exit %d:\n%s%s", mode, unit, code, stdout, stderr)
			}
			if s := readSummary(t, out); s.TimeUnit != unit {
				t.Errorf("%s %s: summary.json time_unit %q", mode, unit, s.TimeUnit)
			}
		}
	}
	sd, fcfs := filepath.Join(dir, "exclusive1-ms"), filepath.Join(dir, "fcfs-ms")
	for out, args := range map[string][]string{sd: {"--mode", "exclusive", "--queues", "1"}, fcfs: {"--backfill", "off"}} {
		if code, _, stderr := run(t, append([]string{"run", "--trace", w, "--time-unit", "ms", "--out", out, "-q", "--plots=false"}, args...)...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	a, b := cols(sd), cols(fcfs)
	if len(a) != 801 || len(b) != 801 {
		t.Fatalf("%d and %d jobs, want 801", len(a), len(b))
	}
	for id, x := range a {
		if b[id] != x {
			t.Fatalf("job %s: SCore-D exclusive %q, FCFS %q", id, x, b[id])
		}
	}
	// A start moved before its submission.
	p := filepath.Join(dir, "gang-ms", "jobs.csv")
	data, _ := os.ReadFile(p)
	broken := strings.Replace(string(data), ",38836-", ",38000-", 1)
	if broken == string(data) {
		t.Fatal("could not break jobs.csv")
	}
	if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := run(t, "verify", filepath.Join(dir, "gang-ms")); code != exitError || !strings.Contains(stdout, "outside its submission at 38836 ms") {
		t.Errorf("verify of a stint before its submission: exit %d:\n%s", code, stdout)
	}
}

// TestScoreDCheckpointKillResume: a SCore-D run killed with SIGKILL
// part-way and resumed writes the files of an uninterrupted run, byte for
// byte, and passes verify — with node events (gang, HPC2N with a day of
// 10 % of the nodes down), and with a closed loop (exclusive, HPC2N
// replayed as user sessions), whose state the checkpoint saves.
func TestScoreDCheckpointKillResume(t *testing.T) {
	dir := t.TempDir()
	trace, _ := hpc2nSessions(t, dir)
	hpc2n := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	t.Run("node events", func(t *testing.T) {
		killResumeVerify(t, t.TempDir(), 12, "2d", "run", "--trace", hpc2n, "-q", "--mode", "gang",
			"--node-events", filepath.Join("testdata", "hpc2n-first3170.nodes"), "--node-size", "2", "--on-node-fail", "requeue")
	})
	t.Run("closed loop", func(t *testing.T) {
		killResumeVerify(t, t.TempDir(), 12, "2d", "run", "--trace", trace, "-q", "--mode", "exclusive", "--closed-loop")
	})
}

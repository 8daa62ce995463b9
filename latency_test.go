package schedsim

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSubmitLatency: a submission latency delays each job's arrival at the
// scheduler by its queue's latency under every policy, leaves an immediate
// queue's jobs at their submission, is no hold to the fidelity comparison,
// and passes verify (jobs.csv records each job's arrival as its hold).
//
// The machine has 4 processors. Job 1 (queue 1, 4 processors, 100 s) is
// submitted at 0 and arrives at 10; job 2 (queue 2, no latency, 4
// processors, 50 s), submitted at 5, arrives at once and starts at 5 on the
// idle machine; job 1 then waits for it and starts at 55. Job 3 (queue 3,
// immediate) starts at its submission, 30. Job 4 (queue 1, 2 processors,
// 10 s), submitted at 60, arrives at 70 and waits for job 1's end at 155.
// Without the latency, job 1 starts at 0, job 2 at 100 and job 4 at 150.
func TestSubmitLatency(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.swf", "; MaxProcs: 4\n"+
		"1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"+
		"2 5 -1 50 4 -1 -1 4 50 -1 1 2 1 -1 2 -1 -1 -1\n"+
		"3 30 -1 20 1 -1 -1 1 20 -1 1 3 1 -1 3 -1 -1 -1\n"+
		"4 60 -1 10 2 -1 -1 2 10 -1 1 4 1 -1 1 -1 -1 -1\n")
	nodes := writeFile(t, dir, "nodes.toml", "[cluster]\nselect = \"linear\"\n[[cluster.groups]]\nname = \"n\"\ncount = 4\ncores = 1\n")
	calendar := writeFile(t, dir, "cal.toml", "[[reservation]]\nname = \"later\"\nstart = \"100000\"\nduration = \"1h\"\n")
	type want struct{ start [4]int }
	with := want{[4]int{55, 5, 30, 155}}
	for _, tc := range []struct {
		name     string
		set      func(sc *Scenario)
		latency  string
		want     want
		arrivals [4]int // hold_until in jobs.csv (0: none)
	}{
		{"fcfs", func(sc *Scenario) { sc.Backfill = "off" }, "10s,2=0", with, [4]int{10, 0, 0, 70}},
		{"easy", func(sc *Scenario) { sc.Backfill = "easy" }, "10s,2=0s", with, [4]int{10, 0, 0, 70}},
		{"easy sjbf", func(sc *Scenario) { sc.Backfill, sc.SJBF = "easy", true }, "10s,2=0s", with, [4]int{10, 0, 0, 70}},
		{"depth 2", func(sc *Scenario) { sc.Backfill, sc.ReservationDepth = "easy", "2" }, "10s,2=0s", with, [4]int{10, 0, 0, 70}},
		{"conservative", func(sc *Scenario) { sc.Backfill = "conservative" }, "10s,2=0s", with, [4]int{10, 0, 0, 70}},
		{"hpcpack", func(sc *Scenario) { sc.Backfill = "hpcpack" }, "10s,2=0s", with, [4]int{10, 0, 0, 70}},
		{"slurm", func(sc *Scenario) { sc.Backfill = "slurm" }, "10s,2=0s", with, [4]int{10, 0, 0, 70}},
		{"calendar", func(sc *Scenario) { sc.Backfill, sc.Config = "easy", calendar }, "10s,2=0s", with, [4]int{10, 0, 0, 70}},
		{"cycle", func(sc *Scenario) { sc.Backfill, sc.SchedInterval = "easy", "5" }, "10s,2=0s", with, [4]int{10, 0, 0, 70}},
		{"nodes", func(sc *Scenario) { sc.Backfill, sc.Config = "easy", nodes }, "10s,2=0s", with, [4]int{10, 0, 0, 70}},
		{"external", func(sc *Scenario) { sc.PolicyExec = pythonExample(t, "easy") }, "10s,2=0s", with, [4]int{10, 0, 0, 70}},
		{"none", func(sc *Scenario) { sc.Backfill = "easy" }, "", want{[4]int{0, 100, 30, 150}}, [4]int{}},
		{"zero", func(sc *Scenario) { sc.Backfill = "easy" }, "0s", want{[4]int{0, 100, 30, 150}}, [4]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.ImmediateQueues, sc.SubmitLatency, sc.Plots = trace, "3", tc.latency, false
			sc.Out = filepath.Join(dir, tc.name)
			tc.set(&sc)
			if _, err := Run(context.Background(), &sc, Options{Warn: &strings.Builder{}}); err != nil {
				t.Fatal(err)
			}
			rows := readJobsCSV(t, filepath.Join(sc.Out, "jobs.csv"))
			if len(rows) != 4 {
				t.Fatalf("%d rows in jobs.csv, want 4", len(rows))
			}
			for i := range 4 {
				r := rows[i+1]
				if r.start != tc.want.start[i] {
					t.Errorf("job %d started at %d, want %d", i+1, r.start, tc.want.start[i])
				}
				if r.holdUntil != tc.arrivals[i] {
					t.Errorf("job %d: hold_until %d in jobs.csv, want %d", i+1, r.holdUntil, tc.arrivals[i])
				}
			}
			var out strings.Builder
			res, err := VerifyDir(sc.Out, 0, &out)
			if err != nil || len(res) != 1 || res[0].Violations != 0 {
				t.Errorf("verify: %v, %+v\n%s", err, res, out.String())
			}
			sum, err := os.ReadFile(filepath.Join(sc.Out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(string(sum), `"submit_latency": "10s,2=0s"`); has != (tc.want == with) {
				t.Errorf("summary.json records the latency: %v, want %v", has, tc.want == with)
			}
			f, err := Fidelity(context.Background(), &sc, FidelityOptions{Dir: sc.Out}, Options{Warn: &strings.Builder{}})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range f.Classes {
				if c.By == "hold" {
					t.Fatalf("fidelity counts jobs %s: a latency is no hold", c.Class)
				}
			}
		})
	}
	for _, tc := range []struct{ latency, err string }{
		{"10x", "a delay in whole seconds"},
		{"-1s", "a delay in whole seconds"},
		{"=3s", "no queue before ="},
		{"-2=3s", "want a queue number ≥ 0"},
		{"1s,2s", "the latency of every job is given twice"},
		{"1=2s,1=3s", "queue 1 is given twice"},
		{"batch=2s", `"batch" is not a number, and no "Queue:" line`},
		{"2d", "from 0 to a day"},
	} {
		sc := Default()
		sc.Trace, sc.SubmitLatency = trace, tc.latency
		_, err := Run(context.Background(), &sc, Options{Warn: &strings.Builder{}})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--submit-latency") {
			t.Errorf("latency %q: %v, want an input error naming --submit-latency with %q", tc.latency, err, tc.err)
		}
	}
}

// wantRows checks jobs 1, 2, … of rows against want.
func wantRows(t *testing.T, rows map[int]jobRow, want []jobRow) {
	t.Helper()
	for i, w := range want {
		if got := rows[i+1]; got != w {
			t.Errorf("job %d: start %d, hold_until %d; want %d, %d", i+1, got.start, got.holdUntil, w.start, w.holdUntil)
		}
	}
}

// jobRow is what TestSubmitLatency reads of a jobs.csv row.
type jobRow struct{ start, holdUntil int }

// readJobsCSV reads each row's start and the hold_until of its metadata
// (0 when none), by job number.
func readJobsCSV(t *testing.T, path string) map[int]jobRow {
	t.Helper()
	col, recs := readCSVTable(t, path)
	rows := map[int]jobRow{}
	for _, r := range recs {
		row := jobRow{start: atoiT(t, r[col["starting_time"]])}
		for _, w := range strings.Fields(r[col["metadata"]]) {
			if v, ok := strings.CutPrefix(w, "hold_until="); ok {
				row.holdUntil = atoiT(t, v)
			}
		}
		rows[atoiT(t, r[col["job_id"]])] = row
	}
	return rows
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSubmitLatencyClosedLoop: under a closed loop, a job the loop submits
// later than its recorded time reaches the scheduler its queue's latency
// after the instant the loop submits it, and a hold of its own still ends
// when the holds file says.
//
// The machine has 4 processors; the latency is 10 s, queue 2's 30 s. Job 1
// (4 processors, 100 s), submitted at 0, arrives at 10 and runs 10–110. Job
// 2 (queue 2, 4 processors, 50 s) follows job 1 with a think time of 20 s:
// the loop submits it at 130, it arrives at 160 and runs 160–210. Jobs 3
// and 4 (1 processor, 10 s) follow job 2, with think times 0 and 5 s: job 3
// is submitted at 210 and would arrive at 220, but the holds file holds it
// until 500; job 4 is submitted at 215 and arrives at 225. Without the
// latency, job 2 is submitted and starts at 120, job 4 starts at 175.
func TestSubmitLatencyClosedLoop(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.swf", "; MaxProcs: 4\n"+
		"1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"+
		"2 10 -1 50 4 -1 -1 4 50 -1 1 1 1 -1 2 -1 1 20\n"+
		"3 20 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 2 0\n"+
		"4 30 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 2 5\n")
	holds := writeFile(t, dir, "holds.txt", "3 500\n")
	with := [4]jobRow{{10, 10}, {160, 160}, {500, 500}, {225, 225}}
	for _, tc := range []struct {
		name    string
		set     func(sc *Scenario)
		latency string
		want    [4]jobRow
	}{
		{"fcfs", func(sc *Scenario) { sc.Backfill = "off" }, "10s,2=30s", with},
		{"easy", func(sc *Scenario) { sc.Backfill = "easy" }, "10s,2=30s", with},
		{"depth 2", func(sc *Scenario) { sc.Backfill, sc.ReservationDepth = "easy", "2" }, "10s,2=30s", with},
		{"conservative", func(sc *Scenario) { sc.Backfill = "conservative" }, "10s,2=30s", with},
		{"hpcpack", func(sc *Scenario) { sc.Backfill = "hpcpack" }, "10s,2=30s", with},
		{"slurm", func(sc *Scenario) { sc.Backfill = "slurm" }, "10s,2=30s", with},
		{"cycle", func(sc *Scenario) { sc.Backfill, sc.SchedInterval = "easy", "5" }, "10s,2=30s", with},
		{"none", func(sc *Scenario) { sc.Backfill = "easy" }, "", [4]jobRow{{0, 0}, {120, 0}, {500, 500}, {175, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.ClosedLoop, sc.Holds, sc.SubmitLatency, sc.Plots = trace, true, holds, tc.latency, false
			tc.set(&sc)
			runVerified(t, sc, dir, tc.name)
			wantRows(t, readJobsCSV(t, filepath.Join(dir, tc.name, "jobs.csv")), tc.want[:])
		})
	}
}

// TestSubmitLatencyScoreD: under SCore-D's queues a job joins its queue its
// latency after its submission. Exclusive queues, 4 processors, a latency
// of 10 s: job 1 (4 processors, 100 s), submitted at 0, runs 10–110; job 2
// (4 processors, 50 s), submitted at 5, joins at 15 and runs 110–160.
// Without the latency they run 0–100 and 100–150. Gang queues, job 1
// alone: it runs 10–110.
func TestSubmitLatencyScoreD(t *testing.T) {
	dir := t.TempDir()
	two := writeFile(t, dir, "two.swf", "; MaxProcs: 4\n"+
		"1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"+
		"2 5 -1 50 4 -1 -1 4 50 -1 1 2 1 -1 1 -1 -1 -1\n")
	one := writeFile(t, dir, "one.swf", "; MaxProcs: 4\n"+
		"1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n")
	for _, tc := range []struct {
		name, mode, trace, latency string
		want                       []jobRow
	}{
		{"exclusive", "exclusive", two, "10s", []jobRow{{10, 10}, {110, 15}}},
		{"exclusive none", "exclusive", two, "", []jobRow{{0, 0}, {100, 0}}},
		{"gang", "gang", one, "10s", []jobRow{{10, 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.Mode, sc.SubmitLatency, sc.Plots = tc.trace, tc.mode, tc.latency, false
			runVerified(t, sc, dir, tc.name)
			wantRows(t, readJobsCSV(t, filepath.Join(dir, tc.name, "jobs.csv")), tc.want)
		})
	}
}

// TestSubmitLatencyFilters: HPC Pack's submission filters see a job as the
// trace gives it, without the latency, which is laid on it after them. The
// filter program fails every job whose file carries a HoldUntil: with the
// latency laid first it would fail both jobs. Machine of 4 processors,
// latency 10 s: job 1 (4 processors, 100 s), submitted at 0, runs 10–110;
// job 2 (4 processors, 50 s), submitted at 5, arrives at 15 and runs
// 110–160, under EASY and under an activation filter alike.
func TestSubmitLatencyFilters(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.swf", "; MaxProcs: 4\n"+
		"1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"+
		"2 5 -1 50 4 -1 -1 4 50 -1 1 2 1 -1 1 -1 -1 -1\n")
	prog := writeFile(t, dir, "no-hold.sh", "#!/bin/sh\nif grep -q HoldUntil \"$1\"; then exit 2; fi\nexit 0\n")
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, config string
		want         []jobRow
	}{
		{"submission", "[filters]\nsubmission = [\"no-hold\"]\n[programs.no-hold]\npath = \"./no-hold.sh\"\n", []jobRow{{10, 10}, {110, 15}}},
		// A job that passes its activation filters starts with its Hold
		// Until cleared, as HPC Pack activates it: jobs.csv shows none.
		{"submission and activation", "[filters]\nsubmission = [\"no-hold\"]\nactivation = [\"quota\"]\n[quota]\nproc_seconds = 1e9\nwindow = \"1d\"\n[programs.no-hold]\npath = \"./no-hold.sh\"\n", []jobRow{{10, 0}, {110, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.SubmitLatency, sc.Plots = trace, "10s", false
			sc.Config = writeFile(t, dir, "filters.toml", tc.config)
			runVerified(t, sc, dir, tc.name)
			wantRows(t, readJobsCSV(t, filepath.Join(dir, tc.name, "jobs.csv")), tc.want)
		})
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/report"
)

// TestRunScoreDNodeEvents runs scoredTrace's first two jobs (4 processors
// each, queue 1) in gang mode, MPL 2, with processor 3 down at 20: both
// jobs share the machine at rate 1/2 (no switch cost) and hold processor 3
// in their rows, so both are hit. Killed, both end at 20; requeued, they
// cannot start on the 3 processors left in service: they wait for the
// RESUME at 50 and run again from the start. verify passes, and catches a
// job moved onto the down processor.
func TestRunScoreDNodeEvents(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "q.swf", `; Version: 2.2
; MaxProcs: 4
1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1
2 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1
3 30 -1 10 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1
`)
	events := writeFile(t, dir, "ev.nodes", "20 DOWN 3 disk\n50 RESUME 3\n")
	for _, mode := range []string{"kill", "requeue"} {
		t.Run(mode, func(t *testing.T) {
			out := filepath.Join(dir, mode)
			code, stdout, stderr := run(t, "run", "--trace", trace, "--mode", "gang", "--queues", "1", "--mpl", "2", "--switch-overhead", "0ms", "--node-events", events, "--on-node-fail", mode, "--out", out, "--plots=false")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "lost to node failures") {
				t.Errorf("summary table without the node failures:\n%s", stdout)
			}
			jobs := readScoreDJobs(t, out)
			// Job 3 (2 processors, at 30) fits the 3 processors in service
			// in row 0 of the empty machine: 30..40 on 0-1.
			want := map[string][4]string{ // final_state, start, finish, stints_ms
				"1": {"COMPLETED_KILLED", "0", "20", "0-20000:0:0@0-3"},
				"2": {"COMPLETED_KILLED", "0", "20", "0-20000:0:1@0-3"},
				"3": {"COMPLETED_SUCCESSFULLY", "30", "40", "30000-40000:0:0@0-1"},
			}
			if mode == "requeue" {
				// At 50 both restart from the start, at rate 1/2: 50..250;
				// 3 waits behind them in the queue, then for a row.
				want["1"] = [4]string{"COMPLETED_SUCCESSFULLY", "0", "250", "0-20000:0:0@0-3! 50000-250000:0:0@0-3"}
				want["2"] = [4]string{"COMPLETED_SUCCESSFULLY", "0", "250", "0-20000:0:1@0-3! 50000-250000:0:1@0-3"}
				want["3"] = [4]string{"COMPLETED_SUCCESSFULLY", "250", "260", "250000-260000:0:0@0-1"}
			}
			for id, w := range want {
				j := jobs[id]
				if got := [4]string{j["final_state"], j["starting_time"], j["finish_time"], j["stints_ms"]}; got != w {
					t.Errorf("job %s: %q, want %q (end_reason %q)", id, got, w, j["end_reason"])
				}
			}
			if r := jobs["1"]["end_reason"]; mode == "kill" && r != "node 3 down: disk" {
				t.Errorf("job 1: end_reason %q", r)
			}
			s := readSummary(t, out)
			n := s.NodeFailures
			if n == nil {
				t.Fatal("summary.json has no node_failures")
			}
			// Each job lost 10 s of CPU time on 4 processors; processor 3
			// was idle out of service from 20 to the end of the run (40,
			// the RESUME at 50 comes after it) or to 50.
			unavail := map[string]int64{"kill": 20, "requeue": 30}[mode]
			if n.Killed+n.Requeued != 2 || n.LostProcSec != 80 || n.UnavailableProcSec != unavail {
				t.Errorf("node_failures %+v", *n)
			}
			if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
				t.Fatalf("verify: exit %d:\n%s%s", code, stdout, stderr)
			}
		})
	}
	// verify catches job 3 moved onto processor 3, down from 20 to 50.
	out := filepath.Join(dir, "kill")
	p := filepath.Join(out, "jobs.csv")
	b, _ := os.ReadFile(p)
	broken := strings.Replace(string(b), "30000-40000:0:0@0-1", "30000-40000:0:0@2-3", 1)
	if broken == string(b) {
		t.Fatal("could not break jobs.csv")
	}
	if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := run(t, "verify", out); code != exitError || !strings.Contains(stdout, "node-state") || !strings.Contains(stdout, "node 3") {
		t.Errorf("verify of a job started on a down node: exit %d:\n%s", code, stdout)
	}
}

// TestScoreDNodeEventsHPC2N runs SCore-D's queues on a real trace, HPC2N's
// first 3170 jobs, with 10 % of the nodes down for a day and a node drained
// for two (testdata/hpc2n-first3170.nodes), in gang and exclusive mode,
// killed and requeued: every run passes verify, loses the same jobs' work
// in both, and keeps the processors out of service exactly as long as the
// schedule says (no job runs on them meanwhile).
func TestScoreDNodeEventsHPC2N(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", trace)
	}
	dir := t.TempDir()
	events := filepath.Join("testdata", "hpc2n-first3170.nodes")
	for _, mode := range []string{"gang", "exclusive"} {
		sums := map[string]report.Summary{}
		for _, fail := range []string{"none", "kill", "requeue"} {
			out := filepath.Join(dir, mode+"-"+fail)
			args := []string{"run", "--trace", trace, "--mode", mode, "--out", out, "-q", "--plots=false"}
			if fail != "none" {
				args = append(args, "--node-events", events, "--node-size", "2", "--on-node-fail", fail)
			}
			if code, _, stderr := run(t, args...); code != exitOK {
				t.Fatalf("%s %s: exit %d: %s", mode, fail, code, stderr)
			}
			if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
				t.Fatalf("%s %s: verify: exit %d:\n%s%s", mode, fail, code, stdout, stderr)
			}
			sums[fail] = readSummary(t, out)
		}
		none, kill, requeue := sums["none"], sums["kill"], sums["requeue"]
		for _, s := range []report.Summary{kill, requeue} {
			n := s.NodeFailures
			// 24 processors for 86400 s and 2 for 172800 s: the drained
			// node was idle when it drained.
			if n.UnavailableProcSec != 24*86400+2*172800 {
				t.Errorf("%s %s: %d processor-s out of service, want %d", mode, n.OnNodeFail, n.UnavailableProcSec, 24*86400+2*172800)
			}
			if n.Killed+n.Requeued == 0 || n.LostProcSec <= 0 {
				t.Errorf("%s %s: the failure hit no job: %+v", mode, n.OnNodeFail, *n)
			}
			if s.Jobs != none.Jobs {
				t.Errorf("%s %s: %d jobs, without failures %d", mode, n.OnNodeFail, s.Jobs, none.Jobs)
			}
		}
		if kill.NodeFailures.Killed != kill.NodeFail || requeue.NodeFailures.Requeued != kill.NodeFailures.Killed ||
			requeue.NodeFailures.LostProcSec != kill.NodeFailures.LostProcSec {
			t.Errorf("%s: kill %+v; requeue %+v (the same jobs are hit first in both)", mode, *kill.NodeFailures, *requeue.NodeFailures)
		}
		t.Logf("%s: mean wait none %.1f s, kill %.1f s, requeue %.1f s; lost %d processor-s", mode, none.Wait.Mean, kill.Wait.Mean, requeue.Wait.Mean, kill.NodeFailures.LostProcSec)
	}
}

// TestScoreDNodeEventsLANL runs gang mode on LANL-CM5 with 10 % of the
// nodes down for day 346 (the main engine's failure scenario), killed and
// requeued; both runs pass verify. A big trace: full runs only.
func TestScoreDNodeEventsLANL(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", trace)
	}
	skipBigTrace(t, trace)
	dir := t.TempDir()
	events := filepath.Join("testdata", "lanl-10pct-down-1day.nodes")
	for _, fail := range []string{"kill", "requeue"} {
		out := filepath.Join(dir, fail)
		if code, _, stderr := run(t, "run", "--trace", trace, "--mode", "gang", "--node-events", events, "--on-node-fail", fail, "--out", out, "-q", "--plots=false"); code != exitOK {
			t.Fatalf("%s: exit %d: %s", fail, code, stderr)
		}
		if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
			t.Fatalf("%s: verify: exit %d:\n%s%s", fail, code, stdout, stderr)
		}
		n := readSummary(t, out).NodeFailures
		if n.UnavailableProcSec != 103*86400 || n.Killed+n.Requeued == 0 {
			t.Errorf("%s: node_failures %+v", fail, *n)
		}
	}
}

package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// closedLoopTrace is a user's session on 4 processors: job 2 follows job 1
// after 20 s of thought, job 4 follows job 3 (whose run time is 0, so the
// default cleaning drops it), job 5 follows job 9, which is not in the
// trace, and job 6 follows job 7, which is too large and rejected at 40.
const closedLoopTrace = `; Version: 2.2
; MaxProcs: 4
1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1 50 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 1 20
3 15 -1 0 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1
4 30 -1 10 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 3 5
5 35 -1 10 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 9 5
7 40 -1 10 8 -1 -1 8 100 -1 1 1 1 -1 -1 -1 -1 -1
6 41 -1 10 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 7 30
`

// TestClosedLoopRun replays closedLoopTrace with --closed-loop under FCFS
// and checks the schedule worked out by hand, summary.json's closed_loop
// counts, that verify accepts it, and that without the option every job
// keeps its recorded submit time.
func TestClosedLoopRun(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "loop.swf", closedLoopTrace)
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "run", "--trace", trace, "--backfill", "off", "--closed-loop", "--out", out, "-q", "--plots=false"); code != exitOK {
		t.Fatal(stderr)
	}
	// By hand, FCFS on 4 processors: 1 runs 0–100. 4 (its preceding job
	// dropped) and 5 (its preceding job unknown) keep 30 and 35, and
	// start at 100 on 2 processors each, to 110. 7 is rejected at 40; 6
	// follows it 30 s later: submitted at 70, it starts at 110, to 120.
	// 2 follows 1 after 20 s: submitted at 120, it runs 120–170.
	want := map[string][3]string{ // job: submission, start, finish
		"1": {"0", "0", "100"}, "2": {"120", "120", "170"}, "4": {"30", "100", "110"},
		"5": {"35", "100", "110"}, "6": {"70", "110", "120"}, "7": {"40", "", ""},
	}
	f, err := os.Open(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows)-1 != len(want) {
		t.Fatalf("%d jobs, want %d", len(rows)-1, len(want))
	}
	for _, r := range rows[1:] {
		got := [3]string{r[3], r[8], r[10]}
		if got != want[r[0]] {
			t.Errorf("job %s: submission, start, finish %v, want %v", r[0], got, want[r[0]])
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	cl, _ := raw["closed_loop"].(map[string]any)
	if cl["following"] != 4.0 || cl["delayed"] != 2.0 || cl["unknown_preceding"] != 2.0 {
		t.Errorf("summary.json closed_loop = %v, want 4 following, 2 delayed (jobs 2, 6) and 2 unknown (4, 5)", raw["closed_loop"])
	}
	if raw["warnings"] != nil {
		t.Errorf("warnings %v", raw["warnings"])
	}
	if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
	}

	// Open loop: every job at its recorded time, and no closed_loop.
	open := filepath.Join(dir, "open")
	if code, _, stderr := run(t, "run", "--trace", trace, "--backfill", "off", "--out", open, "-q", "--plots=false"); code != exitOK {
		t.Fatal(stderr)
	}
	b, _ = os.ReadFile(filepath.Join(open, "jobs.csv"))
	if !strings.Contains(string(b), "\n2,loop.swf,delay,10,") || !strings.Contains(string(b), "\n6,loop.swf,delay,41,") {
		t.Errorf("open loop jobs.csv:\n%s", b)
	}
	b, _ = os.ReadFile(filepath.Join(open, "summary.json"))
	if strings.Contains(string(b), "closed_loop") {
		t.Errorf("an open-loop summary.json has closed_loop")
	}

	// A trace with no feedback: said once, on stderr and in summary.json.
	plain := writeFile(t, dir, "plain.swf", smallTrace)
	code, _, stderr := run(t, "run", "--trace", plain, "--closed-loop", "--out", filepath.Join(dir, "plain"), "--plots=false")
	b, _ = os.ReadFile(filepath.Join(dir, "plain", "summary.json"))
	if code != exitOK || strings.Count(stderr, "no job of the trace names a preceding job") != 1 || !strings.Contains(string(b), "no job of the trace names a preceding job") {
		t.Errorf("a trace without field 17: exit %d, stderr %q, summary.json %s", code, stderr, b)
	}
	// SCore-D's queues take a closed loop too: see TestScoreDClosedLoopHPC2N.
}

// TestClosedLoopRandom replays seeded random sessions — chains of jobs
// with think times, some naming unknown, later or dropped jobs, some too
// large — under FCFS, EASY and conservative backfilling: verify accepts
// every run, and every job's submission is exactly its recorded time or,
// if later, its preceding job's end (its rejection, for a rejected one)
// plus the think time.
func TestClosedLoopRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 17))
	for trial := range 4 {
		var b strings.Builder
		b.WriteString("; MaxProcs: 16\n")
		type rec struct {
			submit, run, procs, pred, think int64
		}
		recs := map[int64]rec{}
		order := []int64{}
		submit := int64(0)
		for i := int64(1); i <= 300; i++ {
			submit += rng.Int64N(40)
			r := rec{submit: submit, run: 1 + rng.Int64N(400), procs: 1 + rng.Int64N(16), pred: -1, think: -1}
			switch x := rng.IntN(20); {
			case x == 0:
				r.procs = 20 // rejected
			case x == 1:
				r.run = 0 // dropped by the default cleaning
			}
			switch x := rng.IntN(10); {
			case x < 5 && i > 1:
				r.pred = max(1, i-1-rng.Int64N(8))
			case x == 5:
				r.pred = 9999 // not in the trace
			case x == 6:
				r.pred = i + 3 // later in the trace
			}
			if rng.IntN(4) > 0 {
				r.think = rng.Int64N(90)
			}
			est := r.run * (1 + rng.Int64N(3))
			if rng.IntN(5) == 0 {
				est = -1
			}
			recs[i] = r
			order = append(order, i)
			fmt.Fprintf(&b, "%d %d -1 %d %d -1 -1 %d %d -1 1 1 1 -1 -1 -1 %d %d\n", i, r.submit, r.run, r.procs, r.procs, est, r.pred, r.think)
		}
		dir := t.TempDir()
		trace := writeFile(t, dir, "loop.swf", b.String())
		for _, bf := range []string{"off", "easy", "conservative"} {
			out := filepath.Join(dir, bf)
			if code, _, stderr := run(t, "run", "--trace", trace, "--backfill", bf, "--closed-loop", "--out", out, "-q", "--plots=false"); code != exitOK {
				t.Fatalf("trial %d %s: %s", trial, bf, stderr)
			}
			if code, stdout, stderr := run(t, "verify", out); code != exitOK {
				t.Fatalf("trial %d %s: verify exit %d\n%s%s", trial, bf, code, stdout, stderr)
			}
			f, err := os.Open(filepath.Join(out, "jobs.csv"))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			type got struct{ submit, end int64 }
			res := map[int64]got{}
			for _, r := range rows[1:] {
				id, _ := strconv.ParseInt(r[0], 10, 64)
				s, _ := strconv.ParseInt(r[3], 10, 64)
				end := s // a rejected job ends at its submission
				if r[10] != "" {
					end, _ = strconv.ParseInt(r[10], 10, 64)
				}
				res[id] = got{s, end}
			}
			delayed := 0
			for _, id := range order {
				r := recs[id]
				g, ok := res[id]
				if !ok {
					continue // dropped
				}
				want := r.submit
				if p, known := res[r.pred]; known && r.pred < id {
					want = max(want, p.end+max(r.think, 0))
				}
				if g.submit != want {
					t.Fatalf("trial %d %s: job %d (recorded %d, after %d, think %d) submitted at %d, want %d", trial, bf, id, r.submit, r.pred, r.think, g.submit, want)
				}
				if want > r.submit {
					delayed++
				}
			}
			if delayed == 0 {
				t.Fatalf("trial %d %s: no job delayed: the test tests nothing", trial, bf)
			}
		}
	}
}

// TestClosedLoopNodeEventsRealTrace replays the first 3,170 jobs of
// HPC2N-2002 as a closed loop with node events. The log records no
// feedback, so the test infers it as Zakay and Feitelson's user sessions
// do: a job follows its user's previous job when that one had ended (as
// recorded) at most 20 minutes before it was submitted, the gap being the
// think time. Three quarters of the machine go down for good a month in:
// the jobs then too large are stranded, and the jobs that follow them are
// never submitted. Every job of the trace must be accounted for, and
// verify must accept the run.
func TestClosedLoopNodeEventsRealTrace(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", src)
	}
	jobs, r := readJobs(t, src)
	type last struct {
		id  int64
		end int64
	}
	prev := map[int]last{}
	following := 0
	for i := range jobs {
		j := &jobs[i]
		submit := int64(j.Submit)
		if p, ok := prev[j.User]; ok && submit >= p.end && submit-p.end <= 1200 {
			j.PrecedingJob, j.ThinkTime = p.id, float64(submit-p.end)
			following++
		}
		if j.RawWait >= 0 {
			prev[j.User] = last{j.ID, submit + int64(j.RawWait) + int64(j.Run)}
		}
	}
	dir := t.TempDir()
	trace := simtest.WriteSWF(t, dir, "hpc2n-sessions.swf", r.Header(), jobs)
	events := writeFile(t, dir, "down.nodes", "# three quarters of Seth, for good\n30d DOWN 0-179 failed\n")
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "run", "--trace", trace, "--closed-loop", "--node-events", events, "--out", out, "-q", "--plots=false"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	s := readSummary(t, out)
	if s.ClosedLoop == nil || s.ClosedLoop.Following != int64(following) || s.ClosedLoop.NeverSubmitted == 0 {
		t.Fatalf("closed_loop %+v: want %d following and some never submitted", s.ClosedLoop, following)
	}
	if s.Jobs != int64(len(jobs)) {
		t.Errorf("%d jobs in the summary, the trace has %d", s.Jobs, len(jobs))
	}
	b, err := os.ReadFile(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n") - 1; n != len(jobs) {
		t.Errorf("jobs.csv has %d jobs, the trace %d", n, len(jobs))
	}
	if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Logf("%d jobs, %d following, %d delayed, %d never submitted; %d rejected", s.Jobs, s.ClosedLoop.Following, s.ClosedLoop.Delayed, s.ClosedLoop.NeverSubmitted, s.Rejected)
}

package sim_test

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// malleable returns job(id, submit, procs, run, estimate) with the
// processor range [lo, hi].
func malleable(id int64, submit workload.Time, procs int, run, estimate workload.Time, lo, hi int64) workload.Job {
	j := job(id, submit, procs, run, estimate)
	j.MinProcs, j.MaxProcs = lo, hi
	return j
}

// growRun runs jobs on procs processors under pol with growth g (and h's
// filters and admission when h is not nil), checks the schedule with
// sim.Verify, and returns the records.
func growRun(t *testing.T, procs int, pol policy.Policy, g *sim.Grow, h *hpcpack.Model, jobs []workload.Job) (*simtest.Recorder, sim.Stats) {
	t.Helper()
	if g.Speedup == nil {
		g.Speedup = policy.Linear{}
	}
	cfg := sim.Config{Procs: procs, Policy: pol, Grow: g}
	if h != nil {
		p, err := h.Wrap(pol)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Policy, cfg.Admission, cfg.Annotator = p, h, h
		if g.Filter == nil {
			g.Filter = h
		}
	}
	eng, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	col := &sim.Collector{}
	st, err := eng.Run(simtest.NewSource(jobs), simtest.Tee{rec, col})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Records) != len(jobs) {
		t.Fatalf("%d records for %d jobs", len(rec.Records), len(jobs))
	}
	if vs := sim.Verify(procs, col.Outcomes, sim.VerifyOptions{Speedup: g.Speedup}); len(vs) > 0 {
		t.Fatalf("verify: %v\n%s", vs, simtest.Format(rec.Records))
	}
	var ps int64
	for _, r := range rec.Records {
		ps += r.ProcSeconds()
	}
	if float64(ps) != st.ProcSeconds {
		t.Fatalf("records hold %d processor-seconds, the engine counted %.0f", ps, st.ProcSeconds)
	}
	return rec, st
}

// hpc2nRanges returns HPC2N-2002's first 3,170 jobs with every third one
// of 2 processors or more given the range [p/2, 2p] (cut to the machine),
// as the growth tests on a real trace run them, and the machine's
// processors; without ../shared it skips t.
func hpc2nRanges(t *testing.T) ([]workload.Job, int) {
	t.Helper()
	path := filepath.Join(sharedDir, "traces", "HPC2N-2002-first3170.swf.gz")
	if !fileExists(path) {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", path)
	}
	jobs, procs := simtest.ReadTrace(t, path)
	for i := range jobs {
		if p := int64(jobs[i].Procs); i%3 == 0 && p >= 2 {
			jobs[i].MinProcs, jobs[i].MaxProcs = p/2, min(2*p, int64(procs))
		}
	}
	return jobs, procs
}

// held returns the processors of a record's allocation.
func held(r sim.Record) int {
	n := 0
	for _, x := range r.Alloc {
		n += x.Len()
	}
	return n
}

// TestGrowStartAndSpeedup: min/max starts and the speedup models, with
// hand-computed ends. Machine of 8; every job's trace run time is on 4
// processors (p0 = 4), range [2, 8], requested time 1000 s.
//
// Linear: work = 100 s · 4 = 400 processor-seconds. Amdahl with serial
// fraction 0.5: S(p) = 1/(0.5 + 0.5/p) = 2p/(p+1), S(2) = 4/3, S(4) = 8/5,
// S(8) = 16/9; work = 100 · 8/5 = 160 one-processor seconds.
func TestGrowStartAndSpeedup(t *testing.T) {
	amdahl := policy.Amdahl{Serial: 0.5}
	tests := []struct {
		name    string
		speedup policy.Speedup
		jobs    []workload.Job
		start   []workload.Time // by job, in order
		end     []workload.Time
		procs   []int // processors held at the end
		grows   [][]workload.Time
		// procSecs are the processor-seconds each job held.
		procSecs []int64
	}{
		{
			// Alone: starts on 2, grows to 8 at once: 400/8 = 50 s.
			name: "linear, alone, grows to max at its start", speedup: policy.Linear{},
			jobs:  []workload.Job{malleable(1, 0, 4, 100, 1000, 2, 8)},
			start: []workload.Time{0}, end: []workload.Time{50}, procs: []int{8},
			grows:    [][]workload.Time{{0}},
			procSecs: []int64{400},
		},
		{
			// 160 / (16/9) = 90 s.
			name: "amdahl 0.5, alone", speedup: amdahl,
			jobs:  []workload.Job{malleable(1, 0, 4, 100, 1000, 2, 8)},
			start: []workload.Time{0}, end: []workload.Time{90}, procs: []int{8},
			grows:    [][]workload.Time{{0}},
			procSecs: []int64{720},
		},
		{
			// Job 1 (rigid, 6 processors, 100 s) leaves 2: job 2 starts
			// on its minimum, 400/2 = 200 s, until job 1 ends at 100 and
			// it grows to 8 there: 200 done, 200 left / 8 = 25 s: 125.
			name: "linear, starts on its minimum, grows mid-run", speedup: policy.Linear{},
			jobs:  []workload.Job{job(1, 0, 6, 100, 1000), malleable(2, 0, 4, 100, 1000, 2, 8)},
			start: []workload.Time{0, 0}, end: []workload.Time{100, 125}, procs: []int{6, 8},
			grows:    [][]workload.Time{nil, {100}},
			procSecs: []int64{600, 400},
		},
		{
			// Amdahl: on 2, 160/(4/3) = 120 s; at 100, 100 · 4/3 = 133⅓
			// done, 26⅔ left, / (16/9) = 15 s: 115.
			name: "amdahl 0.5, grows mid-run", speedup: amdahl,
			jobs:  []workload.Job{job(1, 0, 6, 100, 1000), malleable(2, 0, 4, 100, 1000, 2, 8)},
			start: []workload.Time{0, 0}, end: []workload.Time{100, 115}, procs: []int{6, 8},
			grows:    [][]workload.Time{nil, {100}},
			procSecs: []int64{600, 320},
		},
		{
			// Two malleable jobs [2, 8], p0 4, 100 s, submitted together
			// (Queued mode: each starts with as many processors up to its
			// maximum as are idle): job 1 starts at the head on all 8,
			// 400/8 = 50 s; job 2 finds none idle and starts at 50 on 8.
			name: "linear, two jobs, the first takes up to its maximum", speedup: policy.Linear{},
			jobs:  []workload.Job{malleable(1, 0, 4, 100, 1000, 2, 8), malleable(2, 0, 4, 100, 1000, 2, 8)},
			start: []workload.Time{0, 50}, end: []workload.Time{50, 100}, procs: []int{8, 8},
			grows:    [][]workload.Time{{0}, {50}},
			procSecs: []int64{400, 400},
		},
		{
			// Rounding up: p0 3, 10 s: 30 processor-seconds on 4 (max 4) =
			// 7.5 s: 8.
			name: "linear, a fractional span rounds up", speedup: policy.Linear{},
			jobs:  []workload.Job{malleable(1, 0, 3, 10, 100, 1, 4)},
			start: []workload.Time{0}, end: []workload.Time{8}, procs: []int{4},
			grows:    [][]workload.Time{{0}},
			procSecs: []int64{32},
		},
		{
			// A job larger than the machine (p0 16) whose minimum fits: it
			// runs on 8: 1600/8 = 200 s.
			name: "linear, trace count above the machine, minimum fits", speedup: policy.Linear{},
			jobs:  []workload.Job{malleable(1, 0, 16, 100, 1000, 4, 32)},
			start: []workload.Time{0}, end: []workload.Time{200}, procs: []int{8},
			grows:    [][]workload.Time{{0}},
			procSecs: []int64{1600},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{Speedup: tt.speedup}, nil, tt.jobs)
			for k := range tt.jobs {
				r := rec.ByID(t, int64(k+1))
				var at []workload.Time
				if lo := int(tt.jobs[k].MinProcs); lo > 0 && (len(r.Steps) == 0 || r.Steps[0].At != r.Start || r.Steps[0].Procs != lo) {
					t.Errorf("job %d: steps %+v, want the first at its start on its minimum %d", k+1, r.Steps, lo)
				}
				for _, g := range r.Steps[min(1, len(r.Steps)):] {
					at = append(at, g.At)
				}
				if r.Start != tt.start[k] || r.End != tt.end[k] || held(r) != tt.procs[k] || !slices.Equal(at, tt.grows[k]) {
					t.Errorf("job %d: start %d end %d on %d, grew at %v; want %d, %d on %d, grew at %v",
						k+1, r.Start, r.End, held(r), at, tt.start[k], tt.end[k], tt.procs[k], tt.grows[k])
				}
				if want := tt.procSecs[k]; r.ProcSeconds() != want {
					t.Errorf("job %d held %d processor-seconds, want %d", k+1, r.ProcSeconds(), want)
				}
				if r.Job.Procs != tt.jobs[k].Procs || r.Job.Run != tt.jobs[k].Run || r.Job.Estimate != tt.jobs[k].Estimate {
					t.Errorf("job %d recorded as procs %d run %d estimate %d, want the trace's %d %d %d",
						k+1, r.Job.Procs, r.Job.Run, r.Job.Estimate, tt.jobs[k].Procs, tt.jobs[k].Run, tt.jobs[k].Estimate)
				}
			}
			if t.Failed() {
				t.Log("\n" + simtest.Format(rec.Records))
			}
		})
	}
}

// TestGrowBeforeBackfill: running jobs grow before backfilling. Machine of
// 10, EASY. At 0 job A (rigid 2, 10 s), job 1 (rigid 4, 100 s) and job 2
// (malleable [2, 8], p0 2, 100 s) start; job 2 grows at once to the 4 left:
// 200/4 = 50 s. At 1 the head, job 3 (rigid 10), waits and job 4 (rigid 2,
// 5 s) finds nothing idle. At 10 job A ends: the head still does not fit,
// and job 2 grows to 6 before job 4 could backfill: 40 done, 160 left / 6
// = 26.7: 27 → 37. Job 4 backfills at 37 (ends at 42, before the head's
// shadow time 100); backfilling first would have started it at 10.
func TestGrowBeforeBackfill(t *testing.T) {
	jobs := []workload.Job{
		job(10, 0, 2, 10, 10), job(1, 0, 4, 100, 100), malleable(2, 0, 2, 100, 100, 2, 8),
		job(3, 1, 10, 10, 10), job(4, 1, 2, 5, 5),
	}
	rec, _ := growRun(t, 10, &policy.EASY{Lookahead: policy.LookaheadAll}, &sim.Grow{}, nil, jobs)
	want := map[int64][2]workload.Time{10: {0, 10}, 1: {0, 100}, 2: {0, 37}, 3: {100, 110}, 4: {37, 42}}
	for _, id := range slices.Sorted(mapKeys(want)) {
		w := want[id]
		if r := rec.ByID(t, id); r.Start != w[0] || r.End != w[1] {
			t.Errorf("job %d runs %d–%d, want %d–%d", id, r.Start, r.End, w[0], w[1])
		}
	}
	if r := rec.ByID(t, 2); len(r.Steps) != 3 || r.Steps[0].Procs != 2 || r.Steps[1].At != 0 || r.Steps[1].Procs != 4 || r.Steps[2].At != 10 || r.Steps[2].Procs != 6 {
		t.Errorf("job 2 steps %+v, want a start on 2 at 0, growths to 4 at 0 and to 6 at 10", r.Steps)
	}
	if t.Failed() {
		t.Log("\n" + simtest.Format(rec.Records))
	}
}

// TestGrowResults has one row per row of SPEC §6's "running job (grow)"
// column, and the undefined results, treated as 1. Machine of 8, FCFS,
// re-evaluation 60 s. Job 3 (rigid 6, 10 s) starts at 0; job 1 (malleable
// [2, 8], p0 2, 100 s: 200 processor-seconds, requested 1000 s) starts
// beside it on the 2 left (its activation filter answers 0 to that start,
// asked for 2). At 10 job 3 ends and job 1 is offered the 6 idle
// processors: the scripted result (0 after). Job 2 (rigid 6, 10 s) is
// submitted at 15.
//
//   - 0: job 1 grows to 8 at 10: 20 done, 180/8 = 22.5: 23 s, it ends at
//     33; job 2 waits for it: 33–43.
//   - 1: job 1 does not grow; the queue is not blocked: job 2 starts at 15
//     on the 6 idle processors and ends at 25; at 70, its re-evaluation,
//     job 1 is offered the 6 idle processors again (a pass of its own) and
//     its filter answers 0: it grows to 8 having done 140 of its 200
//     processor-seconds: 60/8 = 7.5: 8 s, it ends at 78.
func TestGrowResults(t *testing.T) {
	refused := map[int64][2]workload.Time{1: {0, 78}, 2: {15, 25}, 3: {0, 10}}
	tests := []struct {
		name   string
		result hpcpack.Result
		want   map[int64][2]workload.Time
		note   string
	}{
		{"0 grows", hpcpack.Exit(0, ""), map[int64][2]workload.Time{1: {0, 33}, 2: {33, 43}, 3: {0, 10}}, "activate=0x1 grow=0x1"},
		{"1 does not grow", hpcpack.Exit(1, ""), refused, "activate=0x1 grow=0x1,1x1"},
		{"2 (undefined) acts as 1", hpcpack.Exit(2, ""), refused, "activate=0x1 grow=0x1,2x1"},
		{"3 (undefined) acts as 1", hpcpack.Exit(3, ""), refused, "activate=0x1 grow=0x1,3x1"},
		{"4 (undefined) acts as 1", hpcpack.Exit(4, ""), refused, "activate=0x1 grow=0x1,4x1"},
		{"timeout acts as 1", hpcpack.Result{Status: hpcpack.TimedOut}, refused, "activate=0x1 grow=0x1,timeoutx1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &scripted{name: "s", script: map[int64][]hpcpack.Result{1: {hpcpack.Exit(0, ""), tt.result}}}
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}, Reevaluate: 60}
			jobs := []workload.Job{job(3, 0, 6, 10, 10), malleable(1, 0, 2, 100, 1000, 2, 8), job(2, 15, 6, 10, 10)}
			rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{}, h, jobs)
			for id, w := range tt.want {
				if r := rec.ByID(t, id); r.Start != w[0] || r.End != w[1] {
					t.Errorf("job %d runs %d–%d, want %d–%d\n%s", id, r.Start, r.End, w[0], w[1], simtest.Format(rec.Records))
				}
			}
			if r := rec.ByID(t, 1); r.Note != tt.note {
				t.Errorf("job 1 note %q, want %q", r.Note, tt.note)
			}
			// The growth calls: job 1 running, asking for 8 processors.
			var grow []hpcpack.Activation
			for k, c := range f.calls {
				if c.Grow {
					if f.ids[k] != 1 {
						t.Errorf("growth call for job %d", f.ids[k])
					}
					grow = append(grow, c)
				}
			}
			want := 1
			if tt.want[1][1] == 78 {
				want = 2 // refused at 10, asked again at 70
			}
			if len(grow) != want || grow[0].Resources != 8 || grow[0].Index != -1 || grow[0].Backfill || grow[0].Now != 10 || grow[0].Pass != 2 || grow[0].Start != 0 {
				t.Fatalf("growth calls %+v, want %d, the first at 10 in pass 2 for 8 processors, index -1, started at 0", grow, want)
			}
			if want == 2 && (grow[1].Now != 70 || grow[1].Resources != 8) {
				t.Errorf("second growth call %+v, want one at 70 for 8 processors", grow[1])
			}
		})
	}
}

// A refused growth is offered again (issue 22, item 6): a running job whose
// growth its filters refused is offered the idle processors again at its
// next re-evaluation, at a pass of its own when nothing else happens then.
// Machine of 8, FCFS, re-evaluation 60 s. Job 3 (rigid 6, 10 s) starts at
// 0 and job 1 ([2, 8], p0 2, 400 s: 800 processor-seconds, requested
// 1000 s) beside it on 2 (its filter answers 0); at 10 job 3 ends and job
// 1's growth to 8 is refused (answer 1); then the row's answers, 0 once
// the script is spent.
//
//   - asked again at 70: 6 idle, answer 0: 140 done, 660/8 = 82.5: 83 s,
//     it ends at 153. Job 2 (rigid 1, 10 s, submitted at 75) finds the
//     machine full and runs 153–163.
//   - refused again at 70, asked at 130: job 2 starts at 75 on an idle
//     processor (a refused growth blocks nothing) and ends at 85, a pass at
//     which job 1 is not due; at 130 it grows to 8: 260 done, 540/8 = 67.5:
//     68 s, 198.
//   - nothing idle at 70: job 2 (rigid 6, 100 s, submitted at 20) holds
//     the idle processors 20–120; the pass at 70 calls no filter; at 120
//     job 1 is offered the 6 freed ones and grows: 240 done, 560/8 = 70 s:
//     190.
func TestGrowRefusedOfferedAgain(t *testing.T) {
	tests := []struct {
		name    string
		answers []hpcpack.Result // job 1's answers after its start and first refusal
		job2    workload.Job
		end1    workload.Time
		grewAt  workload.Time
		run2    [2]workload.Time
		calls   []workload.Time // instants of job 1's growth calls
		note    string
	}{
		{"asked again at its re-evaluation", nil, job(2, 75, 1, 10, 10), 153, 70, [2]workload.Time{153, 163}, []workload.Time{10, 70}, "activate=0x1 grow=0x1,1x1"},
		{"refused again, asked again a re-evaluation later", []hpcpack.Result{hpcpack.Exit(1, "")}, job(2, 75, 1, 10, 10), 198, 130, [2]workload.Time{75, 85}, []workload.Time{10, 70, 130}, "activate=0x1 grow=0x1,1x2"},
		{"nothing idle at its re-evaluation", nil, job(2, 20, 6, 100, 100), 190, 120, [2]workload.Time{20, 120}, []workload.Time{10, 120}, "activate=0x1 grow=0x1,1x1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := append([]hpcpack.Result{hpcpack.Exit(0, ""), hpcpack.Exit(1, "")}, tt.answers...)
			f := &scripted{name: "s", script: map[int64][]hpcpack.Result{1: script}}
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}, Reevaluate: 60}
			jobs := []workload.Job{job(3, 0, 6, 10, 10), malleable(1, 0, 2, 400, 1000, 2, 8), tt.job2}
			rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{}, h, jobs)
			r := rec.ByID(t, 1)
			if r.End != tt.end1 || len(r.Steps) != 2 || r.Steps[1].At != tt.grewAt || r.Steps[1].Procs != 8 {
				t.Errorf("job 1 ends at %d with steps %+v, want %d after growing to 8 at %d\n%s", r.End, r.Steps, tt.end1, tt.grewAt, simtest.Format(rec.Records))
			}
			if r.Note != tt.note {
				t.Errorf("job 1 note %q, want %q", r.Note, tt.note)
			}
			if r2 := rec.ByID(t, 2); r2.Start != tt.run2[0] || r2.End != tt.run2[1] {
				t.Errorf("job 2 runs %d–%d, want %d–%d", r2.Start, r2.End, tt.run2[0], tt.run2[1])
			}
			var at []workload.Time
			for k, c := range f.calls {
				if c.Grow && f.ids[k] == 1 {
					at = append(at, c.Now)
				}
			}
			if !slices.Equal(at, tt.calls) {
				t.Errorf("job 1's growth calls at %v, want %v", at, tt.calls)
			}
		})
	}
}

// A growth call carries the running job's start (its job file's
// StartTime). Machine of 8: job 1 (rigid 8, 30 s) holds it until 30; then
// job 3 (rigid 6, 100 s) starts, and job 2 ([2, 8], p0 2, 200 s: 400
// processor-seconds) beside it on 2. At 130 job 3 ends and job 2's growth
// is refused; at 190 it is granted (320 done, 80/8 = 10 s: 200).
func TestGrowCallStart(t *testing.T) {
	f := &scripted{name: "s", script: map[int64][]hpcpack.Result{2: {hpcpack.Exit(0, ""), hpcpack.Exit(1, "")}}}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}, Reevaluate: 60}
	rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{}, h, []workload.Job{job(1, 0, 8, 30, 30), job(3, 0, 6, 100, 100), malleable(2, 0, 2, 200, 1000, 2, 8)})
	var got [][2]workload.Time
	for k, c := range f.calls {
		if c.Grow && f.ids[k] == 2 {
			got = append(got, [2]workload.Time{c.Now, c.Start})
		}
	}
	if want := [][2]workload.Time{{130, 30}, {190, 30}}; !slices.Equal(got, want) {
		t.Errorf("growth calls (now, start) %v, want %v\n%s", got, want, simtest.Format(rec.Records))
	}
	if r := rec.ByID(t, 2); r.End != 200 {
		t.Errorf("job 2 ends at %d, want 200", r.End)
	}
}

// Without minimum and maximum resources, growth changes nothing: the same
// schedule as without Grow, byte for byte.
func TestGrowRigidUnchanged(t *testing.T) {
	mk := func() []workload.Job {
		return []workload.Job{
			job(1, 0, 3, 100, 120), job(2, 1, 5, 30, 60), job(3, 2, 8, 10, 20),
			job(4, 3, 1, 40, 50), job(5, 3, 2, 5, none), job(6, 10, 9, 50, 50),
		}
	}
	base, bst := simtest.Simulate(t, 8, &policy.EASY{Lookahead: policy.LookaheadAll}, mk())
	got, gst := growRun(t, 8, &policy.EASY{Lookahead: policy.LookaheadAll}, &sim.Grow{}, nil, mk())
	if simtest.Format(base.Records) != simtest.Format(got.Records) || bst != gst {
		t.Errorf("with Grow:\n%s%+v\nwithout:\n%s%+v", simtest.Format(got.Records), gst, simtest.Format(base.Records), bst)
	}
}

// A killed job converts its requested time like its run time: p0 2, run
// 200 > requested 100 on [2, 4]: alone it grows to 4 at once and is killed
// when it has done 100 s of work on 2: 200/4 = 50 s.
func TestGrowKilled(t *testing.T) {
	rec, st := growRun(t, 4, policy.FCFS{}, &sim.Grow{}, nil, []workload.Job{malleable(1, 0, 2, 200, 100, 2, 4)})
	r := rec.ByID(t, 1)
	if r.State != sim.Killed || r.End != 50 || st.Killed != 1 {
		t.Errorf("job 1 %v at %d (killed %d), want killed at 50", r.State, r.End, st.Killed)
	}
}

// Grow refuses what it cannot combine with: a cluster of clusters, where a
// job runs at the speed of the member it starts on. A cluster of nodes
// combines (TestGrowOnNodes).
func TestGrowConfigErrors(t *testing.T) {
	spec := &cluster.Spec{Select: cluster.SelectConsRes, Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 2}}}
	if _, err := sim.New(sim.Config{Grow: &sim.Grow{}, Allocator: cluster.NewConsRes(spec)}); err != nil {
		t.Errorf("Grow on a cluster of nodes: %v", err)
	}
	m, err := cluster.MemberOf(spec)
	if err != nil {
		t.Fatal(err)
	}
	f := cluster.NewFederation([]cluster.FederationMember{m, m})
	if _, err := sim.New(sim.Config{Grow: &sim.Grow{}, Allocator: f}); err == nil || !strings.Contains(err.Error(), "cluster of clusters") {
		t.Errorf("Grow on a cluster of clusters: %v", err)
	}
}

// Verify replays growths: a wrong end, a growth beyond the maximum and
// processors taken twice are each reported.
func TestVerifyGrown(t *testing.T) {
	jobs := []workload.Job{job(1, 0, 6, 100, 1000), malleable(2, 0, 4, 100, 1000, 2, 8)}
	eng, err := sim.New(sim.Config{Procs: 8, Grow: &sim.Grow{}})
	if err != nil {
		t.Fatal(err)
	}
	col := &sim.Collector{}
	if _, err := eng.Run(simtest.NewSource(jobs), col); err != nil {
		t.Fatal(err)
	}
	opts := sim.VerifyOptions{Speedup: policy.Linear{}}
	if vs := sim.Verify(8, col.Outcomes, opts); len(vs) != 0 {
		t.Fatalf("valid run: %v", vs)
	}
	k := slices.IndexFunc(col.Outcomes, func(o sim.Outcome) bool { return o.Job.ID == 2 })
	tests := []struct {
		name   string
		mutate func(o *sim.Outcome)
		rule   string
	}{
		{"end", func(o *sim.Outcome) { o.End++ }, "end"},
		{"beyond the maximum", func(o *sim.Outcome) { o.Job.MaxProcs = 6 }, "grow-size"},
		{"growth taken while job 1 runs", func(o *sim.Outcome) { o.Steps[1].At = 50 }, "overlap"},
		{"steps do not add up", func(o *sim.Outcome) { o.Steps = o.Steps[1:] }, "alloc-size"},
		{"not on its minimum", func(o *sim.Outcome) { o.Job.MinProcs = 1 }, "alloc-size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outs := slices.Clone(col.Outcomes)
			o := outs[k]
			o.Steps = slices.Clone(o.Steps)
			tt.mutate(&o)
			outs[k] = o
			vs := sim.Verify(8, outs, opts)
			if !slices.ContainsFunc(vs, func(v sim.Violation) bool { return v.Rule == tt.rule && v.JobID == 2 }) {
				t.Errorf("violations %v, want %s for job 2", vs, tt.rule)
			}
		})
	}
}

// A growth runs the job's whole activation chain: the template's filters,
// then the cluster's; when one refuses, those that passed are reverted in
// reverse order, as for a queued job.
func TestGrowChainReverts(t *testing.T) {
	var reverts []string
	tpl := &scripted{name: "tpl", script: map[int64][]hpcpack.Result{}, reverts: &reverts}
	a := &scripted{name: "a", script: map[int64][]hpcpack.Result{}, reverts: &reverts}
	b := &scripted{name: "b", script: map[int64][]hpcpack.Result{1: {hpcpack.Exit(0, ""), hpcpack.Exit(1, "no license for 8")}}, reverts: &reverts}
	h := &hpcpack.Model{
		Activation: []hpcpack.ActivationFilter{a, b},
		Templates:  map[string]*hpcpack.Template{"Big": {Name: "Big", Activation: []hpcpack.ActivationFilter{tpl}}},
		Reevaluate: 60,
	}
	// Job 3 (rigid 6, 10 s) leaves job 1 ([2, 8], p0 2, 100 s) 2 at its
	// start; at 10 its growth to 8 is refused by b.
	j := malleable(1, 0, 2, 100, 1000, 2, 8)
	j.Template = "Big"
	rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{}, h, []workload.Job{job(3, 0, 6, 10, 10), j})
	if want := []string{"a:1", "tpl:1"}; !slices.Equal(reverts, want) {
		t.Errorf("reverts %v, want %v", reverts, want)
	}
	// Asked again at its re-evaluation (70), the chain passes: 140 of 200
	// processor-seconds done, 60/8 = 7.5: 8 s.
	if r := rec.ByID(t, 1); r.End != 78 || len(r.Steps) != 2 || r.Steps[1].At != 70 {
		t.Errorf("job 1 ends at %d with steps %+v, want 78, grown at 70", r.End, r.Steps)
	}
	if len(tpl.calls) != 3 || tpl.calls[0].Resources != 2 || !tpl.calls[1].Grow || tpl.calls[1].Resources != 8 || tpl.calls[1].Now != 10 || tpl.calls[2].Now != 70 {
		t.Errorf("template filter calls %+v, want the start on 2 and growths to 8 at 10 and 70", tpl.calls)
	}
}

// A license pool in front of a filter that refuses every growth: the pool
// takes the growth's licenses, the refusal reverts them, and the running
// job keeps only its own. Machine of 9, pool of 8 "fluent", re-evaluation
// 60 s. Job 3 (rigid 7, 10 s, no license) and job 1 ([2, 8], p0 2, 100 s,
// one license per processor) start at 0, job 1 on the 2 left (2
// licenses). Job 2 (rigid 1, 7 licenses) arrives at 5 and finds nothing
// idle. At 10 job 3 ends: job 2 is asked, 6 licenses free, short: it keeps
// its processor (result 2); job 1's growth to 8 (6 processors idle beside
// the reserved one) takes the 6 and is refused and reverted. Both are
// asked again at 70 (the same answers) and job 2 at 130, after job 1 gave
// its 2 back at 100: it starts at 130. Had the refusal given back all of
// job 1's licenses, job 2 would have started at 10.
func TestGrowLicensesReverted(t *testing.T) {
	pool := &hpcpack.LicensePool{Total: map[string]int{"fluent": 8}, WhenShort: hpcpack.ActivateKeepResources}
	deny := &scripted{name: "deny", script: map[int64][]hpcpack.Result{1: {hpcpack.Exit(0, ""), hpcpack.Exit(1, ""), hpcpack.Exit(1, ""), hpcpack.Exit(1, "")}}}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{pool, deny}, Reevaluate: 60}
	jobs := []workload.Job{job(3, 0, 7, 10, 10), malleable(1, 0, 2, 100, 1000, 2, 8), job(2, 5, 1, 10, 10)}
	jobs[1].Licenses, jobs[2].Licenses = "fluent:*", "fluent:7"
	rec, _ := growRun(t, 9, policy.FCFS{}, &sim.Grow{}, h, jobs)
	if r := rec.ByID(t, 1); r.End != 100 || len(r.Steps) != 1 || r.Note != "activate=0x1 grow=1x2" {
		t.Errorf("job 1 ends at %d, steps %+v, note %q; want 100, never grown, grow=1x2", r.End, r.Steps, r.Note)
	}
	if r := rec.ByID(t, 2); r.Start != 130 {
		t.Errorf("job 2 starts at %d, want 130\n%s", r.Start, simtest.Format(rec.Records))
	}
	if pool.Free("fluent") != 8 {
		t.Errorf("%d licenses free at the end, want 8", pool.Free("fluent"))
	}
}

// One activation call per assignment (issue 22, item 7): a job that starts
// at the head with room to grow is asked for once, for the processors it
// is given at its start (HPC Pack's Queued mode: as many up to its maximum
// as are idle and not reserved), not once for its minimum and again for a
// growth in the same pass; a per-core license pool (fluent:*) takes as
// many licenses as the job gets processors. Machine of 8, FCFS, pool of 8
// licenses; malleable jobs [2, 8], p0 2, 100 s (200 processor-seconds),
// one license per processor.
//
//   - alone: asked for 8, starts on 8 and ends at 200/8 = 25.
//   - beside job 3 (rigid 5, 50 s, no license, ahead of it): asked for the
//     3 left, 200/3 = 66.7: 67; at 50 job 3 ends and it is offered 5 more:
//     a growth call, the next assignment (150 done … 50/8 = 6.25: 7 → 57).
//   - two at once: job 1 asked for 8 and starts on 8 (0–25); job 2, with
//     nothing idle, is not asked at 0; at 25 it is asked for 8 (25–50).
func TestGrowOneCallPerAssignment(t *testing.T) {
	type call struct {
		id        int64
		at        workload.Time
		resources int
		grow      bool
	}
	m := func(id int64) workload.Job {
		j := malleable(id, 0, 2, 100, 1000, 2, 8)
		j.Licenses = "fluent:*"
		return j
	}
	tests := []struct {
		name  string
		jobs  []workload.Job
		calls []call
		runs  map[int64][2]workload.Time
	}{
		{"alone", []workload.Job{m(1)}, []call{{1, 0, 8, false}}, map[int64][2]workload.Time{1: {0, 25}}},
		{"beside a rigid job", []workload.Job{job(3, 0, 5, 50, 50), m(1)}, []call{{3, 0, 5, false}, {1, 0, 3, false}, {1, 50, 8, true}}, map[int64][2]workload.Time{3: {0, 50}, 1: {0, 57}}},
		{"two at once", []workload.Job{m(1), m(2)}, []call{{1, 0, 8, false}, {2, 25, 8, false}}, map[int64][2]workload.Time{1: {0, 25}, 2: {25, 50}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := &hpcpack.LicensePool{Total: map[string]int{"fluent": 8}}
			spy := &scripted{name: "spy", script: map[int64][]hpcpack.Result{}}
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{pool, spy}, Reevaluate: 60}
			rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{}, h, tt.jobs)
			var got []call
			for k, c := range spy.calls {
				got = append(got, call{spy.ids[k], c.Now, c.Resources, c.Grow})
			}
			if !slices.Equal(got, tt.calls) {
				t.Errorf("activation calls %+v, want %+v", got, tt.calls)
			}
			for id, w := range tt.runs {
				if r := rec.ByID(t, id); r.Start != w[0] || r.End != w[1] {
					t.Errorf("job %d runs %d–%d, want %d–%d\n%s", id, r.Start, r.End, w[0], w[1], simtest.Format(rec.Records))
				}
			}
			if pool.Free("fluent") != 8 {
				t.Errorf("%d licenses free at the end, want 8", pool.Free("fluent"))
			}
		})
	}
}

// endedSpy is FCFS that keeps every policy.Ended it is shown.
type endedSpy struct {
	policy.FCFS
	ended []policy.Ended
}

func (s *endedSpy) Schedule(v policy.View, d policy.Decisions) {
	s.ended = append(s.ended, v.Ended()...)
	s.FCFS.Schedule(v, d)
}

// Policies learn of a grown job with its average processor count: job 2
// of the mid-run case held 2 for 100 s and 8 for 25 s, 400 processor-
// seconds in 125 s: 3.2, rounded to 3.
func TestGrowEndedAverage(t *testing.T) {
	spy := &endedSpy{}
	growRun(t, 8, spy, &sim.Grow{}, nil, []workload.Job{job(1, 0, 6, 100, 1000), malleable(2, 0, 4, 100, 1000, 2, 8)})
	var got []int
	for _, e := range spy.ended {
		got = append(got, e.Procs)
	}
	if !slices.Equal(got, []int{6, 3}) {
		t.Errorf("ended with %v processors, want [6 3]", got)
	}
}

// Activation result 2 in Queued mode (issue 22 item 2): the candidate
// resources stay reserved, up to the job's maximum (SPEC §6: "Queued mode
// reserves up to the job's maximum resources"), not its minimum. Machine of
// 8, FCFS. Job 1 is malleable [2, 8] (p0 2, 100 s: 200 processor-seconds);
// job 2 is rigid, 4 processors, 10 s, behind it.
//
//   - 0: job 1 is asked for the 8 idle processors and answers 2: all 8 stay
//     reserved, so job 2 cannot start (reserving the minimum, 2, would have
//     let it run 0–10 on 4 of the other 6).
//   - 60 (re-evaluation): job 1 is asked for 8 again (its own reservation
//     counts), answers 0, starts on 8: 200/8 = 25 s, ends 85.
//   - 85: job 2 is asked for its 4, starts, ends 95.
func TestResult2ReservesUpToTheMaximum(t *testing.T) {
	spy := &scripted{name: "spy", script: map[int64][]hpcpack.Result{1: {hpcpack.Exit(2, ""), hpcpack.Exit(0, "")}}}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{spy}, Reevaluate: 60}
	jobs := []workload.Job{malleable(1, 0, 2, 100, 1000, 2, 8), job(2, 0, 4, 10, 10)}
	rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{}, h, jobs)
	type call struct {
		id        int64
		at        workload.Time
		resources int
	}
	var got []call
	for k, c := range spy.calls {
		got = append(got, call{spy.ids[k], c.Now, c.Resources})
	}
	if want := []call{{1, 0, 8}, {1, 60, 8}, {2, 85, 4}}; !slices.Equal(got, want) {
		t.Errorf("activation calls %+v, want %+v", got, want)
	}
	for id, w := range map[int64][2]workload.Time{1: {60, 85}, 2: {85, 95}} {
		if r := rec.ByID(t, id); r.Start != w[0] || r.End != w[1] {
			t.Errorf("job %d runs %d–%d, want %d–%d\n%s", id, r.Start, r.End, w[0], w[1], simtest.Format(rec.Records))
		}
	}
}

// TestGrowWithEstimator works out by hand EASY on 10 processors with growth
// (linear speedup), with and without the perfect estimator. Job 1 (rigid,
// 8 × 100 s) starts at 0; job 2 (trace: 4 processors, 100 s, requesting
// 1000 s; range [2, 8]) starts on the 2 left: 400 s of work, ending at 200
// on 2. At 100 job 1 ends and job 2 grows to 8: 200 s of work left, it ends
// at 125. Job 3 (10 × 10 s) queues at 110 behind it; job 4 (2 × 30 s) comes
// at 112 to the 2 idle processors.
//
// The estimator predicts job 2's run on its trace processors (100 s: 400 s
// of work), which on 8 processors after the growth ends at 125: job 3's
// reservation is at 125, job 4 (to 142) cannot backfill, and runs after
// job 3 (125–135), 135–165. Without an estimator the requested time's work
// (4000 s, 3800 left at 100) puts job 2's predicted end at 575: job 4
// backfills at 112 to 142 and job 3 runs 142–152.
func TestGrowWithEstimator(t *testing.T) {
	jobs := []workload.Job{
		job(1, 0, 8, 100, 100),
		malleable(2, 0, 4, 100, 1000, 2, 8),
		job(3, 110, 10, 10, 10),
		job(4, 112, 2, 30, 30),
	}
	tests := []struct {
		est  string
		want map[int64][2]workload.Time // start, end
	}{
		{"perfect", map[int64][2]workload.Time{1: {0, 100}, 2: {0, 125}, 3: {125, 135}, 4: {135, 165}}},
		{"user", map[int64][2]workload.Time{1: {0, 100}, 2: {0, 125}, 3: {142, 152}, 4: {112, 142}}},
	}
	for _, tc := range tests {
		t.Run(tc.est, func(t *testing.T) {
			cfg := sim.Config{Procs: 10, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Grow: &sim.Grow{Speedup: policy.Linear{}}}
			if tc.est != "user" {
				est, err := policy.ParseEstimator(tc.est)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Estimator = est
			}
			eng, err := sim.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			col := &sim.Collector{}
			if _, err := eng.Run(simtest.NewSource(jobs), simtest.Tee{rec, col}); err != nil {
				t.Fatal(err)
			}
			for id, w := range tc.want {
				if r := rec.ByID(t, id); r.Start != w[0] || r.End != w[1] {
					t.Errorf("job %d ran %d–%d, want %d–%d", id, r.Start, r.End, w[0], w[1])
				}
			}
			if r := rec.ByID(t, 2); len(r.Steps) != 2 || r.Steps[1].At != 100 || r.Steps[1].Procs != 8 {
				t.Errorf("job 2's steps %+v, want 2 then 8 from 100", r.Steps)
			}
			if vs := sim.Verify(10, col.Outcomes, sim.VerifyOptions{Speedup: policy.Linear{}}); len(vs) > 0 {
				t.Errorf("verify: %v", vs)
			}
		})
	}
}

// TestGrowEstimatorRandom runs seeded random malleable workloads under
// EASY with growth and each estimator (its predictions too short, too long,
// corrected while jobs grow): every run passes verify, and the growth does
// not change what a job does — each ends where its speedup model puts it.
func TestGrowEstimatorRandom(t *testing.T) {
	cases := simtest.Cases(300, 40)
	for seed := uint64(1); seed <= uint64(cases); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x9e0))
		procs := 4 + r.IntN(13)
		n := 5 + r.IntN(40)
		jobs := make([]workload.Job, n)
		var t0 workload.Time
		for i := range jobs {
			t0 += workload.Time(r.IntN(30))
			p := 1 + r.IntN(procs)
			run := workload.Time(1 + r.IntN(300))
			est := run * workload.Time(1+r.IntN(4))
			if r.IntN(8) == 0 {
				est = run / 2
			}
			est = max(est, 1)
			jobs[i] = job(int64(i+1), t0, p, run, est)
			if r.IntN(2) == 0 {
				lo := 1 + r.IntN(p)
				jobs[i].MinProcs, jobs[i].MaxProcs = int64(lo), int64(p+r.IntN(procs-p+1))
			}
			jobs[i].User = r.IntN(4)
		}
		for _, name := range []string{"perfect", "factor:0.5", "factor:2", "predict", "predict:double"} {
			est, err := policy.ParseEstimator(name)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := sim.New(sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Grow: &sim.Grow{Speedup: policy.Amdahl{Serial: 0.1}}, Estimator: est})
			if err != nil {
				t.Fatal(err)
			}
			col := &sim.Collector{}
			if _, err := eng.Run(simtest.NewSource(jobs), col); err != nil {
				t.Fatalf("seed %d %s: %v", seed, name, err)
			}
			if len(col.Outcomes) != n {
				t.Fatalf("seed %d %s: %d outcomes for %d jobs", seed, name, len(col.Outcomes), n)
			}
			if vs := sim.Verify(procs, col.Outcomes, sim.VerifyOptions{Speedup: policy.Amdahl{Serial: 0.1}}); len(vs) > 0 {
				t.Fatalf("seed %d %s: %v", seed, name, vs)
			}
		}
	}
}

// TestGrowEstimatorRealTrace runs HPC2N-2002's first 3,170 jobs, every
// third one given a range of half to twice its processors, under EASY with
// growth (Amdahl, 10 % serial) and the EASY++ predictor (predict:gradual),
// with a quarter of the nodes failing for a day and their jobs requeued:
// verify replays every growth and finds nothing, and the estimator changed
// the schedule.
func TestGrowEstimatorRealTrace(t *testing.T) {
	jobs, procs := hpc2nRanges(t)
	events := []cluster.NodeEvent{
		{At: 20 * 86400, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 0, Hi: 60}}, Reason: "a quarter down"},
		{At: 21 * 86400, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 0, Hi: 60}}},
	}
	speedup := policy.Amdahl{Serial: 0.1}
	var waits [2]float64
	for k, name := range []string{"user", "predict"} {
		cfg := sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Grow: &sim.Grow{Speedup: speedup},
			NodeEvents: events, NodeSize: 1, OnNodeFail: sim.NodeFailRequeue}
		if name != "user" {
			est, err := policy.ParseEstimator(name)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Estimator = est
		}
		eng, err := sim.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		col := &sim.Collector{}
		st, err := eng.Run(simtest.NewSource(jobs), col)
		if err != nil {
			t.Fatal(err)
		}
		if st.Requeued == 0 {
			t.Errorf("%s: the failure requeued no job", name)
		}
		if vs := sim.Verify(procs, col.Outcomes, sim.VerifyOptions{Speedup: speedup, NodeEvents: events, NodeSize: 1}); len(vs) > 0 {
			t.Fatalf("%s: %d violations, the first: %v", name, len(vs), vs[0])
		}
		var sum float64
		for _, o := range col.Outcomes {
			sum += float64(o.Start - o.Job.Submit)
		}
		waits[k] = sum / float64(len(col.Outcomes))
		t.Logf("%s: %d jobs, %d requeued, mean wait %.0f s", name, len(col.Outcomes), st.Requeued, waits[k])
	}
	if waits[0] == waits[1] {
		t.Errorf("the estimator changed nothing: mean wait %.0f s both ways", waits[0])
	}
}

// TestGrowWithConstraints works out by hand growth (linear speedup) on 8
// processors under reservations and limits.
//
// A maintenance reservation holds 4 processors over [20, 200). Job 1
// (trace 2 processors, 100 s, requesting 400; range [2, 8]) starts at the
// head at 0 and may take the 6 idle ones: on 8 its requested work (800 s)
// would end at 100, through the reservation, where only 2 more fit beside
// it; on 4 it would end at 200, and 2 more still fit. It grows to 4 and
// ends at 50 (200 s of work on 4). Job 2 (4 × 10 s) starts at 10 beside
// it, and ends by the reservation.
//
// A limit of 3 processors per user: job 1 (user 1, range [1, 8]) starts
// on 1 at 0 and grows to 3 (200 s of work: ends at 67); job 2 (user 2, 3
// × 10 s) starts beside it; at 10 the processors it gives back are offered
// to job 1 again, which the limit still holds at 3.
func TestGrowWithConstraints(t *testing.T) {
	user := func(j workload.Job, u int) workload.Job { j.User = u; return j }
	tests := []struct {
		name  string
		c     *sim.Constraints
		jobs  []workload.Job
		want  map[int64][2]workload.Time
		procs map[int64]int // the processors each job held at its end
	}{
		{
			name: "reservation",
			c:    &sim.Constraints{Reservations: []sim.Reservation{{Name: "m", Start: 20, Duration: 180, Until: workload.Forever, Procs: 4, Maint: true}}},
			jobs: []workload.Job{malleable(1, 0, 2, 100, 400, 2, 8), job(2, 10, 4, 10, 10)},
			want: map[int64][2]workload.Time{1: {0, 50}, 2: {10, 20}}, procs: map[int64]int{1: 4, 2: 4},
		},
		{
			name: "processors per user",
			c:    &sim.Constraints{Limits: []sim.Limit{{AllUsers: true, MaxCPUsPerUser: 3}}},
			jobs: []workload.Job{user(malleable(1, 0, 2, 100, 400, 1, 8), 1), user(job(2, 0, 3, 10, 10), 2)},
			want: map[int64][2]workload.Time{1: {0, 67}, 2: {0, 10}}, procs: map[int64]int{1: 3, 2: 3},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eng, err := sim.New(sim.Config{Procs: 8, Policy: policy.FCFS{}, Grow: &sim.Grow{Speedup: policy.Linear{}}, Constraints: tc.c})
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			col := &sim.Collector{}
			if _, err := eng.Run(simtest.NewSource(tc.jobs), simtest.Tee{rec, col}); err != nil {
				t.Fatal(err)
			}
			for id, w := range tc.want {
				r := rec.ByID(t, id)
				held := r.Job.Procs
				if len(r.Steps) > 0 {
					held = r.Steps[len(r.Steps)-1].Procs
				}
				if r.Start != w[0] || r.End != w[1] || held != tc.procs[id] {
					t.Errorf("job %d ran %d–%d on %d, want %d–%d on %d (steps %+v)", id, r.Start, r.End, held, w[0], w[1], tc.procs[id], r.Steps)
				}
			}
			if vs := sim.Verify(8, col.Outcomes, sim.VerifyOptions{Speedup: policy.Linear{}, Constraints: tc.c}); len(vs) > 0 {
				t.Errorf("verify: %v", vs)
			}
		})
	}
}

// TestVerifyGrowthOverConstraints: verify sees what a job holds after it
// grew: a growth through a reservation or over a limit on processors is
// caught, the same schedule without the growth is not.
func TestVerifyGrowthOverConstraints(t *testing.T) {
	c := &sim.Constraints{
		Reservations: []sim.Reservation{{Name: "m", Start: 20, Duration: 180, Until: workload.Forever, Procs: 4, Maint: true}},
		Limits:       []sim.Limit{{AllUsers: true, MaxCPUsPerUser: 5}},
	}
	out := func(steps ...sim.GrowStep) sim.Outcome {
		j := malleable(1, 0, 2, 100, 400, 2, 8)
		j.User = 1
		o := sim.Outcome{Job: j, State: sim.Completed, Start: 0, End: 50, Steps: steps}
		for _, st := range steps {
			o.Alloc = append(o.Alloc, st.Alloc...)
		}
		return o
	}
	tests := []struct {
		name  string
		steps []sim.GrowStep
		rule  string
	}{
		{"within", []sim.GrowStep{{At: 0, Procs: 2, Alloc: []cluster.Range{{Lo: 0, Hi: 2}}}, {At: 0, Procs: 4, Alloc: []cluster.Range{{Lo: 2, Hi: 4}}}}, ""},
		{"through the reservation", []sim.GrowStep{{At: 0, Procs: 2, Alloc: []cluster.Range{{Lo: 0, Hi: 2}}}, {At: 10, Procs: 6, Alloc: []cluster.Range{{Lo: 2, Hi: 6}}}}, "reservation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rules []string
			for _, v := range sim.Verify(8, []sim.Outcome{out(tc.steps...)}, sim.VerifyOptions{Constraints: c}) {
				if v.Rule == "reservation" || v.Rule == "limit" {
					rules = append(rules, v.Rule)
				}
			}
			if got := strings.Join(rules, ","); !strings.Contains(got, tc.rule) || (tc.rule == "" && got != "") {
				t.Errorf("violations %q, want %q", got, tc.rule)
			}
		})
	}
}

// TestGrowWithConstraintsRealTrace runs HPC2N-2002's first 3,170 jobs,
// every third one given a range of half to twice its processors, under
// EASY and FCFS with growth and the calendar of the checkpoint tests (a
// nightly maintenance, a users' reservation, a weekly partial one, a
// weekday start window, 6 jobs and 64 processors per user): verify
// replays every growth against the reservations and limits and finds
// nothing, and jobs did grow.
func TestGrowWithConstraintsRealTrace(t *testing.T) {
	jobs, procs := hpc2nRanges(t)
	speedup := policy.Amdahl{Serial: 0.1}
	for _, pol := range []policy.Policy{&policy.EASY{Lookahead: policy.LookaheadAll}, policy.FCFS{}} {
		c := calendarConstraints()
		eng, err := sim.New(sim.Config{Procs: procs, Policy: pol, Grow: &sim.Grow{Speedup: speedup}, Constraints: c})
		if err != nil {
			t.Fatal(err)
		}
		col := &sim.Collector{}
		if _, err := eng.Run(simtest.NewSource(jobs), col); err != nil {
			t.Fatal(err)
		}
		grew := 0
		for _, o := range col.Outcomes {
			if len(o.Steps) > 1 {
				grew++
			}
		}
		if grew == 0 {
			t.Errorf("%s: no job grew", pol.Name())
		}
		if vs := sim.Verify(procs, col.Outcomes, sim.VerifyOptions{Speedup: speedup, Constraints: c}); len(vs) > 0 {
			t.Fatalf("%s: %d violations, the first: %v", pol.Name(), len(vs), vs[0])
		}
		t.Logf("%s: %d jobs, %d grew while running", pol.Name(), len(col.Outcomes), grew)
	}
}

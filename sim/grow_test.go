package sim_test

import (
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
	st, err := eng.Run(simtest.NewSource(jobs), teeObserver{rec, col})
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

// teeObserver passes every record to each of its observers.
type teeObserver []sim.Observer

func (o teeObserver) JobDone(r *sim.Record) {
	for _, x := range o {
		x.JobDone(r)
	}
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
			// Two malleable jobs [2, 8], p0 4, 100 s, submitted together:
			// both start at the head on 2, then the growth step gives the
			// 4 left to job 1, the older: 6 processors, 400/6 = 66⅔: 67.
			// At 67 job 1 ends and job 2, 67 s into 200 s on 2 (134 of 400
			// done), grows to 8: 266/8 = 33.25: 34 → 101.
			name: "linear, two jobs, the older grows first", speedup: policy.Linear{},
			jobs:  []workload.Job{malleable(1, 0, 4, 100, 1000, 2, 8), malleable(2, 0, 4, 100, 1000, 2, 8)},
			start: []workload.Time{0, 0}, end: []workload.Time{67, 101}, procs: []int{6, 8},
			grows:    [][]workload.Time{{0}, {67}},
			procSecs: []int64{402, 406},
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
// re-evaluation 60 s. Job 1 (malleable [2, 8], p0 2, 100 s, requested
// 1000 s) starts at 0 on 2; its activation filter answers 0 to the start
// and the scripted result to the first growth (0 after). Job 2 (rigid 6,
// 10 s) is submitted at 5.
//
//   - 0: job 1 grows to 8 at 0: 200/8 = 25 s; job 2 waits for it: 25–35.
//   - 1: job 1 does not grow (not asked again before 60); the queue is not
//     blocked: job 2 starts at 5 on the 6 idle processors and ends at 15;
//     at 60, its re-evaluation, job 1 is offered the 6 idle processors
//     again (a pass of its own) and its filter answers 0: it grows to 8
//     having done 120 of its 200 processor-seconds: 80/8 = 10 s, it ends
//     at 70.
func TestGrowResults(t *testing.T) {
	refused := map[int64][2]workload.Time{1: {0, 70}, 2: {5, 15}}
	tests := []struct {
		name   string
		result hpcpack.Result
		want   map[int64][2]workload.Time
		note   string
	}{
		{"0 grows", hpcpack.Exit(0, ""), map[int64][2]workload.Time{1: {0, 25}, 2: {25, 35}}, "activate=0x1 grow=0x1"},
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
			jobs := []workload.Job{malleable(1, 0, 2, 100, 1000, 2, 8), job(2, 5, 6, 10, 10)}
			rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{}, h, jobs)
			for id, w := range tt.want {
				if r := rec.ByID(t, id); r.Start != w[0] || r.End != w[1] {
					t.Errorf("job %d runs %d–%d, want %d–%d\n%s", id, r.Start, r.End, w[0], w[1], simtest.Format(rec.Records))
				}
			}
			if r := rec.ByID(t, 1); r.Note != tt.note {
				t.Errorf("job 1 note %q, want %q", r.Note, tt.note)
			}
			// The growth call: job 1 running, asking for 8 processors.
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
			if tt.want[1][1] == 70 {
				want = 2 // refused at 0, asked again at 60
			}
			if len(grow) != want || grow[0].Resources != 8 || grow[0].Index != -1 || grow[0].Backfill || grow[0].Now != 0 || grow[0].Pass != 1 {
				t.Errorf("growth calls %+v, want %d, the first at 0 in pass 1 for 8 processors, index -1", grow, want)
			}
			if want == 2 && (grow[1].Now != 60 || grow[1].Resources != 8) {
				t.Errorf("second growth call %+v, want one at 60 for 8 processors", grow[1])
			}
		})
	}
}

// A refused growth is offered again (issue 22, item 6): a running job whose
// growth its filters refused is offered the idle processors again at its
// next re-evaluation, at a pass of its own when nothing else happens then.
// Machine of 8, FCFS, re-evaluation 60 s. Job 1 ([2, 8], p0 2, 400 s:
// 800 processor-seconds, requested 1000 s) starts at 0 on 2 (its filter
// answers 0) and is refused growth at 0 (answer 1); then the row's
// answers, 0 once the script is spent.
//
//   - asked again at 60: 6 idle, answer 0: 120 done, 680/8 = 85 s, it
//     ends at 145. Job 2 (rigid 1, 10 s, submitted at 70) finds the
//     machine full and runs 145–155.
//   - refused again at 60, asked at 120: job 2 starts at 70 on an idle
//     processor (a refused growth blocks nothing) and ends at 80, a pass at
//     which job 1 is not due; at 120 it grows to 8: 240 done, 560/8 = 70
//     s: 190.
//   - nothing idle at 60: job 2 (rigid 6, 100 s, submitted at 10) holds
//     the idle processors 10–110; the pass at 60 calls no filter; at 110
//     job 1 is offered the 6 freed ones and grows: 220 done, 580/8 = 72.5,
//     73 s: 183.
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
		{"asked again at its re-evaluation", nil, job(2, 70, 1, 10, 10), 145, 60, [2]workload.Time{145, 155}, []workload.Time{0, 60}, "activate=0x1 grow=0x1,1x1"},
		{"refused again, asked again a re-evaluation later", []hpcpack.Result{hpcpack.Exit(1, "")}, job(2, 70, 1, 10, 10), 190, 120, [2]workload.Time{70, 80}, []workload.Time{0, 60, 120}, "activate=0x1 grow=0x1,1x2"},
		{"nothing idle at its re-evaluation", nil, job(2, 10, 6, 100, 100), 183, 110, [2]workload.Time{10, 110}, []workload.Time{0, 110}, "activate=0x1 grow=0x1,1x1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := append([]hpcpack.Result{hpcpack.Exit(0, ""), hpcpack.Exit(1, "")}, tt.answers...)
			f := &scripted{name: "s", script: map[int64][]hpcpack.Result{1: script}}
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}, Reevaluate: 60}
			jobs := []workload.Job{malleable(1, 0, 2, 400, 1000, 2, 8), tt.job2}
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
// StartTime): job 1 (rigid 8, 30 s) holds the machine until 30, when job 2
// ([2, 8], p0 2, 100 s) starts on 2 and is offered the 6 others in the
// same pass; its filter refuses the growth at 30, and again at 90.
func TestGrowCallStart(t *testing.T) {
	f := &scripted{name: "s", script: map[int64][]hpcpack.Result{2: {hpcpack.Exit(0, ""), hpcpack.Exit(1, ""), hpcpack.Exit(1, "")}}}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}, Reevaluate: 60}
	rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{}, h, []workload.Job{job(1, 0, 8, 30, 30), malleable(2, 0, 2, 100, 1000, 2, 8)})
	var got [][2]workload.Time
	for k, c := range f.calls {
		if c.Grow && f.ids[k] == 2 {
			got = append(got, [2]workload.Time{c.Now, c.Start})
		}
	}
	if want := [][2]workload.Time{{30, 30}, {90, 30}}; !slices.Equal(got, want) {
		t.Errorf("growth calls (now, start) %v, want %v\n%s", got, want, simtest.Format(rec.Records))
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

// Grow refuses what it cannot combine with.
func TestGrowConfigErrors(t *testing.T) {
	est, err := policy.ParseEstimator("perfect")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.New(sim.Config{Procs: 4, Grow: &sim.Grow{}, Estimator: est}); err == nil || !strings.Contains(err.Error(), "Estimator") {
		t.Errorf("Grow with an Estimator: %v", err)
	}
	spec := &cluster.Spec{Select: cluster.SelectConsRes, Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 2}}}
	if _, err := sim.New(sim.Config{Grow: &sim.Grow{}, Allocator: cluster.NewConsRes(spec)}); err == nil || !strings.Contains(err.Error(), "Allocator") {
		t.Errorf("Grow with an Allocator: %v", err)
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
	j := malleable(1, 0, 2, 100, 1000, 2, 8)
	j.Template = "Big"
	rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{}, h, []workload.Job{j})
	if want := []string{"a:1", "tpl:1"}; !slices.Equal(reverts, want) {
		t.Errorf("reverts %v, want %v", reverts, want)
	}
	// Asked again at its re-evaluation (60), the chain passes: 120 of 200
	// processor-seconds done, 80/8 = 10 s.
	if r := rec.ByID(t, 1); r.End != 70 || len(r.Steps) != 2 || r.Steps[1].At != 60 {
		t.Errorf("job 1 ends at %d with steps %+v, want 70, grown at 60", r.End, r.Steps)
	}
	if len(tpl.calls) != 3 || !tpl.calls[1].Grow || tpl.calls[1].Resources != 8 || tpl.calls[2].Now != 60 {
		t.Errorf("template filter calls %+v, want the start and growths to 8 at 0 and 60", tpl.calls)
	}
}

// A license pool in front of a filter that refuses every growth: the pool
// takes the growth's licenses, the refusal reverts them, and the running
// job keeps only its own. Machine of 9, pool of 8 "fluent", re-evaluation
// 60 s. Job 1 ([2, 8], p0 2, 100 s, one license per processor) starts at
// 0 on 2 (2 licenses) and is refused growth at 0 and 60 (its
// re-evaluation). Job 2 (rigid 1,
// 7 licenses) arrives at 5: 6 free, short: it keeps its processor (result
// 2), is re-evaluated at 65 (still 6 free) and 125, after job 1 gave its 2
// back at 100: it starts at 125. Had the refusal given back all of job 1's
// licenses, job 2 would have started at 5.
func TestGrowLicensesReverted(t *testing.T) {
	pool := &hpcpack.LicensePool{Total: map[string]int{"fluent": 8}, WhenShort: hpcpack.ActivateKeepResources}
	deny := &scripted{name: "deny", script: map[int64][]hpcpack.Result{1: {hpcpack.Exit(0, ""), hpcpack.Exit(1, ""), hpcpack.Exit(1, ""), hpcpack.Exit(1, "")}}}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{pool, deny}, Reevaluate: 60}
	jobs := []workload.Job{malleable(1, 0, 2, 100, 1000, 2, 8), job(2, 5, 1, 10, 10)}
	jobs[0].Licenses, jobs[1].Licenses = "fluent:*", "fluent:7"
	rec, _ := growRun(t, 9, policy.FCFS{}, &sim.Grow{}, h, jobs)
	if r := rec.ByID(t, 1); r.End != 100 || len(r.Steps) != 1 || r.Note != "activate=0x1 grow=1x2" {
		t.Errorf("job 1 ends at %d, steps %+v, note %q; want 100, never grown, grow=1x2", r.End, r.Steps, r.Note)
	}
	if r := rec.ByID(t, 2); r.Start != 125 {
		t.Errorf("job 2 starts at %d, want 125\n%s", r.Start, simtest.Format(rec.Records))
	}
	if pool.Free("fluent") != 8 {
		t.Errorf("%d licenses free at the end, want 8", pool.Free("fluent"))
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

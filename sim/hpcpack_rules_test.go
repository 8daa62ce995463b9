package sim_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// This file holds HPC Pack's rules as its documentation states them (issue
// #22 items 1, 3, 4 and 5; SPEC §3 and §6), each with a schedule computed by
// hand in the comments: the start, end and final state of every job.

// sched is a job's expected record: its state, start and end.
type sched struct {
	id         int64
	state      sim.State
	start, end workload.Time
}

// checkSched compares every job's record with want, and that there is no
// other record.
func checkSched(t *testing.T, rec *simtest.Recorder, want []sched) {
	t.Helper()
	if len(rec.Records) != len(want) {
		t.Errorf("%d records, want %d", len(rec.Records), len(want))
	}
	for _, w := range want {
		r := rec.ByID(t, w.id)
		if r.State != w.state || r.Start != w.start || r.End != w.end {
			t.Errorf("job %d: %v [%d, %d], want %v [%d, %d]", w.id, r.State, r.Start, r.End, w.state, w.start, w.end)
		}
	}
	if t.Failed() {
		t.Log("\n" + simtest.Format(rec.Records))
	}
}

// runRules runs jobs on procs processors under pol with the HPC Pack model
// h (nil: none; its activation filters, if any, wrap pol).
func runRules(t *testing.T, procs int, pol policy.Policy, h *hpcpack.Model, jobs []workload.Job) *simtest.Recorder {
	t.Helper()
	cfg := sim.Config{Procs: procs, Policy: pol}
	if h != nil {
		if h.HasActivation() {
			var err error
			if cfg.Policy, err = h.Wrap(pol); err != nil {
				t.Fatal(err)
			}
		}
		cfg.Admission, cfg.Annotator = h, h
	}
	eng, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	if _, err := eng.Run(simtest.NewSource(jobs), rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestHPCPackBackfillWindow (item 1): HPC Pack's backfill window is the
// processors free now × the time until the head's start, and a job behind
// the head starts only if it completes inside it; EASY also starts a job
// that runs past the head's start on processors the head will not need.
//
// Machine of 10. Job 1 (6 procs) runs 0–100; at 1 the head, job 2 (8
// procs, 50 s), waits for it: its start (shadow) is 100, and 2 processors
// are left over then (EASY's extra). Behind it, each of 2 procs: job 3
// asks 200 s, job 4 asks 90 s (runs 80), job 5 asks 99 s.
//
// EASY: job 3 runs past 100 on the extra 2 → starts at 1; job 4 ends by
// 100 → starts at 1; no processor is left for job 5. At 81 job 4 ends:
// job 5 would end at 180 > 100 and the extra is used up. At 100 job 1 ends,
// job 2 runs 100–150; at 150 job 5 runs 150–249.
//
// HPC Pack: the window is 4 processors × 99 s. Job 3 cannot complete in
// it; job 4 (ends 91) starts at 1; job 5 (ends at 100, the head's start)
// starts at 1 and takes the rest. At 100 jobs 1 and 5 end: job 2 runs
// 100–150 and job 3, now the head's successor, fits beside it: 100–300.
//
// Without a known shadow (job 1 has no requested time), the head could
// start as soon as job 1 ends, at best now: HPC Pack's window is empty and
// nothing backfills, while EASY still starts job 3 on the extra 2 (one
// running job without an estimate, EarliestPossible). EASY: job 3 1–201;
// job 2 100–150; jobs 4 and 5 at 150 (150–230, 150–249). HPC Pack: job 2
// 100–150, job 3 100–300, jobs 4 and 5 150–230 and 150–249.
func TestHPCPackBackfillWindow(t *testing.T) {
	jobs := func(est1 workload.Time) []workload.Job {
		return []workload.Job{
			job(1, 0, 6, 100, est1),
			job(2, 1, 8, 50, 50),
			job(3, 1, 2, 200, 200),
			job(4, 1, 2, 80, 90),
			job(5, 1, 2, 99, 99),
		}
	}
	easy, err := policy.New(policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.LookaheadAll})
	if err != nil {
		t.Fatal(err)
	}
	strict, err := policy.New(policy.Config{Backfill: policy.BackfillHPCPack, Lookahead: policy.LookaheadAll})
	if err != nil {
		t.Fatal(err)
	}
	if got := strict.Name(); got != "hpcpack(lookahead=all)" {
		t.Errorf("name %q, want hpcpack(lookahead=all)", got)
	}
	c := sim.Completed
	tests := []struct {
		name string
		pol  func() policy.Policy
		h    func() *hpcpack.Model
		est1 workload.Time
		want []sched
	}{
		{"easy", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }, nil, 100,
			[]sched{{1, c, 0, 100}, {2, c, 100, 150}, {3, c, 1, 201}, {4, c, 1, 81}, {5, c, 150, 249}}},
		{"hpcpack", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll, Strict: true} }, nil, 100,
			[]sched{{1, c, 0, 100}, {2, c, 100, 150}, {3, c, 100, 300}, {4, c, 1, 81}, {5, c, 1, 100}}},
		{"hpcpack with activation filters", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll, Strict: true} },
			func() *hpcpack.Model {
				return &hpcpack.Model{Activation: []hpcpack.ActivationFilter{&passAll{}}}
			}, 100,
			[]sched{{1, c, 0, 100}, {2, c, 100, 150}, {3, c, 100, 300}, {4, c, 1, 81}, {5, c, 1, 100}}},
		{"easy, unknown shadow", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }, nil, none,
			[]sched{{1, c, 0, 100}, {2, c, 100, 150}, {3, c, 1, 201}, {4, c, 150, 230}, {5, c, 150, 249}}},
		{"hpcpack, unknown shadow", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll, Strict: true} }, nil, none,
			[]sched{{1, c, 0, 100}, {2, c, 100, 150}, {3, c, 100, 300}, {4, c, 150, 230}, {5, c, 150, 249}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h *hpcpack.Model
			if tt.h != nil {
				h = tt.h()
			}
			checkSched(t, runRules(t, 10, tt.pol(), h, jobs(tt.est1)), tt.want)
		})
	}
	// policy.New builds the same policies.
	if e, ok := easy.(*policy.EASY); !ok || e.Strict {
		t.Errorf("backfill easy: %#v", easy)
	}
	if e, ok := strict.(*policy.EASY); !ok || !e.Strict {
		t.Errorf("backfill hpcpack: %#v", strict)
	}
	for _, bad := range []policy.Config{
		{Backfill: policy.BackfillHPCPack, Depth: 2},
		{Backfill: policy.BackfillHPCPack, Depth: policy.DepthAll},
		{Backfill: policy.BackfillHPCPack, SJBF: true},
	} {
		if _, err := policy.New(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// holdSub is a submission filter that sets Hold Until (result 1) on the
// jobs it names.
type holdSub map[int64]workload.Time

func (h holdSub) Name() string { return "hold-sub" }
func (h holdSub) FilterSubmission(j *workload.Job) hpcpack.Result {
	if t, ok := h[j.ID]; ok {
		j.HoldUntil = t
		return hpcpack.Exit(hpcpack.SubmitChanged, "")
	}
	return hpcpack.Exit(hpcpack.SubmitAsIs, "")
}
func (h holdSub) RevertSubmission(*workload.Job) {}

// TestHoldUntilIsAJobProperty (item 4): a job whose Hold Until lies in the
// future does not start before it, with or without filters; it then
// queues at its submission-order place.
//
// Machine of 4. Job 1 (2 procs, 100 s) is held until 40; job 2 (2 procs,
// 50 s) starts at 0; job 3 (4 procs, 10 s) arrives at 10 and waits for job
// 2 (EASY reserves it at 50). At 40 job 1 leaves its hold ahead of job 3
// (submitted before it) and starts on the 2 free processors: 40–140; job
// 3's reservation is void, and it runs 140–150. Job 4 (1 proc, 5 s, at 10)
// has a Hold Until at its submission, which holds nothing: it backfills at
// 10 (ends 15 ≤ 50). Before, a trace's Hold Until was ignored without
// activation filters: job 1 ran 0–100, job 3 100–110.
func TestHoldUntilIsAJobProperty(t *testing.T) {
	c := sim.Completed
	want := []sched{{1, c, 40, 140}, {2, c, 0, 50}, {3, c, 140, 150}, {4, c, 10, 15}}
	tests := []struct {
		name  string
		trace bool // Hold Until from the trace (else a submission filter sets it)
		h     func() *hpcpack.Model
		pol   func() policy.Policy
	}{
		{"trace, no HPC Pack model", true, nil, func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
		{"trace, FCFS", true, nil, func() policy.Policy { return policy.FCFS{} }},
		{"trace, templates only", true, func() *hpcpack.Model {
			return &hpcpack.Model{Templates: map[string]*hpcpack.Template{"Default": {Name: "Default"}}}
		}, func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
		{"trace, activation filters", true, func() *hpcpack.Model {
			return &hpcpack.Model{Activation: []hpcpack.ActivationFilter{&passAll{}}}
		}, func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
		{"submission filter, no activation filter", false, func() *hpcpack.Model {
			return &hpcpack.Model{Submission: []hpcpack.SubmissionFilter{holdSub{1: 40, 4: 10}}}
		}, func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
		{"submission filter, activation filters", false, func() *hpcpack.Model {
			return &hpcpack.Model{Submission: []hpcpack.SubmissionFilter{holdSub{1: 40, 4: 10}}, Activation: []hpcpack.ActivationFilter{&passAll{}}}
		}, func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs := []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 2, 50, 50), job(3, 10, 4, 10, 10), job(4, 10, 1, 5, 5)}
			if tt.trace {
				jobs[0].HoldUntil, jobs[3].HoldUntil = 40, 10
			}
			var h *hpcpack.Model
			if tt.h != nil {
				h = tt.h()
			}
			w := want
			if tt.name == "trace, FCFS" {
				// FCFS: job 4 waits behind job 3: 150–155.
				w = []sched{{1, c, 40, 140}, {2, c, 0, 50}, {3, c, 140, 150}, {4, c, 150, 155}}
			}
			checkSched(t, runRules(t, 4, tt.pol(), h, jobs), w)
		})
	}
}

// TestHoldUntilFastPaths: with held jobs released into long queues, EASY
// (index, dense walk, skipped passes) starts every job when EASY under
// Ordered (the plain walk) does, and no job starts before its Hold Until.
// Seeds 4 to 6 hold every job for a submission latency too (15 s), so
// that most releases join at the queue's tail, as submissions, which
// passes may skip.
func TestHoldUntilFastPaths(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	for seed := uint64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x401d))
		jobs := make([]workload.Job, n)
		at := workload.Time(0)
		for i := range jobs {
			at += workload.Time(r.IntN(40))
			run := workload.Time(1 + r.IntN(2000))
			jobs[i] = job(int64(i+1), at, 1+r.IntN(64), run, run+workload.Time(r.IntN(500)))
			if r.IntN(10) == 0 {
				jobs[i].HoldUntil = at + workload.Time(r.IntN(5000))
			}
			if seed > 3 {
				jobs[i].HoldUntil = max(jobs[i].HoldUntil, at+15)
			}
		}
		var starts [2][]workload.Time
		for k, pol := range []policy.Policy{
			&policy.EASY{Lookahead: policy.LookaheadAll},
			&policy.Ordered{Order: policy.Arrival{}, Inner: &policy.EASY{Lookahead: policy.LookaheadAll}},
		} {
			rec := runRules(t, 128, pol, nil, append([]workload.Job(nil), jobs...))
			starts[k] = make([]workload.Time, n)
			for _, x := range rec.Records {
				if x.Start < x.Job.HoldUntil {
					t.Fatalf("seed %d, %s: job %d starts at %d before its Hold Until %d", seed, pol.Name(), x.Job.ID, x.Start, x.Job.HoldUntil)
				}
				starts[k][x.Job.ID-1] = x.Start
			}
		}
		for i := range n {
			if starts[0][i] != starts[1][i] {
				t.Fatalf("seed %d: job %d starts at %d under EASY, %d under the plain walk", seed, i+1, starts[0][i], starts[1][i])
			}
		}
	}
}

// answers is an activation filter that answers from a script per job ID:
// the results of its successive calls, the last one repeated forever (0
// for a job without a script). It counts its calls per job.
type answers struct {
	script map[int64][]int
	calls  map[int64]int
}

func (a *answers) Name() string { return "script" }
func (a *answers) FilterActivation(x *hpcpack.Activation) hpcpack.Result {
	if a.calls == nil {
		a.calls = map[int64]int{}
	}
	s := a.script[x.Job.ID]
	k := a.calls[x.Job.ID]
	a.calls[x.Job.ID]++
	if len(s) == 0 {
		return hpcpack.Exit(0, "")
	}
	return hpcpack.Exit(s[min(k, len(s)-1)], "")
}
func (a *answers) RevertActivation(*hpcpack.Activation) {}

// repeat returns code n times, then last.
func repeat(code, n, last int) []int {
	s := make([]int, n, n+1)
	for k := range s {
		s[k] = code
	}
	return append(s, last)
}

// TestNoRetryLimit (item 3): results 1 and 2 are re-evaluated every
// Reevaluate (60 s) until the job starts, however often; a job still kept
// waiting when the trace and the machine have nothing left to do (no job
// to come, none running, no hold to end) is reported as never started
// (sim.Pending) once each waiting job was asked again after the last
// event, and the run ends. Machine of 4, FCFS inside the filters.
//
//   - "2 forever": job 1 (1 proc) answers 2 and keeps 1 processor; job 2
//     (1 proc, 10 s) runs 0–10; job 3 (4 procs) never fits beside the
//     reservation. At 10 job 2 ends (the last event); job 1 is asked again
//     at 60 and answers 2: jobs 1 and 3 end the run at 60, never started.
//     (schedsim failed job 1 after 10 idle re-evaluations, at 600, and
//     then ran job 3.)
//   - "1 forever": job 1 (2 procs, 100 s) runs 0–100; job 2 (2 procs)
//     answers 1 and blocks job 3 (priority 0, same as its own); job 4
//     (priority 5) is not blocked: 0–10. Job 2 is asked at 0, 60, 120:
//     job 1 ends at 100, job 2 is asked again at 120: jobs 2 and 3 never
//     start, reported at 120.
//   - "1 sixteen times": job 1 (1 proc) runs 0–1000; job 2 (1 proc, 10 s)
//     answers 1 at 1, 61, …, 841 (15 calls) and 0 at 901: it runs 901–911.
//     No limit stops it.
//   - "a hold keeps the run going": job 1 answers 2 forever; job 2 answers
//     3 (held for the default 900 s), then 0. Nothing runs, but job 2's
//     hold ends at 900: it runs 900–910; job 1, asked at 900 and 960, is
//     reported at 960.
func TestNoRetryLimit(t *testing.T) {
	c, p := sim.Completed, sim.Pending
	withPrio := func(j workload.Job, prio int64) workload.Job { j.Priority = prio; return j }
	tests := []struct {
		name   string
		jobs   []workload.Job
		script map[int64][]int
		want   []sched
		notes  map[int64]string
		reason map[int64]string
	}{
		{"2 forever",
			[]workload.Job{job(1, 0, 1, 10, 10), job(2, 0, 1, 10, 10), job(3, 0, 4, 5, 5)},
			map[int64][]int{1: {2}},
			[]sched{{1, p, 60, 60}, {2, c, 0, 10}, {3, p, 60, 60}},
			map[int64]string{1: "activate=2x2 reserving_sec=60"},
			map[int64]string{1: "its activation filters keep it waiting (keeps its processors reserved) (script: 2)", 3: "it waits behind"}},
		{"1 forever",
			[]workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 2, 10, 10), job(3, 0, 1, 10, 10), withPrio(job(4, 0, 1, 10, 10), 5)},
			map[int64][]int{2: {1}},
			[]sched{{1, c, 0, 100}, {2, p, 120, 120}, {3, p, 120, 120}, {4, c, 0, 10}},
			map[int64]string{2: "activate=1x3 blocked_sec=120"},
			map[int64]string{2: "(blocks the queue) (script: 1)", 3: "it waits behind"}},
		{"1 sixteen times",
			[]workload.Job{job(1, 0, 1, 1000, 1000), job(2, 1, 1, 10, 10)},
			map[int64][]int{2: repeat(1, 15, 0)},
			[]sched{{1, c, 0, 1000}, {2, c, 901, 911}},
			map[int64]string{2: "activate=0x1,1x15 blocked_sec=900"},
			nil},
		{"a hold keeps the run going",
			[]workload.Job{job(1, 0, 1, 10, 10), job(2, 0, 1, 10, 10)},
			map[int64][]int{1: {2}, 2: {3, 0}},
			[]sched{{1, p, 960, 960}, {2, c, 900, 910}},
			map[int64]string{1: "activate=2x17 reserving_sec=960", 2: "activate=0x1,3x1 held_sec=900"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{&answers{script: tt.script}}, Reevaluate: 60}
			rec := runRules(t, 4, policy.FCFS{}, h, tt.jobs)
			checkSched(t, rec, tt.want)
			for id, want := range tt.notes {
				if got := rec.ByID(t, id).Note; got != want {
					t.Errorf("job %d note %q, want %q", id, got, want)
				}
			}
			for id, want := range tt.reason {
				r := rec.ByID(t, id)
				if !strings.HasPrefix(r.Reason, hpcpack.MsgStillQueued) || !strings.Contains(r.Reason, want) {
					t.Errorf("job %d reason %q, want %q…%q", id, r.Reason, hpcpack.MsgStillQueued, want)
				}
			}
		})
	}
}

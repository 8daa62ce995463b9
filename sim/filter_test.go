package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// scripted is a filter that answers from a script: for each job ID, the
// results of its successive calls; once the script is used up (or for a job
// without one) it answers 0. It logs every call and revert.
type scripted struct {
	name    string
	script  map[int64][]hpcpack.Result
	change  func(j *workload.Job) // applied when a submission answers 1
	calls   []hpcpack.Activation  // activation calls, Job pointer dropped
	ids     []int64               // job of each call, submission or activation
	reverts *[]string             // shared log of reverts: "name:jobID"
}

var (
	_ hpcpack.SubmissionFilter = (*scripted)(nil)
	_ hpcpack.ActivationFilter = (*scripted)(nil)
)

func (s *scripted) Name() string { return s.name }

func (s *scripted) next(id int64) hpcpack.Result {
	s.ids = append(s.ids, id)
	rs := s.script[id]
	if len(rs) == 0 {
		return hpcpack.Exit(0, "")
	}
	s.script[id] = rs[1:]
	return rs[0]
}

func (s *scripted) FilterSubmission(j *workload.Job) hpcpack.Result {
	r := s.next(j.ID)
	if r.Status == hpcpack.Exited && r.Code == hpcpack.SubmitChanged && s.change != nil {
		s.change(j)
	}
	return r
}

func (s *scripted) RevertSubmission(j *workload.Job) {
	if s.reverts != nil {
		*s.reverts = append(*s.reverts, fmt.Sprintf("%s:%d", s.name, j.ID))
	}
}

func (s *scripted) FilterActivation(a *hpcpack.Activation) hpcpack.Result {
	c := *a
	c.Job = nil
	s.calls = append(s.calls, c)
	return s.next(a.Job.ID)
}

func (s *scripted) RevertActivation(a *hpcpack.Activation) {
	if s.reverts != nil {
		*s.reverts = append(*s.reverts, fmt.Sprintf("%s:%d", s.name, a.Job.ID))
	}
}

// hpcRun runs jobs under inner with h's filters, checks the schedule of the
// jobs that ran, and returns the records.
func hpcRun(t *testing.T, procs int, h *hpcpack.Model, inner policy.Policy, jobs []workload.Job) *simtest.Recorder {
	t.Helper()
	pol, err := h.Wrap(inner)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := sim.New(sim.Config{Procs: procs, Policy: pol, Admission: h, Annotator: h})
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	if _, err := eng.Run(simtest.NewSource(jobs), rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Records) != len(jobs) {
		t.Fatalf("%d records for %d jobs\n%s", len(rec.Records), len(jobs), simtest.Format(rec.Records))
	}
	var ran []sim.Record
	var ranJobs []workload.Job
	for _, r := range rec.Records {
		if r.State == sim.Failed || r.State == sim.Pending {
			if r.Reason == "" || len(r.Alloc) != 0 {
				t.Errorf("failed job %d: reason %q alloc %v", r.Job.ID, r.Reason, r.Alloc)
			}
			continue
		}
		ran = append(ran, r)
		ranJobs = append(ranJobs, *r.Job)
	}
	if err := simtest.CheckSchedule(procs, ranJobs, ran); err != nil {
		t.Fatalf("%v\n%s", err, simtest.Format(rec.Records))
	}
	return rec
}

// outcome is a job's expected start ("F" + reason prefix for a failed job).
type outcome struct {
	start  workload.Time
	failed string // a failed job's reason starts with this
}

func checkOutcomes(t *testing.T, rec *simtest.Recorder, want map[int64]outcome) {
	t.Helper()
	for _, id := range slices.Sorted(mapKeys(want)) {
		w := want[id]
		r := rec.ByID(t, id)
		switch {
		case w.failed != "":
			if r.State != sim.Failed || !strings.HasPrefix(r.Reason, w.failed) {
				t.Errorf("job %d: %v %q, want failed %q", id, r.State, r.Reason, w.failed)
			}
		case r.State == sim.Failed:
			t.Errorf("job %d failed (%s), want a start at %d", id, r.Reason, w.start)
		case r.Start != w.start:
			t.Errorf("job %d starts at %d, want %d", id, r.Start, w.start)
		}
	}
	if t.Failed() {
		t.Log("\n" + simtest.Format(rec.Records))
	}
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestSubmissionResults has one row per row of SPEC §6's submission table.
// Machine of 4; job 1 (2 processors, 10 s) meets the filter; job 2 (3
// processors, 10 s), submitted with it, starts at 0 beside it unless
// job 1 grew to 4 processors (result 1 changes it).
func TestSubmissionResults(t *testing.T) {
	tests := []struct {
		name   string
		result hpcpack.Result
		want   map[int64]outcome
	}{
		{"0 enters as is", hpcpack.Exit(0, ""), map[int64]outcome{1: {start: 0}, 2: {start: 10}}},
		{"1 the changed job enters", hpcpack.Exit(1, ""), map[int64]outcome{1: {start: 0}, 2: {start: 10}}},
		{"other fails", hpcpack.Exit(7, "no"), map[int64]outcome{1: {failed: hpcpack.MsgSubmissionFailed}, 2: {start: 0}}},
		{"-1 (FailJob) fails", hpcpack.Exit(-1, ""), map[int64]outcome{1: {failed: hpcpack.MsgSubmissionFailed}, 2: {start: 0}}},
		{"timeout fails", hpcpack.Result{Status: hpcpack.TimedOut}, map[int64]outcome{1: {failed: hpcpack.MsgSubmissionTimedOut}, 2: {start: 0}}},
		{"not found fails", hpcpack.Result{Status: hpcpack.NotFound}, map[int64]outcome{1: {failed: hpcpack.MsgFilterNotFound}, 2: {start: 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &scripted{name: "s", script: map[int64][]hpcpack.Result{1: {tt.result}}}
			// Result 1 makes job 1 a 4-processor job: job 2 must wait for it.
			f.change = func(j *workload.Job) { j.Procs = 4 }
			if tt.result.Code == 0 && tt.result.Status == hpcpack.Exited {
				// As is: job 2 fits beside job 1 (2 + 3 > 4 does not:
				// make job 1 1-processor wide so both start at 0).
				tt.want[2] = outcome{start: 0}
			}
			h := &hpcpack.Model{Submission: []hpcpack.SubmissionFilter{f}}
			jobs := []workload.Job{job(1, 0, 1, 10, 10), job(2, 0, 3, 10, 10)}
			rec := hpcRun(t, 4, h, &policy.EASY{Lookahead: policy.LookaheadAll}, jobs)
			checkOutcomes(t, rec, tt.want)
			if tt.result.Code == 1 && tt.result.Status == hpcpack.Exited {
				if got := rec.ByID(t, 1).Job.Procs; got != 4 {
					t.Errorf("changed job runs on %d processors, want 4", got)
				}
			}
		})
	}
}

// TestSubmissionChainReverts: when a filter fails the job, the filters that
// ran before it are called again in reverse order; a filter after it never
// runs.
func TestSubmissionChainReverts(t *testing.T) {
	var reverts []string
	a := &scripted{name: "a", script: map[int64][]hpcpack.Result{1: {hpcpack.Exit(1, "")}}, reverts: &reverts}
	b := &scripted{name: "b", script: map[int64][]hpcpack.Result{}, reverts: &reverts}
	c := &scripted{name: "c", script: map[int64][]hpcpack.Result{1: {hpcpack.Exit(2, "too big")}}, reverts: &reverts}
	d := &scripted{name: "d", script: map[int64][]hpcpack.Result{}, reverts: &reverts}
	h := &hpcpack.Model{Submission: []hpcpack.SubmissionFilter{a, b, c, d}}
	rec := hpcRun(t, 4, h, policy.FCFS{}, []workload.Job{job(1, 0, 1, 10, 10), job(2, 5, 1, 10, 10)})
	if want := []string{"b:1", "a:1"}; !slices.Equal(reverts, want) {
		t.Errorf("reverts %v, want %v", reverts, want)
	}
	if len(d.ids) != 1 || d.ids[0] != 2 {
		t.Errorf("filter after the failing one saw jobs %v, want only job 2", d.ids)
	}
	r := rec.ByID(t, 1)
	if want := "submission filter failed the job (c: 2, too big); submit=1,0,2"; r.Reason != want {
		t.Errorf("reason %q, want %q", r.Reason, want)
	}
	if r := rec.ByID(t, 2); r.Note != "submit=0,0,0,0" {
		t.Errorf("job 2 note %q, want submit=0,0,0,0", r.Note)
	}
}

// TestActivationResults has one row per row of SPEC §6's activation table
// (queued jobs). Machine of 4 processors; EASY; re-evaluation every 60 s;
// default hold 120 s. Jobs, all submitted at 0 with exact estimates:
// job 1 (2 processors, 100 s) meets the scripted result on its first call
// and 0 after; jobs 2 and 3 (2 processors, 50 s each) are behind it.
//
// Without filters: 1 and 2 start at 0, 3 at 50 (when 2 ends).
func TestActivationResults(t *testing.T) {
	keep := map[int64]outcome{1: {start: 60}, 2: {start: 0}, 3: {start: 50}}
	tests := []struct {
		name   string
		result hpcpack.Result
		prio3  int64 // job 3's priority
		want   map[int64]outcome
		note   string // job 1's note
	}{
		// 0: job 1 starts on the candidate resources.
		{"0 start", hpcpack.Exit(0, ""), 0, map[int64]outcome{1: {start: 0}, 2: {start: 0}, 3: {start: 50}}, "activate=0x1"},
		// 1: nothing of equal or lower priority starts until job 1 does:
		// at the re-evaluation at 60 it passes; 2 starts beside it; 3
		// when 2 ends at 110.
		{"1 blocks the queue", hpcpack.Exit(1, ""), 0, map[int64]outcome{1: {start: 60}, 2: {start: 60}, 3: {start: 110}}, "activate=0x1,1x1 blocked_sec=60"},
		// 1 with job 3 of higher priority: 3 is not blocked and starts at
		// 0; 2 is, and starts with 1 at 60 (3 ended at 50).
		{"1 lets higher priority pass", hpcpack.Exit(1, ""), 1, map[int64]outcome{1: {start: 60}, 2: {start: 60}, 3: {start: 0}}, "activate=0x1,1x1 blocked_sec=60"},
		// 2: job 1's 2 processors stay reserved; 2 starts on the others; 3
		// takes them when 2 ends at 50; job 1 passes at 60 on its own.
		{"2 keeps the resources", hpcpack.Exit(2, ""), 0, keep, "activate=0x1,2x1 reserving_sec=60"},
		// 3: job 1 is held for the default 120 s, its processors go to 2
		// and 3; it starts at 120.
		{"3 holds", hpcpack.Exit(3, ""), 0, map[int64]outcome{1: {start: 120}, 2: {start: 0}, 3: {start: 0}}, "activate=0x1,3x1 held_sec=120"},
		// 4: job 1 fails; 2 and 3 start at 0.
		{"4 fails", hpcpack.Exit(4, "license server says no"), 0, map[int64]outcome{1: {failed: hpcpack.MsgActivationFailed}, 2: {start: 0}, 3: {start: 0}}, ""},
		// Any other code, a timeout and a missing filter act as 2.
		{"other acts as 2", hpcpack.Exit(9, ""), 0, keep, "activate=0x1,otherx1 reserving_sec=60"},
		{"-1 acts as 2", hpcpack.Exit(-1, ""), 0, keep, "activate=0x1,otherx1 reserving_sec=60"},
		{"timeout acts as 2", hpcpack.Result{Status: hpcpack.TimedOut}, 0, keep, "activate=0x1,timeoutx1 reserving_sec=60"},
		{"not found acts as 2", hpcpack.Result{Status: hpcpack.NotFound}, 0, keep, "activate=0x1,not-foundx1 reserving_sec=60"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &scripted{name: "s", script: map[int64][]hpcpack.Result{1: {tt.result}}}
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}, Reevaluate: 60, DefaultHold: 120}
			jobs := []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 2, 50, 50), job(3, 0, 2, 50, 50)}
			jobs[2].Priority = tt.prio3
			rec := hpcRun(t, 4, h, &policy.EASY{Lookahead: policy.LookaheadAll}, jobs)
			checkOutcomes(t, rec, tt.want)
			r := rec.ByID(t, 1)
			if r.State != sim.Failed && r.Note != tt.note {
				t.Errorf("job 1 note %q, want %q", r.Note, tt.note)
			}
			if r.State == sim.Failed && !strings.Contains(r.Reason, "license server says no") {
				t.Errorf("failed job's reason %q lacks the filter's message", r.Reason)
			}
			if r.Job.HoldUntil != 0 {
				t.Errorf("job 1 ran with HoldUntil %d, want it cleared", r.Job.HoldUntil)
			}
		})
	}
}

// holdFilter answers 3 and sets Hold Until itself on job 1's first call.
type holdFilter struct {
	until workload.Time
	done  bool
}

func (h *holdFilter) Name() string { return "hold" }
func (h *holdFilter) FilterActivation(a *hpcpack.Activation) hpcpack.Result {
	if a.Job.ID != 1 || h.done {
		return hpcpack.Exit(0, "")
	}
	h.done = true
	a.Job.HoldUntil = h.until
	return hpcpack.Exit(hpcpack.ActivateHold, "")
}
func (h *holdFilter) RevertActivation(*hpcpack.Activation) {}

// A filter that sets Hold Until itself: job 1 is held until 30, then waits
// for processors (jobs 2 and 3 hold all 4 until 50).
func TestActivationHoldUntilFromFilter(t *testing.T) {
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{&holdFilter{until: 30}}}
	jobs := []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 2, 50, 50), job(3, 0, 2, 50, 50)}
	rec := hpcRun(t, 4, h, &policy.EASY{Lookahead: policy.LookaheadAll}, jobs)
	checkOutcomes(t, rec, map[int64]outcome{1: {start: 50}, 2: {start: 0}, 3: {start: 0}})
	if n := rec.ByID(t, 1).Note; n != "activate=0x1,3x1 held_sec=30" {
		t.Errorf("note %q", n)
	}
}

// A job's Hold Until from the trace keeps it out of the queue until then.
func TestTraceHoldUntil(t *testing.T) {
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{&scripted{name: "s", script: map[int64][]hpcpack.Result{}}}}
	jobs := []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 2, 50, 50)}
	jobs[0].HoldUntil = 40
	rec := hpcRun(t, 4, h, policy.FCFS{}, jobs)
	checkOutcomes(t, rec, map[int64]outcome{1: {start: 40}, 2: {start: 0}})
}

// In a backfill window a job starts only with result 0: result 2 neither
// reserves nor blocks. Machine of 4: job 1 (3 processors, 100 s) runs; head
// job 2 (2 processors) waits for it (shadow 100); job 3 (1 processor, 10 s)
// would backfill at 2. Its filter says 2 at 2 (as backfill): it only stays
// queued, holding nothing, and starts at 100 behind job 2 (not backfill
// then) with 0.
func TestActivationBackfillOnlyWithZero(t *testing.T) {
	tests := []struct {
		name   string
		result hpcpack.Result
		want3  workload.Time
	}{
		{"0 backfills", hpcpack.Exit(0, ""), 2},
		{"2 only waits", hpcpack.Exit(2, ""), 100},
		{"1 only waits", hpcpack.Exit(1, ""), 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &backfillOnly{result: tt.result}
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}}
			jobs := []workload.Job{job(1, 0, 3, 100, 100), job(2, 1, 2, 100, 100), job(3, 2, 1, 10, 10), job(4, 3, 1, 10, 10)}
			rec := hpcRun(t, 4, h, &policy.EASY{Lookahead: policy.LookaheadAll}, jobs)
			// Job 4 backfills at 3 in every case: job 3 blocks nothing.
			want4 := workload.Time(3)
			if tt.result.Code == 0 {
				want4 = 12 // job 3 took the free processor until 12
			}
			// Job 3 is refused again at 3 and 13 (it stays a backfill
			// candidate) and starts at 100 behind job 2, not as a backfill.
			checkOutcomes(t, rec, map[int64]outcome{1: {start: 0}, 2: {start: 100}, 3: {start: tt.want3}, 4: {start: want4}})
			// The filter's arguments: job 3's first call is a backfill on
			// 1 candidate processor at queue index 1 (behind job 2).
			var first *hpcpack.Activation
			for k := range f.calls {
				if f.ids[k] == 3 {
					first = &f.calls[k]
					break
				}
			}
			if first == nil || !first.Backfill || first.Resources != 1 || first.Index != 1 || first.Now != 2 {
				t.Errorf("job 3's first call %+v, want a backfill at 2 with 1 processor at index 1", first)
			}
		})
	}
}

// backfillOnly answers result to job 3's backfill starts, 0 otherwise.
type backfillOnly struct {
	result hpcpack.Result
	calls  []hpcpack.Activation
	ids    []int64
}

func (b *backfillOnly) Name() string { return "backfill-only" }
func (b *backfillOnly) FilterActivation(a *hpcpack.Activation) hpcpack.Result {
	c := *a
	c.Job = nil
	b.calls, b.ids = append(b.calls, c), append(b.ids, a.Job.ID)
	if a.Job.ID == 3 && a.Backfill {
		return b.result
	}
	return hpcpack.Exit(0, "")
}
func (b *backfillOnly) RevertActivation(*hpcpack.Activation) {}

// The activation chain runs in order while results are 0 and reverts the
// filters that passed, in reverse order, at the first other result; the
// pass number grows by one per pass.
func TestActivationChainReverts(t *testing.T) {
	var reverts []string
	a := &scripted{name: "a", script: map[int64][]hpcpack.Result{}, reverts: &reverts}
	b := &scripted{name: "b", script: map[int64][]hpcpack.Result{}, reverts: &reverts}
	c := &scripted{name: "c", script: map[int64][]hpcpack.Result{1: {hpcpack.Exit(2, "")}}, reverts: &reverts}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{a, b, c}, Reevaluate: 60}
	rec := hpcRun(t, 4, h, policy.FCFS{}, []workload.Job{job(1, 0, 4, 10, 10)})
	checkOutcomes(t, rec, map[int64]outcome{1: {start: 60}})
	if want := []string{"b:1", "a:1"}; !slices.Equal(reverts, want) {
		t.Errorf("reverts %v, want %v", reverts, want)
	}
	if len(a.calls) != 2 || a.calls[0].Pass != 1 || a.calls[1].Pass != 2 || a.calls[1].Now != 60 {
		t.Errorf("calls of the first filter %+v, want passes 1 (at 0) and 2 (at 60)", a.calls)
	}
}

// A license pool with 8 licenses, 10 processors: jobs 1–3 ask for 4
// licenses each (and 2 processors); with result 2
// when short the third waits with its processors reserved until a license
// holder ends and the next re-evaluation; unlicensed jobs keep starting on
// the other processors. Licenses go back at the job's end and when a later
// filter reverts.
func TestLicensePool(t *testing.T) {
	for _, short := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("short=%d", short), func(t *testing.T) {
			pool := &hpcpack.LicensePool{Total: map[string]int{"fluent": 8}, WhenShort: short}
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{pool}, Reevaluate: 60, DefaultHold: 300}
			jobs := []workload.Job{
				job(1, 0, 2, 100, 100), job(2, 0, 2, 100, 100), job(3, 0, 2, 100, 100),
				job(4, 10, 2, 50, 50), job(5, 20, 2, 50, 50),
			}
			for k := 0; k < 3; k++ {
				jobs[k].Licenses = "fluent:4"
			}
			rec := hpcRun(t, 10, h, &policy.EASY{Lookahead: policy.LookaheadAll}, jobs)
			want := map[int][]workload.Time{
				// 1: job 3 blocks the queue (same priority): 4 and 5 wait
				// until 3 starts at the re-evaluation at 120.
				1: {0, 0, 120, 120, 120},
				// 2: job 3 keeps 2 processors; 4 and 5 start on the others.
				2: {0, 0, 120, 10, 20},
				// 3: job 3 is held for 300 s; 4 and 5 start at once.
				3: {0, 0, 300, 10, 20},
			}[short]
			for k, w := range want {
				if r := rec.ByID(t, int64(k+1)); r.Start != w {
					t.Errorf("job %d starts at %d, want %d", k+1, r.Start, w)
				}
			}
			if pool.Free("fluent") != 8 {
				t.Errorf("%d licenses free at the end, want 8", pool.Free("fluent"))
			}
		})
	}
}

// A request the pool can never satisfy fails the job (result 4).
func TestLicensePoolImpossible(t *testing.T) {
	pool := &hpcpack.LicensePool{Total: map[string]int{"fluent": 8}}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{pool}}
	jobs := []workload.Job{job(1, 0, 1, 10, 10), job(2, 0, 1, 10, 10), job(3, 0, 1, 10, 10)}
	jobs[0].Licenses = "fluent:26"
	jobs[1].Licenses = "invalidname:6"
	jobs[2].Licenses = "fluent:*" // one per processor
	rec := hpcRun(t, 4, h, policy.FCFS{}, jobs)
	checkOutcomes(t, rec, map[int64]outcome{1: {failed: hpcpack.MsgActivationFailed}, 2: {failed: hpcpack.MsgActivationFailed}, 3: {start: 0}})
}

// A license taken by the pool is given back when a later filter of the
// chain refuses the start.
func TestLicensePoolRevert(t *testing.T) {
	pool := &hpcpack.LicensePool{Total: map[string]int{"fluent": 4}}
	deny := &scripted{name: "deny", script: map[int64][]hpcpack.Result{1: {hpcpack.Exit(3, "")}}}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{pool, deny}, DefaultHold: 60}
	jobs := []workload.Job{job(1, 0, 1, 10, 10), job(2, 0, 1, 10, 10)}
	jobs[0].Licenses, jobs[1].Licenses = "fluent:4", "fluent:4"
	rec := hpcRun(t, 4, h, policy.FCFS{}, jobs)
	// Job 1 is held; had its licenses not come back, job 2 could not start.
	checkOutcomes(t, rec, map[int64]outcome{1: {start: 60}, 2: {start: 0}})
}

// A user quota of 1000 processor-seconds per 1000 s window: user 1's first
// job (10 processors, 100 s) uses it up by 100; the second is held until
// the next window at 1000; user 2 is not affected.
func TestQuota(t *testing.T) {
	q := &hpcpack.Quota{Limit: 1000, Window: 1000}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{q}}
	jobs := []workload.Job{job(1, 0, 10, 100, 100), job(2, 150, 1, 10, 10), job(3, 160, 1, 10, 10)}
	jobs[0].User, jobs[1].User, jobs[2].User = 1, 1, 2
	rec := hpcRun(t, 16, h, policy.FCFS{}, jobs)
	checkOutcomes(t, rec, map[int64]outcome{1: {start: 0}, 2: {start: 1000}, 3: {start: 160}})
	if n := rec.ByID(t, 2).Note; n != "activate=0x1,3x1 held_sec=850" {
		t.Errorf("note %q", n)
	}
}

// Job templates: a job without a run time gets its template's default; one
// asking for more than the maximum fails; rules assign templates; the
// template's filters run before the cluster's.
func TestTemplates(t *testing.T) {
	var order []string
	tf := &orderFilter{name: "template", log: &order}
	cf := &orderFilter{name: "cluster", log: &order}
	h := &hpcpack.Model{
		Submission: []hpcpack.SubmissionFilter{cf},
		Templates: map[string]*hpcpack.Template{
			"BigJob":    {Name: "BigJob", DefaultRun: 86400, MaxRun: 86400, Submission: []hpcpack.SubmissionFilter{tf}},
			"SmallJob":  {Name: "SmallJob", DefaultRun: 60, MaxRun: 60, Priority: 5, HasPriority: true},
			"MediumJob": {Name: "MediumJob", DefaultRun: 3600, MaxRun: 3600, Licenses: "matlab:1"},
		},
		Rules: []hpcpack.TemplateRule{{Template: "BigJob", MinProcs: 8}, {Template: "SmallJob", MaxProcs: 1}, {Template: "MediumJob"}},
	}
	jobs := []workload.Job{
		job(1, 0, 8, 100, none),  // BigJob by rule: estimate 86400
		job(2, 0, 1, 30, none),   // SmallJob: estimate 60, priority 5
		job(3, 0, 1, 30, 120),    // SmallJob: 120 > 60 fails
		job(4, 0, 2, 30, none),   // MediumJob: 3600, matlab:1
		job(5, 0, 2, 30, 100),    // names Nonexistent: fails
		job(6, 0, 2, 30, 100000), // names BigJob itself: over 86400, fails
	}
	jobs[4].Template = "Nonexistent"
	jobs[5].Template = "BigJob"
	rec := hpcRun(t, 16, h, policy.FCFS{}, jobs)
	if e := rec.ByID(t, 1).Job.Estimate; e != 86400 {
		t.Errorf("job 1 estimate %d, want BigJob's 86400", e)
	}
	if r := rec.ByID(t, 2); r.Job.Estimate != 60 || r.Job.Priority != 5 || r.Job.Template != "SmallJob" {
		t.Errorf("job 2: estimate %d priority %d template %q", r.Job.Estimate, r.Job.Priority, r.Job.Template)
	}
	if r := rec.ByID(t, 4); r.Job.Licenses != "matlab:1" || r.Job.Estimate != 3600 {
		t.Errorf("job 4: licenses %q estimate %d", r.Job.Licenses, r.Job.Estimate)
	}
	for _, id := range []int64{3, 5, 6} {
		if r := rec.ByID(t, id); r.State != sim.Failed {
			t.Errorf("job %d: %v, want failed", id, r.State)
		}
	}
	// Job 1 (BigJob) and job 6 (BigJob) ran the template's filter first.
	if want := []string{"template:1", "cluster:1", "cluster:2", "cluster:3", "cluster:4", "cluster:5", "template:6", "cluster:6"}; !slices.Equal(order, want) {
		t.Errorf("filter order %v, want %v", order, want)
	}
}

type orderFilter struct {
	name string
	log  *[]string
}

func (o *orderFilter) Name() string { return o.name }
func (o *orderFilter) FilterSubmission(j *workload.Job) hpcpack.Result {
	*o.log = append(*o.log, fmt.Sprintf("%s:%d", o.name, j.ID))
	return hpcpack.Exit(0, "")
}
func (o *orderFilter) RevertSubmission(*workload.Job) {}

// Built-in submission filters: require-runtime and max-size.
func TestRequireRuntimeAndMaxSize(t *testing.T) {
	tests := []struct {
		name string
		rr   *hpcpack.RequireRuntime
		want map[int64]outcome
		est  workload.Time // job 1's estimate when it ran
	}{
		{"fail", &hpcpack.RequireRuntime{}, map[int64]outcome{1: {failed: hpcpack.MsgSubmissionFailed}, 2: {start: 0}, 3: {failed: hpcpack.MsgSubmissionFailed}}, 0},
		{"set", &hpcpack.RequireRuntime{Runtime: 600}, map[int64]outcome{1: {start: 0}, 2: {start: 0}, 3: {failed: hpcpack.MsgSubmissionFailed}}, 600},
		{"template", &hpcpack.RequireRuntime{Template: "SmallJob"}, map[int64]outcome{1: {start: 0}, 2: {start: 0}, 3: {failed: hpcpack.MsgSubmissionFailed}}, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &hpcpack.Model{
				Submission: []hpcpack.SubmissionFilter{tt.rr, &hpcpack.MaxSize{Procs: 4}},
				Templates:  map[string]*hpcpack.Template{"SmallJob": {Name: "SmallJob", DefaultRun: 60}},
			}
			jobs := []workload.Job{job(1, 0, 1, 30, none), job(2, 0, 1, 30, 30), job(3, 0, 5, 30, 30)}
			rec := hpcRun(t, 8, h, policy.FCFS{}, jobs)
			checkOutcomes(t, rec, tt.want)
			if r := rec.ByID(t, 1); tt.est > 0 && r.Job.Estimate != tt.est {
				t.Errorf("job 1 estimate %d, want %d", r.Job.Estimate, tt.est)
			}
		})
	}
}

// Filters under an order (Ordered outside, Filtered inside) and the
// engine's determinism: the same run three times gives the same records.
func TestFiltersOrderedDeterministic(t *testing.T) {
	var first []sim.Record
	for run := 0; run < 3; run++ {
		pool := &hpcpack.LicensePool{Total: map[string]int{"a": 4}, WhenShort: 2}
		h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{pool}, Reevaluate: 30}
		inner, err := policy.New(policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.LookaheadAll, Order: policy.OrderSJF})
		if err != nil {
			t.Fatal(err)
		}
		var jobs []workload.Job
		for k := 0; k < 60; k++ {
			j := job(int64(k+1), workload.Time(k*7), 1+k%5, workload.Time(20+k*13%90), workload.Time(30+k*13%90))
			if k%3 == 0 {
				j.Licenses = fmt.Sprintf("a:%d", 1+k%4)
			}
			jobs = append(jobs, j)
		}
		rec := hpcRun(t, 8, h, inner, jobs)
		if run == 0 {
			first = rec.Records
			continue
		}
		for i := range first {
			a, b := first[i], rec.Records[i]
			if a.Job.ID != b.Job.ID || a.Start != b.Start || a.State != b.State || a.Note != b.Note {
				t.Fatalf("run %d record %d differs: %+v vs %+v", run, i, b, a)
			}
		}
	}
}

// Result 4 under an order: Ordered passes the failure on to the engine.
func TestActivationFailOrdered(t *testing.T) {
	f := &scripted{name: "s", script: map[int64][]hpcpack.Result{2: {hpcpack.Exit(4, "")}}}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}}
	inner, err := policy.New(policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.LookaheadAll, Order: policy.OrderSJF})
	if err != nil {
		t.Fatal(err)
	}
	// SJF: job 2 (10 s) comes before job 1 (20 s) and fails; job 1 starts.
	rec := hpcRun(t, 4, h, inner, []workload.Job{job(1, 0, 4, 20, 20), job(2, 0, 4, 10, 10)})
	checkOutcomes(t, rec, map[int64]outcome{1: {start: 0}, 2: {failed: hpcpack.MsgActivationFailed}})
}

package sim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

var (
	fcfs    policy.Policy = policy.FCFS{}
	easyAll policy.Policy = &policy.EASY{Lookahead: policy.LookaheadAll}
)

func easy(lookahead int) policy.Policy { return &policy.EASY{Lookahead: lookahead} }

// scenario is a small workload with the start time of every job worked out
// by hand. job(id, submit, procs, run, estimate).
type scenario struct {
	name   string
	procs  int
	pol    policy.Policy
	jobs   []workload.Job
	starts map[int64]workload.Time // job id → expected start
}

func runScenarios(t *testing.T, cases []scenario) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.starts) != len(c.jobs) {
				t.Fatalf("scenario gives %d starts for %d jobs", len(c.starts), len(c.jobs))
			}
			rec, _ := simtest.Simulate(t, c.procs, c.pol, c.jobs)
			for _, j := range c.jobs {
				if got, want := rec.ByID(t, j.ID).Start, c.starts[j.ID]; got != want {
					t.Errorf("%s: job %d starts at %d, want %d", c.pol.Name(), j.ID, got, want)
				}
			}
			if t.Failed() {
				t.Logf("records:\n%s", simtest.Format(rec.Records))
			}
		})
	}
}

// TestInstantRule checks SPEC §2: at t, all submissions (trace order), then
// all ends, then one pass. (And testdata/scenarios/instant-rule-*.txt.)
func TestInstantRule(t *testing.T) {
	runScenarios(t, []scenario{
		{
			name:  "fcfs/end and submission at the same instant: job 2 sees job 1's processors at 10",
			procs: 4, pol: fcfs,
			jobs:   []workload.Job{job(1, 0, 4, 10, 10), job(2, 10, 4, 5, 5)},
			starts: map[int64]workload.Time{1: 0, 2: 10},
		},
		{
			name:  "fcfs/same-instant submissions queue in trace order, not by id: 9 (3 procs) before 2 (2 procs)",
			procs: 4, pol: fcfs,
			// At 10, 1 ends: 9 takes 3 of 4, 2 (2 procs) waits for 9's end at 15.
			jobs:   []workload.Job{job(1, 0, 4, 10, 10), job(9, 5, 3, 5, 5), job(2, 5, 2, 5, 5)},
			starts: map[int64]workload.Time{1: 0, 9: 10, 2: 15},
		},
		{
			name:  "fcfs/same-instant submissions in trace order, reversed trace: 2 (2 procs) then 9 (3 procs)",
			procs: 4, pol: fcfs,
			jobs:   []workload.Job{job(1, 0, 4, 10, 10), job(2, 5, 2, 5, 5), job(9, 5, 3, 5, 5)},
			starts: map[int64]workload.Time{1: 0, 2: 10, 9: 15},
		},
		{
			name:  "fcfs/several ends at one instant free their processors together for one pass",
			procs: 4, pol: fcfs,
			// 1 and 2 both end at 10; 3 needs all 4.
			jobs:   []workload.Job{job(1, 0, 2, 10, 10), job(2, 0, 2, 10, 20), job(3, 1, 4, 1, 1)},
			starts: map[int64]workload.Time{1: 0, 2: 0, 3: 10},
		},
	})
}

// spy wraps a policy and records what each pass saw.
type spy struct {
	policy.Policy
	passes []passView
}

// passView is what the policy saw at the start of one pass.
type passView struct {
	now       workload.Time
	queue     []int64 // queued job ids, in queue order
	free      int
	running   int // running jobs
	freeLater int // processors free once every running job has ended
}

func (s *spy) Schedule(v policy.View, d policy.Decisions) {
	pv := passView{now: v.Now(), free: v.Free(), freeLater: v.Free()}
	for i := 0; i < v.Len(); i++ {
		pv.queue = append(pv.queue, v.Job(i).ID)
	}
	for k := 0; k < v.NumRunning(); k++ {
		_, p := v.Running(k)
		pv.running++
		pv.freeLater += p
	}
	s.passes = append(s.passes, pv)
	s.Policy.Schedule(v, d)
}

// TestOnePassPerInstant checks that each instant has at most one pass, and
// that the pass sees every submission and every end of its instant.
func TestOnePassPerInstant(t *testing.T) {
	jobs := []workload.Job{
		job(1, 0, 2, 10, 10), job(2, 0, 2, 10, 10), job(3, 0, 4, 5, 5), // 3 waits for 1 and 2
		job(4, 10, 1, 5, 5), job(5, 10, 1, 5, 5), // two submissions and two ends at 10
		job(6, 15, 4, 1, 1), // submitted at 15 as 3 ends; waits for 4 and 5 (20)
	}
	for _, inner := range []policy.Policy{fcfs, easyAll} {
		t.Run(inner.Name(), func(t *testing.T) {
			sp := &spy{Policy: inner}
			rec, st := simtest.Simulate(t, 4, sp, jobs)
			if int(st.Passes) != len(sp.passes) {
				t.Errorf("stats count %d passes, the policy saw %d", st.Passes, len(sp.passes))
			}
			seen := map[workload.Time]bool{}
			for _, p := range sp.passes {
				if seen[p.now] {
					t.Errorf("two passes at %d: %+v", p.now, sp.passes)
				}
				seen[p.now] = true
			}
			want := map[workload.Time]passView{
				0:  {now: 0, queue: []int64{1, 2, 3}, free: 4, running: 0, freeLater: 4},
				10: {now: 10, queue: []int64{3, 4, 5}, free: 4, running: 0, freeLater: 4},
				15: {now: 15, queue: []int64{4, 5, 6}, free: 4, running: 0, freeLater: 4},
				20: {now: 20, queue: []int64{6}, free: 4, running: 0, freeLater: 4},
			}
			for _, p := range sp.passes {
				w, ok := want[p.now]
				if !ok {
					continue // a pass with nothing to do (queue empty) is allowed
				}
				delete(want, p.now)
				if !equalIDs(p.queue, w.queue) || p.free != w.free || p.running != w.running || p.freeLater != w.freeLater {
					t.Errorf("pass at %d saw %+v, want %+v", p.now, p, w)
				}
			}
			for at := range want {
				t.Errorf("no pass at %d", at)
			}
			starts := map[int64]workload.Time{1: 0, 2: 0, 3: 10, 4: 15, 5: 15, 6: 20}
			for id, w := range starts {
				if got := rec.ByID(t, id).Start; got != w {
					t.Errorf("job %d starts at %d, want %d", id, got, w)
				}
			}
			if st.Jobs != 6 || st.Started != 6 || st.MaxQueue != 3 {
				t.Errorf("stats %+v: want Jobs 6, Started 6, MaxQueue 3", st)
			}
		})
	}
}

// More hand-worked cases are scenario files: testdata/scenarios/fcfs-*.txt.
func TestFCFS(t *testing.T) {
	runScenarios(t, []scenario{
		{
			name:  "a later job waits even when it arrives at an idle-enough machine",
			procs: 4, pol: fcfs,
			// 2 (4 procs) blocked until 20; 3 arrives at 5 with 2 free but waits; 2 runs 20–25.
			jobs:   []workload.Job{job(1, 0, 2, 20, 20), job(2, 1, 4, 5, 5), job(3, 5, 2, 1, 1)},
			starts: map[int64]workload.Time{1: 0, 2: 20, 3: 25},
		},
		{
			name:  "no estimate: fcfs ignores estimates entirely",
			procs: 2, pol: fcfs,
			jobs:   []workload.Job{job(1, 0, 2, 7, none), job(2, 0, 1, 3, none), job(3, 0, 1, 4, 2)},
			starts: map[int64]workload.Time{1: 0, 2: 7, 3: 7},
		},
	})
}

// More hand-worked cases are scenario files: testdata/scenarios/easy-*.txt.
func TestEASY(t *testing.T) {
	runScenarios(t, []scenario{
		{
			name:  "one second past the shadow time does not backfill: 3 would end at 11 > 10",
			procs: 4, pol: easyAll,
			jobs:   []workload.Job{job(1, 0, 2, 10, 10), job(2, 0, 4, 10, 10), job(3, 0, 2, 5, 11)},
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 20},
		},
		{
			name:  "backfilling judges by the estimate, not the run: 3 runs 5 s but asks 20",
			procs: 4, pol: easyAll,
			jobs:   []workload.Job{job(1, 0, 2, 10, 10), job(2, 0, 4, 10, 10), job(3, 0, 2, 5, 20)},
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 20},
		},
		{
			name:  "crossing job that needs more than the extra waits though it fits now",
			procs: 10, pol: easyAll,
			// 1 on 6 until 10, head 2 needs 8 → extra 2; 3 wants 3 for 100 s: fits now (4 free), not in extra.
			jobs:   []workload.Job{job(1, 0, 6, 10, 10), job(2, 0, 8, 10, 10), job(3, 0, 3, 100, 100)},
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 20},
		},
		{
			name:  "the shadow counts every job ending at that instant: extra 4 lets 3 cross",
			procs: 8, pol: easyAll,
			// 1 (3) and 2 (3) both end at 10; free 2; head 3 needs 4: at 10 1's end alone gives
			// 5 (extra 1), but 2's end counts too: avail 8, extra 4, so 4 (2 procs) may cross.
			jobs:   []workload.Job{job(1, 0, 3, 10, 10), job(2, 0, 3, 10, 10), job(3, 0, 4, 10, 10), job(4, 0, 2, 100, 100)},
			starts: map[int64]workload.Time{1: 0, 2: 0, 3: 10, 4: 0},
		},
		{
			name:  "estimate 0 counts as no estimate",
			procs: 4, pol: easyAll,
			jobs:   []workload.Job{job(1, 0, 2, 10, 10), job(2, 0, 4, 10, 10), job(3, 0, 1, 2, 0)},
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 20},
		},
		{
			name:  "head without estimate gets a finite shadow from the running jobs",
			procs: 4, pol: easyAll,
			// head 2 has no estimate but 1's estimate gives shadow 10; 3 ends by 10 → backfills.
			jobs:   []workload.Job{job(1, 0, 2, 10, 10), job(2, 0, 4, 10, none), job(3, 0, 2, 10, 10)},
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 0},
		},
		{
			name:  "shadow unknown (running job without estimate): only extra processors, even for short jobs",
			procs: 10, pol: easyAll,
			// 1 (6 procs, no estimate) runs 0–50, free 4; head 2 needs 8: shadow unknown, extra 2.
			// 3 (2 procs, 5 s) takes the extra; 4 (1 proc, 5 s) would end long before any possible
			// shadow but only extra may be used: waits until 3 ends at 5, then the extra is 2 again.
			jobs:   []workload.Job{job(1, 0, 6, 50, none), job(2, 0, 8, 10, 10), job(3, 0, 2, 5, 5), job(4, 0, 1, 5, 5)},
			starts: map[int64]workload.Time{1: 0, 2: 50, 3: 0, 4: 5},
		},
		{
			name:  "running job without estimate the head does not need: the shadow stays finite",
			procs: 8, pol: easyAll,
			// 1 (4, no estimate) and 2 (2, until 10) run; head 3 needs 4: shadow 10 (free 2 + 2),
			// extra 0; 4 ends at 10 → backfills.
			jobs:   []workload.Job{job(1, 0, 4, 100, none), job(2, 0, 2, 10, 10), job(3, 0, 4, 10, 10), job(4, 0, 2, 10, 10)},
			starts: map[int64]workload.Time{1: 0, 2: 0, 3: 10, 4: 0},
		},
		{
			name:  "shadow unknown: the extra must not count processors busy until after the head could start",
			procs: 10, pol: easyAll,
			// 1 (2 procs) runs 0–1000 by its estimate, 2 (6, no estimate) runs 0–50; free 2.
			// Head 3 needs 8: it starts when 2 ends if 4 stays out of the 2 free processors
			// (2 + 6 = 8 is exactly what it needs), so there is no extra. 4 (2 procs, 1000 s)
			// must wait: 3 runs 50–60, then 4 starts at 60.
			jobs:   []workload.Job{job(1, 0, 2, 1000, 1000), job(2, 0, 6, 50, none), job(3, 0, 8, 10, 10), job(4, 0, 2, 1000, 1000)},
			starts: map[int64]workload.Time{1: 0, 2: 0, 3: 50, 4: 60},
		},
		{
			name:  "shadow unknown: a job backfilled in an earlier pass still holds the extra",
			procs: 10, pol: easyAll,
			// 1 (6, no estimate) runs 0–100, free 4; head 2 needs 8 → extra 2. At 0, 3 takes the
			// extra. At 1, 4 arrives: the extra is still taken by 3 (running until 1000), so 4
			// waits; 2 starts at 100 when 1 ends (free 2 + 6), 4 at 110. Submitting 4 at 0
			// instead gives the same starts.
			jobs:   []workload.Job{job(1, 0, 6, 100, none), job(2, 0, 8, 10, 10), job(3, 0, 2, 1000, 1000), job(4, 1, 2, 1000, 1000)},
			starts: map[int64]workload.Time{1: 0, 2: 100, 3: 0, 4: 110},
		},
		{
			name:  "shadow unknown: same jobs, 4 submitted at 0: one pass, the extra is consumed by 3",
			procs: 10, pol: easyAll,
			jobs:   []workload.Job{job(1, 0, 6, 100, none), job(2, 0, 8, 10, 10), job(3, 0, 2, 1000, 1000), job(4, 0, 2, 1000, 1000)},
			starts: map[int64]workload.Time{1: 0, 2: 100, 3: 0, 4: 110},
		},
		{
			name:  "a killed job ends at its estimate, which is when the head starts",
			procs: 4, pol: easyAll,
			// 1 asks 10 s but would run 100: killed at 10; head 2 starts at 10.
			jobs:   []workload.Job{job(1, 0, 2, 100, 10), job(2, 0, 4, 5, 5)},
			starts: map[int64]workload.Time{1: 0, 2: 10},
		},
		{
			name:  "a job that ends early lets the head start before its shadow",
			procs: 4, pol: easyAll,
			// 1 asks 100 but runs 10; head 2 reserved at 100 starts at 10; 3 (2 procs, ends 50 ≤ 100)
			// backfilled at 0 holds 2 processors until 50 — so 2 waits until 50.
			jobs:   []workload.Job{job(1, 0, 2, 10, 100), job(2, 0, 4, 5, 5), job(3, 0, 2, 50, 50)},
			starts: map[int64]workload.Time{1: 0, 2: 50, 3: 0},
		},
		{
			name:  "backfilled jobs are queued in trace order: 3 backfills before 4 takes the rest",
			procs: 4, pol: easyAll,
			// 1 on 3 until 10; head 2 needs 4 (shadow 10, extra 0); 3 and 4 both 1 proc ending ≤ 10:
			// only one processor free, 3 comes first; 4 then waits for the head (10–12), starts at 12.
			jobs:   []workload.Job{job(1, 0, 3, 10, 10), job(2, 0, 4, 2, 2), job(3, 0, 1, 8, 8), job(4, 0, 1, 8, 8)},
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 0, 4: 12},
		},
	})
}

// lookaheadJobs: 1 runs 0–10 on 5 of 8 (free 3); head 2 needs 8: shadow 10,
// extra 0. Behind it: c3 (1 proc, ends by 5), c4 (1 proc, 20 s: crosses the
// shadow with no extra, never backfills), c5 and c6 like c3.
func lookaheadJobs() []workload.Job {
	return []workload.Job{
		job(1, 0, 5, 10, 10), job(2, 0, 8, 10, 10),
		job(3, 0, 1, 5, 5), job(4, 0, 1, 20, 20), job(5, 0, 1, 5, 5), job(6, 0, 1, 5, 5),
	}
}

// More hand-worked cases are scenario files: testdata/scenarios/easy-lookahead-2.txt.
func TestLookahead(t *testing.T) {
	runScenarios(t, []scenario{
		{
			name:  "0: no backfilling, everything waits for the head (10–20)",
			procs: 8, pol: easy(0), jobs: lookaheadJobs(),
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 20, 4: 20, 5: 20, 6: 20},
		},
		{
			name:  "1: only the job right behind the head: 3 at 0; at 5 only 4 is looked at",
			procs: 8, pol: easy(1), jobs: lookaheadJobs(),
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 0, 4: 20, 5: 20, 6: 20},
		},
		{
			name:  "3: 3 and 5 at 0; at 5 the window 4, 6 lets 6 in",
			procs: 8, pol: easy(3), jobs: lookaheadJobs(),
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 0, 4: 20, 5: 0, 6: 5},
		},
		{
			name:  "all: 3, 5 and 6 at 0 fill the 3 free processors",
			procs: 8, pol: easyAll, jobs: lookaheadJobs(),
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 0, 4: 20, 5: 0, 6: 0},
		},
		{
			name:  "fcfs equals lookahead 0 here",
			procs: 8, pol: fcfs, jobs: lookaheadJobs(),
			starts: map[int64]workload.Time{1: 0, 2: 10, 3: 20, 4: 20, 5: 20, 6: 20},
		},
		{
			name:  "1: the window starts behind the blocked head, not at the queue's start",
			procs: 8, pol: easy(1),
			// at 0, 1 and 2 start as heads (free 3); head 3 needs 8 (shadow 10, extra 0);
			// with lookahead 1 only 4 (ends by 5) is looked at.
			jobs: []workload.Job{
				job(1, 0, 3, 10, 10), job(2, 0, 2, 10, 10), job(3, 0, 8, 10, 10),
				job(4, 0, 1, 5, 5), job(5, 0, 1, 5, 5),
			},
			starts: map[int64]workload.Time{1: 0, 2: 0, 3: 10, 4: 0, 5: 5},
		},
	})
}

// TestKill: a job running past its estimate is killed at start + estimate.
func TestKill(t *testing.T) {
	jobs := []workload.Job{
		job(1, 0, 2, 100, 10), // killed at 10
		job(2, 0, 2, 10, 10),  // run = estimate: completes
		job(3, 3, 1, 5, none), // no estimate: never killed
		job(4, 5, 4, 7, 6),    // starts at 10 (1, 2 end), killed at 16
	}
	for _, pol := range []policy.Policy{fcfs, easyAll} {
		t.Run(pol.Name(), func(t *testing.T) {
			rec, st := simtest.Simulate(t, 5, pol, jobs)
			want := []struct {
				id         int64
				start, end workload.Time
				state      sim.State
			}{
				{1, 0, 10, sim.Killed}, {2, 0, 10, sim.Completed}, {3, 3, 8, sim.Completed}, {4, 10, 16, sim.Killed},
			}
			for _, w := range want {
				r := rec.ByID(t, w.id)
				if r.Start != w.start || r.End != w.end || r.State != w.state {
					t.Errorf("job %d: %v %d–%d, want %v %d–%d", w.id, r.State, r.Start, r.End, w.state, w.start, w.end)
				}
			}
			if st.Killed != 2 {
				t.Errorf("stats: %d killed, want 2", st.Killed)
			}
			// Processor-seconds count the run actually used: 2·10 + 2·10 + 1·5 + 4·6.
			if st.ProcSeconds != 69 {
				t.Errorf("stats: %v processor-seconds, want 69", st.ProcSeconds)
			}
			if st.LastEvent != 16 || st.FirstEvent != 0 {
				t.Errorf("stats: events %d–%d, want 0–16", st.FirstEvent, st.LastEvent)
			}
		})
	}
}

// TestOversizeRejected: a job larger than the machine is rejected at its
// submission with a reason and does not block the queue, under either policy.
func TestOversizeRejected(t *testing.T) {
	jobs := []workload.Job{
		job(1, 0, 2, 10, 10),
		job(2, 0, 5, 10, 10), // 5 > 4: rejected at 0
		job(3, 0, 2, 10, 10), // starts at 0 as if 2 never existed
		job(4, 3, 9, 1, 1),   // rejected at 3, while 1 and 3 run
		job(5, 4, 4, 1, 1),   // waits for 1 and 3 (10)
	}
	for _, pol := range []policy.Policy{fcfs, easyAll, easy(0)} {
		t.Run(pol.Name(), func(t *testing.T) {
			rec, st := simtest.Simulate(t, 4, pol, jobs)
			for id, want := range map[int64]workload.Time{1: 0, 3: 0, 5: 10} {
				if r := rec.ByID(t, id); r.Start != want || r.State != sim.Completed {
					t.Errorf("job %d: %v at %d, want completed, started at %d", id, r.State, r.Start, want)
				}
			}
			for _, c := range []struct {
				id    int64
				at    workload.Time
				procs string
			}{{2, 0, "5"}, {4, 3, "9"}} {
				r := rec.ByID(t, c.id)
				if r.State != sim.Rejected || r.Start != c.at || r.End != c.at {
					t.Errorf("job %d: %v %d–%d, want rejected at %d", c.id, r.State, r.Start, r.End, c.at)
				}
				if !strings.Contains(r.Reason, c.procs) || !strings.Contains(r.Reason, "4") {
					t.Errorf("job %d: reason %q should name its %s processors and the machine's 4", c.id, r.Reason, c.procs)
				}
				if r.Wait() != 0 {
					t.Errorf("job %d: wait %d, want 0", c.id, r.Wait())
				}
			}
			if st.Rejected != 2 || st.Started != 3 || st.Jobs != 5 {
				t.Errorf("stats %+v: want 5 jobs, 3 started, 2 rejected", st)
			}
		})
	}
}

// TestRecordOrder: records come in order of end time, and within an instant
// in submission order (Observer's documentation) — also for a job rejected
// at the instant another job ends.
func TestRecordOrder(t *testing.T) {
	t.Run("ends at one instant in submission order", func(t *testing.T) {
		jobs := []workload.Job{job(1, 0, 1, 10, 10), job(2, 0, 1, 5, 5), job(3, 0, 1, 10, 10), job(4, 5, 1, 5, 5)}
		rec, _ := simtest.Simulate(t, 4, fcfs, jobs)
		var got []int64
		for _, r := range rec.Records {
			got = append(got, r.Job.ID)
		}
		if want := []int64{2, 1, 3, 4}; !equalIDs(got, want) {
			t.Errorf("record order %v, want %v", got, want)
		}
	})
	t.Run("rejection and end at one instant", func(t *testing.T) {
		// The engine applies submissions before ends (SPEC §2), so the
		// rejection at 10 is recorded before the end at 10.
		jobs := []workload.Job{job(1, 0, 4, 10, 10), job(2, 10, 8, 1, 1)}
		rec, _ := simtest.Simulate(t, 4, fcfs, jobs)
		var got []int64
		for _, r := range rec.Records {
			got = append(got, r.Job.ID)
		}
		if want := []int64{2, 1}; !equalIDs(got, want) {
			t.Errorf("record order %v, want %v (at 10: the rejection, then the end)", got, want)
		}
	})
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAllocation: jobs get the lowest free processors, and a record's
// allocation is the one the job ran on.
func TestAllocation(t *testing.T) {
	jobs := []workload.Job{
		job(1, 0, 2, 10, 10), // 0-1
		job(2, 0, 3, 5, 5),   // 2-4
		job(3, 0, 2, 20, 20), // 5-6
		job(4, 6, 4, 5, 5),   // at 6: free 2-4 and 7: "2-4 7"
	}
	rec, _ := simtest.Simulate(t, 8, fcfs, jobs)
	for id, want := range map[int64]string{1: "0-1", 2: "2-4", 3: "5-6", 4: "2-4 7"} {
		r := rec.ByID(t, id)
		if got := string(cluster.FormatRanges(nil, r.Alloc)); got != want {
			t.Errorf("job %d on %q, want %q", id, got, want)
		}
	}
}

// TestEngineErrors: input errors are errors, not panics.
func TestEngineErrors(t *testing.T) {
	for _, n := range []int{0, -1} {
		if _, err := sim.New(sim.Config{Procs: n}); err == nil {
			t.Errorf("New with %d processors: no error", n)
		}
	}
	eng, err := sim.New(sim.Config{Procs: 4})
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.Run(simtest.NewSource([]workload.Job{job(1, 5, 1, 1, 1), job(2, 4, 1, 1, 1)}), simtest.Discard{})
	if !errors.Is(err, sim.ErrUnsorted) {
		t.Errorf("unsorted source: error %v, want ErrUnsorted", err)
	}
	boom := errors.New("boom")
	eng, _ = sim.New(sim.Config{Procs: 4})
	if _, err := eng.Run(failingSource{boom}, simtest.Discard{}); !errors.Is(err, boom) {
		t.Errorf("failing source: error %v, want the source's", err)
	}
	// nil policy means FCFS
	eng, _ = sim.New(sim.Config{Procs: 4})
	rec := &simtest.Recorder{}
	if _, err := eng.Run(simtest.NewSource([]workload.Job{job(1, 0, 3, 10, 10), job(2, 0, 2, 5, 5), job(3, 0, 1, 5, 5)}), rec); err != nil {
		t.Fatal(err)
	}
	if r := rec.ByID(t, 3); r.Start != 10 {
		t.Errorf("nil policy: job 3 starts at %d, want 10 as under FCFS", r.Start)
	}
}

type failingSource struct{ err error }

func (f failingSource) Next(*workload.Job) error { return f.err }

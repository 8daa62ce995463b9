package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// queue3 is an immediate-queue rule: the jobs of queue 3.
func queue3(j *workload.Job) bool { return j.Queue == 3 }

// immediateJobs: 4 processors. Job 1 (queue 1, 4 processors, 100 s) runs
// 0-100. Job 2 (queue 3, 4 processors, 50 s, no requested time) is
// submitted at 10 while the machine is full: it starts at 10 beside it and
// ends at 60. Job 3 (queue 1, 2 processors, 30 s) and job 4 (queue 1, 2
// processors, 10 s) wait for job 1: both start at 100. Job 5 (queue 3, 4
// processors, 40 s, requested 20 s), submitted at 50, starts at 50 beside
// the machine and is killed at 70. Job 6 (queue 3, 1 processor, 5 s),
// submitted at 100, starts at 100. Without the immediate queue, job 2
// waits for job 1 and holds the machine 100-150, before jobs 3 and 4
// (150); job 5 then waits for them (180), and job 6 backfills at 160.
func immediateJobs() []workload.Job {
	js := []workload.Job{job(1, 0, 4, 100, 100), job(2, 10, 4, 50, workload.Unknown), job(3, 20, 2, 30, 30), job(4, 30, 2, 10, 10), job(5, 50, 4, 40, 20), job(6, 100, 1, 5, 5)}
	for i, q := range []int{1, 3, 1, 1, 3, 3} {
		js[i].Seq, js[i].Queue = int64(i), q
	}
	return js
}

// TestImmediateQueues: the jobs of an immediate queue start at their
// submission beside the machine under every policy, on none of its
// processors, and the other jobs are scheduled as if they were not
// there; their records come in time order with the engine's; verify
// accepts the run and finds an immediate job moved, a job of another
// queue passed off as immediate, and an immediate queue's job run on the
// machine.
func TestImmediateQueues(t *testing.T) {
	for _, pc := range simtest.Policies(t) {
		t.Run(pc.Name, func(t *testing.T) {
			eng, err := sim.New(sim.Config{Procs: 4, Policy: pc.New(), Immediate: queue3})
			if err != nil {
				t.Fatal(err)
			}
			col := &sim.Collector{}
			st, err := eng.Run(simtest.NewSource(immediateJobs()), col)
			if err != nil {
				t.Fatal(err)
			}
			if g, want := simtest.StartsOf(col.Outcomes, 6), "1:0 2:10 3:100 4:100 5:50 6:100"; g != want {
				t.Errorf("starts %s, want %s", g, want)
			}
			if st.Immediate != 3 || st.Jobs != 3 || st.Started != 3 || st.Killed != 0 {
				t.Errorf("stats: immediate %d, jobs %d, started %d, killed %d; want 3, 3, 3, 0", st.Immediate, st.Jobs, st.Started, st.Killed)
			}
			if st.ProcSeconds != 4*100+2*30+2*10 {
				t.Errorf("processor-seconds %v: the immediate jobs' counted", st.ProcSeconds)
			}
			ends := make([]workload.Time, len(col.Outcomes))
			for i, o := range col.Outcomes {
				ends[i] = o.End
				switch imm := o.Job.Queue == 3; {
				case imm != o.Immediate:
					t.Errorf("job %d: immediate %v", o.Job.ID, o.Immediate)
				case imm && len(o.Alloc) > 0:
					t.Errorf("job %d ran beside the machine on %v", o.Job.ID, o.Alloc)
				}
				if o.Job.ID == 5 && (o.State != sim.Killed || o.End != 70) {
					t.Errorf("job 5: %s at %d, want killed at 70", o.State, o.End)
				}
			}
			if !slices.IsSorted(ends) {
				t.Errorf("records not in time order: ends %v", ends)
			}
			opts := sim.VerifyOptions{Immediate: queue3}
			if vs := sim.Verify(4, col.Outcomes, opts); len(vs) > 0 {
				t.Fatalf("verify: %v", vs)
			}
			for _, spoil := range []struct {
				name string
				f    func(o *sim.Outcome)
				want string
			}{
				{"immediate job moved", func(o *sim.Outcome) {
					if o.Job.ID == 2 {
						o.Start, o.End = 20, 70
					}
				}, "starts at its submission"},
				{"job of another queue passed off", func(o *sim.Outcome) {
					if o.Job.ID == 3 {
						o.Immediate, o.Alloc = true, nil
					}
				}, "not an immediate queue"},
				{"immediate queue's job on the machine", func(o *sim.Outcome) {
					if o.Job.ID == 6 {
						o.Immediate = false
					}
				}, "not run beside the machine"},
			} {
				outs := slices.Clone(col.Outcomes)
				for i := range outs {
					spoil.f(&outs[i])
				}
				vs := sim.Verify(4, outs, opts)
				if len(vs) == 0 || vs[0].Rule != "immediate" || !strings.Contains(vs[0].Msg, spoil.want) {
					t.Errorf("%s: violations %v, want immediate: …%s…", spoil.name, vs, spoil.want)
				}
			}
		})
	}
	// Without the immediate queue job 2 waits for job 1 (the test can
	// tell the two apart).
	eng, err := sim.New(sim.Config{Procs: 4, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}})
	if err != nil {
		t.Fatal(err)
	}
	col := &sim.Collector{}
	if _, err := eng.Run(simtest.NewSource(immediateJobs()), col); err != nil {
		t.Fatal(err)
	}
	if g, want := simtest.StartsOf(col.Outcomes, 6), "1:0 2:100 3:150 4:150 5:180 6:160"; g != want {
		t.Errorf("without immediate queues: starts %s, want %s", g, want)
	}
}

// TestImmediateQueuesScoreD: SCore-D's queues run beside the immediate
// jobs as they run without them.
func TestImmediateQueuesScoreD(t *testing.T) {
	run := func(imm func(*workload.Job) bool, jobs []workload.Job) []sim.Outcome {
		cfg := policy.NewScoreD(2, policy.Exclusive)
		eng, err := sim.New(sim.Config{Procs: 4, ScoreD: &cfg, Immediate: imm})
		if err != nil {
			t.Fatal(err)
		}
		col := &sim.Collector{}
		if _, err := eng.Run(simtest.NewSource(jobs), col); err != nil {
			t.Fatal(err)
		}
		return col.Outcomes
	}
	with := run(queue3, immediateJobs())
	var others []workload.Job
	for _, j := range immediateJobs() {
		if j.Queue != 3 {
			others = append(others, j)
		}
	}
	without := run(nil, others)
	starts := func(outs []sim.Outcome, imm bool) string {
		var b strings.Builder
		for _, o := range outs {
			if o.Immediate == imm {
				fmt.Fprintf(&b, "%d:%d ", o.Job.ID, o.Start)
			}
		}
		return b.String()
	}
	if g, w := starts(with, false), starts(without, false); g != w {
		t.Errorf("SCore-D's jobs: starts %s, want as without the immediate queue: %s", g, w)
	}
	if g, w := starts(with, true), "2:10 5:50 6:100 "; g != w {
		t.Errorf("immediate jobs: starts %s, want %s", g, w)
	}
}

// TestImmediateQueuesClosedLoop: a closed loop is refused with immediate
// queues, with the reason.
func TestImmediateQueuesClosedLoop(t *testing.T) {
	_, err := sim.New(sim.Config{Procs: 4, Immediate: queue3, ClosedLoop: true})
	if err == nil || !strings.Contains(err.Error(), "closed loop") {
		t.Errorf("New: %v, want a refusal naming the closed loop", err)
	}
}

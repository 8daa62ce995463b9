package sim_test

import (
	"fmt"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// preemptRun runs jobs under FCFS with preemption in mode on preemptSpec's
// four single-core nodes (select/linear), with cfg's other settings, and
// checks the records with Verify (opts' Cluster set here). It returns the
// records.
func preemptRun(t *testing.T, mode policy.PreemptMode, jobs []workload.Job, cfg sim.Config, opts sim.VerifyOptions) *simtest.Recorder {
	t.Helper()
	spec := preemptSpec(cluster.SelectLinear, 4)
	al, err := spec.NewAllocator()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Policy == nil {
		cfg.Policy = policy.WithTiers(&policy.PartitionPrio{Inner: policy.FCFS{}}, tierOf)
	}
	cfg.Allocator = al
	cfg.Preempt = &sim.Preemption{Mode: mode, Tier: tierOf}
	eng, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	if _, err := eng.Run(simtest.NewSource(jobs), rec); err != nil {
		t.Fatal(err)
	}
	col := &sim.Collector{}
	for i := range rec.Records {
		col.JobDone(&rec.Records[i])
	}
	opts.Cluster = spec
	if vs := sim.Verify(spec.Cores(), col.Outcomes, opts); len(vs) > 0 {
		t.Errorf("verify: %v", vs)
	}
	return rec
}

// loopWant is a job's hand-computed outcome in a closed loop with
// preemption.
type loopWant struct {
	submit, start, end workload.Time
	state              sim.State
}

// TestPreemptClosedLoop: in a closed loop (SWF fields 17 and 18), a job
// that follows a job cancelled by preemption is submitted at the
// cancellation plus its think time — the preceding job ended then, as far
// as its user is concerned —, and one that follows a suspended or
// requeued job waits for that job's real end, after its resumption.
func TestPreemptClosedLoop(t *testing.T) {
	// Job 1 (low, 4 nodes, 100 s) runs from 0; job 2 (high, 2 nodes,
	// 30 s) preempts it at 10. Job 3 (low, 2 nodes, 20 s), recorded at 1,
	// follows job 1 with a think time of 5 s.
	jobs := func(think float64) []workload.Job {
		return []workload.Job{pjob(1, 0, 4, 100, 1), after(pjob(3, 1, 2, 20, 1), 1, think), pjob(2, 10, 2, 30, 2)}
	}
	cases := []struct {
		name  string
		mode  policy.PreemptMode
		think float64
		want  map[int64]loopWant
	}{
		// Cancelled at 10: job 3 is submitted at 15 and starts on the two
		// nodes job 2 left free.
		{"cancel", policy.PreemptCancel, 5, map[int64]loopWant{
			1: {0, 0, 10, sim.Preempted}, 2: {10, 10, 40, sim.Completed}, 3: {15, 15, 35, sim.Completed}}},
		// With no think time, job 3 joins the queue at 10, after the pass
		// that cancelled job 1, and a pass at that instant starts it.
		{"cancel, no think time", policy.PreemptCancel, 0, map[int64]loopWant{
			1: {0, 0, 10, sim.Preempted}, 2: {10, 10, 40, sim.Completed}, 3: {10, 10, 30, sim.Completed}}},
		// Suspended at 10, resumed at 40 (job 2's end), ends at 130: job
		// 3 is submitted at 135.
		{"suspend", policy.PreemptSuspend, 5, map[int64]loopWant{
			1: {0, 0, 130, sim.Completed}, 2: {10, 10, 40, sim.Completed}, 3: {135, 135, 155, sim.Completed}}},
		// Requeued at 10, run again 40-140: job 3 is submitted at 145.
		{"requeue", policy.PreemptRequeue, 5, map[int64]loopWant{
			1: {0, 0, 140, sim.Completed}, 2: {10, 10, 40, sim.Completed}, 3: {145, 145, 165, sim.Completed}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := preemptRun(t, c.mode, jobs(c.think), sim.Config{ClosedLoop: true}, sim.VerifyOptions{})
			if len(rec.Records) != len(c.want) {
				t.Fatalf("%d records, want %d", len(rec.Records), len(c.want))
			}
			for id, w := range c.want {
				r := rec.ByID(t, id)
				if got := (loopWant{r.Job.Submit, r.Start, r.End, r.State}); got != w {
					t.Errorf("job %d: %+v, want %+v", id, got, w)
				}
			}
		})
	}
}

// TestPreemptCycle: under a scheduler cycle (--sched-interval 10), a job
// preempts in the passes the cycle runs, at its ticks, while a suspended
// job resumes at the instant its nodes free (Slurm's gang scheduler
// resumes it), and a requeued one starts again at the next tick.
func TestPreemptCycle(t *testing.T) {
	// Job 1 (low, 4 nodes, 100 s) starts at 0, a tick. Job 2 (high, 2
	// nodes, 25 s) arrives at 5: the pass at the tick 10 preempts job 1,
	// and job 2 runs 10-35.
	jobs := []workload.Job{pjob(1, 0, 4, 100, 1), pjob(2, 5, 2, 25, 2)}
	cases := []struct {
		name       string
		mode       policy.PreemptMode
		start, end workload.Time
		runs       string
		state      sim.State
	}{
		// Resumed at 35, not at the tick 40: 90 s left, ends at 125.
		{"suspend", policy.PreemptSuspend, 0, 125, "0-10@0-3 35-125@0-3", sim.Completed},
		// Back in the queue at 10, started over at the tick 40.
		{"requeue", policy.PreemptRequeue, 0, 140, "0-10@0-3 40-140@0-3", sim.Completed},
		{"cancel", policy.PreemptCancel, 0, 10, "0-10@0-3", sim.Preempted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := preemptRun(t, c.mode, jobs, sim.Config{SchedInterval: 10}, sim.VerifyOptions{})
			r := rec.ByID(t, 1)
			runs, marks := runsString(&r)
			if r.Start != c.start || r.End != c.end || runs != c.runs || marks != "10@2" || r.State != c.state {
				t.Errorf("job 1: %v %d-%d runs %q preempted %q; want %v %d-%d runs %q preempted \"10@2\"", r.State, r.Start, r.End, runs, marks, c.state, c.start, c.end, c.runs)
			}
			if r2 := rec.ByID(t, 2); r2.Start != 10 || r2.End != 35 {
				t.Errorf("job 2: %d-%d, want 10-35", r2.Start, r2.End)
			}
		})
	}
}

// spyEstimator predicts 30 s for every job and corrects a prediction by
// 20 s, noting each correction and each job's run as the engine reports
// them.
type spyEstimator struct{ log []string }

func (*spyEstimator) Name() string                          { return "spy" }
func (*spyEstimator) Predict(j *workload.Job) workload.Time { return 30 }
func (e *spyEstimator) Correct(j *workload.Job, pred workload.Time) workload.Time {
	e.log = append(e.log, fmt.Sprintf("correct %d %d", j.ID, pred))
	return pred + 20
}
func (e *spyEstimator) Done(j *workload.Job, run workload.Time) {
	e.log = append(e.log, fmt.Sprintf("done %d %d", j.ID, run))
}

// TestPreemptEstimates: under an Estimator, a preempted job's prediction
// is of its whole run. Suspended, it has none (no correction while it
// waits); resumed, it gets the rest of its prediction, which is corrected
// when reached, the estimator seeing the whole prediction; and its end
// tells the estimator its whole run. A requeued job starts over with its
// prediction.
func TestPreemptEstimates(t *testing.T) {
	// Job 1 (low, 4 nodes, 100 s, 200 s requested) runs from 0, predicted
	// to end at 30. Job 2 (high, 2 nodes, 25 s) preempts it at 10 and
	// ends at 35.
	jobs := []workload.Job{job(1, 0, 4, 100, 200), job(2, 10, 2, 25, 200)}
	jobs[0].Partition, jobs[1].Partition = 1, 2
	cases := []struct {
		name string
		mode policy.PreemptMode
		end  workload.Time
		log  string
	}{
		// Suspended at 10 with 20 s of its 30 s prediction ahead: resumed
		// at 35, predicted to end at 55; then 30 → 50 (end 75), 50 → 70
		// (95), 70 → 90 (115), 90 → 110 (135, past its end at 125).
		{"suspend", policy.PreemptSuspend, 125,
			"[done 2 25 correct 1 30 correct 1 50 correct 1 70 correct 1 90 done 1 100]"},
		// Requeued at 10, started over at 35: predicted to end at 65, then
		// 85, 105, 125 and 145, past its end at 135.
		{"requeue", policy.PreemptRequeue, 135,
			"[done 2 25 correct 1 30 correct 1 50 correct 1 70 correct 1 90 done 1 100]"},
		// Cancelled: its run is not one the estimator learns from.
		{"cancel", policy.PreemptCancel, 10, "[done 2 25]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			est := &spyEstimator{}
			pol := policy.WithTiers(&policy.PartitionPrio{Inner: &policy.EASY{Lookahead: policy.LookaheadAll}}, tierOf)
			rec := preemptRun(t, c.mode, jobs, sim.Config{Estimator: est, Policy: pol}, sim.VerifyOptions{})
			if r := rec.ByID(t, 1); r.End != c.end {
				t.Errorf("job 1 ends at %d, want %d", r.End, c.end)
			}
			if got := fmt.Sprint(est.log); got != c.log {
				t.Errorf("estimator saw %s\nwant          %s", got, c.log)
			}
		})
	}
}

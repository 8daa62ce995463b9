package sim_test

import (
	"fmt"
	"strings"
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

// TestPreemptNodeEvents: node events under preemption. Slurm keeps a
// suspended job's allocation: a DOWN of one of its nodes ends it as it
// ends the running jobs there (killed, or requeued to start over, as
// --on-node-fail says), and a draining node lets it resume there, as it
// lets its running jobs finish.
func TestPreemptNodeEvents(t *testing.T) {
	// Job 1 (low, 4 nodes, 100 s) runs from 0; job 2 (high, 2 nodes,
	// 30 s) suspends it at 10 and runs 10-40 on nodes 0-1.
	jobs := []workload.Job{pjob(1, 0, 4, 100, 1), pjob(2, 10, 2, 30, 2)}
	ev := func(at workload.Time, st cluster.NodeState, lo, hi int) cluster.NodeEvent {
		return cluster.NodeEvent{At: at, State: st, Nodes: []cluster.Range{{Lo: lo, Hi: hi}}}
	}
	cases := []struct {
		name   string
		events []cluster.NodeEvent
		onFail sim.NodeFailAction
		want   map[int64]preemptWant
		reqs   int // job 1's requeues
	}{
		// Node 3, which only the suspended job 1 holds, goes down at 20:
		// job 1 is killed then, its one run 0-10.
		{"suspended, node down, kill", []cluster.NodeEvent{ev(20, cluster.NodeDown, 3, 4)}, sim.NodeFailKill, map[int64]preemptWant{
			1: {sim.NodeFail, 0, 20, "0-10@0-3", "10@2", 0},
			2: {sim.Completed, 10, 40, "", "", 0},
		}, 0},
		// Requeued at 20 instead, to start over: it fits again when node
		// 3 is back at 50, and its record is that of its last attempt.
		{"suspended, node down, requeue", []cluster.NodeEvent{ev(20, cluster.NodeDown, 3, 4), ev(50, cluster.NodeResume, 3, 4)}, sim.NodeFailRequeue, map[int64]preemptWant{
			1: {sim.Completed, 50, 150, "", "", 0},
			2: {sim.Completed, 10, 40, "", "", 0},
		}, 1},
		// Node 0 goes down at 20 under job 2 and the suspended job 1:
		// both are killed.
		{"preemptor's node down", []cluster.NodeEvent{ev(20, cluster.NodeDown, 0, 1)}, sim.NodeFailKill, map[int64]preemptWant{
			1: {sim.NodeFail, 0, 20, "0-10@0-3", "10@2", 0},
			2: {sim.NodeFail, 10, 20, "", "", 0},
		}, 0},
		// Node 3 drains at 20: job 1 still resumes there at 40, when job
		// 2 ends, and ends at 130.
		{"suspended, node draining", []cluster.NodeEvent{ev(20, cluster.NodeDrain, 3, 4)}, sim.NodeFailKill, map[int64]preemptWant{
			1: {sim.Completed, 0, 130, "0-10@0-3 40-130@0-3", "10@2", 0},
			2: {sim.Completed, 10, 40, "", "", 0},
		}, 0},
		// Node 0 goes down at 60, under job 1 resumed at 40: killed, its
		// runs 0-10 and 40-60.
		{"resumed, node down", []cluster.NodeEvent{ev(60, cluster.NodeDown, 0, 1)}, sim.NodeFailKill, map[int64]preemptWant{
			1: {sim.NodeFail, 0, 60, "0-10@0-3 40-60@0-3", "10@2", 0},
			2: {sim.Completed, 10, 40, "", "", 0},
		}, 0},
		// Requeued at 60 instead: it needs four nodes, three are left, so
		// it starts over at node 0's return at 70; its record is that of
		// its last attempt.
		{"resumed, node down, requeue", []cluster.NodeEvent{ev(60, cluster.NodeDown, 0, 1), ev(70, cluster.NodeResume, 0, 1)}, sim.NodeFailRequeue, map[int64]preemptWant{
			1: {sim.Completed, 70, 170, "", "", 0},
			2: {sim.Completed, 10, 40, "", "", 0},
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := preemptRun(t, policy.PreemptSuspend, jobs, sim.Config{NodeEvents: c.events, OnNodeFail: c.onFail}, sim.VerifyOptions{NodeEvents: c.events})
			if len(rec.Records) != len(c.want) {
				t.Fatalf("%d records, want %d", len(rec.Records), len(c.want))
			}
			for id, w := range c.want {
				r := rec.ByID(t, id)
				runs, marks := runsString(&r)
				if r.State != w.state || r.Start != w.start || r.End != w.end || runs != w.runs || marks != w.marks || r.LostRun != w.lost {
					t.Errorf("job %d: %v %d-%d runs %q preempted %q lost %d; want %v %d-%d runs %q preempted %q lost %d",
						id, r.State, r.Start, r.End, runs, marks, r.LostRun, w.state, w.start, w.end, w.runs, w.marks, w.lost)
				}
			}
			if r := rec.ByID(t, 1); r.Requeues != c.reqs {
				t.Errorf("job 1 requeued %d times, want %d", r.Requeues, c.reqs)
			}
		})
	}
}

// TestVerifyPreemptNodeEvents plants violations of the node rules in the
// correct schedules of TestPreemptNodeEvents and checks that Verify names
// each.
func TestVerifyPreemptNodeEvents(t *testing.T) {
	all := []cluster.Range{{Lo: 0, Hi: 4}}
	j1, j2 := pjob(1, 0, 4, 100, 1), pjob(2, 10, 2, 30, 2)
	j1.Seq, j2.Seq = 0, 1
	down := func(at workload.Time, st cluster.NodeState, n int) []cluster.NodeEvent {
		return []cluster.NodeEvent{{At: at, State: st, Nodes: []cluster.Range{{Lo: n, Hi: n + 1}}}}
	}
	suspended := func() []sim.Outcome {
		return []sim.Outcome{
			{Job: j1, State: sim.Completed, Start: 0, End: 130, Alloc: all, HasTier: true, Tier: 0,
				Runs:        []sim.RunSpan{{From: 0, To: 10, Alloc: all}, {From: 40, To: 130, Alloc: all}},
				Preemptions: []sim.PreemptMark{{At: 10, By: 2, Mode: policy.PreemptSuspend}}},
			{Job: j2, State: sim.Completed, Start: 10, End: 40, Alloc: []cluster.Range{{Lo: 0, Hi: 2}}, HasTier: true, Tier: 1},
		}
	}
	cases := []struct {
		name   string
		events []cluster.NodeEvent
		plant  func(o []sim.Outcome)
		msg    string // "": no violation
	}{
		{"resumed on a draining node", down(20, cluster.NodeDrain, 3), func([]sim.Outcome) {}, ""},
		{"killed while suspended", down(20, cluster.NodeDown, 3), func(o []sim.Outcome) {
			o[0].State, o[0].End = sim.NodeFail, 20
			o[0].Runs = o[0].Runs[:1]
		}, ""},
		{"suspended through a DOWN", down(20, cluster.NodeDown, 3), func([]sim.Outcome) {}, "holds node 3 from 0 to 40, which went down at 20"},
		{"resumed on a down node", down(40, cluster.NodeDown, 3), func(o []sim.Outcome) {}, "started at 40 on node 3, which was out of service"},
		{"killed while suspended, no DOWN", nil, func(o []sim.Outcome) {
			o[0].State, o[0].End = sim.NodeFail, 20
			o[0].Runs = o[0].Runs[:1]
		}, "killed by a node failure"},
		{"killed after its run time", down(20, cluster.NodeDown, 3), func(o []sim.Outcome) {
			o[0].State, o[0].End = sim.NodeFail, 20
			o[0].Runs = o[0].Runs[:1]
			o[0].Job.Run = 10
		}, "killed by a node failure after 10 s of its 10 s"},
	}
	spec := preemptSpec(cluster.SelectLinear, 4)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outs := suspended()
			c.plant(outs)
			vs := sim.Verify(spec.Cores(), outs, sim.VerifyOptions{Cluster: spec, NodeEvents: c.events})
			if c.msg == "" {
				if len(vs) > 0 {
					t.Fatalf("violations in a correct schedule: %v", vs)
				}
				return
			}
			for _, v := range vs {
				if strings.Contains(v.Msg, c.msg) {
					return
				}
			}
			t.Errorf("want a violation saying %q, got %v", c.msg, vs)
		})
	}
}

// TestPreemptCheckpointChain: a run with preemption, killed at every
// checkpoint and resumed from it by a new engine, gives the records and
// statistics of the run never interrupted — suspended jobs (their runs,
// preemptions, the run time they have left), requeued ones and the
// running jobs per tier are saved — under each mode, with estimates, node
// events, a scheduler cycle and a closed loop.
func TestPreemptCheckpointChain(t *testing.T) {
	const procs = 64
	est := func(s string) policy.Estimator {
		e, err := policy.ParseEstimator(s)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	events := []cluster.NodeEvent{
		{At: 5000, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 0, Hi: 8}}, Reason: "fan"},
		{At: 7000, State: cluster.NodeDrain, Nodes: []cluster.Range{{Lo: 20, Hi: 30}}},
		{At: 9000, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 0, Hi: 8}, {Lo: 20, Hi: 30}}},
		{At: 12000, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 40, Hi: 44}}},
		{At: 13000, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 40, Hi: 44}}},
	}
	easyTiers := func() policy.Policy {
		return policy.WithTiers(&policy.PartitionPrio{Inner: &policy.EASY{Lookahead: policy.LookaheadAll}}, tierOf)
	}
	cases := []struct {
		name string
		mode policy.PreemptMode
		cfg  func() sim.Config
	}{
		{"suspend-fcfs", policy.PreemptSuspend, func() sim.Config { return sim.Config{} }},
		{"requeue-easy", policy.PreemptRequeue, func() sim.Config {
			return sim.Config{Policy: easyTiers()}
		}},
		{"cancel-easy", policy.PreemptCancel, func() sim.Config { return sim.Config{Policy: easyTiers()} }},
		{"suspend-easy-predict", policy.PreemptSuspend, func() sim.Config {
			return sim.Config{Policy: easyTiers(), Estimator: est("predict")}
		}},
		{"suspend-easy-nodes-requeue", policy.PreemptSuspend, func() sim.Config {
			return sim.Config{Policy: easyTiers(), NodeEvents: events, OnNodeFail: sim.NodeFailRequeue}
		}},
		{"suspend-nodes-kill-cycle", policy.PreemptSuspend, func() sim.Config {
			return sim.Config{NodeEvents: events, SchedInterval: 60}
		}},
		{"cancel-closedloop", policy.PreemptCancel, func() sim.Config { return sim.Config{ClosedLoop: true} }},
		{"suspend-easy-calendar", policy.PreemptSuspend, func() sim.Config {
			return sim.Config{Policy: easyTiers(), Constraints: &sim.Constraints{
				Reservations: []sim.Reservation{{Name: "maint", Start: 7200, Duration: 1800, Recur: sim.RecurDaily, Until: workload.Forever, Maint: true}},
				Limits:       []sim.Limit{{AllUsers: true, MaxJobsPerUser: 4}}}}
		}},
	}
	seeds := uint64(simtest.Cases(3, 1))
	for _, c := range cases {
		preemptions, acrossAll := 0, 0 // over the case's seeds
		for seed := uint64(1); seed <= seeds; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", c.name, seed), func(t *testing.T) {
				jobs := syntheticJobs(seed, 400, procs)
				for i := range jobs {
					jobs[i].Seq = int64(i)
					jobs[i].User = i % 7
					jobs[i].Partition = 1 + i%3/2 // every third job of the high tier
					if c.cfg().ClosedLoop && i >= 7 && i%2 == 0 {
						jobs[i].PrecedingJob, jobs[i].ThinkTime = jobs[i-7].ID, float64(i%5*60)
					}
				}
				spec := preemptSpec(cluster.SelectConsRes, procs)
				config := func() sim.Config {
					cfg := c.cfg()
					al, err := spec.NewAllocator()
					if err != nil {
						t.Fatal(err)
					}
					cfg.Allocator = al
					if cfg.Policy == nil {
						cfg.Policy = policy.WithTiers(&policy.PartitionPrio{Inner: policy.FCFS{}}, tierOf)
					}
					cfg.Preempt = &sim.Preemption{Mode: c.mode, Tier: tierOf}
					return cfg
				}
				want, wantStats := simtest.Run(t, config(), jobs)
				// A seed may preempt only a few times; the case's seeds
				// together must preempt often (checked below).
				if preemptions += int(wantStats.Preemptions); wantStats.Preemptions == 0 {
					t.Fatal("no preemption: the test does not exercise preemption")
				}
				const every = 3600
				// Checkpoints taken while a job was suspended or requeued.
				across := 0
				for _, r := range want.Records {
					for k, m := range r.Preemptions {
						if k+1 < len(r.Runs) && (m.At-wantStats.FirstEvent)/every != (r.Runs[k+1].From-wantStats.FirstEvent)/every {
							across++
						}
					}
				}
				acrossAll += across
				got := &simtest.Recorder{}
				resumes := simtest.RunResumed(t, jobs, got, wantStats, simtest.EngineResumer(config, every))
				if resumes < 5 {
					t.Fatalf("only %d resumes: the test does not exercise checkpoints", resumes)
				}
				simtest.SameRecords(t, got.Records, want.Records, "after resuming")
				t.Logf("%d preemptions, %d across a checkpoint, %d resumes", wantStats.Preemptions, across, resumes)
			})
		}
		if preemptions < 10 {
			t.Errorf("%s: %d preemptions over %d seeds: the test does not exercise preemption", c.name, preemptions, seeds)
		}
		if c.mode != policy.PreemptCancel && acrossAll == 0 {
			t.Errorf("%s: no job suspended or requeued across a checkpoint: the test does not exercise them", c.name)
		}
	}
}

// TestPreemptFederation: preemption on a cluster of clusters. Each job is
// assigned its cluster at submission and preempts, as in a Slurm cluster,
// only jobs whose resources it takes there: candidates on another cluster
// keep running. A suspended job resumes on its nodes, a requeued one
// starts over on its cluster, its run time scaled again by its speed.
func TestPreemptFederation(t *testing.T) {
	member := func(speed float64) cluster.FederationMember {
		spec := preemptSpec(cluster.SelectLinear, 2)
		spec.Groups[0].Speed = speed
		m, err := cluster.MemberOf(spec)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// Cluster A (nodes 0-1, speed 1) and B (nodes 2-3, speed 2). At 0,
	// job 1 (low, 2 nodes, 100 s) finds equal loads and takes the faster
	// B (50 s there); job 3 (low, 1 node) then A, loaded 0 against B's
	// 0.5. Job 2 (high, 2 nodes, 40 s) at 10 finds equal loads (A 1/2, B
	// 2/2 / 2) and is assigned B, where it does not fit. The candidates,
	// fewest nodes first, are job 3 (on A: taking it away does not make
	// room on B, and it keeps running) and job 1, which goes. Job 2 runs
	// 10-30 on B.
	jobs := []workload.Job{pjob(1, 0, 2, 100, 1), pjob(3, 0, 1, 100, 1), pjob(2, 10, 2, 40, 2)}
	cases := []struct {
		name string
		mode policy.PreemptMode
		want map[int64]preemptWant
	}{
		// Suspended at 10 with 40 s of its 50 left: resumed at 30 on
		// nodes 2-3, ends at 70.
		{"suspend", policy.PreemptSuspend, map[int64]preemptWant{
			1: {sim.Completed, 0, 70, "0-10@2-3 30-70@2-3", "10@2", 0},
			2: {sim.Completed, 10, 30, "", "", 0},
			3: {sim.Completed, 0, 100, "", "", 0},
		}},
		// Requeued at 10, started over at 30 on B: 100 s scaled to 50.
		{"requeue", policy.PreemptRequeue, map[int64]preemptWant{
			1: {sim.Completed, 0, 80, "0-10@2-3 30-80@2-3", "10@2", 10},
			2: {sim.Completed, 10, 30, "", "", 0},
			3: {sim.Completed, 0, 100, "", "", 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := cluster.NewFederation([]cluster.FederationMember{member(1), member(2)})
			pol := policy.WithTiers(&policy.PartitionPrio{Inner: policy.FCFS{}}, tierOf)
			eng, err := sim.New(sim.Config{Policy: pol, Allocator: f, Preempt: &sim.Preemption{Mode: c.mode, Tier: tierOf}})
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			if _, err := eng.Run(simtest.NewSource(jobs), rec); err != nil {
				t.Fatal(err)
			}
			col := &sim.Collector{}
			for id, w := range c.want {
				r := rec.ByID(t, id)
				col.JobDone(&r)
				runs, marks := runsString(&r)
				if r.State != w.state || r.Start != w.start || r.End != w.end || runs != w.runs || marks != w.marks || r.LostRun != w.lost {
					t.Errorf("job %d: %v %d-%d runs %q preempted %q lost %d; want %v %d-%d runs %q preempted %q lost %d",
						id, r.State, r.Start, r.End, runs, marks, r.LostRun, w.state, w.start, w.end, w.runs, w.marks, w.lost)
				}
			}
			if vs := sim.Verify(4, col.Outcomes, sim.VerifyOptions{}); len(vs) > 0 {
				t.Errorf("verify: %v", vs)
			}
			if f.Free() != f.Capacity() {
				t.Errorf("%d of %d free at the end", f.Free(), f.Capacity())
			}
		})
	}
}

// TestPreemptCalendar: reservations, start windows and limits bound a
// preemptor as any start: it preempts only if it could start were the
// victims gone — clear of the reservations it may not use over its time
// limit, and within its limits. A suspended job still counts against the
// limits (Slurm keeps it allocated), and resumes only where its rest runs
// into no reservation it may not use.
func TestPreemptCalendar(t *testing.T) {
	maint := func(from, to workload.Time) *sim.Constraints {
		return &sim.Constraints{Reservations: []sim.Reservation{{Name: "maint", Start: from, Duration: to - from, Until: workload.Forever, Maint: true}}}
	}
	withLimit := func(j workload.Job, limit workload.Time, user int) workload.Job {
		j.Estimate, j.User = limit, user
		return j
	}
	cases := []struct {
		name string
		jobs []workload.Job
		cons *sim.Constraints
		want map[int64]preemptWant
	}{
		// Job 2 (high, 95 s requested) would run from 10 into the
		// maintenance at 100-110 even with job 1 gone: it preempts
		// nothing, and starts after the maintenance.
		{"preemptor into a maintenance", []workload.Job{withLimit(pjob(1, 0, 4, 50, 1), 60, 1), withLimit(pjob(2, 10, 2, 30, 2), 95, 2)}, maint(100, 110), map[int64]preemptWant{
			1: {sim.Completed, 0, 50, "", "", 0},
			2: {sim.Completed, 110, 140, "", "", 0},
		}},
		// Job 2 (40 s requested) fits before the maintenance at 70-80 and
		// suspends job 1 at 10. At 40 job 1 has 50 s of its limit left,
		// which would run into the maintenance: it resumes at its end, 80.
		{"resumption after a maintenance", []workload.Job{withLimit(pjob(1, 0, 4, 50, 1), 60, 1), withLimit(pjob(2, 10, 2, 30, 2), 40, 2)}, maint(70, 80), map[int64]preemptWant{
			1: {sim.Completed, 0, 120, "0-10@0-3 80-120@0-3", "10@2", 0},
			2: {sim.Completed, 10, 40, "", "", 0},
		}},
		// One running job per user: job 2 (user 1, high) may not start
		// while user 1's job 1 runs, so it preempts nothing; job 3 (user
		// 2, high) suspends job 1 at 20, which still counts for user 1:
		// job 2 starts when job 1 ends, at 120.
		{"limit", []workload.Job{withLimit(pjob(1, 0, 4, 100, 1), 200, 1), withLimit(pjob(2, 10, 2, 30, 2), 200, 1), withLimit(pjob(3, 20, 2, 20, 2), 200, 2)},
			&sim.Constraints{Limits: []sim.Limit{{AllUsers: true, MaxJobsPerUser: 1}}}, map[int64]preemptWant{
				1: {sim.Completed, 0, 120, "0-20@0-3 40-120@0-3", "20@3", 0},
				2: {sim.Completed, 120, 150, "", "", 0},
				3: {sim.Completed, 20, 40, "", "", 0},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := preemptRun(t, policy.PreemptSuspend, c.jobs, sim.Config{Constraints: c.cons}, sim.VerifyOptions{Constraints: c.cons})
			if len(rec.Records) != len(c.want) {
				t.Fatalf("%d records, want %d", len(rec.Records), len(c.want))
			}
			for id, w := range c.want {
				r := rec.ByID(t, id)
				runs, marks := runsString(&r)
				if r.State != w.state || r.Start != w.start || r.End != w.end || runs != w.runs || marks != w.marks || r.LostRun != w.lost {
					t.Errorf("job %d: %v %d-%d runs %q preempted %q lost %d; want %v %d-%d runs %q preempted %q lost %d",
						id, r.State, r.Start, r.End, runs, marks, r.LostRun, w.state, w.start, w.end, w.runs, w.marks, w.lost)
				}
			}
		})
	}
}

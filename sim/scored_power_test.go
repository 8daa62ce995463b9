package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// powerLog returns a Power.Log that appends "time:node:change" to *log.
func powerLog(log *[]string) func(workload.Time, int, sim.PowerChange) {
	return func(at workload.Time, n int, c sim.PowerChange) {
		*log = append(*log, fmt.Sprintf("%d:%d:%d", at, n, c))
	}
}

// TestScoreDSwitchingNodeEvents switches nodes off under SCore-D's
// exclusive queue with node events, on two nodes of one processor (idle
// timeout 10 s, switch-off 5 s, switch-on 10 s): a node's power state and
// its service state are kept apart, as on the main engine. Worked out by
// hand.
func TestScoreDSwitchingNodeEvents(t *testing.T) {
	j := func(id int64, submit workload.Time, procs int, run workload.Time) workload.Job {
		return workload.Job{ID: id, Seq: id, Submit: submit, Procs: procs, Run: run, Estimate: 1000}
	}
	cases := []struct {
		name     string
		jobs     []workload.Job
		events   []cluster.NodeEvent
		starts   []workload.Time // of the jobs, in order
		switches []string
	}{
		{
			// Node 1, asleep from 15, goes down at 20: no job is hit and
			// it stays asleep. Job 2 (2 processors) comes at 30 and
			// needs it, but a node out of service is not woken. Its
			// RESUME at 40 gives it its service back, asleep: the pass
			// then wakes it for job 2 (on at 50), which starts when job 1
			// ends at 100.
			name: "a node down while asleep is not woken until it resumes",
			jobs: []workload.Job{j(1, 0, 1, 100), j(2, 30, 2, 10)}, events: []cluster.NodeEvent{nev(20, cluster.NodeDown, 1, 1), nev(40, cluster.NodeResume, 1, 1)},
			starts: []workload.Time{0, 100}, switches: []string{"10:1:0", "15:1:1", "40:1:2", "50:1:3"},
		},
		{
			// Job 2 wakes node 1 at 30 (on at 40); the node is drained at
			// 35, while it switches on: at 40 it is on, idle and out of
			// service (and not switched off: it is not in service). Job 1
			// ends at 50; job 2 starts at the node's RESUME at 60.
			name: "a node drained while it switches on is on but out of service",
			jobs: []workload.Job{j(1, 0, 1, 50), j(2, 30, 2, 10)}, events: []cluster.NodeEvent{nev(35, cluster.NodeDrain, 1, 1), nev(60, cluster.NodeResume, 1, 1)},
			starts: []workload.Time{0, 60}, switches: []string{"10:1:0", "15:1:1", "30:1:2", "40:1:3"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			c := policy.NewScoreD(1, policy.Exclusive)
			checkSwitched(t, sim.Config{Procs: 2, ScoreD: &c, NodeEvents: tc.events, NodeSize: 1,
				Power: &sim.Power{NodeSize: 1, IdleTimeout: 10, SwitchOff: 5, SwitchOn: 10, Log: powerLog(&log)}}, &log, tc.jobs, tc.starts, tc.switches)
		})
	}
}

// checkSwitched runs jobs 1 and 2 under cfg, whose Power logs to log
// (powerLog), and checks that both complete, at starts, with the
// switches switches.
func checkSwitched(t *testing.T, cfg sim.Config, log *[]string, jobs []workload.Job, starts []workload.Time, switches []string) {
	t.Helper()
	eng, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	if _, err := eng.Run(simtest.NewSource(jobs), rec); err != nil {
		t.Fatal(err)
	}
	var got []workload.Time
	for _, id := range []int64{1, 2} {
		for _, r := range rec.Records {
			if r.Job.ID == id {
				if r.State != sim.Completed {
					t.Errorf("job %d: %v (%s), want completed", id, r.State, r.Reason)
				}
				got = append(got, r.Start)
			}
		}
	}
	if !slices.Equal(got, starts) {
		t.Errorf("starts %v, want %v", got, starts)
	}
	if !slices.Equal(*log, switches) {
		t.Errorf("switches\n %v\nwant\n %v", *log, switches)
	}
}

// switchingConfigs are SCore-D configurations with switching for the
// checkpoint and synthetic tests: gang time sharing with a switch cost,
// exclusive mode, priorities and preemption between queues, and node
// events that requeue jobs.
func switchingConfigs() []struct {
	name   string
	cfg    func() policy.ScoreD
	events []cluster.NodeEvent
	loop   bool
	fed    *sim.ScoreDClusters
} {
	queues := func(mode policy.QueueMode, preempt policy.PreemptMode) policy.ScoreD {
		c := policy.NewScoreD(3, mode)
		c.Preempt = preempt
		c.Queues[0].ResidenceSec = 1800
		return c
	}
	return []struct {
		name   string
		cfg    func() policy.ScoreD
		events []cluster.NodeEvent
		loop   bool
		fed    *sim.ScoreDClusters
	}{
		{"gang-mpl3-switch", func() policy.ScoreD {
			c := queues(policy.Gang, policy.PreemptSuspend)
			c.MPL, c.QuantumMs, c.SwitchMs = 3, 70, 9
			return c
		}, nil, false, nil},
		{"exclusive-requeue", func() policy.ScoreD { return queues(policy.Exclusive, policy.PreemptRequeue) }, nil, false, nil},
		{"mixed-nodes", func() policy.ScoreD {
			c := queues(policy.Gang, policy.PreemptSuspend)
			c.Queues[1].Mode = policy.Exclusive
			return c
		}, []cluster.NodeEvent{nev(3000, cluster.NodeDown, 0, 1), nev(6000, cluster.NodeDrain, 8, 9), nev(9000, cluster.NodeResume, 0, 1), nev(12000, cluster.NodeResume, 8, 9)}, false, nil},
		// A closed loop: nodes are switched off while the next jobs
		// wait for their preceding job's end and think time.
		{"gang-closed-loop", func() policy.ScoreD { c := queues(policy.Gang, policy.PreemptSuspend); c.MPL = 2; return c }, nil, true, nil},
		// Two clusters of 40 and 24 processors (whole nodes of 4):
		// each cluster's nodes are woken for its own jobs.
		{"gang-clusters", func() policy.ScoreD { return queues(policy.Gang, policy.PreemptSuspend) }, nil, false,
			&sim.ScoreDClusters{Procs: []int{40, 24}, Speed: []float64{1, 2}}},
	}
}

// switchingJobs is a synthetic workload for switchingConfigs: 400 jobs on
// 64 processors, in three queues, arriving 30 times further apart than
// syntheticJobs's (a load of about 0.7), so that nodes sleep.
func switchingJobs(seed uint64, loop bool) []workload.Job {
	jobs := syntheticJobs(seed, 400, 64)
	for i := range jobs {
		jobs[i].Seq = int64(i)
		jobs[i].Queue = i % 3
		jobs[i].Submit *= 30
		if loop && i%4 == 3 {
			jobs[i].PrecedingJob, jobs[i].ThinkTime = jobs[i-3].ID, 900
		}
	}
	return jobs
}

// TestScoreDSwitchingCheckpointChain runs SCore-D with switching once
// without interruption, then as a chain of runs each stopped at its first
// checkpoint and resumed from the saved state: the records, the statistics
// and the switches must be the same (the nodes' power states, the switches
// under way and the idle timeouts are in the state). Every processor a
// stint held was in service and on: never on a node off or switching, as
// the switches say (times rounded up to the second, as the meter's).
func TestScoreDSwitchingCheckpointChain(t *testing.T) {
	const procs = 64
	for _, tc := range switchingConfigs() {
		for seed := uint64(1); seed <= uint64(simtest.Cases(2, 1)); seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", tc.name, seed), func(t *testing.T) {
				jobs := switchingJobs(seed, tc.loop)
				config := func(log *[]string) func() sim.Config {
					return func() sim.Config {
						c := tc.cfg()
						return sim.Config{Procs: procs, ScoreD: &c, ScoreDClusters: tc.fed, NodeEvents: tc.events, NodeSize: 4, OnNodeFail: sim.NodeFailRequeue, ClosedLoop: tc.loop,
							Power: &sim.Power{NodeSize: 4, IdleTimeout: 300, SwitchOff: 30, SwitchOn: 120, Log: powerLog(log)}}
					}
				}
				var wantLog, gotLog []string
				eng, err := sim.New(config(&wantLog)())
				if err != nil {
					t.Fatal(err)
				}
				want := &simtest.Recorder{}
				wantStats, err := eng.Run(&simtest.Source{Jobs: jobs}, want)
				if err != nil {
					t.Fatal(err)
				}
				got := &simtest.Recorder{}
				resumes := simtest.RunResumed(t, jobs, got, wantStats, simtest.EngineResumer(config(&gotLog), 3600))
				if resumes < 5 {
					t.Fatalf("only %d resumes: the test does not exercise checkpoints", resumes)
				}
				if len(wantLog) < 40 {
					t.Fatalf("%d power changes: the test does not exercise switching", len(wantLog))
				}
				simtest.SameRecords(t, got.Records, want.Records, "after resuming")
				if !slices.Equal(gotLog, wantLog) {
					t.Fatalf("switches after resuming differ:\n got %v\nwant %v", gotLog, wantLog)
				}
				checkOffNodes(t, want.Records, wantLog, 4)
			})
		}
	}
}

// checkOffNodes checks that no stint of recs held a processor of a node
// (of size processors) while the switches log says it was off or
// switching: from its switch-off to the end of its switch-on.
func checkOffNodes(t *testing.T, recs []sim.Record, log []string, size int) {
	t.Helper()
	type span struct{ from, to workload.Time }
	off := map[int][]span{}
	for _, l := range log {
		var at workload.Time
		var n int
		var c sim.PowerChange
		if _, err := fmt.Sscanf(strings.ReplaceAll(l, ":", " "), "%d %d %d", &at, &n, &c); err != nil {
			t.Fatal(err)
		}
		switch c {
		case sim.PowerSwitchingOff:
			off[n] = append(off[n], span{at, workload.Forever})
		case sim.PowerAwake:
			off[n][len(off[n])-1].to = at
		}
	}
	up := func(ms int64) workload.Time { return workload.Time((ms + 999) / 1000) }
	checked := 0
	for _, r := range recs {
		for k, st := range r.Stints {
			if k >= len(r.StintAllocs) {
				t.Fatalf("job %d: stint %d has no processors", r.Job.ID, k)
			}
			for _, pr := range r.StintAllocs[k] {
				for c := pr.Lo; c < pr.Hi; c++ {
					for _, sp := range off[c/size] {
						if up(st.FromMs) < sp.to && sp.from < up(st.ToMs) {
							t.Fatalf("job %d held processor %d from %d ms to %d ms, its node off or switching from %d s to %d s", r.Job.ID, c, st.FromMs, st.ToMs, sp.from, sp.to)
						}
					}
					checked++
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no stint checked")
	}
}

// TestScoreDSwitchingDeterministic runs each switching configuration
// twice: the same records and switches. With an idle timeout longer than
// the run nothing is switched, and the records are those of a run that
// only meters its processors (ScoreDBusy, whose jobs are placed alike).
func TestScoreDSwitchingDeterministic(t *testing.T) {
	const procs = 64
	for _, tc := range switchingConfigs() {
		t.Run(tc.name, func(t *testing.T) {
			jobs := switchingJobs(7, tc.loop)
			run := func(timeout workload.Time, power bool) ([]sim.Record, []string) {
				var log []string
				c := tc.cfg()
				cfg := sim.Config{Procs: procs, ScoreD: &c, ScoreDClusters: tc.fed, NodeEvents: tc.events, NodeSize: 4, OnNodeFail: sim.NodeFailRequeue, ClosedLoop: tc.loop,
					ScoreDBusy: func(workload.Time, workload.Time, []cluster.Range) {}}
				if power {
					cfg.Power = &sim.Power{NodeSize: 4, IdleTimeout: timeout, SwitchOff: 30, SwitchOn: 120, Log: powerLog(&log)}
				}
				eng, err := sim.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				rec := &simtest.Recorder{}
				if _, err := eng.Run(&simtest.Source{Jobs: jobs}, rec); err != nil {
					t.Fatal(err)
				}
				return rec.Records, log
			}
			r1, l1 := run(300, true)
			r2, l2 := run(300, true)
			simtest.SameRecords(t, r2, r1, "on the second run")
			if !slices.Equal(l1, l2) || len(l1) == 0 {
				t.Fatalf("switches differ from run to run, or none: %d and %d", len(l1), len(l2))
			}
			r3, l3 := run(1e7, true)
			if len(l3) > 0 {
				t.Fatalf("%d switches with an idle timeout longer than the run", len(l3))
			}
			r0, _ := run(0, false)
			simtest.SameRecords(t, r3, r0, "with nothing switched")
		})
	}
}

// TestScoreDSwitchingRefused checks what a SCore-D run with switching
// refuses: switching by plan (SCore-D plans no start) and node events on
// nodes of another size than the power model's.
func TestScoreDSwitchingRefused(t *testing.T) {
	c := policy.NewScoreD(1, policy.Gang)
	if _, err := sim.New(sim.Config{Procs: 8, ScoreD: &c, Power: &sim.Power{NodeSize: 2, Plan: true, BreakEven: 10}}); err == nil || !strings.Contains(err.Error(), "plan") {
		t.Errorf("plan: %v, want a refusal", err)
	}
	if _, err := sim.New(sim.Config{Procs: 8, ScoreD: &c, NodeEvents: []cluster.NodeEvent{nev(10, cluster.NodeDown, 0, 0)}, NodeSize: 1,
		Power: &sim.Power{NodeSize: 2, IdleTimeout: 10}}); err == nil || !strings.Contains(err.Error(), "node size") {
		t.Errorf("node events on nodes of 1 processor, power on nodes of 2: %v, want a refusal", err)
	}
}

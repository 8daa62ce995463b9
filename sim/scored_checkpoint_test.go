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

// TestScoreDCheckpointChain runs SCore-D configurations once without
// interruption, then as a chain of runs, each stopped at its first
// checkpoint and resumed from the saved state by a new engine: the records
// (in order) and the statistics must be the same. The configurations cover
// gang time sharing (the exact virtual clock), exclusive mode, priorities
// and preemption between queues, residence demotion, CPU-time kills,
// memory limits and scheduled queue state changes.
func TestScoreDCheckpointChain(t *testing.T) {
	const procs = 64
	queues := func(mode policy.QueueMode, preempt policy.PreemptMode) policy.ScoreD {
		c := policy.NewScoreD(3, mode)
		c.Preempt = preempt
		c.Queues[0].ResidenceSec = 1800
		c.Queues[1].MaxCPUSec = 20000
		return c
	}
	// Node failures and maintenance: the placed processors, the parked
	// ones and the schedule's progress are saved too.
	nodes := []cluster.NodeEvent{nev(3000, cluster.NodeDown, 0, 7), nev(6000, cluster.NodeDrain, 30, 33), nev(9000, cluster.NodeResume, 0, 7), nev(12000, cluster.NodeResume, 30, 33)}
	cases := []struct {
		name   string
		cfg    func() policy.ScoreD
		nodes  []cluster.NodeEvent
		onFail sim.NodeFailAction
		loop   bool
		holds  bool // every fifth job held after its submission
	}{
		{"gang-mpl4", func() policy.ScoreD { c := queues(policy.Gang, policy.PreemptSuspend); c.MPL = 4; return c }, nil, 0, false, false},
		{"gang-mpl3-switch", func() policy.ScoreD {
			c := queues(policy.Gang, policy.PreemptSuspend)
			c.MPL, c.QuantumMs, c.SwitchMs = 3, 70, 9
			return c
		}, nil, 0, false, false},
		{"exclusive-suspend", func() policy.ScoreD { return queues(policy.Exclusive, policy.PreemptSuspend) }, nil, 0, false, false},
		{"exclusive-requeue", func() policy.ScoreD { return queues(policy.Exclusive, policy.PreemptRequeue) }, nil, 0, false, false},
		{"gang-changes-memory", func() policy.ScoreD {
			c := queues(policy.Gang, policy.PreemptCancel)
			c.MemKB = 1 << 20
			c.Queues[2].MemPercent = 50
			c.Changes = []policy.QueueChange{{At: 20000, Queue: 1, State: policy.Deactivated}, {At: 60000, Queue: 1, State: policy.Activated}}
			return c
		}, nil, 0, false, false},
		{"gang-mpl3-nodes-kill", func() policy.ScoreD { c := queues(policy.Gang, policy.PreemptSuspend); c.MPL = 3; return c }, nodes, sim.NodeFailKill, false, false},
		{"mixed-nodes-requeue", func() policy.ScoreD {
			c := queues(policy.Gang, policy.PreemptRequeue)
			c.Queues[1].Mode = policy.Exclusive
			return c
		}, nodes, sim.NodeFailRequeue, false, false},
		// A closed loop: the jobs waiting for their preceding job and
		// the ends it knows are saved too.
		{"gang-closed-loop", func() policy.ScoreD { c := queues(policy.Gang, policy.PreemptSuspend); c.MPL = 3; return c }, nil, 0, true, false},
		{"mixed-closed-loop-nodes", func() policy.ScoreD {
			c := queues(policy.Gang, policy.PreemptRequeue)
			c.Queues[1].Mode = policy.Exclusive
			return c
		}, nodes, sim.NodeFailRequeue, true, false},
		// Held jobs (a Hold Until after the submission): those not yet
		// in their queues are saved too.
		{"exclusive-holds", func() policy.ScoreD { return queues(policy.Exclusive, policy.PreemptSuspend) }, nil, 0, false, true},
		{"gang-closed-loop-holds-nodes", func() policy.ScoreD { c := queues(policy.Gang, policy.PreemptRequeue); c.MPL = 3; return c }, nodes, sim.NodeFailRequeue, true, true},
	}
	seeds := uint64(simtest.Cases(3, 1))
	for _, tc := range cases {
		for seed := uint64(1); seed <= seeds; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", tc.name, seed), func(t *testing.T) {
				jobs := syntheticJobs(seed, 400, procs)
				for i := range jobs {
					jobs[i].Seq = int64(i)
					jobs[i].Queue = i % 3
					jobs[i].UsedMemKB = float64(i%5) * 1000
					if tc.loop && i%4 == 3 {
						jobs[i].PrecedingJob, jobs[i].ThinkTime = jobs[i-3].ID, 30
					}
					if tc.holds && i%5 == 0 {
						jobs[i].HoldUntil = jobs[i].Submit + workload.Time(i*37%7200)
					}
				}
				want := &simtest.Recorder{}
				eng, err := sim.NewScoreD(procs, tc.cfg())
				if err != nil {
					t.Fatal(err)
				}
				if err := eng.SetNodeEvents(tc.nodes, 1, tc.onFail); err != nil {
					t.Fatal(err)
				}
				eng.SetClosedLoop(tc.loop)
				wantStats, err := eng.Run(&simtest.Source{Jobs: jobs}, want)
				if err != nil {
					t.Fatal(err)
				}
				got := &simtest.Recorder{}
				resumes := simtest.RunResumed(t, jobs, got, wantStats, func(state []byte, stop func(workload.Time) error) (simtest.Checkpointer, error) {
					var e *sim.ScoreD
					var err error
					if state == nil {
						e, err = sim.NewScoreD(procs, tc.cfg())
					} else {
						e, err = sim.RestoreScoreD(procs, tc.cfg(), state)
					}
					if err != nil {
						return nil, err
					}
					if err := e.SetNodeEvents(tc.nodes, 1, tc.onFail); err != nil {
						return nil, err
					}
					e.SetClosedLoop(tc.loop)
					e.SetCheckpoints(3600, stop)
					return e, nil
				})
				var demoted, suspended, killed int
				for _, r := range want.Records {
					demoted += r.Demotions
					suspended += r.Suspensions
					if r.State != sim.Completed {
						killed++
					}
				}
				if demoted == 0 || suspended == 0 || killed == 0 {
					t.Fatalf("%d demotions, %d suspensions, %d jobs not completed: the test does not exercise SCore-D's rules", demoted, suspended, killed)
				}
				if tc.loop && wantStats.LoopDelayed == 0 {
					t.Fatal("no job delayed by the closed loop: the test does not exercise it")
				}
				if tc.nodes != nil && wantStats.NodeKilled+wantStats.Requeued == 0 {
					t.Fatal("no job hit by a node failure: the test does not exercise node events")
				}
				if resumes < 5 {
					t.Fatalf("only %d resumes: the test does not exercise checkpoints", resumes)
				}
				simtest.SameRecords(t, got.Records, want.Records, "after resuming")
			})
		}
	}
}

// A state saved for another SCore-D configuration is refused.
func TestScoreDRestoreRefusesOtherShape(t *testing.T) {
	e, err := sim.NewScoreD(64, policy.NewScoreD(3, policy.Gang))
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.RestoreScoreD(32, policy.NewScoreD(3, policy.Gang), b); err == nil {
		t.Error("a state of 64 processors restored on 32")
	}
	if _, err := sim.RestoreScoreD(64, policy.NewScoreD(2, policy.Gang), b); err == nil {
		t.Error("a state of 3 queues restored with 2")
	}
	if _, err := sim.RestoreScoreD(64, policy.NewScoreD(3, policy.Gang), b[:len(b)/2]); err == nil {
		t.Error("a truncated state restored")
	}
}

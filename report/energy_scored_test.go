package report

import (
	"math"
	"testing"

	"github.com/schedsim/schedsim/cluster/energy"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestEnergyScoreD meters runs of SCore-D's queues on two nodes of one
// core (100 W idle, 200 W busy), with no switch cost (q = 100 ms, s = 0:
// two non-empty rows each run at half speed). A processor held by any row
// of the matrix draws the busy power; one no row holds, the idle power.
// The energies were worked out by hand.
func TestEnergyScoreD(t *testing.T) {
	cfg := func(m policy.QueueMode, mpl int) policy.ScoreD {
		c := policy.NewScoreD(1, m)
		c.MPL, c.QuantumMs, c.SwitchMs = mpl, 100, 0
		return c
	}
	j := func(id int64, procs int, run workload.Time) workload.Job {
		return workload.Job{ID: id, Seq: id, Procs: procs, Run: run, Estimate: 1000}
	}
	cases := []struct {
		name      string
		cfg       policy.ScoreD
		jobs      []workload.Job
		joules    float64
		computing float64 // node-seconds
	}{
		{
			// Job 1 (2 processors) fills row 0, job 2 (1) opens row 1 on
			// processor 0: both run at half speed and end at 20. Processor
			// 0 is held by two rows, processor 1 by one: both busy 0..20,
			// 2·200·20 J (not 3 busy processors).
			name: "gang/time-shared processor counts once", cfg: cfg(policy.Gang, 2),
			jobs:   []workload.Job{j(1, 2, 10), j(2, 1, 10)},
			joules: 8000, computing: 40,
		},
		{
			// As above, job 2 runs 30: job 1 ends at 20 (10 s at half
			// speed); job 2, alone from 20, has 20 s left: it ends at 40.
			// Processor 0 busy 0..40, processor 1 busy 0..20 and idle
			// 20..40: 200·40 + 200·20 + 100·20.
			name: "gang/a row empties", cfg: cfg(policy.Gang, 2),
			jobs:   []workload.Job{j(1, 2, 10), j(2, 1, 30)},
			joules: 14000, computing: 60,
		},
		{
			// Exclusive: jobs of 1 processor for 10 and 30 s, side by side.
			// 200·10 + 100·20 + 200·30.
			name: "exclusive/space sharing", cfg: cfg(policy.Exclusive, 1),
			jobs:   []workload.Job{j(1, 1, 10), j(2, 1, 30)},
			joules: 10000, computing: 40,
		},
	}
	p := &energy.Platform{Groups: []energy.Group{{Name: "n", Nodes: 2, Cores: 1,
		PStates: []energy.PState{{IdleW: 100, EpsilonW: 100, AllCoresW: 200}}}}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			meter, err := NewEnergyRun(p, 2, 1, false)
			if err != nil {
				t.Fatal(err)
			}
			c := tc.cfg
			eng, err := sim.New(sim.Config{Procs: 2, ScoreD: &c, ScoreDBusy: meter.BusyRun})
			if err != nil {
				t.Fatal(err)
			}
			st, err := eng.Run(simtest.NewSource(tc.jobs), meter)
			if err != nil {
				t.Fatal(err)
			}
			s := meter.Finish(st.FirstEvent, st.LastEvent)
			if math.Abs(s.Joules-tc.joules) > 1e-6 || s.NodeSeconds["computing"] != tc.computing {
				t.Errorf("%g J, %g node-seconds computing; want %g J, %g", s.Joules, s.NodeSeconds["computing"], tc.joules, tc.computing)
			}
			if s.JobJoules != 0 {
				t.Errorf("jobs' energy %g J: a SCore-D job shares its processors in time, its consumed_energy is NA", s.JobJoules)
			}
		})
	}
}

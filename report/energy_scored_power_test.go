package report

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/cluster/energy"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestSwitchingScoreD switches the idle nodes of SCore-D's matrix off
// (--power-policy idle:T) and meters the run. Nodes of one core (100 W
// idle, 200 W busy; two-core nodes in the last case: one busy core
// 150 W) sleep at 10 W; a switch-off lasts 5 s at 50 W (250 J), a
// switch-on 10 s at 150 W (1500 J). Gang queues have q = 100 ms and s = 0
// (two non-empty rows each run at half speed) unless a case says
// otherwise. A node is idle while no row of the matrix holds a processor
// of it. The schedules, switches and energies were worked out by hand;
// each case's comment gives the sums.
func TestSwitchingScoreD(t *testing.T) {
	type run struct {
		id         int64
		start, end workload.Time
		alloc      string // the processors of the last stint
	}
	cfg := func(m policy.QueueMode, mpl int, s int64) policy.ScoreD {
		c := policy.NewScoreD(1, m)
		c.MPL, c.QuantumMs, c.SwitchMs = mpl, 100, s
		return c
	}
	j := func(id int64, submit workload.Time, procs int, run workload.Time) workload.Job {
		return workload.Job{ID: id, Seq: id, Submit: submit, Procs: procs, Run: run, Estimate: 1000}
	}
	cases := []struct {
		name     string
		cfg      policy.ScoreD
		cores    int // of each of the two nodes
		idle     workload.Time
		jobs     []workload.Job
		runs     []run
		switches []string // time:node:change (0 off, 1 asleep, 2 on, 3 awake)
		joules   float64
	}{
		{
			// Job 1 holds processor 0 in row 0; node 1, which no row
			// holds, is idle from 0 and switched off at 10 (asleep at
			// 15); node 0, held, stays on. Node 0: 200·100. Node 1:
			// 100·10 idle + 250 + 10·85 asleep.
			name: "gang/a node no row holds is switched off after T", cfg: cfg(policy.Gang, 2, 0), cores: 1, idle: 10,
			jobs:     []workload.Job{j(1, 0, 1, 100)},
			runs:     []run{{1, 0, 100, "0"}},
			switches: []string{"10:1:0", "15:1:1"},
			joules:   20000 + 1000 + 250 + 850,
		},
		{
			// As above; job 2 (2 processors) comes at 50: row 0 has
			// processor 1 asleep, row 1 only processor 0 on, so it waits
			// and wakes node 1 (on at 60). It opens row 1 on processors
			// 0-1 at 60: both jobs at half speed. Job 2 (10 s) ends at 80;
			// job 1, 60 s done at 60, 70 at 80, ends alone at 110. Node 1
			// idle from 80, off at 90, asleep at 95. Node 0: 200·110.
			// Node 1: 1000 idle + 250 + 10·35 + 1500 + 200·20 busy + 100·10
			// idle + 250 + 10·15.
			name: "gang/a waiting job wakes a node and waits for its switch-on", cfg: cfg(policy.Gang, 2, 0), cores: 1, idle: 10,
			jobs:     []workload.Job{j(1, 0, 1, 100), j(2, 50, 2, 10)},
			runs:     []run{{1, 0, 110, "0"}, {2, 60, 80, "0-1"}},
			switches: []string{"10:1:0", "15:1:1", "50:1:2", "60:1:3", "90:1:0", "95:1:1"},
			joules:   22000 + 1000 + 250 + 350 + 1500 + 4000 + 1000 + 250 + 150,
		},
		{
			// Job 1 (2 processors) fills row 0, job 2 (1) opens row 1 on
			// processor 0. Processor 1 is held by row 0 alone, so it is
			// busy, not idle, while row 1 takes its time slices: it is
			// not switched off before job 1 ends at 20 (10 s at half
			// speed), although T = 5. Idle from 20, off at 25, asleep at
			// 30; job 2 (30 s, 10 done at 20) ends alone at 40. Node 0:
			// 200·40. Node 1: 200·20 + 100·5 + 250 + 10·10.
			name: "gang/nothing is switched off while a row holds it", cfg: cfg(policy.Gang, 2, 0), cores: 1, idle: 5,
			jobs:     []workload.Job{j(1, 0, 2, 10), j(2, 0, 1, 30)},
			runs:     []run{{1, 0, 20, "0-1"}, {2, 0, 40, "0"}},
			switches: []string{"25:1:0", "30:1:1"},
			joules:   8000 + 4000 + 500 + 250 + 100,
		},
		{
			// As above with a switch cost of 10 ms: two rows run at
			// 100/220 of full speed, so job 1 (7 s) ends at 15.4 s, its
			// record and its processors' busy stretch at 16. Node 1 is
			// idle from 15.4 s, off at 20.4 s (logged at 21) and asleep
			// at 25.4 s (26); job 2 (30 s, 7 done) ends alone at 38.4 s
			// (39). The switches count from the millisecond the node was
			// left, rounded up to the second as the stretches are. Node 0:
			// 200·39. Node 1: 200·16 + 100·5 + 250 + 10·13.
			name: "gang/ends between seconds", cfg: cfg(policy.Gang, 2, 10), cores: 1, idle: 5,
			jobs:     []workload.Job{j(1, 0, 2, 7), j(2, 0, 1, 30)},
			runs:     []run{{1, 0, 16, "0-1"}, {2, 0, 39, "0"}},
			switches: []string{"21:1:0", "26:1:1"},
			joules:   7800 + 3200 + 500 + 250 + 130,
		},
		{
			// Exclusive: job 1 holds processor 0; node 1 is off at 10
			// (asleep 15). Job 2 (2 processors) comes at 50 and wakes it
			// (on at 60), then waits for job 1: node 1, on and idle from
			// 60, is kept on, since job 2 needs it (its timeout at 70
			// switches nothing). Job 2 runs 100-110. Node 0: 200·110.
			// Node 1: 1000 + 250 + 10·35 + 1500 + 100·40 idle + 200·10.
			name: "exclusive/a node the queue needs stays on", cfg: cfg(policy.Exclusive, 1, 0), cores: 1, idle: 10,
			jobs:     []workload.Job{j(1, 0, 1, 100), j(2, 50, 2, 10)},
			runs:     []run{{1, 0, 100, "0"}, {2, 100, 110, "0-1"}},
			switches: []string{"10:1:0", "15:1:1", "50:1:2", "60:1:3"},
			joules:   22000 + 1000 + 250 + 350 + 1500 + 4000 + 2000,
		},
		{
			// Two nodes of two cores. Job 1 (1 processor, 30 s) holds
			// processor 0: node 1 is off at 10 (asleep 15), node 0 at 40
			// (asleep 45) once job 1 has ended. Job 2 (3 processors)
			// comes at 100 and wakes both, lowest first; it runs 110-120
			// on processors 0-2. Node 0: 150·30 one core + 100·10 + 250 +
			// 10·55 + 1500 + 200·10 two cores. Node 1: 1000 + 250 +
			// 10·85 + 1500 + 150·10 one core.
			name: "exclusive/nodes of two cores all asleep, woken for a job", cfg: cfg(policy.Exclusive, 1, 0), cores: 2, idle: 10,
			jobs:     []workload.Job{j(1, 0, 1, 30), j(2, 100, 3, 10)},
			runs:     []run{{1, 0, 30, "0"}, {2, 110, 120, "0-2"}},
			switches: []string{"10:1:0", "15:1:1", "40:0:0", "45:0:1", "100:0:2", "110:0:3", "100:1:2", "110:1:3"},
			joules:   4500 + 1000 + 250 + 550 + 1500 + 2000 + 1000 + 250 + 850 + 1500 + 1500,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &energy.Platform{Groups: []energy.Group{{Name: "n", Nodes: 2, Cores: tc.cores,
				PStates: []energy.PState{{IdleW: 100, EpsilonW: 100, AllCoresW: 200}, {IdleW: 10, EpsilonW: 10, AllCoresW: 10}},
				Sleep:   []energy.SleepState{{PState: 1, Off: energy.Transition{Sec: 5, W: 50}, On: energy.Transition{Sec: 10, W: 150}, OffPState: -1, OnPState: -1}}}}}
			procs := 2 * tc.cores
			meter, err := NewEnergyRun(p, procs, 1, false)
			if err != nil {
				t.Fatal(err)
			}
			var switches []string
			pw := &sim.Power{NodeSize: tc.cores, IdleTimeout: tc.idle, SwitchOff: 5, SwitchOn: 10,
				Log: func(at workload.Time, n int, c sim.PowerChange) {
					switches = append(switches, fmt.Sprintf("%d:%d:%d", at, n, c))
					meter.Switch(at, n, c)
				}}
			c := tc.cfg
			eng, err := sim.New(sim.Config{Procs: procs, ScoreD: &c, ScoreDBusy: meter.BusyRun, Power: pw})
			if err != nil {
				t.Fatal(err)
			}
			col := &sim.Collector{}
			st, err := eng.Run(simtest.NewSource(tc.jobs), Observers{meter, col})
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.runs {
				k := slices.IndexFunc(col.Outcomes, func(o sim.Outcome) bool { return o.Job.ID == want.id })
				if k < 0 {
					t.Fatalf("job %d has no record", want.id)
				}
				o := col.Outcomes[k]
				if got := string(cluster.FormatRanges(nil, o.Alloc)); o.Start != want.start || o.End != want.end || got != want.alloc {
					t.Errorf("job %d ran %d–%d on %s, want %d–%d on %s", want.id, o.Start, o.End, got, want.start, want.end, want.alloc)
				}
			}
			if !slices.Equal(switches, tc.switches) {
				t.Errorf("switches %v, want %v", switches, tc.switches)
			}
			s := meter.Finish(st.FirstEvent, st.LastEvent)
			if math.Abs(s.Joules-tc.joules) > 1e-6 {
				t.Errorf("%g J, want %g", s.Joules, tc.joules)
			}
		})
	}
}

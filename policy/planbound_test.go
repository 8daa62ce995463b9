package policy_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestPlanBoundsExact: under reservations and start windows conservative
// backfilling plans every job anew at most passes, and Slurm's backfill
// every job it tests at every cycle; each job's walk through the calendar
// may begin at the start of a job of its class planned before it that
// asked no more (planBounds). On random deep queues, with a partial
// daily reservation, one for an account and a start window, on clusters
// of two node groups (whole nodes or shared) and on a pool with and
// without a scheduler cycle, the records are those of a run that walks
// every plan from now. (sim's TestCalendarSpansMatchWalk compares them
// with runs that keep no answer of the calendar's at all.) The engine
// checks the head's promise under Slurm's backfill; seed 25 of the full
// run broke it when a job a cycle started between two multiples of
// bf_resolution was planned to end before its end rounded up, which is
// how the next cycle saw it (a start window then moved the head's
// start by four hours).
func TestPlanBoundsExact(t *testing.T) {
	n := simtest.Cases(300, 40)
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 0xb0d))
		var spec *cluster.Spec
		procs := 8 + r.IntN(56)
		if seed%2 == 0 {
			sel := []string{cluster.SelectLinear, cluster.SelectConsRes}[r.IntN(2)]
			spec = &cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{
				{Name: "a", Count: 1 + r.IntN(8), Cores: 1 + r.IntN(4)},
				{Name: "b", Count: 1 + r.IntN(8), Cores: 1 + r.IntN(4)}}}
			procs = spec.Cores()
		}
		// A deep queue: jobs arrive faster than the machine runs them,
		// most ending before their requested time.
		jobs := make([]workload.Job, 60+r.IntN(140))
		var at workload.Time
		for i := range jobs {
			at += workload.Time(r.IntN(300))
			run := workload.Time(1 + r.IntN(7200))
			est := run + workload.Time(r.IntN(7200))
			jobs[i] = simtest.Job(int64(i+1), at, 1+r.IntN(procs), run, est)
		}
		cycle := workload.Time(0)
		if spec == nil && seed%4 == 1 {
			cycle = workload.Time(30 + r.IntN(600))
		}
		for i := range jobs {
			jobs[i].Seq, jobs[i].Group = int64(i), i%3
		}
		partAt := 3600 + workload.Time(r.IntN(3600))
		slurmSeed := seed%3 == 1
		// On half the clusters a reservation holds named nodes (Slurm's
		// Nodes=): a run that overlaps an occurrence loses those nodes'
		// idle processors, as the running jobs on them leave them.
		nodeResv := spec != nil && seed%4 == 0
		nodeHi, nodeMaint := 1, r.IntN(2) == 0
		if nodeResv {
			nodeHi += r.IntN(spec.Nodes())
		}
		calendar := func() *sim.Constraints {
			c := &sim.Constraints{
				Calendar: workload.Calendar{Loc: time.UTC},
				Reservations: []sim.Reservation{
					{Name: "part", Start: partAt, Duration: 1800, Recur: sim.RecurDaily, Until: workload.Forever, Procs: procs / 2, Maint: true},
					{Name: "acct1", Start: 20000, Duration: 8000, Until: workload.Forever, Procs: procs / 3, Accounts: []int{1}},
				},
				Windows: []sim.StartWindow{{Partition: -1, Queue: -1, Days: 0b1111111, From: 8 * 3600, To: 12 * 3600, MaxWall: 3600}},
			}
			if nodeResv {
				n := sim.Reservation{Name: "nodes", Start: 9000, Duration: 5400, Recur: sim.RecurDaily, Until: workload.Forever, Nodes: []cluster.Range{{Lo: 0, Hi: nodeHi}}, Maint: nodeMaint}
				if !nodeMaint {
					n.Accounts = []int{2}
				}
				c.Reservations = append(c.Reservations, n)
			}
			return c
		}
		newPolicy := func() policy.Policy { return &policy.Conservative{} }
		if interval := 1 + workload.Time(r.IntN(60)); slurmSeed {
			// Slurm's backfill cycle, on processor counts (on nodes, the
			// plan on processor counts: bf-plan procs).
			newPolicy = func() policy.Policy {
				s, err := policy.NewSlurm(policy.SlurmParams{Interval: interval, PlanProcs: true, MaxJobTest: -1})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
		}
		// Conservative backfilling without a calendar plans anew on nodes
		// at the passes after ends, and on a pool under a scheduler cycle
		// at those after a missed end or planned start (then its plan is
		// kept incrementally); it keeps its plans after submissions alone.
		bare := !slurmSeed && seed%5 == 0
		run := func(bound bool) string {
			defer func() {
				if e := recover(); e != nil {
					t.Fatalf("seed %d (%d jobs, nodes %v, cycle %d, calendar %v, bounds %v): %v", seed, len(jobs), spec != nil, cycle, !bare, bound, e)
				}
			}()
			c := newPolicy()
			if !bound {
				policy.NoPlanBound(c)
			}
			cfg := sim.Config{Procs: procs, Policy: c, SchedInterval: cycle, Constraints: calendar()}
			if bare {
				cfg.Constraints = nil
			}
			var rec *simtest.Recorder
			if spec != nil {
				rec, _, _ = simtest.RunNodes(t, spec, cfg, jobs)
			} else {
				rec, _ = simtest.Run(t, cfg, jobs)
			}
			return simtest.Format(rec.Records)
		}
		if got, want := run(true), run(false); got != want {
			t.Fatalf("seed %d (%d jobs, nodes %v, cycle %d, calendar %v): the bounded plans differ from the walks from now:\n%s", seed, len(jobs), spec != nil, cycle, !bare, simtest.FirstDiff(got, want))
		}
	}
}

// TestConservativeCycleKeepsPlans: under a scheduler cycle on a pool,
// conservative backfilling without a calendar plans anew at a pass after
// a missed end (or planned start) and keeps that plan incrementally at the
// passes after; a later pass that plans anew may keep the plans the last
// such pass made only if no incremental pass changed them since. On 10
// processors with passes every 100 s: jobs 1 (2 processors, ends at 50,
// asked 1000) and 2 (8, 200 s as asked) start at 0. The pass at 100,
// after job 1's early end, plans anew: job 3 (10 processors, asked 1000,
// runs 10) at 200, job 4 (10, 100 s) at 1200, and starts nothing. At 200
// job 2 ends as planned and job 3 starts (an incremental pass); it ends
// at 210, and the pass at 300 plans anew: the running jobs' profile is
// the one the pass at 100 saw from 300 on, but job 4's plan is stale, and
// it starts at 300, not 1200.
func TestConservativeCycleKeepsPlans(t *testing.T) {
	jobs := []workload.Job{
		simtest.Job(1, 0, 2, 50, 1000),
		simtest.Job(2, 0, 8, 200, 200),
		simtest.Job(3, 1, 10, 10, 1000),
		simtest.Job(4, 1, 10, 100, 100),
	}
	rec, _ := simtest.Run(t, sim.Config{Procs: 10, Policy: &policy.Conservative{}, SchedInterval: 100}, jobs)
	want := map[int64]workload.Time{1: 0, 2: 0, 3: 200, 4: 300}
	for _, r := range rec.Records {
		if r.Start != want[r.Job.ID] {
			t.Errorf("job %d started at %d, want %d", r.Job.ID, r.Start, want[r.Job.ID])
		}
	}
}

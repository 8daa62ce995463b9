package policy_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestConservativePlanBoundsExact: conservative backfilling plans anew
// at every pass on a cluster of nodes and under a scheduler cycle, where
// each job's walk may begin at the start of a job planned before it that
// asked no more (planBounds). On random deep queues, on clusters of two
// node groups (whole nodes or shared) and on a pool under a cycle, the
// records are those of a run that walks every plan from now. (Under
// reservations and start windows sim's TestCalendarSpansMatchWalk compares
// them with a run that keeps no bound.)
func TestConservativePlanBoundsExact(t *testing.T) {
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
		if spec == nil {
			cycle = workload.Time(30 + r.IntN(600))
		}
		run := func(bound bool) string {
			c := &policy.Conservative{}
			if !bound {
				policy.NoPlanBound(c)
			}
			cfg := sim.Config{Procs: procs, Policy: c, SchedInterval: cycle}
			var rec *simtest.Recorder
			if spec != nil {
				rec, _, _ = simtest.RunNodes(t, spec, cfg, jobs)
			} else {
				rec, _ = simtest.Run(t, cfg, jobs)
			}
			return simtest.Format(rec.Records)
		}
		if got, want := run(true), run(false); got != want {
			t.Fatalf("seed %d (%d jobs, nodes %v, cycle %d): the bounded plans differ from the walks from now:\n%s", seed, len(jobs), spec != nil, cycle, simtest.FirstDiff(got, want))
		}
	}
}

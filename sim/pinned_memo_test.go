package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestPinnedMatchWalk: on clusters of nodes with reservations that hold
// named nodes (a daily maintenance of some nodes, a one-off reservation
// of others for one account), under every policy, with a third of the
// jobs without a requested time (planned over 400 days, every
// occurrence), a run gives the same records, pending reasons and
// statistics as one that marks the reservations' nodes and counts the
// running jobs on them anew at every question (sim.SlowCalendar): the
// marks kept per set of reservations and the running jobs on them kept
// while the running jobs are the same change no answer.
func TestPinnedMatchWalk(t *testing.T) {
	specs := []*cluster.Spec{
		{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "a", Count: 6, Cores: 4}, {Name: "b", Count: 4, Cores: 2}}},
		{Select: cluster.SelectConsRes, Groups: []cluster.NodeGroup{{Name: "a", Count: 8, Cores: 2}, {Name: "b", Count: 3, Cores: 4}}},
	}
	c := func() *sim.Constraints {
		return &sim.Constraints{
			Calendar: workload.Calendar{Loc: time.UTC},
			Reservations: []sim.Reservation{
				{Name: "nightly", Start: 2 * 3600, Duration: 5400, Recur: sim.RecurDaily, Until: workload.Forever, Procs: 8, Nodes: []cluster.Range{{Lo: 0, Hi: 2}}, Maint: true},
				{Name: "acct1", Start: 30000, Duration: 20000, Until: workload.Forever, Procs: 6, Nodes: []cluster.Range{{Lo: 7, Hi: 9}}, Accounts: []int{1}},
			},
		}
	}
	// 150 jobs catch a kept answer that outlives its running jobs under
	// EASY; conservative backfilling and Slurm's backfill plan every job
	// at every pass, and the walks take seconds beyond 50.
	n := 150
	for si, spec := range specs {
		for _, pc := range simtest.Policies(t) {
			t.Run(fmt.Sprintf("%s/%s", spec.Select, pc.Name), func(t *testing.T) {
				n := n
				if pc.Name == "conservative" || pc.Name == "slurm" {
					n = 50
				}
				jobs := unlimitedJobs(uint64(5+si), n, spec.Cores()/2)
				sameAsWalk(t, "the kept marks", func() sim.Config {
					al, err := spec.NewAllocator()
					if err != nil {
						t.Fatal(err)
					}
					return sim.Config{Policy: pc.New(), Allocator: al, Constraints: c()}
				}, jobs)
			})
		}
	}
}

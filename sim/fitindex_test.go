package sim_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// plainView hides the engine's ArrivalOrder, so EASY walks the queue
// instead of using its index.
type plainView struct{ policy.View }

type walkOnly struct{ policy.Policy }

func (w walkOnly) Schedule(v policy.View, d policy.Decisions) { w.Policy.Schedule(plainView{v}, d) }

// EASY with its backfill index starts exactly the jobs the plain walk over
// the window starts, on seeded workloads from light load to overload (queues
// of hundreds of jobs), with and without estimates (some beyond 68 years),
// for several lookaheads.
func TestEASYIndexEqualsWalk(t *testing.T) {
	cases := simtest.Cases(200, 30)
	for seed := uint64(1); seed <= uint64(cases); seed++ {
		r := rand.New(rand.NewPCG(seed, 0xfa57))
		procs := 4 + r.IntN(60)
		n := 100 + r.IntN(1400) // long queues: EASY switches to its index past 128 jobs
		gap := 1 + r.IntN(30)   // small gaps: overload and long queues
		jobs := make([]workload.Job, n)
		var t0 workload.Time
		for i := range jobs {
			t0 += workload.Time(r.IntN(gap))
			run := workload.Time(1 + r.IntN(200))
			est := run + workload.Time(r.IntN(100)) - 20
			if r.IntN(12) == 0 {
				est = workload.Unknown
			} else if seed%3 == 0 && r.IntN(10) == 0 {
				// Estimates beyond 68 years: the index clamps them
				// to 32 bits, and the shadows they cause too.
				est = math.MaxInt32 - 2 + workload.Time(r.IntN(1e6))
			} else if est < 1 {
				est = 1
			}
			jobs[i] = job(int64(i+1), t0, 1+r.IntN(procs+procs/4), run, est)
		}
		for _, la := range []int{1, 7, 40, policy.LookaheadAll} {
			fast := runCollect(t, procs, &policy.EASY{Lookahead: la}, jobs)
			slow := runCollect(t, procs, walkOnly{&policy.EASY{Lookahead: la}}, jobs)
			for i := range fast.Outcomes {
				a, b := fast.Outcomes[i], slow.Outcomes[i]
				if a.Job.ID != b.Job.ID || a.Start != b.Start {
					t.Fatalf("seed %d, lookahead %d: record %d: indexed job %d at %d, walk job %d at %d",
						seed, la, i, a.Job.ID, a.Start, b.Job.ID, b.Start)
				}
			}
		}
	}
}

package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// shadowCheck is a policy that, before every pass of its inner policy,
// compares the engine's own shadow computation with policy.ShadowOver's
// over the View, for several processor counts.
type shadowCheck struct {
	policy.Policy
	t      *testing.T
	checks int
}

func (c *shadowCheck) Schedule(v policy.View, d policy.Decisions) {
	sv, ok := v.(interface {
		ShadowOf(procs int, unknownEndsNow bool) (workload.Time, int)
	})
	if !ok {
		c.t.Fatal("the engine's View has no ShadowOf")
	}
	capacity := v.Capacity()
	for _, p := range []int{0, 1, 2, 3, capacity / 3, capacity / 2, capacity - 1, capacity, capacity + 1} {
		for _, unknown := range []bool{false, true} {
			at, extra := sv.ShadowOf(p, unknown)
			wantAt, wantExtra := policy.ShadowOver(v, p, unknown)
			if at != wantAt || extra != wantExtra {
				c.t.Fatalf("at %d, %d running, %d free: ShadowOf(%d, %v) = (%d, %d), ShadowOver = (%d, %d)",
					v.Now(), v.NumRunning(), v.Free(), p, unknown, at, extra, wantAt, wantExtra)
			}
			c.checks++
		}
	}
	c.Policy.Schedule(v, d)
}

// The engine's ShadowOf, which EASY's passes use, equals the definition
// over the View (policy.ShadowOver) at every pass of seeded workloads:
// light load to overload, ties in predicted ends, jobs without an estimate
// (predicted ends at Forever, for EarliestPossible), underestimates.
func TestShadowOfEqualsShadowOver(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x5ad0))
		procs := 2 + r.IntN(64)
		jobs := make([]workload.Job, 200+r.IntN(300))
		var t0 workload.Time
		for i := range jobs {
			t0 += workload.Time(r.IntN(1 + r.IntN(40)))
			run := workload.Time(1 + r.IntN(100))
			est := workload.Time(10 * (1 + r.IntN(12))) // coarse: equal predicted ends
			switch r.IntN(10) {
			case 0:
				est = workload.Unknown
			case 1:
				est = run // exact
			}
			jobs[i] = job(int64(i+1), t0, 1+r.IntN(procs), run, est)
		}
		c := &shadowCheck{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, t: t}
		runCollect(t, procs, c, jobs)
		if c.checks == 0 {
			t.Fatalf("seed %d: no pass checked", seed)
		}
	}
}

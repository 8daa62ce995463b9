package sim_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestVerifyTierOrder: verify's check of the priority tiers, on hand-made
// schedules of a 4-processor machine (job: submit, processors, run =
// requested time, tier):
//
//	1: 0, 4, 10, tier 1     3: 2, 2, 10, tier 2     5: 4, 2, 10, tier 1
//	2: 1, 2, 10 (asks 12), tier 1                   4: 3, 4, 5, tier 2
//
// The ranked queue at 10 is 3, 4, 2, 5. FCFS: 3 at 10, 4 at 20, 2 and 5
// at 25. EASY: 4 is reserved at 20 (3 ends then), 5 ends by 20 and is
// backfilled at 10, 2 (asks 12) is not. Starting 2 with 3 at 10 (the
// order without tiers) breaks FCFS's rule, not EASY's (4 still starts at
// 20); starting 2 at 20 and 4 at 30 breaks EASY's promise to 4.
func TestVerifyTierOrder(t *testing.T) {
	base := func(starts string, tiers map[int64]int) []sim.Outcome {
		jobs := []workload.Job{job(1, 0, 4, 10, 10), job(2, 1, 2, 10, 12), job(3, 2, 2, 10, 10), job(4, 3, 4, 5, 5), job(5, 4, 2, 10, 10)}
		tier := map[int64]int{1: 1, 2: 1, 3: 2, 4: 2, 5: 1}
		for id, t := range tiers {
			tier[id] = t
		}
		var outs []sim.Outcome
		at := map[int64]workload.Time{}
		for _, f := range strings.Fields(starts) {
			var id, s int64
			fmt.Sscanf(f, "%d:%d", &id, &s)
			at[id] = workload.Time(s)
		}
		used := map[workload.Time]int{}
		for k, j := range jobs {
			j.Seq = int64(k)
			o := sim.Outcome{Job: j, PriorityTier: tier[j.ID], HasPriorityTier: true}
			s, ok := at[j.ID]
			if !ok {
				o.State, o.Start, o.End = sim.Pending, j.Submit, j.Submit
			} else {
				o.State, o.Start, o.End = sim.Completed, s, s+j.Run
				lo := used[s] // processors taken at the same instant, else from 0
				if j.Procs == 4 {
					lo = 0
				}
				o.Alloc = []cluster.Range{{Lo: lo, Hi: lo + j.Procs}}
				used[s] = (lo + j.Procs) % 4
			}
			outs = append(outs, o)
		}
		return outs
	}
	strict := sim.TierOrderStrict | sim.TierFCFS
	head := sim.TierOrderHead | sim.TierFCFS
	tests := []struct {
		name   string
		starts string
		tiers  map[int64]int
		order  sim.TierOrder
		limit  bool     // a limit applies to user 9, job 4's
		want   []string // the violations' beginnings, in order
		holds  map[int64]workload.Time
	}{
		{"fcfs", "1:0 3:10 4:20 2:25 5:25", nil, strict, false, nil, nil},
		{"fcfs: a lower tier first", "1:0 2:10 3:10 4:20 5:25", nil, strict, false, []string{"job 2: tier-order: started at 10 while job 4 of tier 2 (above its tier 1) waited"}, nil},
		{"fcfs: a limit may hold the higher tier", "1:0 2:10 3:10 4:20 5:25", nil, strict, true, nil, nil},
		{"fcfs: the same tier out of order", "1:0 3:10 4:20 5:25 2:35", map[int64]int{}, strict, false, []string{"job 5: tier-order: started at 25 while job 2 of its tier 1 (submitted earlier) waited"}, nil},
		{"sjf within tiers: the same tier out of order", "1:0 3:10 4:20 5:25 2:35", nil, sim.TierOrderStrict, false, nil, nil},
		{"fcfs: a higher tier never started", "1:0 3:10 2:25 5:25", nil, strict, false, []string{"job 2: tier-order: started at 25 while job 4 of tier 2 (above its tier 1) waited: submitted at 3, never started", "job 5: tier-order"}, nil},
		{"easy", "1:0 3:10 5:10 4:20 2:25", nil, head, false, nil, nil},
		{"easy: a lower tier backfilled, not delaying", "1:0 2:10 3:10 4:20 5:25", nil, head, false, nil, nil},
		{"easy: the head delayed", "1:0 3:10 5:10 2:20 4:30", nil, head, false, []string{"job 4: tier-head-reservation: the head of the ranked queue (tier 2) from 10 with a reservation at 20, started at 30"}, nil},
		{"easy: the head delayed, the order as fcfs's", "1:0 3:10 5:10 2:20 4:30", nil, strict, false, []string{"job 5: tier-order: started at 10 while job 4", "job 2: tier-order: started at 20 while job 4"}, nil},
		// 2 is the head from 1, reserved at 10, in both: 3 and 4 arrive
		// and go first. Of a higher tier (the "easy" case) they void
		// its reservation; of its own, they broke it.
		{"easy: the head overtaken by its own tier", "1:0 3:10 5:10 4:20 2:25", map[int64]int{3: 1, 4: 1}, head, false, []string{"job 2: tier-head-reservation: the head of the ranked queue (tier 1) from 1 with a reservation at 10, started at 25"}, nil},
		// Hold Until: a held job joins the queue when its hold ends. Job
		// 4, held until 20, is the head from 20, when job 2 holds 2
		// processors until 32 by its estimate; held until 5, it is the
		// head from 10, as without a hold.
		{"fcfs: a higher tier held", "1:0 2:10 3:10 4:20 5:25", nil, strict, false, nil, map[int64]workload.Time{4: 15}},
		{"easy: the head held", "1:0 3:10 5:10 2:20 4:30", nil, head, false, nil, map[int64]workload.Time{4: 20}},
		{"easy: the head held, delayed", "1:0 3:10 5:10 2:20 4:30", nil, head, false, []string{"job 4: tier-head-reservation: the head of the ranked queue (tier 2) from 10 with a reservation at 20, started at 30"}, map[int64]workload.Time{4: 5}},
		{"fcfs: a higher tier held until then", "1:0 2:10 3:10 4:20 5:25", nil, strict, false, []string{"job 2: tier-order: started at 10 while job 4 of tier 2 (above its tier 1) waited"}, map[int64]workload.Time{4: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			outs := base(tc.starts, tc.tiers)
			for i := range outs {
				outs[i].Job.HoldUntil = tc.holds[outs[i].Job.ID]
				outs[i].Job.User = 1
				if outs[i].Job.ID == 4 {
					outs[i].Job.User = 9
				}
			}
			opts := sim.VerifyOptions{TierOrder: tc.order}
			if tc.limit {
				opts.Constraints = &sim.Constraints{Limits: []sim.Limit{{Users: []int{9}, MaxJobsPerUser: 1}}}
			}
			var got []string
			for _, v := range sim.Verify(4, outs, opts) {
				if strings.HasPrefix(v.Rule, "tier") {
					got = append(got, v.Error())
				}
			}
			ok := len(got) == len(tc.want)
			for k := 0; ok && k < len(got); k++ {
				ok = strings.HasPrefix(got[k], tc.want[k])
			}
			if !ok {
				t.Errorf("violations %q, want %q", got, tc.want)
			}
		})
	}
}

// TestVerifyTiersHeldRandom: FCFS and EASY ranking their queue by tier
// (submission order within a tier), on seeded random workloads in which
// one job in four is held after its submission: the order checks find
// nothing, though held jobs of a higher tier are passed while held.
func TestVerifyTiersHeldRandom(t *testing.T) {
	tierOf := func(j *workload.Job) int { return j.Queue }
	for seed := uint64(1); seed <= uint64(simtest.Cases(3000, 300)); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x71e5))
		procs := 1 + r.IntN(12)
		jobs := make([]workload.Job, 1+r.IntN(25))
		var at workload.Time
		for i := range jobs {
			at += workload.Time(r.IntN(20))
			run := workload.Time(1 + r.IntN(50))
			jobs[i] = job(int64(i+1), at, 1+r.IntN(procs), run, run+workload.Time(r.IntN(30)))
			jobs[i].Queue = r.IntN(3)
			if r.IntN(4) == 0 {
				jobs[i].HoldUntil = at + 1 + workload.Time(r.IntN(100))
			}
		}
		for _, tc := range []struct {
			p     policy.Policy
			order sim.TierOrder
		}{
			{policy.FCFS{}, sim.TierOrderStrict | sim.TierFCFS},
			{&policy.EASY{Lookahead: policy.LookaheadAll}, sim.TierOrderHead | sim.TierFCFS},
		} {
			c := runCollect(t, procs, policy.WithTiers(tc.p, tierOf), jobs)
			for i := range c.Outcomes {
				o := &c.Outcomes[i]
				o.PriorityTier, o.HasPriorityTier = tierOf(&o.Job), true
			}
			if vs := sim.Verify(procs, c.Outcomes, sim.VerifyOptions{TierOrder: tc.order}); len(vs) > 0 {
				t.Fatalf("seed %d, %s on %d processors: %v", seed, tc.p.Name(), procs, vs)
			}
		}
	}
}

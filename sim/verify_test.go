package sim_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// verifyOpts is what Verify can check for a policy.
func verifyOpts(p policy.Policy) sim.VerifyOptions {
	switch p.(type) {
	case policy.FCFS:
		return sim.VerifyOptions{FCFS: true, HeadReservation: true}
	case *policy.EASY, *policy.Depth:
		return sim.VerifyOptions{HeadReservation: true}
	}
	return sim.VerifyOptions{}
}

func runCollect(t testing.TB, procs int, p policy.Policy, jobs []workload.Job) *sim.Collector {
	t.Helper()
	eng, err := sim.New(sim.Config{Procs: procs, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	c := &sim.Collector{}
	if _, err := eng.Run(simtest.NewSource(jobs), c); err != nil {
		t.Fatal(err)
	}
	return c
}

// Seeded random workloads under every policy, half of them with held jobs:
// the checker finds nothing.
func TestVerifyRandom(t *testing.T) {
	cases := simtest.Cases(10000, 1000)
	for seed := uint64(1); seed <= uint64(cases); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x7e51f))
		procs := 1 + r.IntN(16)
		n := 1 + r.IntN(30)
		jobs := make([]workload.Job, n)
		var t0 workload.Time
		for i := range jobs {
			t0 += workload.Time(r.IntN(20))
			run := workload.Time(1 + r.IntN(50))
			est := run + workload.Time(r.IntN(40)) - 10
			if r.IntN(10) == 0 {
				est = workload.Unknown
			} else if est < 1 {
				est = 1
			}
			jobs[i] = job(int64(i+1), t0, 1+r.IntN(procs+2), run, est)
		}
		if seed%2 == 0 {
			// Hold Until: one job in four is held after its submission,
			// and joins the queue at its submission's place when its hold
			// ends (the checks follow it there).
			rh := rand.New(rand.NewPCG(seed, 0x401d))
			for i := range jobs {
				if rh.IntN(4) == 0 {
					jobs[i].HoldUntil = jobs[i].Submit + 1 + workload.Time(rh.IntN(100))
				}
			}
		}
		pols := []policy.Policy{policy.FCFS{}, &policy.EASY{Lookahead: policy.LookaheadAll}, &policy.EASY{Lookahead: 1},
			&policy.Depth{Depth: 3, Lookahead: policy.LookaheadAll}, &policy.Conservative{}}
		for _, p := range pols {
			c := runCollect(t, procs, p, jobs)
			if len(c.Outcomes) != n {
				t.Fatalf("seed %d, %s: %d outcomes for %d jobs", seed, p.Name(), len(c.Outcomes), n)
			}
			if vs := sim.Verify(procs, c.Outcomes, verifyOpts(p)); len(vs) > 0 {
				t.Fatalf("seed %d, %s on %d processors: %v", seed, p.Name(), procs, vs)
			}
		}
	}
}

// The checker catches each kind of broken schedule.
func TestVerifyCatches(t *testing.T) {
	base := func() []sim.Outcome {
		return []sim.Outcome{
			{Job: job(1, 0, 2, 10, 10), Start: 0, End: 10, Alloc: []cluster.Range{{Lo: 0, Hi: 2}}},
			{Job: job(2, 0, 4, 10, 20), Start: 10, End: 20, Alloc: []cluster.Range{{Lo: 0, Hi: 4}}},
			{Job: job(3, 1, 2, 5, 5), Start: 1, End: 6, Alloc: []cluster.Range{{Lo: 2, Hi: 4}}},
		}
	}
	seq := func(o []sim.Outcome) []sim.Outcome {
		for i := range o {
			o[i].Job.Seq = int64(i)
		}
		return o
	}
	tests := []struct {
		name   string
		mutate func([]sim.Outcome) []sim.Outcome
		opts   sim.VerifyOptions
		rule   string
	}{
		{"valid EASY schedule", func(o []sim.Outcome) []sim.Outcome { return o }, sim.VerifyOptions{HeadReservation: true}, ""},
		{"overlap", func(o []sim.Outcome) []sim.Outcome { o[2].Alloc = []cluster.Range{{Lo: 1, Hi: 3}}; return o }, sim.VerifyOptions{}, "overlap"},
		{"start before submit", func(o []sim.Outcome) []sim.Outcome { o[2].Start, o[2].End = 0, 5; return o }, sim.VerifyOptions{}, "start-before-submit"},
		{"wrong end", func(o []sim.Outcome) []sim.Outcome { o[1].End = 19; return o }, sim.VerifyOptions{}, "end"},
		{"alloc size", func(o []sim.Outcome) []sim.Outcome { o[0].Alloc = []cluster.Range{{Lo: 0, Hi: 1}}; return o }, sim.VerifyOptions{}, "alloc-size"},
		{"outside machine", func(o []sim.Outcome) []sim.Outcome { o[2].Alloc = []cluster.Range{{Lo: 4, Hi: 6}}; return o }, sim.VerifyOptions{}, "alloc-range"},
		{"fcfs overtaken", func(o []sim.Outcome) []sim.Outcome { return o }, sim.VerifyOptions{FCFS: true}, "fcfs-order"},
		{"rejected although it fits", func(o []sim.Outcome) []sim.Outcome { o[2].State = sim.Rejected; return o }, sim.VerifyOptions{}, "rejected-fits"},
		{"killed state wrong", func(o []sim.Outcome) []sim.Outcome { o[0].State = sim.Killed; return o }, sim.VerifyOptions{}, "state"},
		{"head delayed", func(o []sim.Outcome) []sim.Outcome {
			// Job 2 became head at 0 with a reservation at 10 (job 1's
			// estimate); a backfilled job 3 running to 15 delays it to 15.
			o[2].Job = job(3, 1, 2, 14, 14)
			o[2].Start, o[2].End = 1, 15
			o[1].Start, o[1].End = 15, 25
			return o
		}, sim.VerifyOptions{HeadReservation: true}, "head-reservation"},
		// Hold Until: a held job joins the queue at the end of its hold,
		// at its submission's place.
		{"held job passed before its hold ends (FCFS)", func(o []sim.Outcome) []sim.Outcome {
			o[1].Job.HoldUntil = 10 // job 3 started at 1, while job 2 was held
			return o
		}, sim.VerifyOptions{FCFS: true}, ""},
		{"held job passed after its hold ended (FCFS)", func(o []sim.Outcome) []sim.Outcome {
			o[1].Job.HoldUntil = 1 // queued at 1, ahead of job 3, which started then
			return o
		}, sim.VerifyOptions{FCFS: true}, "fcfs-order"},
		{"start before hold", func(o []sim.Outcome) []sim.Outcome { o[1].Job.HoldUntil = 12; return o }, sim.VerifyOptions{}, "start-before-hold"},
		{"held head backfilled before its hold ended", func(o []sim.Outcome) []sim.Outcome {
			// Job 2 is held until 5: job 3's backfill at 1 (to 15 by its
			// estimate) came before it was queued, so its reservation
			// made at 5 is at 15.
			o[1].Job.HoldUntil = 5
			o[2].Job = job(3, 1, 2, 14, 14)
			o[2].Start, o[2].End = 1, 15
			o[1].Start, o[1].End = 15, 25
			return o
		}, sim.VerifyOptions{HeadReservation: true}, ""},
		{"held head delayed after its hold ended", func(o []sim.Outcome) []sim.Outcome {
			// Job 2, held until 1, is the head from 1 with a reservation
			// at 10; job 3, backfilled at 2 until 16, delays it.
			o[1].Job.HoldUntil = 1
			o[2].Job = job(3, 2, 2, 14, 14)
			o[2].Start, o[2].End = 2, 16
			o[1].Start, o[1].End = 16, 26
			return o
		}, sim.VerifyOptions{HeadReservation: true}, "head-reservation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs := sim.Verify(4, tc.mutate(seq(base())), tc.opts)
			if tc.rule == "" {
				if len(vs) != 0 {
					t.Fatalf("violations on a valid schedule: %v", vs)
				}
				return
			}
			for _, v := range vs {
				if v.Rule == tc.rule {
					if !strings.Contains(v.Error(), "job") {
						t.Errorf("message %q does not name the job", v.Error())
					}
					return
				}
			}
			t.Fatalf("no %q violation among %v", tc.rule, vs)
		})
	}
}

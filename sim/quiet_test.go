package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// noQuiet hides a policy's Quieter side: the engine then runs every pass.
type noQuiet struct{ policy.Policy }

// The passes the engine skips by EASY's quiet rule (policy.Quieter) would
// have started nothing: every job starts at the same instant with and
// without the skipping, and the pass counts agree, on seeded workloads
// from light load to overload, for several lookaheads, with SJBF, jobs
// without an estimate (unknown shadows) and an Estimator whose
// predictions expire.
func TestQuietPassesStartNothing(t *testing.T) {
	cases := 120
	if testing.Short() {
		cases = 20
	}
	for seed := uint64(1); seed <= uint64(cases); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x91e7))
		procs := 4 + r.IntN(60)
		n := 100 + r.IntN(900)
		gap := 1 + r.IntN(60)
		jobs := make([]workload.Job, n)
		var t0 workload.Time
		for i := range jobs {
			t0 += workload.Time(r.IntN(gap))
			run := workload.Time(1 + r.IntN(300))
			est := run + workload.Time(r.IntN(200))
			if r.IntN(15) == 0 {
				est = workload.Unknown
			}
			jobs[i] = job(int64(i+1), t0, 1+r.IntN(procs), run, est)
		}
		for _, la := range []int{0, 1, 5, 40, 200, policy.LookaheadAll} {
			for _, sjbf := range []bool{false, true} {
				for _, withEst := range []bool{false, true} {
					run := func(p policy.Policy) (*sim.Collector, sim.Stats) {
						cfg := sim.Config{Procs: procs, Policy: p}
						if withEst {
							cfg.Estimator = &policy.Factor{F: 0.5, Correction: policy.CorrectGradual}
						}
						eng, err := sim.New(cfg)
						if err != nil {
							t.Fatal(err)
						}
						c := &sim.Collector{}
						st, err := eng.Run(newSource(jobs), c)
						if err != nil {
							t.Fatal(err)
						}
						return c, st
					}
					fast, fst := run(&policy.EASY{Lookahead: la, SJBF: sjbf})
					slow, sst := run(noQuiet{&policy.EASY{Lookahead: la, SJBF: sjbf}})
					if fst.Passes != sst.Passes {
						t.Fatalf("seed %d, lookahead %d, sjbf %v, estimator %v: %d passes with skipping, %d without",
							seed, la, sjbf, withEst, fst.Passes, sst.Passes)
					}
					for i := range fast.Outcomes {
						a, b := fast.Outcomes[i], slow.Outcomes[i]
						if a.Job.ID != b.Job.ID || a.Start != b.Start {
							t.Fatalf("seed %d, lookahead %d, sjbf %v, estimator %v: record %d: job %d at %d with skipping, job %d at %d without",
								seed, la, sjbf, withEst, i, a.Job.ID, a.Start, b.Job.ID, b.Start)
						}
					}
				}
			}
		}
	}
}

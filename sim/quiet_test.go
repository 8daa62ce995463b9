package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// randomJobs returns n jobs from r, submitted gaps below gap apart, each on
// 1 to wide processors for 1 to run seconds, with an estimate up to over
// seconds longer, and one in noEst of them without an estimate.
func randomJobs(r *rand.Rand, n, gap, wide, run, over, noEst int) []workload.Job {
	jobs := make([]workload.Job, n)
	var t0 workload.Time
	for i := range jobs {
		t0 += workload.Time(r.IntN(gap))
		rt := workload.Time(1 + r.IntN(run))
		est := rt + workload.Time(r.IntN(over))
		if r.IntN(noEst) == 0 {
			est = workload.Unknown
		}
		jobs[i] = job(int64(i+1), t0, 1+r.IntN(wide), rt, est)
	}
	return jobs
}

// runSkips runs jobs under cfg and returns the records, the statistics
// and the passes the engine skipped.
func runSkips(t *testing.T, cfg sim.Config, jobs []workload.Job) (*sim.Collector, sim.Stats, int64) {
	t.Helper()
	eng, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &sim.Collector{}
	st, err := eng.Run(simtest.NewSource(jobs), c)
	if err != nil {
		t.Fatal(err)
	}
	return c, st, sim.SkippedPasses(eng)
}

// noQuiet hides a policy's Quieter side: the engine then runs every pass.
type noQuiet struct{ policy.Policy }

// The passes the engine skips by EASY's quiet rule (fastpath.Quieter) would
// have started nothing: every job starts at the same instant with and
// without the skipping, and the pass counts agree, on seeded workloads
// from light load to overload, for several lookaheads, with SJBF, jobs
// without an estimate (unknown shadows) and an Estimator whose
// predictions expire.
func TestQuietPassesStartNothing(t *testing.T) {
	cases := simtest.Cases(120, 20)
	for seed := uint64(1); seed <= uint64(cases); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x91e7))
		procs := 4 + r.IntN(60)
		jobs := randomJobs(r, 100+r.IntN(900), 1+r.IntN(60), procs, 300, 200, 15)
		for _, la := range []int{0, 1, 5, 40, 200, policy.LookaheadAll} {
			for _, sjbf := range []bool{false, true} {
				for _, withEst := range []bool{false, true} {
					run := func(p policy.Policy) (*sim.Collector, sim.Stats) {
						cfg := sim.Config{Procs: procs, Policy: p}
						if withEst {
							cfg.Estimator = &policy.Factor{F: 0.5, Correction: policy.CorrectGradual}
						}
						c, st, _ := runSkips(t, cfg, jobs)
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

// quietOnly hides a policy's RoomBound side: the engine then skips passes
// only by the policy's quiet rule, never after an end.
type quietOnly struct{ quietPolicy }

// quietPolicy is a policy with its quiet rule.
type quietPolicy interface {
	policy.Policy
	fastpath.Quieter
}

// The passes the engine skips after ends because no queued job fits the
// free processors (fastpath.RoomBound) would have started nothing: every
// job starts at the same instant as when only the quiet rule skips passes
// and as when every pass runs, the pass counts agree, and skipping after
// ends does happen.
func TestRoomPassesStartNothing(t *testing.T) {
	cases := simtest.Cases(80, 15)
	var skipped, quietSkipped int64
	for seed := uint64(1); seed <= uint64(cases); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		procs := 8 + r.IntN(120)
		wide := 1 + r.IntN(procs) // the largest request
		jobs := randomJobs(r, 200+r.IntN(800), 1+r.IntN(40), wide, 400, 300, 20)
		for _, la := range []int{0, 3, 50, policy.LookaheadAll} {
			for _, sjbf := range []bool{false, true} {
				run := func(p policy.Policy) (*sim.Collector, sim.Stats, int64) {
					return runSkips(t, sim.Config{Procs: procs, Policy: p}, jobs)
				}
				room, rst, rsk := run(&policy.EASY{Lookahead: la, SJBF: sjbf})
				quiet, qst, qsk := run(quietOnly{&policy.EASY{Lookahead: la, SJBF: sjbf}})
				all, ast, ask := run(noQuiet{&policy.EASY{Lookahead: la, SJBF: sjbf}})
				if rst != ast || qst != ast || ask != 0 {
					t.Fatalf("seed %d, lookahead %d, sjbf %v: stats %+v (%d passes skipped) with room skipping, %+v (%d) by the quiet rule only, %+v (%d) without",
						seed, la, sjbf, rst, rsk, qst, qsk, ast, ask)
				}
				skipped += rsk
				quietSkipped += qsk
				for i := range all.Outcomes {
					a, q, b := room.Outcomes[i], quiet.Outcomes[i], all.Outcomes[i]
					if a.Job.ID != b.Job.ID || a.Start != b.Start || q.Job.ID != b.Job.ID || q.Start != b.Start {
						t.Fatalf("seed %d, lookahead %d, sjbf %v: record %d: job %d at %d with room skipping, job %d at %d by the quiet rule, job %d at %d without",
							seed, la, sjbf, i, a.Job.ID, a.Start, q.Job.ID, q.Start, b.Job.ID, b.Start)
					}
				}
			}
		}
	}
	if skipped <= quietSkipped {
		t.Errorf("room skipping skipped %d passes, the quiet rule alone %d: no pass after an end was skipped", skipped, quietSkipped)
	}
}

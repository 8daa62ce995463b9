package sim_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// With growth configured, a trace without processor ranges (every SWF
// trace) gives pyss's start times, job for job, as without it. (The big
// traces in full runs only: see wholeTraces.)
func TestGrowReferenceUnchanged(t *testing.T) {
	needShared(t)
	if testing.Short() {
		t.Skip("skipping the reference traces in -short mode")
	}
	for _, tr := range wholeTraces() {
		for _, pol := range []string{"fcfs", "easy"} {
			t.Run(tr+"/"+pol, func(t *testing.T) {
				in := filepath.Join(sharedDir, "reference/inputs/norm", tr+".swf.gz")
				want := referenceStarts(t, filepath.Join(sharedDir, "reference/outputs", fmt.Sprintf("pyss_norm_%s_%s.swf.gz", tr, pol)))
				rd, err := workload.OpenSWF(in, workload.Rules{})
				if err != nil {
					t.Fatal(err)
				}
				defer rd.Close()
				var p policy.Policy = policy.FCFS{}
				if pol == "easy" {
					p = &policy.EASY{Lookahead: policy.LookaheadAll}
				}
				eng, err := sim.New(sim.Config{Procs: rd.Header().MachineSize(), Policy: p, Grow: &sim.Grow{Speedup: policy.Amdahl{Serial: 0.1}}})
				if err != nil {
					t.Fatal(err)
				}
				col := &sim.Collector{}
				if _, err := eng.Run(rd, col); err != nil {
					t.Fatal(err)
				}
				mism := 0
				for _, o := range col.Outcomes {
					if w, ok := want[o.Job.ID]; !ok || int64(o.Start) != w {
						mism++
					}
				}
				if mism > 0 || len(col.Outcomes) != len(want) {
					t.Errorf("%d of %d jobs start elsewhere than in pyss (%d reference jobs)", mism, len(col.Outcomes), len(want))
				}
			})
		}
	}
}

// randomFilter answers activation and growth calls from a seeded source:
// mostly 0, sometimes 1, 2 or 3.
type randomFilter struct{ rng *rand.Rand }

func (f *randomFilter) Name() string { return "random" }
func (f *randomFilter) FilterActivation(a *hpcpack.Activation) hpcpack.Result {
	if a.Grow {
		return hpcpack.Exit(f.rng.Intn(2), "")
	}
	codes := []int{0, 0, 0, 0, 0, 1, 2, 3}
	return hpcpack.Exit(codes[f.rng.Intn(len(codes))], "")
}
func (f *randomFilter) RevertActivation(*hpcpack.Activation) {}

// randomMalleable returns n seeded jobs for a machine of procs: a third
// rigid, the rest with a processor range around their trace count; some
// killed at their requested time, some without one.
func randomMalleable(rng *rand.Rand, n, procs int) []workload.Job {
	jobs := make([]workload.Job, n)
	var t workload.Time
	for i := range jobs {
		t += workload.Time(rng.Intn(30))
		p := 1 + rng.Intn(procs)
		run := workload.Time(1 + rng.Intn(300))
		est := run + workload.Time(rng.Intn(200))
		switch rng.Intn(10) {
		case 0:
			est = run / 2
			if est == 0 {
				est = 1
			}
		case 1:
			est = none
		}
		j := job(int64(i+1), t, p, run, est)
		if rng.Intn(3) > 0 {
			j.MinProcs = int64(1 + rng.Intn(p))
			j.MaxProcs = int64(p + rng.Intn(procs+4))
		}
		j.Priority = int64(rng.Intn(3))
		jobs[i] = j
	}
	return jobs
}

// Random malleable workloads under every policy that grows, with and
// without filters: each run ends, passes sim.Verify and the engine's
// invariants, conserves processor-seconds, and is the same when repeated.
func TestGrowRandom(t *testing.T) {
	mkPolicies := func() map[string]func() policy.Policy {
		return map[string]func() policy.Policy{
			"fcfs":      func() policy.Policy { return policy.FCFS{} },
			"easy":      func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} },
			"easy-sjbf": func() policy.Policy { return &policy.EASY{Lookahead: 5, SJBF: true} },
			"depth3":    func() policy.Policy { return &policy.Depth{Depth: 3, Lookahead: policy.LookaheadAll} },
			"ordered-sjf": func() policy.Policy {
				p, _ := policy.New(policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.LookaheadAll, Order: "sjf"})
				return p
			},
		}
	}
	for seed := int64(1); seed <= 5; seed++ {
		for name, mk := range mkPolicies() {
			for _, filtered := range []bool{false, true} {
				t.Run(fmt.Sprintf("seed%d/%s/filters=%v", seed, name, filtered), func(t *testing.T) {
					once := func() string {
						rng := rand.New(rand.NewSource(seed))
						jobs := randomMalleable(rng, 300, 16+int(seed%5)*7)
						var h *hpcpack.Model
						if filtered {
							h = &hpcpack.Model{Activation: []hpcpack.ActivationFilter{&randomFilter{rand.New(rand.NewSource(seed))}}, Reevaluate: 30, DefaultHold: 60}
						}
						rec, st := growRun(t, 16+int(seed%5)*7, mk(), &sim.Grow{Speedup: policy.Amdahl{Serial: 0.2}}, h, jobs)
						grew := 0
						for _, r := range rec.Records {
							if len(r.Steps) > 1 {
								grew++
							}
						}
						if grew == 0 {
							t.Errorf("no job grew")
						}
						return simtest.Format(rec.Records) + fmt.Sprintf("%+v", st)
					}
					if a, b := once(), once(); a != b {
						t.Errorf("two runs differ")
					}
				})
			}
		}
	}
}

// Activation filters that pass every start and every growth change nothing
// of a growing schedule: the same starts, ends and steps as without
// filters, under FCFS and EASY.
func TestGrowFiltersTransparent(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		for _, name := range []string{"fcfs", "easy"} {
			t.Run(fmt.Sprintf("seed%d/%s", seed, name), func(t *testing.T) {
				mk := func() policy.Policy {
					if name == "easy" {
						return &policy.EASY{Lookahead: policy.LookaheadAll}
					}
					return policy.FCFS{}
				}
				size := 16 + int(seed%5)*7
				plain, _ := growRun(t, size, mk(), &sim.Grow{}, nil, randomMalleable(rand.New(rand.NewSource(seed)), 300, size))
				f := &passAll{}
				h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}}
				filtered, _ := growRun(t, size, mk(), &sim.Grow{}, h, randomMalleable(rand.New(rand.NewSource(seed)), 300, size))
				for k := range plain.Records {
					a, b := plain.Records[k], filtered.Records[k]
					if a.Job.ID != b.Job.ID || a.Start != b.Start || a.End != b.End || len(a.Steps) != len(b.Steps) {
						t.Fatalf("job %d: %d–%d in %d steps without filters, job %d: %d–%d in %d steps with", a.Job.ID, a.Start, a.End, len(a.Steps), b.Job.ID, b.Start, b.End, len(b.Steps))
					}
				}
				if f.calls == 0 {
					t.Error("the filter was never called")
				}
			})
		}
	}
}

// Oracle: the profile-based reservation-depth policy at depth 1 gives
// EASY's growing schedule, as it gives EASY's rigid one.
func TestGrowDepthOneIsEASY(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		size := 16 + int(seed%5)*7
		easy, _ := growRun(t, size, &policy.EASY{Lookahead: policy.LookaheadAll}, &sim.Grow{}, nil, randomMalleable(rand.New(rand.NewSource(seed)), 300, size))
		depth, _ := growRun(t, size, &policy.Depth{Depth: 1, Lookahead: policy.LookaheadAll}, &sim.Grow{}, nil, randomMalleable(rand.New(rand.NewSource(seed)), 300, size))
		if a, b := simtest.Format(easy.Records), simtest.Format(depth.Records); a != b {
			t.Errorf("seed %d: EASY and depth 1 differ:\n%s\n%s", seed, a, b)
		}
	}
}

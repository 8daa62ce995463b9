package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestBlockedJobAfterReservationReleased: a blocked job that did not fit
// beside a reservation is re-evaluated in the same pass once that
// reservation goes, rather than left waiting for a pass that never comes.
// Machine of 3. Job 1 (2 processors, priority 0) gets 1 at 0: blocked, to
// be re-evaluated at 60. Job 2 (3 processors, priority 1, above the block)
// gets 2 at 0: it keeps all 3 processors. At 60 job 1 does not fit beside
// the reservation, then job 2's filter fails it (4), which frees the 3
// processors: job 1 is re-evaluated (0) and starts at 60. Before the fix
// nothing ran, nothing was due later and the run ended with job 1 queued.
func TestBlockedJobAfterReservationReleased(t *testing.T) {
	for _, inner := range []policy.Policy{policy.FCFS{}, &policy.EASY{Lookahead: policy.LookaheadAll}} {
		t.Run(inner.Name(), func(t *testing.T) {
			f := &scripted{name: "s", script: map[int64][]hpcpack.Result{
				1: {hpcpack.Exit(1, "")},
				2: {hpcpack.Exit(2, ""), hpcpack.Exit(4, "")},
			}}
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}, Reevaluate: 60, DefaultHold: 120}
			jobs := []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 3, 50, 50)}
			jobs[1].Priority = 1
			rec := hpcRun(t, 3, h, inner, jobs)
			checkOutcomes(t, rec, map[int64]outcome{1: {start: 60}, 2: {failed: hpcpack.MsgActivationFailed}})
			if want := []int64{1, 2, 2, 1}; !equalIDs(f.ids, want) {
				t.Errorf("filter calls for jobs %v, want %v", f.ids, want)
			}
		})
	}
}

// TestFilteredRandom runs random activation filter results (0 to 4) under
// FCFS, EASY, Depth and Ordered, with and without growing jobs: no panic,
// and every job ends with an outcome (none left queued for good).
func TestFilteredRandom(t *testing.T) {
	n := uint64(simtest.Cases(600, 60))
	for seed := range n {
		r := rand.New(rand.NewPCG(seed, 0xf17e))
		procs := 2 + r.IntN(64)
		jobs := syntheticJobs(seed, 20+r.IntN(200), procs)
		grow := seed%2 == 0
		for i := range jobs {
			if grow && i%3 != 0 && jobs[i].Procs <= procs {
				p := int64(jobs[i].Procs)
				jobs[i].MinProcs, jobs[i].MaxProcs = (p+1)/2, min(2*p, int64(procs))
			}
			jobs[i].Priority = int64(r.IntN(3))
		}
		h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{&randFilter{r: rand.New(rand.NewPCG(seed, 1)), codes: []int{0, 0, 0, 1, 2, 3, 4}}},
			Reevaluate: 60, DefaultHold: 120}
		var inner policy.Policy = &policy.EASY{Lookahead: policy.LookaheadAll}
		switch seed % 3 {
		case 1:
			inner = policy.FCFS{}
		case 2:
			inner = &policy.Depth{Depth: 2, Lookahead: 3}
		}
		p, err := h.Wrap(inner)
		if err != nil {
			t.Fatal(err)
		}
		if seed%5 == 0 {
			o, err := policy.ParseOrder("sjf", policy.DefaultPriorityParams())
			if err != nil {
				t.Fatal(err)
			}
			p = &policy.Ordered{Order: o, Inner: p}
		}
		cfg := sim.Config{Procs: procs, Policy: p, Admission: h, Annotator: h}
		if grow {
			cfg.Grow = &sim.Grow{Speedup: policy.Amdahl{Serial: 0.3}, Filter: h}
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("seed %d (%s, grow %v): panic: %v", seed, cfg.Policy.Name(), grow, p)
				}
			}()
			eng, err := sim.New(cfg)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			col := &sim.Collector{}
			if _, err := eng.Run(simtest.NewSource(jobs), col); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if len(col.Outcomes) != len(jobs) {
				t.Fatalf("seed %d: %d outcomes for %d jobs", seed, len(col.Outcomes), len(jobs))
			}
		}()
	}
}

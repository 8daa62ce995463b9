package sim_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// A run with deferred placement, through a Placer, gives the same records
// (processor numbers included) and samples as the engine numbering the
// processors itself: seeded workloads from light load to overload, with
// and without estimates, killed jobs and jobs too large for the machine,
// under FCFS, EASY (several lookaheads, SJBF), conservative backfilling and
// a priority order.
func TestDeferredPlacementSameRecords(t *testing.T) {
	pols := []func() policy.Policy{
		func() policy.Policy { return policy.FCFS{} },
		func() policy.Policy { return &policy.EASY{Lookahead: 3} },
		func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} },
		func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll, SJBF: true} },
		func() policy.Policy { return &policy.Conservative{} },
		func() policy.Policy {
			p, err := policy.New(policy.Config{Backfill: policy.BackfillEASY, Lookahead: 50, Order: "sjf"})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
	}
	cases := simtest.Cases(60, 12)
	for seed := uint64(1); seed <= uint64(cases); seed++ {
		r := rand.New(rand.NewPCG(seed, 0xd1ce))
		procs := 4 + r.IntN(100)
		n := 50 + r.IntN(500)
		gap := 1 + r.IntN(60)
		jobs := make([]workload.Job, n)
		var t0 workload.Time
		for i := range jobs {
			t0 += workload.Time(r.IntN(gap))
			run := workload.Time(1 + r.IntN(300))
			est := run + workload.Time(r.IntN(200)) - 40 // some jobs outlive theirs: killed
			switch {
			case r.IntN(10) == 0:
				est = none
			case est < 1:
				est = 1
			}
			jobs[i] = job(int64(i+1), t0, 1+r.IntN(procs+procs/8), run, est) // some never fit: rejected
		}
		for pi, pol := range pols {
			var want, got simtest.SampleRecorder
			run := func(cfg sim.Config, obs sim.Observer) {
				t.Helper()
				eng, err := sim.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := eng.Run(simtest.NewSource(slices.Clone(jobs)), obs); err != nil {
					t.Fatal(err)
				}
			}
			run(sim.Config{Procs: procs, Policy: pol()}, &want)
			run(sim.Config{Procs: procs, Policy: pol(), DeferPlacement: true}, sim.NewPlacer(procs, &got))
			if len(got.Records) != len(want.Records) || len(got.Samples) != len(want.Samples) {
				t.Fatalf("seed %d, policy %d: %d records and %d samples deferred, %d and %d not", seed, pi, len(got.Records), len(got.Samples), len(want.Records), len(want.Samples))
			}
			for i := range want.Records {
				a, b := want.Records[i], got.Records[i]
				if a.Job.ID != b.Job.ID || a.State != b.State || a.Start != b.Start || a.End != b.End || !slices.Equal(a.Alloc, b.Alloc) || b.Deferred {
					t.Fatalf("seed %d, policy %d: record %d: job %d %v [%d, %d) on %v, deferred: job %d %v [%d, %d) on %v (deferred %v)",
						seed, pi, i, a.Job.ID, a.State, a.Start, a.End, a.Alloc, b.Job.ID, b.State, b.Start, b.End, b.Alloc, b.Deferred)
				}
			}
			if !slices.Equal(got.Samples, want.Samples) {
				t.Fatalf("seed %d, policy %d: samples differ", seed, pi)
			}
		}
	}
}

// Deferred placement is refused where the engine needs the processor
// numbers itself, and without an observer of the starts to tell them to.
func TestDeferredPlacementRefused(t *testing.T) {
	base := sim.Config{Procs: 8, DeferPlacement: true}
	bad := []struct {
		name string
		cfg  func(c *sim.Config)
	}{
		{"allocator", func(c *sim.Config) {
			c.Allocator = cluster.NewLinear(&cluster.Spec{Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 4}}})
		}},
		{"growth", func(c *sim.Config) { c.Grow = &sim.Grow{} }},
		{"node events", func(c *sim.Config) {
			c.NodeEvents = []cluster.NodeEvent{{At: 10, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 0, Hi: 1}}}}
		}},
		{"checkpoints", func(c *sim.Config) { c.CheckpointEvery = 100 }},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			cfg := base
			b.cfg(&cfg)
			if _, err := sim.New(cfg); err == nil || !strings.Contains(err.Error(), "deferred placement") {
				t.Fatalf("New: got %v, want an error about deferred placement", err)
			}
		})
	}
	eng, err := sim.New(base)
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.Run(simtest.NewSource([]workload.Job{job(1, 0, 2, 5, 5)}), &simtest.Recorder{})
	if err == nil || !strings.Contains(err.Error(), "EventStarted") {
		t.Fatalf("Run with an Observer that takes no starts: got %v, want an error", err)
	}
	if err := sim.CanCheckpoint(base); err == nil {
		t.Fatal("CanCheckpoint allows deferred placement")
	}
}

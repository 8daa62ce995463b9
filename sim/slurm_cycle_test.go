package sim_test

import (
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestSlurmBackfillUnderCycle: Slurm's backfill cycles come at multiples
// of bf_interval (30 s), and under a scheduler cycle (sched-interval)
// passes come only at its ticks, counted from the first submission. A
// job that only a backfill cycle starts (the main scheduler runs at job
// ends), submitted at 2 on an idle machine, starts at the first backfill
// instant, 30, without a cycle, and with a cycle of 120 s, whose ticks
// (2, 122, …) never meet the backfill's instants, at the first tick after
// one: 122. On a cluster of nodes and on a pool of processors.
func TestSlurmBackfillUnderCycle(t *testing.T) {
	jobs := []workload.Job{simtest.Job(1, 2, 2, 50, 100)}
	for _, c := range []struct {
		name  string
		nodes bool
		cycle workload.Time
		want  workload.Time
	}{
		{"nodes", true, 0, 30},
		{"nodes/cycle 120", true, 120, 122},
		{"pool", false, 0, 30},
		{"pool/cycle 120", false, 120, 122},
		{"pool/cycle 60", false, 60, 62},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := sim.Config{Procs: 8, Policy: slurm(policy.SlurmParams{MainAt: policy.MainAtEnds}), SchedInterval: c.cycle}
			var rec *simtest.Recorder
			if c.nodes {
				spec := &cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 4, Cores: 2}}}
				rec, _, _ = simtest.RunNodes(t, spec, cfg, jobs)
			} else {
				rec, _ = simtest.Run(t, cfg, jobs)
			}
			if len(rec.Records) != 1 || rec.Records[0].Start != c.want {
				t.Fatalf("got %s, want job 1 started at %d", simtest.Format(rec.Records), c.want)
			}
		})
	}
}

package sim_test

import (
	"fmt"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestSteadyStateAllocs checks that the engine allocates nothing per job
// once its slices have grown: replaying twice as many jobs of the same
// workload costs at most a few more allocations (slices doubling), not
// one per job. The load (0.5) keeps every policy's queue short, so the
// second half of the run needs no more room than the first. It counts
// allocations, which do not depend on the machine's speed.
func TestSteadyStateAllocs(t *testing.T) {
	var jobs []workload.Job
	err := workload.Generate(workload.GenConfig{Jobs: 40_000, Procs: 256, Seed: 9, Load: 0.5}, func(j *workload.Job) error {
		jobs = append(jobs, *j)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pol  func() policy.Policy
	}{
		{"fcfs", func() policy.Policy { return policy.FCFS{} }},
		{"easy-10", func() policy.Policy { return &policy.EASY{Lookahead: 10} }},
		{"easy-100", func() policy.Policy { return &policy.EASY{Lookahead: 100} }},
		{"easy-all", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allocs := func(n int) float64 {
				return testing.AllocsPerRun(2, func() {
					eng, err := sim.New(sim.Config{Procs: 256, Policy: tc.pol()})
					if err != nil {
						t.Fatal(err)
					}
					if _, err := eng.Run(&simtest.Source{Jobs: jobs[:n]}, simtest.Discard{}); err != nil {
						t.Fatal(err)
					}
				})
			}
			half, all := allocs(len(jobs)/2), allocs(len(jobs))
			if extra := all - half; extra > 200 {
				t.Errorf("%d more jobs cost %v more allocations (%s per job)", len(jobs)/2, extra, fmt.Sprintf("%.3f", extra/float64(len(jobs)/2)))
			}
		})
	}
}

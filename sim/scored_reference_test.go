package sim_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// TestScoreDExclusiveIsFCFS checks that SCore-D's exclusive mode with one
// queue and no limits gives pyss's FCFS start times, job by job, on every
// reference input (the big ones in full runs only: see wholeTraces): the
// same schedule as the spine's FCFS.
func TestScoreDExclusiveIsFCFS(t *testing.T) {
	needShared(t)
	traces := wholeTraces()
	for _, kind := range []string{"norm", "exact"} {
		for _, tr := range traces {
			name := kind + "/" + tr
			t.Run(name, func(t *testing.T) {
				in := filepath.Join(sharedDir, "reference/inputs", kind, tr+".swf.gz")
				want := referenceStarts(t, filepath.Join(sharedDir, "reference/outputs", fmt.Sprintf("pyss_%s_%s_fcfs.swf.gz", kind, tr)))
				rd, err := workload.OpenSWF(in, workload.Rules{})
				if err != nil {
					t.Fatal(err)
				}
				defer rd.Close()
				eng, err := sim.NewScoreD(rd.Header().MachineSize(), policy.NewScoreD(1, policy.Exclusive))
				if err != nil {
					t.Fatal(err)
				}
				col := &sim.Collector{}
				if _, err := eng.Run(rd, col); err != nil {
					t.Fatal(err)
				}
				mism := 0
				for _, o := range col.Outcomes {
					w, ok := want[o.Job.ID]
					if !ok || int64(o.Start) != w || o.State != sim.Completed || o.End-o.Start != o.Job.Run {
						if mism < 5 {
							t.Errorf("job %d: %v start %d end %d run %d, reference start %d (present %v)", o.Job.ID, o.State, o.Start, o.End, o.Job.Run, w, ok)
						}
						mism++
					}
				}
				t.Logf("%s: %d jobs, %d mismatches against pyss FCFS", name, len(want), mism)
				if len(col.Outcomes) != len(want) {
					t.Errorf("simulated %d jobs, reference has %d", len(col.Outcomes), len(want))
				}
				if vs := sim.Verify(rd.Header().MachineSize(), col.Outcomes, sim.VerifyOptions{FCFS: true}); len(vs) > 0 {
					t.Errorf("%d invariant violations, first: %v", len(vs), vs[0])
				}
			})
		}
	}
}

package sim_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// TestReferenceLinearSinglePool runs the reference inputs on one node group
// of P single-core nodes under cluster.Linear: the node model must not change
// the base case, so every start equals pyss's. (The big traces in full
// runs only: see wholeTraces.)
func TestReferenceLinearSinglePool(t *testing.T) {
	needShared(t)
	traces := wholeTraces()
	for _, kind := range []string{"norm", "exact"} {
		for _, tr := range traces {
			for _, pol := range []string{"fcfs", "easy"} {
				name := fmt.Sprintf("%s/%s/%s", kind, tr, pol)
				t.Run(name, func(t *testing.T) {
					in := filepath.Join(sharedDir, "reference/inputs", kind, tr+".swf.gz")
					ref := filepath.Join(sharedDir, "reference/outputs", fmt.Sprintf("pyss_%s_%s_%s.swf.gz", kind, tr, pol))
					want := referenceStarts(t, ref)
					rd, err := workload.OpenSWF(in, workload.Rules{})
					if err != nil {
						t.Fatal(err)
					}
					defer rd.Close()
					var p policy.Policy = policy.FCFS{}
					if pol == "easy" {
						p = &policy.EASY{Lookahead: policy.LookaheadAll}
					}
					size := rd.Header().MachineSize()
					al, err := cluster.SinglePool(size).NewAllocator()
					if err != nil {
						t.Fatal(err)
					}
					eng, err := sim.New(sim.Config{Procs: size, Policy: p, Allocator: al})
					if err != nil {
						t.Fatal(err)
					}
					col := &sim.Collector{}
					if _, err := eng.Run(rd, col); err != nil {
						t.Fatal(err)
					}
					if vs := sim.Verify(size, col.Outcomes, verifyOpts(p)); len(vs) > 0 {
						t.Errorf("%d invariant violations, first: %v", len(vs), vs[0])
					}
					got := make(map[int64]int64, len(col.Outcomes))
					for _, o := range col.Outcomes {
						got[o.Job.ID] = int64(o.Start)
					}
					mism := 0
					for id, w := range want {
						if g, ok := got[id]; !ok || g != w {
							if mism < 5 {
								t.Errorf("job %d: start %d, reference %d (present %v)", id, g, w, ok)
							}
							mism++
						}
					}
					t.Logf("%s: %d jobs, %d mismatches against pyss (linear, %d single-core nodes)", name, len(want), mism, size)
					if len(got) != len(want) {
						t.Errorf("simulated %d jobs, reference has %d", len(got), len(want))
					}
				})
			}
		}
	}
}

package sim_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// passAll is an activation filter that lets every job start.
type passAll struct{ calls int }

func (p *passAll) Name() string { return "pass-all" }
func (p *passAll) FilterActivation(*hpcpack.Activation) hpcpack.Result {
	p.calls++
	return hpcpack.Exit(0, "")
}
func (p *passAll) RevertActivation(*hpcpack.Activation) {}

// TestFilteredReference runs the reference traces through the activation
// filter machinery with a filter that always answers 0 (and an empty
// submission chain): every start goes through Filtered, and the schedule
// must still be pyss's, job for job, under FCFS and EASY. (The big traces
// in full runs only: see wholeTraces.)
func TestFilteredReference(t *testing.T) {
	needShared(t)
	if testing.Short() {
		t.Skip("skipping the reference traces in -short mode")
	}
	traces := wholeTraces()
	for _, tr := range traces {
		for _, pol := range []string{"fcfs", "easy"} {
			name := fmt.Sprintf("norm/%s/%s", tr, pol)
			t.Run(name, func(t *testing.T) {
				want := referenceStarts(t, filepath.Join(sharedDir, "reference/outputs", fmt.Sprintf("pyss_norm_%s_%s.swf.gz", tr, pol)))
				rd, err := workload.OpenSWF(filepath.Join(sharedDir, "reference/inputs/norm", tr+".swf.gz"), workload.Rules{})
				if err != nil {
					t.Fatal(err)
				}
				defer rd.Close()
				var inner policy.Policy = policy.FCFS{}
				if pol == "easy" {
					inner = &policy.EASY{Lookahead: policy.LookaheadAll}
				}
				f := &passAll{}
				h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}}
				p, err := h.Wrap(inner)
				if err != nil {
					t.Fatal(err)
				}
				eng, err := sim.New(sim.Config{Procs: rd.Header().MachineSize(), Policy: p, Admission: h, Annotator: h})
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
						if mism < 5 {
							t.Errorf("job %d: start %d, reference %d (present %v)", o.Job.ID, o.Start, w, ok)
						}
						mism++
					}
				}
				if len(col.Outcomes) != len(want) || f.calls != len(want) {
					t.Errorf("simulated %d jobs, %d filter calls; reference has %d jobs", len(col.Outcomes), f.calls, len(want))
				}
				t.Logf("%s: %d jobs, %d mismatches against pyss", name, len(want), mism)
			})
		}
	}
}

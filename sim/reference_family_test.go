package sim_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// TestReferenceFamily holds the backfill family to pyss on the reference
// traces where its schedule is known:
//   - the FCFS order wrapper (Ordered with Arrival) gives the plain
//     policy's schedule: pyss's fcfs and easy, on norm and exact inputs;
//   - the perfect estimator on the norm inputs (requested time ≥ run time,
//     so nobody is killed) plans with the run times: pyss's schedule on the
//     exact inputs (requested time = run time), under fcfs, easy and cons.
//
// The big traces run in full runs only: see wholeTraces.
func TestReferenceFamily(t *testing.T) {
	needShared(t)
	traces := wholeTraces()
	cases := []struct {
		name      string
		input     string // norm or exact
		reference string // pyss_{reference}_{trace}_{pol}
		pol       string
		policy    func() policy.Policy
		estimator func() policy.Estimator
	}{
		{"ordered-fcfs/fcfs", "norm", "norm", "fcfs", func() policy.Policy { return &policy.Ordered{Order: policy.Arrival{}, Inner: policy.FCFS{}} }, nil},
		{"ordered-fcfs/easy", "norm", "norm", "easy", func() policy.Policy {
			return &policy.Ordered{Order: policy.Arrival{}, Inner: &policy.EASY{Lookahead: policy.LookaheadAll}}
		}, nil},
		{"ordered-fcfs/easy", "exact", "exact", "easy", func() policy.Policy {
			return &policy.Ordered{Order: policy.Arrival{}, Inner: &policy.EASY{Lookahead: policy.LookaheadAll}}
		}, nil},
		{"perfect/fcfs", "norm", "exact", "fcfs", func() policy.Policy { return policy.FCFS{} }, func() policy.Estimator { return policy.Perfect{} }},
		{"perfect/easy", "norm", "exact", "easy", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }, func() policy.Estimator { return policy.Perfect{} }},
		{"perfect/cons", "norm", "exact", "cons", func() policy.Policy { return &policy.Conservative{} }, func() policy.Estimator { return policy.Perfect{} }},
	}
	for _, c := range cases {
		for _, tr := range traces {
			name := fmt.Sprintf("%s/%s/%s", c.name, c.input, tr)
			t.Run(name, func(t *testing.T) {
				want := referenceStarts(t, filepath.Join(sharedDir, "reference/outputs", fmt.Sprintf("pyss_%s_%s_%s.swf.gz", c.reference, tr, c.pol)))
				rd, err := workload.OpenSWF(filepath.Join(sharedDir, "reference/inputs", c.input, tr+".swf.gz"), workload.Rules{})
				if err != nil {
					t.Fatal(err)
				}
				defer rd.Close()
				cfg := sim.Config{Procs: rd.Header().MachineSize(), Policy: c.policy()}
				if c.estimator != nil {
					cfg.Estimator = c.estimator()
				}
				eng, err := sim.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				col := &sim.Collector{}
				st, err := eng.Run(rd, col)
				if err != nil {
					t.Fatal(err)
				}
				if st.Killed != 0 {
					t.Errorf("%d jobs killed; the norm inputs request at least their run time", st.Killed)
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
				if len(col.Outcomes) != len(want) {
					t.Errorf("simulated %d jobs, reference has %d", len(col.Outcomes), len(want))
				}
				t.Logf("%s: %d jobs, %d mismatches against pyss", name, len(want), mism)
			})
		}
	}
}

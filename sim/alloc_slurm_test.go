package sim_test

import (
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestSlurmOnNodes runs Slurm's backfill on a cluster of nodes: it asks the
// node selector (policy.Fitter) before starting a job, a backfill cycle
// runs only at multiples of bf_interval, and a job that has the processors
// but not the memory gets planned for later instead of started.
func TestSlurmOnNodes(t *testing.T) {
	tests := []struct {
		name     string
		spec     *cluster.Spec
		interval workload.Time
		order    policy.Order // nil: queue order
		jobs     []workload.Job
		want     map[int64]workload.Time // job → start
		alloc    map[int64]string        // job → allocated resources
	}{
		{"bf_interval 10: backfill waits for the cycle", twoNodes(cluster.SelectLinear), 10, nil, []workload.Job{
			job(1, 0, 4, 100, 100),
			job(2, 0, 8, 10, 10),
			job(3, 3, 4, 20, 20),
		}, map[int64]workload.Time{1: 0, 2: 100, 3: 10}, map[int64]string{1: "0", 3: "1", 2: "0-1"}},
		{"bf_interval 1: backfill at once", twoNodes(cluster.SelectLinear), 1, nil, []workload.Job{
			job(1, 0, 4, 100, 100),
			job(2, 0, 8, 10, 10),
			job(3, 3, 4, 20, 20),
		}, map[int64]workload.Time{1: 0, 2: 100, 3: 3}, nil},
		{"linear: a whole node is held, no core left for a small job", twoNodes(cluster.SelectLinear), 10, nil, []workload.Job{
			job(1, 0, 1, 100, 100),
			job(2, 0, 4, 50, 50),
			job(3, 1, 1, 5, 5),
		}, map[int64]workload.Time{1: 0, 2: 0, 3: 50}, map[int64]string{1: "0", 2: "1", 3: "1"}},
		{"cons_res: cores free but no memory, planned after the ends", twoNodes(cluster.SelectConsRes), 10, nil, []workload.Job{
			memJob(1, 0, 1, 100, 100, 7*gbKB),
			memJob(2, 0, 1, 100, 100, 7*gbKB),
			memJob(3, 0, 2, 10, 10, 2*gbKB),
			job(4, 0, 1, 5, 5),
		}, map[int64]workload.Time{1: 0, 2: 0, 3: 100, 4: 0}, map[int64]string{1: "0", 2: "4", 4: "1"}},
		{"sjf order on nodes", twoNodes(cluster.SelectLinear), 1, policy.SJF{}, []workload.Job{
			job(1, 0, 4, 100, 100),
			job(2, 1, 4, 50, 50),
			job(3, 1, 4, 20, 20),
		}, map[int64]workload.Time{1: 0, 2: 21, 3: 1}, map[int64]string{1: "0", 2: "1", 3: "1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			al, err := tc.spec.NewAllocator()
			if err != nil {
				t.Fatal(err)
			}
			pol, err := policy.NewSlurm(policy.SlurmParams{Interval: tc.interval, Resolution: 1})
			if err != nil {
				t.Fatal(err)
			}
			var p policy.Policy = pol
			if tc.order != nil {
				p = &policy.Ordered{Order: tc.order, Inner: pol}
			}
			eng, err := sim.New(sim.Config{Policy: p, Allocator: al})
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			if _, err := eng.Run(simtest.NewSource(append([]workload.Job(nil), tc.jobs...)), rec); err != nil {
				t.Fatal(err)
			}
			for id, start := range tc.want {
				r := rec.ByID(t, id)
				if r.State != sim.Completed || r.Start != start {
					t.Errorf("job %d: %v at %d, want completed at %d", id, r.State, r.Start, start)
				}
				if w, ok := tc.alloc[id]; ok {
					if got := string(cluster.FormatRanges(nil, r.Alloc)); got != w {
						t.Errorf("job %d: allocated %q, want %q", id, got, w)
					}
				}
			}
			if al.Free() != al.Capacity() {
				t.Errorf("%d of %d processors free at the end", al.Free(), al.Capacity())
			}
		})
	}
}

package sim_test

import (
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestOverSubscribeExclusiveConsRes is issue 22 item 16's
// OverSubscribe=EXCLUSIVE under cons_res: a job of such a partition gets
// whole idle nodes (every core), while the jobs of an OverSubscribe=NO
// partition on the same nodes get cores. Two nodes of four cores; FCFS.
func TestOverSubscribeExclusiveConsRes(t *testing.T) {
	spec := &cluster.Spec{Select: cluster.SelectConsRes, Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 4, MemoryMB: 4}},
		Partitions: []cluster.Partition{
			{Name: "shared", Groups: []string{"n"}, SWF: 1, OverSubscribe: "NO"},
			{Name: "excl", Groups: []string{"n"}, SWF: 2, OverSubscribe: "EXCLUSIVE"},
		}}
	in := func(j workload.Job, part int) workload.Job { j.Partition = part; return j }
	mem := func(j workload.Job, kb float64) workload.Job { j.ReqMemKB = kb; return j }
	c := slurmCase{
		alloc: specAlloc(spec),
		pol:   policy.FCFS{},
		jobs: []workload.Job{
			in(job(1, 0, 2, 100, 100), 1),
			in(job(2, 0, 2, 50, 50), 2),
			in(job(3, 1, 4, 10, 10), 1),
			in(job(4, 2, 1, 10, 10), 2),
			// 1 KB per processor: node 0's 4 MB hold job 1's and this one's.
			mem(in(job(5, 200, 2, 10, 10), 1), 1024),
		},
		want: map[int64]slurmWant{
			// Job 1 gets cores 0-1 of node 0.
			1: {state: sim.Completed, start: 0, end: 100, alloc: "0-1", predicted: -2},
			// Job 2 (EXCLUSIVE) asks 2 processors and gets node 1 whole.
			2: {state: sim.Completed, start: 0, end: 50, alloc: "4-7", predicted: -2},
			// Job 3 needs 4 cores: only 2-3 are free until job 2 ends.
			3: {state: sim.Completed, start: 50, end: 60, alloc: "2-5", predicted: -2},
			// Job 4 (EXCLUSIVE, 1 processor) waits for an idle node: node
			// 1 when job 3 ends (node 0 holds job 1 to 100).
			4: {state: sim.Completed, start: 60, end: 70, alloc: "4-7", predicted: -2},
			5: {state: sim.Completed, start: 200, end: 210, alloc: "0-1", predicted: -2},
		},
	}
	c.run(t)
	// The schedule passes verify, which accepts whole nodes for a job of
	// an EXCLUSIVE partition, and only for it.
	al, _ := spec.NewAllocator()
	eng, err := sim.New(sim.Config{Policy: policy.FCFS{}, Allocator: al})
	if err != nil {
		t.Fatal(err)
	}
	col := &sim.Collector{}
	if _, err := eng.Run(simtest.NewSource(c.jobs), col); err != nil {
		t.Fatal(err)
	}
	if vs := sim.Verify(spec.Cores(), col.Outcomes, sim.VerifyOptions{Cluster: spec}); len(vs) > 0 {
		t.Errorf("verify: %v", vs)
	}
	shared := *spec
	shared.Partitions = []cluster.Partition{spec.Partitions[0], {Name: "excl", Groups: []string{"n"}, SWF: 2}}
	vs := sim.Verify(spec.Cores(), col.Outcomes, sim.VerifyOptions{Cluster: &shared})
	if len(vs) == 0 || vs[0].Rule != "alloc-size" || vs[0].JobID != 2 {
		t.Errorf("verify without EXCLUSIVE: %v, want job 2's alloc-size first", vs)
	}
}

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
	rec, _, _ := simtest.RunNodes(t, spec, sim.Config{Policy: policy.FCFS{}}, c.jobs)
	col := &sim.Collector{Outcomes: rec.Outcomes()}
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

// TestOverSubscribeForceLinear is issue 22 item 16's OverSubscribe=FORCE:N
// under select/linear: "each whole node can be allocated to multiple jobs
// up to the count specified per partition". Two nodes of two cores in a
// FORCE:2 partition, one node of a NO partition; FCFS. Jobs on a shared
// node each run at full speed (no time slicing without PreemptMode=GANG).
func TestOverSubscribeForceLinear(t *testing.T) {
	spec := &cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "s", Count: 2, Cores: 2}, {Name: "x", Count: 1, Cores: 2}},
		Partitions: []cluster.Partition{
			{Name: "shared", Groups: []string{"s"}, SWF: 1, OverSubscribe: "FORCE", ShareCount: 2},
			{Name: "solo", Groups: []string{"x"}, SWF: 2},
		}}
	in := func(j workload.Job, part int) workload.Job { j.Partition = part; return j }
	c := slurmCase{
		alloc: specAlloc(spec),
		pol:   policy.FCFS{},
		jobs: []workload.Job{
			in(job(1, 0, 4, 100, 100), 1),
			in(job(2, 0, 2, 50, 50), 1),
			in(job(3, 1, 2, 10, 10), 1),
			in(job(4, 2, 2, 10, 10), 1),
			in(job(5, 3, 2, 5, 5), 2),
			in(job(6, 4, 2, 5, 5), 2),
		},
		want: map[int64]slurmWant{
			// Job 1 takes both shared nodes; each may run one more job.
			1: {state: sim.Completed, start: 0, end: 100, alloc: "0-1", predicted: -2},
			// Job 2 shares node 0 with job 1, job 3 node 1.
			2: {state: sim.Completed, start: 0, end: 50, alloc: "0", predicted: -2},
			3: {state: sim.Completed, start: 1, end: 11, alloc: "1", predicted: -2},
			// Both shared nodes run two jobs: job 4 waits for job 3.
			4: {state: sim.Completed, start: 11, end: 21, alloc: "1", predicted: -2},
			// FCFS: job 5 waits behind job 4 though node 2 is idle; the NO
			// partition's node then runs one job at a time.
			5: {state: sim.Completed, start: 11, end: 16, alloc: "2", predicted: -2},
			6: {state: sim.Completed, start: 16, end: 21, alloc: "2", predicted: -2},
		},
	}
	c.run(t)
	rec, _, al := simtest.RunNodes(t, spec, sim.Config{Policy: policy.FCFS{}}, c.jobs)
	if got := al.Capacity(); got != 10 {
		t.Errorf("capacity %d, want 2 nodes × 2 cores × 2 jobs + 2 cores = 10", got)
	}
	col := &sim.Collector{Outcomes: rec.Outcomes()}
	if vs := sim.Verify(spec.Cores(), col.Outcomes, sim.VerifyOptions{Cluster: spec}); len(vs) > 0 {
		t.Errorf("verify: %v", vs)
	}
	// The same schedule on nodes that take one job each breaks the rule.
	one := *spec
	one.Partitions = []cluster.Partition{{Name: "shared", Groups: []string{"s"}, SWF: 1}, spec.Partitions[1]}
	vs := sim.Verify(spec.Cores(), col.Outcomes, sim.VerifyOptions{Cluster: &one})
	found := false
	for _, v := range vs {
		found = found || v.Rule == "overlap" && v.JobID == 2
	}
	if !found {
		t.Errorf("verify without FORCE: %v, want job 2's overlap", vs)
	}
	// FORCE:1 shares nothing: as NO.
	spec.Partitions[0].ShareCount = 1
	if caps := spec.ShareCaps(); caps != nil {
		t.Errorf("FORCE:1 caps %v, want none", caps)
	}
}

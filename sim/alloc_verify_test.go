package sim_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestVerifyCluster checks Verify on clusters of nodes: node allocations
// under linear, core allocations under cons_res, memory rejections.
func TestVerifyCluster(t *testing.T) {
	linear, consRes := twoNodes(cluster.SelectLinear), twoNodes(cluster.SelectConsRes)
	rg := func(lo, hi int) []cluster.Range { return []cluster.Range{{Lo: lo, Hi: hi}} }
	out := func(id int64, submit workload.Time, procs int, start, end workload.Time, alloc []cluster.Range) sim.Outcome {
		return sim.Outcome{Job: job(id, submit, procs, end-start, end-start), Start: start, End: end, Alloc: alloc}
	}
	rejected := func(id int64, procs int, reason string) sim.Outcome {
		o := out(id, 0, procs, 0, 0, nil)
		o.State, o.Reason = sim.Rejected, reason
		return o
	}
	tests := []struct {
		name string
		spec *cluster.Spec
		outs []sim.Outcome
		rule string // "" = valid
	}{
		{"linear: whole nodes", linear, []sim.Outcome{out(1, 0, 5, 0, 10, rg(0, 2)), out(2, 0, 1, 10, 20, rg(1, 2))}, ""},
		{"linear: one node is too small", linear, []sim.Outcome{out(1, 0, 5, 0, 10, rg(0, 1))}, "alloc-size"},
		{"linear: node 2 does not exist", linear, []sim.Outcome{out(1, 0, 4, 0, 10, rg(2, 3))}, "alloc-range"},
		{"linear: a node runs two jobs", linear, []sim.Outcome{out(1, 0, 1, 0, 10, rg(0, 1)), out(2, 0, 1, 5, 15, rg(0, 1))}, "overlap"},
		{"cons_res: cores of shared nodes", consRes, []sim.Outcome{out(1, 0, 3, 0, 10, rg(0, 3)), out(2, 0, 5, 0, 10, rg(3, 8))}, ""},
		{"cons_res: a core runs two jobs", consRes, []sim.Outcome{out(1, 0, 3, 0, 10, rg(0, 3)), out(2, 0, 2, 0, 10, rg(2, 4))}, "overlap"},
		{"cons_res: wrong core count", consRes, []sim.Outcome{out(1, 0, 3, 0, 10, rg(0, 4))}, "alloc-size"},
		{"cons_res: memory rejection is valid", consRes, []sim.Outcome{rejected(1, 2, "needs 9437184 KB of memory per processor, the largest node has 8388608 KB")}, ""},
		{"cons_res: other rejection that fits", consRes, []sim.Outcome{rejected(1, 2, "no reason")}, "rejected-fits"},
		{"linear: memory is no reason", linear, []sim.Outcome{rejected(1, 2, "memory")}, "rejected-fits"},
		{"partition limit is a reason", linear, []sim.Outcome{rejected(1, 2, "requested time 200 s exceeds partition p's MaxTime of 100 s")}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.outs {
				tc.outs[i].Job.Seq = int64(i)
			}
			vs := sim.Verify(tc.spec.Cores(), tc.outs, sim.VerifyOptions{Cluster: tc.spec, HeadReservation: true})
			switch {
			case tc.rule == "" && len(vs) > 0:
				t.Errorf("valid schedule: %v", vs)
			case tc.rule != "" && (len(vs) == 0 || vs[0].Rule != tc.rule):
				t.Errorf("got %v, want a %s violation", vs, tc.rule)
			}
		})
	}
}

// TestPartitionRouting runs jobs on a cluster of two partitions: a job
// runs on its partition's nodes only, and one beyond its partition's
// MaxTime or cores is rejected at submission with the reason.
func TestPartitionRouting(t *testing.T) {
	spec := &cluster.Spec{Select: cluster.SelectConsRes,
		Groups: []cluster.NodeGroup{{Name: "a", Count: 1, Cores: 4}, {Name: "b", Count: 1, Cores: 4}},
		Partitions: []cluster.Partition{
			{Name: "short", Groups: []string{"a"}, MaxTime: 50, Default: true},
			{Name: "long", Groups: []string{"b"}},
		}}
	inPart := func(j workload.Job, p int) workload.Job { j.Partition = p; return j }
	jobs := []workload.Job{
		job(1, 0, 4, 40, 50),
		job(2, 0, 2, 10, 10),              // waits for job 1: node b is not its partition
		inPart(job(3, 0, 4, 100, 100), 2), // long: node b
		job(4, 0, 1, 60, 60),              // beyond short's MaxTime
		inPart(job(5, 0, 5, 10, 10), 2),   // larger than long
	}
	rec, _, _ := simtest.RunNodes(t, spec, sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}}, jobs)
	outs := rec.Outcomes()
	want := map[int64]string{1: "0 0-3", 2: "40 0-1", 3: "40 4-7", 4: "rejected MaxTime of 50 s", 5: "rejected partition long has 4"}
	for _, o := range outs {
		w := want[o.Job.ID]
		got := fmt.Sprintf("%d %s", o.Start, cluster.FormatRanges(nil, o.Alloc))
		if o.State == sim.Rejected {
			got = "rejected " + o.Reason
			w = strings.TrimPrefix(w, "rejected ")
		}
		if !strings.Contains(got, w) || (o.State != sim.Rejected && got != w) {
			t.Errorf("job %d: %s, want %s", o.Job.ID, got, w)
		}
	}
	if vs := sim.Verify(spec.Cores(), outs, sim.VerifyOptions{Cluster: spec}); len(vs) > 0 {
		t.Errorf("violations: %v", vs)
	}
}

// TestVerifyClusterRuns verifies whole traces run on clusters of nodes
// under FCFS, EASY and Slurm's backfill.
func TestVerifyClusterRuns(t *testing.T) {
	needShared(t)
	rd, err := workload.OpenSWF(filepath.Join(sharedDir, "reference/inputs/exact", "hpc2n.swf.gz"), workload.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var jobs []workload.Job
	for {
		var j workload.Job
		if rd.Next(&j) != nil {
			break
		}
		jobs = append(jobs, j)
	}
	rd.Close()
	specs := []*cluster.Spec{
		{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "a", Count: 40, Cores: 2}, {Name: "b", Count: 20, Cores: 4}}},
		{Select: cluster.SelectConsRes, Groups: []cluster.NodeGroup{{Name: "a", Count: 30, Cores: 4, MemoryMB: 4096}}},
	}
	for _, spec := range specs {
		for _, mk := range []func() policy.Policy{
			func() policy.Policy { return policy.FCFS{} },
			func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} },
			func() policy.Policy { p, _ := policy.NewSlurm(policy.SlurmParams{}); return p },
		} {
			pol := mk()
			t.Run(spec.Select+"/"+pol.Name(), func(t *testing.T) {
				rec, _, _ := simtest.RunNodes(t, spec, sim.Config{Policy: pol}, jobs)
				_, fcfs := pol.(policy.FCFS)
				if vs := sim.Verify(spec.Cores(), rec.Outcomes(), sim.VerifyOptions{Cluster: spec, FCFS: fcfs}); len(vs) > 0 {
					t.Errorf("%d violations, first %v", len(vs), vs[0])
				}
			})
		}
	}
}

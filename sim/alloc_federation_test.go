package sim_test

import (
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestFederationRun runs jobs on a cluster of clusters: each goes to the
// least loaded cluster relative to speed (the faster on equal loads), its
// run time scales by the reference speed over the cluster's, a job slowed
// beyond its requested time is killed there, and the schedule verifies.
func TestFederationRun(t *testing.T) {
	member := func(speed float64) cluster.FederationMember {
		m, err := cluster.MemberOf(&cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 4, Cores: 1, Speed: speed}}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	f := cluster.NewFederation([]cluster.FederationMember{member(0.5), member(2)})
	eng, err := sim.New(sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Allocator: f})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []workload.Job{
		job(1, 0, 4, 100, 1000), // equal loads: the fast cluster, 50 s
		job(2, 0, 2, 100, 150),  // only the slow one is free: 200 s, killed at 150
		job(3, 0, 2, 100, 1000), // the fast one is full: the slow one, 200 s
	}
	col := &sim.Collector{}
	if _, err := eng.Run(simtest.NewSource(jobs), col); err != nil {
		t.Fatal(err)
	}
	want := map[int64]struct {
		state      sim.State
		start, end workload.Time
		alloc      string
	}{
		1: {sim.Completed, 0, 50, "4-7"},
		2: {sim.Killed, 0, 150, "0-1"},
		3: {sim.Completed, 0, 200, "2-3"},
	}
	for _, o := range col.Outcomes {
		w := want[o.Job.ID]
		if got := string(cluster.FormatRanges(nil, o.Alloc)); o.State != w.state || o.Start != w.start || o.End != w.end || got != w.alloc {
			t.Errorf("job %d: %v %d-%d on %s, want %v %d-%d on %s", o.Job.ID, o.State, o.Start, o.End, got, w.state, w.start, w.end, w.alloc)
		}
	}
	if vs := sim.Verify(8, col.Outcomes, sim.VerifyOptions{}); len(vs) > 0 {
		t.Errorf("violations: %v", vs)
	}
	if f.Free() != f.Capacity() {
		t.Errorf("%d of %d free at the end", f.Free(), f.Capacity())
	}
}

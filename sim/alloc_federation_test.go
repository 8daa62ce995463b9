package sim_test

import (
	"fmt"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestFederationRun runs jobs on a cluster of clusters: each is assigned
// at its submission the least loaded cluster relative to speed, counting
// the jobs already assigned to it (the faster on equal loads), or with
// AtStart it goes when it starts to the least loaded cluster that can run
// it then; its run time scales by the reference speed over the cluster's,
// a job slowed beyond its requested time is killed there, and the schedule
// verifies.
func TestFederationRun(t *testing.T) {
	member := func(speed float64) cluster.FederationMember {
		m, err := cluster.MemberOf(&cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 4, Cores: 1, Speed: speed}}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	jobs := []workload.Job{
		job(1, 0, 4, 100, 1000),
		job(2, 0, 2, 100, 150),
		job(3, 0, 2, 100, 1000),
	}
	type want struct {
		state      sim.State
		start, end workload.Time
		alloc      string
	}
	for _, tc := range []struct {
		name    string
		atStart bool
		want    map[int64]want
	}{
		// At submission (SCore-D), all at 0: job 1 finds equal loads and
		// takes the fast cluster (loaded 4/4 / 2 = 0.5 by it); job 2 the
		// slow one (0 < 0.5), 200 s there, killed at 150; job 3 finds the
		// slow one at 2/4 / 0.5 = 1 and the fast one at 0.5: it waits for
		// the fast one, 50–100.
		{"at submission", false, map[int64]want{
			1: {sim.Completed, 0, 50, "4-7"},
			2: {sim.Killed, 0, 150, "0-1"},
			3: {sim.Completed, 50, 100, "4-5"},
		}},
		// At start: job 1 the fast cluster (equal loads, 50 s); job 2 only
		// the slow one is free: 200 s, killed at 150; job 3 the fast one
		// is full: the slow one, 200 s.
		{"at start", true, map[int64]want{
			1: {sim.Completed, 0, 50, "4-7"},
			2: {sim.Killed, 0, 150, "0-1"},
			3: {sim.Completed, 0, 200, "2-3"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := cluster.NewFederation([]cluster.FederationMember{member(0.5), member(2)})
			f.AtStart = tc.atStart
			eng, err := sim.New(sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Allocator: f})
			if err != nil {
				t.Fatal(err)
			}
			col := &sim.Collector{}
			if _, err := eng.Run(simtest.NewSource(jobs), col); err != nil {
				t.Fatal(err)
			}
			for _, o := range col.Outcomes {
				w := tc.want[o.Job.ID]
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
		})
	}
}

// TestFederationNoSpeedScaling: with NoSpeedScaling the clusters' speeds
// only compare loads, as in SCore-D: a job runs its trace run time on the
// slow cluster as on the fast one. Job 1 (4 nodes) takes the fast cluster
// at 0 (equal loads), job 2 (2) the slow one (load 0 against 0.5): both
// run 100 s.
func TestFederationNoSpeedScaling(t *testing.T) {
	member := func(speed float64) cluster.FederationMember {
		m, err := cluster.MemberOf(&cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 4, Cores: 1, Speed: speed}}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	f := cluster.NewFederation([]cluster.FederationMember{member(0.5), member(2)})
	f.NoSpeedScaling = true
	eng, err := sim.New(sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Allocator: f})
	if err != nil {
		t.Fatal(err)
	}
	col := &sim.Collector{}
	if _, err := eng.Run(simtest.NewSource([]workload.Job{job(1, 0, 4, 100, 1000), job(2, 0, 2, 100, 150)}), col); err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{1: "completed 0-100 on 4-7", 2: "completed 0-100 on 0-1"}
	for _, o := range col.Outcomes {
		if got := fmt.Sprintf("%v %d-%d on %s", o.State, o.Start, o.End, cluster.FormatRanges(nil, o.Alloc)); got != want[o.Job.ID] {
			t.Errorf("job %d: %s, want %s", o.Job.ID, got, want[o.Job.ID])
		}
	}
}

// TestFederationSpanningRun: a job no single cluster can hold gets a
// cluster of clusters (SPEC §5). Clusters of 4 single-core nodes, speed 2
// (nodes 0-3) and 0.5 (4-7). Job 1 (6 processors) spans them: the first's
// 4 nodes and 2 of the second, at the slower's pace, 100 / 0.5 = 200 s.
// Job 2 (2), submitted with it, finds equal loads (a spanning job loads no
// one cluster while it waits) and is assigned the faster cluster: it waits
// there for job 1, though 2 nodes of the slow one are idle, and runs
// 100 / 2 = 50 s from 200.
func TestFederationSpanningRun(t *testing.T) {
	member := func(speed float64) cluster.FederationMember {
		m, err := cluster.MemberOf(&cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 4, Cores: 1, Speed: speed}}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	f := cluster.NewFederation([]cluster.FederationMember{member(2), member(0.5)})
	eng, err := sim.New(sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Allocator: f})
	if err != nil {
		t.Fatal(err)
	}
	col := &sim.Collector{}
	if _, err := eng.Run(simtest.NewSource([]workload.Job{job(1, 0, 6, 100, 1000), job(2, 0, 2, 100, 1000)}), col); err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{1: "completed 0-200 on 0-5", 2: "completed 200-250 on 0-1"}
	for _, o := range col.Outcomes {
		if got := fmt.Sprintf("%v %d-%d on %s", o.State, o.Start, o.End, cluster.FormatRanges(nil, o.Alloc)); got != want[o.Job.ID] {
			t.Errorf("job %d: %s, want %s", o.Job.ID, got, want[o.Job.ID])
		}
	}
	if vs := sim.Verify(8, col.Outcomes, sim.VerifyOptions{}); len(vs) > 0 {
		t.Errorf("violations: %v", vs)
	}
	if f.Free() != f.Capacity() {
		t.Errorf("%d of %d free at the end", f.Free(), f.Capacity())
	}
}

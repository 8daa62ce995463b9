package sim_test

// Tests of option combinations that #20 made run: each with a schedule
// computed by hand.

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestGrowNodeEvents: growing jobs on nodes that fail. A machine of 8
// processors in 4 nodes of 2, FCFS, linear speedup. Job 1 asks for 4 in the
// trace (range 2–8), runs 100 s (400 processor-seconds of work) and
// requests 1000 s. It starts at 0 on its minimum of 2 and is given the 6
// idle processors at once: 8 processors, end 0 + 400/8 = 50. Node 3
// (processors 6–7) goes down at 20.
//
//   - kill: job 1 dies at 20 as the trace gave it (4 processors), with its
//     two steps (2 at 0, 8 at 0); 8 × 20 = 160 processor-seconds are lost.
//   - requeue: job 1 goes back to the queue on its minimum and starts again
//     at 20 on 2, given the 4 idle processors left in service at once: 6
//     processors, end 20 + ⌈400/6⌉ = 87, one requeue. Job 2 (rigid, 2
//     processors, submitted at 10, 30 s) waited behind it: it starts at 87.
//   - drain: node 3 drains at 20 instead; job 1 runs on to 50, and node 3
//     leaves service when it ends. Job 2 starts at 50 on processors 0–1.
func TestGrowNodeEvents(t *testing.T) {
	jobs := func() []workload.Job {
		return []workload.Job{
			{ID: 1, Seq: 0, Submit: 0, Procs: 4, MinProcs: 2, MaxProcs: 8, Run: 100, Estimate: 1000},
			{ID: 2, Seq: 1, Submit: 10, Procs: 2, Run: 30, Estimate: 60},
		}
	}
	type want struct {
		state      sim.State
		start, end workload.Time
		procs      int
		steps      int
		requeues   int
	}
	cases := []struct {
		name   string
		state  cluster.NodeState
		onFail sim.NodeFailAction
		want   map[int64]want
		lost   float64
	}{
		{"kill", cluster.NodeDown, sim.NodeFailKill, map[int64]want{
			1: {sim.NodeFail, 0, 20, 4, 2, 0},
			2: {sim.Completed, 20, 50, 2, 0, 0},
		}, 160},
		{"requeue", cluster.NodeDown, sim.NodeFailRequeue, map[int64]want{
			1: {sim.Completed, 20, 87, 4, 2, 1},
			2: {sim.Completed, 87, 117, 2, 0, 0},
		}, 160},
		{"drain", cluster.NodeDrain, sim.NodeFailKill, map[int64]want{
			1: {sim.Completed, 0, 50, 4, 2, 0},
			2: {sim.Completed, 50, 80, 2, 0, 0},
		}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.Config{Procs: 8, NodeSize: 2, Policy: policy.FCFS{}, Grow: &sim.Grow{}, OnNodeFail: tc.onFail,
				NodeEvents: []cluster.NodeEvent{{At: 20, State: tc.state, Nodes: []cluster.Range{{Lo: 3, Hi: 4}}}}}
			eng, err := sim.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			st, err := eng.Run(simtest.NewSource(jobs()), rec)
			if err != nil {
				t.Fatal(err)
			}
			for id, w := range tc.want {
				r := rec.ByID(t, id)
				if r.State != w.state || r.Start != w.start || r.End != w.end || r.Job.Procs != w.procs || len(r.Steps) != w.steps || r.Requeues != w.requeues {
					t.Errorf("job %d: %v %d–%d on %d, %d steps, %d requeues; want %v %d–%d on %d, %d steps, %d requeues",
						id, r.State, r.Start, r.End, r.Job.Procs, len(r.Steps), r.Requeues, w.state, w.start, w.end, w.procs, w.steps, w.requeues)
				}
			}
			if st.LostProcSeconds != tc.lost {
				t.Errorf("lost %v processor-seconds, want %v", st.LostProcSeconds, tc.lost)
			}
			if t.Failed() {
				t.Logf("records:\n%s", simtest.Format(rec.Records))
			}
		})
	}
}

// TestConservativeNodeEvents: conservative backfilling on a machine whose
// capacity changes. 4 processors, nodes of 1. At 0: job 1 (2 processors,
// 100 s) starts on 0–1, job 2 (4, 50 s) is planned at 100, job 3 (2, 30 s)
// fits before it and starts on 2–3. At 10 a node event leaves 3 processors
// in service, and at 200 all 4 again. Each change rebuilds the plan on the
// new capacity: job 2 cannot be planned on 3 processors, and starts at 200.
//
//   - kill: node 3 goes down; job 3, on it, dies at 10.
//   - requeue: job 3 goes back to the queue behind job 2 and is planned on
//     the 1 processor free until 100: it starts at 100 and ends at 130.
//   - drain: node 0 drains; job 1 runs on to 100 on it and job 3 to 30;
//     node 0 leaves service when job 1 ends (it gives back 1 processor).
func TestConservativeNodeEvents(t *testing.T) {
	jobs := []workload.Job{
		{ID: 1, Seq: 0, Submit: 0, Procs: 2, Run: 100, Estimate: 100},
		{ID: 2, Seq: 1, Submit: 0, Procs: 4, Run: 50, Estimate: 50},
		{ID: 3, Seq: 2, Submit: 0, Procs: 2, Run: 30, Estimate: 30},
	}
	cases := []struct {
		name   string
		state  cluster.NodeState
		node   int
		onFail sim.NodeFailAction
		want   map[int64]nodeWant
	}{
		{"kill", cluster.NodeDown, 3, sim.NodeFailKill, map[int64]nodeWant{
			1: {state: sim.Completed, start: 0, end: 100},
			2: {state: sim.Completed, start: 200, end: 250},
			3: {state: sim.NodeFail, start: 0, end: 10, reason: "node 3 down"},
		}},
		{"requeue", cluster.NodeDown, 3, sim.NodeFailRequeue, map[int64]nodeWant{
			1: {state: sim.Completed, start: 0, end: 100},
			2: {state: sim.Completed, start: 200, end: 250},
			3: {state: sim.Completed, start: 100, end: 130, requeues: 1},
		}},
		{"drain", cluster.NodeDrain, 0, sim.NodeFailKill, map[int64]nodeWant{
			1: {state: sim.Completed, start: 0, end: 100},
			2: {state: sim.Completed, start: 200, end: 250},
			3: {state: sim.Completed, start: 0, end: 30},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			node := []cluster.Range{{Lo: tc.node, Hi: tc.node + 1}}
			cfg := sim.Config{Procs: 4, NodeSize: 1, Policy: &policy.Conservative{}, OnNodeFail: tc.onFail,
				NodeEvents: []cluster.NodeEvent{{At: 10, State: tc.state, Nodes: node}, {At: 200, State: cluster.NodeResume, Nodes: node}}}
			runWithNodes(t, cfg, jobs, tc.want)
		})
	}
}

// TestOrderOnNodes: a priority order on a cluster of nodes (select/linear,
// 2 nodes of 4 cores). Job 1 (4 cores, 100 s) starts at 0 on node 0; job 2
// (8 cores, 300 s) comes at 1, job 3 (4 cores, 200 s) at 2; estimates are
// exact.
//
//   - submission order, EASY: job 2 is the head with its reservation at 100;
//     job 3 would run past it on the node job 2 needs, so it waits: 2 runs
//     100–400, 3 400–600.
//   - sjf, EASY: job 3 (200 s) comes before job 2 (300 s) and fits node 1 at
//     2: 2–202; job 2 then needs both nodes: 202–502.
func TestOrderOnNodes(t *testing.T) {
	jobs := []workload.Job{
		{ID: 1, Seq: 0, Submit: 0, Procs: 4, Run: 100, Estimate: 100},
		{ID: 2, Seq: 1, Submit: 1, Procs: 8, Run: 300, Estimate: 300},
		{ID: 3, Seq: 2, Submit: 2, Procs: 4, Run: 200, Estimate: 200},
	}
	sjf, err := policy.ParseOrder("sjf", policy.DefaultPriorityParams())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		pol  policy.Policy
		want map[int64][2]workload.Time
	}{
		{"submission order", &policy.EASY{Lookahead: policy.LookaheadAll}, map[int64][2]workload.Time{1: {0, 100}, 2: {100, 400}, 3: {400, 600}}},
		{"sjf", &policy.Ordered{Order: sjf, Inner: &policy.EASY{Lookahead: policy.LookaheadAll}}, map[int64][2]workload.Time{1: {0, 100}, 2: {202, 502}, 3: {2, 202}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkTimes(t, runJobs(t, sim.Config{Policy: tc.pol, Allocator: twoLinearNodes(t)}, jobs), tc.want)
		})
	}
}

// TestSJBFOnNodes: shortest-first backfilling on a cluster of nodes
// (select/linear, 2 nodes of 4 cores: a job takes whole nodes). Job 1 (4
// cores, 100 s) starts at 0 on node 0; job 2 (8 cores, 100 s) at 1 is the
// head, reserved at 100; jobs 3 (2 cores, 90 s) and 4 (2 cores, 50 s)
// come together at 2, and either fits node 1 before 100, not both.
//
//   - EASY walks them in submission order: job 3 takes node 1 (2–92), job 4
//     waits behind job 2 (100–200): 200–250.
//   - SJBF walks the shortest first: job 4 takes node 1 (2–52); job 3 would
//     then end at 142, past job 2's reservation on both nodes: 200–290.
func TestSJBFOnNodes(t *testing.T) {
	jobs := []workload.Job{
		{ID: 1, Seq: 0, Submit: 0, Procs: 4, Run: 100, Estimate: 100},
		{ID: 2, Seq: 1, Submit: 1, Procs: 8, Run: 100, Estimate: 100},
		{ID: 3, Seq: 2, Submit: 2, Procs: 2, Run: 90, Estimate: 90},
		{ID: 4, Seq: 3, Submit: 2, Procs: 2, Run: 50, Estimate: 50},
	}
	cases := []struct {
		name string
		sjbf bool
		want map[int64][2]workload.Time
	}{
		{"easy", false, map[int64][2]workload.Time{1: {0, 100}, 2: {100, 200}, 3: {2, 92}, 4: {200, 250}}},
		{"sjbf", true, map[int64][2]workload.Time{1: {0, 100}, 2: {100, 200}, 3: {200, 290}, 4: {2, 52}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll, SJBF: tc.sjbf}, Allocator: twoLinearNodes(t)}
			checkTimes(t, runJobs(t, cfg, jobs), tc.want)
		})
	}
}

// TestDepthOnNodes: a reservation depth of 2 on a cluster of nodes
// (select/linear, 2 nodes of 4 cores: a job takes whole nodes). Job 1 (2
// cores, 100 s) takes node 0 at 0; job 2 (8 cores, 100 s) at 1 is the head,
// reserved at 100; jobs 3 and 4 (2 cores, 50 s each) come at 2. On a pool
// of 8 processors both would start at 2 (4 free); on nodes job 3 takes
// node 1 (2–52) and job 4 finds no node: at 52 it would run past job 2's
// reservation on both nodes, so it starts after job 2: 200–250.
func TestDepthOnNodes(t *testing.T) {
	jobs := []workload.Job{
		{ID: 1, Seq: 0, Submit: 0, Procs: 2, Run: 100, Estimate: 100},
		{ID: 2, Seq: 1, Submit: 1, Procs: 8, Run: 100, Estimate: 100},
		{ID: 3, Seq: 2, Submit: 2, Procs: 2, Run: 50, Estimate: 50},
		{ID: 4, Seq: 3, Submit: 2, Procs: 2, Run: 50, Estimate: 50},
	}
	depth := func() policy.Policy { return &policy.Depth{Depth: 2, Lookahead: policy.LookaheadAll} }
	t.Run("nodes", func(t *testing.T) {
		want := map[int64][2]workload.Time{1: {0, 100}, 2: {100, 200}, 3: {2, 52}, 4: {200, 250}}
		checkTimes(t, runJobs(t, sim.Config{Policy: depth(), Allocator: twoLinearNodes(t)}, jobs), want)
	})
	t.Run("pool", func(t *testing.T) {
		want := map[int64][2]workload.Time{1: {0, 100}, 2: {100, 200}, 3: {2, 52}, 4: {2, 52}}
		checkTimes(t, runJobs(t, sim.Config{Policy: depth(), Procs: 8}, jobs), want)
	})
}

// TestDepthOnNodesTakesMore: on whole nodes a job the plan places on
// processor counts may take more than a later reservation left it. Two
// select/linear nodes of 4 cores, a depth of 2: job 1 (4 cores, 100 s) takes
// node 0 at 0; job 2 (5 cores) at 1 is the head, reserved at 100, which
// leaves the plan 3 processors over 100–200; job 3 (3 cores, 300 s) at 2
// fits that plan but takes all of node 1 (4 cores). Its start delays job 2
// to 302, when node 1 is free again; before the plan charged it what it
// left (3), the plan went below zero and the run stopped with a panic.
func TestDepthOnNodesTakesMore(t *testing.T) {
	jobs := []workload.Job{
		{ID: 1, Seq: 0, Submit: 0, Procs: 4, Run: 100, Estimate: 100},
		{ID: 2, Seq: 1, Submit: 1, Procs: 5, Run: 100, Estimate: 100},
		{ID: 3, Seq: 2, Submit: 2, Procs: 3, Run: 300, Estimate: 300},
	}
	cfg := sim.Config{Policy: &policy.Depth{Depth: 2, Lookahead: policy.LookaheadAll}, Allocator: twoLinearNodes(t)}
	want := map[int64][2]workload.Time{1: {0, 100}, 2: {302, 402}, 3: {2, 302}}
	checkTimes(t, runJobs(t, cfg, jobs), want)
}

// twoLinearNodes returns a select/linear cluster of 2 nodes of 4 cores: a
// job takes whole nodes.
func twoLinearNodes(t *testing.T) cluster.Allocator {
	t.Helper()
	spec := &cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 4}}}
	al, err := spec.NewAllocator()
	if err != nil {
		t.Fatal(err)
	}
	return al
}

// checkTimes checks that every job of want completed at its start and end.
func checkTimes(t *testing.T, rec *simtest.Recorder, want map[int64][2]workload.Time) {
	t.Helper()
	for id, w := range want {
		if r := rec.ByID(t, id); r.State != sim.Completed || r.Start != w[0] || r.End != w[1] {
			t.Errorf("job %d: %v %d–%d, want completed %d–%d", id, r.State, r.Start, r.End, w[0], w[1])
		}
	}
}

// TestNodeEventsFederationRandom: node events on clusters of clusters
// (cluster.Federation): the nodes are numbered member after member, as the
// union of the members' groups numbers them. Random members (both linear or
// both cons_res, with speeds), workloads and node events; every run is
// checked by Verify against the union with the members and the events.
func TestNodeEventsFederationRandom(t *testing.T) {
	n := simtest.Cases(300, 30)
	var hit int
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 0xfed))
		sel := []string{cluster.SelectLinear, cluster.SelectConsRes}[r.IntN(2)]
		var members []cluster.FederationMember
		var specs []*cluster.Spec
		union := &cluster.Spec{Select: sel}
		for k := range 2 + r.IntN(2) {
			s := &cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "g", Count: 1 + r.IntN(6), Cores: 1 + r.IntN(4), Speed: []float64{0.5, 1, 2}[r.IntN(3)]}}}
			m, err := cluster.MemberOf(s)
			if err != nil {
				t.Fatal(err)
			}
			members, specs = append(members, m), append(specs, s)
			g := s.Groups[0]
			g.Name = fmt.Sprintf("c%d.g", k+1)
			union.Groups = append(union.Groups, g)
		}
		largest := 0
		for _, s := range specs {
			largest = max(largest, s.Cores())
		}
		jobs := syntheticJobs(seed, 20+r.IntN(150), largest)
		span := jobs[len(jobs)-1].Submit + 3600
		pol := []policy.Policy{policy.FCFS{}, &policy.EASY{Lookahead: policy.LookaheadAll}}[r.IntN(2)]
		cfg := sim.Config{Allocator: cluster.NewFederation(members), Policy: pol,
			NodeEvents: randomNodeEvents(r, union.Nodes(), span), OnNodeFail: sim.NodeFailAction(r.IntN(2))}
		eng, err := sim.New(cfg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		col := &sim.Collector{}
		if _, err := eng.Run(simtest.NewSource(jobs), col); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(col.Outcomes) != len(jobs) {
			t.Fatalf("seed %d: %d outcomes for %d jobs", seed, len(col.Outcomes), len(jobs))
		}
		for _, o := range col.Outcomes {
			if o.State == sim.NodeFail || o.Requeues > 0 {
				hit++
			}
		}
		_, fcfs := pol.(policy.FCFS)
		for _, v := range sim.Verify(union.Cores(), col.Outcomes, sim.VerifyOptions{FCFS: fcfs, Cluster: union, Members: specs, NodeEvents: cfg.NodeEvents}) {
			t.Errorf("seed %d (%s, %s, %v): %v", seed, sel, pol.Name(), cfg.OnNodeFail, v)
		}
	}
	if hit == 0 {
		t.Error("no job was killed or requeued by a node failure: the test does not exercise them")
	}
}

// TestNodeEventsFederation: node events on a cluster of clusters (linear,
// two clusters of 2 nodes of 2 cores, the second twice as fast; nodes 0–1
// are the first cluster's, 2–3 the second's). Job 1 (4 cores, 100 s at the
// trace's speed) goes at 0 to the faster cluster, equally idle: 0–50 on
// nodes 2–3. Node 3 goes down at 10:
//
//   - kill: job 1 dies at 10.
//   - requeue: it starts again at 10 where it fits, on the first cluster,
//     at its speed: its trace run time again, 10–110.
func TestNodeEventsFederation(t *testing.T) {
	for _, tc := range []struct {
		onFail     sim.NodeFailAction
		state      sim.State
		start, end workload.Time
		alloc      string
	}{
		{sim.NodeFailKill, sim.NodeFail, 0, 10, "2-3"},
		{sim.NodeFailRequeue, sim.Completed, 10, 110, "0-1"},
	} {
		t.Run(tc.onFail.String(), func(t *testing.T) {
			var ms []cluster.FederationMember
			for _, speed := range []float64{1, 2} {
				m, err := cluster.MemberOf(&cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 2, Speed: speed}}})
				if err != nil {
					t.Fatal(err)
				}
				ms = append(ms, m)
			}
			cfg := sim.Config{Allocator: cluster.NewFederation(ms), Policy: policy.FCFS{}, OnNodeFail: tc.onFail,
				NodeEvents: []cluster.NodeEvent{{At: 10, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 3, Hi: 4}}}}}
			eng, err := sim.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			if _, err := eng.Run(simtest.NewSource([]workload.Job{{ID: 1, Procs: 4, Run: 100, Estimate: 1000}}), rec); err != nil {
				t.Fatal(err)
			}
			r := rec.ByID(t, 1)
			if got := string(cluster.FormatRanges(nil, r.Alloc)); r.State != tc.state || r.Start != tc.start || r.End != tc.end || got != tc.alloc {
				t.Errorf("job 1: %v %d–%d on %s, want %v %d–%d on %s", r.State, r.Start, r.End, got, tc.state, tc.start, tc.end, tc.alloc)
			}
		})
	}
}

// runJobs runs jobs under cfg (simtest.Run) and returns the records.
func runJobs(t *testing.T, cfg sim.Config, jobs []workload.Job) *simtest.Recorder {
	t.Helper()
	r, _ := simtest.Run(t, cfg, jobs)
	return r
}

package sim_test

import (
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// slurmWant is a job's hand-computed outcome in the Slurm rule tables:
// its final state, start and end, where it ran, and its WILL_RUN
// prediction (predicted -2: not checked; -1: none, as in jobs.csv).
type slurmWant struct {
	state      sim.State
	start, end workload.Time
	alloc      string
	predicted  workload.Time
	predAlloc  string
	reason     string // substring of the record's reason
}

// slurmCase is one hand-computed schedule on a cluster of nodes.
type slurmCase struct {
	name   string
	alloc  func(t *testing.T) cluster.Allocator
	pol    policy.Policy
	events func(t testing.TB) []cluster.NodeEvent
	jobs   []workload.Job
	want   map[int64]slurmWant
	// defaults is the expected Stats.DefaultTimes.
	defaults int64
	onFail   sim.NodeFailAction
}

func (c slurmCase) run(t *testing.T) {
	cfg := sim.Config{Policy: c.pol, Allocator: c.alloc(t), OnNodeFail: c.onFail}
	if c.events != nil {
		cfg.NodeEvents = c.events(t)
	}
	eng, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	st, err := eng.Run(simtest.NewSource(c.jobs), rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Records) != len(c.want) {
		t.Errorf("%d records, want %d", len(rec.Records), len(c.want))
	}
	for id, w := range c.want {
		r := rec.ByID(t, id)
		if r.State != w.state || r.Start != w.start || r.End != w.end {
			t.Errorf("job %d: %v %d-%d, want %v %d-%d", id, r.State, r.Start, r.End, w.state, w.start, w.end)
		}
		if got := string(cluster.FormatRanges(nil, r.Alloc)); got != w.alloc {
			t.Errorf("job %d: ran on %q, want %q", id, got, w.alloc)
		}
		if w.predicted != -2 {
			p := r.Predicted
			if p >= workload.Forever {
				p = -1
			}
			if !r.HasPrediction || p != w.predicted {
				t.Errorf("job %d: predicted start %d (%v), want %d", id, p, r.HasPrediction, w.predicted)
			}
			if got := string(cluster.FormatRanges(nil, r.PredictedAlloc)); got != w.predAlloc {
				t.Errorf("job %d: predicted on %q, want %q", id, got, w.predAlloc)
			}
		}
		if !strings.Contains(r.Reason, w.reason) {
			t.Errorf("job %d: reason %q, want %q", id, r.Reason, w.reason)
		}
	}
	if st.DefaultTimes != c.defaults {
		t.Errorf("%d jobs got a partition's time limit, want %d", st.DefaultTimes, c.defaults)
	}
	if t.Failed() {
		t.Logf("records:\n%s", simtest.Format(rec.Records))
	}
}

// specAlloc returns an allocator factory for spec.
func specAlloc(spec *cluster.Spec) func(t *testing.T) cluster.Allocator {
	return func(t *testing.T) cluster.Allocator {
		a, err := spec.NewAllocator()
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
}

// TestWillRunWhereAndNodeEvents is issue 22 item 18: Slurm's WILL_RUN
// answers where a job would start as well as when, and a job's prediction
// takes the node events of its submission instant into account, those
// before the first submission included (they apply at it).
func TestWillRunWhereAndNodeEvents(t *testing.T) {
	const down, resume = cluster.NodeDown, cluster.NodeResume
	four := &cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 4, Cores: 1}}}
	cases := []slurmCase{
		{
			// Nodes 0-1 go down at 0 (before anything: with the first
			// submission) and come back at 100. FCFS.
			// 1 (2 nodes) is predicted after the DOWN: now, on 2-3, and
			// starts there. 2 (3 nodes, at 0) cannot fit the 2 nodes in
			// service even once everything running ends (jobs queued
			// ahead are not counted, as in Slurm): no prediction (-1).
			// It starts at the RESUME, 100, on 0-2 (best fit in the one
			// free set 0-3: its first nodes), ends 110. 3 (1 node, at 20)
			// is predicted at 60, 1's requested end, on node 2 (the
			// freed set 2-3, its first node); FCFS keeps it behind 2, so
			// it starts at 100 on node 3, ends 105.
			name:  "down at 0 before the first submission",
			alloc: specAlloc(four), pol: fcfs,
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 0, down, "0-1", 4, "maintenance"), nodeEvent(t, 100, resume, "0-1", 4, "")}
			},
			jobs: []workload.Job{job(1, 0, 2, 50, 60), job(2, 0, 3, 10, 10), job(3, 20, 1, 5, 5)},
			want: map[int64]slurmWant{
				1: {state: sim.Completed, start: 0, end: 50, alloc: "2-3", predicted: 0, predAlloc: "2-3"},
				2: {state: sim.Completed, start: 100, end: 110, alloc: "0-2", predicted: -1, predAlloc: ""},
				3: {state: sim.Completed, start: 100, end: 105, alloc: "3", predicted: 60, predAlloc: "2"},
			},
		},
		{
			// The same DOWN at 30, the instant 2 is submitted: 1 (2
			// nodes, at 0) runs on 0-1 (best fit: the first nodes) until
			// the DOWN kills it at 30. 2 (2 nodes, at 30) is predicted
			// after the DOWN: now, on 2-3 (before the fix: on 0-1, which
			// are down). It runs there 30-40.
			name:  "down at the submission instant",
			alloc: specAlloc(four), pol: fcfs,
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 30, down, "0-1", 4, "psu")}
			},
			jobs: []workload.Job{job(1, 0, 2, 50, 60), job(2, 30, 2, 10, 10)},
			want: map[int64]slurmWant{
				1: {state: sim.NodeFail, start: 0, end: 30, alloc: "0-1", predicted: 0, predAlloc: "0-1", reason: "node 0 down: psu"},
				2: {state: sim.Completed, start: 30, end: 40, alloc: "2-3", predicted: 30, predAlloc: "2-3"},
			},
		},
		{
			// Node 1 drains at 10, back at 200. 1 (2 nodes, requested 60)
			// runs 0-50 on 0-1. 2 (4 nodes, at 10) is predicted after the
			// DRAIN: 1's node 1 leaves service when 1 ends, so even then
			// only nodes 0, 2 and 3 are in service: no prediction (before
			// the fix: 60 on 0-3). It starts at the RESUME, 200, on 0-3.
			name:  "a draining node is not counted back",
			alloc: specAlloc(four), pol: fcfs,
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 10, cluster.NodeDrain, "1", 4, "reboot"), nodeEvent(t, 200, resume, "1", 4, "")}
			},
			jobs: []workload.Job{job(1, 0, 2, 50, 60), job(2, 10, 4, 10, 10)},
			want: map[int64]slurmWant{
				1: {state: sim.Completed, start: 0, end: 50, alloc: "0-1", predicted: 0, predAlloc: "0-1"},
				2: {state: sim.Completed, start: 200, end: 210, alloc: "0-3", predicted: -1, predAlloc: ""},
			},
		},
		{
			// No node events; cons_res, 2 nodes of 2 cores. 1 (3 cores)
			// takes cores 0-2 until 100 (requested 100). 2 (2 cores, at
			// 10) is predicted at 100 on cores 0-1 (everything freed:
			// the lowest cores); EASY backfills nothing (the head is 2
			// itself), so it starts at 100 on 0-1.
			name:  "where on cores",
			alloc: specAlloc(&cluster.Spec{Select: cluster.SelectConsRes, Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 2}}}),
			pol:   easyAll,
			jobs:  []workload.Job{job(1, 0, 3, 100, 100), job(2, 10, 2, 10, 10)},
			want: map[int64]slurmWant{
				1: {state: sim.Completed, start: 0, end: 100, alloc: "0-2", predicted: 0, predAlloc: "0-2"},
				2: {state: sim.Completed, start: 100, end: 110, alloc: "0-1", predicted: 100, predAlloc: "0-1"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestPartitionDefaultTime is issue 22 item 17: a job without a requested
// time gets its partition's DefaultTime (slurm.conf: "Run time limit used
// for jobs that don't specify a value. If not set then MaxTime will be
// used"), is killed at it, and is backfilled with it.
func TestPartitionDefaultTime(t *testing.T) {
	spec := &cluster.Spec{Select: cluster.SelectLinear,
		Groups: []cluster.NodeGroup{{Name: "a", Count: 2, Cores: 1}, {Name: "b", Count: 2, Cores: 1}},
		Partitions: []cluster.Partition{
			{Name: "short", Groups: []string{"a"}, DefaultTime: 20, MaxTime: 100, Default: true},
			{Name: "long", Groups: []string{"b"}, MaxTime: 50},
		}}
	part := func(j workload.Job, p int) workload.Job { j.Partition = p; return j }
	cases := []slurmCase{
		{
			// Partition short (nodes 0-1): 1 (2 nodes, no time, runs 30)
			// gets DefaultTime 20: killed at 20. 2 (1 node, no time,
			// runs 5, at 1) waits for 1; it gets 20 too, starts at 20 on
			// node 0 (best fit: first node), ends 25. Partition long
			// (nodes 2-3, numbered 2 by position): 3 (1 node, no time,
			// runs 80) gets MaxTime 50 (no DefaultTime): killed at 50.
			// 4 (1 node, requested 10, runs 10) keeps its own time.
			name:  "default time, else max time",
			alloc: specAlloc(spec), pol: easyAll,
			jobs: []workload.Job{job(1, 0, 2, 30, none), part(job(3, 0, 1, 80, none), 2), part(job(4, 0, 1, 10, 10), 2), job(2, 1, 1, 5, none)},
			want: map[int64]slurmWant{
				1: {state: sim.Killed, start: 0, end: 20, alloc: "0-1", predicted: -2},
				2: {state: sim.Completed, start: 20, end: 25, alloc: "0", predicted: -2},
				3: {state: sim.Killed, start: 0, end: 50, alloc: "2", predicted: -2},
				4: {state: sim.Completed, start: 0, end: 10, alloc: "3", predicted: -2},
			},
			defaults: 3,
		},
		{
			// Backfilling with the default time: in short, 1 (1 node,
			// requested 100) runs on node 0; 4 (2 nodes of long,
			// requested 50) on nodes 2-3. 2 (2 nodes, at 1) is the head,
			// its shadow time 50 (EASY counts processors across the
			// cluster: 4's end frees 2), no extra processors. 3 (1 node,
			// no time, runs 15, at 2) has DefaultTime 20: it ends by
			// 22 ≤ 50, so EASY backfills it on node 1 at 2 (without a
			// time it could not be). 2 starts when short's nodes are
			// free, at 100.
			name:  "a job without a time is backfilled with its default",
			alloc: specAlloc(spec), pol: easyAll,
			jobs: []workload.Job{job(1, 0, 1, 100, 100), part(job(4, 0, 2, 50, 50), 2), job(2, 1, 2, 10, 10), job(3, 2, 1, 15, none)},
			want: map[int64]slurmWant{
				1: {state: sim.Completed, start: 0, end: 100, alloc: "0", predicted: -2},
				2: {state: sim.Completed, start: 100, end: 110, alloc: "0-1", predicted: -2},
				3: {state: sim.Completed, start: 2, end: 17, alloc: "1", predicted: -2},
				4: {state: sim.Completed, start: 0, end: 50, alloc: "2-3", predicted: -2},
			},
			defaults: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestFederationPartitionLimits is issue 22 item 14: a cluster of clusters
// checks each member's partition MaxTime when it places a job, and a job
// without a time gets the time limit of the member that runs it.
func TestFederationPartitionLimits(t *testing.T) {
	member := func(name string, maxTime workload.Time, speed float64) *cluster.Spec {
		return &cluster.Spec{Select: cluster.SelectLinear,
			Groups:     []cluster.NodeGroup{{Name: name, Count: 2, Cores: 1, Speed: speed}},
			Partitions: []cluster.Partition{{Name: name + "q", Groups: []string{name}, MaxTime: maxTime}}}
	}
	fedOf := func(shortSpeed float64) func(t *testing.T) cluster.Allocator {
		return func(t *testing.T) cluster.Allocator {
			var ms []cluster.FederationMember
			for _, s := range []*cluster.Spec{member("short", 100, shortSpeed), member("long", 0, 1)} {
				m, err := cluster.MemberOf(s)
				if err != nil {
					t.Fatal(err)
				}
				ms = append(ms, m)
			}
			return cluster.NewFederation(ms)
		}
	}
	fed := fedOf(2)
	cases := []slurmCase{
		{
			// Member 1 (nodes 0-1, speed 2, MaxTime 100), member 2 (nodes
			// 2-3, speed 1, no limit). 1 (1 node, requested 500, runs
			// 400) may not run on member 1, though it is faster and as
			// idle: it runs on member 2 (node 2) at speed 1, 0-400. 2 (1
			// node, requested 100, runs 100) goes to the faster member 1
			// at 0 (node 0): 100·1/2 = 50 s, ends 50. 3 (2 nodes, no
			// time, runs 300, at 0): member 1 has node 1 only, member 2
			// node 3 only: it waits; at 50 member 1 is idle: it runs
			// there with member 1's MaxTime 100 as its limit: 300/2 =
			// 150 s > 100: killed at 150.
			name: "max time per member", alloc: fed, pol: fcfs,
			jobs: []workload.Job{job(1, 0, 1, 400, 500), job(2, 0, 1, 100, 100), job(3, 0, 2, 300, none)},
			want: map[int64]slurmWant{
				1: {state: sim.Completed, start: 0, end: 400, alloc: "2", predicted: -2},
				2: {state: sim.Completed, start: 0, end: 50, alloc: "0", predicted: -2},
				3: {state: sim.Killed, start: 50, end: 150, alloc: "0-1", predicted: -2},
			},
			defaults: 1,
		},
		{
			// Both members at speed 1. 1 (1 node, no time, runs 150)
			// goes to the first of two idle members, node 0, with its
			// MaxTime 100 as limit. Nodes 0-1 go down at 10: 1 is
			// requeued and restarts at once on member 2 (node 2), whose
			// partition has no limit: it runs its 150 s, 10-160.
			name: "requeued to another member: that member's limit", alloc: fedOf(1), pol: fcfs, onFail: sim.NodeFailRequeue,
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 10, cluster.NodeDown, "0-1", 4, "")}
			},
			jobs: []workload.Job{job(1, 0, 1, 150, none)},
			want: map[int64]slurmWant{
				1: {state: sim.Completed, start: 10, end: 160, alloc: "2", predicted: -2},
			},
			defaults: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestVerifyPartitionLimits is issue 22 items 14 and verify: Verify checks
// the partitions' MaxTime on every member of a cluster of clusters (and of
// one cluster): a job's nodes lie in a partition, and neither its requested
// time nor its run exceeds the partition's MaxTime.
func TestVerifyPartitionLimits(t *testing.T) {
	// The union of two members as summary.json records it: c1 (nodes
	// 0-1, partition c1.shortq with MaxTime 100) and c2 (nodes 2-3, one
	// unlimited partition).
	union := &cluster.Spec{Select: cluster.SelectLinear,
		Groups: []cluster.NodeGroup{{Name: "c1.short", Count: 2, Cores: 1}, {Name: "c2.long", Count: 2, Cores: 1}},
		Partitions: []cluster.Partition{
			{Name: "c1.shortq", Groups: []string{"c1.short"}, MaxTime: 100},
			{Name: "c2.*", Groups: []string{"c2.long"}},
		}}
	ran := func(id int64, run, estimate workload.Time, start workload.Time, alloc cluster.Range) sim.Outcome {
		j := job(id, 0, alloc.Len(), run, estimate)
		return sim.Outcome{Job: j, State: sim.Completed, Start: start, End: start + j.ActualRun(), Alloc: []cluster.Range{alloc}}
	}
	for _, tc := range []struct {
		name string
		out  sim.Outcome
		want string // "" no violation
	}{
		{"within MaxTime", ran(1, 100, 100, 0, cluster.Range{Lo: 0, Hi: 1}), ""},
		{"requested beyond MaxTime on member 1", ran(2, 400, 500, 0, cluster.Range{Lo: 1, Hi: 2}), "requested time 500 s exceeds partition c1.shortq's MaxTime of 100 s"},
		{"ran beyond MaxTime without a request", ran(3, 400, none, 0, cluster.Range{Lo: 0, Hi: 1}), "ran 400 s, beyond partition c1.shortq's MaxTime of 100 s"},
		{"member 2 has no limit", ran(4, 400, 500, 0, cluster.Range{Lo: 2, Hi: 4}), ""},
		{"across both members", ran(5, 10, 10, 0, cluster.Range{Lo: 1, Hi: 3}), "which no partition holds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := sim.Verify(union.Cores(), []sim.Outcome{tc.out}, sim.VerifyOptions{Cluster: union})
			var got []string
			for _, v := range vs {
				if v.Rule == "partition" {
					got = append(got, v.Msg)
				}
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("violations %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("violations %q, want one saying %q", got, tc.want)
			}
		})
	}
}

// TestLinearCRMemory is issue 22 item 16: select/linear with CR_Memory
// (cluster.Spec.CRMemory) allocates memory: a node holds as many of a
// job's processors as its memory allows, a job spreads over more whole
// nodes or waits for them, and one no partition's nodes can hold is
// rejected at submission with the reason.
func TestLinearCRMemory(t *testing.T) {
	spec := &cluster.Spec{Select: cluster.SelectLinear, CRMemory: true,
		Groups: []cluster.NodeGroup{{Name: "n", Count: 3, Cores: 4, MemoryMB: 4}}}
	mem := func(j workload.Job, kb float64) workload.Job { j.ReqMemKB = kb; return j }
	c := slurmCase{
		// 3 nodes of 4 cores and 4096 KB. 1 (4 processors of 2048 KB)
		// fits 2 per node: nodes 0-1, 0-100. 2 (2 of 1024 KB) node 2,
		// 0-50. 3 (8192 KB each) can never run: rejected at 10. 4 (8 of
		// 2048 KB: 2 per node, 6 in all) neither. 5 (4 of 1024 KB) waits
		// for a whole node: node 2 at 50, ends 60. 6 (3 of 2048 KB) needs
		// two nodes: node 2 alone at 60 holds only 2 (without CR_Memory
		// its 4 cores would do); at 100 it gets nodes 0-1, ends 110.
		name: "memory per node", alloc: specAlloc(spec), pol: fcfs,
		jobs: []workload.Job{
			mem(job(1, 0, 4, 100, 100), 2048), mem(job(2, 0, 2, 50, 50), 1024),
			mem(job(3, 10, 1, 10, 10), 8192), mem(job(4, 10, 8, 10, 10), 2048),
			mem(job(5, 10, 4, 10, 10), 1024), mem(job(6, 10, 3, 10, 10), 2048),
		},
		want: map[int64]slurmWant{
			1: {state: sim.Completed, start: 0, end: 100, alloc: "0-1", predicted: -2},
			2: {state: sim.Completed, start: 0, end: 50, alloc: "2", predicted: -2},
			3: {state: sim.Rejected, start: 10, end: 10, predicted: -2, reason: "needs 8192 KB of memory per processor, the largest node has 4096 KB"},
			4: {state: sim.Rejected, start: 10, end: 10, predicted: -2, reason: "needs 8 processors of 2048 KB memory each, the nodes' memory holds 6"},
			5: {state: sim.Completed, start: 50, end: 60, alloc: "2", predicted: -2},
			6: {state: sim.Completed, start: 100, end: 110, alloc: "0-1", predicted: -2},
		},
	}
	t.Run(c.name, c.run)
	t.Run("verify accepts the memory rejections", func(t *testing.T) {
		rec, _, _ := simtest.RunNodes(t, spec, sim.Config{Policy: fcfs}, c.jobs)
		for _, v := range sim.Verify(spec.Cores(), rec.Outcomes(), sim.VerifyOptions{Cluster: spec}) {
			t.Errorf("verify: %v", v)
		}
	})
}

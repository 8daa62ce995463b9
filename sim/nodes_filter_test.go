package sim_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestNodeDownUnderReservingFilter: an activation filter keeps processors
// for a job (result 2), then the very processors it keeps go down. The
// reservation cannot be kept (fewer processors are in service than it
// holds): like every reservation, a node event voids it, and the job waits
// as queued. Machine of 4, one processor per node; job 1 (2 processors,
// 1000 s) starts at 0 on 0-1; job 2 (2 processors) gets 2 at 0 and keeps
// 2-3; nodes 2-3 go down at 10 and come back at 20, when job 2 starts (its
// filter now says 0), having reserved for 10 s.
func TestNodeDownUnderReservingFilter(t *testing.T) {
	for _, inner := range []policy.Policy{policy.FCFS{}, &policy.EASY{Lookahead: policy.LookaheadAll}} {
		t.Run(inner.Name(), func(t *testing.T) {
			f := &scripted{name: "s", script: map[int64][]hpcpack.Result{2: {hpcpack.Exit(2, "")}}}
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}, Reevaluate: 60, DefaultHold: 120}
			pol, err := h.Wrap(inner)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := sim.New(sim.Config{Procs: 4, Policy: pol, Admission: h, Annotator: h, NodeEvents: []cluster.NodeEvent{
				{At: 10, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 2, Hi: 4}}},
				{At: 20, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 2, Hi: 4}}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			if _, err := eng.Run(simtest.NewSource([]workload.Job{job(1, 0, 2, 1000, 1000), job(2, 0, 2, 50, 50)}), rec); err != nil {
				t.Fatal(err)
			}
			r := rec.ByID(t, 2)
			if r.State != sim.Completed || r.Start != 20 || r.End != 70 {
				t.Errorf("job 2: %v %d–%d, want completed 20–70", r.State, r.Start, r.End)
			}
			if want := "activate=0x1,2x1 reserving_sec=10"; r.Note != want {
				t.Errorf("job 2 note %q, want %q", r.Note, want)
			}
		})
	}
}

// randFilter answers one of codes at random (0, 1, 2 and 3 by default, 0
// half the time).
type randFilter struct {
	r     *rand.Rand
	codes []int
}

func (f *randFilter) Name() string { return "rand" }
func (f *randFilter) FilterActivation(a *hpcpack.Activation) hpcpack.Result {
	codes := f.codes
	if codes == nil {
		codes = []int{0, 0, 0, 1, 2, 3}
	}
	return hpcpack.Exit(codes[f.r.IntN(len(codes))], "")
}
func (f *randFilter) RevertActivation(*hpcpack.Activation) {}

// TestNodeEventsFilteredRandom runs random node failures under random
// activation filter results (blocking, reserving, holding), under FCFS,
// EASY and Ordered: no panic, every job has an outcome, and the schedule
// verifies against the node events.
func TestNodeEventsFilteredRandom(t *testing.T) {
	n := uint64(simtest.Cases(300, 40))
	for seed := range n {
		r := rand.New(rand.NewPCG(seed, 0xfa11))
		procs := 1 + r.IntN(64)
		size := 1 + r.IntN(4)
		jobs := syntheticJobs(seed, 20+r.IntN(200), procs)
		span := jobs[len(jobs)-1].Submit + 3600
		h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{&randFilter{r: rand.New(rand.NewPCG(seed, 1))}}, Reevaluate: 60, DefaultHold: 120}
		var inner policy.Policy = &policy.EASY{Lookahead: policy.LookaheadAll}
		if seed%2 == 1 {
			inner = policy.FCFS{}
		}
		p, err := h.Wrap(inner)
		if err != nil {
			t.Fatal(err)
		}
		if seed%3 == 0 {
			o, _ := policy.ParseOrder("sjf", policy.DefaultPriorityParams())
			p = &policy.Ordered{Order: o, Inner: p}
		}
		cfg := sim.Config{Procs: procs, NodeSize: size, Policy: p, Admission: h, Annotator: h,
			NodeEvents: randomNodeEvents(r, (procs+size-1)/size, span), OnNodeFail: sim.NodeFailAction(r.IntN(2))}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("seed %d (%v): panic: %v", seed, cfg.OnNodeFail, p)
				}
			}()
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
			for _, v := range sim.Verify(procs, col.Outcomes, sim.VerifyOptions{NodeEvents: cfg.NodeEvents, NodeSize: size}) {
				t.Errorf("seed %d (%v): %v", seed, cfg.OnNodeFail, v)
			}
		}()
	}
}

// TestNodeEventsStranded: jobs that can never start because nodes stay
// down to the end are rejected with that reason. Machine of 4, one
// processor per node, FCFS: job 1 (4 processors) runs from 0 and is killed
// when node 3 goes down at 10, for good; job 2 (4 processors) and job 3 (1
// processor, behind it) arrive at 20 and never start.
func TestNodeEventsStranded(t *testing.T) {
	eng, err := sim.New(sim.Config{Procs: 4, Policy: policy.FCFS{}, NodeEvents: []cluster.NodeEvent{
		{At: 10, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 3, Hi: 4}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	if _, err := eng.Run(simtest.NewSource([]workload.Job{job(1, 0, 4, 100, 100), job(2, 20, 4, 50, 50), job(3, 20, 1, 50, 50)}), rec); err != nil {
		t.Fatal(err)
	}
	if r := rec.ByID(t, 1); r.State != sim.NodeFail || r.End != 10 {
		t.Errorf("job 1: %v ending %d, want node_fail at 10", r.State, r.End)
	}
	for _, id := range []int64{2, 3} {
		r := rec.ByID(t, id)
		if r.State != sim.Rejected || !strings.Contains(r.Reason, "3 processors in service after the last node event") {
			t.Errorf("job %d: %v %q, want rejected for the processors in service", id, r.State, r.Reason)
		}
	}
}

// idle is a broken policy that never starts a job.
type idle struct{}

func (idle) Name() string                           { return "idle" }
func (idle) Schedule(policy.View, policy.Decisions) {}

// TestNodeEventsStuckQueueIsABug: with every node back in service at the
// end, jobs left queued are not victims of the node events but of a policy
// that starts nothing: the engine's invariant panic, not rejections that
// blame the nodes.
func TestNodeEventsStuckQueueIsABug(t *testing.T) {
	eng, err := sim.New(sim.Config{Procs: 4, Policy: idle{}, NodeEvents: []cluster.NodeEvent{
		{At: 10, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 3, Hi: 4}}},
		{At: 30, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 3, Hi: 4}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		p := recover()
		if s, _ := p.(string); !strings.HasPrefix(s, "sim: run ended with 1 jobs queued") {
			t.Errorf("panic %v, want the engine's stuck-queue invariant", p)
		}
	}()
	eng.Run(simtest.NewSource([]workload.Job{job(1, 0, 4, 100, 100)}), &simtest.Recorder{})
}

// TestActivationReservesNodes: on a cluster of nodes, activation result 2
// keeps the candidate nodes themselves, not a count of processors. Four
// 1-core nodes under select/linear, nodes 0–1 in partition 1 (the
// default), 2–3 in partition 2. Job 2 (partition 2, 2 nodes) gets 2 at 0
// and keeps nodes 2–3; job 3 (partition 2, 1 node) would fit them by
// count beside the idle nodes 0–1, but they are kept, so it waits; job 4
// (partition 1) backfills on node 0 at once. At 60 job 2's filter says 0
// and it starts on its nodes; job 3 starts when it ends, at 110.
func TestActivationReservesNodes(t *testing.T) {
	for _, c := range []struct {
		sel   string
		inner func() policy.Policy
	}{
		{cluster.SelectLinear, func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
		{cluster.SelectConsRes, func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
	} {
		inner := c.inner()
		t.Run(c.sel+"/"+inner.Name(), func(t *testing.T) {
			spec := &cluster.Spec{Select: c.sel,
				Groups:     []cluster.NodeGroup{{Name: "a", Count: 2, Cores: 1}, {Name: "b", Count: 2, Cores: 1}},
				Partitions: []cluster.Partition{{Name: "pa", Groups: []string{"a"}, SWF: 1, Default: true}, {Name: "pb", Groups: []string{"b"}, SWF: 2}}}
			al, err := spec.NewAllocator()
			if err != nil {
				t.Fatal(err)
			}
			f := &scripted{name: "s", script: map[int64][]hpcpack.Result{2: {hpcpack.Exit(2, "")}}}
			h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{f}, Reevaluate: 60}
			pol, err := h.Wrap(inner)
			if err != nil {
				t.Fatal(err)
			}
			j2, j3, j4 := job(2, 0, 2, 50, 50), job(3, 1, 1, 10, 10), job(4, 1, 1, 10, 10)
			j2.Partition, j3.Partition, j4.Partition = 2, 2, 1
			j2.Seq, j3.Seq, j4.Seq = 0, 1, 2
			rec, _ := simtest.Run(t, sim.Config{Procs: 4, Policy: pol, Allocator: al, Admission: h, Annotator: h}, []workload.Job{j2, j3, j4})
			for _, w := range []struct {
				id         int64
				start, end workload.Time
				alloc      string
			}{{2, 60, 110, "[{2 4}]"}, {3, 110, 120, "[{2 3}]"}, {4, 1, 11, "[{0 1}]"}} {
				r := rec.ByID(t, w.id)
				if r.Start != w.start || r.End != w.end || fmt.Sprint(r.Alloc) != w.alloc {
					t.Errorf("job %d ran %d–%d on %v, want %d–%d on %s", w.id, r.Start, r.End, r.Alloc, w.start, w.end, w.alloc)
				}
			}
			if r := rec.ByID(t, 2); r.Note != "activate=0x1,2x1 reserving_sec=60" {
				t.Errorf("job 2 note %q", r.Note)
			}
		})
	}
}

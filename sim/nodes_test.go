package sim_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// nodeEvent builds a node event from ParseNodeList's notation.
func nodeEvent(t testing.TB, at workload.Time, st cluster.NodeState, nodes string, nodeCount int, reason string) cluster.NodeEvent {
	t.Helper()
	rs, err := cluster.ParseNodeList(nodes, nodeCount)
	if err != nil {
		t.Fatal(err)
	}
	return cluster.NodeEvent{At: at, State: st, Nodes: rs, Reason: reason}
}

// nodeWant is a job's expected outcome.
type nodeWant struct {
	state      sim.State
	start, end workload.Time
	alloc      string // cluster.FormatRanges; "" not checked
	requeues   int
	reason     string // a substring of the reason; "" not checked
}

// runWithNodes runs jobs with node events, checks the records against
// want and sim.Verify, and returns the statistics.
func runWithNodes(t *testing.T, cfg sim.Config, jobs []workload.Job, want map[int64]nodeWant) sim.Stats {
	t.Helper()
	eng, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	col := &sim.Collector{}
	st, err := eng.Run(simtest.NewSource(jobs), simtest.Tee{rec, col})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Records) != len(jobs) {
		t.Errorf("%d records for %d jobs", len(rec.Records), len(jobs))
	}
	for id, w := range want {
		r := rec.ByID(t, id)
		if r.State != w.state || r.Start != w.start || r.End != w.end || r.Requeues != w.requeues {
			t.Errorf("job %d: %v %d-%d requeues %d, want %v %d-%d requeues %d", id, r.State, r.Start, r.End, r.Requeues, w.state, w.start, w.end, w.requeues)
		}
		if got := string(cluster.FormatRanges(nil, r.Alloc)); w.alloc != "" && got != w.alloc {
			t.Errorf("job %d: allocated %q, want %q", id, got, w.alloc)
		}
		if !strings.Contains(r.Reason, w.reason) {
			t.Errorf("job %d: reason %q, want it to hold %q", id, r.Reason, w.reason)
		}
	}
	vs := sim.Verify(cfg.Procs, col.Outcomes, sim.VerifyOptions{FCFS: cfg.Policy == fcfs, NodeEvents: cfg.NodeEvents, NodeSize: cfg.NodeSize})
	for _, v := range vs {
		t.Errorf("verify: %v", v)
	}
	if t.Failed() {
		t.Logf("records:\n%s", simtest.Format(rec.Records))
	}
	return st
}

func TestNodeEvents(t *testing.T) {
	const down, drain, resume = cluster.NodeDown, cluster.NodeDrain, cluster.NodeResume
	cases := []struct {
		name     string
		cfg      sim.Config
		events   func(t testing.TB) []cluster.NodeEvent
		jobs     []workload.Job
		want     map[int64]nodeWant
		killed   int64
		requeued int64
		lost     float64
		rejected int64
	}{
		{
			// 1 runs on 0-1, 2 on 2-3. Node 0 goes down at 20: 1 is
			// killed (2·20 processor-seconds lost). 3 (4 procs, at 30)
			// waits for node 0 to resume at 60; 2 ended at 50.
			name: "down kills the job, a queued job waits for resume",
			cfg:  sim.Config{Procs: 4, Policy: fcfs},
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 20, down, "0", 4, "maintenance"), nodeEvent(t, 60, resume, "0", 4, "")}
			},
			jobs: []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 2, 50, 50), job(3, 30, 4, 10, 10)},
			want: map[int64]nodeWant{
				1: {state: sim.NodeFail, start: 0, end: 20, alloc: "0-1", reason: "node 0 down: maintenance"},
				2: {state: sim.Completed, start: 0, end: 50, alloc: "2-3"},
				3: {state: sim.Completed, start: 60, end: 70, alloc: "0-3"},
			},
			killed: 1, lost: 40,
		},
		{
			// The same, requeued: at 20 only processor 1 is free, 1 waits
			// at the head; at 50 (2 ends) it restarts on 1-2 and runs its
			// full 100 s; 3 waits behind it until 150.
			name: "down requeues the job, which restarts from the start",
			cfg:  sim.Config{Procs: 4, Policy: fcfs, OnNodeFail: sim.NodeFailRequeue},
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 20, down, "0", 4, "maintenance"), nodeEvent(t, 60, resume, "0", 4, "")}
			},
			jobs: []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 2, 50, 50), job(3, 30, 4, 10, 10)},
			want: map[int64]nodeWant{
				1: {state: sim.Completed, start: 50, end: 150, alloc: "1-2", requeues: 1},
				2: {state: sim.Completed, start: 0, end: 50, alloc: "2-3"},
				3: {state: sim.Completed, start: 150, end: 160, alloc: "0-3"},
			},
			requeued: 1, lost: 40,
		},
		{
			// Requeued jobs keep their submission-order place: 1 (seq 0)
			// goes back ahead of 3, submitted before the failure.
			name: "requeued job goes back ahead of later jobs",
			cfg:  sim.Config{Procs: 4, Policy: fcfs, OnNodeFail: sim.NodeFailRequeue},
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 20, down, "0-1", 4, ""), nodeEvent(t, 30, resume, "0-1", 4, "")}
			},
			// 1 on 0-1 until 100, 2 on 2-3 until 40; 3 (2 procs) queued
			// at 5. At 20, 1 is requeued ahead of 3; nothing is free.
			// At 30 nodes 0-1 return: 1 restarts on 0-1 (30-130), 3
			// waits; at 40 3 starts on 2-3.
			jobs: []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 2, 40, 40), job(3, 5, 2, 10, 10)},
			want: map[int64]nodeWant{
				1: {state: sim.Completed, start: 30, end: 130, alloc: "0-1", requeues: 1},
				3: {state: sim.Completed, start: 40, end: 50, alloc: "2-3"},
			},
			requeued: 1, lost: 40,
		},
		{
			// Nodes 0-1 drain at 10: 1 runs on to 100. 2 (3 procs, at 20)
			// does not fit the 2 processors in service and waits for the
			// resume at 200. EASY sees 1 giving nothing back (its
			// processors stay out of service), so 2's start is unknown
			// and 3 (2 procs, 150 s) backfills at 20; had 1 been reported
			// as returning 2 processors at 100, 2's shadow would be 100
			// and 3 (ending at 170, no extra processors) could not start.
			name: "drain lets the job finish and blocks new starts until resume",
			cfg:  sim.Config{Procs: 4, Policy: easyAll},
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 10, drain, "0-1", 4, "reboot"), nodeEvent(t, 200, resume, "0-1", 4, "")}
			},
			jobs: []workload.Job{job(1, 0, 2, 100, 100), job(2, 20, 3, 10, 10), job(3, 20, 2, 150, 150)},
			want: map[int64]nodeWant{
				1: {state: sim.Completed, start: 0, end: 100, alloc: "0-1"},
				2: {state: sim.Completed, start: 200, end: 210, alloc: "0-2"},
				3: {state: sim.Completed, start: 20, end: 170, alloc: "2-3"},
			},
		},
		{
			// 3 (4 procs) becomes the head at 10 with a reservation at 100
			// (1 and 2 end). Node 3 goes down at 50 and kills 2: the
			// reservation is void (3 no longer fits the machine), 4 (1
			// proc, 200 s) backfills at 60 on processor 2. When node 3
			// resumes at 120, 3 is re-planned behind 4: it starts at 260.
			name: "easy re-plans the head's reservation after a failure",
			cfg:  sim.Config{Procs: 4, Policy: easyAll},
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 50, down, "3", 4, "fan"), nodeEvent(t, 120, resume, "3", 4, "")}
			},
			jobs: []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 2, 100, 100), job(3, 10, 4, 10, 10), job(4, 60, 1, 200, 200)},
			want: map[int64]nodeWant{
				1: {state: sim.Completed, start: 0, end: 100, alloc: "0-1"},
				2: {state: sim.NodeFail, start: 0, end: 50, alloc: "2-3", reason: "node 3 down: fan"},
				3: {state: sim.Completed, start: 260, end: 270, alloc: "0-3"},
				4: {state: sim.Completed, start: 60, end: 260, alloc: "2"},
			},
			killed: 1, lost: 100,
		},
		{
			// Nodes of 2 processors: node 1 is processors 2-3. 1 holds
			// 0-2 and dies with node 1 at 10; 2 (6 procs, at 20) gets the
			// processors in service, around the down node.
			name: "nodes of several processors: allocation avoids the down node",
			cfg:  sim.Config{Procs: 8, Policy: fcfs, NodeSize: 2},
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 10, down, "1", 4, "")}
			},
			jobs: []workload.Job{job(1, 0, 3, 100, 100), job(2, 20, 6, 10, 10)},
			want: map[int64]nodeWant{
				1: {state: sim.NodeFail, start: 0, end: 10, alloc: "0-2", reason: "node 1 down"},
				2: {state: sim.Completed, start: 20, end: 30, alloc: "0-1 4-7"},
			},
			killed: 1, lost: 30,
		},
		{
			// Nodes 0-1 go down before anything arrives and never return:
			// 1 (3 procs) can never start and blocks 2 under FCFS; both
			// are rejected at the end, with the reason.
			name: "jobs that can never start are rejected at the end",
			cfg:  sim.Config{Procs: 4, Policy: fcfs},
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 0, down, "0-1", 4, "")}
			},
			jobs: []workload.Job{job(1, 5, 3, 10, 10), job(2, 5, 1, 10, 10)},
			want: map[int64]nodeWant{
				1: {state: sim.Rejected, start: 5, end: 5, reason: "2 processors in service"},
				2: {state: sim.Rejected, start: 5, end: 5, reason: "in service"},
			},
			rejected: 2,
		},
		{
			// A DOWN while the job's own node drains: 1 on node 0 keeps
			// running through the drain at 10 and dies at 30.
			name: "down after drain kills the job still running",
			cfg:  sim.Config{Procs: 2, Policy: fcfs},
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 10, drain, "0", 2, ""), nodeEvent(t, 30, down, "0", 2, "dead"), nodeEvent(t, 40, resume, "0", 2, "")}
			},
			jobs: []workload.Job{job(1, 0, 1, 100, 100), job(2, 15, 2, 10, 10)},
			want: map[int64]nodeWant{
				1: {state: sim.NodeFail, start: 0, end: 30, alloc: "0", reason: "node 0 down: dead"},
				2: {state: sim.Completed, start: 40, end: 50, alloc: "0-1"},
			},
			killed: 1, lost: 30,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.NodeEvents = c.events(t)
			st := runWithNodes(t, cfg, c.jobs, c.want)
			if st.NodeKilled != c.killed || st.Requeued != c.requeued || st.LostProcSeconds != c.lost || st.Rejected != c.rejected {
				t.Errorf("stats: killed %d requeued %d lost %.0f rejected %d, want %d %d %.0f %d",
					st.NodeKilled, st.Requeued, st.LostProcSeconds, st.Rejected, c.killed, c.requeued, c.lost, c.rejected)
			}
		})
	}
}

// TestNodeEventsSample checks that samples count the idle processors out
// of service apart from the busy ones.
func TestNodeEventsSample(t *testing.T) {
	cfg := sim.Config{Procs: 4, Policy: fcfs, NodeEvents: []cluster.NodeEvent{
		nodeEvent(t, 5, cluster.NodeDrain, "0-2", 4, ""), nodeEvent(t, 50, cluster.NodeResume, "0-2", 4, "")}}
	eng, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &simtest.SampleRecorder{}
	// 1 holds 0-1 until 20; at 5 nodes 0-2 drain: processor 2 leaves
	// service at once, 0-1 when 1 ends.
	if _, err := eng.Run(simtest.NewSource([]workload.Job{job(1, 0, 2, 20, 20)}), s); err != nil {
		t.Fatal(err)
	}
	want := []sim.Sample{
		{Time: 0, Busy: 2, Running: 1},
		{Time: 5, Busy: 2, Running: 1, Unavailable: 1},
		{Time: 20, Busy: 0, Unavailable: 3},
	}
	if len(s.Samples) != len(want) {
		t.Fatalf("samples %+v, want %+v", s.Samples, want)
	}
	for i := range want {
		if s.Samples[i] != want[i] {
			t.Errorf("sample %d: %+v, want %+v", i, s.Samples[i], want[i])
		}
	}
}

func TestNodeEventsConfigErrors(t *testing.T) {
	ev := []cluster.NodeEvent{{At: 0, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 0, Hi: 1}}}}
	spec := &cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 2}}}
	al, err := spec.NewAllocator()
	if err != nil {
		t.Fatal(err)
	}
	m, err := cluster.MemberOf(spec)
	if err != nil {
		t.Fatal(err)
	}
	fed := cluster.NewFederation([]cluster.FederationMember{m, m})
	cases := []struct {
		name string
		cfg  sim.Config
		want string
	}{
		{"node out of the machine", sim.Config{Procs: 4, NodeSize: 4, NodeEvents: []cluster.NodeEvent{{State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 1, Hi: 2}}}}}, "outside the machine's nodes 0-0"},
		{"unsorted", sim.Config{Procs: 4, NodeEvents: []cluster.NodeEvent{{At: 5, State: cluster.NodeDown, Nodes: ev[0].Nodes}, {At: 1, State: cluster.NodeResume, Nodes: ev[0].Nodes}}}, "sorted by time"},
		{"node size on a cluster", sim.Config{Allocator: al, NodeSize: 2, NodeEvents: ev}, "the nodes are the cluster's"},
		{"node past a cluster of clusters", sim.Config{Allocator: fed, NodeEvents: []cluster.NodeEvent{{State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 4, Hi: 5}}}}}, "outside the machine's nodes 0-3"},
		{"negative node size", sim.Config{Procs: 4, NodeSize: -1, NodeEvents: ev}, "node size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := sim.New(c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one holding %q", err, c.want)
			}
		})
	}
}

// TestVerifyNodeEvents checks that Verify catches runs that ignore the
// node events.
func TestVerifyNodeEvents(t *testing.T) {
	evs := []cluster.NodeEvent{nodeEvent(t, 10, cluster.NodeDown, "1", 4, ""), nodeEvent(t, 50, cluster.NodeResume, "1", 4, "")}
	out := func(id int64, st sim.State, start, end workload.Time, lo, hi int) sim.Outcome {
		j := job(id, 0, hi-lo, 100, 100)
		j.Seq = id
		return sim.Outcome{Job: j, State: st, Start: start, End: end, Alloc: []cluster.Range{{Lo: lo, Hi: hi}}}
	}
	cases := []struct {
		name string
		out  sim.Outcome
		rule string
	}{
		{"runs through a down", out(1, sim.Completed, 0, 100, 0, 2), "node-state"},
		{"starts on a down node", out(1, sim.Completed, 20, 120, 1, 2), "node-state"},
		{"node failure without a down", out(1, sim.NodeFail, 0, 30, 0, 2), "node-state"},
		{"node failure on another node", out(1, sim.NodeFail, 0, 10, 2, 4), "node-state"},
		{"node failure after the end", out(1, sim.NodeFail, 0, 100, 0, 2), "end"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := sim.Verify(4, []sim.Outcome{c.out}, sim.VerifyOptions{NodeEvents: evs})
			found := false
			for _, v := range vs {
				found = found || v.Rule == c.rule
			}
			if !found {
				t.Errorf("violations %v, want one of rule %q", vs, c.rule)
			}
		})
	}
	ok := []sim.Outcome{out(1, sim.NodeFail, 0, 10, 0, 2), out(2, sim.Completed, 50, 150, 1, 2), out(3, sim.Completed, 0, 100, 2, 4)}
	if vs := sim.Verify(4, ok, sim.VerifyOptions{NodeEvents: evs}); len(vs) != 0 {
		t.Errorf("a valid run: violations %v", vs)
	}
}

// randomNodeEvents draws a node-event schedule over [0, span): DOWN, DRAIN
// and RESUME of random node ranges, every node resumed at the end.
func randomNodeEvents(r *rand.Rand, nodes int, span workload.Time) []cluster.NodeEvent {
	var evs []cluster.NodeEvent
	var t workload.Time
	for t < span {
		t += workload.Time(r.IntN(int(span/8) + 1))
		lo := r.IntN(nodes)
		hi := lo + 1 + r.IntN(min(nodes-lo, max(nodes/4, 1)))
		st := []cluster.NodeState{cluster.NodeDown, cluster.NodeDrain, cluster.NodeResume}[r.IntN(3)]
		evs = append(evs, cluster.NodeEvent{At: t, State: st, Nodes: []cluster.Range{{Lo: lo, Hi: hi}}, Reason: "random"})
	}
	return append(evs, cluster.NodeEvent{At: t + 1, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 0, Hi: nodes}}})
}

// TestNodeEventsRandom runs seeded random workloads with random node
// events under every policy that supports them, killing or requeueing, and
// checks the invariants: the engine's own (it panics on a broken one) and
// Verify's. A failing case names its seed.
func TestNodeEventsRandom(t *testing.T) {
	pols := []func() policy.Policy{
		func() policy.Policy { return policy.FCFS{} },
		func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} },
		func() policy.Policy { return &policy.EASY{Lookahead: 2, SJBF: true} },
		func() policy.Policy { return &policy.Depth{Depth: 3, Lookahead: policy.LookaheadAll} },
		func() policy.Policy { return slurm(policy.SlurmParams{}) },
		func() policy.Policy { return &policy.Conservative{} },
	}
	n := simtest.Cases(2000, 200)
	// hits counts, on the pool [0] and on clusters [1], the jobs killed
	// and requeued by node failures: the cases must exercise both.
	var killed, requeued [2]int
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 0xfa11))
		procs := 1 + r.IntN(64)
		size := 1 + r.IntN(4)
		jobs := syntheticJobs(seed, 20+r.IntN(200), procs)
		span := jobs[len(jobs)-1].Submit + 3600
		cfg := sim.Config{Procs: procs, NodeSize: size, Policy: &capacitySpy{pols[seed%uint64(len(pols))](), t, seed},
			NodeEvents: randomNodeEvents(r, (procs+size-1)/size, span), OnNodeFail: sim.NodeFailAction(r.IntN(2))}
		var spec *cluster.Spec
		if seed%3 == 0 {
			// A cluster of nodes, whole (linear) or shared (cons_res),
			// under a policy that asks it where jobs fit.
			sel := []string{cluster.SelectLinear, cluster.SelectConsRes}[r.IntN(2)]
			spec = &cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "a", Count: 1 + r.IntN(8), Cores: 1 + r.IntN(4)}, {Name: "b", Count: 1 + r.IntN(8), Cores: 1 + r.IntN(4)}}}
			al, err := spec.NewAllocator()
			if err != nil {
				t.Fatal(err)
			}
			procs, size = spec.Cores(), 1
			jobs = syntheticJobs(seed, 20+r.IntN(200), procs)
			span = jobs[len(jobs)-1].Submit + 3600
			cfg = sim.Config{Allocator: al, Policy: &capacitySpy{pols[seed%2](), t, seed},
				NodeEvents: randomNodeEvents(r, spec.Nodes(), span), OnNodeFail: sim.NodeFailAction(r.IntN(2))}
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("seed %d (%s, %v): panic: %v", seed, cfg.Policy.Name(), cfg.OnNodeFail, p)
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
			if seed%10 == 0 {
				// The same case again gives the same outcomes.
				cfg.Policy = &capacitySpy{pols[seed%uint64(len(pols))](), t, seed}
				if spec != nil {
					cfg.Policy = &capacitySpy{pols[seed%2](), t, seed}
					al, _ := spec.NewAllocator()
					cfg.Allocator = al
				}
				eng, err := sim.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				again := &sim.Collector{}
				if _, err := eng.Run(simtest.NewSource(jobs), again); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(again.Outcomes, col.Outcomes) {
					t.Fatalf("seed %d: a second run of the same case differs", seed)
				}
			}
			k := 0
			if spec != nil {
				k = 1
			}
			for _, o := range col.Outcomes {
				if o.State == sim.NodeFail {
					killed[k]++
				}
				if o.Requeues > 0 {
					requeued[k]++
				}
			}
			_, isFCFS := cfg.Policy.(*capacitySpy).Policy.(policy.FCFS)
			for _, v := range sim.Verify(procs, col.Outcomes, sim.VerifyOptions{FCFS: isFCFS, NodeEvents: cfg.NodeEvents, NodeSize: size, Cluster: spec}) {
				t.Errorf("seed %d (%s, %v): %v", seed, cfg.Policy.Name(), cfg.OnNodeFail, v)
			}
		}()
	}
	if killed[0] == 0 || killed[1] == 0 || requeued[0] == 0 || requeued[1] == 0 {
		t.Errorf("node failures killed %v and requeued %v jobs (pool, clusters): some kind was never exercised", killed, requeued)
	}
	t.Logf("node failures killed %v and requeued %v jobs (pool, clusters)", killed, requeued)
}

// capacitySpy checks at every pass that the view adds up: the capacity is
// the free processors plus those the running jobs will give back.
type capacitySpy struct {
	policy.Policy
	t    *testing.T
	seed uint64
}

func (c *capacitySpy) Schedule(v policy.View, d policy.Decisions) {
	sum := v.Free()
	for k := range v.NumRunning() {
		_, p := v.Running(k)
		sum += p
	}
	if sum != v.Capacity() {
		c.t.Fatalf("seed %d at %d: capacity %d, free %d + running %d", c.seed, v.Now(), v.Capacity(), v.Free(), sum-v.Free())
	}
	c.Policy.Schedule(v, d)
}

// TestNodeEventsOnClusters runs node events on clusters of nodes: whole
// nodes (linear) and cores (cons_res), hand-computed.
func TestNodeEventsOnClusters(t *testing.T) {
	const down, drain, resume = cluster.NodeDown, cluster.NodeDrain, cluster.NodeResume
	// Three nodes of 2 cores (cores 0-1, 2-3, 4-5).
	spec := func(sel string) *cluster.Spec {
		return &cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "n", Count: 3, Cores: 2}}}
	}
	cases := []struct {
		name   string
		sel    string
		pol    policy.Policy
		onFail sim.NodeFailAction
		events func(t testing.TB) []cluster.NodeEvent
		jobs   []workload.Job
		want   map[int64]nodeWant
		lost   float64
	}{
		{
			// linear: 1 (3 cores) holds nodes 0-1 (4 cores), 2 (1 core)
			// node 2. Node 1 goes down at 10 and kills 1 (4 cores · 10 s
			// lost). 3 (4 cores, at 20) fits nodes 0 and 2 only when 2
			// ends at 30: it gets them, around the down node.
			name: "linear: down kills the job, the next avoids the node", sel: cluster.SelectLinear, pol: fcfs,
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 10, down, "1", 3, "psu")}
			},
			jobs: []workload.Job{job(1, 0, 3, 100, 100), job(2, 0, 1, 30, 30), job(3, 20, 4, 10, 10)},
			want: map[int64]nodeWant{
				1: {state: sim.NodeFail, start: 0, end: 10, alloc: "0-1", reason: "node 1 down: psu"},
				2: {state: sim.Completed, start: 0, end: 30, alloc: "2"},
				3: {state: sim.Completed, start: 30, end: 40, alloc: "0 2"},
			},
			lost: 40,
		},
		{
			// cons_res: 1 (3 cores) holds cores 0-2 (nodes 0 and 1). Node
			// 1 drains at 10: its free core 3 leaves service at once,
			// core 2 when 1 ends at 50. 2 (2 cores, at 20) runs on node
			// 2 (cores 4-5); 3 (2 cores, at 20, 5 s) waits: node 0's core
			// 1 is free, but 1 core is not 2 — and EASY sees 1 giving
			// back only cores 0-1, so 3 starts at 50 on cores 0-1.
			name: "cons_res: drain keeps the job, its cores leave service", sel: cluster.SelectConsRes, pol: easyAll,
			events: func(t testing.TB) []cluster.NodeEvent {
				return []cluster.NodeEvent{nodeEvent(t, 10, drain, "1", 3, ""), nodeEvent(t, 200, resume, "1", 3, "")}
			},
			jobs: []workload.Job{job(1, 0, 3, 50, 50), job(2, 20, 2, 100, 100), job(3, 20, 2, 5, 5)},
			want: map[int64]nodeWant{
				1: {state: sim.Completed, start: 0, end: 50, alloc: "0-2"},
				2: {state: sim.Completed, start: 20, end: 120, alloc: "4-5"},
				3: {state: sim.Completed, start: 50, end: 55, alloc: "0-1"},
			},
		},
		{
			// cons_res, requeue: 1 (2 cores) on node 0 is requeued when
			// node 0 goes down at 10 and restarts at once on node 1.
			name: "cons_res: requeue restarts on another node", sel: cluster.SelectConsRes, pol: fcfs, onFail: sim.NodeFailRequeue,
			events: func(t testing.TB) []cluster.NodeEvent { return []cluster.NodeEvent{nodeEvent(t, 10, down, "0", 3, "")} },
			jobs:   []workload.Job{job(1, 0, 2, 100, 100)},
			want: map[int64]nodeWant{
				1: {state: sim.Completed, start: 10, end: 110, alloc: "2-3", requeues: 1},
			},
			lost: 20,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp := spec(c.sel)
			al, err := sp.NewAllocator()
			if err != nil {
				t.Fatal(err)
			}
			cfg := sim.Config{Policy: c.pol, Allocator: al, NodeEvents: c.events(t), OnNodeFail: c.onFail}
			eng, err := sim.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			col := &sim.Collector{}
			st, err := eng.Run(simtest.NewSource(c.jobs), simtest.Tee{rec, col})
			if err != nil {
				t.Fatal(err)
			}
			for id, w := range c.want {
				r := rec.ByID(t, id)
				if r.State != w.state || r.Start != w.start || r.End != w.end || r.Requeues != w.requeues {
					t.Errorf("job %d: %v %d-%d requeues %d, want %v %d-%d requeues %d", id, r.State, r.Start, r.End, r.Requeues, w.state, w.start, w.end, w.requeues)
				}
				if got := string(cluster.FormatRanges(nil, r.Alloc)); got != w.alloc {
					t.Errorf("job %d: allocated %q, want %q", id, got, w.alloc)
				}
				if !strings.Contains(r.Reason, w.reason) {
					t.Errorf("job %d: reason %q, want %q", id, r.Reason, w.reason)
				}
			}
			if st.LostProcSeconds != c.lost {
				t.Errorf("lost %.0f processor-seconds, want %.0f", st.LostProcSeconds, c.lost)
			}
			for _, v := range sim.Verify(sp.Cores(), col.Outcomes, sim.VerifyOptions{Cluster: sp, NodeEvents: cfg.NodeEvents}) {
				t.Errorf("verify: %v", v)
			}
			if t.Failed() {
				t.Logf("records:\n%s", simtest.Format(rec.Records))
			}
		})
	}
}

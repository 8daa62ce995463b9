package sim_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// nev is a node event on nodes lo..hi (inclusive).
func nev(at workload.Time, st cluster.NodeState, lo, hi int) cluster.NodeEvent {
	return cluster.NodeEvent{At: at, State: st, Nodes: []cluster.Range{{Lo: lo, Hi: hi + 1}}, Reason: "test"}
}

// sdNodeWant is the expected record of one job of a run with node events.
type sdNodeWant struct {
	id         int64
	state      sim.State
	start, end workload.Time
	cpu        workload.Time
	susp       int
	requeues   int
	alloc      string // its processors (of its last stint), "" for none
	reason     string // a substring of the record's reason
}

// runScoreDNodes runs jobs on SCore-D's engine with node events and checks
// the records with VerifyScoreD.
func runScoreDNodes(t *testing.T, procs int, cfg policy.ScoreD, evs []cluster.NodeEvent, size int, onFail sim.NodeFailAction, jobs []workload.Job) (*simtest.Recorder, sim.Stats) {
	t.Helper()
	eng, err := sim.NewScoreD(procs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.SetNodeEvents(evs, size, onFail); err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	st, err := eng.Run(simtest.NewSource(jobs), rec)
	if err != nil {
		t.Fatal(err)
	}
	var outs []sim.ScoreDOutcome
	for _, r := range rec.Records {
		outs = append(outs, sdOutcome(&r))
	}
	lim := sim.ScoreDLimits{MPL: cfg.MPL, MemKB: cfg.MemKB, DiskKB: cfg.DiskKB, NodeEvents: evs, NodeSize: size}
	for _, q := range cfg.Queues {
		lim.MemPercent = append(lim.MemPercent, q.MemPercent)
		lim.DiskPercent = append(lim.DiskPercent, q.DiskPercent)
	}
	for _, v := range sim.VerifyScoreD(procs, outs, lim) {
		t.Errorf("verify: %v", v)
	}
	return rec, st
}

// sdOutcome is r as VerifyScoreD reads it.
func sdOutcome(r *sim.Record) sim.ScoreDOutcome {
	o := sim.ScoreDOutcome{ID: r.Job.ID, Submit: r.Job.Submit, Procs: r.Job.Procs, State: r.State, End: r.End, Queue: r.Queue,
		Reason: r.Reason, MemLimitKB: r.MemLimitKB, DiskLimitKB: r.DiskLimitKB, MemKBPerHost: r.MemKBPerHost, Stints: r.Stints, StintAllocs: r.StintAllocs}
	switch r.State {
	case sim.Rejected:
		o.End = r.Job.Submit
	case sim.Pending:
		o.End = workload.Forever
	}
	return o
}

// TestScoreDNodeEvents checks SCore-D's queues with node failures and
// maintenance on schedules computed by hand (in the comments). Quantum
// 100 ms; the switch costs 0 ms where rates matter, so that two rows run
// at rate 1/2.
func TestScoreDNodeEvents(t *testing.T) {
	gang0 := func(mpl int) func() policy.ScoreD {
		return func() policy.ScoreD {
			c := sdConfig(1, policy.Gang, mpl)
			c.SwitchMs = 0
			return c
		}
	}
	excl := func() policy.ScoreD { return sdConfig(1, policy.Exclusive, 2) }
	type tc struct {
		name   string
		procs  int
		size   int
		onFail sim.NodeFailAction
		cfg    func() policy.ScoreD
		evs    []cluster.NodeEvent
		jobs   []workload.Job
		want   []sdNodeWant
		stats  func(st sim.Stats) string
	}
	cases := []tc{
		{
			// 1 on 0-1 and 2 on 2-3 from 0; node 0 goes down at 30: 1 is
			// killed with 30 s of CPU time. 3 (2 processors, at 40) finds
			// only processor 1 in service and free: it starts when 2 ends,
			// at 100, on 1-2.
			name: "exclusive/down kills", procs: 4, cfg: excl,
			evs:  []cluster.NodeEvent{nev(30, cluster.NodeDown, 0, 0)},
			jobs: []workload.Job{sdJob(1, 0, 2, 100, none, 0), sdJob(2, 0, 2, 100, none, 0), sdJob(3, 40, 2, 10, none, 0)},
			want: []sdNodeWant{
				{id: 1, state: sim.NodeFail, end: 30, cpu: 30, alloc: "0-1", reason: "node 0 down: test"},
				{id: 2, end: 100, cpu: 100, alloc: "2-3"},
				{id: 3, start: 100, end: 110, cpu: 10, alloc: "1-2"},
			},
			stats: func(st sim.Stats) string {
				if st.NodeKilled != 1 || st.Requeued != 0 || st.LostProcSeconds != 60 {
					return "want 1 killed, 0 requeued, 60 processor-s lost"
				}
				return ""
			},
		},
		{
			// As above, requeued: 1 goes back to its queue at 30 (its 30 s
			// lost) and starts again from the start when 2 ends, at 100, on
			// 1-2: it ends at 200 with 130 s of CPU time received.
			name: "exclusive/down requeues", procs: 4, cfg: excl, onFail: sim.NodeFailRequeue,
			evs:  []cluster.NodeEvent{nev(30, cluster.NodeDown, 0, 0)},
			jobs: []workload.Job{sdJob(1, 0, 2, 100, none, 0), sdJob(2, 0, 2, 100, none, 0)},
			want: []sdNodeWant{
				{id: 1, end: 200, cpu: 130, requeues: 1, alloc: "1-2"},
				{id: 2, end: 100, cpu: 100, alloc: "2-3"},
			},
			stats: func(st sim.Stats) string {
				if st.NodeKilled != 0 || st.Requeued != 1 || st.LostProcSeconds != 60 {
					return "want 0 killed, 1 requeued, 60 processor-s lost"
				}
				return ""
			},
		},
		{
			// Gang, MPL 2: 1 in row 0 and 2 in row 1, both on 0-3, at rate
			// 1/2; 3 waits (no row has 2 processors free). Node 3 goes down
			// at 20: both jobs, each with 10 s of CPU time, are killed, in
			// whichever row; 3 starts in row 0 on 0-1, alone: 20..70.
			name: "gang/down kills in every row", procs: 4, cfg: gang0(2),
			evs:  []cluster.NodeEvent{nev(20, cluster.NodeDown, 3, 3)},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 0, 4, 100, none, 0), sdJob(3, 0, 2, 50, none, 0)},
			want: []sdNodeWant{
				{id: 1, state: sim.NodeFail, end: 20, cpu: 10, alloc: "0-3", reason: "node 3 down"},
				{id: 2, state: sim.NodeFail, end: 20, cpu: 10, alloc: "0-3", reason: "node 3 down"},
				{id: 3, start: 20, end: 70, cpu: 50, alloc: "0-1"},
			},
		},
		{
			// Nodes of 2 processors. Node 1 (2-3) drains at 5: 1 (0-3, row
			// 0) runs on. 2 (2 processors, at 10) takes row 1 on 0-1 (2-3
			// are out of service there): rate 1/2 for both until 2 ends at
			// 30 (10 s of work); 1 has 20 s done then, ends alone at 110.
			// 3 needs 4 processors: only 2 are in service until node 1
			// resumes at 200; 4 (2 processors, at 150) waits behind it in
			// its queue. At 200 both start, 3 in row 0 and 4 in row 1 (row
			// 0 is full), at rate 1/2: both end at 220.
			name: "gang/drain and resume", procs: 4, size: 2, cfg: gang0(2),
			evs:  []cluster.NodeEvent{nev(5, cluster.NodeDrain, 1, 1), nev(200, cluster.NodeResume, 1, 1)},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 10, 2, 10, none, 0), sdJob(3, 20, 4, 10, none, 0), sdJob(4, 150, 2, 10, none, 0)},
			want: []sdNodeWant{
				{id: 1, end: 110, cpu: 100, alloc: "0-3"},
				{id: 2, start: 10, end: 30, cpu: 10, alloc: "0-1"},
				{id: 3, start: 200, end: 220, cpu: 10, alloc: "0-3"},
				{id: 4, start: 200, end: 220, cpu: 10, alloc: "0-1"},
			},
		},
		{
			// Node 0 goes down before the first submission (applied at it,
			// 5): 1 needs the whole machine and never starts; 2 waits
			// behind it in its queue (strict FCFS).
			name: "exclusive/stranded", procs: 4, cfg: excl,
			evs:  []cluster.NodeEvent{nev(0, cluster.NodeDown, 0, 0)},
			jobs: []workload.Job{sdJob(1, 5, 4, 10, none, 0), sdJob(2, 5, 2, 10, none, 0)},
			want: []sdNodeWant{
				{id: 1, state: sim.Rejected, start: 5, end: 5, reason: "3 processors in service after the last node event, the job needs 4"},
				{id: 2, state: sim.Rejected, start: 5, end: 5, reason: "the job needs 2 (or waits behind one that does)"},
			},
		},
		{
			// Queue 0 gang, queue 1 exclusive, MPL 2. 1 takes row 0 on 0-1,
			// 2 row 0 on 2-3, 3 row 1 on 0-1: rate 1/2. 1 ends at 20. The
			// exclusive 4 (queue 1, at 20) needs 2 processors free in every
			// row: 0-1 are 3's in row 1 and 2-3 are 2's in row 0, so it
			// waits (counted, without node events, it would start at 20)
			// until 2 and 3 end at 200 (90 s left each at rate 1/2).
			name: "mixed/exclusive needs processors free in every row", procs: 4,
			cfg: func() policy.ScoreD {
				c := gang0(2)()
				c.Queues = append(c.Queues, c.Queues[0])
				c.Queues[1].Mode = policy.Exclusive
				return c
			},
			evs:  []cluster.NodeEvent{nev(1000, cluster.NodeDown, 0, 0)},
			jobs: []workload.Job{sdJob(1, 0, 2, 10, none, 0), sdJob(2, 0, 2, 100, none, 0), sdJob(3, 0, 2, 100, none, 0), sdJob(4, 20, 2, 10, none, 1)},
			want: []sdNodeWant{
				{id: 1, end: 20, cpu: 10, alloc: "0-1"},
				{id: 2, end: 200, cpu: 100, alloc: "2-3"},
				{id: 3, end: 200, cpu: 100, alloc: "0-1"},
				{id: 4, start: 200, end: 210, cpu: 10, alloc: "0-1"},
			},
		},
		{
			// Preemption on the processors in service: queue 1's 1 on 0-1
			// and 2 on 2; node 3 drains at 0. 3 (queue 0, at 5) needs 2
			// processors: the victims go in Slurm's order (2 first, the
			// later submitted of the two started at 0), which frees only
			// processor 2, then 1. 3 runs 5..15 on 0-1; 1 and 2 resume at
			// 15 (1 on 0-1, 2 on 2) and end at 110.
			name: "exclusive/preemption on processors in service", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(2, policy.Exclusive, 2) },
			evs:  []cluster.NodeEvent{nev(0, cluster.NodeDrain, 3, 3)},
			jobs: []workload.Job{sdJob(1, 0, 2, 100, none, 1), sdJob(2, 0, 1, 100, none, 1), sdJob(3, 5, 2, 10, none, 0)},
			want: []sdNodeWant{
				{id: 1, end: 110, cpu: 100, susp: 1, alloc: "0-1"},
				{id: 2, end: 110, cpu: 100, susp: 1, alloc: "2"},
				{id: 3, start: 5, end: 15, cpu: 10, alloc: "0-1"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, st := runScoreDNodes(t, c.procs, c.cfg(), c.evs, c.size, c.onFail, c.jobs)
			if len(rec.Records) != len(c.want) {
				t.Fatalf("%d records, want %d", len(rec.Records), len(c.want))
			}
			for _, w := range c.want {
				r := rec.ByID(t, w.id)
				got := sdNodeWant{id: w.id, state: r.State, start: r.Start, end: r.End, cpu: r.CPUTime, susp: r.Suspensions, requeues: r.Requeues,
					alloc: string(cluster.FormatRanges(nil, r.Alloc)), reason: w.reason}
				if got != w {
					t.Errorf("job %d: got %+v, want %+v (reason %q)", w.id, got, w, r.Reason)
				}
				if !strings.Contains(r.Reason, w.reason) || (w.reason == "") != (r.Reason == "") {
					t.Errorf("job %d: reason %q, want one containing %q", w.id, r.Reason, w.reason)
				}
			}
			if c.stats != nil {
				if msg := c.stats(st); msg != "" {
					t.Errorf("stats %+v: %s", st, msg)
				}
			}
		})
	}
}

// TestScoreDNodeEventsCounted checks the counterpart of the mixed case
// above without node events: jobs are counted, not placed, and the
// exclusive job starts at 20.
func TestScoreDNodeEventsCounted(t *testing.T) {
	c := sdConfig(2, policy.Gang, 2)
	c.SwitchMs = 0
	c.Queues[1].Mode = policy.Exclusive
	rec, _ := runScoreD(t, 4, c, []workload.Job{sdJob(1, 0, 2, 10, none, 0), sdJob(2, 0, 2, 100, none, 0), sdJob(3, 0, 2, 100, none, 0), sdJob(4, 20, 2, 10, none, 1)})
	if r := rec.ByID(t, 4); r.Start != 20 || r.End != 30 {
		t.Errorf("job 4 ran %d-%d, want 20-30", r.Start, r.End)
	}
}

// TestScoreDNodesPlacedAsCounted: in a lone mode (every queue gang, or
// every queue exclusive) placing jobs on processor numbers changes
// nothing: with a schedule whose only event changes nothing (a RESUME of a
// node in service) the records are those of the run without node events,
// over seeded multi-queue workloads with preemption, demotions, memory
// limits and queue state changes.
func TestScoreDNodesPlacedAsCounted(t *testing.T) {
	modes := []policy.PreemptMode{policy.PreemptSuspend, policy.PreemptRequeue, policy.PreemptCancel, policy.PreemptOff}
	noop := []cluster.NodeEvent{nev(0, cluster.NodeResume, 0, 0)}
	for seed := range uint64(simtest.Cases(40, 10)) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 21))
			procs := 4 + r.IntN(12)
			nq := 1 + r.IntN(3)
			mode := policy.Gang
			if seed%2 == 1 {
				mode = policy.Exclusive
			}
			cfg := sdConfig(nq, mode, 1+r.IntN(4))
			cfg.Preempt = modes[r.IntN(len(modes))]
			cfg.MemKB = 1000
			for i := range cfg.Queues {
				cfg.Queues[i].MemPercent = r.IntN(60)
				cfg.Queues[i].ResidenceSec = workload.Time(r.IntN(2) * (10 + r.IntN(50)))
			}
			if r.IntN(2) == 0 {
				ch, err := policy.ParseQueueChange(fmt.Sprintf("%d=deactivated@%d-%d", r.IntN(nq), 50+r.IntN(100), 200+r.IntN(100)), policy.Activated)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Changes = ch
			}
			var jobs []workload.Job
			tm := workload.Time(0)
			for i := range 20 + r.IntN(40) {
				tm += workload.Time(r.IntN(20))
				j := sdJob(int64(i+1), tm, 1+r.IntN(procs), workload.Time(1+r.IntN(150)), none, r.IntN(nq))
				j.ReqMemKB = float64(r.IntN(200))
				jobs = append(jobs, j)
			}
			counted, _ := runScoreD(t, procs, cfg, append([]workload.Job(nil), jobs...))
			placed, _ := runScoreDNodes(t, procs, cfg, noop, 1, sim.NodeFailKill, append([]workload.Job(nil), jobs...))
			if len(placed.Records) != len(counted.Records) {
				t.Fatalf("%d records placed, %d counted", len(placed.Records), len(counted.Records))
			}
			for i := range counted.Records {
				a, b := &placed.Records[i], &counted.Records[i]
				x := fmt.Sprintf("%d %v %d %d %d %d %d %d %s", a.Job.ID, a.State, a.Start, a.End, a.Queue, a.Demotions, a.Suspensions, a.CPUTime, a.Reason)
				y := fmt.Sprintf("%d %v %d %d %d %d %d %d %s", b.Job.ID, b.State, b.Start, b.End, b.Queue, b.Demotions, b.Suspensions, b.CPUTime, b.Reason)
				if mode == policy.Exclusive {
					x += " " + string(cluster.FormatRanges(nil, a.Alloc))
					y += " " + string(cluster.FormatRanges(nil, b.Alloc))
				}
				if x != y {
					t.Fatalf("record %d placed %s, counted %s", i, x, y)
				}
			}
		})
	}
}

// TestScoreDNodeEventsRandom replays seeded multi-queue workloads, gang
// and exclusive queues mixed, with every preemption mode, memory limits,
// demotions and queue state changes, under random node failures, drains
// and resumptions, killed or requeued. The engine checks its invariants
// as it runs (CPU time conserved, no row over-allocated, …) and every run
// must pass VerifyScoreD with the schedule; every job gets one record, and
// the statistics count the records' node failures and requeues.
func TestScoreDNodeEventsRandom(t *testing.T) {
	modes := []policy.PreemptMode{policy.PreemptSuspend, policy.PreemptRequeue, policy.PreemptCancel, policy.PreemptOff}
	states := []cluster.NodeState{cluster.NodeDown, cluster.NodeDrain, cluster.NodeResume, cluster.NodeResume}
	hits := 0
	for seed := range uint64(simtest.Cases(60, 15)) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 33))
			procs := 4 + r.IntN(12)
			size := 1 + r.IntN(2)
			nodes := (procs + size - 1) / size
			nq := 1 + r.IntN(3)
			cfg := sdConfig(nq, policy.Gang, 1+r.IntN(4))
			cfg.Preempt = modes[r.IntN(len(modes))]
			cfg.MemKB = 1000
			for i := range cfg.Queues {
				q := &cfg.Queues[i]
				if r.IntN(3) == 0 {
					q.Mode = policy.Exclusive
				}
				q.MemPercent = r.IntN(60)
				q.ResidenceSec = workload.Time(r.IntN(2) * (10 + r.IntN(50)))
				q.Wait = true
			}
			if r.IntN(2) == 0 {
				ch, err := policy.ParseQueueChange(fmt.Sprintf("%d=deactivated@%d-%d", r.IntN(nq), 50+r.IntN(100), 200+r.IntN(100)), policy.Activated)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Changes = ch
			}
			var jobs []workload.Job
			tm := workload.Time(0)
			for i := range 20 + r.IntN(40) {
				tm += workload.Time(r.IntN(20))
				j := sdJob(int64(i+1), tm, 1+r.IntN(procs), workload.Time(1+r.IntN(150)), none, r.IntN(nq))
				j.ReqMemKB = float64(r.IntN(200))
				jobs = append(jobs, j)
			}
			var evs []cluster.NodeEvent
			at := workload.Time(0)
			for range 1 + r.IntN(8) {
				at += workload.Time(r.IntN(80))
				lo := r.IntN(nodes)
				evs = append(evs, nev(at, states[r.IntN(len(states))], lo, lo+r.IntN(min(3, nodes-lo))))
			}
			onFail := sim.NodeFailAction(r.IntN(2))
			rec, st := runScoreDNodes(t, procs, cfg, evs, size, onFail, jobs)
			if len(rec.Records) != len(jobs) || st.Jobs != int64(len(jobs)) {
				t.Fatalf("%d records, %d jobs in the stats, for %d jobs", len(rec.Records), st.Jobs, len(jobs))
			}
			seen := map[int64]bool{}
			var failed, requeues int64
			for _, rc := range rec.Records {
				if seen[rc.Job.ID] {
					t.Errorf("job %d recorded twice", rc.Job.ID)
				}
				seen[rc.Job.ID] = true
				if rc.State == sim.NodeFail {
					failed++
				}
				requeues += int64(rc.Requeues)
			}
			if failed != st.NodeKilled || requeues != st.Requeued {
				t.Errorf("records: %d killed by node failures, %d requeues; stats %d, %d", failed, requeues, st.NodeKilled, st.Requeued)
			}
			hits += int(failed + requeues)
		})
	}
	if hits == 0 {
		t.Error("no job was ever hit by a node failure: the test does not exercise them")
	}
}

// TestVerifyScoreDNodes: VerifyScoreD with node events catches each kind of
// broken run, on processor 3 down from 20 to 50 (node size 1, 4
// processors, MPL 2).
func TestVerifyScoreDNodes(t *testing.T) {
	evs := []cluster.NodeEvent{nev(20, cluster.NodeDown, 3, 3), nev(50, cluster.NodeResume, 3, 3)}
	type stint struct {
		st    sim.Stint
		alloc []cluster.Range
	}
	st := func(from, to int64, row int, alloc ...cluster.Range) stint {
		return stint{sim.Stint{FromMs: from * 1000, ToMs: to * 1000, Row: row}, alloc}
	}
	r := func(lo, hi int) cluster.Range { return cluster.Range{Lo: lo, Hi: hi + 1} }
	out := func(id int64, procs int, state sim.State, end workload.Time, sts ...stint) sim.ScoreDOutcome {
		o := sim.ScoreDOutcome{ID: id, Procs: procs, State: state, End: end}
		for _, x := range sts {
			o.Stints, o.StintAllocs = append(o.Stints, x.st), append(o.StintAllocs, x.alloc)
		}
		return o
	}
	cases := []struct {
		name string
		outs []sim.ScoreDOutcome
		rule string // "" for none
	}{
		{"fine", []sim.ScoreDOutcome{out(1, 4, sim.NodeFail, 20, st(0, 20, 0, r(0, 3))), out(2, 2, sim.Completed, 40, st(30, 40, 1, r(0, 1)))}, ""},
		{"a stint goes on on a node down at its start", []sim.ScoreDOutcome{out(1, 2, sim.Completed, 60, st(0, 20, 0, r(2, 3)))}, "node-state"},
		{"wrong processor count", []sim.ScoreDOutcome{out(1, 2, sim.Completed, 10, st(0, 10, 0, r(0, 2)))}, "stint-alloc"},
		{"outside the machine", []sim.ScoreDOutcome{out(1, 2, sim.Completed, 10, st(0, 10, 0, r(3, 4)))}, "stint-alloc"},
		{"held twice in a row", []sim.ScoreDOutcome{out(1, 2, sim.Completed, 10, st(0, 10, 0, r(0, 1))), out(2, 2, sim.Completed, 10, st(5, 10, 0, r(1, 2)))}, "processor-twice"},
		{"exclusive against a gang row", []sim.ScoreDOutcome{out(1, 2, sim.Completed, 10, st(0, 10, 1, r(0, 1))), out(2, 1, sim.Completed, 10, st(5, 10, -1, r(1, 1)))}, "processor-twice"},
		{"two rows share a processor", []sim.ScoreDOutcome{out(1, 2, sim.Completed, 10, st(0, 10, 0, r(0, 1))), out(2, 2, sim.Completed, 10, st(0, 10, 1, r(0, 1)))}, ""},
		{"started on a down node", []sim.ScoreDOutcome{out(1, 1, sim.Completed, 35, st(30, 35, 0, r(3, 3)))}, "node-state"},
		{"ran across a DOWN", []sim.ScoreDOutcome{out(1, 1, sim.Completed, 25, st(10, 25, 0, r(3, 3)))}, "node-state"},
		{"NodeFail without a DOWN", []sim.ScoreDOutcome{out(1, 1, sim.NodeFail, 20, st(0, 20, 0, r(0, 0)))}, "node-state"},
	}
	x := st(20, 60, 0, r(2, 3))
	cases[1].outs[0].Stints, cases[1].outs[0].StintAllocs = append(cases[1].outs[0].Stints, x.st), append(cases[1].outs[0].StintAllocs, x.alloc)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := sim.VerifyScoreD(4, c.outs, sim.ScoreDLimits{MPL: 2, MemPercent: []int{0}, DiskPercent: []int{0}, NodeEvents: evs, NodeSize: 1})
			switch {
			case c.rule == "" && len(vs) > 0:
				t.Errorf("violations %v, want none", vs)
			case c.rule != "" && (len(vs) == 0 || vs[0].Rule != c.rule):
				t.Errorf("violations %v, want %s", vs, c.rule)
			}
		})
	}
	// Without node events a NodeFail is a violation of its own.
	vs := sim.VerifyScoreD(4, cases[0].outs[:1], sim.ScoreDLimits{MPL: 2, MemPercent: []int{0}, DiskPercent: []int{0}})
	if len(vs) != 1 || vs[0].Rule != "state" {
		t.Errorf("NodeFail without node events: %v", vs)
	}
}

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
		Reason: r.Reason, MemLimitKB: r.MemLimitKB, DiskLimitKB: r.DiskLimitKB, MemKBPerHost: r.MemKBPerHost, Stints: r.Stints}
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

package sim

import (
	"bytes"
	"encoding"
	"encoding/gob"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Checkpoints (the simulator's analogue of a select plugin's state save and
// restore). With Config.CheckpointEvery and Config.OnCheckpoint set, the
// engine calls OnCheckpoint at the end of the first instant at or after
// every multiple of CheckpointEvery; MarshalBinary, called from there, encodes
// the whole engine: clock, queue, running jobs, event heaps, statistics, and
// the state of the policy and the estimator. Restore builds an engine from
// such a state and a Config with the same settings; its Run reads past the
// jobs the saved engine had already submitted (Stats.Jobs) and goes on, so
// that the run's records and statistics equal those of an uninterrupted run.
//
// Only policies and estimators that implement encoding.BinaryMarshaler and
// encoding.BinaryUnmarshaler can be checkpointed (FCFS, EASY, Depth,
// Conservative, Slurm, Ordered with any order and every estimator), on a
// processor pool or a node selector (Config.Allocator: the selector, new
// and idle, gets the running jobs' allocations back), with HPC Pack's
// filters and templates (Config.Admission, Config.Annotator and
// Config.Grow's filter save their state the same way).

// ErrNoCheckpoint is returned when a run's configuration cannot be
// checkpointed; the error wrapping it says which part.
var ErrNoCheckpoint = errors.New("sim: cannot checkpoint this run")

// stateful is what a policy or estimator implements to be checkpointed.
type stateful interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

// CanCheckpoint returns nil if runs of cfg can be checkpointed, or an error
// wrapping ErrNoCheckpoint that names what cannot.
func CanCheckpoint(cfg Config) error {
	if cfg.Policy != nil {
		if _, ok := cfg.Policy.(stateful); !ok {
			return fmt.Errorf("%w: policy %s does not save its state", ErrNoCheckpoint, cfg.Policy.Name())
		}
	}
	if cfg.Estimator != nil {
		if _, ok := cfg.Estimator.(stateful); !ok {
			return fmt.Errorf("%w: estimator %s does not save its state", ErrNoCheckpoint, cfg.Estimator.Name())
		}
	}
	for _, x := range filterParts(cfg) {
		if x == nil {
			continue
		}
		if _, ok := x.(stateful); !ok {
			return fmt.Errorf("%w: %T (admission, notes or growth filter) does not save its state", ErrNoCheckpoint, x)
		}
		if c, ok := x.(interface{ CanCheckpoint() error }); ok {
			if err := c.CanCheckpoint(); err != nil {
				return fmt.Errorf("%w: %v", ErrNoCheckpoint, err)
			}
		}
	}
	if cfg.DeferPlacement {
		return fmt.Errorf("%w: with deferred placement the processor numbers are the Placer's, not the engine's", ErrNoCheckpoint)
	}
	return nil
}

// filterParts returns the parts of cfg around the policy that keep state of
// their own (HPC Pack's model: its filters, notes and growth decisions):
// Admission, Annotator and the growth filter, nil where unset. They are
// often one value; each is saved, and restored, on its own.
func filterParts(cfg Config) [3]any {
	var parts [3]any
	if cfg.Admission != nil {
		parts[0] = cfg.Admission
	}
	if cfg.Annotator != nil {
		parts[1] = cfg.Annotator
	}
	if cfg.Grow != nil && cfg.Grow.Filter != nil {
		parts[2] = cfg.Grow.Filter
	}
	return parts
}

// engineState mirrors Engine for encoding/gob.
type engineState struct {
	Policy, Estimator []byte
	Machine           []byte
	// Filters are the states of filterParts (HPC Pack's filters), nil
	// where unset.
	Filters [3][]byte

	Now     workload.Time
	Slots   []slotState
	FreeIDs []int32
	Queue   []int32
	Ends    []eventState
	Expiry  []eventState
	Holds   []eventState // jobs held until their HoldUntil
	Epoch   uint32
	Running []runningState
	LastSeq int64
	Wakes   []workload.Time
	Queued  int64
	Stats   Stats
	Busy    float64
	LastT   workload.Time
	NextCk  workload.Time

	Grow      []growSlotState // by slot, under Config.Grow
	GrowOrder []int32

	Nodes *nodesState // under Config.NodeEvents or Config.Power
	Power *powerSaved // under Config.Power

	// Loop is the closed loop's state (Config.ClosedLoop): the jobs
	// waiting for their preceding job, or for their later instant.
	Loop *closedLoopState

	// Ended are the jobs that ended since the last pass, which a
	// scheduler cycle (Config.SchedInterval) keeps between instants.
	Ended []policy.Ended

	// Suspended are the jobs suspended by preemption (Config.Preempt),
	// in order of suspension.
	Suspended []int32
}

// preemptSlotState is a slotPreempt: what the engine keeps of a job that
// was preempted (Config.Preempt).
type preemptSlotState struct {
	First      workload.Time
	Runs       []RunSpan
	Marks      []PreemptMark
	Lost, Left workload.Time
	Done       workload.Time
	Suspended  bool
}

type nodesState struct {
	// Events are the node events, under Config.Power: the switches and
	// timers the engine scheduled (Config.NodeEvents are not saved).
	Events                               []cluster.NodeEvent
	Next                                 int
	State                                []uint8
	Parked                               []bool
	NParked, Unavail, Draining, Requeued int
}

// powerSaved is the state of Config.Power's node switching.
type powerSaved struct {
	Busy      []int32
	IdleSince []workload.Time
	State     []uint8
	AsleepAt  []workload.Time
	Waking    int
	Timers    []workload.Time // sorted
	// Admin is each node's service state under Config.NodeEvents
	// (powerState.admin); nil without them.
	Admin []uint8
}

type growSlotState struct {
	P0, MinP, MaxP int
	Run0, Est0     workload.Time
	Since          workload.Time
	WRun, WEst     float64
	Gen            uint32
	Steps          []GrowStep
	// Under an Estimator.
	Pred0           workload.Time
	WPred, WPredTot float64
}

type slotState struct {
	Job                                 workload.Job
	Start, End, PredEnd, Limit, Reserve workload.Time
	Epoch                               uint32
	Alloc                               []cluster.Range
	Started                             bool
	Held                                int32
	Predicted                           workload.Time
	PredAt                              []cluster.Range // where WILL_RUN predicted it would start
	Requeues                            int32
	Released                            bool
	Run0                                workload.Time
	Pending                             PendingReason
	MemberLimit                         bool  // its time limit is the member's it started on
	Member                              int32 // the cluster-of-clusters member assigned at submission
	// Under Config.Preempt: its tier, its requeues by preemption, and
	// its preemptions (nil: never preempted).
	Tier, Preq int32
	Preempt    *preemptSlotState
}

type eventState struct {
	At  workload.Time
	Seq int64
	ID  int32
	Gen uint32
}

type runningState struct {
	PredEnd workload.Time
	Seq     int64
	Procs   int32
	ID      int32
}

// MarshalBinary encodes the engine's state between two instants; call it
// from Config.OnCheckpoint (or before Run, or after it returned). It
// returns an error wrapping ErrNoCheckpoint if the configuration cannot be
// checkpointed (see CanCheckpoint).
func (e *Engine) MarshalBinary() ([]byte, error) {
	s, err := e.Snapshot()
	if err != nil {
		return nil, err
	}
	return s.MarshalBinary()
}

// A Snapshot is the engine's state between two instants, copied out of the
// engine: it can be encoded on another goroutine while the engine runs on,
// so a checkpoint's encoding and disk writes need not stop the simulation.
type Snapshot struct {
	s  engineState
	sd *scoreDState // a ScoreD's, instead of s
}

// Snapshot copies the engine's state between two instants; call it from
// Config.OnCheckpoint (or before Run, or after it returned). Its
// MarshalBinary gives what Engine.MarshalBinary would have given then. It
// returns an error wrapping ErrNoCheckpoint if the configuration cannot be
// checkpointed (see CanCheckpoint).
func (e *Engine) Snapshot() (*Snapshot, error) {
	if e.sd != nil {
		return e.sd.snapshot()
	}
	if err := CanCheckpoint(e.cfg); err != nil {
		return nil, err
	}
	if len(e.ended) > 0 && e.cfg.SchedInterval == 0 {
		return nil, errors.New("sim: checkpoint taken inside an instant")
	}
	snap := new(Snapshot)
	s := &snap.s
	var err error
	if s.Policy, err = e.pol.(stateful).MarshalBinary(); err != nil {
		return nil, fmt.Errorf("sim: policy state: %w", err)
	}
	if e.est != nil {
		if s.Estimator, err = e.est.(stateful).MarshalBinary(); err != nil {
			return nil, fmt.Errorf("sim: estimator state: %w", err)
		}
	}
	if s.Machine, err = e.machine.MarshalBinary(); err != nil {
		return nil, err
	}
	for i, x := range filterParts(e.cfg) {
		if x != nil {
			if s.Filters[i], err = x.(stateful).MarshalBinary(); err != nil {
				return nil, fmt.Errorf("sim: filter state: %w", err)
			}
		}
	}
	// Every slice is copied: the engine reuses its own.
	s.Now, s.FreeIDs, s.Queue, s.Epoch = e.now, slices.Clone(e.freeIDs), slices.Clone(e.queue), e.epoch
	s.LastSeq, s.Wakes, s.Queued, s.Stats = e.lastSeq, slices.Clone(e.wakes), e.queuedProcs, e.stats
	s.Busy, s.LastT, s.NextCk = e.busy, e.lastT, e.nextCk
	s.Ended = slices.Clone(e.ended)
	if e.loop != nil {
		s.Loop = e.loop.state()
	}
	s.Slots = make([]slotState, len(e.slots))
	var ranges int
	for i := range e.slots {
		ranges += len(e.slots[i].alloc)
	}
	pool := make([]cluster.Range, 0, ranges) // one allocation for every slot's ranges
	for i := range e.slots {
		x := &e.slots[i]
		var alloc []cluster.Range
		if x.alloc != nil {
			n := len(pool)
			pool = append(pool, x.alloc...)
			alloc = pool[n:len(pool):len(pool)]
		}
		s.Slots[i] = slotState{Job: x.job, Start: x.start, End: x.end, PredEnd: x.predEnd, Limit: x.limit,
			Reserve: x.reserved, Epoch: x.epoch, Alloc: alloc, Started: x.started, Held: x.held, Predicted: x.predicted, PredAt: slices.Clone(x.predAt),
			Requeues: x.requeues, Released: x.released, Run0: x.run0, Pending: x.pending, MemberLimit: x.memberLimit, Member: x.member,
			Tier: x.tier, Preq: x.preq}
		if pj := x.pj; pj != nil {
			runs := make([]RunSpan, len(pj.runs))
			for k, r := range pj.runs {
				runs[k] = RunSpan{From: r.From, To: r.To, Alloc: slices.Clone(r.Alloc)}
			}
			s.Slots[i].Preempt = &preemptSlotState{First: pj.first, Runs: runs, Marks: slices.Clone(pj.marks),
				Lost: pj.lost, Left: pj.left, Done: pj.done, Suspended: pj.suspended}
		}
	}
	if e.pre != nil {
		s.Suspended = slices.Clone(e.pre.susp)
	}
	if len(e.cfg.NodeEvents) > 0 || e.pw != nil {
		ns := &e.nodes
		s.Nodes = &nodesState{Next: ns.next, State: slices.Clone(ns.state), Parked: slices.Clone(ns.parked), NParked: ns.nParked,
			Unavail: ns.unavail, Draining: ns.draining, Requeued: ns.requeued}
	}
	if pw := e.pw; pw != nil {
		s.Nodes.Events = make([]cluster.NodeEvent, len(e.nodes.events))
		for i, ev := range e.nodes.events {
			ev.Nodes = slices.Clone(ev.Nodes)
			s.Nodes.Events[i] = ev
		}
		s.Power = &powerSaved{Busy: slices.Clone(pw.busy), IdleSince: slices.Clone(pw.idleSince), State: slices.Clone(pw.state),
			AsleepAt: slices.Clone(pw.asleepAt), Waking: pw.waking, Timers: slices.Sorted(maps.Keys(pw.timers)), Admin: slices.Clone(pw.admin)}
	}
	if e.grow != nil {
		for _, g := range e.grow.slots {
			steps := make([]GrowStep, len(g.steps))
			for k, st := range g.steps {
				steps[k] = GrowStep{At: st.At, Procs: st.Procs, Alloc: slices.Clone(st.Alloc)}
			}
			if g.steps == nil {
				steps = nil
			}
			s.Grow = append(s.Grow, growSlotState{P0: g.p0, MinP: g.minP, MaxP: g.maxP, Run0: g.run0, Est0: g.est0,
				Since: g.since, WRun: g.wRun, WEst: g.wEst, Gen: g.gen, Steps: steps, Pred0: g.pred0, WPred: g.wPred, WPredTot: g.wPredTot})
		}
		s.GrowOrder = slices.Clone(e.grow.order)
	}
	s.Ends = events(e.ends)
	s.Expiry = events(e.expiry)
	s.Holds = events(e.holds)
	s.Running = make([]runningState, len(e.running))
	for i, r := range e.running {
		s.Running[i] = runningState{PredEnd: r.predEnd, Seq: r.seq, Procs: r.procs, ID: r.id}
	}
	return snap, nil
}

// MarshalBinary encodes the snapshot. It may run on any goroutine, while
// the engine it was taken from runs on.
func (snap *Snapshot) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	var v any = &snap.s
	if snap.sd != nil {
		v = snap.sd
	}
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("sim: encoding the engine state: %w", err)
	}
	return buf.Bytes(), nil
}

func events(h endHeap) []eventState {
	out := make([]eventState, len(h))
	for i, ev := range h {
		out[i] = eventState{At: ev.at, Seq: ev.seq, ID: ev.id, Gen: ev.gen}
	}
	return out
}

func unevents(es []eventState, n int) (endHeap, error) {
	h := make(endHeap, len(es))
	for i, ev := range es {
		if ev.ID < 0 || int(ev.ID) >= n {
			return nil, fmt.Errorf("event for slot %d of %d", ev.ID, n)
		}
		h[i] = endEvent{at: ev.At, seq: ev.Seq, id: ev.ID, gen: ev.Gen}
	}
	return h, nil
}

// Restore returns an engine for cfg in the state b, which MarshalBinary
// encoded from an engine with the same configuration (the same machine,
// policy and estimator settings, given as new values: Restore loads their
// state). Its Run continues the saved run: give it the same source, from
// its beginning. Restore returns an error if b is not a valid state.
func Restore(cfg Config, b []byte) (*Engine, error) {
	if cfg.ScoreD != nil {
		return restoreScoreDEngine(cfg, b)
	}
	if err := CanCheckpoint(cfg); err != nil {
		return nil, err
	}
	e, err := New(cfg)
	if err != nil {
		return nil, err
	}
	var s engineState
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return nil, fmt.Errorf("sim: decoding the engine state: %w", err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("sim: engine state: "+format, args...)
	}
	if err := e.pol.(stateful).UnmarshalBinary(s.Policy); err != nil {
		return nil, err
	}
	if e.est != nil {
		if err := e.est.(stateful).UnmarshalBinary(s.Estimator); err != nil {
			return nil, err
		}
	} else if len(s.Estimator) > 0 {
		return nil, bad("saved with an estimator, restored without one")
	}
	if err := e.machine.UnmarshalBinary(s.Machine); err != nil {
		return nil, err
	}
	for i, x := range filterParts(e.cfg) {
		switch {
		case x == nil && s.Filters[i] != nil:
			return nil, bad("saved with HPC Pack filters or templates, restored without")
		case x != nil:
			if err := x.(stateful).UnmarshalBinary(s.Filters[i]); err != nil {
				return nil, err
			}
		}
	}
	if e.machine.Size() != e.cfg.Procs {
		return nil, bad("machine of %d processors, configuration %d", e.machine.Size(), e.cfg.Procs)
	}
	n := len(s.Slots)
	e.slots = make([]slot, n)
	for i, x := range s.Slots {
		e.slots[i] = slot{job: x.Job, start: x.Start, end: x.End, predEnd: x.PredEnd, limit: x.Limit,
			reserved: x.Reserve, epoch: x.Epoch, alloc: x.Alloc, started: x.Started, held: x.Held, predicted: x.Predicted, predAt: x.PredAt,
			requeues: x.Requeues, released: x.Released, run0: x.Run0, pending: x.Pending, memberLimit: x.MemberLimit, member: x.Member,
			tier: x.Tier, preq: x.Preq}
		if pj := x.Preempt; pj != nil {
			if e.pre == nil {
				return nil, bad("saved with preemption, restored without")
			}
			e.slots[i].pj = &slotPreempt{first: pj.First, runs: pj.Runs, marks: pj.Marks, lost: pj.Lost, left: pj.Left, done: pj.Done, suspended: pj.Suspended}
		}
	}

	if err := e.restoreNodes(s.Nodes, s.Power); err != nil {
		return nil, bad("%v", err)
	}
	for _, ids := range [][]int32{s.FreeIDs, s.Queue} {
		for _, id := range ids {
			if id < 0 || int(id) >= n {
				return nil, bad("slot %d of %d", id, n)
			}
		}
	}
	e.now, e.freeIDs, e.queue, e.epoch = s.Now, s.FreeIDs, s.Queue, s.Epoch
	e.lastSeq, e.wakes, e.queuedProcs, e.stats = s.LastSeq, s.Wakes, s.Queued, s.Stats
	e.busy, e.lastT, e.nextCk = s.Busy, s.LastT, s.NextCk
	e.ended = s.Ended
	switch {
	case e.cfg.ClosedLoop && s.Loop != nil:
		if e.loop, err = restoreClosedLoop(s.Loop); err != nil {
			return nil, bad("%v", err)
		}
	case e.cfg.ClosedLoop && s.Stats.Jobs > 0:
		return nil, bad("saved without a closed loop, restored with one")
	case s.Loop != nil:
		return nil, bad("saved with a closed loop, restored without one")
	}
	if e.ends, err = unevents(s.Ends, n); err != nil {
		return nil, bad("%v", err)
	}
	if e.expiry, err = unevents(s.Expiry, n); err != nil {
		return nil, bad("%v", err)
	}
	if e.holds, err = unevents(s.Holds, n); err != nil {
		return nil, bad("%v", err)
	}
	e.released = 0
	for _, id := range e.queue {
		if e.slots[id].released {
			e.released++
		}
	}
	e.dense = nil // built again as policies ask (see Queued)
	e.running = make([]byEnd, len(s.Running))
	for i, r := range s.Running {
		if r.ID < 0 || int(r.ID) >= n {
			return nil, bad("running slot %d of %d", r.ID, n)
		}
		e.running[i] = byEnd{predEnd: r.PredEnd, seq: r.Seq, procs: r.Procs, id: r.ID}
	}
	if err := e.restorePreempt(s.Suspended); err != nil {
		return nil, bad("%v", err)
	}
	if e.grow != nil {
		if len(s.Grow) > n {
			return nil, bad("%d growth slots for %d slots", len(s.Grow), n)
		}
		e.grow.slots = make([]growSlot, len(s.Grow))
		for i, g := range s.Grow {
			e.grow.slots[i] = growSlot{p0: g.P0, minP: g.MinP, maxP: g.MaxP, run0: g.Run0, est0: g.Est0,
				since: g.Since, wRun: g.WRun, wEst: g.WEst, gen: g.Gen, steps: g.Steps, pred0: g.Pred0, wPred: g.WPred, wPredTot: g.WPredTot}
		}
		for _, id := range s.GrowOrder {
			if id < 0 || int(id) >= n {
				return nil, bad("growth order slot %d of %d", id, n)
			}
		}
		e.grow.order = s.GrowOrder
	} else if len(s.Grow) > 0 {
		return nil, bad("saved with growing jobs, restored without")
	}
	if e.grow == nil && len(e.running) != len(e.ends) {
		return nil, bad("%d running jobs, %d end events", len(e.running), len(e.ends))
	}
	if err := e.pool.restored(e); err != nil {
		return nil, bad("%v", err)
	}
	e.restoreShared()
	if e.cons != nil {
		e.cons.rebuild(e)
	}
	e.resumed = true
	return e, nil
}

// recommit gives a restored engine's node selector the running jobs'
// allocations back: its state is that of its allocations. A corrupt state
// that makes the selector panic (a processor taken twice) is an error.
func (e *Engine) recommit() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	bad := func(format string, args ...any) error { return fmt.Errorf(format, args...) }
	{
		for _, r := range e.running {
			x := &e.slots[r.id]
			if !x.started || len(x.alloc) == 0 {
				return bad("running job %d has no allocation", x.job.ID)
			}
			if held := e.alloc.Commit(cluster.RequestOf(&x.job), x.alloc); held != int(x.held) {
				return bad("job %d holds %d processors, its allocation %d", x.job.ID, x.held, held)
			}
		}
		// The waiting jobs assigned a cluster of a cluster of clusters
		// load it again.
		if a, ok := e.alloc.(memberAssigner); ok {
			for _, id := range e.queue {
				if x := &e.slots[id]; x.member > 0 {
					a.Waiting(x.request(), true)
				}
			}
			for _, h := range e.holds {
				if x := &e.slots[h.id]; x.member > 0 {
					a.Waiting(x.request(), true)
				}
			}
		}
	}
	return nil
}

// restoreNodes restores the node states saved in s.
func (e *Engine) restoreNodes(s *nodesState, p *powerSaved) error {
	ns := &e.nodes
	if len(e.cfg.NodeEvents) == 0 && e.pw == nil {
		if s != nil || p != nil {
			return errors.New("saved with node events or switching, restored without")
		}
		return nil
	}
	if s == nil || (e.pw == nil) != (p == nil) {
		return errors.New("saved without node events or switching, restored with")
	}
	if pw := e.pw; pw != nil {
		n := len(pw.state)
		if len(p.Busy) != n || len(p.IdleSince) != n || len(p.State) != n || len(p.AsleepAt) != n {
			return fmt.Errorf("power state of %d nodes, want %d", len(p.State), n)
		}
		if (pw.admin == nil) != (p.Admin == nil) || (p.Admin != nil && len(p.Admin) != n) {
			return fmt.Errorf("service state of %d nodes, want %d", len(p.Admin), len(pw.admin))
		}
		pw.busy, pw.idleSince, pw.state, pw.asleepAt, pw.waking, pw.admin = p.Busy, p.IdleSince, p.State, p.AsleepAt, p.Waking, p.Admin
		pw.timers = nil
		for _, t := range p.Timers {
			if pw.timers == nil {
				pw.timers = map[workload.Time]bool{}
			}
			pw.timers[t] = true
		}
		ns.events = s.Events
	}
	if len(s.State) != len(ns.state) || len(s.Parked) != len(ns.parked) || s.Next < 0 || s.Next > len(ns.events) {
		return fmt.Errorf("node state of %d nodes and %d units at event %d, want %d nodes, %d units, %d events",
			len(s.State), len(s.Parked), s.Next, len(ns.state), len(ns.parked), len(ns.events))
	}
	ns.next, ns.state, ns.parked = s.Next, s.State, s.Parked
	ns.nParked, ns.unavail, ns.draining, ns.requeued = s.NParked, s.Unavail, s.Draining, s.Requeued
	return nil
}

// repark takes a restored node selector's parked units out of the pool
// again (the processor pool's free ranges were restored as they were).
func (e *Engine) repark() (err error) {
	if len(e.cfg.NodeEvents) == 0 {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	ns := &e.nodes
	n := 0
	for u := 0; u < len(ns.parked); {
		if !ns.parked[u] {
			u++
			continue
		}
		v := u
		for v < len(ns.parked) && ns.parked[v] {
			v++
		}
		run := cluster.Range{Lo: u, Hi: v}
		for _, t := range ns.units.TakeFree(run, nil) {
			n += t.Len()
		}
		u = v
	}
	want := 0
	for _, p := range ns.parked {
		if p {
			want++
		}
	}
	if n != want {
		return fmt.Errorf("%d parked units, %d of them idle", want, n)
	}
	return nil
}

package sim

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Node failures and maintenance (Config.NodeEvents), as Slurm's node state
// updates. On the processor pool a node is Config.NodeSize consecutive
// processors (node n holds processors n·NodeSize … (n+1)·NodeSize − 1; the
// last node may be smaller); with a node selector (Config.Allocator,
// cluster.Linear or cluster.ConsRes) nodes are the cluster's nodes. At an
// instant, node events come after the submissions, the ends and the
// expired predictions, and before the pass, in schedule order; events
// before the first submission apply at it (nothing runs before), and events
// after the last job has ended are not applied (nothing is left to run):
// the run's time series stays within its jobs.
//   - DOWN: the nodes leave service at once. Every job running on one of
//     them is killed (NodeFailKill: recorded as NodeFail, its reason naming
//     the node and the event's reason) or requeued (NodeFailRequeue: back
//     in the queue at its submission-order place, as Slurm's requeue keeps
//     the original priority, to run again from the start; its record
//     counts the requeues). The processor-seconds of the lost run are
//     counted in Stats.LostProcSeconds.
//   - DRAIN: the jobs running on the nodes finish, but no job starts there;
//     each processor leaves service as soon as it is idle.
//   - RESUME: the nodes are back in service.
//
// Every event voids the reservations made so far (the policies re-plan at
// the pass that follows). What policies see stays consistent: Capacity
// excludes the processors of down and draining nodes, Free only counts
// processors in service, and a running job reports (View.Running) only the
// processors it will give back to service, not those on draining nodes.
//
// A job larger than the machine is still rejected at its submission; one
// that fits the machine but not the processors in service waits. When no
// job runs, none arrives and no node event is left while nodes are out of
// service, jobs still queued can never start: they are recorded as
// Rejected, their reason saying so. (With every node in service, a queue
// left so is a policy's bug, and the engine panics as without node events.)

// NodeFailAction is what happens to a job running on a node that goes down.
type NodeFailAction uint8

// Values of NodeFailAction; their names double as the --on-node-fail flag's
// values.
const (
	// NodeFailKill kills the job: it ends at the failure, state NodeFail.
	NodeFailKill NodeFailAction = iota
	// NodeFailRequeue puts the job back in the queue, at its place in
	// submission order, to run again from the start.
	NodeFailRequeue
)

// String returns the action's name: kill or requeue.
func (a NodeFailAction) String() string {
	switch a {
	case NodeFailKill:
		return "kill"
	case NodeFailRequeue:
		return "requeue"
	}
	return fmt.Sprintf("NodeFailAction(%d)", uint8(a))
}

// ParseNodeFailAction parses kill or requeue.
func ParseNodeFailAction(s string) (NodeFailAction, error) {
	switch s {
	case "kill":
		return NodeFailKill, nil
	case "requeue":
		return NodeFailRequeue, nil
	}
	return 0, fmt.Errorf("sim: on node failure %q: want kill or requeue", s)
}

// Node states in nodes.state.
const (
	nodeUp uint8 = iota
	nodeDown
	nodeDrain
)

// nodes is the engine's node state. Its fields are plain values and slices
// (no pointers into the engine), so that a checkpoint can save them, but
// for units, which the configuration determines.
type nodes struct {
	events []cluster.NodeEvent // the schedule, sorted by time
	next   int                 // index of the next event to apply
	// units maps nodes to allocation units (processors of the pool, or
	// the node selector's nodes or cores) and parks them: the pool or
	// Config.Allocator, not state of its own.
	units  cluster.NodeStates
	state  []uint8 // per node: nodeUp, nodeDown or nodeDrain
	parked []bool  // per allocation unit: idle and out of service
	// nParked counts the processors of the parked units, unavail the
	// processors on down or draining nodes (busy or not), draining the
	// draining nodes.
	nParked, unavail, draining int
	// requeued counts the requeued jobs still queued: while there are any,
	// the queue is not in the order the policies' arrival-order indexes
	// assume (see Engine.ArrivalOrder).
	requeued int
	taken    []cluster.Range // scratch
	victims  []int32         // scratch
	// log are the node changes applied since the previous pass, for a
	// policy that reads them (policy.NodeViewer).
	log []policy.NodeChange
}

// initNodes validates cfg's node events and sets e.nodes up.
func (e *Engine) initNodes(cfg *Config) error {
	if len(cfg.NodeEvents) == 0 {
		return nil
	}
	if cfg.OnNodeFail > NodeFailRequeue {
		return fmt.Errorf("sim: on node failure %v: want kill or requeue", cfg.OnNodeFail)
	}
	size := cfg.NodeSize
	switch {
	case size < 0:
		return fmt.Errorf("sim: node size %d: want ≥ 1 processor", size)
	case size == 0:
		size = 1
	}
	var units cluster.NodeStates = poolNodes{m: e.machine, size: size, procs: cfg.Procs}
	nunits := cfg.Procs
	if cfg.Allocator != nil {
		ns, ok := cfg.Allocator.(cluster.NodeStates)
		if !ok {
			return fmt.Errorf("sim: node events need a node selector whose nodes can go out of service (linear, cons_res or clusters of them), not %T", cfg.Allocator)
		}
		if cfg.NodeSize > 1 {
			return fmt.Errorf("sim: node size %d with a cluster of nodes: the nodes are the cluster's", cfg.NodeSize)
		}
		units = ns
		nunits = ns.NodeUnits(cluster.Range{Lo: 0, Hi: ns.Nodes()}).Hi
	}
	n := units.Nodes()
	for i, ev := range cfg.NodeEvents {
		if i > 0 && ev.At < cfg.NodeEvents[i-1].At {
			return fmt.Errorf("sim: node event %d at %d comes after one at %d: events must be sorted by time", i+1, ev.At, cfg.NodeEvents[i-1].At)
		}
		if ev.State < cluster.NodeDown || ev.State > cluster.NodeResume {
			return fmt.Errorf("sim: node event %d: unknown state %v", i+1, ev.State)
		}
		for _, r := range ev.Nodes {
			if r.Lo < 0 || r.Hi > n || r.Lo >= r.Hi {
				return fmt.Errorf("sim: node event %d: nodes %d-%d outside the machine's nodes 0-%d", i+1, r.Lo, r.Hi-1, n-1)
			}
		}
	}
	e.nodes = nodes{events: cfg.NodeEvents, units: units, state: make([]uint8, n), parked: make([]bool, nunits)}
	return nil
}

// poolNodes are the nodes of the processor pool: size processors each.
type poolNodes struct {
	m           *cluster.Machine
	size, procs int
}

func (p poolNodes) Nodes() int { return (p.procs + p.size - 1) / p.size }
func (p poolNodes) NodeUnits(r cluster.Range) cluster.Range {
	return cluster.Range{Lo: r.Lo * p.size, Hi: min(r.Hi*p.size, p.procs)}
}
func (p poolNodes) UnitNode(u int) int            { return u / p.size }
func (p poolNodes) UnitProcs(r cluster.Range) int { return r.Len() }
func (p poolNodes) PutBack(rs []cluster.Range)    { p.m.Release(rs) }
func (p poolNodes) TakeFree(r cluster.Range, dst []cluster.Range) []cluster.Range {
	return p.m.TakeFree(r, dst)
}

// pending reports whether node events remain to be applied.
func (ns *nodes) pending() bool { return ns.next < len(ns.events) }

// nextAt returns the time of the next node event, or workload.Forever.
func (ns *nodes) nextAt() workload.Time {
	if ns.next < len(ns.events) {
		return ns.events[ns.next].At
	}
	return workload.Forever
}

// nodeProcs returns the number of processors of node n.
func (ns *nodes) nodeProcs(n int) int {
	return ns.units.UnitProcs(ns.units.NodeUnits(cluster.Range{Lo: n, Hi: n + 1}))
}

// busyProcs returns the processors allocated to jobs.
func (e *Engine) busyProcs() int {
	if c := e.count; c != nil {
		// Written out for the counted pool, so that this, which runs at
		// every instant, is inlined.
		return e.machine.Size() - (c.size - c.busy) - e.nodes.nParked - e.sharedOver
	}
	return e.machine.Size() - e.pool.free() - e.nodes.nParked
}

// drainingRuns calls f with each run of consecutive allocation units of
// rs on draining nodes.
func (ns *nodes) drainingRuns(rs []cluster.Range, f func(cluster.Range)) {
	for _, r := range rs {
		for u := r.Lo; u < r.Hi; {
			if ns.state[ns.units.UnitNode(u)] != nodeDrain {
				u++
				continue
			}
			v := u + 1
			for v < r.Hi && ns.state[ns.units.UnitNode(v)] == nodeDrain {
				v++
			}
			f(cluster.Range{Lo: u, Hi: v})
			u = v
		}
	}
}

// drainingIn returns how many processors of allocation rs are on draining
// nodes.
func (ns *nodes) drainingIn(rs []cluster.Range) int {
	if ns.draining == 0 {
		return 0
	}
	c := 0
	ns.drainingRuns(rs, func(r cluster.Range) { c += ns.units.UnitProcs(r) })
	return c
}

// park takes the idle allocation units of r out of service.
func (ns *nodes) park(r cluster.Range) {
	ns.taken = ns.units.TakeFree(r, ns.taken[:0])
	for _, t := range ns.taken {
		for u := t.Lo; u < t.Hi; u++ {
			ns.parked[u] = true
		}
		ns.nParked += ns.units.UnitProcs(t)
	}
}

// released parks the units of a finished job that are on draining nodes.
func (ns *nodes) released(rs []cluster.Range) {
	if ns.draining == 0 {
		return
	}
	ns.drainingRuns(rs, ns.park)
}

// unpark puts the parked units of r back in service.
func (ns *nodes) unpark(r cluster.Range) {
	for u := r.Lo; u < r.Hi; {
		if !ns.parked[u] {
			u++
			continue
		}
		v := u
		for v < r.Hi && ns.parked[v] {
			ns.parked[v] = false
			v++
		}
		run := cluster.Range{Lo: u, Hi: v}
		ns.units.PutBack([]cluster.Range{run})
		ns.nParked -= ns.units.UnitProcs(run)
		u = v
	}
}

// setState moves the nodes of r to state st, keeping the counts.
func (ns *nodes) setState(r cluster.Range, st uint8) {
	for n := r.Lo; n < r.Hi; n++ {
		old := ns.state[n]
		if old == st {
			continue
		}
		if old == nodeUp {
			ns.unavail += ns.nodeProcs(n)
		}
		if st == nodeUp {
			ns.unavail -= ns.nodeProcs(n)
		}
		if old == nodeDrain {
			ns.draining--
		}
		if st == nodeDrain {
			ns.draining++
		}
		ns.state[n] = st
	}
}

// applyNodeEvents applies every node event due by the current instant:
// those at it, and those before the first submission.
func (e *Engine) applyNodeEvents(obs *sink) {
	ns := &e.nodes
	for ns.next < len(ns.events) && ns.events[ns.next].At <= e.now {
		ev := &ns.events[ns.next]
		ns.next++
		nodes := ev.Nodes
		if e.pw != nil {
			// Only the nodes that are on change service state.
			nodes = e.powerNodeEvent(ev)
		}
		ch := policy.NodeChange{At: e.now, State: ev.State, Nodes: ev.Nodes, Reason: ev.Reason}
		// The power manager's switch-ons (and its timers, which name
		// no node) come as RESUME events.
		ch.Power = e.pw != nil && (len(ev.Nodes) == 0 || e.pw.state[ev.Nodes[0].Lo] == powerWaking)
		switch ev.State {
		case cluster.NodeDown:
			e.failJobs(ev, obs)
			for _, id := range ns.victims {
				ch.Stopped = append(ch.Stopped, e.slots[id].job.Seq)
			}
			ch.Requeued = e.cfg.OnNodeFail == NodeFailRequeue
			for _, r := range nodes {
				ns.setState(r, nodeDown)
				ns.park(ns.units.NodeUnits(r))
			}
		case cluster.NodeDrain:
			for _, r := range nodes {
				ns.setState(r, nodeDrain)
				ns.park(ns.units.NodeUnits(r))
			}
		case cluster.NodeResume:
			for _, r := range nodes {
				ns.setState(r, nodeUp)
				ns.unpark(ns.units.NodeUnits(r))
			}
			if e.pw != nil && e.pw.admin == nil {
				e.powerResumed(ev)
			}
		}
		if len(ev.Nodes) > 0 {
			ns.log = append(ns.log, ch)
		}
	}
	if len(e.reassign) > 0 {
		a := e.alloc.(memberAssigner)
		for _, id := range e.reassign {
			s := &e.slots[id]
			s.member = int32(a.Assign(s.request()))
		}
		e.reassign = e.reassign[:0]
	}
	// What each running job gives back to service changed with the
	// draining nodes.
	back := 0
	if e.cons != nil {
		e.cons.runningChanged()
	}
	for k := range e.running {
		r := &e.running[k]
		s := &e.slots[r.id]
		r.procs = int32(e.held(s) - ns.drainingIn(s.alloc))
		back += int(r.procs)
	}
	if c := e.Capacity(); c != e.Free()+back {
		panic(fmt.Sprintf("sim: after node events at %d: %d processors in service, but %d free and %d held by running jobs", e.now, c, e.Free(), back))
	}
	e.epoch++ // every reservation was planned on the old capacity
}

// failJobs kills or requeues the running jobs on the nodes of ev, in
// submission order.
func (e *Engine) failJobs(ev *cluster.NodeEvent, obs *sink) {
	ns := &e.nodes
	ns.victims = ns.victims[:0]
	for _, r := range e.running {
		if ns.firstNodeIn(e.slots[r.id].alloc, ev.Nodes) >= 0 {
			ns.victims = append(ns.victims, r.id)
		}
	}
	if e.pre != nil {
		// A job suspended by preemption is still allocated its nodes
		// (Slurm keeps a suspended job's allocation): it fails with them.
		for _, id := range e.pre.susp {
			if ns.firstNodeIn(e.slots[id].alloc, ev.Nodes) >= 0 {
				ns.victims = append(ns.victims, id)
			}
		}
	}
	sort.Slice(ns.victims, func(a, b int) bool {
		return e.slots[ns.victims[a]].job.Seq < e.slots[ns.victims[b]].job.Seq
	})
	for _, id := range ns.victims {
		s := &e.slots[id]
		node := ns.firstNodeIn(s.alloc, ev.Nodes)
		if s.pj != nil && s.pj.suspended {
			e.failSuspended(id, node, ev, obs)
			continue
		}
		if e.cfg.OnNodeFail == NodeFailRequeue && e.cfg.LostRun != nil {
			var steps []GrowStep
			if e.grow != nil {
				steps = e.grow.slots[id].steps
			}
			e.cfg.LostRun(s.start, e.now, s.job.Procs, s.alloc, steps)
		}
		e.stopRun(id)
		if e.pre != nil {
			e.preemptStopped(s)
		}
		if e.grow != nil {
			// The job as the trace gave it, its growth steps kept
			// for its record.
			s.end = e.now
			e.grow.finished(e, s, id)
		}
		if e.cfg.OnNodeFail == NodeFailRequeue {
			if e.grow != nil {
				// Back in the queue as it was submitted: on its
				// minimum, its work converted to it again.
				s.job.Estimate = e.grow.trace(id, s.limit)
				e.grow.submitted(e, s, id)
			}
			e.requeue(id)
			continue
		}
		e.stats.NodeKilled++
		if e.cons != nil {
			e.cons.submitted(&s.job, -1)
		}
		s.end = e.now
		s.job.Estimate = s.limit // the job as the trace gave it
		e.touch(e.now)
		e.rec = Record{Job: &s.job, State: NodeFail, Start: s.start, End: s.end, Alloc: s.alloc, Reason: downReason(node, ev), Requeues: int(s.requeues), Who: e.cons != nil}
		e.recordGrowth(id)
		if e.pre != nil {
			e.preemptRecord(s)
		}
		if s.predicted >= 0 {
			e.rec.Predicted, e.rec.HasPrediction, e.rec.PredictedAlloc = s.predicted, true, s.predAt
			e.stats.Predicted++
			if s.start <= s.predicted {
				e.stats.PredictedMet++
			}
		}
		if e.cfg.Annotator != nil {
			e.rec.Note = e.noteOf(&s.job)
		}
		obs.record(&e.rec)
		e.freeIDs = append(e.freeIDs, id)
	}
}

// downReason is the reason of a job killed by node's failure in ev.
func downReason(node int, ev *cluster.NodeEvent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "node %d down", node)
	if ev.Reason != "" {
		b.WriteString(": ")
		b.WriteString(ev.Reason)
	}
	return b.String()
}

// firstNodeIn returns the first node of nodes that allocation alloc
// touches, or −1.
func (ns *nodes) firstNodeIn(alloc, nodes []cluster.Range) int {
	for _, a := range alloc {
		for _, r := range nodes {
			u := ns.units.NodeUnits(r)
			if lo, hi := max(a.Lo, u.Lo), min(a.Hi, u.Hi); lo < hi {
				return ns.units.UnitNode(lo)
			}
		}
	}
	return -1
}

// held returns the processors the running job of slot s holds.
func (e *Engine) held(s *slot) int {
	if e.count != nil {
		return s.job.Procs
	}
	return e.pool.held(s)
}

// fits reports whether the queued job of slot s can start now (the
// allocator's fits).
func (e *Engine) fits(s *slot) bool {
	if c := e.count; c != nil {
		return s.job.Procs <= c.size-c.busy // small enough to be inlined
	}
	return e.poolFits(s)
}

// poolFits is fits on a pool of another kind than the counted one (on
// processors, less those the time-shared jobs share beyond the idle ones
// they took).
//
//go:noinline
func (e *Engine) poolFits(s *slot) bool {
	if e.sharedOver > 0 && e.pool.counting() {
		return s.job.Procs <= e.poolFree()
	}
	return e.pool.fits(s)
}

// freed returns the processors the end of the running job of slot s gives
// back to service (policy.Ended.Freed): what Running counts for it.
func (e *Engine) freed(s *slot) int {
	n := e.held(s)
	if e.nodes.draining > 0 {
		n -= e.nodes.drainingIn(s.alloc)
	}
	return n
}

// stopRun stops running job id now: its end events go, its processors are
// released and it leaves the predicted-end index. The part of its run that
// will not happen leaves Stats.ProcSeconds; the part that did is lost.
func (e *Engine) stopRun(id int32) {
	s := &e.slots[id]
	e.ends.remove(id, s.job.Seq)
	e.expiry.remove(id, s.job.Seq)
	e.pool.give(s)
	if e.pw != nil {
		e.powerBusy(s.alloc, -1)
	}
	e.nodes.released(s.alloc) // its part on other, draining nodes
	if e.cons != nil {
		e.cons.running(&s.job, -1)
		e.cons.runningChanged()
	}
	k := e.findRunning(s.predEnd, s.job.Seq)
	e.running = append(e.running[:k], e.running[k+1:]...)
	e.ended = append(e.ended, policy.Ended{Seq: s.job.Seq, Start: s.start, End: e.now, PredictedEnd: s.predEnd, Procs: s.job.Procs, User: s.job.User, Freed: e.freed(s)})
	held := float64(e.held(s))
	e.stats.ProcSeconds -= held * float64(s.end-e.now)
	if e.grow != nil && len(e.grow.slots[id].steps) > 0 {
		// A job that grew held fewer processors before its last step.
		e.stats.LostProcSeconds += float64(stepsProcSeconds(e.grow.slots[id].steps, e.now))
	} else {
		e.stats.LostProcSeconds += held * float64(e.now-s.start)
	}
}

// requeue puts stopped job id back in the queue at its submission-order
// place.
func (e *Engine) requeue(id int32) {
	s := &e.slots[id]
	if e.obs.wants(EventRequeued) {
		e.emit(EventRequeued, &s.job, s.job.Procs, 0)
	}
	e.stats.Requeued++
	s.requeues++
	s.started = false
	s.reserved, s.epoch = workload.Forever, e.epoch
	s.alloc = s.alloc[:0]
	if e.scale != nil {
		s.job.Run = s.run0 // scaled again where it starts next
		if s.memberLimit {
			// Its time limit was its member's: the next may differ.
			s.job.Estimate, s.limit, s.memberLimit = workload.Unknown, workload.Unknown, false
		}
	}
	seq := s.job.Seq
	k := sort.Search(len(e.queue), func(i int) bool { return e.slots[e.queue[i]].job.Seq > seq })
	e.queue = slices.Insert(e.queue, k, id)
	if k <= len(e.dense) {
		e.dense = slices.Insert(e.dense, k, fastpath.QueuedOf(&s.job))
	}
	e.queuedProcs += int64(s.job.Procs)
	e.stats.MaxQueue = max(e.stats.MaxQueue, len(e.queue))
	e.nodes.requeued++
	if s.member > 0 {
		// Requeued: submitted again, it is assigned a cluster again,
		// once the node events of the instant are applied.
		s.member = 0
		e.reassign = append(e.reassign, id)
	}
}

// strand records the jobs still queued at the end of a run with node
// events as rejected: too few processors are left in service for them.
func (e *Engine) strand(obs *sink) {
	inService := e.machine.Size() - e.nodes.unavail
	for _, id := range e.queue {
		s := &e.slots[id]
		e.stats.Rejected++
		s.job.Estimate = s.limit
		e.rec = Record{Job: &s.job, State: Rejected, Start: s.job.Submit, End: s.job.Submit, Requeues: int(s.requeues),
			Reason: fmt.Sprintf("never started: %d processors in service after the last node event, the job needs %d (or waits behind one that does)", inService, s.job.Procs)}
		obs.record(&e.rec)
		e.freeIDs = append(e.freeIDs, id)
	}
	e.queue, e.dense = e.queue[:0], e.dense[:0]
	e.queuedProcs = 0
	e.nodes.requeued, e.released = 0, 0
}

// remove deletes the event of job id with sequence seq from the heap, if
// there is one. It is linear in the heap's size: node failures are rare.
func (h *endHeap) remove(id int32, seq int64) {
	s := *h
	for i := range s {
		if s[i].id != id || s[i].seq != seq {
			continue
		}
		n := len(s) - 1
		s[i] = s[n]
		*h = s[:n]
		if i < n {
			h.fix(i)
		}
		return
	}
}

// fix restores the heap order around index i.
func (h endHeap) fix(i int) {
	h.down(h.up(i))
}

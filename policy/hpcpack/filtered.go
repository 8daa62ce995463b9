package hpcpack

import (
	"fmt"
	"math"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Filtered runs HPC Pack's activation filters (SPEC §6) around a
// backfilling policy. Inner decides, as always, which queued jobs start;
// each start goes through the activation chain of the job's template and of
// the cluster (Model.ActivationChain), and the chain's result decides:
//
//   - 0: the job starts.
//   - 1: it does not start, and no job of equal or lower priority
//     (workload.Job.Priority) starts until it does: the queue is blocked.
//   - 2 (and any other code, a timeout, a missing filter): it does not
//     start, and the processors stay reserved for it while other jobs
//     start on the others.
//   - 3: it is held until its HoldUntil, or for Model.DefaultHold when
//     that is not later than now; its processors go to other jobs.
//   - 4: it fails, "activation filter failed the job".
//
// Blocked and reserving jobs are re-evaluated (their chain is called
// again, with the same candidate resources) at the first pass at least
// Model.Reevaluate after the previous call; Filtered asks the engine for
// that pass (Decisions.WakeAt), as it does for a running job whose growth
// its filters refused (Model.FilterGrow). A held job comes back into the queue at
// its HoldUntil, which is cleared when the job starts. (A Hold Until the
// job had at its submission, from the trace or a submission filter, is the
// engine's: the job joins the queue only then, filters or not; see package
// sim.)
//
// When fewer processors are in service than the reservations hold (a
// node failure, sim.Config.NodeEvents), the reservations are kept in queue
// order as long as they fit the free processors; each one that does not is
// void: its job waits as queued, and its filters are called again when it
// would start.
//
// Under growth (sim.Grow, through policy.Assigner) a job that starts at the
// head with room to grow is asked for once, for all the processors it is
// given at its start: as many up to its maximum as are idle and not
// reserved (Activation.Resources); it then starts with them, and is not
// asked again to grow in the same pass. A backfilled job is asked for its
// minimum and starts on it.
//
// Result 2 keeps the candidate resources the chain was asked for reserved:
// HPC Pack's Queued mode reserves up to the job's maximum, so under growth
// a head job reserves what it would have started with (up to its maximum,
// as many as were idle), a rigid or backfilled job its processors. (HPC
// Pack's Balanced mode, sim.Grow.Balanced, starts every job on its
// minimum: the engine's Range reports the minimum alone, so the chain is
// asked for it and result 2 reserves it.)
//
// A job that would start by backfilling (a job ahead of it still waits)
// starts only with result 0 (HPC Pack's rule for backfill windows): 1 and 2
// neither block the queue nor reserve anything then, the job only stays
// queued. 3 and 4 hold and fail as usual.
//
// Inner sees the queue without the jobs that are held, blocked (and, while
// a job is blocked, the jobs of equal or lower priority), reserving, or
// already refused in this pass; reserved processors are busy in its policy.View,
// as running jobs of unknown end. When a start is refused, Inner's picture
// of the pass is wrong (it counted the job's processors as taken), so Inner
// runs again, on the updated queue, until a round refuses nothing. Inner's
// reservations are plans, not promises (a filter may delay any job), so
// they are not passed on, and Inner must plan from scratch at every pass:
// FCFS, EASY, Depth, Slurm, each possibly under policy.Ordered (policy.Ordered goes
// outside: policy.Ordered{Inner: Filtered{Inner: EASY}}). policy.Conservative cannot be
// filtered.
//
// On a cluster of nodes (a View that gives a copy of its node selector
// and the jobs' requests, as a policy.NodeView does, Decisions that are a
// policy.NodeStarter: sim.Config.Allocator, a cluster of clusters
// included) result 2 keeps the
// candidate resources themselves: the nodes (under select/linear) or
// cores (cons_res) the node selector would have started the job on. Each
// pass, Filtered takes the reserved resources out of a copy of the node
// selector (its scratch), Inner sees a policy.Fitter that fits jobs on
// that copy, and every start is placed on it (policy.NodeStarter.StartOn),
// so no job starts on a reservation. A reservation whose resources are no
// longer all idle (a node failure) is void, its job queued again, as on the
// pool. A reserving job re-evaluated is asked with its own resources put
// back, and with result 2 again keeps what the selector would give it then.
// The scratch keeps the reserved cores, not the memory of a node a
// reservation shares with other jobs (cons_res with memory).
//
// The policy.Decisions Filtered gets must implement policy.Failer (the engine does, and
// policy.Ordered passes it on).
type Filtered struct {
	// Inner is the backfilling policy.
	Inner policy.Policy
	// HPC holds the filters, templates and settings.
	HPC *Model

	pass     int64
	v        policy.View
	d        policy.Decisions
	now      workload.Time
	reserved int    // processors reserved for jobs that got result 2
	keep     []int  // queue indices of the reserving jobs
	blocked  []int  // queue indices of the blocked jobs
	due      []int  // blocked and reserving jobs to re-evaluate now
	vis      []int  // queue indices Inner sees, in queue order
	started  []bool // by queue index: started or failed in this pass
	blockPri int64  // jobs of at most this priority may not start
	blocking bool   // some job blocks the queue
	holds    bool   // some job is held until a later time
	refused  bool   // a start was refused in this round
	head     int    // index in vis of the first job neither started nor refused
	round    int    // Inner's run within the pass, from 0
	grewIn   int    // the round in which Inner passed growth on, -1: none
	wake     workload.Time
	asked    workload.Time // the last wake asked for
	view     filteredView
	// cal is v as a policy.Calendar (reservations, start windows and
	// limits: sim.Config.Constraints), nil without; calView is the view
	// Inner gets then, which passes the calendar on.
	cal     calendar
	calView filteredCalView
	act     Activation
	// On a cluster of nodes (see above): the engine's NodeView and
	// NodeStarter, the scratch selector of the pass, its NodeStates,
	// and the view Inner gets (nil on a pool of processors).
	nv       selectorView
	ns       policy.NodeStarter
	scratch  cluster.Allocator
	units    cluster.NodeStates
	nodeView filteredNodeView
	taken    []cluster.Range
	rs       []cluster.Range
}

var (
	_ policy.Policy    = (*Filtered)(nil)
	_ policy.Settler   = (*Filtered)(nil)
	_ policy.View      = (*filteredView)(nil)
	_ policy.Decisions = (*filteredView)(nil)
)

// Name implements policy.Policy: Inner's name with "+filters".
func (f *Filtered) Name() string { return f.Inner.Name() + "+filters" }

// Schedule implements Policy.
func (f *Filtered) Schedule(v policy.View, d policy.Decisions) {
	f.pass++
	f.v, f.d = v, d
	f.cal, _ = v.(calendar)
	now := v.Now()
	f.now = now
	h := f.HPC
	f.nv, f.ns, f.units = nil, nil, nil
	if nv, ok := v.(selectorView); ok {
		if ns, ok := d.(policy.NodeStarter); ok {
			// A copy of the selector, valid for this pass (nothing else
			// asks the view for one before the next).
			f.scratch = nv.Scratch()
			if units, ok := f.scratch.(cluster.NodeStates); ok {
				f.nv, f.ns, f.units = nv, ns, units
			}
		}
	}
	for _, e := range v.Ended() {
		h.jobEnded(e)
	}
	n := v.Len()
	if cap(f.started) < n {
		f.started = make([]bool, n, n+n/4)
	}
	f.started = f.started[:n]
	clear(f.started)
	f.reserved, f.keep, f.blocked, f.due, f.vis = 0, f.keep[:0], f.blocked[:0], f.due[:0], f.vis[:0]
	f.wake, f.holds = workload.Forever, false
	for i := 0; i < n; i++ {
		j := v.Job(i)
		if nt := h.notes[j.Seq]; nt != nil {
			switch nt.state {
			case stateHeld:
				if j.HoldUntil > now {
					f.wake, f.holds = min(f.wake, j.HoldUntil), true
					continue
				}
				nt.held += j.HoldUntil - nt.since
				nt.state = stateQueued
			case stateReserving:
				if f.nv != nil {
					nt.out = false // the scratch is new
					if f.takeReserved(nt) {
						f.reserved += nt.resv
						f.keep = append(f.keep, i)
						f.schedule(i, nt)
						continue
					}
				} else if f.reserved+nt.resv <= v.Free() {
					f.reserved += nt.resv
					f.keep = append(f.keep, i)
					f.schedule(i, nt)
					continue
				}
				// The processors in service fell below the reservations
				// (a node failure, sim.Config.NodeEvents): one that does
				// not fit beside the earlier ones is void, its job queued.
				// On nodes: one whose resources are not all idle.
				nt.reserving += now - nt.since
				nt.state, nt.resvAt = stateQueued, nil
			case stateBlocked:
				f.blocked = append(f.blocked, i)
				f.schedule(i, nt)
				continue
			}
		}
		if j.HoldUntil > now {
			f.wake, f.holds = min(f.wake, j.HoldUntil), true
			continue
		}
		f.vis = append(f.vis, i)
	}
	// Re-evaluate the blocked and reserving jobs that are due, in queue
	// order; again while that changed the reservations, for the blocked
	// jobs that did not fit beside them (nothing else may come to call
	// them: a pass with nothing running could be the last).
	for reserved := -1; reserved != f.reserved; {
		reserved = f.reserved
		for _, i := range f.due {
			j := v.Job(i)
			nt := h.notes[j.Seq]
			if f.started[i] || nt == nil || nt.tried == f.pass {
				continue // re-evaluated already in this pass
			}
			if f.nv != nil {
				// Asked with its own resources back.
				f.putBackReserved(nt)
				if !f.scratch.Fits(f.nv.Request(i)) || (f.cal != nil && !f.cal.Fits(i)) {
					f.takeReserved(nt)
					nt.seen = f.now
					continue
				}
				f.activate(i, j, false)
				continue
			}
			free := v.Free() - f.reserved
			if nt.state == stateReserving {
				free += nt.resv
			}
			if j.Procs > free || (f.cal != nil && !f.cal.Fits(i)) {
				nt.seen = f.now // it stays blocked, due, and could not be asked
				continue
			}
			f.activate(i, j, false)
		}
	}
	f.updateBlocking()
	f.filterVisible()
	f.grewIn = -1
	last := -1
	for f.round = 0; len(f.vis) > 0; f.round++ {
		last = f.round
		f.refused = false
		f.head = 0
		if f.cal != nil {
			f.calView = filteredCalView{filteredView{f: f}}
			f.Inner.Schedule(&f.calView, &f.calView)
			f.calView = filteredCalView{}
		} else if f.nv != nil {
			f.nodeView = filteredNodeView{filteredView{f: f}}
			f.Inner.Schedule(&f.nodeView, &f.nodeView)
			f.nodeView = filteredNodeView{}
		} else {
			f.view = filteredView{f: f}
			f.Inner.Schedule(&f.view, &f.view)
			f.view = filteredView{}
		}
		if !f.refused {
			break
		}
		f.filterVisible()
	}
	if f.grewIn < 0 || f.grewIn != last {
		f.grow(v.Free()) // Inner's last round did not grow the running jobs
	}
	// A running job refused growth is offered processors again at its
	// next re-evaluation, whether or not anything else happens then.
	f.wake = min(f.wake, h.nextGrowth(now))
	if f.wake < workload.Forever && (f.asked <= now || f.wake < f.asked) {
		d.WakeAt(f.wake)
		f.asked = f.wake
	}
	f.v, f.d, f.cal = nil, nil, nil
	f.nv, f.ns, f.units = nil, nil, nil
}

// selectorView is the part of a policy.NodeView Filtered needs on a
// cluster of nodes, which the engine's view has on every node selector
// (a cluster of clusters too): a copy of the selector and the jobs'
// requests.
type selectorView interface {
	Scratch() cluster.Allocator
	Request(i int) cluster.Request
}

// takeReserved takes the resources reserving job nt keeps on a cluster of
// nodes out of the scratch selector, if all of them are idle there, and
// reports whether they were (if not, it takes none).
func (f *Filtered) takeReserved(nt *jobNote) bool {
	if nt.out {
		return true
	}
	f.taken = f.taken[:0]
	want := 0
	for _, r := range nt.resvAt {
		want += r.Hi - r.Lo
		f.taken = f.units.TakeFree(r, f.taken)
	}
	got := 0
	for _, r := range f.taken {
		got += r.Hi - r.Lo
	}
	if got != want || want == 0 {
		f.units.PutBack(f.taken)
		return false
	}
	nt.out = true
	return true
}

// putBackReserved puts the resources reserving job nt keeps on a cluster
// of nodes back into the scratch selector.
func (f *Filtered) putBackReserved(nt *jobNote) {
	if nt.out {
		f.units.PutBack(nt.resvAt)
		nt.out = false
	}
}

// reserveNodes makes the resources queued job i would start on now, on
// the scratch selector, its reservation on a cluster of nodes, and
// returns the processors they hold.
func (f *Filtered) reserveNodes(i int, nt *jobNote) int {
	f.putBackReserved(nt)
	rs, ok := f.scratch.RunNow(f.nv.Request(i), f.rs[:0])
	f.rs = rs
	if !ok {
		panic(fmt.Sprintf("hpcpack: job %d reserves resources that do not fit the nodes", f.v.Job(i).ID))
	}
	nt.resvAt = append(nt.resvAt[:0], rs...)
	if !f.takeReserved(nt) {
		panic(fmt.Sprintf("hpcpack: job %d's candidate resources %v are not idle", f.v.Job(i).ID, rs))
	}
	return procsOf(f.units, nt.resvAt)
}

// procsOf returns the processors of units rs.
func procsOf(u cluster.NodeStates, rs []cluster.Range) int {
	n := 0
	for _, r := range rs {
		n += u.UnitProcs(r)
	}
	return n
}

// schedule puts blocked or reserving job i on the list of jobs to
// re-evaluate now, or asks for a pass at its next re-evaluation.
func (f *Filtered) schedule(i int, nt *jobNote) {
	if nt.next <= f.now {
		f.due = append(f.due, i)
		return
	}
	f.wake = min(f.wake, nt.next)
}

// updateBlocking recomputes the priority the blocked jobs block.
func (f *Filtered) updateBlocking() {
	f.blocking, f.blockPri = false, math.MinInt64
	for _, i := range f.blocked {
		if f.started[i] {
			continue
		}
		j := f.v.Job(i)
		if f.HPC.notes[j.Seq].state != stateBlocked {
			continue
		}
		f.blocking = true
		f.blockPri = max(f.blockPri, j.Priority)
	}
}

// filterVisible drops from vis the jobs that started, failed, were refused
// in this pass, or are blocked by a job of equal or higher priority.
func (f *Filtered) filterVisible() {
	k := 0
	for _, i := range f.vis {
		if f.started[i] {
			continue
		}
		j := f.v.Job(i)
		if nt := f.HPC.notes[j.Seq]; nt != nil && (nt.tried == f.pass || nt.state != stateQueued) {
			continue
		}
		if f.blocking && j.Priority <= f.blockPri {
			continue
		}
		f.vis[k] = i
		k++
	}
	f.vis = f.vis[:k]
}

// activate runs queued job i's activation chain and acts on the result. It
// reports whether the job started.
func (f *Filtered) activate(i int, j *workload.Job, backfill bool) bool {
	h := f.HPC
	procs := f.assignment(i, j, backfill)
	chain := h.ActivationChain(j)
	if len(chain) == 0 {
		j.HoldUntil = 0
		f.started[i] = true
		f.start(i, procs)
		return true
	}
	nt := h.note(j.Seq)
	f.act = Activation{Job: j, Now: f.now, Pass: f.pass, Index: i, Backfill: backfill, Resources: procs}
	r, by := ActivationChain(chain, &f.act, nil)
	nt.count(r)
	nt.seen, nt.last, nt.lastBy = f.now, r, by
	action := ActivationAction(r)
	if backfill && (action == BlockQueue || action == KeepResources) {
		nt.tried = f.pass
		f.refused = true
		return false
	}
	if !(action == BlockQueue && nt.state == stateBlocked) && !(action == KeepResources && nt.state == stateReserving) {
		f.leave(i, j, nt)
	}
	switch action {
	case Start:
		j.HoldUntil = 0
		f.started[i] = true
		f.start(i, procs)
		return true
	case BlockQueue:
		nt.next = f.now + h.reevaluate()
		f.wake = min(f.wake, nt.next)
		if nt.state != stateBlocked {
			nt.state, nt.since = stateBlocked, f.now
			f.blocked = append(f.blocked, i)
		}
		f.blocking = true
		f.blockPri = max(f.blockPri, j.Priority)
	case KeepResources:
		nt.next = f.now + h.reevaluate()
		f.wake = min(f.wake, nt.next)
		if f.nv != nil {
			// The candidate resources themselves stay reserved.
			procs = f.reserveNodes(i, nt)
		}
		if nt.state != stateReserving {
			// The candidate resources stay reserved: in Queued mode up
			// to the job's maximum (assignment), SPEC §6.
			nt.state, nt.since, nt.resv = stateReserving, f.now, procs
			f.reserved += procs
			f.keep = append(f.keep, i)
		} else {
			// Re-evaluated: it keeps this call's candidates (its own
			// reservation was counted in them).
			f.reserved += procs - nt.resv
			nt.resv = procs
		}
	case Hold:
		if j.HoldUntil <= f.now {
			j.HoldUntil = f.now + h.defaultHold()
		}
		nt.state, nt.since = stateHeld, f.now
		f.wake = min(f.wake, j.HoldUntil)
	case Fail:
		fl, ok := f.d.(policy.Failer)
		if !ok {
			panic(fmt.Sprintf("hpcpack: %s cannot fail job %d: its Decisions do not implement policy.Failer", f.Name(), j.ID))
		}
		f.started[i] = true
		fl.Fail(i, failReason(MsgActivationFailed, by, r))
		h.forget(j.Seq)
	}
	nt.tried = f.pass
	f.refused = true
	return false
}

// assignment returns the processors queued job i would be given if it
// started now: under growth (policy.Assigner), a job that starts at the
// head with room to grow is given up to its maximum, as many as are idle
// and not reserved (its own reservation included); a backfilled job, a
// rigid one, or one without growth its processor count (its minimum).
// This is the Resources its activation chain is asked for, once: the
// growth is part of the start, not a second call in the same pass.
func (f *Filtered) assignment(i int, j *workload.Job, backfill bool) int {
	a, ok := f.d.(policy.Assigner)
	if !ok || backfill {
		return j.Procs
	}
	lo, hi := a.Range(i)
	if hi <= lo {
		return lo
	}
	avail := f.v.Free() - f.reserved
	if nt := f.HPC.notes[j.Seq]; nt != nil && nt.state == stateReserving {
		avail += nt.resv
	}
	return min(hi, max(lo, avail))
}

// start starts queued job i with procs processors in all (see assignment).
// On a cluster of nodes it starts where the scratch selector places it,
// outside every reservation.
func (f *Filtered) start(i, procs int) {
	if f.nv != nil {
		r := f.nv.Request(i)
		rs, ok := f.scratch.RunNow(r, f.rs[:0])
		f.rs = rs
		if !ok {
			panic(fmt.Sprintf("hpcpack: %s started job %d, which does not fit the nodes that activation filters do not reserve", f.Inner.Name(), f.v.Job(i).ID))
		}
		f.scratch.Commit(r, rs)
		f.ns.StartOn(i, rs)
		return
	}
	if a, ok := f.d.(policy.Assigner); ok {
		a.StartWith(i, procs)
		return
	}
	f.d.Start(i)
}

// leave ends job i's blocked, reserving or held state, adding its time.
func (f *Filtered) leave(i int, j *workload.Job, nt *jobNote) {
	switch nt.state {
	case stateBlocked:
		nt.blocked += f.now - nt.since
	case stateReserving:
		nt.reserving += f.now - nt.since
		f.reserved -= nt.resv
		if f.nv != nil {
			f.putBackReserved(nt)
			nt.resvAt = nil
		}
		for k, x := range f.keep {
			if x == i {
				f.keep = append(f.keep[:k], f.keep[k+1:]...)
				break
			}
		}
	case stateHeld:
		nt.held += f.now - nt.since
	}
	nt.state = stateQueued
}

// Settled implements policy.Settler: no job is held until a later time,
// some job is blocked or reserving, and each of them was re-evaluated (or,
// blocked without room, could not be) at a periodic pass after since. The
// engine then ends the run: with nothing else to come, their filters would
// be asked the same question again and again (SPEC §6: no retry limit).
func (f *Filtered) Settled(since workload.Time) bool {
	if f.holds {
		return false
	}
	waiting := 0
	for _, nt := range f.HPC.notes {
		switch nt.state {
		case stateHeld:
			return false
		case stateBlocked, stateReserving:
			if nt.seen <= since {
				return false
			}
			waiting++
		}
	}
	return waiting > 0
}

// Strand implements policy.Settler: why queued job j never started. A
// blocked or reserving job gives its filters' last answer (and the time it
// spent so counts in its note); a job refused as a backfill in the last
// pass gives that answer; any other job waits behind them.
func (f *Filtered) Strand(j *workload.Job) string {
	nt := f.HPC.notes[j.Seq]
	switch {
	case nt != nil && (nt.state == stateBlocked || nt.state == stateReserving):
		what := "blocks the queue"
		if nt.state == stateReserving {
			what = "keeps its processors reserved"
			nt.reserving += f.now - nt.since
		} else {
			nt.blocked += f.now - nt.since
		}
		nt.since = f.now
		return failReason(MsgStillQueued+": its activation filters keep it waiting ("+what+")", nt.lastBy, nt.last)
	case nt != nil && nt.tried == f.pass && nt.lastBy != "":
		return failReason(MsgStillQueued+": refused as a backfill", nt.lastBy, nt.last)
	}
	return MsgStillQueued + ": it waits behind jobs that activation filters keep waiting (the queue blocked, or the processors reserved)"
}

// failReason is the reason a job fails with: msg, the filter and its words.
func failReason(msg, by string, r Result) string {
	s := msg + " (" + by + ": " + r.String()
	if r.Message != "" {
		s += ", " + r.Message
	}
	return s + ")"
}

// filteredView is the policy.View and policy.Decisions Filtered hands Inner.
type filteredView struct {
	f *Filtered
}

// Now implements View.
func (w *filteredView) Now() workload.Time { return w.f.now }

// Capacity implements View.
func (w *filteredView) Capacity() int { return w.f.v.Capacity() }

// Free implements policy.View: the idle processors not reserved by a filter.
func (w *filteredView) Free() int { return w.f.v.Free() - w.f.reserved }

// Len implements View.
func (w *filteredView) Len() int { return len(w.f.vis) }

// Job implements View.
func (w *filteredView) Job(i int) *workload.Job { return w.f.v.Job(w.f.vis[i]) }

// NumRunning implements policy.View: the running jobs and the reserving ones.
func (w *filteredView) NumRunning() int { return w.f.v.NumRunning() + len(w.f.keep) }

// Running implements policy.View: the running jobs, then the reserving jobs with
// an unknown end.
func (w *filteredView) Running(k int) (workload.Time, int) {
	if n := w.f.v.NumRunning(); k >= n {
		return workload.Forever, w.f.HPC.notes[w.f.v.Job(w.f.keep[k-n]).Seq].resv
	}
	return w.f.v.Running(k)
}

// Ended implements policy.View: the ended jobs, in the first round of a pass only.
func (w *filteredView) Ended() []policy.Ended {
	if w.f.round == 0 {
		return w.f.v.Ended()
	}
	return nil
}

// Start implements policy.Decisions: the job starts only if its activation filters
// let it.
func (w *filteredView) Start(vi int) {
	f := w.f
	i := f.vis[vi]
	j := f.v.Job(i)
	if f.started[i] {
		panic(fmt.Sprintf("hpcpack: %s started job %d twice", f.Inner.Name(), j.ID))
	}
	if f.nv == nil && j.Procs > f.v.Free()-f.reserved {
		panic(fmt.Sprintf("hpcpack: %s started job %d (%d processors) with %d free and %d reserved by activation filters", f.Inner.Name(), j.ID, j.Procs, f.v.Free(), f.reserved))
	}
	if f.blocking && j.Priority <= f.blockPri {
		f.refused = true // blocked in this round: hidden in the next
		return
	}
	for f.head < len(f.vis) && f.skipped(f.vis[f.head]) {
		f.head++
	}
	f.activate(i, j, vi > f.head)
}

// skipped reports whether queue index i started or was refused in this pass.
func (f *Filtered) skipped(i int) bool {
	if f.started[i] {
		return true
	}
	nt := f.HPC.notes[f.v.Job(i).Seq]
	return nt != nil && nt.tried == f.pass
}

// Reserve implements policy.Decisions: a filter may delay any job, so Inner's
// reservations are plans and are not passed on.
func (w *filteredView) Reserve(int, workload.Time) {}

// WakeAt implements Decisions.
func (w *filteredView) WakeAt(t workload.Time) { w.f.d.WakeAt(t) }

// calendar is the View of an engine with reservations, start windows or
// limits (sim.Config.Constraints): a policy.Fitter and a policy.Calendar.
type calendar interface {
	policy.Fitter
	policy.Calendar
}

// filteredCalView is the view Filtered hands Inner when its own view has
// reservations, start windows or limits: Inner plans with them as it would
// without activation filters, on the processors the filters have not
// reserved. Slurm and HPC Pack alike keep a reservation's resources out of
// every scheduler's reach; activation filters decide, among the starts the
// calendar allows, which happen.
type filteredCalView struct {
	filteredView
}

var (
	_ policy.Fitter   = (*filteredCalView)(nil)
	_ policy.Calendar = (*filteredCalView)(nil)
	_ fastpath.Spans  = (*filteredCalView)(nil)
)

// Fits implements policy.Fitter: visible job vi may start now by the
// calendar, on processors no activation filter keeps reserved.
func (w *filteredCalView) Fits(vi int) bool {
	f := w.f
	i := f.vis[vi]
	if f.nv != nil {
		return f.scratch.Fits(f.nv.Request(i)) && f.cal.Fits(i)
	}
	return f.v.Job(i).Procs <= f.v.Free()-f.reserved && f.cal.Fits(i)
}

// filteredNodeView is the view Filtered hands Inner on a cluster of nodes
// (without a calendar): a policy.Fitter on the nodes that activation
// filters do not reserve.
type filteredNodeView struct {
	filteredView
}

var _ policy.Fitter = (*filteredNodeView)(nil)

// Fits implements policy.Fitter: visible job vi fits the nodes now, out of
// the reservations.
func (w *filteredNodeView) Fits(vi int) bool {
	f := w.f
	return f.scratch.Fits(f.nv.Request(f.vis[vi]))
}

// Withheld implements policy.Calendar.
func (w *filteredCalView) Withheld(vi int, t workload.Time) (int, workload.Time) {
	return w.f.cal.Withheld(w.f.vis[vi], t)
}

// StartFrom implements policy.Calendar.
func (w *filteredCalView) StartFrom(vi int, t workload.Time) workload.Time {
	return w.f.cal.StartFrom(w.f.vis[vi], t)
}

// FirstOver implements fastpath.Spans: the inner calendar's, for the
// visible job's queue index.
func (w *filteredCalView) FirstOver(vi int, count bool, slack int, from, to workload.Time) (workload.Time, workload.Time, bool) {
	if sp, ok := w.f.cal.(fastpath.Spans); ok {
		return sp.FirstOver(w.f.vis[vi], count, slack, from, to)
	}
	return 0, 0, false
}

// Blocked implements fastpath.Spans: the inner calendar's.
func (w *filteredCalView) Blocked(vi, slack int, from, dur workload.Time) bool {
	sp, ok := w.f.cal.(fastpath.Spans)
	return ok && sp.Blocked(w.f.vis[vi], slack, from, dur)
}

// CreditGen implements fastpath.Credited: the inner calendar's, so that
// the inner policy's memos follow the running jobs the reservations
// admit.
func (w *filteredCalView) CreditGen() uint64 {
	if c, ok := w.f.cal.(fastpath.Credited); ok {
		return c.CreditGen()
	}
	return 0
}

// Memoless implements fastpath.Memoless: the inner calendar's.
func (w *filteredCalView) Memoless() bool {
	ml, ok := w.f.cal.(fastpath.Memoless)
	return ok && ml.Memoless()
}

// Horizon implements fastpath.Spans: the inner calendar's.
func (w *filteredCalView) Horizon(from workload.Time) workload.Time {
	if sp, ok := w.f.cal.(fastpath.Spans); ok {
		return sp.Horizon(from)
	}
	return workload.Forever
}

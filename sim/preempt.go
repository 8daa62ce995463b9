package sim

import (
	"fmt"
	"slices"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Preemption is Slurm's preemption by partition priority
// (PreemptType=preempt/partition_prio) on a cluster of nodes
// (Config.Preempt). A policy that leaves a job queued may ask the engine
// to start it by preempting running jobs of lower tiers
// (policy.Preempter, policy.PartitionPrio):
//
//   - the candidates are the running jobs whose tier (their partition's
//     PriorityTier) is below the job's, but for those that started (or
//     resumed) at this instant — the policy's pass comes first and a job
//     is not started and preempted at once —, in preempt/partition_prio's
//     order:
//     lowest tier first, then the fewest allocated units (nodes under
//     linear, cores under cons_res), then submission order; with
//     YoungestFirst (preempt_youngest_first) the latest started first;
//   - as Slurm's select plugins do, the candidates are taken away one at a
//     time, in that order, until the job fits; it then starts where the
//     selector places it, and the candidates whose resources it does not
//     use keep running: only the others are preempted. A job that does not
//     fit even with every candidate gone preempts nothing;
//   - what becomes of the preempted jobs is Mode: suspended (their
//     resources freed; they resume, on the same resources, at the first
//     instant that finds them all free, before its pass, their progress
//     kept; time suspended does not count against their time limit),
//     requeued (back in the queue at their submission-order place, to
//     start over: the run so far is lost), or cancelled (recorded as
//     Preempted at that instant);
//   - under a scheduler cycle (Config.SchedInterval) jobs preempt in the
//     passes the cycle runs, as Slurm's schedulers try preemption for the
//     jobs they examine, but suspended jobs still resume at the instant
//     their resources free: Slurm's gang scheduler resumes them, not its
//     main scheduler.
//
// Records then carry every job's tier and, for a preempted job, its
// preemptions and the runs between them (Record.Preemptions, Runs,
// LostRun), which Verify checks.
type Preemption struct {
	// Mode is what happens to the preempted jobs: policy.PreemptSuspend,
	// PreemptRequeue or PreemptCancel.
	Mode policy.PreemptMode
	// Tier returns a job's tier (its partition's PriorityTier).
	Tier func(j *workload.Job) int
	// YoungestFirst orders the candidates by start, latest first
	// (Slurm's preempt_youngest_first), instead of by tier and size.
	YoungestFirst bool
}

// PreemptMark is one preemption of a job: when, by which job, and how.
type PreemptMark struct {
	At   workload.Time
	By   int64 // the preemptor's job id
	Mode policy.PreemptMode
}

// RunSpan is one stretch of time a job ran, on Alloc, between its start
// or resumption and its preemption or end.
type RunSpan struct {
	From, To workload.Time
	Alloc    []cluster.Range
}

// slotPreempt is what the engine keeps of a job that was preempted.
type slotPreempt struct {
	first workload.Time // its first start
	runs  []RunSpan
	marks []PreemptMark
	lost  workload.Time // run time lost to requeues
	left  workload.Time // run time left while suspended
	// done is the run time done before the current run: a resumed job's
	// runs so far (0 after a requeue). Its predictions (Config.Estimator)
	// are of its whole run, from start − done.
	done      workload.Time
	suspended bool
}

// preemptState is the engine's state under Config.Preempt.
type preemptState struct {
	cfg   Preemption
	rec   cluster.Recommitter
	tiers []tierCount // running jobs per tier, by tier
	cands []int32     // scratch: the candidates, in preemption order
	dst   []cluster.Range
	// fixed is the allocation the next start takes (the one chosen with
	// the candidates gone), when set.
	fixed   []cluster.Range
	useFix  bool
	susp    []int32 // suspended jobs, in order of suspension
	requeue []int32 // jobs requeued in this pass: queued after it
}

type tierCount struct{ tier, n int }

// ran counts a running job of tier t in (d = 1) or out (d = −1).
func (p *preemptState) ran(t int32, d int) {
	k, found := slices.BinarySearchFunc(p.tiers, int(t), func(c tierCount, t int) int { return c.tier - t })
	if !found {
		p.tiers = slices.Insert(p.tiers, k, tierCount{tier: int(t)})
	}
	p.tiers[k].n += d
	if p.tiers[k].n < 0 {
		panic(fmt.Sprintf("sim: %d running jobs of tier %d", p.tiers[k].n, t))
	}
}

// lowest returns the lowest tier of a running job (false: none runs).
func (p *preemptState) lowest() (int, bool) {
	for _, c := range p.tiers {
		if c.n > 0 {
			return c.tier, true
		}
	}
	return 0, false
}

// sharer is a node selector whose nodes may run several jobs at once
// (cluster.Linear under OverSubscribe=FORCE).
type sharer interface{ Shares() bool }

// initPreempt checks Config.Preempt against the rest of the
// configuration, and shared nodes against node events.
func (e *Engine) initPreempt(cfg *Config) error {
	if sh, ok := cfg.Allocator.(sharer); ok && sh.Shares() && len(cfg.NodeEvents) > 0 {
		return fmt.Errorf("sim: nodes shared by several jobs (OverSubscribe=FORCE) are not combined with node events")
	}
	pc := cfg.Preempt
	if pc == nil {
		return nil
	}
	switch {
	case pc.Tier == nil:
		return fmt.Errorf("sim: preemption without tiers")
	case pc.Mode != policy.PreemptSuspend && pc.Mode != policy.PreemptRequeue && pc.Mode != policy.PreemptCancel:
		return fmt.Errorf("sim: preemption mode %s: want suspend, requeue or cancel", pc.Mode)
	case cfg.Allocator == nil:
		return fmt.Errorf("sim: preemption by partition priority needs a cluster of nodes (Config.Allocator)")
	case cfg.Grow != nil || cfg.Power != nil:
		return fmt.Errorf("sim: preemption is not combined with growing jobs or switching nodes off")
	}
	rc, ok := cfg.Allocator.(cluster.Recommitter)
	if !ok {
		return fmt.Errorf("sim: preemption needs a node selector that can resume a job where it was (linear or cons_res), not %T", cfg.Allocator)
	}
	e.pre = &preemptState{cfg: *pc, rec: rc}
	return nil
}

// Preempt implements policy.Preempter (see Preemption).
func (e *Engine) Preempt(i int) (started, more bool) {
	p := e.pre
	if p == nil {
		return false, false
	}
	if i < 0 || i >= e.passLen {
		panic(fmt.Sprintf("sim: policy %s preempted for queue index %d of %d", e.pol.Name(), i, e.passLen))
	}
	id := e.queue[i]
	s := &e.slots[id]
	low, any := p.lowest()
	if !any || low >= int(s.tier) {
		return false, false
	}
	r := s.request()
	if s.started || e.alloc.Fits(r) {
		return false, true // started, or left queued by the policy with room to start
	}
	if cs := e.cons; cs != nil && (cs.hasLimits && !cs.allowed(id, s.job.Procs) || cs.startFrom(&s.job, s.limit, e.now) != e.now) {
		return false, true // a limit or a start window holds it: no start, preempting or not
	}
	// The candidates, and whether all of them together make room.
	p.cands = p.cands[:0]
	room := e.alloc.Free()
	for _, rb := range e.running {
		if c := &e.slots[rb.id]; c.tier < s.tier && c.start < e.now {
			p.cands = append(p.cands, rb.id)
			room += int(c.held)
		}
	}
	if room < s.job.Procs {
		return false, true
	}
	e.sortCandidates()
	n := 0
	for n < len(p.cands) && !e.preemptFits(s) {
		c := &e.slots[p.cands[n]]
		e.alloc.Release(c.request(), c.alloc)
		e.nodes.released(c.alloc) // its cores on draining nodes leave service
		n++
	}
	if !e.preemptFits(s) {
		for _, cid := range p.cands[:n] {
			e.keepCandidate(cid)
		}
		return false, true
	}
	var pinned []cluster.Range
	if e.cons != nil && e.cons.pins != nil {
		pinned = e.pinOut(s) // not on the nodes of reservations it may not use
	}
	dst, ok := e.alloc.RunNow(r, p.dst[:0])
	if e.cons != nil && e.cons.pins != nil {
		e.pinBack(pinned)
	}
	if !ok {
		panic(fmt.Sprintf("sim: job %d fits with %d jobs preempted, but the selector places it nowhere", s.job.ID, n))
	}
	p.dst = dst
	// Only the candidates whose resources the job takes are preempted.
	victims := p.cands[:0]
	for _, cid := range p.cands[:n] {
		c := &e.slots[cid]
		if overlaps(c.alloc, dst) {
			victims = append(victims, cid)
		} else {
			e.keepCandidate(cid)
		}
	}
	if e.cons != nil && !e.clearFor(s, s.limit, victims) {
		// It would run into a reservation it may not use, even with
		// the victims gone: no start, and they keep running.
		for _, vid := range victims {
			e.keepCandidate(vid)
		}
		return false, true
	}
	for _, vid := range victims {
		e.preemptOne(vid, s)
	}
	p.fixed, p.useFix = append(p.fixed[:0], dst...), true
	e.startWith(i, -1)
	return true, true
}

// preemptFits reports whether queued job s fits now, on a cluster whose
// reservations hold nodes (Config.Constraints) without the nodes of those
// it may not use.
func (e *Engine) preemptFits(s *slot) bool {
	if e.cons != nil && e.cons.pins != nil {
		return e.fitsPinned(s)
	}
	return e.alloc.Fits(s.request())
}

// keepCandidate gives candidate cid, released by Preempt, its resources back:
// it keeps running.
func (e *Engine) keepCandidate(cid int32) {
	c := &e.slots[cid]
	if e.nodes.draining > 0 {
		e.nodes.drainingRuns(c.alloc, e.nodes.unpark)
	}
	e.alloc.Commit(c.request(), c.alloc)
}

// overlaps reports whether two sorted range lists share a unit.
func overlaps(a, b []cluster.Range) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Lo < y.Hi && y.Lo < x.Hi {
				return true
			}
		}
	}
	return false
}

// sortCandidates puts the candidates in preempt/partition_prio's order.
func (e *Engine) sortCandidates() {
	p := e.pre
	slices.SortFunc(p.cands, func(a, b int32) int {
		x, y := &e.slots[a], &e.slots[b]
		if p.cfg.YoungestFirst {
			if x.start != y.start {
				return int(y.start - x.start)
			}
		} else {
			if x.tier != y.tier {
				return int(x.tier - y.tier)
			}
			if ux, uy := units(x.alloc), units(y.alloc); ux != uy {
				return ux - uy
			}
		}
		switch {
		case x.job.Seq < y.job.Seq:
			return -1
		case x.job.Seq > y.job.Seq:
			return 1
		}
		return 0
	})
}

// units returns the number of resource ids (nodes or cores) of rs.
func units(rs []cluster.Range) int {
	n := 0
	for _, r := range rs {
		n += r.Len()
	}
	return n
}

// info returns s's preemption record, made on its first preemption.
func (s *slot) info() *slotPreempt {
	if s.pj == nil {
		s.pj = &slotPreempt{first: s.start}
	}
	return s.pj
}

// preemptOne stops running job vid, whose resources Preempt released, for
// job by, as the run's mode says.
func (e *Engine) preemptOne(vid int32, by *slot) {
	p := e.pre
	v := &e.slots[vid]
	e.ends.remove(vid, v.job.Seq)
	if e.est != nil {
		e.expiry.remove(vid, v.job.Seq) // its prediction is void while it does not run
	}
	k := e.findRunning(v.predEnd, v.job.Seq)
	e.running = append(e.running[:k], e.running[k+1:]...)
	e.ended = append(e.ended, policy.Ended{Seq: v.job.Seq, Start: v.start, End: e.now, PredictedEnd: v.predEnd, Procs: v.job.Procs, User: v.job.User, Freed: int(v.held)})
	if e.cons != nil {
		e.cons.runningChanged() // a suspended job still counts against the limits
	}
	held := float64(v.held)
	e.stats.ProcSeconds -= held * float64(v.end-e.now)
	p.ran(v.tier, -1)
	pj := v.info()
	pj.runs = append(pj.runs, RunSpan{From: v.start, To: e.now, Alloc: slices.Clone(v.alloc)})
	pj.marks = append(pj.marks, PreemptMark{At: e.now, By: by.job.ID, Mode: p.cfg.Mode})
	e.stats.Preemptions++
	switch p.cfg.Mode {
	case policy.PreemptSuspend:
		pj.left = v.end - e.now
		pj.suspended = true
		p.susp = append(p.susp, vid)
		if e.obs.wants(EventSuspended) {
			e.emit(EventSuspended, &v.job, int(v.held), 0)
		}
	case policy.PreemptRequeue:
		if e.cons != nil {
			e.cons.running(&v.job, -1) // counted again when it starts over
		}
		pj.done = 0
		pj.lost += e.now - v.start
		e.stats.LostProcSeconds += held * float64(e.now-v.start)
		p.requeue = append(p.requeue, vid) // still started: queued after the pass
		if e.obs.wants(EventPreempted) {
			e.emit(EventPreempted, &v.job, int(v.held), 0)
		}
	case policy.PreemptCancel:
		if e.cons != nil {
			e.cons.running(&v.job, -1)
			e.cons.submitted(&v.job, -1)
		}
		e.stats.PreemptCancelled++
		v.end = e.now
		v.job.Estimate = v.limit
		e.touch(e.now)
		e.rec = Record{Job: &v.job, State: Preempted, Start: pj.first, End: e.now, Alloc: v.alloc, Slot: vid, Pending: v.pending,
			Reason: fmt.Sprintf("preempted by job %d", by.job.ID),
			Tier:   int(v.tier), HasTier: true, Runs: pj.runs, Preemptions: pj.marks, LostRun: pj.lost}
		if s := v.predicted; s >= 0 {
			e.rec.Predicted, e.rec.HasPrediction, e.rec.PredictedAlloc = s, true, v.predAt
			e.stats.Predicted++
			if pj.first <= s {
				e.stats.PredictedMet++
			}
		}
		if e.cfg.Annotator != nil {
			e.rec.Note = e.noteOf(&v.job)
		}
		e.obs.record(&e.rec)
		e.freeIDs = append(e.freeIDs, vid)
	}
}

// preemptRecord sets e.rec's preemption fields from the job of slot s,
// which ends now after the run it is in (s.start to s.end on s.alloc).
func (e *Engine) preemptRecord(s *slot) {
	e.rec.Tier, e.rec.HasTier = int(s.tier), true
	pj := s.pj
	if pj == nil {
		return
	}
	e.rec.Start = pj.first
	pj.runs = append(pj.runs, RunSpan{From: s.start, To: s.end, Alloc: slices.Clone(s.alloc)})
	e.rec.Runs, e.rec.Preemptions, e.rec.LostRun = pj.runs, pj.marks, pj.lost
}

// afterPreemptPass queues the jobs requeued in the pass, at their
// submission-order places, now that the pass's indices are void.
func (e *Engine) afterPreemptPass() {
	p := e.pre
	for _, id := range p.requeue {
		s := &e.slots[id]
		s.started = false
		s.preq++
		e.stats.PreemptRequeued++
		e.requeueAt(id)
	}
	p.requeue = p.requeue[:0]
}

// requeueAt puts job id, preempted by requeue, back in the queue at its
// submission-order place, to start over.
func (e *Engine) requeueAt(id int32) {
	s := &e.slots[id]
	s.reserved, s.epoch = workload.Forever, e.epoch
	s.alloc = s.alloc[:0]
	if e.scale != nil {
		// A cluster of clusters: scaled again where it starts next, on
		// its member, which it keeps (it waits there again).
		s.job.Run = s.run0
		if s.memberLimit {
			s.job.Estimate, s.limit, s.memberLimit = workload.Unknown, workload.Unknown, false
		}
	}
	if s.member > 0 {
		e.alloc.(memberAssigner).Waiting(s.request(), true)
	}
	k := e.SearchSeq(0, len(e.queue), s.job.Seq+1)
	e.queue = slices.Insert(e.queue, k, id)
	if k <= len(e.dense) {
		e.dense = slices.Insert(e.dense, k, fastpath.QueuedOf(&s.job))
	}
	e.queuedProcs += int64(s.job.Procs)
	e.stats.MaxQueue = max(e.stats.MaxQueue, len(e.queue))
	e.nodes.requeued++ // out of arrival order for the policies' indexes (see dequeued)
}

// resume starts again, on their own resources, the suspended jobs whose
// resources are all free, in order of suspension, before the pass.
func (e *Engine) resume() {
	p := e.pre
	keep := p.susp[:0]
	for _, id := range p.susp {
		s := &e.slots[id]
		r := s.request()
		if e.cons != nil && !e.resumeClear(s) {
			keep = append(keep, id)
			continue
		}
		if !p.rec.CanCommit(r, s.alloc) && !e.resumeDraining(s) {
			keep = append(keep, id)
			continue
		}
		held := e.alloc.Commit(r, s.alloc)
		if held != int(s.held) {
			panic(fmt.Sprintf("sim: job %d resumed on %d processors, it held %d", s.job.ID, held, s.held))
		}
		pj := s.pj
		pj.suspended = false
		run := s.job.Run
		if s.limit > 0 && run > s.limit {
			run = s.limit
		}
		done := run - pj.left
		pj.done = done
		s.start, s.end = e.now, e.now+pj.left
		s.predEnd = workload.Forever
		if s.job.Estimate > 0 {
			// The rest of its prediction, which was still ahead of it
			// when it was suspended (a prediction reached is corrected
			// before the pass that could preempt). Without an Estimator
			// the prediction is its limit, past its end.
			s.predEnd = e.now + max(s.job.Estimate-done, 1)
			if s.predEnd < s.end {
				e.expiry.push(endEvent{at: s.predEnd, seq: s.job.Seq, id: id})
			}
		}
		e.stats.ProcSeconds += float64(held) * float64(pj.left)
		e.ends.push(endEvent{at: s.end, seq: s.job.Seq, id: id})
		e.insertRunning(s, id)
		p.ran(s.tier, 1)
		if e.obs.wants(EventResumed) {
			e.emit(EventResumed, &s.job, held, 0)
		}
	}
	p.susp = keep
}

// resumeDraining reports whether suspended job s can resume on its
// resources once those on draining nodes (Config.NodeEvents), idle and so
// out of service, are given back to it: Slurm keeps a suspended job's
// allocation, and a draining node runs its jobs to their end, so the job
// resumes there. It gives them back when it can (the job then holds them
// until its end, when they leave service again, as a running job's do),
// and leaves them out of service otherwise.
func (e *Engine) resumeDraining(s *slot) bool {
	ns := &e.nodes
	if ns.draining == 0 || ns.drainingIn(s.alloc) == 0 {
		return false
	}
	ns.drainingRuns(s.alloc, ns.unpark)
	if e.pre.rec.CanCommit(s.request(), s.alloc) {
		return true
	}
	ns.drainingRuns(s.alloc, ns.park)
	return false
}

// preemptStopped notes that running job s was stopped by a node failure
// (Config.NodeEvents): it no longer runs in its tier, and, requeued to
// start over, its preemptions so far are forgotten as its runs are (its
// record is that of its last attempt, as any job a node failure requeued;
// the work it had done is lost).
func (e *Engine) preemptStopped(s *slot) {
	e.pre.ran(s.tier, -1)
	if e.cfg.OnNodeFail == NodeFailRequeue && s.pj != nil {
		e.stats.LostProcSeconds += float64(s.held) * float64(s.pj.done)
		s.pj = nil
	}
}

// failSuspended kills or requeues (Config.OnNodeFail) job id, suspended by
// preemption, whose node went down: Slurm keeps a suspended job's
// allocation, so the failure of one of its nodes ends it as it ends the
// running jobs there. Killed, it is recorded as NodeFail at that instant,
// its runs those before its suspension; requeued, it starts over, its
// work so far lost.
func (e *Engine) failSuspended(id int32, node int, ev *cluster.NodeEvent, obs *sink) {
	p := e.pre
	s := &e.slots[id]
	k := slices.Index(p.susp, id)
	p.susp = slices.Delete(p.susp, k, k+1)
	pj := s.pj
	pj.suspended = false
	if e.cons != nil {
		e.cons.running(&s.job, -1) // it counted while suspended
		if e.cfg.OnNodeFail != NodeFailRequeue {
			e.cons.submitted(&s.job, -1)
		}
	}
	if e.cfg.OnNodeFail == NodeFailRequeue {
		run := s.job.Run
		if s.limit > 0 && run > s.limit {
			run = s.limit
		}
		e.stats.LostProcSeconds += float64(s.held) * float64(run-pj.left)
		s.pj = nil
		e.requeue(id)
		return
	}
	e.stats.NodeKilled++
	s.end = e.now
	s.job.Estimate = s.limit // the job as the trace gave it
	e.touch(e.now)
	e.rec = Record{Job: &s.job, State: NodeFail, Start: pj.first, End: e.now, Alloc: s.alloc, Reason: downReason(node, ev), Requeues: int(s.requeues),
		Tier: int(s.tier), HasTier: true, Runs: pj.runs, Preemptions: pj.marks, LostRun: pj.lost}
	if s.predicted >= 0 {
		e.rec.Predicted, e.rec.HasPrediction, e.rec.PredictedAlloc = s.predicted, true, s.predAt
		e.stats.Predicted++
		if pj.first <= s.predicted {
			e.stats.PredictedMet++
		}
	}
	if e.cfg.Annotator != nil {
		e.rec.Note = e.noteOf(&s.job)
	}
	obs.record(&e.rec)
	e.freeIDs = append(e.freeIDs, id)
}

// restorePreempt restores a restored engine's preemption state: the
// suspended jobs (susp, saved in order of suspension), and the running
// jobs per tier, counted again from the running jobs. The running jobs'
// e.running and the slots must be restored already.
func (e *Engine) restorePreempt(susp []int32) error {
	p := e.pre
	if p == nil {
		if len(susp) > 0 {
			return fmt.Errorf("saved with %d jobs suspended by preemption, restored without preemption", len(susp))
		}
		return nil
	}
	for _, id := range susp {
		if id < 0 || int(id) >= len(e.slots) || e.slots[id].pj == nil || !e.slots[id].pj.suspended {
			return fmt.Errorf("suspended slot %d is not a suspended job", id)
		}
	}
	p.susp = susp
	p.tiers = p.tiers[:0]
	for _, r := range e.running {
		p.ran(e.slots[r.id].tier, 1)
	}
	return nil
}

// resumeClear reports whether suspended job s may resume now under the
// reservations (Config.Constraints): over the rest of its time limit it
// runs into none it may not use, as a start must not. Otherwise the
// engine wakes at the next reservation boundary to try again. A suspended
// job still counts against the limits, so they never hold it.
func (e *Engine) resumeClear(s *slot) bool {
	run := s.job.Run
	if s.limit > 0 && run > s.limit {
		run = s.limit
	}
	var rest workload.Time
	if s.limit > 0 {
		rest = s.limit - (run - s.pj.left)
	}
	if e.clearFor(s, rest, nil) && !e.onPinned(s, rest) {
		return true
	}
	if nb := e.cons.nextBoundary(e.now); nb < workload.Forever {
		e.wakes.push(nb)
	}
	return false
}

// onPinned reports whether the nodes of suspended job s lie on those of a
// reservation it may not use (Reservation.Nodes) with an occurrence within
// the rest of its time limit from now (≤ 0: none).
func (e *Engine) onPinned(s *slot, rest workload.Time) bool {
	cs := e.cons
	if cs.pins == nil {
		return false
	}
	end := e.now + calendarHorizon*cs.c.tick()
	if rest > 0 {
		end = e.now + rest
	}
	for k := range cs.c.Reservations {
		r := &cs.c.Reservations[k]
		if len(r.Nodes) == 0 || r.Admits(&s.job) {
			continue
		}
		if active, next := cs.resv[k].at(e.now); !active && next >= end {
			continue
		}
		for _, n := range r.Nodes {
			if overlaps(s.alloc, []cluster.Range{cs.pins.NodeUnits(n)}) {
				return true
			}
		}
	}
	return false
}

package sim

import (
	"fmt"
	"slices"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Reservations on nodes (Reservation.Nodes) on a cluster of nodes: while
// the engine asks the node selector whether a job fits now, or where it
// starts, it takes out of the selector's pool the idle nodes of every
// reservation the job may not use and whose occurrences its requested
// time would overlap, and puts them back after. So no such job is placed
// on them, and a job that fits only there waits. The policies plan with
// the same nodes (consView implements policy.NodeCalendar): such a job
// may use none of them over its whole run, and the running jobs on them
// are not counted again; the reservations on nodes are then out of the
// count of withheld processors (withheldCount), at a start as in a plan.

// initPins checks the reservations' nodes against the cluster and turns
// the pinning on when some reservation names nodes.
func (cs *constraints) initPins(alloc cluster.Allocator) error {
	any := false
	for i := range cs.c.Reservations {
		any = any || len(cs.c.Reservations[i].Nodes) > 0
	}
	if !any {
		return nil
	}
	ns, ok := alloc.(cluster.NodeStates)
	if !ok {
		return nil // a processor pool: the reservation holds a count
	}
	for i := range cs.c.Reservations {
		r := &cs.c.Reservations[i]
		for _, n := range r.Nodes {
			if n.Lo < 0 || n.Hi > ns.Nodes() || n.Lo >= n.Hi {
				return fmt.Errorf("sim: reservation %q: nodes %d-%d: the cluster has nodes 0-%d", r.Name, n.Lo, n.Hi-1, ns.Nodes()-1)
			}
		}
	}
	cs.pins = ns
	cs.admitting = slices.DeleteFunc(cs.admitting, func(k int) bool { return len(cs.c.Reservations[k].Nodes) > 0 })
	return nil
}

// pinOut takes out of the node selector's pool the idle nodes that the
// job of slot s, started now, may not use: those of the reservations that
// do not admit it and have an occurrence within its requested time. It
// returns what it took, for pinBack.
func (e *Engine) pinOut(s *slot) []cluster.Range {
	cs := e.cons
	taken := cs.pinTaken[:0]
	end := workload.Forever
	if s.limit > 0 {
		end = e.now + s.limit
	} else {
		end = e.now + calendarHorizon*cs.c.tick()
	}
	for k := range cs.c.Reservations {
		r := &cs.c.Reservations[k]
		if len(r.Nodes) == 0 || r.Admits(&s.job) {
			continue
		}
		active, next := cs.resv[k].at(e.now)
		if !active && next >= end {
			continue // no occurrence before the job ends
		}
		for _, n := range r.Nodes {
			taken = cs.pins.TakeFree(cs.pins.NodeUnits(n), taken)
		}
	}
	cs.pinTaken = taken
	return taken
}

// pinBack returns what pinOut took to the pool.
func (e *Engine) pinBack(taken []cluster.Range) {
	if len(taken) > 0 {
		e.cons.pins.PutBack(taken)
	}
}

// fitsPinned reports whether the job of slot s fits the nodes now, the
// reservations' nodes it may not use aside.
func (e *Engine) fitsPinned(s *slot) bool {
	taken := e.pinOut(s)
	ok := e.alloc.Fits(s.request())
	e.pinBack(taken)
	return ok
}

// verifyPinned checks, on a cluster of nodes c, that no job ran on the
// nodes of a reservation it may not use during one of its occurrences
// (jobs.csv's allocations: nodes under linear, cores under cons_res).
// noWho: the jobs' users, accounts and partitions are unknown, so only
// maintenance reservations are checked.
func verifyPinned(cons *Constraints, c *cluster.Spec, procs int, outs []Outcome, ran []int, noWho bool) []Violation {
	if c == nil {
		return nil
	}
	var vs []Violation
	nt := newNodeTimeline(nil, 1, procs, c)
	for k := range cons.Reservations {
		r := &cons.Reservations[k]
		if len(r.Nodes) == 0 || (noWho && !r.Maint) {
			continue
		}
		held := make([]bool, len(nt.events))
		for _, n := range r.Nodes {
			for x := max(n.Lo, 0); x < min(n.Hi, len(held)); x++ {
				held[x] = true
			}
		}
		rec := reservationRecurrence(&cons.Calendar, r)
		for _, i := range ran {
			o := &outs[i]
			if r.Admits(&o.Job) {
				continue
			}
			if len(o.Runs) > 0 {
				// A preempted job (Config.Preempt), run by run.
				for _, run := range o.Runs {
					p := *o
					p.Start, p.End, p.Alloc, p.Runs = run.From, run.To, run.Alloc, nil
					vs = append(vs, pinnedRun(&p, r, rec, held, nt)...)
				}
				continue
			}
			vs = append(vs, pinnedRun(o, r, rec, held, nt)...)
		}
	}
	return vs
}

// pinnedRun checks one run of a job (o's Start to End on o.Alloc) against
// reservation r on nodes held.
func pinnedRun(o *Outcome, r *Reservation, rec *recurrence, held []bool, nt *nodeTimeline) []Violation {
	active, next := rec.at(o.Start)
	if !active && next >= o.End {
		return nil
	}
	for _, a := range o.Alloc {
		for u := a.Lo; u < a.Hi; u++ {
			if u >= 0 && u < nt.units && held[nt.node(u)] {
				at := o.Start
				if !active {
					at = next
				}
				return []Violation{{JobID: o.Job.ID, Rule: "reservation", Msg: fmt.Sprintf("ran %d-%d on node %d, which reservation %q holds from %d", o.Start, o.End, nt.node(u), r.Name, at)}}
			}
		}
	}
	return nil
}

// pinnedNodes marks in cs.pinMark the nodes of the reservations on nodes
// that job j may not use with an occurrence overlapping [from, to), and
// returns their processors (each node once) and the first instant after
// from at which one of those occurrences ends (Forever: none). It
// returns 0 without a cluster of nodes whose reservations hold nodes.
func (cs *constraints) pinnedNodes(j *workload.Job, from, to workload.Time) (int, workload.Time) {
	shrink := workload.Forever
	if cs.pins == nil {
		return 0, shrink
	}
	// The reservations whose nodes hold: as a set (at most 64 of them),
	// the marks the last call made for the same set are kept.
	var set uint64
	small := len(cs.c.Reservations) <= 64
	for k := range cs.c.Reservations {
		r := &cs.c.Reservations[k]
		if len(r.Nodes) == 0 || r.Admits(j) {
			continue
		}
		active, next := cs.resv[k].at(from)
		if !active {
			if next >= to {
				continue // no occurrence in [from, to)
			}
			_, next = cs.resv[k].at(next) // that occurrence's end
		}
		shrink = min(shrink, next)
		if small {
			set |= 1 << uint(k)
		}
	}
	if small && !cs.noMemo && cs.pinSetOK && cs.pinSet == set && len(cs.pinMark) == cs.pins.Nodes() {
		return cs.pinProcs, shrink
	}
	if n := cs.pins.Nodes(); len(cs.pinMark) != n {
		cs.pinMark = make([]bool, n)
	} else {
		clear(cs.pinMark)
	}
	procs := 0
	for k := range cs.c.Reservations {
		r := &cs.c.Reservations[k]
		if len(r.Nodes) == 0 || r.Admits(j) {
			continue
		}
		active, next := cs.resv[k].at(from)
		if !active && next >= to {
			continue // no occurrence in [from, to)
		}
		for _, nr := range r.Nodes {
			for n := nr.Lo; n < nr.Hi; n++ {
				if !cs.pinMark[n] {
					cs.pinMark[n] = true
					procs += cs.pins.UnitProcs(cs.pins.NodeUnits(cluster.Range{Lo: n, Hi: n + 1}))
				}
			}
		}
	}
	cs.pinSet, cs.pinSetOK, cs.pinProcs = set, small, procs
	cs.pinRunsOK = false
	return procs, shrink
}

// onPinMarked returns the processors of the allocation units rs on the
// nodes cs.pinMark marks.
func (cs *constraints) onPinMarked(rs []cluster.Range) int {
	p := 0
	for _, x := range rs {
		for u := x.Lo; u < x.Hi; {
			n := cs.pins.UnitNode(u)
			nu := cs.pins.NodeUnits(cluster.Range{Lo: n, Hi: n + 1})
			hi := min(x.Hi, nu.Hi)
			if cs.pinMark[n] {
				p += cs.pins.UnitProcs(cluster.Range{Lo: u, Hi: hi})
			}
			u = max(hi, u+1)
		}
	}
	return p
}

// HoldsNodes implements policy.NodeHolder: whether a reservation holds
// named nodes of the cluster.
func (v *consView) HoldsNodes() bool { return v.cs.pins != nil }

// Pinned implements policy.NodeCalendar: on a cluster of nodes, the
// nodes of the reservations visible job i may not use with an
// occurrence overlapping [from, to), and the running jobs on them.
func (v *consView) Pinned(i int, from, to workload.Time, dst []policy.PinnedRun) (int, []policy.PinnedRun, workload.Time) {
	cs := v.cs
	procs, shrink := cs.pinnedNodes(&v.slot(i).job, from, to)
	if procs == 0 {
		return 0, dst, workload.Forever
	}
	if cs.pinRunsOK && !cs.noMemo && cs.pinRunsGen == cs.runGen {
		return procs, append(dst, cs.pinRuns...), shrink
	}
	e := v.e
	first := len(dst)
	for k := range e.running {
		r := &e.running[k]
		if p := cs.onPinMarked(e.slots[r.id].alloc); p > 0 {
			dst = append(dst, policy.PinnedRun{End: r.predEnd, Procs: p})
		}
	}
	if cs.pinSetOK {
		cs.pinRuns = append(cs.pinRuns[:0], dst[first:]...)
		cs.pinRunsGen, cs.pinRunsOK = cs.runGen, true
	}
	return procs, dst, shrink
}

// WithheldCount implements policy.NodeCalendar.
func (v *consView) WithheldCount(i int, t workload.Time) (int, workload.Time) {
	return v.cs.withheldNow(v.e, &v.slot(i).job, t, true)
}

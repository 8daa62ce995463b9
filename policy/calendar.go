package policy

import (
	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/workload"
)

// Calendar is an optional interface of a View whose machine has rules
// known in advance (sim.Config.Constraints): reservations, which hold
// processors over given times, and start windows, outside which some
// jobs may not start. A policy that plans ahead (EASY's shadow time,
// reservation depth, conservative backfilling, Slurm's backfill) plans
// with it, so that no job is planned, or started, into a reservation it
// may not use; such a View is also a Fitter, whose Fits says whether a job
// may start now, these rules and the limits included.
type Calendar interface {
	// Withheld returns the processors that the reservations active at
	// instant t hold from queued job i (those it may not use), and the
	// next instant after t at which a reservation begins or ends
	// (workload.Forever: none).
	Withheld(i int, t workload.Time) (procs int, next workload.Time)
	// StartFrom returns the earliest instant at or after t at which
	// queued job i may start by the start windows (workload.Forever:
	// never).
	StartFrom(i int, t workload.Time) workload.Time
}

// NodeCalendar is an optional interface of a Calendar on a cluster of
// nodes whose reservations hold named nodes (Slurm's Nodes=). A job keeps
// its nodes for its whole run, so a reservation on nodes that a job may
// not use and that has an occurrence anywhere in its run holds all of
// its nodes from the job for the whole run, not only during the
// occurrence; and the processors that jobs admitted to the reservation
// hold on those nodes are not counted twice. The planning functions
// (EarliestOn, FitsOn, MinFreeOn) count, for job i run over [from, to),
// the processors free at u as the profile's, less the idle processors at
// u of the nodes Pinned names, less WithheldCount's.
type NodeCalendar interface {
	Calendar
	// Pinned returns what the reservations on nodes that queued job i
	// may not use, with an occurrence overlapping [from, to), hold from a
	// run of it over [from, to): the processors of their nodes (each node
	// once), the running jobs that hold some of those processors (their
	// predicted ends and how many each holds there), appended to dst, and
	// the first instant after from at which one of those occurrences
	// ends (a run starting then no longer overlaps it; workload.Forever:
	// none).
	Pinned(i int, from, to workload.Time, dst []PinnedRun) (procs int, runs []PinnedRun, shrink workload.Time)
	// WithheldCount is Withheld without the reservations on nodes, which
	// Pinned accounts for.
	WithheldCount(i int, t workload.Time) (procs int, next workload.Time)
}

// PinnedRun is a running job's share of the nodes NodeCalendar.Pinned
// names: its predicted end (workload.Forever: none) and its processors
// there.
type PinnedRun struct {
	End   workload.Time
	Procs int
}

// pinnedSpan is what a NodeCalendar holds from job i over one run: the
// processors of the held nodes, the running jobs on them and when the
// held set shrinks.
type pinnedSpan struct {
	procs  int
	runs   []PinnedRun
	shrink workload.Time
}

// idleAt returns the held nodes' idle processors at u (by the running
// jobs' predicted ends) and the next instant after u at which that
// changes (workload.Forever: never).
func (p *pinnedSpan) idleAt(u workload.Time) (int, workload.Time) {
	busy, next := 0, workload.Forever
	for _, r := range p.runs {
		if r.End > u {
			busy += r.Procs
			next = min(next, r.End)
		}
	}
	return max(p.procs-busy, 0), next
}

// pinnedOf returns what nc holds from job i run over [t, t+dur), or ok
// false when it holds no nodes from it (the count rules alone apply).
func pinnedOf(nc NodeCalendar, i int, t, dur workload.Time) (p pinnedSpan, end workload.Time, ok bool) {
	end = satAdd(t, dur)
	if end >= workload.Forever {
		end = satAdd(t, horizonOf(nc))
	}
	p.procs, p.runs, p.shrink = nc.Pinned(i, t, end, nil)
	return p, end, p.procs > 0
}

// conflictPinned is conflictOn under a NodeCalendar that holds nodes from
// job i over [t, t+dur): at every instant u the profile's free processors
// less the held nodes' idle ones and the processors WithheldCount holds
// must be at least procs. On a conflict the next candidate start is the
// first change after it, or the instant the held set shrinks if sooner.
func conflictPinned(pr *cluster.Profile, nc NodeCalendar, fl *planFloor, p *pinnedSpan, end workload.Time, i, procs int, t workload.Time) (workload.Time, bool) {
	rd := pr.ReaderFrom(t)
	for u := t; u < end; {
		held, wnext := nc.WithheldCount(i, u)
		idle, rnext := p.idleAt(u)
		floor, fnext := fl.value(u)
		free, pnext := rd.At(u)
		next := min(wnext, rnext, fnext, pnext)
		if free-max(held+idle, floor) < procs {
			if p.shrink > t {
				next = min(next, p.shrink)
			}
			return next, false
		}
		u = next
	}
	return 0, true
}

// calendarHorizon is how far past its start a plan walks reservations for
// a job without an end (no estimate): beyond it the job is taken to fit.
const calendarHorizon = 400 * 86400

// Ticker is implemented by a Calendar whose times are ticks of a unit
// finer than the second: the planning horizon (400 days) counts them.
type Ticker interface {
	// TicksPerSecond returns the ticks a second (1: seconds).
	TicksPerSecond() workload.Time
}

// horizonOf returns calendarHorizon in cal's ticks.
func horizonOf(cal Calendar) workload.Time {
	if t, ok := cal.(Ticker); ok {
		return calendarHorizon * max(t.TicksPerSecond(), 1)
	}
	return calendarHorizon
}

// maxCalendarSteps bounds the candidate starts EarliestOn tries.
const maxCalendarSteps = 1 << 14

// EarliestOn returns the earliest time t ≥ from at which queued job i,
// procs processors for dur (workload.Forever: no end), fits both the
// profile pr and the calendar cal: its start windows let it start at t,
// and at every instant u of [t, t+dur) the profile's free processors less
// those withheld from it at u are at least procs. It returns
// workload.Forever if there is no such time (or none within the steps it
// tries).
func EarliestOn(pr *cluster.Profile, cal Calendar, i, procs int, from, dur workload.Time) workload.Time {
	return earliestOn(pr, cal, nil, i, procs, from, dur)
}

// earliestOn is EarliestOn that also leaves free, at every instant of
// the run, what the plans of the pass need there (fl; nil: nothing).
func earliestOn(pr *cluster.Profile, cal Calendar, fl *planFloor, i, procs int, from, dur workload.Time) workload.Time {
	fl = fl.forJob(cal, i)
	t := from
	sp, _ := cal.(fastpath.Spans)
	horizon := workload.Forever // once the profile and the floor no longer change
	for n := 0; n < maxCalendarSteps; n++ {
		t = pr.Earliest(t, procs, dur)
		if t >= workload.Forever {
			return workload.Forever
		}
		if sp != nil && t >= pr.LastChange() {
			if sp.Blocked(i, pr.FreeAt(t)-procs, t, dur) {
				// The profile no longer changes and a reservation
				// recurring without end blocks every later start: each
				// step would find the next occurrence, to the last step.
				return workload.Forever
			}
			if fl.clearFrom(t) {
				// From here only the calendar decides, and a start it
				// lets the job make comes before its horizon, as the
				// admission check finds it on an empty machine: past
				// it the reservations and windows only repeat.
				if horizon >= workload.Forever {
					horizon = sp.Horizon(t)
				} else if t >= horizon {
					return workload.Forever
				}
			}
		}
		if s := cal.StartFrom(i, t); s != t {
			if s >= workload.Forever {
				return workload.Forever
			}
			t = s
			continue
		}
		next, ok := conflictAny(pr, cal, fl, i, procs, t, dur)
		if ok {
			return t
		}
		if next >= workload.Forever {
			return workload.Forever
		}
		t = next
	}
	return workload.Forever
}

// FitsOn reports whether job i may run procs processors over
// [at, at+dur) by pr and cal (see EarliestOn), its start windows included.
func FitsOn(pr *cluster.Profile, cal Calendar, i, procs int, at, dur workload.Time) bool {
	return fitsOn(pr, cal, nil, i, procs, at, dur)
}

// fitsOn is FitsOn leaving free what the plans of the pass need (fl).
func fitsOn(pr *cluster.Profile, cal Calendar, fl *planFloor, i, procs int, at, dur workload.Time) bool {
	if !pr.Fits(at, procs, dur) || cal.StartFrom(i, at) != at {
		return false
	}
	_, ok := conflictAny(pr, cal, fl.forJob(cal, i), i, procs, at, dur)
	return ok
}

// conflictAny is conflictPinned when cal holds nodes from job i over
// [t, t+dur), else conflictOn; both also leave free the floor fl of the
// plans made before (nil: none).
func conflictAny(pr *cluster.Profile, cal Calendar, fl *planFloor, i, procs int, t, dur workload.Time) (workload.Time, bool) {
	if nc, ok := cal.(NodeCalendar); ok {
		if p, end, ok := pinnedOf(nc, i, t, dur); ok {
			return conflictPinned(pr, nc, fl, &p, end, i, procs, t)
		}
		return conflictOn(pr, cal, nc, fl, i, procs, t, dur)
	}
	return conflictOn(pr, cal, nil, fl, i, procs, t, dur)
}

// NodeHolder is an optional interface of a NodeCalendar that can tell
// that none of its reservations holds named nodes: its Pinned then always
// holds nothing, and its answers are functions of the profile of the
// running jobs and of time alone.
type NodeHolder interface {
	// HoldsNodes reports whether some reservation holds named nodes.
	HoldsNodes() bool
}

// holdsNodes reports whether cal is a NodeCalendar whose reservations may
// hold named nodes.
func holdsNodes(cal Calendar) bool {
	if _, ok := cal.(NodeCalendar); !ok {
		return false
	}
	h, ok := cal.(NodeHolder)
	return !ok || h.HoldsNodes()
}

// creditGen returns cal's fastpath.Credited generation (0 without one):
// a memo found under one generation holds under that one only.
func creditGen(cal Calendar) uint64 {
	if c, ok := cal.(fastpath.Credited); ok {
		return c.CreditGen()
	}
	return 0
}

// memoOK reports whether a policy may keep answers it planned on cal
// from one pass to the next while the running jobs' profile is the same:
// not when reservations on nodes hold what the running jobs hold on them,
// which the profile does not show, nor under a fastpath.Memoless
// calendar.
func memoOK(cal Calendar) bool {
	ml, ok := cal.(fastpath.Memoless)
	return !holdsNodes(cal) && !(ok && ml.Memoless())
}

// conflictOn walks [t, t+dur) through the changes of pr and cal: it
// reports whether procs processors are free for job i all along, and if
// not an instant after the conflict before which no later start can
// succeed: the first at which the free processors or the reservations
// change, or, where the free processors no longer change, the end of
// the reservations' shortage (fastpath.Spans.FirstOver).
//
// With nc (cal as a NodeCalendar) it walks nc's count rules alone
// (WithheldCount) without wrapping cal in a Calendar of its own, which
// would cost an allocation at every walk.
func conflictOn(pr *cluster.Profile, cal Calendar, nc NodeCalendar, fl *planFloor, i, procs int, t, dur workload.Time) (workload.Time, bool) {
	end := satAdd(t, dur)
	if end >= workload.Forever {
		end = satAdd(t, horizonOf(cal))
	}
	sp, _ := cal.(fastpath.Spans)
	var rd cluster.Reader // the profile's, once a reservation holds some processors
	read := false
	for u := t; u < end; {
		if sp != nil && u >= pr.LastChange() && fl.clearFrom(u) {
			// From here the profile's free processors are a constant:
			// the first instant the reservations withhold more than it
			// leaves is the conflict the walk would find.
			if slack := pr.FreeAt(u) - procs; slack >= 0 {
				if at, next, ok := sp.FirstOver(i, nc != nil, slack, u, end); ok {
					if at >= workload.Forever {
						return 0, true
					}
					return next, false
				}
			}
		}
		held, wnext := withheldOf(cal, nc, i, u)
		if fl.active() {
			floor, fnext := fl.value(u)
			held, wnext = max(held, floor), min(wnext, fnext)
		}
		if held == 0 {
			u = wnext // the profile has room (Earliest): only reservations and plans matter
			continue
		}
		// Inside reservations: every change of the profile counts. The
		// walk goes forward, so one reader serves every such span.
		if !read {
			rd, read = pr.ReaderFrom(u), true
		}
		for u < min(wnext, end) {
			free, next := rd.At(u)
			if free-held < procs {
				return min(wnext, next), false
			}
			u = next
		}
		u = wnext
	}
	return 0, true
}

// withheldOf is cal.Withheld, or with nc (cal as a NodeCalendar whose
// nodes hold nothing from the run) its count rules alone, WithheldCount.
func withheldOf(cal Calendar, nc NodeCalendar, i int, u workload.Time) (int, workload.Time) {
	if nc != nil {
		return nc.WithheldCount(i, u)
	}
	return cal.Withheld(i, u)
}

// MinFreeOn returns the fewest processors free for job i at any instant
// of [from, to) by pr less those cal withholds from it.
func MinFreeOn(pr *cluster.Profile, cal Calendar, i int, from, to workload.Time) int {
	if to >= workload.Forever {
		to = satAdd(from, horizonOf(cal))
	}
	nc, _ := cal.(NodeCalendar)
	if nc != nil {
		p, end, pinned := pinnedOf(nc, i, from, to-from)
		if pinned {
			least := pr.FreeAt(from)
			rd := pr.ReaderFrom(from)
			for u := from; u < min(to, end); {
				held, wnext := nc.WithheldCount(i, u)
				idle, rnext := p.idleAt(u)
				free, pnext := rd.At(u)
				least = min(least, free-held-idle)
				u = min(wnext, rnext, pnext)
			}
			return least
		}
	}
	least := pr.FreeAt(from)
	for u := from; u < to; {
		held, wnext := withheldOf(cal, nc, i, u)
		least = min(least, pr.MinFree(u, min(wnext, to))-held)
		u = wnext
	}
	return least
}

// runningProfile fills pr with the machine as v sees it now: the free
// processors, and those the running jobs give back at their predicted
// ends.
func runningProfile(pr *cluster.Profile, v View) {
	now := v.Now()
	pr.Reset(v.Capacity(), now)
	pr.Add(now, workload.Forever, v.Capacity()-v.Free())
	for k, nr := 0, v.NumRunning(); k < nr; k++ {
		pr.Release(v.Running(k))
	}
}

// calendarShadow is the head's shadow time and extra processors under a
// Calendar on pr, the running jobs' profile (runningProfile): the
// earliest time the head (queue index h) fits the profile and the
// calendar for its whole estimate, and the fewest processors beyond its
// own free for it during that estimate. The time is workload.Forever when
// there is none.
func calendarShadow(pr *cluster.Profile, v View, cal Calendar, h int) (workload.Time, int) {
	head := v.Job(h)
	dur := head.Limit()
	at := EarliestOn(pr, cal, h, head.Procs, v.Now(), dur)
	if at >= workload.Forever {
		return workload.Forever, 0
	}
	return at, max(MinFreeOn(pr, cal, h, at, satAdd(at, dur))-head.Procs, 0)
}

// shadowMemo keeps the last head's shadow under a count Calendar (one
// without reservations on nodes) between EASY's passes. Under load most
// passes follow submissions only: the head and the running jobs are the
// same, only the time moved on, and walking the calendar again costs the
// most of the pass (thousands of candidate starts for a head that must
// wait for a weekend). The shadow is the earliest start at or after now
// that fits the running jobs' profile and the calendar, both functions of
// absolute time: when the profile agrees from the new now on with the one
// the shadow was found on, the head is the same job,
// and that shadow is not before the new now, no earlier start has become
// possible and the shadow is the same, and so are the extra processors
// over its run. The memo is exact, not a heuristic; a resumed run starts
// it empty and finds the same answers. It is kept for one View (EASY
// forgets it when the View of a pass changes) and relies on what Calendar
// promises: its rules are known in advance, functions of the job and of
// time alone.
type shadowMemo struct {
	valid bool
	gen   uint64       // creditGen of the calendar the shadow was found on
	job   workload.Job // the head, field by field
	at    workload.Time
	extra int
	prof  cluster.Profile // the profile the shadow was found on
}

// shadow fills pr with the running jobs' profile and returns
// calendarShadow(pr, v, cal, h), from the memo when it holds.
func (m *shadowMemo) shadow(pr *cluster.Profile, v View, cal Calendar, h int) (workload.Time, int) {
	runningProfile(pr, v)
	if !memoOK(cal) {
		m.valid = false
		return calendarShadow(pr, v, cal, h)
	}
	head := v.Job(h)
	gen := creditGen(cal)
	if m.valid && m.at >= v.Now() && m.job == *head && m.gen == gen && pr.SameFrom(&m.prof) {
		return m.at, m.extra
	}
	at, extra := calendarShadow(pr, v, cal, h)
	m.gen = gen
	// A head that never fits (or not within the steps EarliestOn tries)
	// is walked again: from a later time the steps may reach further.
	m.valid = at < workload.Forever
	m.job, m.at, m.extra = *head, at, extra
	if m.valid {
		m.prof.CopyFrom(pr)
	}
	return at, extra
}

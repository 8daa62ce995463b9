package policy

import (
	"github.com/schedsim/schedsim/cluster"
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
	t := from
	for n := 0; n < maxCalendarSteps; n++ {
		t = pr.Earliest(t, procs, dur)
		if t >= workload.Forever {
			return workload.Forever
		}
		if s := cal.StartFrom(i, t); s != t {
			if s >= workload.Forever {
				return workload.Forever
			}
			t = s
			continue
		}
		next, ok := conflictOn(pr, cal, i, procs, t, dur)
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
	if !pr.Fits(at, procs, dur) || cal.StartFrom(i, at) != at {
		return false
	}
	_, ok := conflictOn(pr, cal, i, procs, at, dur)
	return ok
}

// conflictOn walks [t, t+dur) through the changes of pr and cal: it
// reports whether procs processors are free for job i all along, and if
// not the first instant after the conflict at which the free processors
// or the reservations change (a later start can only succeed from there).
func conflictOn(pr *cluster.Profile, cal Calendar, i, procs int, t, dur workload.Time) (workload.Time, bool) {
	end := satAdd(t, dur)
	if end >= workload.Forever {
		end = satAdd(t, horizonOf(cal))
	}
	for u := t; u < end; {
		held, wnext := cal.Withheld(i, u)
		if held == 0 {
			u = wnext // the profile has room (Earliest): only reservations matter
			continue
		}
		// Inside reservations: every change of the profile counts.
		for ; u < min(wnext, end); u = pr.NextChange(u) {
			if pr.FreeAt(u)-held < procs {
				return min(wnext, pr.NextChange(u)), false
			}
		}
		u = wnext
	}
	return 0, true
}

// MinFreeOn returns the fewest processors free for job i at any instant
// of [from, to) by pr less those cal withholds from it.
func MinFreeOn(pr *cluster.Profile, cal Calendar, i int, from, to workload.Time) int {
	if to >= workload.Forever {
		to = satAdd(from, horizonOf(cal))
	}
	least := pr.FreeAt(from)
	for u := from; u < to; {
		held, wnext := cal.Withheld(i, u)
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
// Calendar: the earliest time the head (queue index h) fits the running
// jobs' profile and the calendar for its whole estimate, and the fewest
// processors beyond its own free for it during that estimate. The time
// is workload.Forever when there is none.
func calendarShadow(pr *cluster.Profile, v View, cal Calendar, h int) (workload.Time, int) {
	runningProfile(pr, v)
	head := v.Job(h)
	dur := head.Limit()
	at := EarliestOn(pr, cal, h, head.Procs, v.Now(), dur)
	if at >= workload.Forever {
		return workload.Forever, 0
	}
	return at, max(MinFreeOn(pr, cal, h, at, satAdd(at, dur))-head.Procs, 0)
}

package policy

import (
	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// Depth is backfilling with a reservation depth, as Maui's
// RESERVATIONDEPTH: at every pass the first Depth waiting jobs, in queue
// order, get reservations at their earliest place in the availability
// profile (running jobs by their estimates, plus the reservations before
// them); then the jobs behind them start now if they have an estimate and
// fit the profile for their whole estimate, so that no reservation is
// delayed. Reservations are recomputed from scratch at every pass.
//
// Depth 1 gives the same schedule as EASY (EASY computes it faster);
// Conservative, not a large Depth, is classic conservative backfilling,
// whose reservations persist between passes. A reserved job whose
// reservation is now starts now, unless it has no estimate (such a job only
// starts as the queue's head). Only the head's reservation is a promise: a
// later reservation can move later when the jobs before it move earlier.
// Lookahead bounds the number of jobs behind the
// head that are examined, reserved ones included. Under a Calendar each
// job is planned, or started, leaving free what the reservations
// withhold from the jobs reserved before it (planFloor).
type Depth struct {
	// Depth is the number of jobs with reservations (≥ 1).
	Depth int
	// Lookahead is as in EASY.
	Lookahead int

	prof cluster.Profile
	// floor: what the reservations of a pass under a Calendar need left
	// free (planFloor).
	floor planFloor
}

var _ Policy = (*Depth)(nil)

// Name implements Policy.
func (p *Depth) Name() string {
	return "backfill(depth=" + FormatLookahead(p.Depth) + ",lookahead=" + FormatLookahead(p.Lookahead) + ")"
}

// Schedule implements Policy.
func (p *Depth) Schedule(v View, d Decisions) {
	h, free := startHeads(v, d)
	n := v.Len()
	if h >= n {
		return
	}
	now := v.Now()
	pr := &p.prof
	pr.Reset(v.Capacity(), now)
	pr.Add(now, workload.Forever, v.Capacity()-free)
	for k, nr := 0, v.NumRunning(); k < nr; k++ {
		pr.Release(v.Running(k))
	}
	end := n
	if p.Lookahead >= 0 && h+1+p.Lookahead < n {
		end = h + 1 + p.Lookahead
	}
	// On a cluster of nodes (a Fitter) a job starts only where it fits,
	// and may hold more than it asked (whole nodes): the plan counts what
	// it took.
	fit, _ := v.(Fitter)
	cal, _ := v.(Calendar)
	p.floor.reset(cal, -1) // a few plans a pass
	// What it took is charged to the plan up to what the plan has free
	// over its run: a job planned on processor counts may hold more (whole
	// nodes) than a later reservation left it, and that reservation is then
	// a plan, not a promise (as in Conservative and Slurm).
	take := func(i, procs int, end workload.Time) int {
		d.Start(i)
		if fit == nil {
			free -= procs
			return procs
		}
		took := free - v.Free()
		free = v.Free()
		return min(max(took, procs), pr.MinFree(now, end))
	}
	reserved := 0
	// When the head waits for a running job without an estimate, its start
	// is unknown but not before limit: jobs that end by then may start, and
	// longer ones within extra (see EarliestPossible).
	limit, extra := workload.Forever, 0
	for i := h; i < end; i++ {
		j := v.Job(i)
		if reserved < p.Depth || p.Depth < 0 {
			reserved++
			var at workload.Time
			if cal != nil {
				at = earliestOn(pr, cal, &p.floor, i, j.Procs, now, j.Limit())
			} else {
				at = pr.Earliest(now, j.Procs, j.Limit())
			}
			procs, planned := j.Procs, true
			switch {
			case at == now && i != h:
				if j.Estimate <= 0 || (now+j.Estimate > limit && j.Procs > extra) || (fit != nil && !fit.Fits(i)) {
					break // not safe to start now; it keeps its place in the plan
				}
				if now+j.Estimate > limit {
					extra -= j.Procs
				}
				procs, planned = take(i, j.Procs, satAdd(now, j.Limit())), false
			case i == h && at < workload.Forever:
				d.Reserve(i, at)
			case i == h:
				limit, extra = EarliestPossible(v, j.Procs)
			}
			if at < workload.Forever {
				pr.Add(at, satAdd(at, j.Limit()), procs)
				if planned {
					p.floor.plan(cal, i, at, j.Limit())
				}
			}
			continue
		}
		if free == 0 {
			break
		}
		if j.Estimate <= 0 || j.Procs > free || (now+j.Estimate > limit && j.Procs > extra) || !pr.Fits(now, j.Procs, j.Estimate) ||
			(cal != nil && !fitsOn(pr, cal, &p.floor, i, j.Procs, now, j.Estimate)) ||
			(fit != nil && !fit.Fits(i)) {
			continue
		}
		if now+j.Estimate > limit {
			extra -= j.Procs
		}
		pr.Add(now, now+j.Estimate, take(i, j.Procs, now+j.Estimate))
	}
}

// satAdd returns t+d, or workload.Forever when that would pass it.
func satAdd(t, d workload.Time) workload.Time {
	if d >= workload.Forever-t {
		return workload.Forever
	}
	return t + d
}

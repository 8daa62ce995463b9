package policy

import (
	"fmt"
	"sort"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// Conservative is conservative backfilling (Mu'alem & Feitelson, IEEE TPDS
// 2001), as pyss runs it: every job gets a reservation when it is submitted,
// at the earliest time the availability profile (running jobs by their
// estimates, plus every earlier reservation) has room for it for its whole
// estimate. A job starts when its reservation comes. When jobs end, the
// processors they held beyond their real end are given back, and every
// waiting job whose reservation is not due now is re-planned in submission
// order: taken out of the profile and put back at its earliest place, which
// can only be earlier.
//
// At an instant where jobs both arrive and end, the arrivals are planned
// first, as if the ends had not happened yet, and then re-planned with the
// others (the order of pyss's events).
//
// A job without an estimate holds its reservation forever in the plan, so
// no later job is planned after its start; a job that then finds no place
// stays unplanned, without a promise, until a re-plan after a job end.
//
// Under runtime predictions (sim.Config.Estimator) a running job can outlive
// its place in the plan; the plan is then rebuilt from scratch, running jobs
// by their corrected predictions and waiting jobs in queue order. So it is
// when the machine's capacity changes (sim.Config.NodeEvents: nodes go down,
// drain or come back): every waiting job is planned again on the new
// capacity, in queue order, and may move later; a job a failure requeued
// rejoins the plan at its submission-order place.
//
// On a cluster of nodes (the View is a Fitter) the plan is made anew at
// every pass after an end, in queue order, on processor counts: a job whose
// place is now starts only where it fits on the nodes (a job may hold more
// than it asked, whole nodes: the plan counts what it took), and one that
// does not fit is planned from the next change of the profile. A pass that
// only saw submissions, after one that started nothing, keeps the plans
// (keepPlan). Reservations are then plans, not promises. So under a
// Calendar (reservations, start windows, limits), where each job is also
// planned around the reservations it may not use and leaves free what
// they withhold from the jobs planned before it (planFloor).
type Conservative struct {
	prof cluster.Profile
	plan []planned // waiting jobs, in queue order
	now  workload.Time
	init bool

	endedNow []Ended

	// Under a Calendar: the running jobs' profile of the last pass and
	// whether that pass's plan (plan, queue index for index) may be kept
	// by the next one (see keepPlan).
	calRun  cluster.Profile
	calKeep bool
	calGen  uint64 // creditGen of the calendar the kept plans were made on

	// bounds holds, during a pass that plans anew, what the jobs planned
	// so far prove of the later ones' earliest starts (see planBounds).
	bounds planBounds
	// noBound makes such a pass walk every job's plan from now, and every
	// pass plan anew (tests).
	noBound bool
	// floor: what the plans of a pass under a Calendar need left free
	// (planFloor).
	floor planFloor
}

type planned struct {
	seq   int64
	procs int
	dur   workload.Time // estimate, or Forever
	start workload.Time
}

func (p planned) end() workload.Time {
	if p.dur >= workload.Forever-p.start {
		return workload.Forever
	}
	return p.start + p.dur
}

var _ Policy = (*Conservative)(nil)

// Name implements Policy.
func (c *Conservative) Name() string { return "conservative" }

// Schedule implements Policy.
func (c *Conservative) Schedule(v View, d Decisions) {
	now := v.Now()
	if cal, ok := v.(Calendar); ok {
		c.scheduleCalendar(v, d, cal)
		return
	}
	if _, ok := v.(Fitter); ok {
		// A cluster of nodes: a count of free processors does not say
		// where a job fits, so a job whose place has come may not fit
		// (fragmentation, whole nodes). The plan is made anew at every
		// pass, on processor counts, and a job starts at its place only
		// where it fits on the nodes; one that does not is planned from
		// the next change of the profile.
		c.scheduleCalendar(v, d, nil)
		return
	}
	// Under a scheduler cycle (sim.Config.SchedInterval) no pass ran when
	// a job's place came, or when jobs ended: the plan is made anew.
	// (Without one, a pass runs at every planned start and every end.)
	for i := range c.plan {
		if c.plan[i].start < now {
			c.scheduleCalendar(v, d, nil)
			return
		}
	}
	for _, e := range v.Ended() {
		if e.End < now {
			c.scheduleCalendar(v, d, nil)
			return
		}
	}
	// The incremental plan below moves plans a later pass made anew
	// could not keep (keepPlan).
	c.calKeep = false
	if !c.init {
		c.prof.Reset(v.Capacity(), now)
		c.init = true
	}
	c.prof.Advance(now)
	c.now = now
	if c.stale(v, now) {
		c.scheduleCalendar(v, d, nil)
		return
	}

	// Holes left by jobs that ended at an earlier instant come first.
	ended := v.Ended()
	endedNow := c.endedNow[:0]
	for _, e := range ended {
		if e.End == now {
			endedNow = append(endedNow, e)
			continue
		}
		c.prof.Remove(now, e.PredictedEnd, e.Freed)
	}
	c.endedNow = endedNow
	// New jobs are at the tail of the queue, but for a job whose Hold Until
	// ended (sim): it joins at its submission-order place. Each is planned
	// as it joins, in queue order, after the plans made before.
	n := v.Len()
	if len(c.plan) > n {
		panic(fmt.Sprintf("policy: conservative plan has %d jobs, queue %d", len(c.plan), n))
	}
	if k := len(c.plan); k == 0 || v.Job(k-1).Seq == c.plan[k-1].seq {
		for i := k; i < n; i++ {
			j := v.Job(i)
			p := planned{seq: j.Seq, procs: j.Procs, dur: j.Limit()}
			c.place(&p)
			c.plan = append(c.plan, p)
		}
	} else {
		c.merge(v)
	}
	// pyss handles the ends of one instant one by one, in order of start.
	sort.SliceStable(endedNow, func(a, b int) bool { return endedNow[a].Start < endedNow[b].Start })
	for _, e := range endedNow {
		c.prof.Remove(now, e.PredictedEnd, e.Freed)
		c.replan()
	}
	// Under node events (sim.Config.NodeEvents) the machine's capacity
	// changes: the plan is rebuilt on the new one (the engine voided the
	// promises made on the old). A prediction that proved wrong was caught
	// by stale before the pass changed anything.
	if c.prof.Size() != v.Capacity() {
		c.rebuild(v)
	}
	w := 0
	for i := range c.plan {
		p := c.plan[i]
		if j := v.Job(i); j.Seq != p.seq {
			panic(fmt.Sprintf("policy: conservative plan out of step with the queue at %d: job seq %d, plan %d", i, j.Seq, p.seq))
		}
		if p.start == now {
			d.Start(i)
			continue
		}
		if p.start < workload.Forever {
			d.Reserve(i, p.start)
		}
		c.plan[w] = p
		w++
	}
	c.plan = c.plan[:w]
}

// merge puts the jobs that joined the queue anywhere into the plan, at
// their queue index, and plans them in queue order.
func (c *Conservative) merge(v View) {
	n := v.Len()
	plan := make([]planned, 0, n)
	k := 0
	for i := 0; i < n; i++ {
		j := v.Job(i)
		if k < len(c.plan) && c.plan[k].seq == j.Seq {
			plan = append(plan, c.plan[k])
			k++
			continue
		}
		p := planned{seq: j.Seq, procs: j.Procs, dur: j.Limit()}
		c.place(&p)
		plan = append(plan, p)
	}
	if k != len(c.plan) {
		panic(fmt.Sprintf("policy: conservative plan out of step with the queue: %d of %d planned jobs found", k, len(c.plan)))
	}
	c.plan = plan
}

// stale reports, before the pass changes the plan, whether the profile
// shows more processors free now than the machine has, less those the
// jobs that end now give back from now until their predicted ends and
// those of the jobs due now. Under runtime predictions
// (sim.Config.Estimator) a job can run past its predicted end, and the
// profile then shows its processors free from that prediction on while
// they are busy: a pass at the correction plans anew; under a scheduler
// cycle the correction runs no pass of its own, and a job that then ends
// on a pass would have its processors given back twice. The pass leaves
// the sum unchanged (an end gives back at now what it adds here, a start
// now moves processors from free to due), so a plan that is not stale
// here is not stale after it.
func (c *Conservative) stale(v View, now workload.Time) bool {
	free := c.prof.FreeAt(now)
	for _, e := range v.Ended() {
		if e.End == now && e.PredictedEnd > now {
			free += e.Freed
		}
	}
	for i := range c.plan {
		if c.plan[i].start == now {
			free += c.plan[i].procs
		}
	}
	return free > v.Free()
}

// rebuild plans from scratch on the machine's new capacity: the running
// jobs by their predicted ends, then every waiting job at its earliest
// place, in queue order. Reservations may move later; the engine has
// voided the promises made on the old capacity.
func (c *Conservative) rebuild(v View) {
	c.prof.Reset(v.Capacity(), c.now)
	c.prof.Add(c.now, workload.Forever, v.Capacity()-v.Free())
	for k, n := 0, v.NumRunning(); k < n; k++ {
		c.prof.Release(v.Running(k))
	}
	for i := range c.plan {
		c.place(&c.plan[i])
	}
}

// replan moves every waiting job not due now to its earliest place, in
// queue order. A job's earliest place without its own reservation is
// never later than where it is, so only a start before it moves the job,
// and the walk that looks for one leaves the profile as it is.
func (c *Conservative) replan() {
	for i := range c.plan {
		p := &c.plan[i]
		if p.start == c.now {
			continue // due now: it starts, it is not re-planned
		}
		if p.start >= workload.Forever {
			if c.prof.MaxFree(c.now, workload.Forever) >= p.procs {
				c.place(p)
			}
			continue
		}
		s := c.prof.EarliestBefore(c.now, p.procs, p.dur, p.start, p.end(), p.procs)
		if s >= p.start {
			continue // it cannot start any earlier
		}
		c.prof.Remove(p.start, p.end(), p.procs)
		p.start = s
		c.prof.Add(p.start, p.end(), p.procs)
	}
}

// place puts p at its earliest place in the profile. When jobs without an
// estimate hold processors forever in the plan, p may have no place: it
// stays unplanned (start Forever) until a re-plan finds one.
func (c *Conservative) place(p *planned) {
	p.start = c.prof.Earliest(c.now, p.procs, p.dur)
	if p.start < workload.Forever {
		c.prof.Add(p.start, p.end(), p.procs)
	}
}

// scheduleCalendar is a pass under reservations, start windows or limits
// (a View that is a Calendar, and so a Fitter), or without a calendar (cal
// nil) one after a scheduler cycle let a planned start pass: the plan is
// made anew, the running jobs by their estimates and then every waiting
// job, in queue order, at its earliest place in the profile that its
// calendar allows; a job whose place is now starts if it may (Fits: the
// limits, the nodes), or else is planned from the profile's next change.
// Under a Calendar every pass plans anew: the queue such a View shows
// leaves out the jobs a limit holds, so a plan kept between passes would
// not match it. Without one the plan made is the one later passes keep.
func (c *Conservative) scheduleCalendar(v View, d Decisions, cal Calendar) {
	now := v.Now()
	fit, _ := v.(Fitter)
	pr := &c.prof
	runningProfile(pr, v)
	c.floor.reset(cal, v.Len())
	first := 0
	if c.keepPlan(v, cal, now) {
		// The last pass's plans hold (see keepPlan): each goes back into
		// the profile where the walk below would put it again, and only
		// the jobs that joined since are planned.
		first = len(c.plan)
		for i := range c.plan {
			p := &c.plan[i]
			d.Reserve(i, p.start)
			pr.Add(p.start, p.end(), p.procs)
			c.floor.plan(cal, i, p.start, p.dur)
		}
	} else {
		c.plan = c.plan[:0]
	}
	c.now, c.init = now, true
	c.endedNow = c.endedNow[:0]
	keep := cal == nil || memoOK(cal)
	if keep && first == 0 {
		c.calRun.CopyFrom(pr)
	}
	earliest := func(i, procs int, from, dur workload.Time) workload.Time {
		if cal == nil {
			return pr.Earliest(from, procs, dur)
		}
		return earliestOn(pr, cal, &c.floor, i, procs, from, dur)
	}
	if cal == nil {
		c.bounds.resetBare(c.noBound)
	} else {
		c.bounds.reset(cal, c.noBound)
	}
	for i, n := first, v.Len(); i < n; i++ {
		j := v.Job(i)
		dur := j.Limit()
		from := c.bounds.begin(i, j.Procs, dur, now)
		at := earliest(i, j.Procs, from, dur)
		c.bounds.note(at, now)
		if at == now {
			keep = false // a start, or a plan Fits moved on: made anew next pass
			if fit == nil || fit.Fits(i) {
				before := v.Free()
				d.Start(i)
				took, room := max(before-v.Free(), j.Procs), pr.MinFree(now, satAdd(now, dur))
				if took > room {
					c.bounds.void() // whole nodes took more than the plan had free
				}
				pr.Add(now, satAdd(now, dur), min(took, room))
				continue
			}
			if next := pr.NextChange(now); next < workload.Forever {
				at = earliest(i, j.Procs, next, dur)
			} else {
				at = workload.Forever
			}
		}
		p := planned{seq: j.Seq, procs: j.Procs, dur: dur, start: at}
		if at < workload.Forever {
			d.Reserve(i, at)
			pr.Add(at, p.end(), j.Procs)
			c.floor.plan(cal, i, at, dur)
		} else {
			keep = false // from a later time the walk may reach further
		}
		c.plan = append(c.plan, p)
	}
	c.calKeep = keep
	c.calGen = creditGen(cal)
}

// keepPlan reports whether the plans the last pass made under Calendar
// cal hold at this pass, so that planning every job anew would give each
// the same start. That pass (and each it kept plans from) started nothing
// and planned every job at a finite time by the profile and the calendar
// alone, none moved on by Fits (calKeep); the running jobs' profile agrees
// from now on with that pass's (nothing started or ended since: only jobs
// joined); every plan is still after now; and the queue begins with the
// planned jobs, in order. A job's plan was the earliest start from the
// old now that fits the same profile (the running jobs and the plans ahead
// of it) and the calendar, a function of absolute time (Calendar's rules
// are known in advance) and of the running jobs its reservations admit
// (the same while its fastpath.Credited generation is), so no start
// between the old now and the new one fits it, and from the new now its
// earliest start is the same. Only where memoOK.
func (c *Conservative) keepPlan(v View, cal Calendar, now workload.Time) bool {
	if c.noBound || !c.calKeep || len(c.plan) > v.Len() || c.calGen != creditGen(cal) || !c.prof.SameFrom(&c.calRun) {
		return false
	}
	for i := range c.plan {
		if p := &c.plan[i]; p.start <= now || v.Job(i).Seq != p.seq {
			return false
		}
	}
	return true
}

package policy

import (
	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/workload"
)

// planBounds keeps, during a pass that plans jobs one after another on a
// profile that only fills (conservative backfilling's plan made anew,
// a Slurm backfill cycle), proofs that later jobs start no earlier than a
// time. A job planned at s, the earliest start on p processors for d that
// the profile (and the calendar) allowed it, proves that a later job of
// its calendar class asking p or more processors for d or more cannot
// start before s: the profile the later job sees has no more free
// processors at any instant (plans and starts only fill it), a run of
// hers covers at least the instants of a run of the earlier job from the
// same start, and the calendar refuses her what it refused the earlier
// one. So her walk may begin at s, and finds the start a walk from now
// would find (its earliest fitting start at or after s, and none fits
// before). A deep queue then walks the profile once rather than once a
// job. A few proofs are kept, none that another makes useless (at most as
// late, for as many jobs or fewer); any of them is a sound bound, so the
// oldest is dropped when they are too many.
//
// They are kept under a calendar, whose walks are long (every candidate
// start is checked against the reservations and start windows), that
// names its classes (fastpath.PlanClasses), unless it walks everything
// afresh (fastpath.Memoless, the tests' reference); and, a few of them,
// by conservative backfilling without a calendar on a cluster of nodes,
// which plans its whole queue anew after every end (resetBare).
//
// Reservations on nodes (NodeCalendar) keep the proofs sound within a
// pass, though not from one pass to the next (memoOK): a run that
// overlaps an occurrence loses the idle processors of the held nodes,
// and a longer run overlaps every occurrence a shorter one from the same
// start does, so the held nodes are at least as many; the running jobs on
// them are the pass's, and a job the pass starts there takes from the
// profile's free processors what it takes from their idle ones (unless
// the profile had fewer free than it took: void), so the processors a
// later job may count on never grow.
type planBounds struct {
	e       []planBound
	on      bool
	bare    bool // one class, no calendar (resetBare)
	classes fastpath.PlanClasses
	// The job begin asked for, for note.
	cur   planBound
	curOK bool
}

type planBound struct {
	class fastpath.PlanClass
	procs int
	dur   workload.Time
	start workload.Time
}

// maxPlanBounds is how many proofs a pass keeps under a calendar, and
// maxBareBounds without one (resetBare), where a walk is cheaper than
// comparing with many proofs.
const (
	maxPlanBounds = 32
	maxBareBounds = 4
)

// limit returns how many proofs the pass keeps.
func (b *planBounds) limit() int {
	if b.bare {
		return maxBareBounds
	}
	return maxPlanBounds
}

// reset starts a pass under calendar cal; off keeps the proofs out (the
// tests' walk from now). Without a calendar a walk costs a few steps of
// the profile, less than keeping the proofs (Slurm's backfill on CTC-SP2
// took 1.3 times as long with them): none are kept then.
func (b *planBounds) reset(cal Calendar, off bool) {
	b.e = b.e[:0]
	b.bare = false
	b.classes, _ = cal.(fastpath.PlanClasses)
	ml, isML := cal.(fastpath.Memoless)
	b.on = !off && b.classes != nil && !(isML && ml.Memoless())
	b.curOK = false
}

// resetBare starts a pass without a calendar in which every job is of
// one class: conservative backfilling on a cluster of nodes, which plans
// its whole queue anew at every pass that follows an end (a queue of
// thousands walks a profile of thousands of plans for each job); off
// keeps the proofs out (the tests' walk from now).
func (b *planBounds) resetBare(off bool) {
	b.e = b.e[:0]
	b.classes = nil
	b.on, b.bare = !off, true
	b.curOK = false
}

// void drops the proofs for the rest of the pass: a start took more
// processors than the plan had free (whole nodes), so the plan no longer
// counts every processor the running jobs hold, and on reservations that
// hold nodes the processors a later job may count on could grow.
func (b *planBounds) void() {
	b.on, b.curOK = false, false
	b.e = b.e[:0]
}

// begin returns where the walk of queued job i, on procs processors for
// dur, may begin: now, or the latest start a proof gives it.
func (b *planBounds) begin(i, procs int, dur, now workload.Time) workload.Time {
	b.curOK = b.on
	if !b.on {
		return now
	}
	var c fastpath.PlanClass
	ok := true
	if b.classes != nil {
		c, ok = b.classes.PlanClass(i)
	}
	if b.curOK = ok; !ok {
		return now
	}
	b.cur = planBound{class: c, procs: procs, dur: dur}
	return max(now, b.from(c, procs, dur))
}

// note records the walk's answer at for the job begin was last asked
// about: a start after now is a proof for the jobs after it.
func (b *planBounds) note(at, now workload.Time) {
	if b.curOK && at > now && at < workload.Forever {
		b.add(b.cur.class, b.cur.procs, b.cur.dur, at)
	}
	b.curOK = false
}

// covers reports whether proof e holds for a job of class c on procs
// processors for dur.
func (e *planBound) covers(c fastpath.PlanClass, procs int, dur workload.Time) bool {
	return e.class == c && e.procs <= procs && e.dur <= dur
}

// from returns the latest start the proofs give for a job of class c on
// procs processors for dur: it cannot start before it (0 if none holds).
func (b *planBounds) from(c fastpath.PlanClass, procs int, dur workload.Time) workload.Time {
	var t workload.Time
	for k := range b.e {
		if e := &b.e[k]; e.start > t && e.covers(c, procs, dur) {
			t = e.start
		}
	}
	return t
}

// add records that a job of class c on procs processors for dur was
// planned at its earliest start, start.
func (b *planBounds) add(c fastpath.PlanClass, procs int, dur, start workload.Time) {
	for k := range b.e {
		if e := &b.e[k]; e.start >= start && e.covers(c, procs, dur) {
			return // e proves as much for every job this one would
		}
	}
	w := 0
	for k := range b.e {
		e := &b.e[k]
		if e.class == c && e.start <= start && e.procs >= procs && e.dur >= dur {
			continue // this one proves as much for every job e would
		}
		if w != k {
			b.e[w] = *e
		}
		w++
	}
	if w >= b.limit() {
		w = copy(b.e, b.e[1:w]) // the oldest goes
	}
	b.e = append(b.e[:w], planBound{class: c, procs: procs, dur: dur, start: start})
}

package policy

import (
	"slices"

	"github.com/schedsim/schedsim/workload"
)

// Admitter is an optional interface of a Calendar that can tell whether
// its reservations withhold the same processors from every job: when
// none admits any job (all are maintenance, or it has none), a plan's
// floor (planFloor) never asks more than each job's own rule does, and
// the planners keep none.
type Admitter interface {
	// AdmitsSome reports whether some reservation held as a count of
	// processors admits some jobs (for users, accounts or partitions).
	AdmitsSome() bool
}

// JobAdmitter is an optional interface of a Calendar that can tell
// whether a queued job is admitted by some reservation held as a count.
// A job none of them admits is withheld, at every instant, at least what
// any other job is (the same reservations' processors and more, less the
// same credit of the running jobs they admit), so while the running jobs
// they admit are those the plans of a pass were made with, the floor of
// those plans asks nothing of it beyond its own rule, and the planners
// leave the floor out of its walks.
type JobAdmitter interface {
	// Admitted reports whether some reservation held as a count of
	// processors admits queued job i.
	Admitted(i int) bool
}

// planFloor is, during a pass that plans jobs one after another on a
// profile that only fills (a reservation depth, conservative
// backfilling, a Slurm backfill cycle), the fewest processors the plans
// made so far need left free at each instant. Job P planned over [s, e)
// fits by the rule of reservations while, at every instant u of its run,
// the processors free beside the plans (P's included) are at least those
// withheld from P at u. A later job that a reservation admits has fewer
// withheld: alone, its own rule would let it take processors that P's
// plan counted on, and P's start would move (under Slurm's backfill the
// engine checks the head's, and found it delayed). So each later job
// must also leave free, at every instant of its run, the most any plan
// active then has withheld: the floor. For jobs that are all withheld
// the same processors it asks nothing more than their own rule, and it
// is kept only under a calendar whose reservations admit some jobs
// (Admitter).
//
// Reservations on nodes are left out: a plan on counts does not know
// which nodes a later job would take.
type planFloor struct {
	on bool
	// at[k] is an instant, and val[k] the floor over [at[k], at[k+1]);
	// before at[0] and from the last instant on it is 0.
	at  []workload.Time
	val []int
	// gen is the fastpath.Credited generation of the calendar every plan
	// raising the floor was made under, while mixed is false (see
	// forJob).
	gen   uint64
	mixed bool
	// n bounds the queue indices the pass visits (negative: the floor
	// is raised for every plan, see unread), and last is the index of the
	// last job below n some reservation admits (JobAdmitter; -1: none),
	// found at the first plan (scanned: last is then valid).
	n       int
	last    int
	scanned bool
}

// reset starts a pass under calendar cal (nil: none) that visits the
// queued jobs below index n in order, planning every one it does not
// start, or, with n negative, one that plans only a few: the floor is
// kept only when cal's reservations may admit some jobs.
func (f *planFloor) reset(cal Calendar, n int) {
	f.at, f.val = f.at[:0], f.val[:0]
	f.on, f.mixed = false, false
	f.n, f.scanned = n, false
	if cal == nil {
		return
	}
	a, ok := cal.(Admitter)
	f.on = !ok || a.AdmitsSome()
}

// forJob returns the floor job i's walks on cal must leave free: nil
// when it can ask nothing beyond the job's own rule, because no
// reservation admits the job (JobAdmitter) and every plan that raised it
// was made under the running jobs the reservations admit now (the
// calendar's fastpath.Credited generation): the job is then withheld at
// least what each of those plans was, at every instant (see
// JobAdmitter). Leaving it out changes no answer, and lets the walks
// take the calendar's spans (fastpath.Spans) where the profile no longer
// changes.
func (f *planFloor) forJob(cal Calendar, i int) *planFloor {
	if !f.active() || f.mixed {
		return f
	}
	if a, ok := cal.(JobAdmitter); ok && !a.Admitted(i) && creditGen(cal) == f.gen {
		return nil
	}
	return f
}

// active reports whether some plan has raised the floor.
func (f *planFloor) active() bool { return f != nil && len(f.at) > 0 }

// value returns the floor at u and the next instant after u at which it
// changes (workload.Forever: never).
func (f *planFloor) value(u workload.Time) (int, workload.Time) {
	if !f.active() {
		return 0, workload.Forever
	}
	k, found := slices.BinarySearch(f.at, u)
	switch {
	case found:
		if k+1 < len(f.at) {
			return f.val[k], f.at[k+1]
		}
		return f.val[k], workload.Forever
	case k == 0:
		return 0, f.at[0]
	case k < len(f.at):
		return f.val[k-1], f.at[k]
	}
	return f.val[len(f.val)-1], workload.Forever
}

// clearFrom reports whether the floor is 0 from u on.
func (f *planFloor) clearFrom(u workload.Time) bool {
	return !f.active() || u >= f.at[len(f.at)-1]
}

// split makes t an instant of the floor, with the value that held there,
// and returns its index.
func (f *planFloor) split(t workload.Time) int {
	k, found := slices.BinarySearch(f.at, t)
	if found {
		return k
	}
	v := 0
	if k > 0 {
		v = f.val[k-1]
	}
	f.at = slices.Insert(f.at, k, t)
	f.val = slices.Insert(f.val, k, v)
	return k
}

// raise makes the floor at least w over [lo, hi).
func (f *planFloor) raise(lo, hi workload.Time, w int) {
	if w <= 0 || lo >= hi {
		return
	}
	if len(f.at) == 0 {
		f.at = append(f.at, lo, hi)
		f.val = append(f.val, w, 0)
		return
	}
	a := f.split(lo)
	b := f.split(hi)
	for k := a; k < b; k++ {
		f.val[k] = max(f.val[k], w)
	}
}

// unread reports whether no walk of the pass can read what a plan of
// queued job i would raise the floor to: the planners walk the queue in
// order, so only the jobs after i read it, and when no reservation
// admits any of them (JobAdmitter) they leave the floor out (forJob),
// while the admitted running jobs stay those of the plans made so far,
// as they do unless a job a reservation admits starts, and none is left
// to. Finding the last admitted job costs a look at the queue's jobs
// from the end, once a pass: worth it where the pass plans every job it
// visits (conservative backfilling, Slurm's backfill), not where it plans
// a few (a reservation depth; reset with n negative).
func (f *planFloor) unread(cal Calendar, i int) bool {
	a, ok := cal.(JobAdmitter)
	if !ok || f.n < 0 || f.mixed || (f.active() && creditGen(cal) != f.gen) {
		return false
	}
	if !f.scanned {
		f.last, f.scanned = -1, true
		for k := f.n - 1; k >= 0; k-- {
			if a.Admitted(k) {
				f.last = k
				break
			}
		}
	}
	return f.last <= i
}

// plan raises the floor for queued job i planned over [from, from+dur)
// (dur workload.Forever: the calendar's horizon): at every instant, to
// what the reservations withhold from it there (on a NodeCalendar, those
// held as counts).
func (f *planFloor) plan(cal Calendar, i int, from, dur workload.Time) {
	if f == nil || !f.on || cal == nil || f.unread(cal, i) {
		return
	}
	end := satAdd(from, dur)
	if end >= workload.Forever {
		end = satAdd(from, horizonOf(cal))
	}
	if g := creditGen(cal); !f.active() {
		f.gen = g
	} else if g != f.gen {
		f.mixed = true
	}
	withheld := cal.Withheld
	if nc, ok := cal.(NodeCalendar); ok {
		withheld = nc.WithheldCount
	}
	for u := from; u < end; {
		w, next := withheld(i, u)
		f.raise(u, min(next, end), w)
		u = next
	}
}

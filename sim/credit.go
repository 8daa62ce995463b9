package sim

import (
	"cmp"
	"slices"

	"github.com/schedsim/schedsim/workload"
)

// Reservations that admit some jobs, held as a count of processors (not
// on named nodes), are filled by the jobs they admit first: a running job
// a reservation admits holds its processors inside the reservation, up
// to the reservation's size, as a Slurm job that uses a reservation runs
// on its nodes. What the reservation withholds from the jobs it does not
// admit is then its size less what the admitted jobs hold inside it
// (never below zero), not its whole size on top of them: they would
// count the same processors twice, once as busy and once as reserved.
//
// The admitted jobs are assigned in a fixed order (their submission
// sequence), each to the active reservations that admit it in the
// scenario's order, each taking what room is left in it; a job that no
// longer fits runs outside, on the machine's other processors. A running
// job counts until its predicted end, the instant at which the running
// jobs' profile the policies plan with gives its processors back; the
// engine, which counts a job until its kill time under runtime
// predictions, then withholds at least as much as the policies planned
// with. Past the last running job's end the credit is zero, so what the
// calendar alone withholds (the spans the admission check keeps) still
// holds there. A running job without a time limit (no predicted end)
// is left out: it would hold its credit past every plan's last change,
// where those spans answer; its processors count twice, as before.
//
// The credit only ever lowers what a reservation withholds from the jobs
// it does not admit to the processors it leaves idle: those jobs still
// hold at most the machine less the reservation at every instant of an
// occurrence, which is what schedsim verify checks.
//
// Within a pass a start never gives the other jobs more room: filled in
// this order, each reservation holds at least as much of the admitted
// jobs as before a job joins them (the processors each job has left for
// the next reservation only grow), and all of them together at most the
// joining job's processors more, which it takes from the machine. So a
// plan or a proof a policy found earlier in the pass still holds. From
// one pass to the next the running jobs' profile can stay the same while
// the jobs admitted change: the view's fastpath.Credited generation
// changes then, and the policies' memos kept between passes (EASY's
// head's shadow, conservative backfilling's plans) are made anew.

// admRun is a running job some reservation of constraints.admitting
// admits: its processors, predicted end and submission sequence.
type admRun struct {
	id    int32 // its slot
	procs int
	end   workload.Time
	seq   int64
}

// creditState is the credit's cache: the running admitted jobs for the
// running jobs of generation gen, and the last assignment.
type creditState struct {
	gen   uint64
	valid bool
	runs  []admRun
	ends  []workload.Time // the runs' predicted ends, in order
	// sig is incremented whenever runs changes (a job the reservations
	// admit started or ended, or its predicted end moved):
	// fastpath.Credited's generation.
	sig  uint64
	prev []admRun
	// Who some admitting reservation admits (users, accounts,
	// partitions), and the admitting reservations the walk holds (not
	// indexed), once built.
	who      bool
	users    map[int]bool
	accounts map[int]bool
	parts    map[int]bool
	loop     []int
	// The last assignment: for the running jobs of gen, at the instants
	// [lo, hi), inside[x] processors of reservation act[x] (active,
	// admitting some jobs, in the scenario's order) are held by jobs it
	// admits.
	at     bool
	lo, hi workload.Time
	act    []int
	inside []int
	room   []int
}

// initCredit finds the reservations whose credit counts: those that
// admit some jobs and hold a count of processors (initPins leaves out
// those on nodes on a cluster of nodes, which hold the nodes themselves).
func (cs *constraints) initCredit() {
	for k := range cs.c.Reservations {
		r := &cs.c.Reservations[k]
		if !r.Maint && len(r.Users)+len(r.Accounts)+len(r.Partitions) > 0 {
			cs.admitting = append(cs.admitting, k)
		}
	}
}

// initWho builds, once the reservations on nodes are known (initPins),
// the sets of users, accounts and partitions some admitting reservation
// admits, and the admitting reservations the walk holds.
func (cs *constraints) initWho() {
	cr := &cs.credit
	cr.who = true
	cr.users, cr.accounts, cr.parts = map[int]bool{}, map[int]bool{}, map[int]bool{}
	for _, k := range cs.admitting {
		r := &cs.c.Reservations[k]
		for _, u := range r.Users {
			cr.users[u] = true
		}
		for _, a := range r.Accounts {
			cr.accounts[a] = true
		}
		for _, p := range r.Partitions {
			cr.parts[p] = true
		}
	}
	for _, k := range cs.loop {
		if _, ok := slices.BinarySearch(cs.admitting, k); ok {
			cr.loop = append(cr.loop, k)
		}
	}
}

// admitsAny reports whether some reservation of constraints.admitting
// admits job j (initWho must have run).
func (cr *creditState) admitsAny(j *workload.Job) bool {
	return cr.users[j.User] || cr.accounts[j.Group] || cr.parts[j.Partition]
}

// admittedRunning returns the running jobs that some reservation of
// cs.admitting admits, in submission order, built anew when the running
// jobs changed (runningChanged).
func (cs *constraints) admittedRunning(e *Engine) []admRun {
	cr := &cs.credit
	if cr.valid && cr.gen == cs.runGen {
		return cr.runs
	}
	if !cr.who {
		cs.initWho()
	}
	cr.prev = append(cr.prev[:0], cr.runs...)
	cr.runs = cr.runs[:0]
	for k := range e.running {
		r := &e.running[k]
		s := &e.slots[r.id]
		if r.procs <= 0 || r.predEnd >= workload.Forever || e.isShared(s) {
			continue
		}
		if cr.admitsAny(&s.job) {
			cr.runs = append(cr.runs, admRun{id: r.id, procs: int(r.procs), end: r.predEnd, seq: r.seq})
		}
	}
	slices.SortFunc(cr.runs, func(a, b admRun) int { return cmp.Compare(a.seq, b.seq) })
	cr.ends = cr.ends[:0]
	for _, r := range cr.runs {
		cr.ends = append(cr.ends, r.end)
	}
	slices.Sort(cr.ends)
	if !slices.Equal(cr.runs, cr.prev) {
		cr.sig++
	}
	cr.gen, cr.valid, cr.at = cs.runGen, true, false
	return cr.runs
}

// creditFor returns the processors the running jobs admitted to the
// reservations active at t that job j may not use hold inside them (what
// withheld is to give back), and the next instant after t at which that
// may change by a running job's predicted end (Forever: none; the
// reservations' own boundaries are withheld's).
func (cs *constraints) creditFor(e *Engine, j *workload.Job, t workload.Time) (int, workload.Time) {
	if len(cs.admitting) == 0 || e == nil {
		return 0, workload.Forever
	}
	runs := cs.admittedRunning(e)
	if len(runs) == 0 {
		return 0, workload.Forever
	}
	cr := &cs.credit
	if !cr.at || t < cr.lo || t >= cr.hi {
		cs.assignCredit(e, runs, t)
	}
	credit := 0
	for x, k := range cr.act {
		if cr.inside[x] > 0 && !cs.c.Reservations[k].Admits(j) {
			credit += cr.inside[x]
		}
	}
	next := workload.Forever
	if k, _ := slices.BinarySearch(cr.ends, t+1); k < len(cr.ends) {
		next = cr.ends[k]
	}
	return credit, next
}

// assignCredit fills the admitting reservations active at t with the running
// jobs they admit (see the comment at the top of this file) and records
// the instants around t over which the assignment holds.
func (cs *constraints) assignCredit(e *Engine, runs []admRun, t workload.Time) {
	cr := &cs.credit
	hi := workload.Forever
	// The admitting reservations active at t, in the scenario's order:
	// the index's and the walk's, merged.
	cr.act = cr.act[:0]
	var ids []int32
	if cs.once != nil {
		ids, hi = cs.once.admittingAt(t)
	}
	for _, k := range cr.loop {
		active, next := cs.resv[k].at(t)
		hi = min(hi, next)
		if !active {
			continue
		}
		for len(ids) > 0 && int(ids[0]) < k {
			cs.actIndexed(int(ids[0]))
			ids = ids[1:]
		}
		cr.act = append(cr.act, k)
	}
	for _, id := range ids {
		cs.actIndexed(int(id))
	}
	cr.inside, cr.room = cr.inside[:0], cr.room[:0]
	for _, k := range cr.act {
		cr.inside = append(cr.inside, 0)
		cr.room = append(cr.room, cs.resvPr[k])
	}
	for _, r := range runs {
		if r.end <= t {
			continue
		}
		hi = min(hi, r.end)
		left := r.procs
		for x, k := range cr.act {
			if left == 0 {
				break
			}
			if cr.room[x] > 0 && cs.c.Reservations[k].Admits(&e.slots[r.id].job) {
				take := min(left, cr.room[x])
				cr.inside[x] += take
				cr.room[x] -= take
				left -= take
			}
		}
	}
	// The assignment is known to hold from t on only: earlier instants
	// are asked again.
	cr.at, cr.lo, cr.hi = true, t, hi
}

// actIndexed adds indexed reservation k, active, to the assignment's
// reservations if it admits some jobs.
func (cs *constraints) actIndexed(k int) {
	if _, ok := slices.BinarySearch(cs.admitting, k); ok {
		cs.credit.act = append(cs.credit.act, k)
	}
}

package sim

import (
	"sort"

	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// consView is the policy's view of an engine with Config.Constraints: the
// engine's view (inner) with the queue narrowed to the jobs no limit
// holds, plus policy.Fitter (may a job start now, the constraints
// included) and policy.Calendar (the reservations and start windows the
// policies plan around). Its index i is the pass's i-th visible job,
// queue index cs.visible[i].
type consView struct {
	e     *Engine
	cs    *constraints
	inner policy.View
	fit   policy.Fitter // inner as a Fitter (a cluster of nodes), or nil
}

// consDecisions maps a policy's decisions on a consView back to the
// engine's queue indices.
type consDecisions struct{ v *consView }

var (
	_ policy.View         = (*consView)(nil)
	_ policy.Fitter       = (*consView)(nil)
	_ policy.Calendar     = (*consView)(nil)
	_ fastpath.Spans      = (*consView)(nil)
	_ fastpath.DenseQueue = (*consView)(nil)
	_ policy.Failer       = (*consDecisions)(nil)
)

// TicksPerSecond implements policy.Ticker: the run's unit, for the
// policies' planning horizon.
func (v *consView) TicksPerSecond() workload.Time { return v.cs.c.tick() }

// Now implements policy.View.
func (v *consView) Now() workload.Time { return v.e.now }

// Capacity implements policy.View.
func (v *consView) Capacity() int { return v.inner.Capacity() }

// Free implements policy.View.
func (v *consView) Free() int { return v.inner.Free() }

// Len implements policy.View: the jobs no limit holds.
func (v *consView) Len() int { return len(v.cs.visible) }

// Job implements policy.View.
func (v *consView) Job(i int) *workload.Job { return v.inner.Job(v.cs.visible[i]) }

// NumRunning implements policy.View.
func (v *consView) NumRunning() int { return v.inner.NumRunning() }

// Running implements policy.View.
func (v *consView) Running(k int) (workload.Time, int) { return v.inner.Running(k) }

// Ended implements policy.View.
func (v *consView) Ended() []policy.Ended { return v.inner.Ended() }

// Queued implements fastpath.DenseQueue: the engine's dense queue when
// the pass sees the whole queue (no limits), else the visible jobs'.
func (v *consView) Queued(n int) []fastpath.Queued {
	if !v.cs.hasLimits {
		return v.e.Queued(n)
	}
	d := v.cs.dense[:0]
	for k := range n {
		d = append(d, fastpath.QueuedOf(&v.slot(k).job))
	}
	v.cs.dense = d
	return d
}

// slot returns the slot of visible job i.
func (v *consView) slot(i int) *slot { return &v.e.slots[v.e.queue[v.cs.visible[i]]] }

// Fits implements policy.Fitter: visible job i may start now: enough
// processors are free (on nodes, where it fits), no limit holds it (one
// may since the pass began: a job of the same user started), its start
// windows let it start now, and its requested time runs into no
// reservation it may not use (see Constraints).
func (v *consView) Fits(i int) bool {
	s := v.slot(i)
	e := v.e
	if s.job.Procs > e.freeProcs() || (v.fit != nil && !v.fit.Fits(v.cs.visible[i])) {
		return false
	}
	if v.cs.pins != nil && !e.fitsPinned(s) {
		return false // it fits only on nodes a reservation holds
	}
	if v.cs.hasLimits && !v.cs.allowed(v.e.queue[v.cs.visible[i]], s.job.Procs) {
		v.cs.limitHit = true
		return false
	}
	return v.cs.startFrom(&s.job, s.limit, e.now) == e.now && e.clearOfReservations(s)
}

// Withheld implements policy.Calendar.
func (v *consView) Withheld(i int, t workload.Time) (int, workload.Time) {
	return v.cs.withheldNow(v.e, &v.slot(i).job, t, false)
}

// AdmitsSome implements policy.Admitter: some reservation held as a
// count (not on named nodes of a cluster of nodes) admits the jobs of
// some users, accounts or partitions.
func (v *consView) AdmitsSome() bool {
	for k := range v.cs.c.Reservations {
		r := &v.cs.c.Reservations[k]
		if !r.Maint && len(r.Users)+len(r.Accounts)+len(r.Partitions) > 0 && (v.cs.pins == nil || len(r.Nodes) == 0) {
			return true
		}
	}
	return false
}

// Admitted implements policy.JobAdmitter: some reservation of
// cs.admitting (those held as a count that admit some jobs) admits
// visible job i. Under the tests' walk at every check (SlowCalendar)
// every job counts as admitted, so that the planners keep their floor for
// every job, which the tests compare with the floor left out.
func (v *consView) Admitted(i int) bool {
	cs := v.cs
	if cs.noMemo {
		return true
	}
	if len(cs.admitting) == 0 {
		return false
	}
	if !cs.credit.who {
		cs.initWho()
	}
	return cs.credit.admitsAny(&v.slot(i).job)
}

// FirstOver implements fastpath.Spans, from the spans the admission
// check keeps (constraints.firstOver); Withheld's reservations are
// WithheldCount's without reservations on nodes.
func (v *consView) FirstOver(i int, count bool, slack int, from, to workload.Time) (workload.Time, workload.Time, bool) {
	if (!count && v.cs.pins != nil) || v.cs.noMemo {
		return 0, 0, false
	}
	at, next := v.cs.firstOver(&v.slot(i).job, slack, from, to)
	return at, next, true
}

// steady reports whether the constraints keep every refusal while only
// jobs join the queue (no job starts or ends, no wake-up is due), so that
// the engine may skip the passes a policy's rule proves idle
// (fastpath.Quieter) as it does without constraints. Reservations and
// start windows do: between two of their boundaries, at each of which
// the engine is woken, a job's run from now can only reach further into
// the next occurrence, and its start window stays as it was; and the
// first waiting job's pending reason stays what the last pass found.
// Limits are left out (a joining job held by one is marked at the pass),
// and so are preemption, runtime predictions (with them, skipping was
// measured to give a job other processors than a run of every pass) and
// the tests' walk at every check.
func (cs *constraints) steady(cfg Config) bool {
	return !cs.hasLimits && cs.pins == nil && !cs.noMemo && cfg.Preempt == nil && cfg.Estimator == nil
}

// SteadyFits implements fastpath.SteadyFitter (constraints.steady).
func (v *consView) SteadyFits() bool { return v.e.quieter != nil }

// Memoless implements fastpath.Memoless: the tests' walk at every check
// (SlowCalendar) keeps no policy memo either.
func (v *consView) Memoless() bool { return v.cs.noMemo }

// CreditGen implements fastpath.Credited: the generation of the running
// jobs the reservations admit (credit.go).
func (v *consView) CreditGen() uint64 {
	if len(v.cs.admitting) == 0 {
		return 0
	}
	v.cs.admittedRunning(v.e)
	return v.cs.credit.sig
}

// Blocked implements fastpath.Spans (constraints.blockedFor).
func (v *consView) Blocked(i, slack int, from, dur workload.Time) bool {
	return !v.cs.noMemo && v.cs.blockedFor(&v.slot(i).job, slack, from, dur)
}

// Horizon implements fastpath.Spans: the admission check's
// (constraints.admitHorizon); Forever when the tests walk every check
// (SlowCalendar), which then compare the cut with a walk to the steps'
// end.
func (v *consView) Horizon(from workload.Time) workload.Time {
	if v.cs.noMemo {
		return workload.Forever
	}
	return v.cs.admitHorizon(from)
}

// PlanClass implements fastpath.PlanClasses: the reservations visible
// job i may not use and the start windows that apply to it (withheld's,
// Pinned's and startFrom's only inputs from the job), when both fit 64
// bits.
func (v *consView) PlanClass(i int) (fastpath.PlanClass, bool) {
	cs := v.cs
	if len(cs.c.Reservations) > 64 || len(cs.c.Windows) > 64 {
		return fastpath.PlanClass{}, false
	}
	s := v.slot(i)
	ws := cs.c.Windows
	return fastpath.PlanClass{
		Reservations: cs.resvKey(&s.job).mask,
		Windows:      cs.bitSet(len(ws), func(k int) bool { return ws[k].appliesTo(&s.job, s.limit) }).mask,
	}, true
}

// StartFrom implements policy.Calendar.
func (v *consView) StartFrom(i int, t workload.Time) workload.Time {
	s := v.slot(i)
	return v.cs.startFrom(&s.job, s.limit, t)
}

// Start implements policy.Decisions.
func (d *consDecisions) Start(i int) { d.v.e.Start(d.v.cs.visible[i]) }

// Reserve implements policy.Decisions.
func (d *consDecisions) Reserve(i int, at workload.Time) { d.v.e.Reserve(d.v.cs.visible[i], at) }

// WakeAt implements policy.Decisions.
func (d *consDecisions) WakeAt(t workload.Time) { d.v.e.WakeAt(t) }

// Fail implements policy.Failer.
func (d *consDecisions) Fail(i int, reason string) { d.v.e.Fail(d.v.cs.visible[i], reason) }

// Preempt implements policy.Preempter: the engine's preemption
// (Config.Preempt) for visible job i, which the constraints bound as any
// start (see Engine.Preempt).
func (d *consDecisions) Preempt(i int) (started, more bool) { return d.v.e.Preempt(d.v.cs.visible[i]) }

// consGrowDecisions are consDecisions under Config.Grow: the policy grows
// running jobs and gives a job started at the head up to its maximum, as
// the engine's own Decisions do (see Grow), within the limits and
// reservations (Engine.growRoom).
type consGrowDecisions struct {
	consDecisions
}

var (
	_ policy.Grower   = (*consGrowDecisions)(nil)
	_ policy.Assigner = (*consGrowDecisions)(nil)
	_ policy.Failer   = (*consGrowDecisions)(nil)
)

// GrowRunning implements policy.Grower.
func (d *consGrowDecisions) GrowRunning(spare int) int { return d.v.e.GrowRunning(spare) }

// Range implements policy.Assigner.
func (d *consGrowDecisions) Range(i int) (int, int) { return d.v.e.Range(d.v.cs.visible[i]) }

// StartWith implements policy.Assigner.
func (d *consGrowDecisions) StartWith(i, procs int) { d.v.e.StartWith(d.v.cs.visible[i], procs) }

// clearOfReservations reports whether the job of slot s, started now,
// runs into no reservation it may not use: at every instant u of [now,
// now+limit) the processors free at u (now's, plus those the running
// jobs give back by their predicted ends) less those withheld from it
// are at least its own.
func (e *Engine) clearOfReservations(s *slot) bool { return e.clearFor(s, s.limit, nil) }

// clearFor is clearOfReservations for a run of at most limit (≤ 0: none)
// from now, with the running jobs gone (their processors free now, no
// longer given back at their predicted ends): a preemptor's victims
// (Config.Preempt), already released.
func (e *Engine) clearFor(s *slot, limit workload.Time, gone []int32) bool {
	cs := e.cons
	if len(cs.resv) == 0 {
		return true
	}
	end := workload.Forever
	if limit > 0 {
		end = e.now + limit
	} else {
		end = e.now + calendarHorizon*e.cons.c.tick()
	}
	free := e.freeProcs()
	// From the running jobs' last predicted end on, the processors free
	// are a constant: the first instant the reservations withhold more
	// than it leaves the job is the one the walk would stop at, and the
	// spans admission keeps know it (a job without a requested time
	// looks 400 days ahead).
	last := max(e.now, e.lastRelease())
	for u := e.now; u < end; {
		if gone == nil && u >= last && !cs.noMemo {
			slack := free + e.releasedBy(u) - s.job.Procs
			at, _ := cs.firstOver(&s.job, max(slack, 0), u, end)
			return at >= workload.Forever
		}
		// On nodes, placement keeps off those of reservations (pinOut);
		// with jobs gone (preempted) the running jobs' credit is left
		// out, which can only withhold more.
		held, next := cs.withheldCount(&s.job, u)
		if gone == nil {
			held, next = cs.withheldNow(e, &s.job, u, true)
		}
		if held > 0 {
			rel := e.releasedBy(u)
			for _, id := range gone {
				if v := &e.slots[id]; e.releaseAt(v) <= u {
					rel -= int(v.held)
				}
			}
			if free+rel-held < s.job.Procs {
				return false
			}
		}
		u = next
	}
	return true
}

// releaseAt returns the instant by which running job v surely gives its
// processors back: its predicted end, which without an Estimator is its
// start plus its requested time, the time it is killed at. Under an
// Estimator the prediction may be short (the job then runs on to its
// requested time), and a reservation's processors are promised only by
// the kill time, as Slurm's are by the time limits of the jobs on them.
func (e *Engine) releaseAt(v *slot) workload.Time {
	if e.est == nil || v.limit <= 0 {
		return v.predEnd
	}
	return v.start + v.limit
}

// releases builds, while cumValid, the running jobs' release instants
// (releaseAt) in order and the prefix sums of their processors.
func (e *Engine) releases() {
	cs := e.cons
	if cs.cumValid {
		return
	}
	run := e.running
	cs.ends = cs.ends[:0]
	cs.cum = append(cs.cum[:0], 0)
	if e.est == nil {
		for k := range run {
			cs.ends = append(cs.ends, run[k].predEnd)
			cs.cum = append(cs.cum, cs.cum[k]+int(run[k].procs))
		}
	} else {
		// The predicted-end index is not in order of the kill times.
		cs.byKill = cs.byKill[:0]
		for k := range run {
			cs.byKill = append(cs.byKill, released{at: e.releaseAt(&e.slots[run[k].id]), procs: int(run[k].procs)})
		}
		sort.Slice(cs.byKill, func(a, b int) bool { return cs.byKill[a].at < cs.byKill[b].at })
		for k, r := range cs.byKill {
			cs.ends = append(cs.ends, r.at)
			cs.cum = append(cs.cum, cs.cum[k]+r.procs)
		}
	}
	cs.cumValid = true
}

// released is a running job's release instant and processors.
type released struct {
	at    workload.Time
	procs int
}

// releasedBy returns the processors the running jobs surely give back by
// instant u (releaseAt), from prefix sums kept while the running jobs do
// not change.
func (e *Engine) releasedBy(u workload.Time) int {
	e.releases()
	cs := e.cons
	return cs.cum[sort.Search(len(cs.ends), func(k int) bool { return cs.ends[k] > u })]
}

// lastRelease returns the last finite release instant of the running
// jobs (releaseAt), or −Forever if there is none.
func (e *Engine) lastRelease() workload.Time {
	e.releases()
	ends := e.cons.ends
	for k := len(ends) - 1; k >= 0; k-- {
		if ends[k] < workload.Forever {
			return ends[k]
		}
	}
	return -workload.Forever
}

// calendarHorizon is how far ahead the engine checks the reservations of
// a job without a requested time (policy's planning horizon, 400 days).
const calendarHorizon = 400 * 86400

// consPass runs one scheduling pass under Config.Constraints: the policy
// sees the queue without the jobs a limit holds. When a start in the pass
// made a limit hold a job the pass could still see, the pass runs again,
// so that the held job blocks no one (at most a few times).
func (e *Engine) consPass() {
	cs := e.cons
	for round := 0; ; round++ {
		e.stats.Passes++
		if round == 0 && e.shared {
			e.startShared()
		}
		e.passLen = len(e.queue)
		e.headPhase = false
		e.started = false
		e.startedAt = e.startedAt[:0]
		if e.shared {
			// The time-shared jobs the calendar keeps are not the
			// policy's to start (see shared.go).
			cs.visible = cs.visible[:0]
			for qi, id := range e.queue {
				s := &e.slots[id]
				if e.isShared(s) {
					s.pending = PendingReservation
					if cs.startFrom(&s.job, s.limit, e.now) != e.now {
						s.pending = PendingStartWindow
					}
					continue
				}
				allowed := !cs.hasLimits || cs.allowed(id, s.job.Procs)
				if allowed || cs.wholeQueue {
					cs.visible = append(cs.visible, qi)
				}
				if !allowed {
					s.pending = PendingLimit
				}
			}
		} else if !cs.hasLimits {
			// Every queued job is visible: the indices are the queue's.
			for k := len(cs.visible); k < len(e.queue); k++ {
				cs.visible = append(cs.visible, k)
			}
			cs.visible = cs.visible[:len(e.queue)]
		} else if cs.fast {
			e.visibleFast()
		} else {
			cs.visible = cs.visible[:0]
			for qi, id := range e.queue {
				allowed := !cs.hasLimits || cs.allowed(id, e.slots[id].job.Procs)
				if allowed || cs.wholeQueue {
					cs.visible = append(cs.visible, qi)
				}
				if !allowed {
					e.slots[id].pending = PendingLimit
				}
			}
		}
		cs.limitHit = false
		if e.grow != nil {
			e.headPhase = true
			e.pol.Schedule(&cs.view, &consGrowDecisions{cs.dec})
		} else {
			e.pol.Schedule(&cs.view, &cs.dec)
		}
		e.ended = e.ended[:0]
		e.nodes.log = e.nodes.log[:0]
		if e.started {
			e.removeStarted()
		}
		if !(cs.limitHit && e.started) || round >= 8 || cs.wholeQueue {
			break
		}
	}
	// The first job no limit holds waits for processors, a reservation,
	// its start window, or the policy.
	first := int32(-1)
	if cs.fast {
		first = e.firstAllowedFast()
	} else {
		for _, id := range e.queue {
			s := &e.slots[id]
			if cs.hasLimits && !cs.allowed(id, s.job.Procs) {
				s.pending = PendingLimit
				continue
			}
			first = id
			break
		}
	}
	if first >= 0 {
		s := &e.slots[first]
		switch {
		case !e.fits(s):
			s.pending = PendingResources
		case cs.startFrom(&s.job, s.limit, e.now) != e.now:
			s.pending = PendingStartWindow
		case !e.clearOfReservations(s) || (cs.pins != nil && !e.fitsPinned(s)):
			s.pending = PendingReservation
		default:
			s.pending = PendingPolicy
		}
	}
	if len(e.queue) > 0 {
		// Wake up when a reservation or a start window begins or ends:
		// nothing else may happen then, and a waiting job may start.
		if nb := cs.nextBoundary(e.now); nb < workload.Forever && (cs.wakeAt <= e.now || nb < cs.wakeAt) {
			e.wakes.push(nb)
			cs.wakeAt = nb
		}
	}
}

// rebuild recounts what the limits count from a restored engine's jobs.
func (cs *constraints) rebuild(e *Engine) {
	cs.userJobs.reset()
	cs.userCPUs.reset()
	cs.userSubmit.reset()
	clear(cs.grpCPUs)
	if cs.hasLimits {
		cs.rebuildOwners(e)
	}
	for _, r := range e.running {
		cs.running(&e.slots[r.id].job, 1)
		cs.submitted(&e.slots[r.id].job, 1)
	}
	for _, id := range e.queue {
		cs.submitted(&e.slots[id].job, 1)
	}
	for _, h := range e.holds {
		cs.submitted(&e.slots[h.id].job, 1)
	}
	if e.pre != nil {
		// A job suspended by preemption still counts (Config.Preempt).
		for _, id := range e.pre.susp {
			cs.running(&e.slots[id].job, 1)
			cs.submitted(&e.slots[id].job, 1)
		}
	}
	cs.wakeAt = -1
	if e.stats.Jobs > 0 {
		cs.initWindows(e.stats.FirstEvent) // as the first submission did
	}
}

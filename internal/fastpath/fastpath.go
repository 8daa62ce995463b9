// Package fastpath holds the engine's fast paths: optional interfaces
// through which a built-in policy and the engine skip work whose result is
// known in advance (a pass that can start nothing, a queue read through an
// interface call per job). They change no result, only the time a run
// takes; a policy of one's own needs none of them (policy.Policy, its View
// and its Decisions are the one way to write one), so they are internal
// to the module.
package fastpath

import (
	"math"

	"github.com/schedsim/schedsim/workload"
)

// Quieter is an optional interface of a policy.Policy whose passes can be proved
// idle in advance. Under load most passes follow only submissions: the
// queue's head still does not fit, nothing ended, and the jobs passed over
// before are passed over again. Such a pass can only start a job that
// joined since, and the rule the previous pass left says which ones could.
// An engine that sees no such job may skip the pass: the policy must then
// behave as if it had run and started nothing.
type Quieter interface {
	// Quiet returns the rule the pass just run leaves for the passes that
	// follow it while only jobs join the queue: no job ends or starts, no
	// prediction changes, no node changes state, no wake-up is due. Its
	// Valid is false when the policy cannot give one.
	Quiet() QuietRule
}

// RoomBound is an optional interface of a Quieter whose passes, on a pool
// of processors, start no job while every queued job needs more processors
// than are free, whatever happened since its last pass. At normal load
// most jobs that end leave too few processors for any waiting job, and an
// engine that keeps the smallest request in its queue may skip the pass
// that follows such an end. The policy must then behave as if the pass had
// run and started nothing; the engine hands the jobs that ended meanwhile
// (View.Ended) to the next pass that runs, all at once.
type RoomBound interface {
	Quiet() QuietRule
	// NeedsRoom reports whether the policy's passes follow the rule.
	NeedsRoom() bool
}

// QuietRule says which joining jobs could make a pass start anything (see
// Quieter). Positions count queued jobs from the head, 0, once the jobs the
// pass started have left the queue. The rule holds for every later pass
// while only jobs join, whether those passes ran or were skipped.
type QuietRule struct {
	// Valid reports that the rule holds; without it every pass must run.
	Valid bool
	// Limit is the first position the next pass does not examine: jobs
	// joining at Limit or later cannot start.
	Limit int
	// Free and Extra are the processors a joining job may use: all of
	// Free if it ends by Shadow, else at most Extra. With Free 0 no job
	// can start.
	Free, Extra int
	// Shadow is the time by which a joining job must end to use more
	// than Extra processors.
	Shadow workload.Time
}

// May reports whether job j, joining the queue at position i, could start
// at time now under the rule. A job it rejects cannot start in a pass the
// rule holds for; one it accepts may (the pass must run).
func (r *QuietRule) May(i int, now workload.Time, j *workload.Job) bool {
	return !r.Valid || (i < r.Limit && r.Free > 0 && j.Procs <= r.Free && j.Estimate > 0 &&
		(now+j.Estimate <= r.Shadow || j.Procs <= r.Extra))
}

// DenseQueue is an optional interface of a policy.View that keeps, beside its
// queue, what a backfill scan reads of every queued job in one dense slice
// (the engine). At normal load a pass happens at almost every submission
// and end, and each walks the few dozen jobs behind a blocked head, most of
// which need more processors than are free. Reading them through View.Job
// costs an interface call and a cache miss per job; reading Queued costs
// neither.
type DenseQueue interface {
	// Queued returns the first n jobs of the queue as it was at the start
	// of the pass (n ≤ Len()): entry i describes Job(i). The slice is
	// valid during the pass only and must not be modified.
	Queued(n int) []Queued
}

// Queued is what a backfill scan reads of a queued job, in 8 bytes.
type Queued struct {
	// Est is the job's Estimate, cut to the largest int32; ≤ 0 means none
	// (the job is never backfilled).
	Est int32
	// Procs is the job's Procs, cut to the largest int32.
	Procs int32
}

// QueuedOf returns what a DenseQueue holds for j.
func QueuedOf(j *workload.Job) Queued {
	return Queued{Est: clamp(int64(j.Estimate)), Procs: clamp(int64(j.Procs))}
}

// clamp returns v cut to the largest int32.
func clamp(v int64) int32 { return int32(min(v, math.MaxInt32)) }

// Spans is an optional interface of a policy.Calendar that answers from memory
// what a walk through the reservations over a long stretch would find:
// a plan of a job without an end walks 400 days (policy's calendarHorizon), every
// occurrence of a daily reservation, at every pass. The planning
// functions use it where the profile no longer changes, so that its
// free processors are a constant and only the reservations count.
type Spans interface {
	// FirstOver returns the first instant of [from, to) at which the
	// reservations withhold more than slack processors from queued job
	// i (WithheldCount's when count, else Withheld's), and an instant
	// after it up to which they go on withholding more (no start of job
	// i before it, on slack more processors than its own, fits: its
	// first instant would be short); workload.Forever twice when there
	// is none. ok is false when it cannot answer (the caller walks).
	FirstOver(i int, count bool, slack int, from, to workload.Time) (at, next workload.Time, ok bool)
	// Blocked reports that no run of job i of at least dur starting at
	// or after from is clear of instants at which the reservations
	// withhold more than slack processors from it (WithheldCount's,
	// which Withheld's and the nodes Pinned holds only add to); false
	// when it does not know.
	Blocked(i, slack int, from, dur workload.Time) bool
	// Horizon returns the instant by which, from instant from on, a job
	// finds a start that the reservations and start windows alone let
	// it make if it ever finds one: a year past the reservations' last
	// end, or past from when some recur without end (their occurrences
	// only repeat after that); workload.Forever when it does not know.
	// The admission check rejects a job that finds none by then on an
	// empty machine.
	Horizon(from workload.Time) workload.Time
}

// SteadyFitter is an optional interface of a policy.View that is a
// policy.Fitter. SteadyFits reports that a job its Fits refuses stays
// refused while only jobs join the queue (no job ends or starts, no
// prediction changes, no wake-up is due), and that a refused job that
// joins never changes another's answer: the jobs a pass passed over are
// passed over again. A Quieter then gives its rule under such a Fitter
// too, which the engine trusts where it knows the Fitter's rules (the
// engine's reservations and start windows, without limits).
type SteadyFitter interface {
	// SteadyFits reports whether Fits is steady.
	SteadyFits() bool
}

// Memoless is an optional interface of a policy.Calendar that asks the
// policies to keep none of its answers from one pass to the next (a
// policy's memo, such as EASY's of its head's shadow): the engine's tests
// compare runs that keep them with runs that walk everything again.
type Memoless interface {
	// Memoless reports that answers must not be kept between passes.
	Memoless() bool
}

// Credited is an optional interface of a policy.Calendar whose Withheld
// depends on the running jobs too, not on the job and the time alone: a
// reservation's running admitted jobs fill it first, and it withholds
// from the others only what they leave. A policy's answer kept from one
// pass to the next (EASY's head's shadow, conservative backfilling's
// plans) holds only while CreditGen is what it was when the answer was
// found, besides the running jobs' profile being the same.
type Credited interface {
	// CreditGen returns a number that changes whenever the running jobs
	// the reservations admit (and so what they give back) change.
	CreditGen() uint64
}

// Copier is an optional interface of a sim.Observer that copies the
// engine's events for another goroutine (report.Async): the engine hands
// it the events it gives at nearly every step, a job's start, a plain job
// end and an instant's sample, as a few words rather than as a sim.Record
// (368 bytes, cleared and set at every end, then copied) or a sim.Event
// behind an interface call. The Copier builds the record and the sample on its own
// goroutine, as the engine would have, and hands them to the observers
// behind it as the events they stand for: no observer can tell.
type Copier interface {
	// PlainEnd is the sim.EventEnded of job j, which ran once from start
	// to end on processors the observer numbers itself (deferred
	// placement), and was killed at its time limit if killed; slot,
	// requeues, pending and who are the record's Slot, Requeues, Pending
	// and Who. Every other field of its record is zero: no growth, no
	// prediction, no note, no preemption.
	PlainEnd(j *workload.Job, start, end workload.Time, killed bool, slot, requeues int32, pending uint8, who bool)
	// Started is the sim.EventStarted of job j at t on procs processors
	// in slot, numbered by the observer if deferred.
	Started(t workload.Time, j *workload.Job, procs int, slot int32, deferred bool)
	// Sampled is the sim.EventSampled of the sample with these fields.
	Sampled(t workload.Time, busy, running, queued int, queuedProcs int64, unavailable int)
}

// PlanClasses is an optional interface of a policy.Calendar that tells
// which queued jobs its rules treat alike: two jobs of one class are
// refused by the same reservations (the same processors withheld at the
// same instants) and bound by the same start windows, so that a start the
// calendar refuses to one on p processors for d it refuses to the other
// on p or more for d or more. A policy that plans jobs one after another
// on a profile that only fills then knows that a job of the class asking
// at least as much as one planned before it starts no earlier (see
// policy.Conservative).
type PlanClasses interface {
	// PlanClass returns the class of queued job i; ok is false when the
	// calendar cannot name it (the job then shares a class with none).
	PlanClass(i int) (c PlanClass, ok bool)
}

// PlanClass names a class of jobs of a PlanClasses calendar: the
// reservations they may not use and the start windows that apply to
// them, one bit each.
type PlanClass struct {
	Reservations, Windows uint64
}

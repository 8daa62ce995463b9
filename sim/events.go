package sim

import (
	"math/bits"

	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/workload"
)

// EventKind is what happened: to a job, or, for EventSampled, to the
// machine at the end of an instant.
type EventKind uint8

// Kinds of Event.
const (
	// EventSubmitted: the job joined the queue (or its hold, until its
	// HoldUntil).
	EventSubmitted EventKind = iota + 1
	// EventStarted: the job started on Procs processors, in the engine's
	// slot Slot (Record.Slot names it again at its end).
	EventStarted
	// EventReserved: the policy promised, at this pass, that the job
	// starts no later than At. A waiting job is promised again at each
	// pass; the engine checks the earliest promise of a pass.
	EventReserved
	// EventEnded: the job ran and ended; Record is its record.
	EventEnded
	// EventRefused: the job never ran to an end: rejected at its
	// submission (too large for the machine, or refused by a limit),
	// failed by a filter, or still waiting when the run ended; Record is
	// its record and Record.Reason says why.
	EventRefused
	// EventSuspended: a running job was stopped for a higher-priority
	// job, keeping its progress (SCore-D; Config.Preempt with preempt
	// suspend).
	EventSuspended
	// EventPreempted: a running job was stopped for a higher-priority
	// job and put back in its queue to start over (SCore-D; Config.Preempt
	// with preempt requeue). A job cancelled by preemption ends instead:
	// EventEnded, its Record.State Preempted.
	EventPreempted
	// EventResumed: a suspended or preempted job started again.
	EventResumed
	// EventRequeued: a node going down put a running (or suspended) job
	// back in its queue to start over (Config.OnNodeFail, or SCore-D's
	// NodeFailRequeue).
	EventRequeued
	// EventSampled: an instant is over; Sample is the state it left.
	// There is one for every instant at which anything happened, after
	// that instant's pass.
	EventSampled

	// lastKind is the last kind: Kinds has a bit for each up to it.
	lastKind = EventSampled
)

// String returns the kind's name.
func (k EventKind) String() string {
	switch k {
	case EventSubmitted:
		return "submitted"
	case EventStarted:
		return "started"
	case EventReserved:
		return "reserved"
	case EventEnded:
		return "ended"
	case EventRefused:
		return "refused"
	case EventSuspended:
		return "suspended"
	case EventPreempted:
		return "preempted"
	case EventResumed:
		return "resumed"
	case EventRequeued:
		return "requeued"
	case EventSampled:
		return "sampled"
	}
	return "unknown"
}

// Kinds is a set of EventKinds.
type Kinds uint32

// Sets of kinds.
const (
	// RecordKinds are the events that carry a job's record: EventEnded
	// and EventRefused.
	RecordKinds Kinds = 1<<EventEnded | 1<<EventRefused
	// AllKinds are all kinds of event.
	AllKinds Kinds = 1<<(lastKind+1) - 2
)

// KindsOf returns the set of the kinds ks.
func KindsOf(ks ...EventKind) Kinds {
	var s Kinds
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

// Has reports whether k is in s.
func (s Kinds) Has(k EventKind) bool { return s&(1<<k) != 0 }

// Each calls f with each kind of s, in order.
func (s Kinds) Each(f func(EventKind)) {
	for x := uint32(s & AllKinds); x != 0; x &= x - 1 {
		f(EventKind(bits.TrailingZeros32(x)))
	}
}

// Wants is what an observer takes from a run: the kinds of event it is
// given, and how it may be given them. The engine asks for it once, when
// a run starts, and builds no event of a kind that no observer wants.
type Wants struct {
	// Kinds are the kinds of event the observer is given; it is given no
	// other.
	Kinds Kinds
	// JobHead reports that the observer reads, of each event's job (and
	// record's job), only its head: Seq, ID, Submit, Procs, Run,
	// Estimate, User, Group, Queue, Partition and HoldUntil. A buffer between the
	// engine and the observer (report.Async) then copies only that much.
	JobHead bool
	// SampleBatches reports that the observer may be given samples a
	// batch at a time (Event.Samples), apart from the other events: a
	// buffer (report.Async) then hands it each batch's samples in one
	// event, in order, after the batch's other events. It suits an
	// observer whose samples do not depend on the records between them.
	SampleBatches bool
}

// Event is one thing that happened in a run. The engine reuses an Event's
// memory, and that of what it points to, after the call: copy what is
// kept, and change nothing.
type Event struct {
	Kind EventKind
	// Time is the instant it happened (for a record, Record.End; for a
	// sample, Sample.Time).
	Time workload.Time
	// Job is the job as the engine holds it (the estimate it plans with);
	// nil for EventSampled.
	Job *workload.Job
	// Procs is the processors of the job: those a started or resumed job
	// got, those a suspended, preempted or requeued job gave back.
	Procs int
	// At is the promised start of EventReserved, and the HoldUntil of a
	// job submitted on hold (EventSubmitted; 0 otherwise).
	At workload.Time
	// Slot is the engine's slot of a started job (EventStarted), which
	// its record names again (Record.Slot).
	Slot int32
	// Deferred reports an EventStarted of a run whose engine leaves the
	// processors' numbers to a Placer (Config.DeferPlacement).
	Deferred bool
	// Record is the job's record, for EventEnded and EventRefused.
	Record *Record
	// Sample is the state an instant left, for EventSampled: the first of
	// Samples.
	Sample *Sample
	// Samples are the samples of an EventSampled, in order: one, or, to
	// an observer that wants SampleBatches, a batch of them.
	Samples []Sample
}

// Observer receives the events of a run, on the goroutine that calls its
// Observe (the engine's, unless a buffer such as report.Async is between
// them), in the order the engine applies them: at each instant the
// submissions, then the ends, then the pass's starts, reservations and
// preemptions, then the instant's sample. Every observer, the built-in
// ones included, is given its events so.
type Observer interface {
	// Wants returns what the observer takes, the same at every call:
	// the engine asks once, when a run starts; a buffer (report.Async)
	// asks when it is built, a fan-out (report.Observers) at each event.
	Wants() Wants
	// Observe is given each event of a kind the observer wants.
	Observe(e *Event)
}

// RecordFunc is an Observer of the records of ended and refused jobs: it
// calls the function with each.
type RecordFunc func(r *Record)

// Wants implements Observer: the records.
func (f RecordFunc) Wants() Wants { return Wants{Kinds: RecordKinds} }

// Observe implements Observer.
func (f RecordFunc) Observe(e *Event) { f(e.Record) }

// RecordKind returns the kind of the event that carries r: EventRefused
// for a job that never ran to an end (rejected, failed, pending),
// EventEnded for the others.
func RecordKind(r *Record) EventKind {
	if r.State == Rejected || r.State == Failed || r.State == Pending {
		return EventRefused
	}
	return EventEnded
}

// RecordEvent sets *e to the event that carries r.
func RecordEvent(e *Event, r *Record) {
	*e = Event{Kind: RecordKind(r), Time: r.End, Job: r.Job, Procs: r.Job.Procs, Record: r}
}

// fanout is an Observer that hands each event to the observers behind it
// that want its kind, in order. It wants what any of them wants; it reads
// only job heads and takes sample batches only when all of them do.
type fanout struct {
	all    []Observer
	wants  Wants
	byKind [lastKind + 1][]Observer
}

// newFanout returns a fanout to obs.
func newFanout(obs ...Observer) *fanout {
	f := &fanout{all: obs, wants: Wants{JobHead: true, SampleBatches: true}}
	for _, x := range obs {
		w := x.Wants()
		f.wants.Kinds |= w.Kinds
		f.wants.JobHead = f.wants.JobHead && w.JobHead
		if w.Kinds.Has(EventSampled) {
			f.wants.SampleBatches = f.wants.SampleBatches && w.SampleBatches
		}
		w.Kinds.Each(func(k EventKind) { f.byKind[k] = append(f.byKind[k], x) })
	}
	return f
}

// Observers returns the observers f hands events to, in order.
func (f *fanout) Observers() []Observer { return f.all }

// Wants implements Observer.
func (f *fanout) Wants() Wants { return f.wants }

// Observe implements Observer.
func (f *fanout) Observe(e *Event) {
	for _, x := range f.byKind[e.Kind] {
		x.Observe(e)
	}
}

// sink hands the engine's records and events to the run's observer, and
// the records to the closed loop (Config.ClosedLoop).
//
// Records, starts and samples, which come once per job or per instant,
// have events of their own whose fields of other kinds stay zero: each is
// given only what changes.
type sink struct {
	obs   Observer
	kinds Kinds
	loop  *closedLoop
	// copier is obs when it takes plain ends and samples as a few words
	// (fastpath.Copier), else nil.
	copier fastpath.Copier
	ev     Event     // the rarer kinds'
	rec    Event     // EventEnded and EventRefused
	start  Event     // EventStarted
	smpEv  Event     // EventSampled, on smp
	smp    [1]Sample // the instant's sample (EventSampled)
}

func newSink(obs Observer) *sink {
	s := &sink{obs: obs}
	if obs != nil {
		s.kinds = obs.Wants().Kinds & AllKinds
		s.copier, _ = obs.(fastpath.Copier)
	}
	s.start.Kind = EventStarted
	s.smpEv = Event{Kind: EventSampled, Sample: &s.smp[0], Samples: s.smp[:]}
	return s
}

// wants reports whether the observer wants events of kind k.
func (s *sink) wants(k EventKind) bool { return s.kinds&(1<<k) != 0 }

// record tells the closed loop of r and hands it, as an event, to the
// observer.
func (s *sink) record(r *Record) {
	if s.loop != nil {
		end := r.End
		if r.State == Pending {
			end = r.Start
		}
		s.loop.ended(r.Job.ID, end)
	}
	k := RecordKind(r)
	if s.kinds&(1<<k) != 0 {
		e := &s.rec
		e.Kind, e.Time, e.Job, e.Procs, e.Record = k, r.End, r.Job, r.Job.Procs, r
		s.obs.Observe(e)
	}
}

// sampled hands the observer the sample the engine wrote in s.smp[0], as
// an EventSampled.
func (s *sink) sampled() {
	s.smpEv.Time = s.smp[0].Time
	s.obs.Observe(&s.smpEv)
}

// started sends the observer the EventStarted of job j in slot.
func (s *sink) started(t workload.Time, j *workload.Job, procs int, slot int32, deferred bool) {
	if s.copier != nil {
		s.copier.Started(t, j, procs, slot, deferred)
		return
	}
	e := &s.start
	e.Time, e.Job, e.Procs, e.Slot, e.Deferred = t, j, procs, slot, deferred
	s.obs.Observe(e)
}

// emit sends the observer the event of kind k about job j.
func (s *sink) emit(k EventKind, t workload.Time, j *workload.Job, procs int, at workload.Time) {
	s.ev = Event{Kind: k, Time: t, Job: j, Procs: procs, At: at}
	s.obs.Observe(&s.ev)
}

// emit sends the run's observer the event of kind k about job j (the
// caller asks e.obs.wants(k) first, so that nothing is built for nobody).
func (e *Engine) emit(k EventKind, j *workload.Job, procs int, at workload.Time) {
	e.obs.emit(k, e.now, j, procs, at)
}

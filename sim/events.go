package sim

import "github.com/schedsim/schedsim/workload"

// EventKind is what happened to a job.
type EventKind uint8

// Kinds of Event.
const (
	// EventSubmitted: the job joined the queue (or its hold, until its
	// HoldUntil).
	EventSubmitted EventKind = iota + 1
	// EventStarted: the job started on Procs processors.
	EventStarted
	// EventReserved: the policy promised, at this pass, that the job
	// starts no later than At. A waiting job is promised again at each
	// pass; the engine checks the earliest promise of a pass.
	EventReserved
	// EventEnded: the job ran and ended; Record is its record.
	EventEnded
	// EventRefused: the job never ran: rejected at its submission (too
	// large for the machine), failed by a filter, or still waiting when
	// the run ended; Record is its record, Record.Reason says why.
	EventRefused
	// EventSuspended: a running job was stopped for a higher-priority
	// queue's job, keeping its progress (SCore-D, preempt suspend).
	EventSuspended
	// EventPreempted: a running job was stopped for a higher-priority
	// queue's job and put back in its queue to start over (SCore-D,
	// preempt requeue), or by a node going down (SCore-D, NodeFailRequeue).
	EventPreempted
	// EventResumed: a suspended or preempted job started again.
	EventResumed
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
	}
	return "unknown"
}

// Event is one thing that happened to a job. The engine reuses an Event's
// memory after the call: copy what is kept.
type Event struct {
	Kind EventKind
	// Time is the instant it happened.
	Time workload.Time
	// Job is the job as the engine holds it (the estimate it plans with).
	Job *workload.Job
	// Procs is the processors a started job got.
	Procs int
	// At is the promised start of EventReserved, and the HoldUntil of a
	// job submitted on hold (EventSubmitted; 0 otherwise).
	At workload.Time
	// Record is the job's record, for EventEnded and EventRefused.
	Record *Record
}

// EventObserver receives every event of a run (Config.Events), on the
// engine's goroutine, in the order the engine applies them: at each
// instant the submissions, then the ends, then the pass's starts and
// reservations. The records of ended and refused jobs come as events
// too, so an EventObserver sees all a JobDone observer sees, and more.
type EventObserver interface {
	Event(e *Event)
}

// eventTee hands each record to the run's observer and, as an event, to
// the event observer.
type eventTee struct {
	next Observer
	ev   EventObserver
	e    Event
}

func (t *eventTee) JobDone(r *Record) {
	kind := EventEnded
	if r.State == Rejected || r.State == Failed || r.State == Pending {
		kind = EventRefused
	}
	t.e = Event{Kind: kind, Time: r.End, Job: r.Job, Procs: r.Job.Procs, Record: r}
	if r.State == Pending {
		t.e.Time = r.Start
	}
	t.ev.Event(&t.e)
	t.next.JobDone(r)
}

// Sample passes a sample on to the observer behind, if it takes samples.
func (t *eventTee) Sample(s *Sample) {
	if sp, ok := t.next.(Sampler); ok {
		sp.Sample(s)
	}
}

// JobStarted passes a start on to the observer behind (a Starter under
// deferred placement).
func (t *eventTee) JobStarted(slot int32, procs int) {
	if st, ok := t.next.(Starter); ok {
		st.JobStarted(slot, procs)
	}
}

// emit sends e's event of kind k about job j, if the run has an event
// observer.
func (e *Engine) emit(k EventKind, j *workload.Job, procs int, at workload.Time) {
	e.ev = Event{Kind: k, Time: e.now, Job: j, Procs: procs, At: at}
	e.cfg.Events.Event(&e.ev)
}

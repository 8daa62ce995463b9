package report

import (
	"fmt"
	"runtime/debug"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// asyncBatch is how many records, starts and samples Async gathers before
// handing them over: the hand-over then costs nothing per job.
const asyncBatch = 512

// asyncDepth is how many full batches may wait for the observers before
// the engine waits for them in turn.
const asyncDepth = 8

// The kinds of a batch's items: a record (its event's kind, EventEnded or
// EventRefused), a start only a Placer takes, a sample, or another event.
const (
	itemEnded   = uint8(sim.EventEnded)
	itemRefused = uint8(sim.EventRefused)
	itemStart   = uint8(sim.EventStarted)
	itemSample  = uint8(sim.EventSampled)
	itemEvent   = 0
	// itemPlain is a plain end (fastpath.Copier): an EventEnded whose
	// record Async builds from its few words.
	itemPlain = uint8(sim.EventSampled) + 1
)

// obsBatch is a run of events, copied out of the engine's reused memory.
// Its arrays are asyncBatch long, written by index (but allocs, which
// grows).
type obsBatch struct {
	// kinds are the kinds of the batch's n items, in the order the engine
	// gave them (but the samples, unless Async.inOrder); the items of each
	// kind are in the arrays below, in order.
	n     int
	kinds [asyncBatch]uint8
	nrec  int
	recs  [asyncBatch]sim.Record
	// plain are the plain ends' words (itemPlain): plain[i] stands for
	// recs[i], which the observers' goroutine sets from it.
	plain [asyncBatch]plainEnd
	// jobs are the records' jobs (recs[i].Job), or only their heads (see
	// Async.heads).
	jobs     [asyncBatch]workload.Job
	allocEnd [asyncBatch]int32 // recs[i].Alloc and PredictedAlloc are allocs[allocEnd[i-1]:allocEnd[i]]
	predN    [asyncBatch]int32 // of which the last predN[i] are recs[i].PredictedAlloc
	allocs   []cluster.Range   // the records' Alloc, end to end
	nsmp     int
	samples  [asyncBatch]sim.Sample
	// starts are the deferred starts only a Placer takes.
	nst    int
	starts [asyncBatch]asyncStart
	// ev are the other events, when an observer wants any (nil
	// otherwise).
	ev      *eventItems
	barrier chan struct{} // closed once the items before it were handed on
}

// plainEnd is what a plain end's record holds but its job (see
// fastpath.Copier).
type plainEnd struct {
	start, end     workload.Time
	slot, requeues int32
	pending        sim.PendingReason
	killed, who    bool
}

// asyncStart is one EventStarted that only a Placer takes.
type asyncStart struct {
	slot  int32
	procs int
}

// eventItems are the events of a batch that are neither records, samples
// nor starts only a Placer takes, with their jobs (or their heads).
type eventItems struct {
	n      int
	events [asyncBatch]sim.Event
	jobs   [asyncBatch]workload.Job
}

func newObsBatch(events bool) *obsBatch {
	b := &obsBatch{}
	if events {
		b.ev = &eventItems{}
	}
	return b
}

// The engine's side of Async indexes a batch's arrays with counts masked
// by asyncBatch−1, below asyncBatch anyway, which spares the compiler's
// checks: this compiles only while asyncBatch is a power of two.
const _ = -(asyncBatch & (asyncBatch - 1))

// reset empties b. The records keep pointers (Reason, Note, Steps) until
// they are overwritten: at most asyncBatch of them per batch.
func (b *obsBatch) reset() {
	b.n, b.nrec, b.nsmp, b.nst = 0, 0, 0, 0
	if b.ev != nil {
		b.ev.n = 0
	}
	b.allocs = b.allocs[:0]
	b.barrier = nil
}

// Async is a sim.Observer that hands every event to other observers on a
// goroutine of its own, so that writing jobs.csv and gathering metrics
// overlap with the simulation. Each observer sees exactly the events it
// would have seen directly, in the same order, one at a time: results do
// not change, only where the work is done. It copies each event (the job,
// a record's processors and growth steps) since the engine reuses them.
//
// Async knows the observers behind it only by what they want
// (sim.Observer's Wants), the report's own as anyone's: it asks the
// engine for the kinds any of them wants and hands each event to those
// that want its kind; when every one of them reads only job heads
// (Wants.JobHead) it copies only those, and an observer that takes
// samples in batches (Wants.SampleBatches) gets each batch's samples in
// one event after the batch's other events. Observers (of this package)
// behind it are called member by member. A sim.Placer behind it numbers
// the processors on Async's goroutine: Async tells it of the starts and
// has it place each record before the observers behind it see it.
//
// Call Sync before reading the observers' state during a run (a
// checkpoint), and Close once the run is over, before reading their
// results; a panic in an observer is raised again by Sync or Close.
type Async struct {
	// placer is the observer when it is a sim.Placer: Async then places
	// the processors with it and hands the events to the observers
	// behind it itself.
	placer *sim.Placer
	// byKind are the observers (an Observers' members, or the Placer's,
	// or the one observer) that want each kind of event, in order;
	// samples those that take samples one at a time, in order with the
	// other events.
	byKind  [int(sim.EventSampled) + 1][]sim.Observer
	samples []sim.Observer
	// batchers are the observers that take a batch's samples at once,
	// after its other events (Wants.SampleBatches); they are not among
	// samples.
	batchers []sim.Observer
	// inOrder reports that a sample must reach its observers in order
	// with the records: some take both. Otherwise (none, or all take
	// batches) a batch's samples go to them in a row, after its other
	// events, and the batch does not note where each came.
	inOrder bool
	// heads reports that every observer reads only the head of a job
	// (Wants.JobHead, jobHead): Async then copies only that.
	heads bool
	// wants is what Async asks of the engine; events reports that some
	// observer wants events that are neither records, samples nor
	// starts only the Placer takes.
	wants   sim.Wants
	events  bool
	cur     *obsBatch
	full    chan *obsBatch
	free    chan *obsBatch
	done    chan struct{}
	failure any // the observer's panic, with its stack
	closed  bool
}

var _ sim.Observer = (*Async)(nil)

// NewAsync starts a goroutine that hands the events obs wants to it.
func NewAsync(obs sim.Observer) *Async {
	a := &Async{
		full: make(chan *obsBatch, asyncDepth),
		free: make(chan *obsBatch, asyncDepth+2),
		done: make(chan struct{}),
	}
	// An Observers (behind a Placer or not) is called member by member,
	// and each sample goes straight to the members that take samples.
	var list []sim.Observer
	if p, ok := obs.(*sim.Placer); ok {
		a.placer = p
		list = flatten(nil, p.Observers())
		a.wants.Kinds = sim.KindsOf(sim.EventStarted, sim.EventEnded)
	} else {
		list = flatten(nil, []sim.Observer{obs})
	}
	a.heads = true
	for _, x := range list {
		w := x.Wants()
		a.wants.Kinds |= w.Kinds
		if !w.JobHead {
			a.heads = false
		}
		w.Kinds.Each(func(k sim.EventKind) {
			switch k {
			case sim.EventSampled:
				if w.SampleBatches {
					a.batchers = append(a.batchers, x)
				} else {
					a.samples = append(a.samples, x)
					a.inOrder = true
				}
			case sim.EventEnded, sim.EventRefused:
			default:
				a.events = true
			}
			a.byKind[k] = append(a.byKind[k], x)
		})
	}
	for range asyncDepth + 1 {
		a.free <- newObsBatch(a.events)
	}
	a.cur = newObsBatch(a.events)
	go a.run()
	return a
}

// flatten appends the observers of list to dst, each Observers' members
// in its place, in order: handing them an event in turn is what the
// Observers does.
func flatten(dst, list []sim.Observer) []sim.Observer {
	for _, x := range list {
		if o, ok := x.(Observers); ok {
			dst = flatten(dst, o)
		} else {
			dst = append(dst, x)
		}
	}
	return dst
}

// jobHead copies the fields of a job that observers reading only job
// heads read (Wants.JobHead): behind them only, Async copies no more of
// the engine's job (TestAsyncJobHeads checks them against copies of the
// whole job).
func jobHead(dst, src *workload.Job) {
	dst.Seq, dst.ID, dst.Submit = src.Seq, src.ID, src.Submit
	dst.Procs, dst.Run, dst.Estimate = src.Procs, src.Run, src.Estimate
	dst.User, dst.Group, dst.Queue, dst.Partition = src.User, src.Group, src.Queue, src.Partition
	dst.HoldUntil = src.HoldUntil
}

func (a *Async) run() {
	defer close(a.done)
	for b := range a.full {
		if a.failure == nil {
			a.deliver(b)
		}
		if b.barrier != nil {
			close(b.barrier)
		}
		b.reset()
		a.free <- b
	}
}

// deliver hands b's items to the observers, recording a panic instead of
// dying of it (Sync and Close raise it on the engine's goroutine).
func (a *Async) deliver(b *obsBatch) {
	defer func() {
		if v := recover(); v != nil {
			a.failure = fmt.Sprintf("%v\n\nobserver goroutine:\n%s", v, debug.Stack())
		}
	}()
	r, s, k, m := 0, 0, 0, 0
	var from int32 // where record r's processors start in allocs
	var ev sim.Event
	// The plain ends' event: its other fields stay zero.
	plain := sim.Event{Kind: sim.EventEnded}
	for _, kind := range b.kinds[:b.n] {
		switch kind {
		case itemPlain:
			p := &b.plain[r]
			rec := &b.recs[r]
			st := sim.Completed
			if p.killed {
				st = sim.Killed
			}
			// Cleared, then set field by field: a literal is built
			// aside and copied, twice the work.
			*rec = sim.Record{}
			rec.Job, rec.State, rec.Start, rec.End, rec.Requeues = &b.jobs[r], st, p.start, p.end, int(p.requeues)
			rec.Deferred, rec.Slot, rec.Pending, rec.Who = true, p.slot, p.pending, p.who
			r++
			plain.Time, plain.Job, plain.Procs, plain.Record = rec.End, rec.Job, rec.Job.Procs, rec
			if a.placer != nil {
				a.placer.Place(rec)
				a.hand(&plain)
				a.placer.Release(rec)
			} else {
				a.hand(&plain)
			}
		case itemEnded, itemRefused:
			rec := &b.recs[r]
			rec.Job = &b.jobs[r]
			rec.Alloc, rec.PredictedAlloc = nil, nil
			if end := b.allocEnd[r]; end > from {
				mid := end - b.predN[r]
				if mid > from {
					rec.Alloc = b.allocs[from:mid:mid]
				}
				if end > mid {
					rec.PredictedAlloc = b.allocs[mid:end:end]
				}
				from = end
			}
			r++
			ev = sim.Event{Kind: sim.EventKind(kind), Time: rec.End, Job: rec.Job, Procs: rec.Job.Procs, Record: rec}
			if a.placer != nil && rec.Deferred {
				a.placer.Place(rec)
				a.hand(&ev)
				a.placer.Release(rec)
			} else {
				a.hand(&ev)
			}
		case itemStart:
			st := b.starts[k]
			k++
			a.placer.Start(st.slot, st.procs)
		case itemEvent:
			e := &b.ev.events[m]
			e.Job = &b.ev.jobs[m]
			m++
			if e.Kind == sim.EventStarted && e.Deferred && a.placer != nil {
				a.placer.Start(e.Slot, e.Procs)
			}
			a.hand(e)
		default:
			x := &b.samples[s]
			s++
			ev = sim.Event{Kind: sim.EventSampled, Time: x.Time, Sample: x, Samples: b.samples[s-1 : s : s]}
			for _, o := range a.samples {
				o.Observe(&ev)
			}
		}
	}
	if b.nsmp > 0 && len(a.batchers) > 0 {
		ev = sim.Event{Kind: sim.EventSampled, Time: b.samples[0].Time, Sample: &b.samples[0], Samples: b.samples[:b.nsmp:b.nsmp]}
		for _, o := range a.batchers {
			o.Observe(&ev)
		}
	}
}

// hand gives e to the observers that want its kind.
func (a *Async) hand(e *sim.Event) {
	for _, x := range a.byKind[e.Kind] {
		x.Observe(e)
	}
}

// Wants implements sim.Observer: what any observer behind wants.
func (a *Async) Wants() sim.Wants { return a.wants }

// Observe implements sim.Observer: it copies e for the observers.
func (a *Async) Observe(e *sim.Event) {
	switch e.Kind {
	case sim.EventEnded, sim.EventRefused:
		a.record(uint8(e.Kind), e.Record)
	case sim.EventSampled:
		if len(e.Samples) == 1 {
			a.sample(e.Sample) // from the engine
			return
		}
		for i := range e.Samples {
			a.sample(&e.Samples[i])
		}
	case sim.EventStarted:
		if len(a.byKind[sim.EventStarted]) == 0 {
			if a.placer != nil && e.Deferred {
				a.start(e.Slot, e.Procs)
			}
			return
		}
		a.event(e)
	default:
		a.event(e)
	}
}

var _ fastpath.Copier = (*Async)(nil)

// PlainEnd implements fastpath.Copier: it copies a plain end's words and
// its job for the observers.
func (a *Async) PlainEnd(j *workload.Job, start, end workload.Time, killed bool, slot, requeues int32, pending uint8, who bool) {
	b := a.cur
	n := b.nrec & (asyncBatch - 1)
	p := &b.plain[n] // field by field, as in Sampled
	p.start, p.end, p.slot, p.requeues = start, end, slot, requeues
	p.pending, p.killed, p.who = sim.PendingReason(pending), killed, who
	if a.heads {
		jobHead(&b.jobs[n], j)
	} else {
		b.jobs[n] = *j
	}
	b.nrec = n + 1
	a.push(b, itemPlain)
}

// Started implements fastpath.Copier: it notes the start for the Placer,
// or copies it as an event for the observers that want starts.
func (a *Async) Started(t workload.Time, j *workload.Job, procs int, slot int32, deferred bool) {
	if len(a.byKind[sim.EventStarted]) == 0 {
		if a.placer != nil && deferred {
			a.start(slot, procs)
		}
		return
	}
	a.event(&sim.Event{Kind: sim.EventStarted, Time: t, Job: j, Procs: procs, Slot: slot, Deferred: deferred})
}

// Sampled implements fastpath.Copier: it copies the sample of these
// fields for the observers.
func (a *Async) Sampled(t workload.Time, busy, running, queued int, queuedProcs int64, unavailable int) {
	if len(a.samples) == 0 && len(a.batchers) == 0 {
		return
	}
	b := a.cur
	// Field by field: a literal is built on the stack and copied.
	s := &b.samples[b.nsmp&(asyncBatch-1)]
	s.Time, s.Busy, s.Running, s.Queued, s.QueuedProcs, s.Unavailable = t, busy, running, queued, queuedProcs, unavailable
	a.sampledIn(b)
}

// record copies r, the record of an event of kind k, for the observers.
func (a *Async) record(k uint8, r *sim.Record) {
	b := a.cur
	n := b.nrec & (asyncBatch - 1)
	b.recs[n] = *r
	if a.heads && len(r.Alloc) == 0 && len(r.Steps) == 0 && len(r.PredictedAlloc) == 0 {
		// Most records: a job's head, no processors (deferred
		// placement), no growth.
		jobHead(&b.jobs[n], r.Job)
		b.allocEnd[n] = int32(len(b.allocs))
		b.predN[n] = 0
	} else {
		a.copyRest(b, n, r)
	}
	b.nrec = n + 1
	a.push(b, k)
}

// copyRest copies what record left of r, record n of b: its job, its
// processors and its growth steps. It is apart from record so that the
// code the engine's goroutine runs at every record is short.
//
//go:noinline
func (a *Async) copyRest(b *obsBatch, n int, r *sim.Record) {
	if a.heads {
		jobHead(&b.jobs[n], r.Job)
	} else {
		b.jobs[n] = *r.Job
	}
	b.allocs = append(b.allocs, r.Alloc...)
	b.allocs = append(b.allocs, r.PredictedAlloc...)
	b.allocEnd[n] = int32(len(b.allocs))
	b.predN[n] = int32(len(r.PredictedAlloc))
	if len(r.Steps) > 0 {
		steps := make([]sim.GrowStep, len(r.Steps))
		for i, st := range r.Steps {
			steps[i] = sim.GrowStep{At: st.At, Procs: st.Procs, Alloc: append([]cluster.Range(nil), st.Alloc...)}
		}
		b.recs[n].Steps = steps
	}
}

// event copies e, an event that is no record or sample, and its job.
//
//go:noinline
func (a *Async) event(e *sim.Event) {
	if !a.events {
		return
	}
	b := a.cur
	n := b.ev.n & (asyncBatch - 1)
	c := &b.ev.events[n]
	*c = *e
	c.Record, c.Sample, c.Samples = nil, nil, nil
	if e.Job != nil {
		if a.heads {
			jobHead(&b.ev.jobs[n], e.Job)
		} else {
			b.ev.jobs[n] = *e.Job
		}
	}
	b.ev.n = n + 1
	a.push(b, itemEvent)
}

// push notes an item of kind k in b, a.cur, and hands b over once full.
func (a *Async) push(b *obsBatch, k uint8) {
	b.kinds[b.n&(asyncBatch-1)] = k
	if b.n++; b.n == asyncBatch {
		a.flush(nil)
	}
}

// start notes a deferred start that only the Placer takes, in order with
// the records.
func (a *Async) start(slot int32, procs int) {
	b := a.cur
	b.starts[b.nst&(asyncBatch-1)] = asyncStart{slot: slot, procs: procs}
	b.nst++
	a.push(b, itemStart)
}

// sample copies s for the observers.
func (a *Async) sample(s *sim.Sample) {
	if len(a.samples) == 0 && len(a.batchers) == 0 {
		return
	}
	b := a.cur
	b.samples[b.nsmp&(asyncBatch-1)] = *s
	a.sampledIn(b)
}

// sampledIn counts the sample just copied into b, a.cur, and hands b
// over when it is time.
func (a *Async) sampledIn(b *obsBatch) {
	if b.nsmp++; a.inOrder {
		a.push(b, itemSample)
	} else if b.nsmp == asyncBatch {
		a.flush(nil)
	}
}

// flush hands the current batch over (with barrier, if not nil) and takes
// a free one.
func (a *Async) flush(barrier chan struct{}) {
	a.cur.barrier = barrier
	a.full <- a.cur
	a.cur = <-a.free
}

// Sync waits until the observer has seen everything given so far. It
// panics with the observer's panic, if it had one.
func (a *Async) Sync() {
	if a.closed {
		a.raise()
		return
	}
	done := make(chan struct{})
	a.flush(done)
	<-done
	a.raise()
}

// Close hands the observer what is left, waits for it and stops the
// goroutine. It panics with the observer's panic, if it had one. Later
// calls do nothing more.
func (a *Async) Close() {
	if !a.closed {
		a.closed = true
		a.full <- a.cur
		a.cur = nil
		close(a.full)
		<-a.done
	}
	a.raise()
}

func (a *Async) raise() {
	if a.failure != nil {
		panic(a.failure)
	}
}

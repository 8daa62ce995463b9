package report

import (
	"fmt"
	"runtime/debug"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// asyncBatch is how many records, starts and samples Async gathers before
// handing them over: the hand-over then costs nothing per job.
const asyncBatch = 512

// asyncDepth is how many full batches may wait for the observers before
// the engine waits for them in turn.
const asyncDepth = 8

// The kinds of a batch's items.
const (
	itemRecord uint8 = iota
	itemStart
	itemSample
)

// obsBatch is a run of records, starts and samples, copied out of the
// engine's reused memory. Its arrays are asyncBatch long, written by
// index (but allocs, which grows).
type obsBatch struct {
	// kinds are the kinds of the batch's n items, in the order the engine
	// gave them (but the samples, unless Async.inOrder); the items of each
	// kind are in the arrays below, in order.
	n     int
	kinds [asyncBatch]uint8
	nrec  int
	recs  [asyncBatch]sim.Record
	// jobs are the records' jobs (recs[i].Job), or only their heads (see
	// Async.heads).
	jobs     [asyncBatch]workload.Job
	allocEnd [asyncBatch]int32 // recs[i].Alloc and PredictedAlloc are allocs[allocEnd[i-1]:allocEnd[i]]
	predN    [asyncBatch]int32 // of which the last predN[i] are recs[i].PredictedAlloc
	allocs   []cluster.Range   // the records' Alloc, end to end
	nsmp     int
	samples  [asyncBatch]sim.Sample
	// starts are the starts told (sim.Starter, under deferred placement).
	nst     int
	starts  [asyncBatch]asyncStart
	barrier chan struct{} // closed once the items before it were handed on
}

// asyncStart is one sim.Starter.JobStarted call.
type asyncStart struct {
	slot  int32
	procs int
}

func newObsBatch() *obsBatch { return &obsBatch{} }

// The engine's side of Async indexes a batch's arrays with counts masked
// by asyncBatch−1, below asyncBatch anyway, which spares the compiler's
// checks: this compiles only while asyncBatch is a power of two.
const _ = -(asyncBatch & (asyncBatch - 1))

// reset empties b. The records keep pointers (Reason, Note, Steps) until
// they are overwritten: at most asyncBatch of them per batch.
func (b *obsBatch) reset() {
	b.n, b.nrec, b.nsmp, b.nst = 0, 0, 0, 0
	b.allocs = b.allocs[:0]
	b.barrier = nil
}

// Async is a sim.Observer and sim.Sampler that hands every record and
// sample to another observer on a goroutine of its own, so that writing
// jobs.csv and gathering metrics overlap with the simulation. The
// observer sees exactly the calls it would have seen directly, in the
// same order, one at a time: results do not change, only where the work
// is done. It copies each record (the job, its processors and growth
// steps) since the engine reuses them.
//
// Async knows the observers behind it only by two optional interfaces,
// which the report's observers implement and any other may: a HeadReader
// lets it copy only the head of each job, and a SampleBatcher takes each
// batch's samples in one call after the batch's records. An observer that
// implements neither sees every call in the engine's order and a copy of
// the whole job.
//
// Call Sync before reading the observer's state during a run (a
// checkpoint), and Close once the run is over, before reading its
// results; a panic in the observer is raised again by Sync or Close.
type Async struct {
	// placer is the observer when it is a sim.Placer: Async then places
	// the processors with it and hands the records to the observers
	// behind it itself.
	placer *sim.Placer
	// records and samples are the observers (an Observers' members, or
	// the Placer's, or the one observer) that take records, and those
	// that take samples, in order; starters those that take starts,
	// without a Placer.
	records  []target
	samples  []target
	starters []sim.Starter
	// batchers are the observers that take a batch's samples at once,
	// after its records (SampleBatcher); samples are then not in the
	// samples list.
	batchers []SampleBatcher
	// inOrder reports that a sample must reach its observers in order
	// with the records: some take both. Otherwise (none, or all are
	// SampleBatchers) a batch's samples go to them in a row, after its
	// records, and the batch does not note where each came.
	inOrder bool
	// heads reports that every observer reads only the head of a job
	// (HeadReader, jobHead): Async then copies only that.
	heads   bool
	cur     *obsBatch
	full    chan *obsBatch
	free    chan *obsBatch
	done    chan struct{}
	failure any // the observer's panic, with its stack
	closed  bool
}

// target is one observer behind Async.
type target struct {
	obs     sim.Observer
	sampler sim.Sampler // obs as a sim.Sampler, or nil
}

// HeadReader is an optional interface of a sim.Observer that reads, of
// each record's job, only its head: Seq, ID, Submit, Procs, Run,
// Estimate, User, Group, Queue and Partition. When every observer behind
// an Async is one, Async copies only that much of each job. The report's
// observers (Metrics, JobsCSV, TimeSeries, Breakdown, Progress) are.
type HeadReader interface {
	sim.Observer
	// ReadsJobHead marks the observer; it does nothing.
	ReadsJobHead()
}

// SampleBatcher is an optional interface of a sim.Sampler that takes
// samples a batch at a time, apart from the records: behind an Async it
// gets each batch's samples in one call, in the engine's order, after the
// batch's records, instead of one Sample call each, in order with them.
// It suits an observer whose samples do not depend on the records between
// them, such as TimeSeries and Progress.
type SampleBatcher interface {
	sim.Sampler
	// SampleBatch records ss in turn, as Sample would each.
	SampleBatch(ss []sim.Sample)
}

var (
	_ sim.Observer = (*Async)(nil)
	_ sim.Sampler  = (*Async)(nil)
	_ sim.Starter  = (*Async)(nil)
)

// NewAsync starts a goroutine that hands records and samples to obs (and
// samples only if obs is a sim.Sampler, starts only if it is a
// sim.Starter, such as a sim.Placer).
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
	} else {
		// The starts go to the observer, or an Observers' members, that
		// are Starters (an Observers within is none).
		top, ok := obs.(Observers)
		if !ok {
			top = Observers{obs}
		}
		for _, x := range top {
			if st, ok := x.(sim.Starter); ok {
				a.starters = append(a.starters, st)
			}
		}
		list = flatten(nil, top)
	}
	a.heads = true
	for _, x := range list {
		t := target{obs: x}
		t.sampler, _ = x.(sim.Sampler)
		if _, ok := x.(HeadReader); !ok {
			a.heads = false
		}
		a.records = append(a.records, t)
		if sb, ok := x.(SampleBatcher); ok {
			a.batchers = append(a.batchers, sb)
		} else if t.sampler != nil {
			a.samples = append(a.samples, t)
			a.inOrder = true
		}
	}
	for range asyncDepth + 1 {
		a.free <- newObsBatch()
	}
	a.cur = newObsBatch()
	go a.run()
	return a
}

// flatten appends the observers of list to dst, each Observers' members
// in its place, in order: handing them a record, or a sample, in turn is
// what the Observers does.
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

// jobHead copies the fields of a job that the report's observers read
// (Metrics, JobsCSV, TimeSeries, Progress, Breakdown): behind them only, Async copies
// no more of the engine's job (TestAsyncJobHeads checks them against
// copies of the whole job).
func jobHead(dst, src *workload.Job) {
	dst.Seq, dst.ID, dst.Submit = src.Seq, src.ID, src.Submit
	dst.Procs, dst.Run, dst.Estimate = src.Procs, src.Run, src.Estimate
	dst.User, dst.Group, dst.Queue, dst.Partition = src.User, src.Group, src.Queue, src.Partition
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

// deliver hands b's items to the observer, recording a panic instead of
// dying of it (Sync and Close raise it on the engine's goroutine).
func (a *Async) deliver(b *obsBatch) {
	defer func() {
		if v := recover(); v != nil {
			a.failure = fmt.Sprintf("%v\n\nobserver goroutine:\n%s", v, debug.Stack())
		}
	}()
	r, s, k := 0, 0, 0
	var from int32 // where record r's processors start in allocs
	for _, kind := range b.kinds[:b.n] {
		switch kind {
		case itemRecord:
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
			if a.placer != nil && rec.Deferred {
				a.placer.Place(rec)
				a.hand(rec)
				a.placer.Release(rec)
			} else {
				a.hand(rec)
			}
		case itemStart:
			st := b.starts[k]
			k++
			if a.placer != nil {
				a.placer.JobStarted(st.slot, st.procs)
				continue
			}
			for _, x := range a.starters {
				x.JobStarted(st.slot, st.procs)
			}
		default:
			a.sample(&b.samples[s])
			s++
		}
	}
	for _, sb := range a.batchers {
		sb.SampleBatch(b.samples[:b.nsmp])
	}
}

// hand gives rec to the observers that take records.
func (a *Async) hand(rec *sim.Record) {
	for i := range a.records {
		a.records[i].obs.JobDone(rec)
	}
}

// sample gives s to the observers that take samples.
func (a *Async) sample(s *sim.Sample) {
	for i := range a.samples {
		a.samples[i].sampler.Sample(s)
	}
}

// JobDone copies r for the observer.
func (a *Async) JobDone(r *sim.Record) {
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
	a.push(b, itemRecord)
}

// copyRest copies what JobDone left of r, record n of b: its job, its
// processors and its growth steps. It is apart from JobDone so that the
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

// push notes an item of kind k in b, a.cur, and hands b over once full.
func (a *Async) push(b *obsBatch, k uint8) {
	b.kinds[b.n&(asyncBatch-1)] = k
	if b.n++; b.n == asyncBatch {
		a.flush(nil)
	}
}

// JobStarted implements sim.Starter: the start is handed to the observers
// that are Starters, in order with the records.
func (a *Async) JobStarted(slot int32, procs int) {
	b := a.cur
	b.starts[b.nst&(asyncBatch-1)] = asyncStart{slot: slot, procs: procs}
	b.nst++
	a.push(b, itemStart)
}

// Sample copies s for the observer.
func (a *Async) Sample(s *sim.Sample) {
	if len(a.samples) == 0 && len(a.batchers) == 0 {
		return
	}
	b := a.cur
	b.samples[b.nsmp&(asyncBatch-1)] = *s
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

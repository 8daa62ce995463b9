package report

import (
	"fmt"
	"runtime/debug"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// asyncBatch is how many records and samples Async gathers before handing
// them over: the hand-over then costs nothing per job.
const asyncBatch = 512

// asyncDepth is how many full batches may wait for the observers before
// the engine waits for them in turn.
const asyncDepth = 8

// obsBatch is a run of records and samples, copied out of the engine's
// reused memory, in the order the engine gave them. Its arrays are made
// asyncBatch long once and written by index (but allocs, which grows).
type obsBatch struct {
	nrec, nsmp int
	recs       []sim.Record
	jobs       []workload.Job  // recs[i].Job
	allocEnd   []int32         // recs[i].Alloc is allocs[allocEnd[i-1]:allocEnd[i]]
	allocs     []cluster.Range // the records' Alloc, end to end
	samples    []sim.Sample
	// sampleAt and sampleSt are, for each sample, how many of the batch's
	// records and starts came before it.
	sampleAt []int32
	sampleSt []int32
	// starts are the starts told (sim.Starter, under deferred placement),
	// startAt how many of the batch's records came before each.
	nst     int
	starts  []asyncStart
	startAt []int32
	barrier chan struct{} // closed once the items before it were handed on
}

// asyncStart is one sim.Starter.JobStarted call.
type asyncStart struct {
	slot  int32
	procs int
}

func newObsBatch() *obsBatch {
	return &obsBatch{
		recs:     make([]sim.Record, asyncBatch),
		jobs:     make([]workload.Job, asyncBatch),
		allocEnd: make([]int32, asyncBatch),
		samples:  make([]sim.Sample, asyncBatch),
		sampleAt: make([]int32, asyncBatch),
		sampleSt: make([]int32, asyncBatch),
		starts:   make([]asyncStart, asyncBatch),
		startAt:  make([]int32, asyncBatch),
	}
}

// reset empties b. The records keep pointers (Reason, Note, Steps) until
// they are overwritten: at most asyncBatch of them per batch.
func (b *obsBatch) reset() {
	b.nrec, b.nsmp, b.nst = 0, 0, 0
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
// Call Sync before reading the observer's state during a run (a
// checkpoint), and Close once the run is over, before reading its
// results; a panic in the observer is raised again by Sync or Close.
type Async struct {
	// list are the observers called in turn (an Observers' members, or
	// the one observer), samplers those of them that are sim.Samplers.
	list     Observers
	samplers []sim.Sampler
	starters []sim.Starter
	cur      *obsBatch
	full     chan *obsBatch
	free     chan *obsBatch
	done     chan struct{}
	failure  any // the observer's panic, with its stack
	closed   bool
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
	// An Observers is called member by member, and each sample goes
	// straight to the members that take samples, rather than asking every
	// observer at every sample.
	var ok bool
	if a.list, ok = obs.(Observers); !ok {
		a.list = Observers{obs}
	}
	for _, x := range a.list {
		if sp, ok := x.(sim.Sampler); ok {
			a.samplers = append(a.samplers, sp)
		}
		if st, ok := x.(sim.Starter); ok {
			a.starters = append(a.starters, st)
		}
	}
	for range asyncDepth + 1 {
		a.free <- newObsBatch()
	}
	a.cur = newObsBatch()
	go a.run()
	return a
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
	// Each sample after the records and starts before it, and each record
	// after the starts before it.
	r, k := 0, 0
	// A run has one sampler (a sim.Placer, or an Observers): it is called
	// directly, without a loop over the list at each of the samples, about
	// two per job.
	var sampler sim.Sampler
	if len(a.samplers) == 1 {
		sampler = a.samplers[0]
	}
	for i := 0; i <= b.nsmp; i++ {
		end, endSt := b.nrec, b.nst
		if i < b.nsmp {
			end, endSt = int(b.sampleAt[i]), int(b.sampleSt[i])
		}
		for ; r < end; r++ {
			for ; k < endSt && int(b.startAt[k]) <= r; k++ {
				a.deliverStart(b, k)
			}
			a.deliverRecord(b, r)
		}
		for ; k < endSt; k++ {
			a.deliverStart(b, k)
		}
		if i == b.nsmp {
			break
		}
		if sampler != nil {
			sampler.Sample(&b.samples[i])
			continue
		}
		for _, sp := range a.samplers {
			sp.Sample(&b.samples[i])
		}
	}
}

// deliverStart hands b's start k to the observers that are Starters.
func (a *Async) deliverStart(b *obsBatch, k int) {
	st := b.starts[k]
	for _, x := range a.starters {
		x.JobStarted(st.slot, st.procs)
	}
}

// deliverRecord hands b's record r to the observers.
func (a *Async) deliverRecord(b *obsBatch, r int) {
	rec := &b.recs[r]
	var from int32
	if r > 0 {
		from = b.allocEnd[r-1]
	}
	rec.Job = &b.jobs[r]
	rec.Alloc = b.allocs[from:b.allocEnd[r]:b.allocEnd[r]]
	if len(rec.Alloc) == 0 {
		rec.Alloc = nil
	}
	if len(a.list) == 1 { // a sim.Placer, most runs: no loop
		a.list[0].JobDone(rec)
		return
	}
	for _, x := range a.list {
		x.JobDone(rec)
	}
}

// JobDone copies r for the observer.
func (a *Async) JobDone(r *sim.Record) {
	b := a.cur
	n := b.nrec
	b.recs[n] = *r
	b.jobs[n] = *r.Job
	if len(r.Alloc) > 0 { // none under deferred placement: spare the call to memmove
		b.allocs = append(b.allocs, r.Alloc...)
	}
	b.allocEnd[n] = int32(len(b.allocs))
	if len(r.Steps) > 0 {
		steps := make([]sim.GrowStep, len(r.Steps))
		for i, st := range r.Steps {
			steps[i] = sim.GrowStep{At: st.At, Procs: st.Procs, Alloc: append([]cluster.Range(nil), st.Alloc...)}
		}
		b.recs[n].Steps = steps
	}
	b.nrec = n + 1
	if n+1+b.nsmp+b.nst >= asyncBatch {
		a.flush(nil)
	}
}

// JobStarted implements sim.Starter: the start is handed to the observers
// that are Starters, in order with the records.
func (a *Async) JobStarted(slot int32, procs int) {
	b := a.cur
	n := b.nst
	b.starts[n] = asyncStart{slot: slot, procs: procs}
	b.startAt[n] = int32(b.nrec)
	b.nst = n + 1
	if b.nrec+b.nsmp+n+1 >= asyncBatch {
		a.flush(nil)
	}
}

// Sample copies s for the observer.
func (a *Async) Sample(s *sim.Sample) {
	if len(a.samplers) == 0 {
		return
	}
	b := a.cur
	n := b.nsmp
	b.samples[n] = *s
	b.sampleAt[n], b.sampleSt[n] = int32(b.nrec), int32(b.nst)
	b.nsmp = n + 1
	if b.nrec+n+1+b.nst >= asyncBatch {
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

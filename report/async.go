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
	// sampleAt is, for each sample, how many of the batch's records came
	// before it.
	sampleAt []int32
	barrier  chan struct{} // closed once the items before it were handed on
}

func newObsBatch() *obsBatch {
	return &obsBatch{
		recs:     make([]sim.Record, asyncBatch),
		jobs:     make([]workload.Job, asyncBatch),
		allocEnd: make([]int32, asyncBatch),
		samples:  make([]sim.Sample, asyncBatch),
		sampleAt: make([]int32, asyncBatch),
	}
}

// reset empties b. The records keep pointers (Reason, Note, Steps) until
// they are overwritten: at most asyncBatch of them per batch.
func (b *obsBatch) reset() {
	b.nrec, b.nsmp = 0, 0
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
)

// NewAsync starts a goroutine that hands records and samples to obs (and
// samples only if obs is a sim.Sampler).
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
	r := 0
	for i, at := range b.sampleAt[:b.nsmp] {
		for ; r < int(at); r++ {
			a.deliverRecord(b, r)
		}
		for _, sp := range a.samplers {
			sp.Sample(&b.samples[i])
		}
	}
	for ; r < b.nrec; r++ {
		a.deliverRecord(b, r)
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
	b.allocs = append(b.allocs, r.Alloc...)
	b.allocEnd[n] = int32(len(b.allocs))
	if len(r.Steps) > 0 {
		steps := make([]sim.GrowStep, len(r.Steps))
		for i, st := range r.Steps {
			steps[i] = sim.GrowStep{At: st.At, Procs: st.Procs, Alloc: append([]cluster.Range(nil), st.Alloc...)}
		}
		b.recs[n].Steps = steps
	}
	b.nrec = n + 1
	if n+1+b.nsmp >= asyncBatch {
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
	b.sampleAt[n] = int32(b.nrec)
	b.nsmp = n + 1
	if b.nrec+n+1 >= asyncBatch {
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

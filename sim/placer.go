package sim

import (
	"fmt"

	"github.com/schedsim/schedsim/cluster"
)

// Processor numbers on the pool of processors do not change what the
// engine decides: a job starts when enough processors are free, whichever
// they are. Which ones a job gets (the first free ones, cluster.Machine)
// depends only on the order of the starts and ends. With
// Config.DeferPlacement the engine counts processors and leaves the
// numbering to a Placer, which replays that order behind it, usually on
// the observers' goroutine (report.Async): a run's records are the same,
// and the engine's goroutine does less.

// Starter is an optional interface of an Observer: with
// Config.DeferPlacement the engine calls JobStarted for every job it
// starts, in order with the records it gives JobDone.
type Starter interface {
	// JobStarted tells that a job started on procs processors; slot names
	// it until its record (Record.Slot) ends it.
	JobStarted(slot int32, procs int)
}

// Placer numbers the processors of a run whose engine deferred it
// (Config.DeferPlacement): it gives every record of a job that ran the
// processors the engine would have given it (Record.Alloc), and hands the
// record on to the observers behind it, in turn. Samples go on to those of
// them that take samples.
type Placer struct {
	m        *cluster.Machine
	held     [][]cluster.Range // by slot: the processors of the job running there
	next     []Observer
	samplers []Sampler // the members of next that are Samplers
}

var (
	_ Observer = (*Placer)(nil)
	_ Starter  = (*Placer)(nil)
	_ Sampler  = (*Placer)(nil)
)

// NewPlacer returns a Placer for a pool of procs processors (the run's
// Config.Procs) that hands records on to the observers next.
func NewPlacer(procs int, next ...Observer) *Placer {
	p := &Placer{m: cluster.NewMachine(procs), next: next}
	for _, x := range next {
		if sp, ok := x.(Sampler); ok {
			p.samplers = append(p.samplers, sp)
		}
	}
	return p
}

// JobStarted implements Starter: it takes the first procs free processors.
func (p *Placer) JobStarted(slot int32, procs int) {
	if slot < 0 {
		panic(fmt.Sprintf("sim: job started in slot %d", slot))
	}
	for int(slot) >= len(p.held) {
		p.held = append(p.held, nil)
	}
	if len(p.held[slot]) > 0 {
		panic(fmt.Sprintf("sim: job started in slot %d, which a running job holds", slot))
	}
	p.held[slot] = p.m.Alloc(procs, p.held[slot])
}

// JobDone implements Observer: a job that ran gets its processors, which
// are free again once the observer behind has seen the record.
func (p *Placer) JobDone(r *Record) {
	if !r.Deferred {
		p.hand(r)
		return
	}
	p.Place(r)
	p.hand(r)
	p.Release(r)
}

// Observers returns the observers the Placer hands the records on to, in
// order. A caller that hands records to them itself (report.Async, which
// calls each by its type) gives each record of a job that ran under
// deferred placement (Record.Deferred) its processors with Place first and
// frees them with Release after, as JobDone does.
func (p *Placer) Observers() []Observer { return p.next }

// Place gives r, the record of a job that ran under deferred placement
// (Record.Deferred), the processors the job ran on: it sets r.Alloc, which
// stays valid until Release(r), and clears r.Deferred. It panics if no job
// started in r's slot.
func (p *Placer) Place(r *Record) {
	if r.Slot < 0 || int(r.Slot) >= len(p.held) || len(p.held[r.Slot]) == 0 {
		panic(fmt.Sprintf("sim: job %d ended in slot %d, where no job started", r.Job.ID, r.Slot))
	}
	r.Alloc, r.Deferred = p.held[r.Slot], false
}

// Release frees the processors Place gave r, once every observer has seen
// it: the next job started in r's slot reuses the memory of r.Alloc.
func (p *Placer) Release(r *Record) {
	a := p.held[r.Slot]
	p.m.Release(a)
	p.held[r.Slot] = a[:0]
}

// hand gives r to the observers behind.
func (p *Placer) hand(r *Record) {
	for _, x := range p.next {
		x.JobDone(r)
	}
}

// Sample implements Sampler.
func (p *Placer) Sample(s *Sample) {
	for _, sp := range p.samplers {
		sp.Sample(s)
	}
}

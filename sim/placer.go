package sim

import (
	"fmt"
	"math/bits"

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

// Placer numbers the processors of a run whose engine deferred it
// (Config.DeferPlacement): it takes every EventStarted the engine sends
// (Event.Deferred), gives every record of a job that ran the processors the
// engine would have given it (Record.Alloc), and hands every event on to
// the observers behind it that want its kind, in turn.
type Placer struct {
	// pool numbers the processors of a pool of at most bitPoolMax of
	// them, m those of a larger one.
	pool *bitPool
	m    *cluster.Machine
	held []heldSlot // by slot
	next *fanout
}

var _ Observer = (*Placer)(nil)

// NewPlacer returns a Placer for a pool of procs processors (the run's
// Config.Procs) that hands events on to the observers next.
func NewPlacer(procs int, next ...Observer) *Placer {
	p := &Placer{next: newFanout(next...)}
	if procs <= bitPoolMax {
		p.pool = newBitPool(procs)
	} else {
		p.m = cluster.NewMachine(procs)
	}
	return p
}

// heldSlot is one of the engine's slots: the processors of the job
// running there (busy), or the memory of the last one's, which the next
// reuses.
type heldSlot struct {
	alloc []cluster.Range
	busy  bool
}

// Wants implements Observer: the starts and ends, and what the observers
// behind want.
func (p *Placer) Wants() Wants {
	w := p.next.Wants()
	w.Kinds |= KindsOf(EventStarted, EventEnded)
	return w
}

// Observe implements Observer: a deferred start takes the first free
// processors, a record of a job that ran under deferred placement gets
// its processors, free again once the observers behind have seen it.
func (p *Placer) Observe(e *Event) {
	switch e.Kind {
	case EventStarted:
		if e.Deferred {
			p.Start(e.Slot, e.Procs)
		}
	case EventEnded, EventRefused:
		if r := e.Record; r.Deferred {
			p.Place(r)
			p.next.Observe(e)
			p.Release(r)
			return
		}
	}
	p.next.Observe(e)
}

// Start tells that a job started, under deferred placement, on procs
// processors: it takes the first procs free ones. slot names the job
// until its record (Record.Slot) ends it.
func (p *Placer) Start(slot int32, procs int) {
	if uint(slot) >= uint(len(p.held)) {
		p.grow(slot)
	}
	h := &p.held[slot]
	if h.busy {
		panic(fmt.Sprintf("sim: job started in slot %d, which a running job holds", slot))
	}
	h.busy = true
	if procs == 0 {
		// A time-shared job that found no processor idle (sim.Config.Shared).
		h.alloc = h.alloc[:0]
	} else if p.pool != nil {
		h.alloc = p.pool.alloc(procs, h.alloc[:0])
	} else {
		h.alloc = p.m.Alloc(procs, h.alloc[:0])
	}
}

// grow makes room for slot, which must not be negative.
func (p *Placer) grow(slot int32) {
	if slot < 0 {
		panic(fmt.Sprintf("sim: job started in slot %d", slot))
	}
	for int(slot) >= len(p.held) {
		p.held = append(p.held, heldSlot{})
	}
}

// Observers returns the observers the Placer hands the events on to, in
// order. A caller that hands events to them itself (report.Async, on the
// observers' goroutine) tells the Placer of each deferred start with
// Start, and gives each record of a job that ran under deferred placement
// (Record.Deferred) its processors with Place first and frees them with
// Release after, as Observe does.
func (p *Placer) Observers() []Observer { return p.next.Observers() }

// Place gives r, the record of a job that ran under deferred placement
// (Record.Deferred), the processors the job ran on: it sets r.Alloc, which
// stays valid until Release(r), and clears r.Deferred. It panics if no job
// started in r's slot.
func (p *Placer) Place(r *Record) {
	if s := uint(r.Slot); s < uint(len(p.held)) && p.held[s].busy {
		r.Alloc, r.Deferred = p.held[s].alloc, false
		return
	}
	p.noJob(r)
}

// noJob panics: r ended in a slot where no job started. It is apart from
// Place so that Place, small, is inlined.
//
//go:noinline
func (p *Placer) noJob(r *Record) {
	panic(fmt.Sprintf("sim: job %d ended in slot %d, where no job started", r.Job.ID, r.Slot))
}

// Release frees the processors Place gave r, once every observer has seen
// it: the next job started in r's slot reuses the memory of r.Alloc.
func (p *Placer) Release(r *Record) {
	h := &p.held[r.Slot]
	if p.pool != nil {
		p.pool.release(h.alloc)
	} else {
		p.m.Release(h.alloc)
	}
	h.busy = false
}

// bitPoolMax is the largest pool of processors a Placer numbers with a
// bitPool (a variable: the tests lower it to check the other way).
var bitPoolMax = 64 * 64

// bitPool is a pool of processors as a bitmap, a bit per processor, set
// while it is free, with a bit per word of them, set while the word has
// a free processor. It gives the processors cluster.Machine gives, the
// lowest free numbers, as the same ranges (the runs of consecutive
// numbers among them), for a fraction of its work: a job's start takes
// the runs of the lowest words with free processors, its end sets its
// ranges' bits, where a Machine searches and moves its list of free
// ranges.
type bitPool struct {
	size, free int
	words      [64]uint64 // bit i of words[w]: processor 64w+i is free
	nonzero    uint64     // bit w: words[w] != 0
}

func newBitPool(size int) *bitPool {
	if size <= 0 || size > 64*64 {
		panic(fmt.Sprintf("sim: a bitPool of %d processors", size))
	}
	p := &bitPool{size: size}
	p.release([]cluster.Range{{Lo: 0, Hi: size}})
	return p
}

// alloc takes the n lowest free processors, appends their ranges to dst and
// returns it, as cluster.Machine.Alloc does. It panics if fewer than n are
// free: an over-allocation is a simulator bug.
//
// (Shift counts are masked with 63 where they are below 64 anyway: it
// spares the compiler's code for counts of 64 and more.)
func (p *bitPool) alloc(n int, dst []cluster.Range) []cluster.Range {
	if n <= 0 || n > p.free {
		panic(fmt.Sprintf("sim: allocating %d processors with %d free of %d", n, p.free, p.size))
	}
	p.free -= n
	// The run taken last, [lo, hi), is appended once the next one does
	// not continue it: a run can go on from one word to the next.
	lo, hi := -1, -1
	for n > 0 {
		w := bits.TrailingZeros64(p.nonzero) & 63 // a word with a free processor: n ≤ free
		x := p.words[w]
		for x != 0 && n > 0 {
			i := bits.TrailingZeros64(x) // x's lowest run is [i, j)
			y := x + x&-x                // x with that run carried past its end
			l := bits.TrailingZeros64(y) - i
			if l <= n {
				x &= y
				n -= l
			} else {
				x &^= (1<<uint(n&63) - 1) << uint(i&63)
				l, n = n, 0
			}
			if start := 64*w + i; start != hi {
				if hi >= 0 {
					dst = append(dst, cluster.Range{Lo: lo, Hi: hi})
				}
				lo, hi = start, start
			}
			hi += l
		}
		p.words[w] = x
		if x == 0 {
			p.nonzero &^= 1 << uint(w)
		}
	}
	return append(dst, cluster.Range{Lo: lo, Hi: hi})
}

// release returns the processors of rs, taken by alloc, a word at a
// time. It panics if a range is not within the pool or any of its
// processors is free.
func (p *bitPool) release(rs []cluster.Range) {
	for _, r := range rs {
		lo, hi := r.Lo, r.Hi
		if lo < 0 || hi > p.size || lo >= hi {
			panic(fmt.Sprintf("sim: releasing bad range %v of a %d-processor pool", r, p.size))
		}
		p.free += hi - lo
		for {
			w := lo >> 6 & 63
			m := ^uint64(0) << uint(lo&63) // bits lo%64 and up
			next := lo | 63 + 1            // the next word's first processor
			last := hi <= next             // the range ends within this word
			if last {
				m &= ^uint64(0) >> uint(-hi&63) // and below hi%64 (all if 0)
			}
			if p.words[w]&m != 0 {
				p.twice(lo, hi)
			}
			p.words[w] |= m
			p.nonzero |= 1 << uint(w)
			if last {
				break
			}
			lo = next
		}
	}
}

// twice panics: some of processors [lo, hi) are free already.
//
//go:noinline
func (p *bitPool) twice(lo, hi int) {
	panic(fmt.Sprintf("sim: releasing processors [%d, %d), some of them free", lo, hi))
}

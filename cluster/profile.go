package cluster

import (
	"fmt"
	"sort"

	"github.com/schedsim/schedsim/workload"
)

// Profile is an availability profile: how many processors are free at every
// future instant, as a step function. Reservations (Slurm's WILL_RUN, the
// backfill plan) are placed in it and taken out again.
//
// Steps are kept sorted; the last step lasts forever. Every operation costs
// O(number of steps).
type Profile struct {
	size  int
	steps []step
}

type step struct {
	at   workload.Time
	free int
}

// NewProfile returns a profile of size processors that are all free from
// time from onward.
func NewProfile(size int, from workload.Time) *Profile {
	p := &Profile{}
	p.Reset(size, from)
	return p
}

// Reset empties the profile: size processors, all free from time from.
// It keeps the allocated memory.
func (p *Profile) Reset(size int, from workload.Time) {
	p.size = size
	p.steps = append(p.steps[:0], step{from, size})
}

// Size returns the number of processors.
func (p *Profile) Size() int { return p.size }

// Start returns the time the profile starts at.
func (p *Profile) Start() workload.Time { return p.steps[0].at }

// Len returns the number of steps.
func (p *Profile) Len() int { return len(p.steps) }

// FreeAt returns the processors free at time t (t ≥ Start).
func (p *Profile) FreeAt(t workload.Time) int {
	return p.steps[p.find(t)].free
}

// find returns the index of the step holding t.
func (p *Profile) find(t workload.Time) int {
	i := sort.Search(len(p.steps), func(i int) bool { return p.steps[i].at > t })
	if i == 0 {
		panic(fmt.Sprintf("cluster: time %d before the profile's start %d", t, p.steps[0].at))
	}
	return i - 1
}

// split makes sure a step begins exactly at t and returns its index.
func (p *Profile) split(t workload.Time) int {
	i := p.find(t)
	if p.steps[i].at == t {
		return i
	}
	p.steps = append(p.steps, step{})
	copy(p.steps[i+2:], p.steps[i+1:])
	p.steps[i+1] = step{t, p.steps[i].free}
	return i + 1
}

// Add takes procs processors over [start, end) (end may be workload.Forever).
// Negative procs give processors back. It panics if the result would
// exceed the size. The free processors may fall below zero: time-shared
// jobs (sim.Config.Shared) hold more than the idle processors.
func (p *Profile) Add(start, end workload.Time, procs int) {
	if end <= start || procs == 0 {
		return
	}
	if start < p.steps[0].at {
		start = p.steps[0].at
	}
	i := p.split(start)
	k := len(p.steps)
	if end < workload.Forever {
		k = p.split(end)
	}
	for j := i; j < k; j++ {
		f := p.steps[j].free - procs
		if f > p.size {
			panic(fmt.Sprintf("cluster: profile step at %d would have %d free of %d", p.steps[j].at, f, p.size))
		}
		p.steps[j].free = f
	}
	// Merge equal neighbours around the changed range.
	lo := i - 1
	if lo < 0 {
		lo = 0
	}
	hi := k + 1
	if hi > len(p.steps) {
		hi = len(p.steps)
	}
	w := lo + 1
	for r := lo + 1; r < hi; r++ {
		if p.steps[r].free == p.steps[w-1].free {
			continue
		}
		p.steps[w] = p.steps[r]
		w++
	}
	if w < hi {
		p.steps = append(p.steps[:w], p.steps[hi:]...)
	}
}

// Remove gives back procs processors over [start, end): the inverse of Add.
func (p *Profile) Remove(start, end workload.Time, procs int) { p.Add(start, end, -procs) }

// Earliest returns the earliest time t ≥ from at which procs processors are
// free during all of [t, t+dur) (dur may be workload.Forever). It returns
// workload.Forever if there is none (procs > Size).
func (p *Profile) Earliest(from workload.Time, procs int, dur workload.Time) workload.Time {
	return p.EarliestBefore(from, procs, dur, workload.Forever, workload.Forever, 0)
}

// EarliestBefore is, for a reservation of own processors over
// [ownStart, ownEnd) that the profile holds, the earliest start before
// ownStart of procs processors for dur with that reservation given back
// (as Remove and Earliest would find it), or workload.Forever if there is
// none. It changes nothing: a plan that cannot move earlier costs one
// walk, not a Remove, a walk and an Add.
//
// A step that begins before ownStart is read as it is: a run that starts
// before ownStart meets the part of it before ownStart, where the
// reservation adds nothing, and own only adds. A step that begins within
// [ownStart, ownEnd) gets own back, unless it runs past ownEnd and so does
// the run.
func (p *Profile) EarliestBefore(from workload.Time, procs int, dur, ownStart, ownEnd workload.Time, own int) workload.Time {
	if procs > p.size {
		return workload.Forever
	}
	if from < p.steps[0].at {
		from = p.steps[0].at
	}
	steps := p.steps
	n := len(steps)
	i := p.find(from)
	for i < n {
		if steps[i].free < procs {
			i++
			continue
		}
		start := max(steps[i].at, from)
		if start >= ownStart {
			return workload.Forever
		}
		end := workload.Forever
		if dur < workload.Forever-start {
			end = start + dur
		}
		// Check every step that begins before end.
		j := i + 1
		for ; j < n && steps[j].at < end; j++ {
			f := steps[j].free
			if at := steps[j].at; at >= ownStart && at < ownEnd && (end <= ownEnd || (j+1 < n && steps[j+1].at <= ownEnd)) {
				f += own
			}
			if f < procs {
				break
			}
		}
		if j == n || steps[j].at >= end {
			return start
		}
		i = j + 1
	}
	return workload.Forever
}

// Reader reads a profile forward in time: each At asks for an instant no
// earlier than the last one asked, and costs O(1) when it is in the same
// step or the next one (a binary search over the rest otherwise), where
// FreeAt and NextChange each search the whole profile. The profile must
// not change while it is read.
type Reader struct {
	steps []step
	i     int
}

// ReaderFrom returns a Reader at time t (t ≥ Start).
func (p *Profile) ReaderFrom(t workload.Time) Reader {
	return Reader{steps: p.steps, i: p.find(t)}
}

// At returns the processors free at u and the first time after u at which
// they may change (workload.Forever if none), as FreeAt and NextChange do.
// u must not be before the instant the last call (or ReaderFrom) asked.
func (r *Reader) At(u workload.Time) (free int, next workload.Time) {
	st, n := r.steps, len(r.steps)
	if i := r.i; i+1 < n && u >= st[i+1].at {
		if i+2 >= n || u < st[i+2].at {
			r.i = i + 1
		} else {
			// The last step at or before u: galloping from i+2, as a
			// walk mostly moves a few steps on, then a binary search.
			lo, hi, d := i+2, i+3, 1
			for hi < n && st[hi].at <= u {
				lo, d = hi, d*2
				hi = min(lo+d, n)
			}
			for lo+1 < hi {
				m := int(uint(lo+hi) >> 1)
				if st[m].at <= u {
					lo = m
				} else {
					hi = m
				}
			}
			r.i = lo
		}
	}
	if r.i+1 < n {
		return st[r.i].free, st[r.i+1].at
	}
	return st[r.i].free, workload.Forever
}

// CopyFrom makes p a copy of q, reusing p's memory.
func (p *Profile) CopyFrom(q *Profile) {
	p.size = q.size
	p.steps = append(p.steps[:0], q.steps...)
}

// SameFrom reports whether p and q have the same size and the same free
// processors at every instant from p's start on (q may start earlier).
func (p *Profile) SameFrom(q *Profile) bool {
	if p.size != q.size || len(q.steps) == 0 {
		return false
	}
	t := p.steps[0].at
	if t < q.steps[0].at {
		return false
	}
	i := q.find(t)
	if q.steps[i].free != p.steps[0].free || len(q.steps)-i != len(p.steps) {
		return false
	}
	for k := 1; k < len(p.steps); k++ {
		if q.steps[i+k] != p.steps[k] {
			return false
		}
	}
	return true
}

// Fits reports whether procs processors are free during all of [start, start+dur).
func (p *Profile) Fits(start workload.Time, procs int, dur workload.Time) bool {
	return p.Earliest(start, procs, dur) == start
}

// Advance moves the profile's start to t, forgetting the past. Times before
// the start cannot be queried or changed afterwards.
func (p *Profile) Advance(t workload.Time) {
	if t <= p.steps[0].at {
		return
	}
	i := p.find(t)
	if i > 0 {
		p.steps = append(p.steps[:0], p.steps[i:]...)
	}
	p.steps[0].at = t
}

// Release records that procs processors become free at time at, for
// building a profile from running jobs in order of their (predicted) ends:
// at must not be earlier than any step so far. The processors must be taken
// from the start, e.g. with Reset followed by Add(Start(), Forever, n).
func (p *Profile) Release(at workload.Time, procs int) {
	last := &p.steps[len(p.steps)-1]
	if at < last.at {
		panic(fmt.Sprintf("cluster: release at %d before the last step at %d", at, last.at))
	}
	f := last.free + procs
	if f > p.size {
		panic(fmt.Sprintf("cluster: release of %d at %d makes %d free of %d", procs, at, f, p.size))
	}
	if at >= workload.Forever {
		return
	}
	if at == last.at {
		last.free = f
		if n := len(p.steps); n > 1 && p.steps[n-2].free == f {
			p.steps = p.steps[:n-1]
		}
		return
	}
	p.steps = append(p.steps, step{at, f})
}

// MaxFree returns the largest number of processors free at any instant of
// [from, to); 0 if the interval is empty.
func (p *Profile) MaxFree(from, to workload.Time) int {
	if from < p.steps[0].at {
		from = p.steps[0].at
	}
	if to <= from {
		return 0
	}
	m := 0
	for i := p.find(from); i < len(p.steps) && p.steps[i].at < to; i++ {
		if f := p.steps[i].free; f > m {
			m = f
		}
	}
	return m
}

// NextChange returns the first time after t at which the number of free
// processors may change (a step begins), or workload.Forever if none does.
func (p *Profile) NextChange(t workload.Time) workload.Time {
	i := sort.Search(len(p.steps), func(i int) bool { return p.steps[i].at > t })
	if i == len(p.steps) {
		return workload.Forever
	}
	return p.steps[i].at
}

// LastChange returns the time the last step begins: from it on the free
// processors no longer change (NextChange(t) is workload.Forever exactly
// when t ≥ LastChange()).
func (p *Profile) LastChange() workload.Time { return p.steps[len(p.steps)-1].at }

// MinFree returns the smallest number of processors free at any instant of
// [from, to); Size if the interval is empty.
func (p *Profile) MinFree(from, to workload.Time) int {
	if from < p.steps[0].at {
		from = p.steps[0].at
	}
	m := p.size
	if to <= from {
		return m
	}
	for i := p.find(from); i < len(p.steps) && p.steps[i].at < to; i++ {
		if f := p.steps[i].free; f < m {
			m = f
		}
	}
	return m
}

package sim

import (
	"math"
	"math/bits"
)

// roomIndex counts the queued jobs by the processors they ask for, so that
// the engine can tell at once whether any of them fits the free processors:
// when none does, a policy that is a fastpath.RoomBound starts nothing, and
// the pass after an end can be skipped.
//
// The engine rejects requests above the machine's size, and no job asks
// for fewer than one processor; slot clamps requests to that range anyway,
// so that every job has its count.
type roomIndex struct {
	count []int32  // count[p]: queued jobs that ask for p processors
	some  []uint64 // bit p: count[p] > 0
	low   int      // the smallest request queued, math.MaxInt with none
}

// reset sizes the index for a machine of size processors, with no job.
func (x *roomIndex) reset(size int) {
	x.count = make([]int32, size+1)
	x.some = make([]uint64, (size+64)/64)
	x.low = math.MaxInt
}

// slot returns the count a request of p processors goes in.
func (x *roomIndex) slot(p int) int { return min(max(p, 1), len(x.count)-1) }

// add counts a job asking for p processors.
func (x *roomIndex) add(p int) {
	k := x.slot(p)
	if x.count[k]++; x.count[k] == 1 {
		x.some[k>>6] |= 1 << (k & 63)
		x.low = min(x.low, k)
	}
}

// remove forgets a job asking for p processors. When it was the last of
// the smallest requests, the next one is found a word of counts at a time.
func (x *roomIndex) remove(p int) {
	k := x.slot(p)
	if x.count[k]--; x.count[k] > 0 {
		return
	}
	x.some[k>>6] &^= 1 << (k & 63)
	if k != x.low {
		return
	}
	for w := k >> 6; w < len(x.some); w++ {
		if m := x.some[w]; m != 0 {
			x.low = w<<6 + bits.TrailingZeros64(m)
			return
		}
	}
	x.low = math.MaxInt
}

// anyFits reports whether a queued job asks for at most free processors.
func (x *roomIndex) anyFits(free int) bool { return x.low <= free }

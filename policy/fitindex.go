package policy

import (
	"math"

	"github.com/schedsim/schedsim/workload"
)

// arrivalOrdered is implemented by a View whose queue is in submission order
// (Job(i).Seq increases with i), as the engine's is. Wrappers that reorder
// or hide jobs do not implement it.
type arrivalOrdered interface {
	ArrivalOrder() bool
}

// fitIndex lets EASY find backfill candidates without walking the queue.
// Under overload the queue holds thousands of jobs and a pass happens at
// every job end; walking the window each time made a run quadratic.
//
// It is a segment tree over the queued jobs' sequence numbers (their
// positions in arrival order), keeping at each node the smallest processor
// count and the smallest estimate below it. A job without an estimate, and
// a position with no queued job, hold +∞: they are never backfilled.
type fitIndex struct {
	base  int64   // Seq of leaf 0
	n     int     // leaves; a power of two
	procs []int32 // 2n nodes: minimum processors (node 1 is the root)
	est   []int64 // 2n nodes: minimum estimate
	tail  int64   // largest Seq inserted, -1 before any
}

const (
	noProcs = math.MaxInt32
	noEst   = math.MaxInt64
)

func (x *fitIndex) reset() {
	x.base, x.n, x.tail = 0, 0, -1
	x.procs, x.est = x.procs[:0], x.est[:0]
}

// add records queued job j, whose Seq is larger than any added before.
// lowLive is the smallest Seq still queued: the index may drop everything
// below it when it needs room.
func (x *fitIndex) add(j *workload.Job, lowLive int64) {
	x.ensure(j.Seq, lowLive)
	p, e := int32(j.Procs), int64(j.Estimate)
	if j.Estimate <= 0 || j.Procs > noProcs-1 {
		p, e = noProcs, noEst
	}
	x.set(j.Seq, p, e)
	x.tail = j.Seq
}

// remove forgets the job with this Seq (started, or gone from the queue).
func (x *fitIndex) remove(seq int64) {
	if seq >= x.base && seq < x.base+int64(x.n) {
		x.set(seq, noProcs, noEst)
	}
}

func (x *fitIndex) set(seq int64, p int32, e int64) {
	i := int(seq-x.base) + x.n
	x.procs[i], x.est[i] = p, e
	for i >>= 1; i > 0; i >>= 1 {
		l, r := 2*i, 2*i+1
		x.procs[i] = min(x.procs[l], x.procs[r])
		x.est[i] = min(x.est[l], x.est[r])
	}
}

// ensure makes room for leaf seq, moving the base up to lowLive and
// doubling the leaves as needed.
func (x *fitIndex) ensure(seq, lowLive int64) {
	if x.n > 0 && seq >= x.base && seq < x.base+int64(x.n) {
		return
	}
	base := min(lowLive, seq)
	if x.n > 0 {
		base = max(base, x.base) // never move below positions already kept
	}
	n := max(x.n, 1024)
	for seq-base >= int64(n)/2 { // at most half full: rebuilds stay rare
		n *= 2
	}
	procs := make([]int32, 2*n)
	est := make([]int64, 2*n)
	for i := range procs {
		procs[i], est[i] = noProcs, noEst
	}
	for s := max(base, x.base); x.n > 0 && s < x.base+int64(x.n) && s < base+int64(n); s++ {
		procs[int(s-base)+n] = x.procs[int(s-x.base)+x.n]
		est[int(s-base)+n] = x.est[int(s-x.base)+x.n]
	}
	for i := n - 1; i > 0; i-- {
		procs[i] = min(procs[2*i], procs[2*i+1])
		est[i] = min(est[2*i], est[2*i+1])
	}
	x.base, x.n, x.procs, x.est = base, n, procs, est
}

// first returns the smallest Seq in [lo, hi] of a job that may be backfilled:
// procs ≤ free, and procs ≤ lim or estimate ≤ horizon. It returns -1 if
// there is none.
func (x *fitIndex) first(lo, hi int64, free, lim int32, horizon int64) int64 {
	if x.n == 0 {
		return -1
	}
	lo, hi = max(lo, x.base), min(hi, x.base+int64(x.n)-1)
	if lo > hi {
		return -1
	}
	return x.search(1, x.base, x.base+int64(x.n)-1, lo, hi, free, lim, horizon)
}

func (x *fitIndex) search(node int, nlo, nhi, lo, hi int64, free, lim int32, horizon int64) int64 {
	if nhi < lo || nlo > hi {
		return -1
	}
	p := x.procs[node]
	if p > free || (p > lim && x.est[node] > horizon) {
		return -1 // nothing below can be backfilled
	}
	if nlo == nhi {
		return nlo // a leaf: the test above is exact
	}
	mid := nlo + (nhi-nlo)/2
	if s := x.search(2*node, nlo, mid, lo, hi, free, lim, horizon); s >= 0 {
		return s
	}
	return x.search(2*node+1, mid+1, nhi, lo, hi, free, lim, horizon)
}

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
	base  int64     // Seq of leaf 0
	n     int       // leaves; a power of two
	nodes []fitNode // 2n nodes (node 1 is the root)
	tail  int64     // largest Seq inserted, -1 before any
}

// fitNode is one node of a fitIndex. Both minimums sit together: a search
// reads them at once, from one cache line. Eight bytes a node: under
// overload the tree spans megabytes and a search is bound by the memory
// it reads, so estimates are kept in 32 bits (see clampEst).
type fitNode struct {
	est   int32 // minimum estimate, clamped (clampEst)
	procs int32 // minimum processors
}

// merge returns the node above a and b.
func merge(a, b fitNode) fitNode {
	return fitNode{est: min(a.est, b.est), procs: min(a.procs, b.procs)}
}

var emptyNode = fitNode{est: noEst, procs: noProcs}

const (
	noProcs = math.MaxInt32
	noEst   = math.MaxInt32
)

// clampEst is an estimate or a horizon in the 32 bits of a fitNode: values
// of 2^31 − 2 seconds (68 years) or more become 2^31 − 2. Only the test
// "estimate ≤ horizon" reads them, and clamping both sides can only make
// it pass more often: the index may then offer a job that cannot start
// (with such an estimate and a horizon beyond 68 years), which backfill
// turns down, as it checks every job it is offered; it never hides one
// that can.
func clampEst(v int64) int32 {
	return int32(max(min(v, math.MaxInt32-1), math.MinInt32))
}

func (x *fitIndex) reset() {
	x.base, x.n, x.tail = 0, 0, -1
	x.nodes = x.nodes[:0]
}

// add records queued job j, whose Seq is larger than any added before.
// lowLive is the smallest Seq still queued: the index may drop everything
// below it when it needs room.
func (x *fitIndex) add(j *workload.Job, lowLive int64) {
	x.ensure(j.Seq, lowLive)
	p, e := int32(j.Procs), clampEst(int64(j.Estimate))
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

// set stores leaf seq and brings the nodes above it up to date. It stops
// at the first node that does not change, since the ones above it do not
// either: adding a job rarely lowers a minimum far up, and removing one
// rarely removes it.
func (x *fitIndex) set(seq int64, p int32, e int32) {
	i := int(seq-x.base) + x.n
	nodes := x.nodes
	nodes[i] = fitNode{est: e, procs: p}
	for i >>= 1; i > 0; i >>= 1 {
		nd := merge(nodes[2*i], nodes[2*i+1])
		if nodes[i] == nd {
			return
		}
		nodes[i] = nd
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
	nodes := make([]fitNode, 2*n)
	for i := range nodes {
		nodes[i] = emptyNode
	}
	for s := max(base, x.base); x.n > 0 && s < x.base+int64(x.n) && s < base+int64(n); s++ {
		nodes[int(s-base)+n] = x.nodes[int(s-x.base)+x.n]
	}
	for i := n - 1; i > 0; i-- {
		nodes[i] = merge(nodes[2*i], nodes[2*i+1])
	}
	x.base, x.n, x.nodes = base, n, nodes
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
	return x.search(1, x.base, x.base+int64(x.n)-1, lo, hi, free, lim, clampEst(horizon))
}

func (x *fitIndex) search(node int, nlo, nhi, lo, hi int64, free, lim int32, horizon int32) int64 {
	if nhi < lo || nlo > hi {
		return -1
	}
	if nd := &x.nodes[node]; nd.procs > free || (nd.procs > lim && nd.est > horizon) {
		return -1 // nothing below can be backfilled
	}
	if nlo == nhi {
		return nlo // a leaf: the test above is exact (but for clampEst)
	}
	mid := nlo + (nhi-nlo)/2
	if s := x.search(2*node, nlo, mid, lo, hi, free, lim, horizon); s >= 0 {
		return s
	}
	return x.search(2*node+1, mid+1, nhi, lo, hi, free, lim, horizon)
}

// idxMiss records an indexed backfill pass that ended because no job in
// the window, up to Seq hi, could start with free processors, extra of them
// usable past the head's shadow time, at that shadow time.
//
// Whether a job may be backfilled only gets harder as free, extra and the
// time left before the shadow shrink (processors ≤ free, and processors ≤
// min(free, extra) or estimate ≤ shadow − now). So when the next pass has
// the same head, no job ended or started since (the same free and extra,
// and the same shadow, while now only moved on), every job up to hi still
// cannot start: the pass needs to look only at the jobs that joined since.
// Under overload with arrivals between the ends this skips about half the
// searches over a queue of thousands.
type idxMiss struct {
	valid       bool
	head        int64 // Seq of the head
	free, extra int
	shadow      workload.Time
	hi          int64 // the last Seq searched
}

// firstAny returns the smallest Seq of a job anywhere in the index that
// may be backfilled (as first does), or -1. Without a range to keep to, it
// goes down from the root to the leftmost node that passes the test, and
// climbs back only where a node passed without any job below passing
// (its minimums came from different jobs).
func (x *fitIndex) firstAny(free, lim int32, h int64) int64 {
	if x.n == 0 {
		return -1
	}
	horizon := clampEst(h)
	nodes := x.nodes
	if nd := &nodes[1]; nd.procs > free || (nd.procs > lim && nd.est > horizon) {
		return -1
	}
	i := 1
	for i < x.n {
		if nd := &nodes[2*i]; nd.procs <= free && (nd.procs <= lim || nd.est <= horizon) {
			i = 2 * i
			continue
		}
		if nd := &nodes[2*i+1]; nd.procs <= free && (nd.procs <= lim || nd.est <= horizon) {
			i = 2*i + 1
			continue
		}
		// Nothing below i passes: on to the right sibling of the nearest
		// left child on the way up whose sibling passes.
		for {
			if i == 1 {
				return -1
			}
			if i&1 == 0 {
				if nd := &nodes[i+1]; nd.procs <= free && (nd.procs <= lim || nd.est <= horizon) {
					i++
					break
				}
			}
			i >>= 1
		}
	}
	return x.base + int64(i-x.n)
}

package sim

import (
	"cmp"
	"slices"
	"sort"

	"github.com/schedsim/schedsim/workload"
)

// onceIndexCap bounds the entries onceIndex keeps for the reservations
// that admit some jobs (one per such reservation and segment it is
// active in): past it, those reservations stay with the walk over every
// reservation (constraints.loop), and only those that admit no job
// (whose processors are a sum per segment) are indexed. A variable, so
// that a test can reach that case.
var onceIndexCap = 1 << 22

// onceIndex answers constraints.withheld for the one-off reservations
// that hold a count of processors (no nodes): their occurrences, swept
// into segments over which the set of active reservations does not
// change, so that a question costs a binary search and the reservations
// active then, not a look at every reservation. A machine's calendar of
// past maintenance and project reservations holds thousands of them;
// walked one by one at every instant of every plan, they made a run's
// cost grow with their square.
type onceIndex struct {
	// at are the segments' first instants, in order: segment k is
	// [at[k], at[k+1]) (the last one ends at Forever), and before at[0]
	// no indexed reservation is active. They are every boundary (start
	// and end) of an indexed reservation, as recurrence.at gives them.
	at []workload.Time
	// maint[k] is the processors segment k's active reservations that
	// admit no job (Reservation.Maint) hold.
	maint []int
	// ids[off[k]:off[k+1]] are segment k's active reservations that
	// admit some jobs (indices into Constraints.Reservations).
	off []int32
	ids []int32
	// hint is the segment of the last answer: questions come back near
	// it (the clock only moves on, and walks go forward).
	hint int
}

// newOnceIndex indexes the reservations of rs named by which, each
// holding pr[k] processors; it returns nil for none. The reservations
// that admit some jobs are indexed only if their entries stay within
// onceIndexCap: else newOnceIndex leaves them out and returns them
// (rest) for the walk.
func newOnceIndex(rs []Reservation, pr []int, which []int) (x *onceIndex, rest []int) {
	if len(which) == 0 {
		return nil, nil
	}
	type edge struct {
		t     workload.Time
		id    int32
		start bool
	}
	edges := make([]edge, 0, 2*len(which))
	for _, k := range which {
		r := &rs[k]
		edges = append(edges, edge{r.Start, int32(k), true}, edge{r.Start + r.Duration, int32(k), false})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	x = &onceIndex{}
	var active []int32 // admitting some jobs, in index order
	maint := 0
	entries := 0
	withAdmitting := true
	for i := 0; i < len(edges); {
		t := edges[i].t
		for ; i < len(edges) && edges[i].t == t; i++ {
			e := edges[i]
			r := &rs[e.id]
			switch {
			case r.Maint && e.start:
				maint += pr[e.id]
			case r.Maint:
				maint -= pr[e.id]
			case e.start:
				k, _ := slices.BinarySearch(active, e.id)
				active = slices.Insert(active, k, e.id)
			default:
				if k, ok := slices.BinarySearch(active, e.id); ok {
					active = slices.Delete(active, k, k+1)
				}
			}
		}
		x.at = append(x.at, t)
		x.maint = append(x.maint, maint)
		x.off = append(x.off, int32(len(x.ids)))
		if withAdmitting {
			entries += len(active)
			if entries > onceIndexCap {
				withAdmitting = false
				x.ids = nil
			} else {
				x.ids = append(x.ids, active...)
			}
		}
	}
	if !withAdmitting {
		// Too many: the reservations admitting some jobs go to the walk,
		// the index keeps the sums.
		for _, k := range which {
			if !rs[k].Maint {
				rest = append(rest, k)
			}
		}
		for k := range x.off {
			x.off[k] = 0
		}
	}
	x.off = append(x.off, int32(len(x.ids)))
	return x, rest
}

// withheld returns the processors the indexed reservations active at t
// that job j may not use hold, and the next instant after t at which one
// of them begins or ends (Forever: none).
func (x *onceIndex) withheld(rs []Reservation, pr []int, j *workload.Job, t workload.Time) (int, workload.Time) {
	k, next := x.segment(t)
	if k < 0 {
		return 0, next
	}
	held := x.maint[k]
	for _, id := range x.ids[x.off[k]:x.off[k+1]] {
		if !rs[id].Admits(j) {
			held += pr[id]
		}
	}
	return held, next
}

// admittingAt returns the indexed reservations that admit some jobs
// active at t, in the scenario's order (none when the cap left them to
// the walk), and the next instant after t at which an indexed
// reservation begins or ends.
func (x *onceIndex) admittingAt(t workload.Time) ([]int32, workload.Time) {
	k, next := x.segment(t)
	if k < 0 {
		return nil, next
	}
	return x.ids[x.off[k]:x.off[k+1]], next
}

// segment returns the segment holding t (−1: before the first) and the
// next boundary after t.
func (x *onceIndex) segment(t workload.Time) (int, workload.Time) {
	k := x.hint
	if !(k < len(x.at) && x.at[k] <= t && (k+1 == len(x.at) || t < x.at[k+1])) {
		if k+1 < len(x.at) && x.at[k+1] <= t && (k+2 == len(x.at) || t < x.at[k+2]) {
			k++
		} else {
			k = sort.Search(len(x.at), func(i int) bool { return x.at[i] > t }) - 1
		}
	}
	if k < 0 {
		return -1, x.at[0]
	}
	x.hint = k
	next := workload.Forever
	if k+1 < len(x.at) {
		next = x.at[k+1]
	}
	return k, next
}

// nextAfter returns the first boundary of an indexed reservation after
// t (Forever: none).
func (x *onceIndex) nextAfter(t workload.Time) workload.Time {
	if k := sort.Search(len(x.at), func(i int) bool { return x.at[i] > t }); k < len(x.at) {
		return x.at[k]
	}
	return workload.Forever
}

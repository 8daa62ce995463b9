package report

import "math/bits"

// A run's summary needs every class's wait and bounded-slowdown percentiles
// and its mean summed in ascending order, so it needs the values sorted.
// Sorting a million of them once the engine has finished puts that work on
// the run's critical path, while Metrics.JobDone runs on the observers'
// goroutine beside the engine, which has time to spare. So Metrics keeps
// each value as a column of keys: the keys at the column's floor (a wait of
// 0, a slowdown of 1; often most of them) are only counted per cell, the
// others fill runs of runLen keys, each radix-sorted as soon as it is full,
// and Summary merely sorts the last, partial run and merges them all.

// numCells counts the size × runtime cells a job falls in.
const numCells = NumSizeClasses * NumRuntimeClasses

// A kept key is stored packed with its job's cell, as (key − floor) <<
// tagBits | cell: packed keys sort by key first, and a sort or a merge
// moves one word per value instead of a key and a tag.
const (
	tagBits = 5
	tagMask = 1<<tagBits - 1
	// packLimit bounds key − floor for a key to be packed. Waits and
	// slowdowns stay far below it (a wait of 2⁵⁹ s, a slowdown's float
	// bits 2⁵⁹ above those of 1, a slowdown of about 2¹²⁸); those above
	// it are kept apart, unpacked.
	packLimit = 1 << (64 - tagBits)
)

// runLen is how many packed keys a column's full run holds. They (0.5 MB)
// fit in a core's second-level cache while they are sorted, and a million
// jobs make about ten runs per column, which a merge of four comparisons
// per key puts in order. Twice or half as long did no better for a
// million jobs; a trace of 122,000 sorts one run as it goes, or none.
const runLen = 1 << 16

// mergeBlock is how many keys a merge hands over at a time.
const mergeBlock = 1024

// column is one per-job value of the jobs that ran (the waits, or the
// bounded slowdowns) as keys that sort as the values do, each tagged with
// its job's cell. Every key is at least the column's floor, the smallest
// value it can hold.
type column struct {
	// atFloor counts, per cell, the keys equal to the floor, which are
	// not kept.
	atFloor [numCells]int64
	// runs are full runs of packed keys, each sorted ascending.
	runs [][]uint64
	// cur is the run being filled, in report order.
	cur []uint64
	// wide are the keys too far above the floor to pack, in report order.
	// They are larger than every packed key.
	wide keyRun
	// runLen is how many keys make a full run; 0 means the package's
	// runLen (tests set less, to cross run boundaries with few jobs).
	runLen int
}

// keyRun is a sequence of keys with, for each, the cell of its job.
type keyRun struct {
	keys []uint64
	tags []uint8
}

func (c *column) limit() int {
	if c.runLen > 0 {
		return c.runLen
	}
	return runLen
}

// add records key (≥ floor), of a job in cell, for a column whose floor is
// floor.
func (c *column) add(key, floor uint64, cell uint8) {
	if key == floor {
		c.atFloor[cell]++
		return
	}
	d := key - floor
	if d >= packLimit {
		c.wide.keys = append(c.wide.keys, key)
		c.wide.tags = append(c.wide.tags, cell)
		return
	}
	if len(c.cur) == cap(c.cur) {
		// The first run grows by doubling from a small size, so that a
		// small trace takes little memory; later ones are made full size.
		c.cur = append(make([]uint64, 0, min(max(2*len(c.cur), 1024), c.limit())), c.cur...)
	}
	c.cur = append(c.cur, d<<tagBits|uint64(cell))
	if len(c.cur) == c.limit() {
		c.seal()
	}
}

// seal sorts the full current run, keeps it and starts the next, which
// the sort uses as its scratch first.
func (c *column) seal() {
	next := make([]uint64, len(c.cur))
	radixSort(c.cur, next)
	c.runs = append(c.runs, c.cur)
	c.cur = next[:0]
}

// each calls f with every key the column keeps and its cell, in no
// particular order, for a column whose floor is floor.
func (c *column) each(floor uint64, f func(key uint64, cell uint8)) {
	for _, r := range append(c.runs[:len(c.runs):len(c.runs)], c.cur) {
		for _, k := range r {
			f(k>>tagBits+floor, uint8(k&tagMask))
		}
	}
	for i, k := range c.wide.keys {
		f(k, c.wide.tags[i])
	}
}

// floors returns how many keys are at the column's floor.
func (c *column) floors() int64 {
	var n int64
	for _, k := range c.atFloor {
		n += k
	}
	return n
}

// sorted calls packed with the column's packed keys in ascending order, a
// block at a time, then returns the wide keys sorted, with their tags. It
// leaves the column as it is: it sorts copies of the current run and of
// the wide keys. packed must not keep or change the block.
func (c *column) sorted(packed func(keys []uint64)) keyRun {
	runs := c.runs
	if n := len(c.cur); n > 0 {
		buf := make([]uint64, 2*n)
		last := buf[:n]
		copy(last, c.cur)
		radixSort(last, buf[n:])
		runs = append(runs[:len(runs):len(runs)], last)
	}
	mergeRuns(runs, packed)
	n := len(c.wide.keys)
	wide := keyRun{make([]uint64, n), make([]uint8, n)}
	copy(wide.keys, c.wide.keys)
	copy(wide.tags, c.wide.tags)
	radixSortTagged(wide.keys, wide.tags, make([]uint64, n), make([]uint8, n))
	return wide
}

// mergeRuns calls emit with the keys of runs, each sorted ascending, in
// ascending order, in blocks of at most mergeBlock keys.
//
// It is a tournament of losers: tree[1:k] hold, for each match of a
// complete binary tree over the k runs' heads (leaf k+i is run i), the run
// that lost it; the overall winner's head is the smallest key. Taking it
// replays only the matches on its run's path to the root. When a run runs
// out, the tree is rebuilt without it, which happens once per run.
func mergeRuns(runs [][]uint64, emit func(keys []uint64)) {
	var live [][]uint64
	for _, r := range runs {
		if len(r) > 0 {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return
	}
	out := make([]uint64, mergeBlock)
	o := 0
	head := make([]uint64, len(live)) // each live run's smallest key not taken
	pos := make([]int, len(live))     // and its position
	tree := make([]int, len(live))
	winners := make([]int, 2*len(live))
	for i, r := range live {
		head[i] = r[0]
	}
	for len(live) > 1 {
		k := len(live)
		for i := range k {
			winners[k+i] = i
		}
		for node := k - 1; node > 0; node-- {
			a, b := winners[2*node], winners[2*node+1]
			if head[b] < head[a] {
				a, b = b, a
			}
			winners[node], tree[node] = a, b
		}
		w := winners[1]
		for {
			p := pos[w]
			out[o] = head[w]
			if o++; o == mergeBlock {
				emit(out)
				o = 0
			}
			if p++; p == len(live[w]) {
				break
			}
			hw := live[w][p]
			pos[w], head[w] = p, hw
			// Which of two heads is smaller is a coin toss a branch
			// predictor gets wrong half the time: select without a branch.
			for node := (w + k) >> 1; node > 0; node >>= 1 {
				l := tree[node]
				hl := head[l]
				_, less := bits.Sub64(hl, hw, 0) // 1 if hl < hw
				mask := -less                    // then all ones
				nw := w ^ (w^l)&int(mask)
				tree[node] = w ^ l ^ nw // the other one
				w, hw = nw, hw^(hw^hl)&mask
			}
		}
		// Run w is spent: drop it, keeping the others' places in order.
		live = append(live[:w], live[w+1:]...)
		head = append(head[:w], head[w+1:]...)
		pos = append(pos[:w], pos[w+1:]...)
	}
	if o > 0 {
		emit(out[:o])
	}
	// The last run's rest needs no merging: hand it over where it is.
	r, p := live[0], pos[0]
	for p < len(r) {
		e := min(p+mergeBlock, len(r))
		emit(r[p:e])
		p = e
	}
}

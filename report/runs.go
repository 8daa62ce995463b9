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

// runLen is how many keys a column's full run holds. Its keys and tags
// (9 bytes each, about 0.6 MB) fit in a core's cache while they are
// sorted, and a million jobs make a few tens of runs, which a merge of
// four or five comparisons per key puts in order.
const runLen = 1 << 16

// mergeBlock is how many keys a merge hands over at a time.
const mergeBlock = 1024

// keyRun is a sequence of keys with, for each, the cell of its job.
type keyRun struct {
	keys []uint64
	tags []uint8
}

// column is one per-job value of the jobs that ran (the waits, or the
// bounded slowdowns) as keys that sort as the values do, each tagged with
// its job's cell.
type column struct {
	// atFloor counts, per cell, the keys equal to the column's floor
	// (the smallest value it can hold), which are not kept.
	atFloor [numCells]int64
	// runs are full runs, each sorted ascending.
	runs []keyRun
	// cur is the run being filled, in report order.
	cur keyRun
	// runLen is how many keys make a full run; 0 means the package's
	// runLen (tests set less, to cross run boundaries with few jobs).
	runLen int
}

func (c *column) limit() int {
	if c.runLen > 0 {
		return c.runLen
	}
	return runLen
}

// add records key, of a job in cell, for a column whose floor is floor.
func (c *column) add(key, floor uint64, cell uint8) {
	if key == floor {
		c.atFloor[cell]++
		return
	}
	if len(c.cur.keys) == cap(c.cur.keys) {
		// The first run grows by doubling from a small size, so that a
		// small trace takes little memory; later ones are made full size.
		n := min(max(2*len(c.cur.keys), 1024), c.limit())
		c.cur.keys = append(make([]uint64, 0, n), c.cur.keys...)
		c.cur.tags = append(make([]uint8, 0, n), c.cur.tags...)
	}
	c.cur.keys = append(c.cur.keys, key)
	c.cur.tags = append(c.cur.tags, cell)
	if len(c.cur.keys) == c.limit() {
		c.seal()
	}
}

// seal sorts the full current run, keeps it and starts the next, which
// the sort uses as its scratch first.
func (c *column) seal() {
	n := len(c.cur.keys)
	next := keyRun{make([]uint64, n), make([]uint8, n)}
	radixSortTagged(c.cur.keys, c.cur.tags, next.keys, next.tags)
	c.runs = append(c.runs, c.cur)
	c.cur = keyRun{next.keys[:0], next.tags[:0]}
}

// kept returns how many keys the column keeps (those not at its floor).
func (c *column) kept() int {
	n := len(c.cur.keys)
	for _, r := range c.runs {
		n += len(r.keys)
	}
	return n
}

// floors returns how many keys are at the column's floor.
func (c *column) floors() int64 {
	var n int64
	for _, k := range c.atFloor {
		n += k
	}
	return n
}

// sorted calls emit with the column's kept keys in ascending order, with
// their tags, a block at a time. It leaves the column as it is: it sorts
// a copy of the current run.
func (c *column) sorted(emit func(keys []uint64, tags []uint8)) {
	runs := c.runs
	if n := len(c.cur.keys); n > 0 {
		buf := keyRun{make([]uint64, 2*n), make([]uint8, 2*n)}
		last := keyRun{buf.keys[:n], buf.tags[:n]}
		copy(last.keys, c.cur.keys)
		copy(last.tags, c.cur.tags)
		radixSortTagged(last.keys, last.tags, buf.keys[n:], buf.tags[n:])
		runs = append(runs[:len(runs):len(runs)], last)
	}
	mergeRuns(runs, emit)
}

// mergeRuns calls emit with the keys of runs, each sorted ascending, in
// ascending order, with their tags, in blocks of at most mergeBlock keys.
// Equal keys of different runs come in no particular order.
//
// It is a tournament of losers: tree[1:k] hold, for each match of a
// complete binary tree over the k runs' heads (leaf k+i is run i), the run
// that lost it; the overall winner's head is the smallest key. Taking it
// replays only the matches on its run's path to the root. When a run runs
// out, the tree is rebuilt without it, which happens once per run.
func mergeRuns(runs []keyRun, emit func(keys []uint64, tags []uint8)) {
	var live []keyRun
	for _, r := range runs {
		if len(r.keys) > 0 {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return
	}
	outK := make([]uint64, mergeBlock)
	outT := make([]uint8, mergeBlock)
	o := 0
	head := make([]uint64, len(live)) // each live run's smallest key not taken
	pos := make([]int, len(live))     // and its position
	tree := make([]int, len(live))
	winners := make([]int, 2*len(live))
	for i, r := range live {
		head[i] = r.keys[0]
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
			outK[o], outT[o] = head[w], live[w].tags[p]
			if o++; o == mergeBlock {
				emit(outK, outT)
				o = 0
			}
			if p++; p == len(live[w].keys) {
				break
			}
			hw := live[w].keys[p]
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
		emit(outK[:o], outT[:o])
	}
	// The last run's rest needs no merging: hand it over where it is.
	r, p := live[0], pos[0]
	for p < len(r.keys) {
		e := min(p+mergeBlock, len(r.keys))
		emit(r.keys[p:e], r.tags[p:e])
		p = e
	}
}

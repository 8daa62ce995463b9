package cluster

import (
	"fmt"
	"slices"
	"sort"

	"github.com/schedsim/schedsim/workload"
)

// Request is what a job asks of a node selector.
type Request struct {
	// Procs is the number of processors (cores).
	Procs int
	// MemKB is the memory per processor in KB (SWF field 10); ≤ 0: none.
	MemKB int64
	// Partition is the SWF partition number (field 16) that routes the
	// job to one of the Spec's partitions (Partition.SWF); ≤ 0 or unknown:
	// the default partition. Ignored when the Spec has no partitions.
	Partition int
	// TimeSec is the requested time (SWF field 9), checked against the
	// partition's MaxTime by TestOnly; ≤ 0: none.
	TimeSec workload.Time
	// Member is, on a cluster of clusters (Federation) that assigns jobs
	// at submission, the member the job was assigned (Federation.Assign):
	// k ≥ 1 is the k-th; 0: any (not assigned); Spanning: several members
	// together (a job no single one can hold). Other selectors ignore it.
	Member int
}

// RequestOf returns the request of job j: its processors, its requested
// memory per processor, its partition and its requested time.
func RequestOf(j *workload.Job) Request {
	r := Request{Procs: j.Procs, Partition: j.Partition}
	if j.Estimate > 0 && j.Estimate < workload.Forever {
		r.TimeSec = j.Estimate
	}
	if j.ReqMemKB > 0 {
		r.MemKB = int64(j.ReqMemKB + 0.5)
	}
	return r
}

// Allocator is a node selector with Slurm's job_test modes: TEST_ONLY
// (TestOnly) and RUN_NOW (Fits, RunNow), and the allocation state.
//
// The resources an allocation names are Batsim interval sets of resource
// ids: node numbers for whole-node selectors (Linear), core numbers
// (numbered node by node) for core selectors (ConsRes). Commit and Release
// panic on an allocation that does not fit or is not held: that is a
// simulator bug, never an input problem.
type Allocator interface {
	// Capacity is the number of processors (cores) of the cluster.
	Capacity() int
	// Free is the number of idle processors now.
	Free() int
	// TestOnly reports whether r can ever run on the cluster, all of it
	// idle; if not, reason says why.
	TestOnly(r Request) (ok bool, reason string)
	// Fits reports whether r can start now.
	Fits(r Request) bool
	// RunNow appends to dst where r would start now and reports whether it
	// can; it changes nothing.
	RunNow(r Request, dst []Range) ([]Range, bool)
	// Commit takes the resources rs that RunNow chose for r and returns
	// the processors they hold (more than r.Procs when whole nodes are
	// allocated).
	Commit(r Request, rs []Range) (procs int)
	// Release gives back the resources rs committed for r and returns the
	// processors they held.
	Release(r Request, rs []Range) (procs int)
}

var (
	_ Allocator = (*Linear)(nil)
	_ Allocator = (*ConsRes)(nil)
)

// spanSet is a set of integers kept as sorted, disjoint, non-adjacent ranges.
type spanSet []Range

// take removes r, which must lie within one range of the set.
func (s *spanSet) take(r Range) {
	sp := *s
	i := sort.Search(len(sp), func(i int) bool { return sp[i].Hi > r.Lo })
	if i == len(sp) || sp[i].Lo > r.Lo || sp[i].Hi < r.Hi || r.Lo >= r.Hi {
		panic(fmt.Sprintf("cluster: taking %v, which is not free", r))
	}
	c := sp[i]
	switch {
	case c.Lo == r.Lo && c.Hi == r.Hi:
		*s = append(sp[:i], sp[i+1:]...)
	case c.Lo == r.Lo:
		sp[i].Lo = r.Hi
	case c.Hi == r.Hi:
		sp[i].Hi = r.Lo
	default:
		sp[i].Hi = r.Lo
		sp = append(sp, Range{})
		copy(sp[i+2:], sp[i+1:])
		sp[i+1] = Range{r.Hi, c.Hi}
		*s = sp
	}
}

// put adds r, none of which may be in the set.
func (s *spanSet) put(r Range) {
	sp := *s
	i := sort.Search(len(sp), func(i int) bool { return sp[i].Lo >= r.Hi })
	if (i > 0 && sp[i-1].Hi > r.Lo) || r.Lo >= r.Hi {
		panic(fmt.Sprintf("cluster: releasing %v, which is free", r))
	}
	joinPrev := i > 0 && sp[i-1].Hi == r.Lo
	joinNext := i < len(sp) && sp[i].Lo == r.Hi
	switch {
	case joinPrev && joinNext:
		sp[i-1].Hi = sp[i].Hi
		*s = append(sp[:i], sp[i+1:]...)
	case joinPrev:
		sp[i-1].Hi = r.Hi
	case joinNext:
		sp[i].Lo = r.Lo
	default:
		sp = append(sp, Range{})
		copy(sp[i+1:], sp[i:])
		sp[i] = r
		*s = sp
	}
}

// Linear is Slurm's select/linear: jobs get whole nodes of a
// one-dimensional node array, chosen best fit so as to minimise the number
// of sets of consecutive nodes. Memory is considered only with
// Spec.CRMemory (CR_Memory): a node then holds as many of a job's
// processors as its cores and its memory allow (its memory / the job's
// memory per processor), and a job spreads over more nodes, waits, or is
// rejected when no partition's nodes can hold it. Allocations name node
// numbers.
//
// With one group of single-core nodes it schedules exactly like a Machine
// (a job fits if enough processors are free), on other processor numbers.
type Linear struct {
	sum   []int // sum[i]: cores of nodes 0..i-1
	maxC  int   // most cores of one node
	free  int   // idle cores
	spans spanSet
	runs  []Range // scratch
	parts *parts  // nil: no partitions
	// memKB is each node's memory with CR_Memory (0: not tracked), nil
	// without; maxKB the most of one node.
	memKB []int64
	maxKB int64
	// share is how many jobs each node may run at once under
	// OverSubscribe=FORCE (Spec.ShareCaps; nil: one), jobs how many it
	// runs, and total the capacity: Σ cores × share. A node is in spans
	// while it has room for one more job; a job on it holds its cores, as
	// a processor count, once for each job.
	share []int32
	jobs  []int32
	total int
}

// NewLinear returns a Linear selector for s (which must be valid), all nodes free.
func NewLinear(s *Spec) *Linear {
	n := s.Nodes()
	l := &Linear{sum: make([]int, 1, n+1), spans: spanSet{{0, n}}}
	for _, g := range s.Groups {
		for k := 0; k < g.Count; k++ {
			l.sum = append(l.sum, l.sum[len(l.sum)-1]+g.Cores)
		}
		l.maxC = max(l.maxC, g.Cores)
	}
	l.free = l.sum[n]
	if caps := s.ShareCaps(); caps != nil {
		l.share, l.jobs = make([]int32, n), make([]int32, n)
		l.free = 0
		for i, c := range caps {
			l.share[i] = int32(c)
			l.free += c * (l.sum[i+1] - l.sum[i])
		}
	}
	l.total = l.free
	l.parts = newParts(s, func(lo, hi int) int { return l.sum[hi] - l.sum[lo] })
	if s.CRMemory {
		for _, g := range s.Groups {
			for range g.Count {
				l.memKB = append(l.memKB, g.MemoryMB*1024)
			}
			l.maxKB = max(l.maxKB, g.MemoryMB*1024)
		}
		if l.maxKB == 0 {
			l.memKB = nil // no node has memory to track
		}
	}
	return l
}

func (l *Linear) cores(r Range) int { return l.sum[r.Hi] - l.sum[r.Lo] }

// tracks reports whether a request of memKB per processor is limited by
// memory (CR_Memory and a memory request).
func (l *Linear) tracks(memKB int64) bool { return l.memKB != nil && memKB > 0 }

// capOf returns how many processors of memKB each node i can hold: its
// cores, or fewer when its memory cannot hold memKB for each.
func (l *Linear) capOf(i int, memKB int64) int {
	c := l.sum[i+1] - l.sum[i]
	if !l.tracks(memKB) || l.memKB[i] == 0 {
		return c
	}
	return int(min(int64(c), l.memKB[i]/memKB))
}

// caps returns how many processors of memKB each nodes r can hold.
func (l *Linear) caps(r Range, memKB int64) int {
	if !l.tracks(memKB) {
		return l.cores(r)
	}
	n := 0
	for i := r.Lo; i < r.Hi; i++ {
		n += l.capOf(i, memKB)
	}
	return n
}

// trim returns r without the nodes at either end that hold none of a
// request of memKB per processor.
func (l *Linear) trim(r Range, memKB int64) Range {
	if !l.tracks(memKB) {
		return r
	}
	for r.Lo < r.Hi && l.capOf(r.Lo, memKB) == 0 {
		r.Lo++
	}
	for r.Hi > r.Lo && l.capOf(r.Hi-1, memKB) == 0 {
		r.Hi--
	}
	return r
}

// Capacity implements Allocator: the cores, each counted once for every
// job its node may run at once (OverSubscribe=FORCE).
func (l *Linear) Capacity() int { return l.total }

// Shares reports whether nodes may run several jobs at once
// (OverSubscribe=FORCE).
func (l *Linear) Shares() bool { return l.share != nil }

// Free implements Allocator.
func (l *Linear) Free() int { return l.free }

// TestOnly implements Allocator: the job must fit its partition's nodes
// (all of the cluster without partitions) and its requested time the
// partition's MaxTime.
func (l *Linear) TestOnly(r Request) (bool, string) {
	all := []Range{{0, len(l.sum) - 1}}
	if l.parts != nil {
		p := l.parts.route(r)
		if r.Procs > p.cores {
			return false, tooBig(r, p, 0)
		}
		if ok, why := p.testTime(r); !ok {
			return false, why
		}
		all = p.ranges
	} else if c := l.Capacity(); r.Procs > c {
		return false, fmt.Sprintf("needs %d processors, cluster has %d", r.Procs, c)
	}
	if !l.tracks(r.MemKB) {
		return true, ""
	}
	n := 0
	for _, x := range all {
		if n += l.caps(x, r.MemKB); n >= r.Procs {
			return true, ""
		}
	}
	if r.MemKB > l.maxKB {
		return false, fmt.Sprintf("needs %d KB of memory per processor, the largest node has %d KB", r.MemKB, l.maxKB)
	}
	return false, fmt.Sprintf("needs %d processors of %d KB memory each, the nodes' memory holds %d", r.Procs, r.MemKB, n)
}

// Fits implements Allocator: whole nodes always cover the free cores, so a
// job fits when enough cores of its partition are free.
func (l *Linear) Fits(r Request) bool {
	if r.Procs > l.free {
		return false
	}
	mem := l.tracks(r.MemKB)
	if l.parts == nil && !mem {
		return true
	}
	runs := l.spans
	if l.parts != nil {
		l.runs = intersect(l.runs[:0], l.spans, l.parts.route(r).ranges)
		runs = l.runs
	}
	n := 0
	for _, x := range runs {
		if n += l.caps(x, r.MemKB); n >= r.Procs {
			return true
		}
	}
	return false
}

// RunNow implements Allocator. While the job needs more, it takes the
// smallest set of consecutive free nodes that covers the rest (its first
// nodes), else the largest set whole; ties go to the lower node numbers.
// The chosen nodes are returned in increasing order.
func (l *Linear) RunNow(r Request, dst []Range) ([]Range, bool) {
	if !l.Fits(r) {
		return dst, false
	}
	first := len(dst)
	var runs []Range
	if l.parts == nil {
		runs = append(l.runs[:0], l.spans...)
	} else {
		runs = intersect(l.runs[:0], l.spans, l.parts.route(r).ranges)
	}
	rem, m := r.Procs, r.MemKB
	for rem > 0 {
		best, bestC := -1, 0
		large, largeC := -1, 0
		for i, s := range runs {
			c := l.caps(s, m)
			if c >= rem && (best < 0 || c < bestC) {
				best, bestC = i, c
			}
			if c > largeC {
				large, largeC = i, c
			}
		}
		if best >= 0 {
			s := l.trim(runs[best], m)
			hi, got := s.Lo, 0
			for got < rem {
				got += l.capOf(hi, m)
				hi++
			}
			dst = append(dst, Range{s.Lo, hi})
			break
		}
		dst = append(dst, l.trim(runs[large], m))
		rem -= largeC
		runs = append(runs[:large], runs[large+1:]...)
	}
	l.runs = runs
	out := dst[first:]
	slices.SortFunc(out, func(a, b Range) int { return a.Lo - b.Lo })
	return dst, true
}

// Commit implements Allocator.
func (l *Linear) Commit(r Request, rs []Range) int {
	n := 0
	for _, x := range rs {
		if l.share == nil {
			l.spans.take(x)
		} else {
			for i := x.Lo; i < x.Hi; i++ {
				if l.jobs[i]++; l.jobs[i] == l.share[i] {
					l.spans.take(Range{i, i + 1})
				} else if l.jobs[i] > l.share[i] {
					panic(fmt.Sprintf("cluster: node %d runs %d jobs, it may run %d", i, l.jobs[i], l.share[i]))
				}
			}
		}
		n += l.cores(x)
	}
	if n < r.Procs {
		panic(fmt.Sprintf("cluster: linear allocation %v holds %d cores for a job of %d", rs, n, r.Procs))
	}
	l.free -= n
	return n
}

// Release implements Allocator.
func (l *Linear) Release(_ Request, rs []Range) int {
	n := 0
	for _, x := range rs {
		if x.Lo < 0 || x.Hi >= len(l.sum) {
			panic(fmt.Sprintf("cluster: releasing nodes %v of %d", x, len(l.sum)-1))
		}
		if l.share == nil {
			l.spans.put(x)
		} else {
			for i := x.Lo; i < x.Hi; i++ {
				if l.jobs[i] == l.share[i] {
					l.spans.put(Range{i, i + 1})
				} else if l.jobs[i] == 0 {
					panic(fmt.Sprintf("cluster: releasing node %d, which runs no job", i))
				}
				l.jobs[i]--
			}
		}
		n += l.cores(x)
	}
	l.free += n
	return n
}

// ConsRes is Slurm's select/cons_res with CR_Core_Memory: jobs get cores
// and memory within nodes, and nodes are shared by jobs. A job's memory is
// its request per processor (SWF field 10, KB) times the cores it gets on a
// node; nodes whose memory is 0 do not track memory. Nodes are filled in
// order, lowest numbers first, and the lowest free cores of a node are
// taken. Allocations name core numbers, node by node (node 0's cores first).
// A job of an OverSubscribe=EXCLUSIVE partition gets whole idle nodes
// instead: every core and all the memory of each, lowest nodes first.
type ConsRes struct {
	nodes []crNode
	node  []int32 // core → node
	used  []bool  // core → taken
	free  int
	maxKB int64 // most memory of one node, KB
	// memless: no node tracks memory.
	memless bool
	parts   *parts  // nil: no partitions
	all     []Range // every node
}

type crNode struct {
	base, cores int
	free        int
	memKB       int64 // 0: not tracked
	freeKB      int64
}

// NewConsRes returns a ConsRes selector for s (which must be valid), all free.
func NewConsRes(s *Spec) *ConsRes {
	c := &ConsRes{memless: true}
	base := 0
	for _, g := range s.Groups {
		for k := 0; k < g.Count; k++ {
			kb := g.MemoryMB * 1024
			c.nodes = append(c.nodes, crNode{base: base, cores: g.Cores, free: g.Cores, memKB: kb, freeKB: kb})
			for j := 0; j < g.Cores; j++ {
				c.node = append(c.node, int32(len(c.nodes)-1))
			}
			base += g.Cores
			if kb > 0 {
				c.memless = false
			}
			c.maxKB = max(c.maxKB, kb)
		}
	}
	c.used = make([]bool, base)
	c.free = base
	c.all = []Range{{0, len(c.nodes)}}
	c.parts = newParts(s, func(lo, hi int) int { return c.nodes[hi-1].base + c.nodes[hi-1].cores - c.nodes[lo].base })
	return c
}

// ranges returns the node ranges r may use: its partition's, or all.
func (c *ConsRes) ranges(r Request) []Range {
	if c.parts == nil {
		return c.all
	}
	return c.parts.route(r).ranges
}

// usable returns how many of r's processors node n can take now.
func (n *crNode) usable(memKB int64) int {
	if memKB <= 0 || n.memKB == 0 {
		return n.free
	}
	return int(min(int64(n.free), n.freeKB/memKB))
}

// Capacity implements Allocator.
func (c *ConsRes) Capacity() int { return len(c.used) }

// Free implements Allocator.
func (c *ConsRes) Free() int { return c.free }

// TestOnly implements Allocator: the job must fit its partition's nodes
// (all of the cluster without partitions), memory included, and its
// requested time the partition's MaxTime.
func (c *ConsRes) TestOnly(r Request) (bool, string) {
	if c.parts != nil {
		p := c.parts.route(r)
		if r.Procs > p.cores {
			return false, tooBig(r, p, 0)
		}
		if ok, why := p.testTime(r); !ok {
			return false, why
		}
	} else if r.Procs > len(c.used) {
		return false, tooBig(r, nil, len(c.used))
	}
	if r.MemKB <= 0 || c.memless {
		return true, ""
	}
	n := 0
	for _, x := range c.ranges(r) {
		for i := x.Lo; i < x.Hi; i++ {
			nd := &c.nodes[i]
			if nd.memKB == 0 {
				n += nd.cores
			} else {
				n += int(min(int64(nd.cores), nd.memKB/r.MemKB))
			}
			if n >= r.Procs {
				return true, ""
			}
		}
	}
	if r.MemKB > c.maxKB {
		return false, fmt.Sprintf("needs %d KB of memory per processor, the largest node has %d KB", r.MemKB, c.maxKB)
	}
	return false, fmt.Sprintf("needs %d processors of %d KB memory each, the nodes' memory holds %d", r.Procs, r.MemKB, n)
}

// Fits implements Allocator.
func (c *ConsRes) Fits(r Request) bool {
	if r.Procs > c.free {
		return false
	}
	if c.parts == nil && (r.MemKB <= 0 || c.memless) {
		return true
	}
	whole := c.whole(r)
	n := 0
	for _, x := range c.ranges(r) {
		for i := x.Lo; i < x.Hi; i++ {
			nd := &c.nodes[i]
			k := 0
			if whole {
				k = nd.idle(r.MemKB)
			} else {
				k = nd.usable(r.MemKB)
			}
			if n += k; n >= r.Procs {
				return true
			}
		}
	}
	return false
}

// whole reports whether r's partition gives its jobs whole nodes
// (OverSubscribe=EXCLUSIVE).
func (c *ConsRes) whole(r Request) bool {
	return c.parts != nil && c.parts.route(r).whole
}

// idle returns how many of r's processors node n can take as a whole
// node: none unless every core and all its memory are free, else its
// cores, or fewer when its memory cannot hold memKB for each.
func (n *crNode) idle(memKB int64) int {
	if n.free != n.cores || n.freeKB != n.memKB {
		return 0
	}
	if memKB <= 0 || n.memKB == 0 {
		return n.cores
	}
	return int(min(int64(n.cores), n.memKB/memKB))
}

// RunNow implements Allocator. A job of an OverSubscribe=EXCLUSIVE
// partition takes every core of idle nodes, lowest first, until they hold
// it.
func (c *ConsRes) RunNow(r Request, dst []Range) ([]Range, bool) {
	if !c.Fits(r) {
		return dst, false
	}
	rem := r.Procs
	if c.whole(r) {
		for _, x := range c.ranges(r) {
			for i := x.Lo; i < x.Hi && rem > 0; i++ {
				nd := &c.nodes[i]
				k := nd.idle(r.MemKB)
				if k == 0 {
					continue
				}
				rem -= k
				if n := len(dst); n > 0 && dst[n-1].Hi == nd.base {
					dst[n-1].Hi += nd.cores
				} else {
					dst = append(dst, Range{nd.base, nd.base + nd.cores})
				}
			}
		}
		return dst, true
	}
	for _, x := range c.ranges(r) {
		for i := x.Lo; i < x.Hi && rem > 0; i++ {
			nd := &c.nodes[i]
			k := min(nd.usable(r.MemKB), rem)
			if k == 0 {
				continue
			}
			rem -= k
			for j := nd.base; k > 0; j++ {
				if c.used[j] {
					continue
				}
				k--
				if n := len(dst); n > 0 && dst[n-1].Hi == j {
					dst[n-1].Hi++
				} else {
					dst = append(dst, Range{j, j + 1})
				}
			}
		}
	}
	return dst, true
}

// Commit implements Allocator.
func (c *ConsRes) Commit(r Request, rs []Range) int {
	n := c.mark(r, rs, true)
	if n != r.Procs && !(c.whole(r) && n > r.Procs) {
		panic(fmt.Sprintf("cluster: cons_res allocation %v holds %d cores for a job of %d", rs, n, r.Procs))
	}
	return n
}

// Release implements Allocator.
func (c *ConsRes) Release(r Request, rs []Range) int { return c.mark(r, rs, false) }

// mark takes (or gives back) the cores rs and r's memory with them (all
// of their nodes' memory for a job of whole nodes).
func (c *ConsRes) mark(r Request, rs []Range, take bool) int {
	if c.whole(r) {
		r.MemKB = 0 // the nodes' memory is taken whole, below
		for _, x := range rs {
			if x.Lo < 0 || x.Hi > len(c.used) || x.Lo >= x.Hi {
				panic(fmt.Sprintf("cluster: bad core range %v of %d cores", x, len(c.used)))
			}
			for j := x.Lo; j < x.Hi; j++ {
				if nd := &c.nodes[c.node[j]]; j == nd.base {
					if take {
						nd.freeKB = 0
					} else {
						nd.freeKB = nd.memKB
					}
				}
			}
		}
	}
	n := 0
	for _, x := range rs {
		if x.Lo < 0 || x.Hi > len(c.used) || x.Lo >= x.Hi {
			panic(fmt.Sprintf("cluster: bad core range %v of %d cores", x, len(c.used)))
		}
		for j := x.Lo; j < x.Hi; j++ {
			if c.used[j] == take {
				panic(fmt.Sprintf("cluster: core %d already %s", j, map[bool]string{true: "taken", false: "free"}[take]))
			}
			c.used[j] = take
			nd := &c.nodes[c.node[j]]
			d, kb := 1, r.MemKB
			if take {
				d, kb = -1, -kb
			}
			nd.free += d
			if r.MemKB > 0 && nd.memKB > 0 {
				nd.freeKB += kb
				if nd.freeKB < 0 || nd.freeKB > nd.memKB {
					panic(fmt.Sprintf("cluster: node %d memory %d KB free of %d", c.node[j], nd.freeKB, nd.memKB))
				}
			}
		}
		n += x.Len()
	}
	if take {
		c.free -= n
	} else {
		c.free += n
	}
	return n
}

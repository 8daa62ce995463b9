package cluster

import (
	"fmt"

	"github.com/schedsim/schedsim/workload"
)

// parts routes jobs to the partitions of a Spec for a node selector: each
// partition's nodes as sorted, disjoint node ranges.
type parts struct {
	list []part
	swf  map[int]int // SWF partition number → index in list
	dflt int         // index of the default partition
	tick workload.Time
}

type part struct {
	name    string
	ranges  []Range // node ranges, sorted, disjoint
	cores   int
	maxTime workload.Time // in the spec's ticks (Spec.Tick)
	// dflt is the time limit of a job without one: DefaultTime, else
	// MaxTime (slurm.conf: "If not set then MaxTime will be used").
	dflt workload.Time
	// whole: OverSubscribe=EXCLUSIVE, its jobs get whole nodes (ConsRes).
	whole bool
	tick  workload.Time // ticks a second (Spec.Tick, at least 1)
}

// newParts returns the routing of s's partitions, or nil if s has none.
// nodeCores(lo, hi) gives the cores of nodes lo..hi-1.
func newParts(s *Spec, nodeCores func(lo, hi int) int) *parts {
	if len(s.Partitions) == 0 {
		return nil
	}
	groupAt := make(map[string]Range, len(s.Groups))
	n := 0
	for _, g := range s.Groups {
		groupAt[g.Name] = Range{n, n + g.Count}
		n += g.Count
	}
	ps := &parts{tick: max(s.Tick, 1)}
	for _, p := range s.Partitions {
		var rs spanSet
		for _, g := range p.Groups {
			if r := groupAt[g]; !rs.has(r) {
				rs.put(r)
			}
		}
		c := 0
		for _, r := range rs {
			c += nodeCores(r.Lo, r.Hi)
		}
		dflt := p.DefaultTime
		if dflt == 0 {
			dflt = p.MaxTime
		}
		ps.list = append(ps.list, part{name: p.Name, ranges: rs, cores: c, maxTime: p.MaxTime * ps.tick, dflt: dflt * ps.tick, tick: ps.tick, whole: p.OverSubscribe == "EXCLUSIVE"})
	}
	ps.swf, ps.dflt = s.routes()
	return ps
}

// routes returns the routing of the SWF partition numbers of s's
// partitions: number → index in s.Partitions (Partition.SWF, else the
// position from 1; the first partition a number names wins), and the index
// of the default partition (the first with Default, else the first).
func (s *Spec) routes() (map[int]int, int) {
	swf := make(map[int]int, len(s.Partitions))
	dflt := -1
	for i, p := range s.Partitions {
		num := p.SWF
		if num == 0 {
			num = i + 1
		}
		if _, dup := swf[num]; !dup && num > 0 {
			swf[num] = i
		}
		if p.Default && dflt < 0 {
			dflt = i
		}
	}
	return swf, max(dflt, 0)
}

// Router returns the function that gives the index in s.Partitions of the
// partition a job of SWF partition number swf goes to: the one its number
// names (Partition.SWF, else the position from 1), else the default one.
// It returns nil when s has no partitions.
func (s *Spec) Router() func(swf int) int {
	if len(s.Partitions) == 0 {
		return nil
	}
	nums, dflt := s.routes()
	return func(swf int) int {
		if i, ok := nums[swf]; ok && swf > 0 {
			return i
		}
		return dflt
	}
}

// has reports whether r lies within the set.
func (s spanSet) has(r Range) bool {
	for _, x := range s {
		if x.Lo <= r.Lo && r.Hi <= x.Hi {
			return true
		}
	}
	return false
}

// route returns the partition of r: the one its SWF partition number names,
// else the default one.
func (ps *parts) route(r Request) *part {
	if i, ok := ps.swf[r.Partition]; ok && r.Partition > 0 {
		return &ps.list[i]
	}
	return &ps.list[ps.dflt]
}

// DefaultTimer is implemented by node selectors whose partitions give a
// time limit to a job that has none (Linear, ConsRes): Slurm's partition
// DefaultTime, else its MaxTime.
type DefaultTimer interface {
	// DefaultTime returns the time limit of r's partition for a job
	// without one; 0: none (no partitions, or neither time set).
	DefaultTime(r Request) workload.Time
}

var (
	_ DefaultTimer = (*Linear)(nil)
	_ DefaultTimer = (*ConsRes)(nil)
)

// DefaultTime implements DefaultTimer.
func (l *Linear) DefaultTime(r Request) workload.Time { return l.parts.defaultTime(r) }

// DefaultTime implements DefaultTimer.
func (c *ConsRes) DefaultTime(r Request) workload.Time { return c.parts.defaultTime(r) }

func (ps *parts) defaultTime(r Request) workload.Time {
	if ps == nil {
		return 0
	}
	return ps.route(r).dflt
}

// timeOK implements partitionTimer.
func (l *Linear) timeOK(r Request) bool { return l.parts.timeOK(r) }

// timeOK implements partitionTimer.
func (c *ConsRes) timeOK(r Request) bool { return c.parts.timeOK(r) }

// partitionTimer is a selector that can tell whether a request's time is
// within its partition's MaxTime (a member of a Federation).
type partitionTimer interface{ timeOK(r Request) bool }

// timeOK reports whether r's requested time is within its partition's
// MaxTime (true without partitions).
func (ps *parts) timeOK(r Request) bool {
	if ps == nil {
		return true
	}
	p := ps.route(r)
	return p.maxTime <= 0 || r.TimeSec <= p.maxTime
}

// testTime reports whether r's requested time is within p's MaxTime.
func (p *part) testTime(r Request) (bool, string) {
	if p.maxTime > 0 && r.TimeSec > p.maxTime {
		return false, "requested time " + workload.FormatTicks(r.TimeSec, int64(p.tick)) + " s exceeds partition " + p.name + "'s MaxTime of " + workload.FormatTicks(p.maxTime, int64(p.tick)) + " s"
	}
	return true, ""
}

// intersect appends to dst the ranges of a (sorted, disjoint) that lie in b
// (sorted, disjoint).
func intersect(dst []Range, a, b []Range) []Range {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		lo, hi := max(a[i].Lo, b[j].Lo), min(a[i].Hi, b[j].Hi)
		if lo < hi {
			dst = append(dst, Range{lo, hi})
		}
		if a[i].Hi < b[j].Hi {
			i++
		} else {
			j++
		}
	}
	return dst
}

// tooBig is TEST_ONLY's reason for a job larger than its partition or
// cluster.
func tooBig(r Request, p *part, capacity int) string {
	if p != nil {
		return fmt.Sprintf("needs %d processors, partition %s has %d", r.Procs, p.name, p.cores)
	}
	return fmt.Sprintf("needs %d processors, cluster has %d", r.Procs, capacity)
}

// PartitionSpan is one partition as the reports see it: its name, and
// the processors of its nodes as sorted, disjoint ranges of processor
// numbers (the nodes' cores numbered in node order).
type PartitionSpan struct {
	Name  string
	Procs []Range
	// Cores is the number of processors in Procs.
	Cores int
}

// PartitionSpans returns s's partitions in order, and route, which gives
// the index in them of the partition a job of SWF partition number swf
// goes to (the one that number names, else the default one), as the
// allocator routes it. Without partitions it returns nil and a nil route.
func (s *Spec) PartitionSpans() ([]PartitionSpan, func(swf int) int) {
	firstCore := make([]int, 0, s.Nodes()+1)
	c := 0
	for _, g := range s.Groups {
		for range g.Count {
			firstCore = append(firstCore, c)
			c += g.Cores
		}
	}
	firstCore = append(firstCore, c)
	ps := newParts(s, func(lo, hi int) int { return firstCore[hi] - firstCore[lo] })
	if ps == nil {
		return nil, nil
	}
	spans := make([]PartitionSpan, len(ps.list))
	for i, p := range ps.list {
		spans[i] = PartitionSpan{Name: p.name, Cores: p.cores}
		for _, r := range p.ranges {
			spans[i].Procs = append(spans[i].Procs, Range{Lo: firstCore[r.Lo], Hi: firstCore[r.Hi]})
		}
	}
	route := func(swf int) int {
		if i, ok := ps.swf[swf]; ok && swf > 0 {
			return i
		}
		return ps.dflt
	}
	return spans, route
}

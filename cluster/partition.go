package cluster

import (
	"fmt"
	"strconv"

	"github.com/schedsim/schedsim/workload"
)

// parts routes jobs to the partitions of a Spec for a node selector: each
// partition's nodes as sorted, disjoint node ranges.
type parts struct {
	list []part
	swf  map[int]int // SWF partition number → index in list
	dflt int         // index of the default partition
}

type part struct {
	name    string
	ranges  []Range // node ranges, sorted, disjoint
	cores   int
	maxTime workload.Time
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
	ps := &parts{swf: make(map[int]int, len(s.Partitions)), dflt: -1}
	for i, p := range s.Partitions {
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
		ps.list = append(ps.list, part{name: p.Name, ranges: rs, cores: c, maxTime: p.MaxTime})
		num := p.SWF
		if num == 0 {
			num = i + 1
		}
		if _, dup := ps.swf[num]; !dup {
			ps.swf[num] = i
		}
		if p.Default && ps.dflt < 0 {
			ps.dflt = i
		}
	}
	if ps.dflt < 0 {
		ps.dflt = 0
	}
	return ps
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

// testTime reports whether r's requested time is within p's MaxTime.
func (p *part) testTime(r Request) (bool, string) {
	if p.maxTime > 0 && r.TimeSec > p.maxTime {
		return false, "requested time " + strconv.FormatInt(int64(r.TimeSec), 10) + " s exceeds partition " + p.name + "'s MaxTime of " + strconv.FormatInt(int64(p.maxTime), 10) + " s"
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

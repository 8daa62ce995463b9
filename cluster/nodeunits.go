package cluster

import "sort"

// NodeUnits is an optional interface of a node selector (Linear, ConsRes)
// for plans made of node sets, such as Slurm's backfill, whose
// reservations are node bitmaps: NodeStates plus each node's idle units
// and the nodes a request may use.
type NodeUnits interface {
	NodeStates
	// IdleUnits appends to dst the idle allocation units of node n.
	IdleUnits(n int, dst []Range) []Range
	// NodesFor returns the nodes r may use: its partition's, or all.
	NodesFor(r Request) []Range
}

var (
	_ NodeUnits = (*Linear)(nil)
	_ NodeUnits = (*ConsRes)(nil)
)

// UnitsProcs returns the processors the allocation units rs of nu hold.
func UnitsProcs(nu NodeUnits, rs []Range) int {
	n := 0
	for _, x := range rs {
		n += nu.UnitProcs(x)
	}
	return n
}

// IdleUnits implements NodeUnits: node n itself when it is idle.
func (l *Linear) IdleUnits(n int, dst []Range) []Range {
	sp := l.spans
	i := sort.Search(len(sp), func(i int) bool { return sp[i].Hi > n })
	if i < len(sp) && sp[i].Lo <= n {
		dst = append(dst, Range{n, n + 1})
	}
	return dst
}

// NodesFor implements NodeUnits.
func (l *Linear) NodesFor(r Request) []Range {
	if l.parts == nil {
		return []Range{{0, len(l.sum) - 1}}
	}
	return l.parts.route(r).ranges
}

// IdleUnits implements NodeUnits: the idle cores of node n.
func (c *ConsRes) IdleUnits(n int, dst []Range) []Range {
	nd := &c.nodes[n]
	for j := nd.base; j < nd.base+nd.cores; j++ {
		if c.used[j] {
			continue
		}
		if k := len(dst); k > 0 && dst[k-1].Hi == j {
			dst[k-1].Hi++
		} else {
			dst = append(dst, Range{j, j + 1})
		}
	}
	return dst
}

// NodesFor implements NodeUnits.
func (c *ConsRes) NodesFor(r Request) []Range { return c.ranges(r) }

package cluster

import "sort"

// NodeUnits is an optional interface of an Allocator whose resource ids
// belong to nodes (Linear, ConsRes): what a plan made of node sets needs,
// such as Slurm's backfill, whose reservations are node bitmaps.
type NodeUnits interface {
	// NodeCount is the number of nodes.
	NodeCount() int
	// NodeOf returns the node holding resource id u.
	NodeOf(u int) int
	// IdleUnits appends to dst the idle resource ids of node n.
	IdleUnits(n int, dst []Range) []Range
	// NodesFor returns the nodes r may use: its partition's, or all.
	NodesFor(r Request) []Range
}

var (
	_ NodeUnits = (*Linear)(nil)
	_ NodeUnits = (*ConsRes)(nil)
)

// NodeCount implements NodeUnits.
func (l *Linear) NodeCount() int { return len(l.sum) - 1 }

// NodeOf implements NodeUnits: Linear's resource ids are node numbers.
func (l *Linear) NodeOf(u int) int { return u }

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

// NodeCount implements NodeUnits.
func (c *ConsRes) NodeCount() int { return len(c.nodes) }

// NodesFor implements NodeUnits.
func (c *ConsRes) NodesFor(r Request) []Range { return c.ranges(r) }

// NodeOf implements NodeUnits: the node of core u.
func (c *ConsRes) NodeOf(u int) int { return int(c.node[u]) }

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

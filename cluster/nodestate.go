package cluster

import "fmt"

// NodeStates is implemented by node selectors whose nodes can be taken out
// of service (Linear, ConsRes), so that a simulation can model node
// failures and maintenance: it takes the idle allocation units of a node
// out of the selector's pool and later puts them back. Allocation units
// are what the selector's allocations name: node numbers for Linear, core
// numbers for ConsRes.
type NodeStates interface {
	// Nodes is the number of nodes.
	Nodes() int
	// NodeUnits returns the allocation units of nodes [r.Lo, r.Hi).
	NodeUnits(r Range) Range
	// UnitNode returns the node of allocation unit u.
	UnitNode(u int) int
	// UnitProcs returns the processors (cores) of allocation units r.
	UnitProcs(r Range) int
	// TakeFree takes the idle units within r out of the pool, appends
	// them to dst and returns it.
	TakeFree(r Range, dst []Range) []Range
	// PutBack returns units taken by TakeFree to the pool.
	PutBack(rs []Range)
}

var (
	_ NodeStates = (*Linear)(nil)
	_ NodeStates = (*ConsRes)(nil)
)

// Nodes implements NodeStates.
func (l *Linear) Nodes() int { return len(l.sum) - 1 }

// NodeUnits implements NodeStates: Linear allocates nodes.
func (l *Linear) NodeUnits(r Range) Range { return r }

// UnitNode implements NodeStates.
func (l *Linear) UnitNode(u int) int { return u }

// UnitProcs implements NodeStates: the cores of nodes r.
func (l *Linear) UnitProcs(r Range) int { return l.cores(r) }

// TakeFree implements NodeStates.
func (l *Linear) TakeFree(r Range, dst []Range) []Range {
	if r.Lo < 0 || r.Hi > l.Nodes() || r.Lo > r.Hi {
		panic(fmt.Sprintf("cluster: taking nodes %v of %d", r, l.Nodes()))
	}
	first := len(dst)
	for _, s := range l.spans {
		if lo, hi := max(s.Lo, r.Lo), min(s.Hi, r.Hi); lo < hi {
			dst = append(dst, Range{lo, hi})
		}
	}
	for _, x := range dst[first:] {
		l.spans.take(x)
		l.free -= l.cores(x)
	}
	return dst
}

// PutBack implements NodeStates.
func (l *Linear) PutBack(rs []Range) { l.Release(Request{}, rs) }

// Nodes implements NodeStates.
func (c *ConsRes) Nodes() int { return len(c.nodes) }

// NodeUnits implements NodeStates: the cores of nodes r.
func (c *ConsRes) NodeUnits(r Range) Range {
	if r.Lo >= r.Hi {
		return Range{}
	}
	last := &c.nodes[r.Hi-1]
	return Range{c.nodes[r.Lo].base, last.base + last.cores}
}

// UnitNode implements NodeStates: the node of core u.
func (c *ConsRes) UnitNode(u int) int { return int(c.node[u]) }

// UnitProcs implements NodeStates: ConsRes allocates cores.
func (c *ConsRes) UnitProcs(r Range) int { return r.Len() }

// TakeFree implements NodeStates: the idle cores of r, without memory.
func (c *ConsRes) TakeFree(r Range, dst []Range) []Range {
	if r.Lo < 0 || r.Hi > len(c.used) || r.Lo > r.Hi {
		panic(fmt.Sprintf("cluster: taking cores %v of %d", r, len(c.used)))
	}
	first := len(dst)
	for j := r.Lo; j < r.Hi; j++ {
		if c.used[j] {
			continue
		}
		if n := len(dst); n > first && dst[n-1].Hi == j {
			dst[n-1].Hi++
		} else {
			dst = append(dst, Range{j, j + 1})
		}
	}
	c.mark(Request{}, dst[first:], true)
	return dst
}

// PutBack implements NodeStates.
func (c *ConsRes) PutBack(rs []Range) { c.mark(Request{}, rs, false) }

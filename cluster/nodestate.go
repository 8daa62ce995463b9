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

// The nodes of a Federation are its members' nodes, member after member
// (a member's own numbering, group by group, shifted past the earlier
// members' nodes), as its allocation units are the members' units, shifted
// past the earlier members' (see Federation).

var _ NodeStates = (*Federation)(nil)

// nodeStates returns member i's NodeStates. It panics if the member's
// selector has none (a Federation's are Linear or ConsRes).
func (f *Federation) nodeStates(i int) NodeStates {
	ns, ok := f.members[i].a.(NodeStates)
	if !ok {
		panic(fmt.Sprintf("cluster: cluster %d's selector %T has no node states", i, f.members[i].a))
	}
	return ns
}

// memberOfNode returns the member holding global node n and n in its own
// numbering.
func (f *Federation) memberOfNode(n int) (int, int) {
	for i := range f.members {
		k := f.nodeStates(i).Nodes()
		if n < k {
			return i, n
		}
		n -= k
	}
	panic(fmt.Sprintf("cluster: node %d past the clusters' %d nodes", n, f.Nodes()))
}

// memberOfUnit returns the member holding allocation unit u.
func (f *Federation) memberOfUnit(u int) int {
	i := len(f.members) - 1
	for i > 0 && f.members[i].base > u {
		i--
	}
	return i
}

// nodeBase returns the global number of member i's first node.
func (f *Federation) nodeBase(i int) int {
	n := 0
	for k := range i {
		n += f.nodeStates(k).Nodes()
	}
	return n
}

// Nodes implements NodeStates: every member's nodes.
func (f *Federation) Nodes() int { return f.nodeBase(len(f.members)) }

// NodeUnits implements NodeStates. The members' units follow one another,
// so the units of nodes spanning members are one range too.
func (f *Federation) NodeUnits(r Range) Range {
	if r.Lo >= r.Hi {
		return Range{}
	}
	i, lo := f.memberOfNode(r.Lo)
	k, hi := f.memberOfNode(r.Hi - 1)
	a := f.nodeStates(i).NodeUnits(Range{lo, lo + 1})
	b := f.nodeStates(k).NodeUnits(Range{hi, hi + 1})
	return Range{f.members[i].base + a.Lo, f.members[k].base + b.Hi}
}

// UnitNode implements NodeStates.
func (f *Federation) UnitNode(u int) int {
	i := f.memberOfUnit(u)
	return f.nodeBase(i) + f.nodeStates(i).UnitNode(u-f.members[i].base)
}

// eachMember calls fn with each member's part of r, in its own units.
func (f *Federation) eachMember(r Range, fn func(i int, own Range)) {
	for i := range f.members {
		m := &f.members[i]
		lo, hi := max(r.Lo, m.base), min(r.Hi, m.base+m.units)
		if lo < hi {
			fn(i, Range{lo - m.base, hi - m.base})
		}
	}
}

// UnitProcs implements NodeStates.
func (f *Federation) UnitProcs(r Range) int {
	n := 0
	f.eachMember(r, func(i int, own Range) { n += f.nodeStates(i).UnitProcs(own) })
	return n
}

// TakeFree implements NodeStates.
func (f *Federation) TakeFree(r Range, dst []Range) []Range {
	f.eachMember(r, func(i int, own Range) {
		first := len(dst)
		dst = f.nodeStates(i).TakeFree(own, dst)
		for k := first; k < len(dst); k++ {
			dst[k].Lo += f.members[i].base
			dst[k].Hi += f.members[i].base
		}
	})
	return dst
}

// PutBack implements NodeStates.
func (f *Federation) PutBack(rs []Range) {
	var own []Range
	for _, r := range rs {
		f.eachMember(r, func(i int, x Range) {
			own = append(own[:0], x)
			f.nodeStates(i).PutBack(own)
		})
	}
}

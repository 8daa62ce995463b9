package cluster

// Recommitter is implemented by node selectors that can tell whether a
// given allocation could be committed again as it is (Linear, ConsRes):
// a job suspended by preemption resumes on the resources it held, and
// only when they are all free again.
type Recommitter interface {
	// CanCommit reports whether every resource of rs is free now, and,
	// where memory is tracked, has room for r's memory: whether
	// Commit(r, rs) would succeed.
	CanCommit(r Request, rs []Range) bool
}

var (
	_ Recommitter = (*Linear)(nil)
	_ Recommitter = (*ConsRes)(nil)
	_ Recommitter = (*Federation)(nil)
)

// CanCommit implements Recommitter: every member's part of rs can be
// committed again on it (members that are not Recommitters cannot).
func (f *Federation) CanCommit(r Request, rs []Range) bool {
	ok := true
	check := func(a Allocator, q Request, own []Range) {
		rc, is := a.(Recommitter)
		ok = ok && is && rc.CanCommit(q, own)
	}
	if f.spans(rs) {
		f.parts(rs, func(i int, own []Range) {
			a := f.members[i].a
			check(a, partRequest(r, own, a), own)
		})
		return ok
	}
	i, own := f.member(rs)
	q := r
	q.Member = 0
	check(f.members[i].a, q, own)
	return ok
}

// CanCommit implements Recommitter: whole nodes, free.
func (l *Linear) CanCommit(_ Request, rs []Range) bool {
	for _, x := range rs {
		if x.Lo < 0 || x.Hi >= len(l.sum) || x.Lo >= x.Hi || !l.spans.has(x) {
			return false
		}
	}
	return true
}

// CanCommit implements Recommitter: free cores, and the memory r asks
// for each of them on its node.
func (c *ConsRes) CanCommit(r Request, rs []Range) bool {
	for _, x := range rs {
		if x.Lo < 0 || x.Hi > len(c.used) || x.Lo >= x.Hi {
			return false
		}
		for j := x.Lo; j < x.Hi; j++ {
			if c.used[j] {
				return false
			}
		}
	}
	if c.whole(r) {
		for _, x := range rs {
			for j := x.Lo; j < x.Hi; j++ {
				if nd := &c.nodes[c.node[j]]; nd.freeKB != nd.memKB {
					return false
				}
			}
		}
		return true
	}
	if r.MemKB <= 0 || c.memless {
		return true
	}
	// Memory per node: the cores of rs on it times r's memory per core
	// (rs is sorted, so a node's cores come together).
	nd, need := int32(-1), int64(0)
	fits := func() bool {
		n := &c.nodes[nd]
		return n.memKB == 0 || need <= n.freeKB
	}
	for _, x := range rs {
		for j := x.Lo; j < x.Hi; j++ {
			if c.node[j] != nd {
				if nd >= 0 && !fits() {
					return false
				}
				nd, need = c.node[j], 0
			}
			need += r.MemKB
		}
	}
	return nd < 0 || fits()
}

// ShareCaps returns how many jobs may run at once on each node under
// select/linear: a node of OverSubscribe=FORCE partitions only takes
// their count (ShareCount, else DefaultShareCount; the least of them for
// a node of several), any other node one. It returns nil when every node
// takes one job (no FORCE partition, or cons_res, whose FORCE schedsim
// does not model).
func (s *Spec) ShareCaps() []int {
	if s.Select == SelectConsRes {
		return nil
	}
	force := false
	for _, p := range s.Partitions {
		force = force || p.OverSubscribe == "FORCE"
	}
	if !force {
		return nil
	}
	first := map[string]int{}
	n := 0
	for _, g := range s.Groups {
		first[g.Name] = n
		n += g.Count
	}
	caps := make([]int, n)
	for _, p := range s.Partitions {
		c := 1
		if p.OverSubscribe == "FORCE" {
			c = p.ShareCount
			if c == 0 {
				c = DefaultShareCount
			}
		}
		for _, gname := range p.Groups {
			for _, g := range s.Groups {
				if g.Name != gname {
					continue
				}
				for i := first[g.Name]; i < first[g.Name]+g.Count; i++ {
					if caps[i] == 0 || c < caps[i] {
						caps[i] = c
					}
				}
			}
		}
	}
	shares := false
	for i := range caps {
		caps[i] = max(caps[i], 1)
		shares = shares || caps[i] > 1
	}
	if !shares {
		return nil
	}
	return caps
}

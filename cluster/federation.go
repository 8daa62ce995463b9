package cluster

import (
	"fmt"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// Federation is a cluster of clusters (SCore-D): several node selectors,
// each a cluster of identical hosts with a speed, managed together.
// SCore-D assigns a job its cluster at submission (SPEC §5; Assign): among
// the members that could ever hold it, its partition's limits (processors,
// MaxTime) included, the least loaded relative to its speed (busy fraction
// / speed), equal loads going to the faster member, then to the first; the
// job then waits for that member's resources (Request.Member). With
// AtStart, a job is not assigned: it goes to a member that can run it now,
// chosen the same way among those, when it starts. Resource ids are the
// members' ids, the later members' shifted past the earlier ones' (Units).
//
// A job's run time on a member scales by RefSpeed / the member's speed
// (Scale gives the factor for an allocation; sim.Engine applies it), unless
// NoSpeedScaling: scaling is schedsim's own model, SCore-D uses speed only
// to compare loads.
type Federation struct {
	members []member
	// RefSpeed is the speed the trace's run times were measured at
	// (default 1).
	RefSpeed float64
	// AtStart chooses a job's member when it starts, among those that
	// can run it then, instead of assigning it one at submission.
	AtStart bool
	// NoSpeedScaling keeps run times as the trace gives them on every
	// member (Scale returns 1).
	NoSpeedScaling bool
	waiting        []int // processors of the jobs assigned to each member and not started (Assign, Waiting)
	scratch        []Range
}

type member struct {
	a     Allocator
	speed float64
	base  int // first resource id
	units int // resource ids it uses
}

var _ Allocator = (*Federation)(nil)

// FederationMember is one cluster of a Federation.
type FederationMember struct {
	// Alloc is the member's node selector (a *Linear or *ConsRes).
	Alloc Allocator
	// Speed is the member's relative speed; 0 means 1.
	Speed float64
	// Units is the number of resource ids its allocations use: its nodes
	// under Linear, its cores under ConsRes.
	Units int
}

// NewFederation returns the cluster of clusters of ms, all free. It panics
// if ms is empty or a member's speed is negative.
func NewFederation(ms []FederationMember) *Federation {
	if len(ms) == 0 {
		panic("cluster: a federation of no clusters")
	}
	f := &Federation{RefSpeed: 1, waiting: make([]int, len(ms))}
	base := 0
	for _, m := range ms {
		if m.Speed < 0 {
			panic(fmt.Sprintf("cluster: negative speed %g", m.Speed))
		}
		sp := m.Speed
		if sp == 0 {
			sp = 1
		}
		f.members = append(f.members, member{a: m.Alloc, speed: sp, base: base, units: m.Units})
		base += m.Units
	}
	return f
}

// MemberOf returns a Spec's member of a federation: its selector, speed
// (its first group's; a cluster is a set of identical hosts) and units.
func MemberOf(s *Spec) (FederationMember, error) {
	a, err := s.NewAllocator()
	if err != nil {
		return FederationMember{}, err
	}
	units := s.Nodes()
	if s.Select == SelectConsRes {
		units = s.Cores()
	}
	return FederationMember{Alloc: a, Speed: s.Groups[0].Speed, Units: units}, nil
}

// Capacity implements Allocator.
func (f *Federation) Capacity() int {
	n := 0
	for _, m := range f.members {
		n += m.a.Capacity()
	}
	return n
}

// Free implements Allocator.
func (f *Federation) Free() int {
	n := 0
	for _, m := range f.members {
		n += m.a.Free()
	}
	return n
}

// Spanning is Request.Member for a job assigned several members together:
// SCore-D gives a job that no single cluster can hold a cluster of clusters
// (SPEC §5).
const Spanning = -1

// TestOnly implements Allocator: some member can ever run r, or, unless
// AtStart, several together can (a job assigned at submission that no
// single cluster can hold gets a cluster of clusters).
func (f *Federation) TestOnly(r Request) (bool, string) {
	var why []string
	if r.Member != Spanning {
		for i, m := range f.members {
			ok, reason := m.a.TestOnly(r)
			if ok {
				return true, ""
			}
			why = append(why, fmt.Sprintf("cluster %d: %s", i+1, reason))
		}
	}
	if !f.AtStart {
		if n := f.spanTotal(r, f.everHolds); n >= r.Procs {
			return true, ""
		} else if r.Member == Spanning || len(f.members) > 1 {
			why = append(why, fmt.Sprintf("the clusters together can hold %d of its processors", n))
		}
	}
	return false, strings.Join(why, "; ")
}

// everHolds returns how many of r's processors member m could ever hold
// (all of it idle, its partition's limits kept).
func (f *Federation) everHolds(m Allocator, r Request) int {
	return most(r, func(q Request) bool { ok, _ := m.TestOnly(q); return ok })
}

// holdsNow returns how many of r's processors member m could hold now.
func (f *Federation) holdsNow(m Allocator, r Request) int {
	if pt, ok := m.(partitionTimer); ok && !pt.timeOK(r) {
		return 0
	}
	return most(r, m.Fits)
}

// most returns the largest k ≤ r.Procs for which ok holds of r with k
// processors (ok being monotone: true up to some k), or 0.
func most(r Request, ok func(Request) bool) int {
	lo, hi := 0, r.Procs // ok(lo) assumed; find the largest
	for lo < hi {
		mid := (lo + hi + 1) / 2
		q := r
		q.Procs, q.Member = mid, 0
		if ok(q) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// spanTotal returns what the members, each holding what holds says, hold
// of r together (stopping once they hold all of it).
func (f *Federation) spanTotal(r Request, holds func(Allocator, Request) int) int {
	n := 0
	for _, m := range f.members {
		if n += holds(m.a, r); n >= r.Procs {
			break
		}
	}
	return n
}

// Fits implements Allocator.
func (f *Federation) Fits(r Request) bool { return f.choose(r) >= 0 }

// Assign returns the member (1 for the first) a job of request r is
// assigned at its submission: of the members that could ever hold it, the
// least loaded relative to its speed now (see Federation); 0 when none can
// or with AtStart (the job is then placed when it starts, on any member).
func (f *Federation) Assign(r Request) int {
	if f.AtStart {
		return 0
	}
	r.Member = 0
	k := f.pick(r, func(m Allocator) bool {
		ok, _ := m.TestOnly(r)
		return ok
	}) + 1
	if k == 0 {
		return Spanning // TestOnly let it in: the clusters together hold it
	}
	r.Member = k
	f.Waiting(r, true)
	return k
}

// Waiting counts (wait) or no longer counts a job of request r, assigned
// its member r.Member, in that member's load while it waits: a job
// assigned at submission loads its cluster from then on, so that jobs
// submitted together spread out. The engine calls it with false when the
// job leaves the queue (started or not) and with true when it comes back.
func (f *Federation) Waiting(r Request, wait bool) {
	if k := r.Member; k > 0 && k <= len(f.members) {
		if wait {
			f.waiting[k-1] += r.Procs
		} else {
			f.waiting[k-1] -= r.Procs
		}
	}
}

// choose returns the member r goes to now, or -1 if none can run it now:
// its assigned member (Request.Member) if that one can, else, for a job
// not assigned, the least loaded of those that can.
func (f *Federation) choose(r Request) int {
	if r.Member == Spanning {
		if f.spanTotal(r, f.holdsNow) >= r.Procs {
			return len(f.members)
		}
		return -1
	}
	if k := r.Member; k > 0 && k <= len(f.members) {
		m := f.members[k-1].a
		if !m.Fits(r) {
			return -1
		}
		if pt, ok := m.(partitionTimer); ok && !pt.timeOK(r) {
			return -1
		}
		return k - 1
	}
	return f.pick(r, func(m Allocator) bool { return m.Fits(r) })
}

// pick returns the least loaded member relative to its speed of those
// where ok holds, or -1. A member whose partition's MaxTime is shorter
// than r's requested time cannot run it (SPEC §5: a partition's limits
// hold on whichever member runs the job).
func (f *Federation) pick(r Request, ok func(Allocator) bool) int {
	return LeastLoaded(len(f.members), func(i int) (MemberLoad, bool) {
		m := &f.members[i]
		if !ok(m.a) {
			return MemberLoad{}, false
		}
		if pt, ok := m.a.(partitionTimer); ok && !pt.timeOK(r) {
			return MemberLoad{}, false
		}
		c := m.a.Capacity()
		return MemberLoad{Used: c - m.a.Free() + f.waiting[i], Capacity: c, Speed: m.speed}, true
	})
}

// MemberLoad is what the assignment at submission compares of a member of
// a cluster of clusters (SPEC §5): the processors it has in use (busy, plus
// those of the jobs assigned to it and not started), its processors and its
// speed (> 0).
type MemberLoad struct {
	Used, Capacity int
	Speed          float64
}

// LeastLoaded returns, of the n members for which load reports true, the
// least loaded relative to its speed (Used / Capacity / Speed); equal
// loads go to the faster member, then to the first. It returns -1 when
// load reports false for every member. It is the one rule of SCore-D's
// assignment at submission, for the main engine's Federation and for
// SCore-D's queues on a cluster of clusters.
func LeastLoaded(n int, load func(i int) (MemberLoad, bool)) int {
	best := -1
	var bestLoad, bestSpeed float64
	for i := range n {
		m, ok := load(i)
		if !ok {
			continue
		}
		l := float64(m.Used) / float64(m.Capacity) / m.Speed
		if best < 0 || l < bestLoad || (l == bestLoad && m.Speed > bestSpeed) {
			best, bestLoad, bestSpeed = i, l, m.Speed
		}
	}
	return best
}

// RunNow implements Allocator.
func (f *Federation) RunNow(r Request, dst []Range) ([]Range, bool) {
	i := f.choose(r)
	if i < 0 {
		return dst, false
	}
	first := len(dst)
	if i == len(f.members) {
		// Spanning: each member in turn holds what it can of the rest.
		rem := r.Procs
		for k := range f.members {
			m := &f.members[k]
			q := r
			q.Member, q.Procs = 0, rem
			q.Procs = f.holdsNow(m.a, q)
			if q.Procs == 0 {
				continue
			}
			from := len(dst)
			dst, _ = m.a.RunNow(q, dst)
			for j := from; j < len(dst); j++ {
				dst[j].Lo += m.base
				dst[j].Hi += m.base
			}
			if from > first && from < len(dst) && dst[from-1].Hi == dst[from].Lo {
				// Consecutive across the clusters' edge: one range.
				dst[from-1].Hi = dst[from].Hi
				dst = append(dst[:from], dst[from+1:]...)
			}
			if rem -= q.Procs; rem <= 0 {
				break
			}
		}
		return dst, true
	}
	dst, _ = f.members[i].a.RunNow(r, dst)
	for k := first; k < len(dst); k++ {
		dst[k].Lo += f.members[i].base
		dst[k].Hi += f.members[i].base
	}
	return dst, true
}

// parts calls fn with each member holding some of rs (sorted) and its part
// of rs in the member's own ids, in member order; a range across a
// cluster's edge is cut there.
func (f *Federation) parts(rs []Range, fn func(i int, own []Range)) {
	for i := range f.members {
		m := &f.members[i]
		var own []Range
		for _, x := range rs {
			lo, hi := max(x.Lo, m.base), min(x.Hi, m.base+m.units)
			if lo < hi {
				own = append(own, Range{lo - m.base, hi - m.base})
			}
		}
		if len(own) > 0 {
			fn(i, own)
		}
	}
	if n := len(rs); n > 0 && (rs[0].Lo < 0 || rs[n-1].Hi > f.members[len(f.members)-1].base+f.members[len(f.members)-1].units) {
		panic(fmt.Sprintf("cluster: allocation %v beyond the clusters", rs))
	}
}

// spans reports whether rs lies on more than one member.
func (f *Federation) spans(rs []Range) bool {
	if len(rs) == 0 {
		return false
	}
	i := len(f.members) - 1
	for i > 0 && f.members[i].base > rs[0].Lo {
		i--
	}
	return rs[len(rs)-1].Hi > f.members[i].base+f.members[i].units
}

// partRequest is the request of r a member holds as own: r with the
// processors of own on it (its cores: whole nodes, or cores).
func partRequest(r Request, own []Range, a Allocator) Request {
	q := r
	q.Member, q.Procs = 0, 0
	for _, x := range own {
		q.Procs += x.Len()
	}
	if l, ok := a.(*Linear); ok {
		q.Procs = 0
		for _, x := range own {
			q.Procs += l.cores(x)
		}
	}
	return q
}

// member returns the index of the member that holds rs and rs shifted to
// its own ids (in f's scratch). It panics if rs spans several members.
func (f *Federation) member(rs []Range) (int, []Range) {
	if len(rs) == 0 {
		panic("cluster: an empty allocation")
	}
	i := len(f.members) - 1
	for i > 0 && f.members[i].base > rs[0].Lo {
		i--
	}
	m := &f.members[i]
	f.scratch = f.scratch[:0]
	for _, x := range rs {
		if x.Lo < m.base || x.Hi > m.base+m.units {
			panic(fmt.Sprintf("cluster: allocation %v spans clusters", rs))
		}
		f.scratch = append(f.scratch, Range{x.Lo - m.base, x.Hi - m.base})
	}
	return i, f.scratch
}

// Commit implements Allocator.
func (f *Federation) Commit(r Request, rs []Range) int {
	if f.spans(rs) {
		n := 0
		f.parts(rs, func(i int, own []Range) {
			a := f.members[i].a
			n += a.Commit(partRequest(r, own, a), own)
		})
		return n
	}
	i, own := f.member(rs)
	return f.members[i].a.Commit(r, own)
}

// Release implements Allocator.
func (f *Federation) Release(r Request, rs []Range) int {
	if f.spans(rs) {
		n := 0
		f.parts(rs, func(i int, own []Range) {
			a := f.members[i].a
			n += a.Release(partRequest(r, own, a), own)
		})
		return n
	}
	i, own := f.member(rs)
	return f.members[i].a.Release(r, own)
}

// Scale returns the factor a job's run time is multiplied by on the
// allocation rs: RefSpeed / the speed of the member holding it.
//
// A job spanning members runs at the pace of the slowest of them.
func (f *Federation) Scale(rs []Range) float64 {
	if f.NoSpeedScaling {
		return 1
	}
	ref := f.RefSpeed
	if ref <= 0 {
		ref = 1
	}
	if f.spans(rs) {
		slow := 0.0
		f.parts(rs, func(i int, _ []Range) {
			if sp := f.members[i].speed; slow == 0 || sp < slow {
				slow = sp
			}
		})
		return ref / slow
	}
	i, _ := f.member(rs)
	return ref / f.members[i].speed
}

// DefaultTimeOn returns the time limit the partition of the member holding
// rs gives a job r without one (Slurm's DefaultTime, else MaxTime; 0: none).
//
// A job spanning members gets the shortest of their limits.
func (f *Federation) DefaultTimeOn(r Request, rs []Range) workload.Time {
	if f.spans(rs) {
		var t workload.Time
		f.parts(rs, func(i int, _ []Range) {
			if d, ok := f.members[i].a.(DefaultTimer); ok {
				if x := d.DefaultTime(r); x > 0 && (t == 0 || x < t) {
					t = x
				}
			}
		})
		return t
	}
	i, _ := f.member(rs)
	if d, ok := f.members[i].a.(DefaultTimer); ok {
		return d.DefaultTime(r)
	}
	return 0
}

// cloneInto implements CloneInto for a federation.
func (f *Federation) cloneInto(dst Allocator) Allocator {
	d, _ := dst.(*Federation)
	if d == nil || d == f || len(d.members) != len(f.members) {
		d = &Federation{members: make([]member, len(f.members))}
	}
	for i, m := range f.members {
		prev := d.members[i].a
		d.members[i] = m
		d.members[i].a = CloneInto(prev, m.a)
	}
	d.RefSpeed, d.AtStart, d.NoSpeedScaling = f.RefSpeed, f.AtStart, f.NoSpeedScaling
	d.waiting = append(d.waiting[:0], f.waiting...)
	return d
}

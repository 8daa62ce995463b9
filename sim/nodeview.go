package sim

import (
	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
)

// NodeChanges implements policy.NodeViewer: the node events applied since
// the previous pass.
func (e *Engine) NodeChanges() []policy.NodeChange { return e.nodes.log }

// RunningSeq implements policy.NodeViewer.
func (e *Engine) RunningSeq(k int) int64 { return e.running[k].seq }

// Epoch implements policy.NodeViewer: promises made in an earlier epoch
// are void.
func (e *Engine) Epoch() uint32 { return e.epoch }

// Promises implements policy.NodeViewer.
func (e *Engine) Promises() bool { return e.promises }

// Promises implements policy.NodeViewer.
func (v *consView) Promises() bool { return v.e.promises }

// NodeChanges implements policy.NodeViewer.
func (v *consView) NodeChanges() []policy.NodeChange { return v.e.nodes.log }

// RunningSeq implements policy.NodeViewer.
func (v *consView) RunningSeq(k int) int64 { return v.e.running[k].seq }

// Epoch implements policy.NodeViewer.
func (v *consView) Epoch() uint32 { return v.e.epoch }

var (
	_ policy.NodeViewer = (*Engine)(nil)
	_ policy.NodeViewer = allocView{}
	_ policy.NodeViewer = (*consView)(nil)
)

// Placed implements policy.PlacementViewer: the processors the job of
// queue index i holds and its nodes (the allocation units of a core
// selector, cons_res, mapped to their nodes).
func (v allocView) Placed(i int, dst []cluster.Range) (int, []cluster.Range) {
	s := &v.slots[v.queue[i]]
	ns, ok := v.alloc.(cluster.NodeStates)
	if !ok {
		return int(s.held), append(dst, s.alloc...)
	}
	for _, r := range s.alloc {
		for u := r.Lo; u < r.Hi; {
			n := ns.UnitNode(u)
			if k := len(dst); k > 0 && dst[k-1].Hi >= n {
				dst[k-1].Hi = max(dst[k-1].Hi, n+1)
			} else {
				dst = append(dst, cluster.Range{Lo: n, Hi: n + 1})
			}
			u = max(u+1, ns.NodeUnits(cluster.Range{Lo: n, Hi: n + 1}).Hi)
		}
	}
	return int(s.held), dst
}

// Placed implements policy.PlacementViewer on a cluster of nodes.
func (v *consView) Placed(i int, dst []cluster.Range) (int, []cluster.Range) {
	pv, ok := v.inner.(policy.PlacementViewer)
	if !ok {
		return v.slot(i).job.Procs, dst
	}
	return pv.Placed(v.cs.visible[i], dst)
}

var (
	_ policy.PlacementViewer = allocView{}
	_ policy.PlacementViewer = (*consView)(nil)
)

// Refusal implements policy.Refuser: the pending reason the calendar and
// the limits give queued job i now, as consPass names them.
func (v *consView) Refusal(i int) string {
	s := v.slot(i)
	cs, e := v.cs, v.e
	switch {
	case cs.hasLimits && !cs.limitsAllow(&s.job):
		return "limit"
	case cs.startFrom(&s.job, s.limit, e.now) != e.now:
		return "start window"
	case s.job.Procs <= e.freeProcs() && (!e.clearOfReservations(s) || (cs.pins != nil && e.alloc.Fits(s.request()) && !e.fitsPinned(s))):
		return "reservation"
	}
	return ""
}

var _ policy.Refuser = (*consView)(nil)

// IndexOfSeq returns the index of the queued job with Seq seq in the
// queue the policy sees, or −1: a binary search while the queue is in
// arrival order (an external policy names jobs by Seq).
func (v *consView) IndexOfSeq(seq int64) int {
	vis := v.cs.visible
	key := func(k int) int64 { return v.e.slots[v.e.queue[vis[k]]].job.Seq }
	if v.e.ArrivalOrder() {
		lo, hi := 0, len(vis)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if key(m) < seq {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < len(vis) && key(lo) == seq {
			return lo
		}
		return -1
	}
	for k := range vis {
		if key(k) == seq {
			return k
		}
	}
	return -1
}

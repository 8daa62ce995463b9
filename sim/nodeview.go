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

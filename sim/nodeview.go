package sim

import "github.com/schedsim/schedsim/policy"

// NodeChanges implements policy.NodeViewer: the node events applied since
// the previous pass.
func (e *Engine) NodeChanges() []policy.NodeChange { return e.nodes.log }

// RunningSeq implements policy.NodeViewer.
func (e *Engine) RunningSeq(k int) int64 { return e.running[k].seq }

// Epoch implements policy.NodeViewer: promises made in an earlier epoch
// are void.
func (e *Engine) Epoch() uint32 { return e.epoch }

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

package policy

import "github.com/schedsim/schedsim/cluster"

// NodeView is an optional interface of a View on a cluster of nodes
// (sim.Config.Allocator) whose selector knows its nodes
// (cluster.NodeUnits): what a plan made of node sets needs, such as
// Slurm's backfill, whose reservations are node bitmaps.
type NodeView interface {
	Fitter
	// Scratch returns a copy of the node selector's state now, for the
	// policy to change as it plans; it stays valid until the next call.
	Scratch() cluster.Allocator
	// Held returns running job k (in the order of View.Running): its
	// predicted end, its request and the resources it holds. The ranges
	// are valid during the pass only.
	Held(k int) cluster.Held
	// Request returns what queued job i asks of the node selector.
	Request(i int) cluster.Request
}

// NodeStarter is an optional interface of Decisions on a cluster of nodes
// (see NodeView).
type NodeStarter interface {
	// StartOn starts queued job i now on the resources rs, which RunNow
	// chose on a Scratch holding at least what the cluster holds now
	// (fewer nodes: those a plan keeps for other jobs). Resources that are
	// not idle, or too few, are a policy bug: the engine panics.
	StartOn(i int, rs []cluster.Range)
}

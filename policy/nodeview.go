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

// WholeQueue is an optional interface of a Policy that sees every queued
// job under limits (sim.Config.Constraints), those a limit holds
// included, and asks the View (Fitter, Refuser) whether each may start:
// an external program, which keeps its own copy of the queue, from which
// a job may not disappear while it waits. Other policies see the queue
// without the jobs a limit holds (which Slurm passes over).
type WholeQueue interface {
	Policy
	WholeQueue() bool
}

// Refuser is an optional interface of a View under reservations, start
// windows and limits (sim.Config.Constraints): why a queued job may not
// start now.
type Refuser interface {
	// Refusal returns why queued job i may not start now by the limits,
	// its start windows and the reservations: "limit", "start window"
	// or "reservation"; "" if they let it start (it may still not fit
	// the free processors or nodes).
	Refusal(i int) string
}

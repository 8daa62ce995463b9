package policy

import (
	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// NodeChange is a change of the state of some nodes that the engine
// applied (sim.Config.NodeEvents): a node event, with the running jobs it
// stopped.
type NodeChange struct {
	// At is when the change happened.
	At workload.Time
	// State is the nodes' new state (DOWN, DRAIN or RESUME).
	State cluster.NodeState
	// Nodes are the node numbers, as sorted half-open ranges.
	Nodes []cluster.Range
	// Reason is the administrator's note, possibly empty.
	Reason string
	// Stopped are the Seqs of the running jobs a DOWN stopped, in Seq
	// order; they are among View.Ended. Requeued reports that they went
	// back to the queue (sim.NodeFailRequeue) rather than being killed.
	Stopped  []int64
	Requeued bool
	// Power reports a switch of the power manager (sim.Config.Power)
	// rather than an administrator's event: a DOWN is an idle node
	// switched off (it stops no job), a RESUME a node back on.
	Power bool
}

// NodeViewer is an optional interface of a View whose machine changes
// during the run (the engine's, under node events): a policy that keeps
// its own copy of the machine's state (an external program) reads what
// changed from it.
type NodeViewer interface {
	// NodeChanges returns the node changes applied since the previous
	// pass, in order. The slice is valid during the pass only.
	NodeChanges() []NodeChange
	// RunningSeq returns the Seq of the k-th running job, in the order
	// of View.Running.
	RunningSeq(k int) int64
	// Epoch counts the events that voided every reservation promised
	// before them (a node event, a job released from its hold before
	// others): a promise made in an earlier epoch binds no more.
	Epoch() uint32
	// Promises reports whether the engine holds a policy to its
	// reservations (see Decisions.Reserve): not on a cluster of nodes,
	// where processor counts do not say where a job will fit, nor under
	// limits or an Estimator with reservations and start windows.
	Promises() bool
}

// PlacementViewer is an optional interface of a View on a cluster of nodes
// (sim.Config.Allocator): where the node selector placed a job a policy
// started.
type PlacementViewer interface {
	// Placed returns the processors that queued job i, started in this
	// pass, holds (more than it asked for when whole nodes are
	// allocated), and appends the nodes it runs on, as sorted half-open
	// ranges, to dst.
	Placed(i int, dst []cluster.Range) (held int, nodes []cluster.Range)
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

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
}

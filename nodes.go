package schedsim

import (
	"errors"
	"io/fs"
	"slices"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// nodeRun is the node-event schedule of a run, set by configureNodes.
type nodeRun struct {
	schedule []cluster.NodeEvent
	action   sim.NodeFailAction
	nodes    int
}

// configure reads the node-event schedule for a pool of procs processors,
// or for the nodes of cfg.Allocator, and sets it in cfg.
func (o *runner) configureNodes(cfg *sim.Config, procs int) error {
	n := &o.nodes
	opt := &o.NodeOptions
	if opt.NodeEvents == "" {
		if opt.OnNodeFail != "kill" && opt.OnNodeFail != "requeue" {
			return inputf("--on-node-fail %q: want kill or requeue", opt.OnNodeFail)
		}
		return nil
	}
	if opt.NodeSize < 1 {
		return inputf("--node-size %d: want at least 1 processor per node", opt.NodeSize)
	}
	size := opt.NodeSize
	if o.hostCores > 0 {
		// SCore-D's queues on a cluster of nodes: its hosts.
		if opt.NodeSize != 1 {
			return inputf("--node-size %d with a cluster of nodes: the nodes are the cluster's", opt.NodeSize)
		}
		size = o.hostCores
	}
	n.nodes = (procs + size - 1) / size
	if cfg.Allocator != nil {
		ns, ok := cfg.Allocator.(cluster.NodeStates)
		if !ok { // refused by checkCombinations
			return inputf("--node-events %s: %s and %s are not combined", opt.NodeEvents, FeatureClusters, FeatureNodeEvents)
		}
		if opt.NodeSize != 1 {
			return inputf("--node-size %d with a cluster of nodes: the nodes are the cluster's", opt.NodeSize)
		}
		n.nodes = ns.Nodes()
	}
	a, err := sim.ParseNodeFailAction(opt.OnNodeFail)
	if err != nil {
		return inputf("--on-node-fail %q: want kill or requeue", opt.OnNodeFail)
	}
	evs, err := cluster.OpenNodeEvents(opt.NodeEvents, n.nodes)
	if err != nil {
		var pe *workload.ParseError
		if errors.As(err, &pe) {
			return &InputError{err} // names the file, line and column
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return inputf("--node-events: %v", err)
		}
		return err
	}
	n.schedule, n.action = evs, a
	// The schedule's times are seconds (and stay so in summary.json);
	// the engine counts them in the run's ticks.
	tick, err := o.ticks()
	if err != nil {
		return err
	}
	cfg.NodeEvents, cfg.NodeSize, cfg.OnNodeFail = ticksOf(evs, tick), size, a
	return nil
}

// ticksOf returns the node events evs, whose times are seconds, with
// their times in ticks of 1/tick second (evs itself in seconds).
func ticksOf(evs []cluster.NodeEvent, tick int64) []cluster.NodeEvent {
	if tick <= 1 {
		return evs
	}
	out := slices.Clone(evs)
	for i := range out {
		out[i].At *= workload.Time(tick)
	}
	return out
}

// summarise records the run's node failures in s.
func (o *runner) summariseNodes(s *report.Summary, st sim.Stats, ts *report.TimeSeries) {
	if n := &o.nodes; o.NodeEvents != "" {
		size := o.NodeSize
		if o.hostCores > 0 {
			size = o.hostCores // SCore-D's hosts on a cluster of nodes
		}
		s.SetNodeFailures(n.schedule, n.nodes, size, n.action, st, ts)
	}
}

package main

import (
	"errors"
	"io/fs"

	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// nodeOptions are the node failure and maintenance options of a run.
type nodeOptions struct {
	events   string // --node-events FILE
	onFail   string // --on-node-fail kill|requeue
	nodeSize int    // --node-size N

	// set by configure
	schedule []cluster.NodeEvent
	action   sim.NodeFailAction
	nodes    int
}

func (n *nodeOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&n.events, "node-events", "", "node failures and maintenance: a file of lines TIME STATE NODES [REASON] (STATE DOWN, DRAIN or RESUME; NODES 17, 0-102 or 0-9,20-29; TIME in seconds, units s, m, h, d allowed; # comments), or a Parquet table with columns time, state, nodes, reason; see the README's Node failures section")
	fs.StringVar(&n.onFail, "on-node-fail", "kill", "with --node-events, the jobs running on a node that goes down are killed (kill) or put back in the queue at their place to run again (requeue)")
	fs.IntVar(&n.nodeSize, "node-size", 1, "with --node-events on the processor pool, processors per node: node n is processors n·N to n·N+N-1 (a [cluster] has its own nodes)")
}

// configure reads the node-event schedule for a pool of procs processors,
// or for the nodes of cfg.Allocator, and sets it in cfg.
func (n *nodeOptions) configure(cfg *sim.Config, procs int) error {
	if n.events == "" {
		if n.onFail != "kill" && n.onFail != "requeue" {
			return usagef("--on-node-fail %q: want kill or requeue", n.onFail)
		}
		return nil
	}
	if n.nodeSize < 1 {
		return usagef("--node-size %d: want at least 1 processor per node", n.nodeSize)
	}
	n.nodes = (procs + n.nodeSize - 1) / n.nodeSize
	if cfg.Allocator != nil {
		ns, ok := cfg.Allocator.(cluster.NodeStates)
		if !ok {
			return usagef("--node-events %s: node events on a cluster of clusters are not supported yet", n.events)
		}
		if n.nodeSize != 1 {
			return usagef("--node-size %d with a cluster of nodes: the nodes are the cluster's", n.nodeSize)
		}
		n.nodes = ns.Nodes()
	}
	a, err := sim.ParseNodeFailAction(n.onFail)
	if err != nil {
		return usagef("--on-node-fail %q: want kill or requeue", n.onFail)
	}
	evs, err := cluster.OpenNodeEvents(n.events, n.nodes)
	if err != nil {
		var pe *workload.ParseError
		if errors.As(err, &pe) {
			return usageError{err} // names the file, line and column
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return usagef("--node-events: %v", err)
		}
		return err
	}
	n.schedule, n.action = evs, a
	cfg.NodeEvents, cfg.NodeSize, cfg.OnNodeFail = evs, n.nodeSize, a
	return nil
}

// summarise records the run's node failures in s.
func (n *nodeOptions) summarise(s *report.Summary, st sim.Stats, ts *report.TimeSeries) {
	if n.events != "" {
		s.SetNodeFailures(n.schedule, n.nodes, n.nodeSize, n.action, st, ts)
	}
}

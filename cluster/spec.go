package cluster

import (
	"errors"
	"fmt"

	"github.com/schedsim/schedsim/workload"
)

// Names of the node selectors; they double as configuration values
// (Spec.Select, the [cluster] table's select key).
const (
	// SelectLinear allocates whole nodes (Slurm's select/linear).
	SelectLinear = "linear"
	// SelectConsRes allocates cores and memory within shared nodes
	// (Slurm's select/cons_res).
	SelectConsRes = "cons_res"
)

// MaxCores is the most cores a Spec may describe: workload.MaxMachineProcs
// (2^26, some 67 million: hundreds of times today's largest machines).
const MaxCores = workload.MaxMachineProcs

// MinSpeed and MaxSpeed bound a node group's relative speed (NodeGroup.Speed,
// 0 meaning 1): a job's run time on a member of a cluster of clusters is
// scaled by 1 / its speed, and a factor beyond 1000 either way is no model
// of real hosts. (A scaled run time that takes a run past workload.MaxTime
// stops the run with an error.)
const (
	MinSpeed = 1e-3
	MaxSpeed = 1e3
)

// ErrSpec is wrapped by every error of Spec.Validate.
var ErrSpec = errors.New("cluster: bad cluster description")

// Spec describes a cluster: its node groups, numbered in order (the first
// group's nodes are 0..Count-1, the next group's follow), its partitions and
// its node selector.
type Spec struct {
	// Select is the node selector: SelectLinear (default) or SelectConsRes.
	Select string
	// CRMemory makes memory a consumable resource of SelectLinear
	// (slurm.conf SelectTypeParameters=CR_Memory): a job's memory (SWF
	// field 10, KB per processor) must fit each node it gets. Without it
	// Linear allocates whole nodes regardless of memory, as Slurm's
	// select/linear does by default. SelectConsRes tracks memory whenever
	// the nodes have some.
	CRMemory bool
	// Groups are the node groups; every node of a group is identical.
	Groups []NodeGroup
	// Partitions are named sets of node groups with limits. A job goes to
	// the partition its SWF partition number names (Partition.SWF), else
	// to the default one (Default, else the first); it runs on that
	// partition's nodes only and is rejected at submission if it asks
	// for more processors than they have or a longer time than MaxTime.
	// Without partitions a job may use every node.
	Partitions []Partition
	// Preempt is Slurm's preemption by partition priority (slurm.conf
	// PreemptType=preempt/partition_prio with PreemptMode): what becomes
	// of a running job that a job of a partition of a higher
	// PriorityTier preempts: PreemptSuspend, PreemptRequeue or
	// PreemptCancel; "" (PreemptOff): no preemption.
	Preempt string
	// PreemptYoungestFirst orders the preemption candidates by start,
	// latest first (Slurm's preempt_youngest_first).
	PreemptYoungestFirst bool
	// Tick is the run's ticks a second (0 or 1: seconds). The
	// partitions' MaxTime and DefaultTime are given in seconds and
	// count in ticks: the node selectors compare them with requests in
	// the run's ticks.
	Tick workload.Time
}

// Values of Spec.Preempt; they double as configuration values.
const (
	PreemptOff     = ""
	PreemptSuspend = "suspend"
	PreemptRequeue = "requeue"
	PreemptCancel  = "cancel"
)

// NodeGroup is a set of identical nodes.
type NodeGroup struct {
	Name     string
	Count    int      // number of nodes, ≥ 1
	Cores    int      // processors (cores) per node, ≥ 1
	MemoryMB int64    // memory per node, MB; 0: not tracked
	Speed    float64  // relative speed; 0 means 1
	Features []string // node features (Slurm's Feature)
}

// Partition is a named set of node groups with limits (Slurm's PartitionName).
type Partition struct {
	Name          string
	Groups        []string      // names of the node groups it holds
	MaxTime       workload.Time // longest run time allowed, s; 0: unlimited
	DefaultTime   workload.Time // run time given to a job without one, s; 0: none
	PriorityTier  int           // higher tiers are scheduled first
	OverSubscribe string        // Slurm's OverSubscribe: NO, YES, EXCLUSIVE, FORCE ("" = NO)
	// ShareCount is FORCE's count (OverSubscribe=FORCE:N): how many jobs
	// may share a node at once; 0 means Slurm's default, DefaultShareCount.
	ShareCount int
	Default    bool // the default partition
	// SWF is the SWF partition number (field 16) routed here; 0: the
	// partition's position in Spec.Partitions, from 1; −1: none (the
	// partition gets only jobs routed to the default partition).
	SWF int
}

// DefaultShareCount is how many jobs share a node of an
// OverSubscribe=FORCE partition without a count ("default 4 jobs per
// node"), and MaxShareCount the most schedsim accepts.
const (
	DefaultShareCount = 4
	MaxShareCount     = 1 << 10
)

// SinglePool returns the description that models a Machine of procs
// processors: one group of procs single-core nodes under SelectLinear.
func SinglePool(procs int) *Spec {
	return &Spec{Select: SelectLinear, Groups: []NodeGroup{{Name: "node", Count: procs, Cores: 1}}}
}

// Nodes returns the number of nodes.
func (s *Spec) Nodes() int {
	n := 0
	for _, g := range s.Groups {
		n += g.Count
	}
	return n
}

// Cores returns the number of processors (cores) of all nodes.
func (s *Spec) Cores() int {
	n := 0
	for _, g := range s.Groups {
		n += g.Count * g.Cores
	}
	return n
}

// Validate checks the description; its errors wrap ErrSpec.
func (s *Spec) Validate() error {
	switch s.Select {
	case "", SelectLinear, SelectConsRes:
	default:
		return fmt.Errorf("%w: select %q: want %q or %q", ErrSpec, s.Select, SelectLinear, SelectConsRes)
	}
	if len(s.Groups) == 0 {
		return fmt.Errorf("%w: no node groups", ErrSpec)
	}
	names := make(map[string]bool, len(s.Groups))
	total := 0
	for i, g := range s.Groups {
		switch {
		case g.Name == "":
			return fmt.Errorf("%w: node group %d has no name", ErrSpec, i+1)
		case names[g.Name]:
			return fmt.Errorf("%w: node group %q defined twice", ErrSpec, g.Name)
		case g.Count < 1:
			return fmt.Errorf("%w: node group %q: count %d, want ≥ 1", ErrSpec, g.Name, g.Count)
		case g.Cores < 1:
			return fmt.Errorf("%w: node group %q: cores %d, want ≥ 1", ErrSpec, g.Name, g.Cores)
		case g.MemoryMB < 0:
			return fmt.Errorf("%w: node group %q: memory_mb %d is negative", ErrSpec, g.Name, g.MemoryMB)
		case g.MemoryMB > workload.MaxMemKB/1024:
			return fmt.Errorf("%w: node group %q: memory_mb %d is %w: at most %d MB (64 TiB) per node", ErrSpec, g.Name, g.MemoryMB, workload.ErrLimit, workload.MaxMemKB/1024)
		case g.Speed != 0 && !(g.Speed >= MinSpeed && g.Speed <= MaxSpeed):
			return fmt.Errorf("%w: node group %q: speed %g: want a relative speed from %g to %g (or 0, which means 1)", ErrSpec, g.Name, g.Speed, MinSpeed, MaxSpeed)
		}
		names[g.Name] = true
		// Each factor first, so that the product cannot overflow.
		if g.Count > MaxCores || g.Cores > MaxCores || g.Count*g.Cores > MaxCores-total {
			return fmt.Errorf("%w: node group %q: %d nodes of %d cores take the cluster %w: more than %d cores", ErrSpec, g.Name, g.Count, g.Cores, workload.ErrLimit, MaxCores)
		}
		total += g.Count * g.Cores
	}
	switch s.Preempt {
	case PreemptOff, PreemptSuspend, PreemptRequeue, PreemptCancel:
	default:
		return fmt.Errorf("%w: preempt %q: want suspend, requeue or cancel", ErrSpec, s.Preempt)
	}
	parts := make(map[string]bool, len(s.Partitions))
	for i, p := range s.Partitions {
		switch {
		case p.Name == "":
			return fmt.Errorf("%w: partition %d has no name", ErrSpec, i+1)
		case parts[p.Name]:
			return fmt.Errorf("%w: partition %q defined twice", ErrSpec, p.Name)
		case p.SWF < -1:
			return fmt.Errorf("%w: partition %q: swf %d is negative", ErrSpec, p.Name, p.SWF)
		case p.MaxTime < 0 || p.DefaultTime < 0:
			return fmt.Errorf("%w: partition %q: negative time limit", ErrSpec, p.Name)
		case p.MaxTime > workload.MaxTime || p.DefaultTime > workload.MaxTime:
			return fmt.Errorf("%w: partition %q: a time limit is %w: at most %d s (workload.MaxTime)", ErrSpec, p.Name, workload.ErrLimit, workload.MaxTime)
		case p.MaxTime > 0 && p.DefaultTime > p.MaxTime:
			return fmt.Errorf("%w: partition %q: default time %d exceeds max time %d", ErrSpec, p.Name, p.DefaultTime, p.MaxTime)
		}
		switch p.OverSubscribe {
		case "", "NO", "YES", "EXCLUSIVE", "FORCE":
		default:
			return fmt.Errorf("%w: partition %q: oversubscribe %q: want NO, YES, EXCLUSIVE or FORCE", ErrSpec, p.Name, p.OverSubscribe)
		}
		switch {
		case p.ShareCount < 0 || p.ShareCount > MaxShareCount:
			return fmt.Errorf("%w: partition %q: oversubscribe count %d: want 1 to %d", ErrSpec, p.Name, p.ShareCount, MaxShareCount)
		case p.OverSubscribe == "FORCE" && s.CRMemory && s.Select != SelectConsRes:
			return fmt.Errorf("%w: partition %q: OverSubscribe=FORCE with CR_Memory under linear (memory shared by the jobs of a node) is not modelled", ErrSpec, p.Name)
		}
		parts[p.Name] = true
		for _, g := range p.Groups {
			if !names[g] {
				return fmt.Errorf("%w: partition %q names unknown node group %q", ErrSpec, p.Name, g)
			}
		}
	}
	return nil
}

// NewAllocator validates s and returns its node selector, all nodes free.
func (s *Spec) NewAllocator() (Allocator, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Select == SelectConsRes {
		return NewConsRes(s), nil
	}
	return NewLinear(s), nil
}

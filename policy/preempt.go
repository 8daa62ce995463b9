package policy

import "fmt"

// Preempter is an optional interface of Decisions: the engine's preemption
// by partition priority (Slurm's preempt/partition_prio). A policy that
// finds a queued job it could not start asks the engine to start it by
// preempting running jobs of a lower tier; the engine, like Slurm's select
// plugins, chooses which of the candidates must go and what becomes of
// them (the run's PreemptMode).
type Preempter interface {
	// Preempt starts queued job i now, preempting running jobs of a tier
	// lower than its own if it does not fit otherwise. It reports whether
	// the job started (false: it was started already in this pass, or even
	// with every candidate gone it would not fit; nothing changed), and
	// whether a job of a lower tier than job i's could still preempt
	// (false: no running job has a tier lower than job i's, so no job
	// after it in tier order can preempt either).
	Preempt(i int) (started, more bool)
}

// PartitionPrio is Slurm's preemption by partition priority
// (preempt/partition_prio) around another policy: after the inner
// policy's pass, every job it left queued, in the queue's order, may start
// by preempting running jobs of lower tiers (Preempter), as Slurm's
// schedulers try, for a job that cannot start otherwise, the select
// plugin with the preemptable jobs as candidates. Without a Preempter
// (an engine without preemption) it is the inner policy.
//
// The queue's order is the one Ordered (WithTiers) gives: tiers first, so
// the walk stops at the first job that no running job's tier is below.
type PartitionPrio struct {
	// Inner is the scheduling policy (FCFS, EASY, Slurm's backfill).
	Inner Policy
	// Mode is the engine's preemption mode, for the name.
	Mode PreemptMode
}

var _ Policy = (*PartitionPrio)(nil)

// Name implements Policy: the inner policy's name with "+preempt=MODE".
func (p *PartitionPrio) Name() string { return p.Inner.Name() + "+preempt=" + p.Mode.String() }

// Schedule implements Policy.
func (p *PartitionPrio) Schedule(v View, d Decisions) {
	p.Inner.Schedule(v, d)
	pr, ok := d.(Preempter)
	if !ok {
		return
	}
	for i, n := 0, v.Len(); i < n; i++ {
		if _, more := pr.Preempt(i); !more {
			return
		}
	}
}

// MarshalBinary implements encoding.BinaryMarshaler: PartitionPrio keeps
// no state of its own, so its state is the inner policy's.
func (p *PartitionPrio) MarshalBinary() ([]byte, error) {
	inner, ok := p.Inner.(interface{ MarshalBinary() ([]byte, error) })
	if !ok {
		return nil, fmt.Errorf("policy: %s does not save its state", p.Inner.Name())
	}
	return inner.MarshalBinary()
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler (see MarshalBinary).
func (p *PartitionPrio) UnmarshalBinary(b []byte) error {
	inner, ok := p.Inner.(interface{ UnmarshalBinary([]byte) error })
	if !ok {
		return fmt.Errorf("policy: %s does not restore its state", p.Inner.Name())
	}
	return inner.UnmarshalBinary(b)
}

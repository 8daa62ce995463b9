package schedsim

import (
	"fmt"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
)

// preemption returns the policy and the engine's preemption for the
// cluster spec's Slurm preemption by partition priority (slurm.conf
// PreemptType=preempt/partition_prio, or [cluster] preempt): pol with
// policy.PartitionPrio inside its tier order, and the sim.Preemption the
// engine applies. Without it, or when the partitions have one
// PriorityTier (no job could preempt another), pol and nil.
func (o *runner) preemption(spec *cluster.Spec, pol policy.Policy) (policy.Policy, *sim.Preemption, error) {
	for _, m := range o.members {
		if m.Preempt != cluster.PreemptOff {
			return nil, nil, inputf("preemption by partition priority (preempt = %q) runs on one cluster, not on [[clusters]]", m.Preempt)
		}
	}
	if spec.Preempt == cluster.PreemptOff {
		return pol, nil, nil
	}
	tier := partitionTiers(spec)
	if tier == nil {
		o.notes = append(o.notes, fmt.Sprintf("preemption (%s): the partitions all have one PriorityTier, so no job can preempt another", spec.Preempt))
		return pol, nil, nil
	}
	var mode policy.PreemptMode
	switch spec.Preempt {
	case cluster.PreemptSuspend:
		mode = policy.PreemptSuspend
	case cluster.PreemptRequeue:
		mode = policy.PreemptRequeue
	default:
		mode = policy.PreemptCancel
	}
	if od, ok := pol.(*policy.Ordered); ok {
		od.Inner = &policy.PartitionPrio{Inner: od.Inner, Mode: mode}
	} else {
		pol = &policy.PartitionPrio{Inner: pol, Mode: mode}
	}
	return pol, &sim.Preemption{Mode: mode, Tier: tier, YoungestFirst: spec.PreemptYoungestFirst}, nil
}

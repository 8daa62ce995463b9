package schedsim

import (
	"fmt"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// preemption returns the policy and the engine's preemption for the
// cluster spec's Slurm preemption by partition priority (slurm.conf
// PreemptType=preempt/partition_prio, or [cluster] preempt): pol with
// policy.PartitionPrio inside its tier order, and the sim.Preemption the
// engine applies. Without it, or when the partitions have one
// PriorityTier (no job could preempt another), pol and nil.
func (o *runner) preemption(spec *cluster.Spec, pol policy.Policy) (policy.Policy, *sim.Preemption, error) {
	tier := partitionTiers(spec)
	if len(o.members) > 0 {
		var err error
		if spec, tier, err = o.membersPreemption(); err != nil || spec == nil {
			return pol, nil, err
		}
		if tier != nil {
			pol = policy.WithTiers(pol, tier) // the union has no partitions: run.go could not
		}
	}
	if spec.Preempt == cluster.PreemptOff {
		return pol, nil, nil
	}
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

// membersPreemption returns, for a cluster of clusters ([[clusters]]),
// the preemption its members ask for: a member's spec that carries the
// mode, and the jobs' tiers. Each member is a cluster of its own, as in a
// Slurm federation each cluster preempts among its own jobs; schedsim
// runs one PreemptMode, so the members must agree on it, and on the
// PriorityTier of every partition number (a job's tier is set at its
// submission, before its member is). It returns a nil spec when no member
// preempts, and a nil tier when every partition has one tier.
func (o *runner) membersPreemption() (*cluster.Spec, func(j *workload.Job) int, error) {
	first := o.members[0]
	for i, m := range o.members {
		if m.Preempt != first.Preempt || m.PreemptYoungestFirst != first.PreemptYoungestFirst {
			return nil, nil, inputf("[[clusters]] %d preempts as %q (youngest first %v), [[clusters]] 1 as %q (%v): the clusters of a cluster of clusters run one preemption mode",
				i+1, orOff(m.Preempt), m.PreemptYoungestFirst, orOff(first.Preempt), first.PreemptYoungestFirst)
		}
	}
	if first.Preempt == cluster.PreemptOff {
		return nil, nil, nil
	}
	nums := []int{-1}
	for _, m := range o.members {
		for _, p := range m.Partitions {
			if p.SWF > 0 {
				nums = append(nums, p.SWF)
			}
		}
	}
	tierOf := func(m *cluster.Spec, n int) int {
		if route := m.Router(); route != nil {
			return m.Partitions[route(n)].PriorityTier
		}
		return 0
	}
	same := true
	for _, n := range nums {
		t0 := tierOf(first, n)
		for i, m := range o.members {
			if t := tierOf(m, n); t != t0 {
				return nil, nil, inputf("partition number %d has PriorityTier %d on [[clusters]] %d and %d on [[clusters]] 1: preemption on a cluster of clusters needs one tier per partition", n, t, i+1, t0)
			}
		}
		same = same && t0 == tierOf(first, nums[0])
	}
	if same {
		return first, nil, nil
	}
	route := first.Router()
	tiers := make([]int, len(first.Partitions))
	for i, p := range first.Partitions {
		tiers[i] = p.PriorityTier
	}
	return first, func(j *workload.Job) int { return tiers[route(j.Partition)] }, nil
}

// orOff names a preemption mode for messages: "off" for none.
func orOff(mode string) string {
	if mode == cluster.PreemptOff {
		return "off"
	}
	return mode
}

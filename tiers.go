package schedsim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// priorityTierConfig is one [[priority_tier]]: the PriorityTier of the
// jobs of an SWF queue (field 15) or partition (field 16), as Slurm gives
// a partition's (documented in the README's "Reservations, limits and
// calendars" section).
type priorityTierConfig struct {
	Queue     *int  `toml:"queue"` // −1: the jobs whose queue is unknown
	Partition Param `toml:"partition"`
	Tier      *int  `toml:"tier"`
}

// hasTiers reports whether the configuration gives priority tiers.
func (c *runConfig) hasTiers() bool { return c != nil && len(c.PriorityTiers) > 0 }

// tierRule is one [[priority_tier]], resolved: the jobs of a queue
// (byQueue) or of a partition.
type tierRule struct {
	byQueue bool
	n       int // the queue or partition number (a queue may be −1, unknown)
	tier    int
}

// tiers returns the tier of each job by the [[priority_tier]] tables (a
// job no table names has tier 0; the first table that names it wins), or
// nil without any. Partition names resolve by the trace header's
// Partition lines.
func (c *runConfig) tiers(h *workload.Header) (func(j *workload.Job) int, error) {
	if !c.hasTiers() {
		return nil, nil
	}
	b := &constraintsBuilder{c: c, h: h}
	rules := make([]tierRule, 0, len(c.PriorityTiers))
	seen := map[[2]int]int{}
	for i, pc := range c.PriorityTiers {
		var r tierRule
		switch {
		case pc.Tier == nil:
			return nil, c.errorf("[[priority_tier]] %d: tier: required (higher tiers are scheduled first)", i+1)
		case (pc.Queue == nil) == (pc.Partition == ""):
			return nil, c.errorf("[[priority_tier]] %d: queue and partition: give one (an SWF queue number, field 15, or a partition, field 16)", i+1)
		case pc.Queue != nil && *pc.Queue < -1:
			return nil, c.errorf("[[priority_tier]] %d: queue %d: want a queue number ≥ 0, or −1 for the jobs whose queue the log does not know", i+1, *pc.Queue)
		}
		if pc.Queue != nil {
			r.byQueue, r.n = true, *pc.Queue
		} else {
			p, err := b.partition(string(pc.Partition))
			if err != nil {
				return nil, c.errorf("[[priority_tier]] %d: %v", i+1, err)
			}
			r.n = p
		}
		r.tier = *pc.Tier
		k := [2]int{r.n, 0}
		if r.byQueue {
			k[1] = 1
		}
		if first, ok := seen[k]; ok {
			what := fmt.Sprintf("partition %d", r.n)
			if r.byQueue {
				what = fmt.Sprintf("queue %d", r.n)
			}
			return nil, c.errorf("[[priority_tier]] %d: %s has a tier already in [[priority_tier]] %d", i+1, what, first)
		}
		seen[k] = i + 1
		rules = append(rules, r)
	}
	return func(j *workload.Job) int {
		for k := range rules {
			r := &rules[k]
			if (r.byQueue && j.Queue == r.n) || (!r.byQueue && j.Partition == r.n) {
				return r.tier
			}
		}
		return 0
	}, nil
}

// withQueueTiers ranks pol's queue by the [[priority_tier]] tables of the
// run's configuration, if it gives any: jobs of a higher tier come first,
// then pol's own order, as Slurm evaluates the jobs of a partition of a
// higher PriorityTier first under sched/backfill and sched/builtin alike.
// A cluster whose partitions have PriorityTiers of their own already
// ranks by them (partitionTiers): the two are not combined.
// It returns the tier of each job too (nil without tiers).
func (o *runner) withQueueTiers(pol policy.Policy, h *workload.Header, partitionTiered bool) (policy.Policy, func(*workload.Job) int, error) {
	if o.Config == "" {
		return pol, nil, nil
	}
	conf, err := o.runConfig()
	if err != nil {
		return nil, nil, err
	}
	tier, err := conf.tiers(h)
	if err != nil || tier == nil {
		return pol, nil, err
	}
	if partitionTiered {
		return nil, nil, conf.errorf("[[priority_tier]]: the cluster's partitions have PriorityTiers of their own; give the tiers in one place")
	}
	if _, ok := pol.(*policy.Conservative); ok || strings.EqualFold(o.Backfill, string(policy.BackfillConservative)) {
		return nil, nil, conf.errorf("[[priority_tier]]: conservative backfilling plans in submission order and cannot rank the queue by tier (use easy with a reservation depth, or slurm)")
	}
	return policy.WithTiers(pol, tier), tier, nil
}

// tierNotes is the engine's policy.Annotator in a run whose queue is
// ranked by tiers: each job's note ends with "priority_tier=T", after
// inner's note (HPC Pack's filters), if any; verify reads it back
// (tierOfMeta).
type tierNotes struct {
	inner policy.Annotator
	tier  func(*workload.Job) int
}

// AppendNote implements policy.Annotator.
func (t tierNotes) AppendNote(dst []byte, j *workload.Job) []byte {
	n := len(dst)
	if t.inner != nil {
		dst = t.inner.AppendNote(dst, j)
	}
	if len(dst) > n {
		dst = append(dst, ' ')
	}
	dst = append(dst, priorityTierWord...)
	return strconv.AppendInt(dst, int64(t.tier(j)), 10)
}

// priorityTierWord starts the metadata word that gives a job's tier.
const priorityTierWord = "priority_tier="

// MarshalBinary implements encoding.BinaryMarshaler, for checkpoints:
// tierNotes keeps no state of its own (its inner annotator, HPC Pack's
// model, is the run's admission too and is saved as such).
func (t tierNotes) MarshalBinary() ([]byte, error) { return nil, nil }

// UnmarshalBinary implements encoding.BinaryUnmarshaler (see
// MarshalBinary).
func (t tierNotes) UnmarshalBinary([]byte) error { return nil }

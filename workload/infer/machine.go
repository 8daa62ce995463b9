package infer

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/schedsim/schedsim/workload"
)

// occupancy is the recorded busy processors sampled every step over the
// log: all samples, and those at which a job was queued.
type occupancy struct {
	all, queued []int
	// over counts the samples at which the recorded jobs held more
	// processors than the machine has.
	over int
}

func sampleOccupancy(tl *timeline, procs int, step workload.Time) occupancy {
	var o occupancy
	for t := tl.first; t < tl.last; t += step {
		b := int(tl.busy(t))
		o.all = append(o.all, b)
		if tl.queued(t) > 0 {
			o.queued = append(o.queued, b)
		}
		if b > procs {
			o.over++
		}
	}
	return o
}

// median returns the median of v (the lower one of an even count), 0 for
// none.
func median[T cmp.Ordered](v []T) T {
	if len(v) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// timeSharing finds whether the recorded jobs held more processors than
// the machine has on at least TimeShareFrac of the samples: the machine
// then shared its processors between jobs in time (gang scheduling), and
// what counts busy processors against the machine size (its effective
// size, its nodes) is not inferred. The multiprogramming level it shows
// is the most processors held at once over the machine size, rounded up.
func (r *Result) timeSharing(o occupancy, opt Options) {
	if len(o.all) == 0 {
		return
	}
	frac := float64(o.over) / float64(len(o.all))
	if frac < opt.TimeShareFrac || r.Procs <= 0 {
		return
	}
	peak := slices.Max(o.all)
	r.TimeShared = true
	r.Notes = append(r.Notes, fmt.Sprintf("time sharing: the recorded jobs held more than the machine's %d processors in %.1f %% of the %s steps (%d steps; at most %d processors, %d times the machine, rounded up):",
		r.Procs, 100*frac, durationText(opt.CapSampleSec), o.over, peak, (peak+r.Procs-1)/r.Procs),
		"  the machine shared processors between jobs in time, which EASY does not; its effective size and nodes are not inferred.",
		"  SCore-D's gang mode (--mode gang --mpl N) time-shares, but plans no reservation, limit or queue tier of this scenario")
}

// effectiveSize lowers the machine size to the median of the recorded busy
// processors while jobs were queued, when that median is below the
// machine size and at least EffectiveMinFrac of it: a machine kept that
// full by its queue, yet half of that time with fewer processors busy
// than that, had the rest out of service (failed or set-aside nodes)
// rather than idle by choice. A lower median says the queue was held by
// something else than processors (limits, priorities, load the log does
// not hold), which shrinking the machine would not reproduce.
func (r *Result) effectiveSize(o occupancy, opt Options) {
	if r.TimeShared || len(o.queued) == 0 || opt.EffectiveMinFrac <= 0 {
		return
	}
	m := median(o.queued)
	qfrac := float64(len(o.queued)) / float64(len(o.all))
	switch {
	case m >= r.Procs:
		r.Notes = append(r.Notes, fmt.Sprintf("effective size: the whole machine (the median of the busy processors while jobs were queued is %d)", m))
	case float64(m) < opt.EffectiveMinFrac*float64(r.Procs):
		r.Notes = append(r.Notes, fmt.Sprintf("effective size: the whole machine (while jobs were queued, the median of the busy processors, %d, is under %.0f %% of it: the queue was held by something else than processors)",
			m, 100*opt.EffectiveMinFrac))
	default:
		r.ProcsEvidence = append(r.ProcsEvidence, fmt.Sprintf("jobs were queued in %.1f %% of the %s steps, and then the recorded jobs held %d processors or fewer half of the time (the median);",
			100*qfrac, durationText(opt.CapSampleSec), m),
			fmt.Sprintf("a machine that full (%.0f %% or more of its %d processors, --effective-min) had the rest out of service: its effective size is %d", 100*opt.EffectiveMinFrac, r.Procs, m))
		// A capacity drop held processors out of the header's machine;
		// the effective machine already lacks the difference.
		cut := r.Procs - m
		r.Procs = m
		kept := r.Capacity[:0]
		for _, c := range r.Capacity {
			if c.Procs -= cut; c.Procs > 0 {
				kept = append(kept, c)
			}
		}
		r.Capacity = kept
	}
}

// nodeSize infers whole-node allocation: the largest size k (2 to
// NodeMaxSize, dividing the machine) such that at least NodeMinShare of
// the jobs asking more than one processor and a count that is not a power
// of two (NodeMinJobs of them or more) ask a multiple of k. Powers of two
// are left out: users ask them on any machine, and each is a multiple of
// every smaller power of two, so they say nothing of the nodes. The
// machine is then Procs/k nodes of k processors, each job taking whole
// nodes. When every job asks a multiple of k, whole nodes change nothing
// and none are written.
func (r *Result) nodeSize(jobs []Job, opt Options) {
	if r.TimeShared || opt.NodeMaxSize < 2 {
		return
	}
	pow2 := func(p int) bool { return p&(p-1) == 0 }
	var sizes []int // the counts asked that are not a power of two
	for _, j := range jobs {
		if j.Procs > 1 && !pow2(j.Procs) {
			sizes = append(sizes, j.Procs)
		}
	}
	if len(sizes) < opt.NodeMinJobs {
		r.Notes = append(r.Notes, fmt.Sprintf("nodes: not looked for (%d jobs ask more than one processor and a count that is not a power of two, under %d)", len(sizes), opt.NodeMinJobs))
		return
	}
	best, bestN, all := 0, 0, false
	for k := 2; k <= opt.NodeMaxSize && k <= r.Procs; k++ {
		if r.Procs%k != 0 {
			continue
		}
		n := 0
		for _, p := range sizes {
			if p%k == 0 {
				n++
			}
		}
		if float64(n) >= opt.NodeMinShare*float64(len(sizes)) {
			best, bestN, all = k, n, true
			for _, j := range jobs {
				if j.Procs%k != 0 {
					all = false
					break
				}
			}
		}
	}
	switch {
	case best == 0:
		r.Notes = append(r.Notes, fmt.Sprintf("nodes: one processor each (no node size from 2 to %d that %.0f %% of the %d jobs asking more than one processor and no power of two ask a multiple of)",
			opt.NodeMaxSize, 100*opt.NodeMinShare, len(sizes)))
	case all:
		r.Notes = append(r.Notes, fmt.Sprintf("nodes: every job asks a multiple of %d processors, so whole nodes of %d would change nothing", best, best))
	default:
		r.NodeSize = best
		r.Nodes = r.Procs / best
		r.NodeEvidence = []string{fmt.Sprintf("whole nodes: %d of the %d jobs asking more than one processor and a count that is not a power of two (%.1f %%, --node-share %.0f %% or more) ask a multiple of %d,",
			bestN, len(sizes), 100*float64(bestN)/float64(len(sizes)), 100*opt.NodeMinShare, best),
			fmt.Sprintf("the largest such size: the machine is %d nodes of %d processors, each job taking whole nodes (select = \"linear\")", r.Nodes, best)}
	}
}

package sim

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"sort"

	"github.com/schedsim/schedsim/workload"
)

// TierOrder is what Verify checks of the order of priority tiers (Slurm's
// partition PriorityTier, schedsim's [[priority_tier]]): the queue every
// policy sees is ranked by tier first, then by the policy's own order
// (policy.WithTiers), and what that promises depends on the policy.
type TierOrder uint8

// Values of TierOrder.
const (
	// TierOrderNone checks nothing.
	TierOrderNone TierOrder = iota
	// TierOrderStrict is FCFS's: a pass starts jobs from the head of the
	// ranked queue while they fit and stops at the first that does not,
	// so no job starts while a job of a higher tier waits (one submitted
	// at or before the instant, started later or never). With FCFS
	// within a tier (TierFCFS) no job starts while an earlier job of its
	// own tier waits either. A job that a limit may hold is passed over
	// (Slurm's scheduler passes over a job held by an association limit):
	// jobs a limit of Constraints applies to are not counted as waiting.
	TierOrderStrict
	// TierOrderHead is EASY's and a reservation depth's, with FCFS within
	// a tier: the first job of the ranked queue, when it does not fit,
	// is reserved at the earliest time the running jobs' requested times
	// free enough processors, and the jobs started behind it (a lower
	// tier's too) must not delay that. Verify checks that every job that
	// was the head from an instant h until its start (no job ranked
	// above it waited in between) started no later than its shadow time
	// at h, computed from the jobs running at h. A job ranked above that
	// arrives voids the head's reservation (the head is another job);
	// a lower tier's job may start while a higher tier's waits
	// (backfilling). As HeadReservation, it needs every job to end by
	// its requested time, and is not checked with Cluster, NodeEvents or
	// Constraints.
	TierOrderHead
)

// TierFCFS is a flag of TierOrder: within a tier the queue is in
// submission order (--order fcfs).
const TierFCFS TierOrder = 1 << 7

// mode returns t without TierFCFS.
func (t TierOrder) mode() TierOrder { return t &^ TierFCFS }

// checkTierOrder is Verify's check of opts.TierOrder over the jobs that
// ran (byStart, in start order). Jobs still
// queued at the end (Pending) count as waiting for ever.
func checkTierOrder(procs int, outs []Outcome, byStart []int, opts VerifyOptions) []Violation {
	within := opts.TierOrder&TierFCFS != 0
	switch opts.TierOrder.mode() {
	case TierOrderStrict:
		return checkTierStrict(outs, byStart, within, opts)
	case TierOrderHead:
		if !within || opts.Cluster != nil || len(opts.NodeEvents) > 0 || opts.Constraints != nil {
			return nil
		}
		return checkTierHeads(procs, outs, byStart)
	}
	return nil
}

// tierJob is a job in the ranked queue: its tier, submission and start
// (workload.Forever: never started).
type tierJob struct {
	i             int // index in outs
	tier          int
	submit, start workload.Time
	// queued is when it joined the queue: its submission, or the end of
	// its hold (Job.HoldUntil).
	queued workload.Time
	seq    int64
}

// above reports whether a is ranked above b: a higher tier, or with
// within the same tier and submitted earlier.
func (a *tierJob) above(b *tierJob, within bool) bool {
	if a.tier != b.tier {
		return a.tier > b.tier
	}
	return within && (a.submit < b.submit || (a.submit == b.submit && a.seq < b.seq))
}

// tierHeap is a heap of waiting jobs, the highest ranked on top.
type tierHeap []*tierJob

func (h tierHeap) Len() int { return len(h) }
func (h tierHeap) Less(a, b int) bool {
	x, y := h[a], h[b]
	if x.tier != y.tier {
		return x.tier > y.tier
	}
	if x.submit != y.submit {
		return x.submit < y.submit
	}
	return x.seq < y.seq
}
func (h tierHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *tierHeap) Push(x any)   { *h = append(*h, x.(*tierJob)) }
func (h *tierHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// tierJobs returns the jobs with a tier that ran or were still queued at
// the end, without those requeued by node failures (they run again after
// later jobs started), in submission order.
func tierJobs(outs []Outcome, byStart []int) []tierJob {
	var js []tierJob
	add := func(i int, start workload.Time) {
		o := &outs[i]
		if !o.HasPriorityTier || o.Requeues > 0 {
			return
		}
		js = append(js, tierJob{i: i, tier: o.PriorityTier, submit: o.Job.Submit, start: start, queued: max(o.Job.Submit, o.Job.HoldUntil), seq: o.Job.Seq})
	}
	for _, i := range byStart {
		add(i, outs[i].Start)
	}
	for i := range outs {
		if outs[i].State == Pending {
			add(i, workload.Forever)
		}
	}
	slices.SortFunc(js, func(a, b tierJob) int {
		if c := cmp.Compare(a.submit, b.submit); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	return js
}

// checkTierStrict is TierOrderStrict's check: at each start, the highest
// ranked job waiting then (queued at or before it — submitted, or held
// until then —, started after it) must not be ranked above the job that
// started.
func checkTierStrict(outs []Outcome, byStart []int, within bool, opts VerifyOptions) []Violation {
	js := tierJobs(outs, byStart)
	var limits []Limit
	if opts.Constraints != nil {
		limits = opts.Constraints.Limits
	}
	held := func(j *workload.Job) bool {
		for k := range limits {
			if limits[k].appliesTo(j) {
				return true
			}
		}
		return false
	}
	starts := make([]*tierJob, 0, len(js))
	for k := range js {
		if js[k].start < workload.Forever {
			starts = append(starts, &js[k])
		}
	}
	sort.SliceStable(starts, func(a, b int) bool { return starts[a].start < starts[b].start })
	// The jobs in the order they joined the queue (held ones at the end
	// of their holds).
	byQueued := make([]*tierJob, len(js))
	for k := range js {
		byQueued[k] = &js[k]
	}
	sort.SliceStable(byQueued, func(a, b int) bool { return byQueued[a].queued < byQueued[b].queued })
	var w tierHeap
	var vs []Violation
	next := 0
	for _, l := range starts {
		t := l.start
		for ; next < len(byQueued) && byQueued[next].queued <= t; next++ {
			if !held(&outs[byQueued[next].i].Job) {
				heap.Push(&w, byQueued[next])
			}
		}
		for len(w) > 0 && w[0].start <= t {
			heap.Pop(&w)
		}
		if len(w) == 0 || !w[0].above(l, within) {
			continue
		}
		h := w[0]
		what := fmt.Sprintf("job %d of tier %d (above its tier %d)", outs[h.i].Job.ID, h.tier, l.tier)
		if h.tier == l.tier {
			what = fmt.Sprintf("job %d of its tier %d (submitted earlier)", outs[h.i].Job.ID, h.tier)
		}
		when := fmt.Sprintf("started at %d", h.start)
		if h.start >= workload.Forever {
			when = "never started"
		}
		vs = append(vs, Violation{JobID: outs[l.i].Job.ID, Rule: "tier-order",
			Msg: fmt.Sprintf("started at %d while %s waited: submitted at %d, %s", t, what, h.submit, when)})
	}
	return vs
}

// checkTierHeads is TierOrderHead's check (FCFS within a tier): for each
// job X that ran, M is the latest start of the jobs ranked above it and
// queued by X's start (submitted, or held until then; never started:
// Forever). If M is after X's start, a job ranked above X waited when X
// started: X started behind the head, not as it. Otherwise X was the
// head from h = max(the instant X was queued, M) on, and must start by
// its shadow time at h.
func checkTierHeads(procs int, outs []Outcome, byStart []int) []Violation {
	js := tierJobs(outs, byStart)
	// Per tier, the jobs in the order they were queued and the running
	// maximum of their starts (without held jobs, submission order).
	type tierList struct {
		queued []workload.Time
		maxTo  []workload.Time // max start of the first k+1 jobs
		ids    []int           // the tier's jobs, indices in js, in submission order
	}
	lists := map[int]*tierList{}
	var tiers []int
	for k := range js {
		j := &js[k]
		l := lists[j.tier]
		if l == nil {
			l = &tierList{}
			lists[j.tier] = l
			tiers = append(tiers, j.tier)
		}
		l.ids = append(l.ids, k)
	}
	slices.Sort(tiers)
	own := make([]workload.Time, len(js)) // the latest start of the earlier jobs of its tier queued by its start
	for _, t := range tiers {
		l := lists[t]
		byQueued := slices.Clone(l.ids)
		slices.SortStableFunc(byQueued, func(a, b int) int { return cmp.Compare(js[a].queued, js[b].queued) })
		m := workload.Time(-1)
		for _, k := range byQueued {
			m = max(m, js[k].start)
			l.queued = append(l.queued, js[k].queued)
			l.maxTo = append(l.maxTo, m)
		}
		// Submission order: the jobs not held were queued before it; a
		// held one only if its hold ended by its start.
		var tierOuts []int
		for _, k := range l.ids {
			tierOuts = append(tierOuts, js[k].i)
		}
		held := newHeldStarts(outs, tierOuts)
		m = -1
		for _, k := range l.ids {
			x := &js[k]
			hs, _, _ := held.latest(x.start)
			own[k] = max(m, hs)
			if j := &outs[x.i].Job; isHeld(j) {
				held.add(j, x.start)
			} else {
				m = max(m, x.start)
			}
		}
	}
	var heads []headPromise
	for k := range js {
		x := &js[k]
		if x.start >= workload.Forever {
			continue
		}
		m := own[k] // earlier jobs of its tier
		for t := len(tiers) - 1; t >= 0 && tiers[t] > x.tier; t-- {
			l := lists[tiers[t]]
			n := sort.Search(len(l.queued), func(q int) bool { return l.queued[q] > x.start })
			if n > 0 {
				m = max(m, l.maxTo[n-1])
			}
		}
		if m > x.start {
			continue // started behind a waiting job ranked above it
		}
		if from := max(x.queued, m); from < x.start {
			heads = append(heads, headPromise{x.i, from})
		}
	}
	var vs []Violation
	brokenPromises(procs, outs, byStart, heads, func(o *Outcome, h, shadow workload.Time) {
		vs = append(vs, Violation{JobID: o.Job.ID, Rule: "tier-head-reservation",
			Msg: fmt.Sprintf("the head of the ranked queue (tier %d) from %d with a reservation at %d, started at %d: a job started behind it delayed it", o.PriorityTier, h, shadow, o.Start)})
	})
	return vs
}

package sim

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Outcome is a finished job as a checker sees it: a Record whose memory is
// its own.
type Outcome struct {
	Job   workload.Job
	State State
	Start workload.Time
	End   workload.Time
	Alloc []cluster.Range
	// Predicted and HasPrediction are the record's WILL_RUN prediction.
	Predicted     workload.Time
	HasPrediction bool
	// Reason is why a rejected or failed job did not run, or which node
	// failure killed it.
	Reason string
	// Steps are the record's Steps (sim.Config.Grow).
	Steps []GrowStep
	// Requeues is how often a node failure requeued the job first.
	Requeues int
	// Tier, HasTier, Preemptions, Runs and LostRun are the record's
	// (Config.Preempt).
	Tier        int
	HasTier     bool
	Preemptions []PreemptMark
	Runs        []RunSpan
	LostRun     workload.Time
	// PriorityTier, with HasPriorityTier, is the tier that ranked the
	// job in the queue (a run with priority tiers; see
	// VerifyOptions.TierOrder).
	PriorityTier    int
	HasPriorityTier bool
	// Immediate is the record's: the job ran beside the machine, as a
	// job of an immediate queue (Config.Immediate).
	Immediate bool
}

// Collector is an Observer that keeps every job's outcome, for checks and
// tests. It holds the whole run in memory.
type Collector struct {
	Outcomes []Outcome
}

var _ Observer = (*Collector)(nil)

// Wants implements Observer: the records.
func (c *Collector) Wants() Wants { return Wants{Kinds: RecordKinds} }

// Observe implements Observer: it keeps the event's record.
func (c *Collector) Observe(e *Event) { c.JobDone(e.Record) }

// JobDone keeps r, the record of an ended or refused job, as Observe keeps
// its event's: for records that come from elsewhere than a run.
func (c *Collector) JobDone(r *Record) {
	c.Outcomes = append(c.Outcomes, Outcome{
		Job: *r.Job, State: r.State, Start: r.Start, End: r.End,
		Alloc:     append([]cluster.Range(nil), r.Alloc...),
		Predicted: r.Predicted, HasPrediction: r.HasPrediction, Reason: r.Reason,
		Steps:    copySteps(r.Steps),
		Requeues: r.Requeues,
		Tier:     r.Tier, HasTier: r.HasTier, LostRun: r.LostRun,
		Preemptions: slices.Clone(r.Preemptions),
		Runs:        copyRuns(r.Runs),
		Immediate:   r.Immediate,
	})
}

// copyRuns returns a copy of runs that shares no memory with it.
func copyRuns(runs []RunSpan) []RunSpan {
	var out []RunSpan
	for _, r := range runs {
		out = append(out, RunSpan{From: r.From, To: r.To, Alloc: slices.Clone(r.Alloc)})
	}
	return out
}

// VerifyOptions selects the policy-specific checks of Verify.
type VerifyOptions struct {
	// Immediate, if not nil, reports the jobs of immediate queues
	// (Config.Immediate): each must have started at its submission
	// beside the machine (Outcome.Immediate), and no other job may have.
	// Such jobs are left out of every other check.
	Immediate func(j *workload.Job) bool
	// Shared, if not nil, reports the jobs of time-shared queues
	// (Config.Shared): each may hold fewer processors than it asked (the
	// idle ones it took), and every other job must have started where it
	// fit beside all the jobs running then, time-shared ones at their
	// full size. HeadReservation is then not checked: a time-shared
	// job's start voids the promises made before it.
	Shared func(j *workload.Job) bool
	// FCFS checks that no job started before a job submitted earlier
	// (backfilling off, FCFS order) that was queued then: a job held after
	// its submission (Job.HoldUntil) joined the queue, at its submission's
	// place, only at the end of its hold.
	FCFS bool
	// HeadReservation checks the promise of EASY, reservation-depth and
	// conservative backfilling with FCFS order: a job starts no later than
	// the shadow time it got when it became the head of the queue, computed
	// from the jobs running then and their requested times. It needs every
	// job to end by its requested time (the kill rule). It is not checked
	// with Cluster: a plan in processor counts promises no start on nodes.
	HeadReservation bool
	// Cluster, if not nil, is the cluster of nodes the run placed jobs on
	// (sim.Config.Allocator); procs must be its Cores. Allocations then
	// name nodes (cluster.SelectLinear: a job holds whole nodes, at least
	// its processors) or cores
	// (cluster.SelectConsRes: exactly its processors), non-overlap is
	// checked per node or core, utilisation counts the cores held, a
	// cons_res rejection whose reason names memory is valid, and so is a
	// rejection whose reason names a partition (its limits are not
	// checked again).
	Cluster *cluster.Spec
	// Speedup, if not nil, is the run's growth model (sim.Config.Grow):
	// a job with a processor range (MinProcs, MaxProcs) or growths is
	// checked by replaying its growths (see verifyGrown).
	Speedup policy.Speedup
	// With partitions, Cluster's (a cluster of clusters: every member's,
	// their groups named as in Cluster) limits are checked on every job
	// that ran: its nodes lie within one partition, and neither its
	// requested time nor its run exceeds that partition's MaxTime (of the
	// partitions holding its nodes, the most lenient; jobs.csv does not
	// say which partition a job asked for).
	//
	// Members, with Cluster, are the clusters of a cluster of clusters
	// (cluster.Federation) whose union, in order, Cluster describes: a
	// job larger than each of them is validly rejected.
	Members []*cluster.Spec
	// NodeEvents, if not empty, is the run's node-event schedule
	// (Config.NodeEvents) with NodeSize processors per node (0: 1): no
	// job may start on a node that is down or draining or run on one
	// while it goes down, a job in state NodeFail must end when one of
	// its nodes goes down, and a rejection whose reason says too few
	// processors were left in service is valid. Head reservations are
	// then not checked (a failure voids them), and the FCFS check skips
	// requeued jobs (they run again after later jobs started).
	NodeEvents []cluster.NodeEvent
	NodeSize   int
	// Constraints, if not nil, are the run's reservations, start windows
	// and limits (Config.Constraints): no job started inside a start
	// window that forbids it, ran into a reservation it may not use
	// (beyond the processors the reservation leaves), or over a limit;
	// a rejection for a limit or the reservations is valid. Head
	// reservations are then not checked against the running jobs alone.
	// NoWho says the outcomes do not know the jobs' users, accounts,
	// partitions and queues: only the rules for every job are checked
	// (and, with Immediate, only the jobs that ran beside the machine).
	Constraints *Constraints
	NoWho       bool
	// TierOrder checks the order of the priority tiers that ranked the
	// queue (Outcome.PriorityTier; see TierOrder).
	TierOrder TierOrder
}

// Violation is one broken invariant.
type Violation struct {
	JobID int64
	Rule  string // a short name: "overlap", "start-before-submit", …
	Msg   string
}

// Error implements error.
func (v Violation) Error() string { return fmt.Sprintf("job %d: %s: %s", v.JobID, v.Rule, v.Msg) }

// Verify checks a finished schedule of a machine of procs processors and
// returns every violation found (nil if none):
//   - every job ran at most once, rejected jobs only when larger than the
//     machine, and no job started before its submission, nor before the
//     end of its hold (Job.HoldUntil);
//   - a job ends at start + run, or at start + estimate when killed;
//   - a job ran on exactly its number of processors, all on the machine,
//     and no processor ran two jobs at once (a job ending at t frees its
//     processors for a job starting at t);
//   - utilisation ≤ 1;
//   - with opts.Speedup (a run under Config.Grow), a job with a processor
//     range or steps instead: it started on its minimum, grew only while it
//     ran and within its maximum, held each step's processors from the
//     step on, and ends where its steps put it under the speedup model;
//   - the policy-specific checks of opts.
//
// Outcomes may be in any order; submission order is (Submit, Seq). With
// opts.Cluster, allocations are checked on its nodes or cores (see
// VerifyOptions).
func Verify(procs int, outs []Outcome, opts VerifyOptions) []Violation {
	var vs []Violation
	add := func(j *workload.Job, rule, format string, a ...any) {
		vs = append(vs, Violation{JobID: j.ID, Rule: rule, Msg: fmt.Sprintf(format, a...)})
	}
	order := make([]int, len(outs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := &outs[order[a]].Job, &outs[order[b]].Job
		return x.Submit < y.Submit || (x.Submit == y.Submit && x.Seq < y.Seq)
	})
	var area float64
	first, last := workload.Forever, workload.Time(0)
	ran := make([]int, 0, len(outs))
	units := procs    // allocation units: processors, nodes or cores
	var nodeSum []int // linear: nodeSum[i] = cores of nodes 0..i-1
	memOK := false    // a rejection for memory is valid
	var nt *nodeTimeline
	if len(opts.NodeEvents) > 0 {
		opts.HeadReservation = false
		nt = newNodeTimeline(opts.NodeEvents, opts.NodeSize, procs, opts.Cluster)
	}
	if c := opts.Cluster; c != nil {
		opts.HeadReservation = false
		if c.Select == cluster.SelectConsRes {
			memOK = true
			units = c.Cores()
		} else {
			memOK = c.CRMemory
			nodeSum = make([]int, 1, c.Nodes()+1)
			for _, g := range c.Groups {
				for range g.Count {
					nodeSum = append(nodeSum, nodeSum[len(nodeSum)-1]+g.Cores)
				}
			}
			units = c.Nodes()
		}
	}
	var neverRan map[int64]bool // by job number, built when first needed
	var pc *partitionCheck
	if opts.Cluster != nil && len(opts.Cluster.Partitions) > 0 {
		pc = newPartitionCheck(opts.Cluster)
	}
	wn := newWholeNodes(opts.Cluster)
	var caps []int // jobs a node may run at once (OverSubscribe=FORCE), nil: one
	capacity := procs
	if opts.Cluster != nil {
		if caps = opts.Cluster.ShareCaps(); caps != nil {
			capacity = 0
			for i, c := range caps {
				capacity += c * (nodeSum[i+1] - nodeSum[i])
			}
		}
	}
	for _, i := range order {
		o := &outs[i]
		j := &o.Job
		if o.State == Failed || o.State == Pending {
			continue // a filter failed it, or kept it waiting to the end: it never ran
		}
		if o.Immediate || (opts.Immediate != nil && !opts.NoWho && opts.Immediate(j)) {
			if msg := checkImmediate(o, opts.Immediate); msg != "" {
				add(j, "immediate", "%s", msg)
			}
			continue // beside the machine: none of its processors, no policy
		}
		if o.State == Rejected && strings.HasPrefix(o.Reason, neverSubmittedPrefix) {
			if msg := checkNeverSubmitted(o, outs, &neverRan); msg != "" {
				add(j, "never-submitted", "%s", msg)
			}
			continue
		}
		if o.State == Rejected {
			if j.Procs <= procs && !(opts.Constraints != nil && ConstraintRejection(o.Reason)) && !(nt != nil && strings.Contains(o.Reason, "in service")) && !(memOK && strings.Contains(o.Reason, "memory")) && !(opts.Cluster != nil && strings.Contains(o.Reason, "partition")) && !largerThanEach(j.Procs, opts.Members) && !(opts.Speedup != nil && j.MinProcs > int64(procs)) {
				add(j, "rejected-fits", "rejected, but its %d processors fit the machine of %d", j.Procs, procs)
			}
			continue
		}
		if j.Procs > procs && !(opts.Speedup != nil && j.MinProcs > 0 && j.MinProcs <= int64(procs)) {
			add(j, "oversize-ran", "ran on %d processors, the machine has %d", j.Procs, procs)
		}
		if o.Start < j.Submit {
			add(j, "start-before-submit", "started at %d, submitted at %d", o.Start, j.Submit)
		} else if o.Start < j.HoldUntil && !o.Immediate {
			add(j, "start-before-hold", "started at %d, held until %d", o.Start, j.HoldUntil)
		}
		if opts.Speedup != nil && (len(o.Steps) > 0 || hasRange(j, procs)) {
			a, gv := verifyGrown(procs, units, nodeSum, nodeSum == nil && wn == nil, o, opts.Speedup)
			vs = append(vs, gv...)
			if pc != nil {
				if msg := pc.check(o); msg != "" {
					add(j, "partition", "%s", msg)
				}
			}
			area += a
			first, last = min(first, j.Submit), max(last, o.End)
			ran = append(ran, i)
			continue
		}
		wantEnd := o.Start + j.ActualRun()
		if len(o.Runs) > 0 || len(o.Preemptions) > 0 || o.State == Preempted {
			for _, msg := range checkRuns(o) {
				add(j, "preemption", "%s", msg)
			}
			wantEnd = o.End // checked by checkRuns
		}
		switch {
		case o.State == Preempted:
		case o.State == LimitKilled:
			add(j, "state", "killed for a memory or disk limit, which only SCore-D runs have (verify checks space-shared schedules)")
		case o.State == NodeFail:
			if nt == nil {
				add(j, "state", "killed by a node failure, but the run has no node events")
			} else if len(o.Runs) == 0 && (o.End >= wantEnd || o.End <= o.Start) { // a preempted job's: checkRuns
				add(j, "end", "killed by a node failure at %d, outside its run %d-%d", o.End, o.Start, wantEnd)
			}
		case o.End != wantEnd:
			add(j, "end", "ends at %d, want start %d + %d = %d", o.End, o.Start, j.ActualRun(), wantEnd)
		}
		if nt != nil && len(o.Runs) > 0 {
			for _, msg := range nt.checkRuns(o) {
				add(j, "node-state", "%s", msg)
			}
		} else if nt != nil {
			for _, msg := range nt.check(o) {
				add(j, "node-state", "%s", msg)
			}
		}
		if o.State != NodeFail && (o.State == Killed) != j.Killed() {
			add(j, "state", "state %s, but run %d against limit %d", o.State, j.Run, j.Limit())
		}
		n, held := 0, 0
		for _, r := range o.Alloc {
			if r.Lo < 0 || r.Hi > units || r.Lo >= r.Hi {
				add(j, "alloc-range", "allocated %d-%d outside the machine of %d", r.Lo, r.Hi-1, units)
				continue
			}
			n += r.Len()
			if nodeSum != nil {
				held += nodeSum[r.Hi] - nodeSum[r.Lo]
			}
		}
		switch {
		case nodeSum == nil:
			held = n
			if n != j.Procs && !(n > j.Procs && wn != nil && wn.wholeNodes(o.Alloc)) && !(n < j.Procs && opts.Shared != nil && opts.Shared(j)) {
				add(j, "alloc-size", "allocated %d processors, asked for %d", n, j.Procs)
			}
		case held < j.Procs:
			add(j, "alloc-size", "allocated %d nodes of %d cores, asked for %d", n, held, j.Procs)
		}
		if pc != nil {
			// A job spanning clusters of a cluster of clusters keeps
			// each one's partitions on its part there.
			for _, part := range memberParts(o.Alloc, opts.Members) {
				p := *o
				p.Alloc = part
				if msg := pc.check(&p); msg != "" {
					add(j, "partition", "%s", msg)
					break
				}
			}
		}
		if len(o.Runs) > 0 {
			for _, r := range o.Runs {
				area += float64(held) * float64(r.To-r.From)
			}
		} else {
			area += float64(held) * float64(o.End-o.Start)
		}
		if j.Submit < first {
			first = j.Submit
		}
		if o.End > last {
			last = o.End
		}
		ran = append(ran, i)
	}
	byStart := append([]int(nil), ran...)
	sort.SliceStable(byStart, func(a, b int) bool { return outs[byStart[a]].Start < outs[byStart[b]].Start })
	switch {
	case opts.Speedup != nil && caps == nil:
		vs = append(vs, checkOverlapGrown(units, outs, byStart)...)
	case preempted(outs, ran):
		// A preempted job holds its resources only while it runs: a
		// suspended job holds none.
		spans, idx := runSpans(outs, ran)
		vs = append(vs, checkOverlapShared(units, caps, spans, idx)...)
		vs = append(vs, checkPreemptors(outs, ran)...)
	default:
		vs = append(vs, checkOverlapShared(units, caps, outs, byStart)...)
	}
	if len(ran) > 0 && last > first {
		if u := area / (float64(capacity) * float64(last-first)); u > 1+1e-9 {
			vs = append(vs, Violation{Rule: "utilisation", Msg: fmt.Sprintf("utilisation %.6f > 1", u)})
		}
	}
	if opts.Shared != nil {
		vs = append(vs, verifyShared(procs, outs, byStart, opts.Shared)...)
	}
	if opts.FCFS {
		fcfs := ran
		if nt != nil {
			fcfs = slices.DeleteFunc(slices.Clone(ran), func(i int) bool { return outs[i].Requeues > 0 })
		}
		if opts.Shared != nil {
			// A time-shared job starts at its arrival, ahead of any queue.
			fcfs = slices.DeleteFunc(slices.Clone(fcfs), func(i int) bool { return opts.Shared(&outs[i].Job) })
		}
		vs = append(vs, checkFCFS(outs, fcfs)...)
	}
	if opts.HeadReservation && opts.Constraints == nil && opts.Cluster == nil && opts.Shared == nil {
		vs = append(vs, checkHeadReservations(procs, outs, ran, byStart)...)
	}
	if opts.TierOrder != TierOrderNone {
		vs = append(vs, checkTierOrder(procs, outs, byStart, opts)...)
	}
	if opts.Constraints != nil {
		vs = append(vs, verifyConstraints(opts.Constraints, procs, outs, ran, opts.NoWho, opts.Shared)...)
		vs = append(vs, verifyPinned(opts.Constraints, opts.Cluster, procs, outs, ran, opts.NoWho)...)
	}
	return vs
}

// largerThanEach reports whether procs exceeds the cores of each of
// members (false without members).
// memberParts cuts alloc at the edges of the clusters of a cluster of
// clusters (their resource ids follow each other: nodes under linear,
// cores under cons_res), giving one part per cluster it uses; without
// members, alloc whole.
func memberParts(alloc []cluster.Range, members []*cluster.Spec) [][]cluster.Range {
	if len(members) == 0 {
		return [][]cluster.Range{alloc}
	}
	var parts [][]cluster.Range
	base := 0
	for _, m := range members {
		units := m.Nodes()
		if m.Select == cluster.SelectConsRes {
			units = m.Cores()
		}
		var own []cluster.Range
		for _, x := range alloc {
			if lo, hi := max(x.Lo, base), min(x.Hi, base+units); lo < hi {
				own = append(own, cluster.Range{Lo: lo, Hi: hi})
			}
		}
		if len(own) > 0 {
			parts = append(parts, own)
		}
		base += units
	}
	if len(parts) == 0 {
		return [][]cluster.Range{alloc}
	}
	return parts
}

func largerThanEach(procs int, members []*cluster.Spec) bool {
	for _, m := range members {
		if procs <= m.Cores() {
			return false
		}
	}
	return len(members) > 0
}

// checkOverlap replays starts in time order and checks that each processor
// is free when a job takes it.
// byStart lists the jobs that ran, in order of start.
func checkOverlap(procs int, outs []Outcome, byStart []int) []Violation {
	busyUntil := make([]workload.Time, procs)
	owner := make([]int64, procs)
	var vs []Violation
	for _, i := range byStart {
		o := &outs[i]
		for _, r := range o.Alloc {
			lo, hi := max(r.Lo, 0), min(r.Hi, procs)
			for p := lo; p < hi; p++ {
				if busyUntil[p] > o.Start {
					vs = append(vs, Violation{JobID: o.Job.ID, Rule: "overlap",
						Msg: fmt.Sprintf("processor %d taken at %d while job %d holds it until %d", p, o.Start, owner[p], busyUntil[p])})
					break
				}
				busyUntil[p], owner[p] = o.End, o.Job.ID
			}
		}
	}
	return vs
}

// checkFCFS checks that starts are non-decreasing in submission order,
// among the jobs queued at each start: a held job (Job.HoldUntil) only
// from the end of its hold.
func checkFCFS(outs []Outcome, ran []int) []Violation {
	var vs []Violation
	latest := workload.Time(-1)
	var latestID int64
	held := newHeldStarts(outs, ran)
	for _, i := range ran { // ran is in submission order
		o := &outs[i]
		if o.Start < latest {
			vs = append(vs, Violation{JobID: o.Job.ID, Rule: "fcfs-order",
				Msg: fmt.Sprintf("started at %d before job %d, submitted earlier, started at %d", o.Start, latestID, latest)})
		} else if s, id, e := held.latest(o.Start); s > o.Start {
			vs = append(vs, Violation{JobID: o.Job.ID, Rule: "fcfs-order",
				Msg: fmt.Sprintf("started at %d before job %d, submitted earlier and queued from the end of its hold at %d, started at %d", o.Start, id, e, s)})
		}
		if isHeld(&o.Job) {
			held.add(&o.Job, o.Start)
			continue
		}
		if o.Start > latest {
			latest, latestID = o.Start, o.Job.ID
		}
	}
	return vs
}

// isHeld reports whether job j was held out of the queue after its
// submission (Hold Until).
func isHeld(j *workload.Job) bool { return j.HoldUntil > j.Submit }

// heldStarts is, for the checks that follow the queue in submission
// order, the held jobs met so far (isHeld): each joined the queue at the
// end of its hold, at its submission's place, so it was queued at an
// instant t only if its hold ended by t. Two Fenwick trees over the
// instants the holds end answer the latest start of those queued by t
// and how many were. A nil heldStarts (no job held) answers none.
type heldStarts struct {
	ends []workload.Time // the holds' ends, sorted, each once
	best []heldStart     // Fenwick tree: the latest start
	cnt  []int           // Fenwick tree: how many
}

// heldStart is a held job's start and id, and the end of its hold.
type heldStart struct {
	start, end workload.Time
	id         int64
}

// newHeldStarts returns a heldStarts for the held jobs among outs[ran],
// none added yet; nil when none of them is held.
func newHeldStarts(outs []Outcome, ran []int) *heldStarts {
	var ends []workload.Time
	for _, i := range ran {
		if j := &outs[i].Job; isHeld(j) {
			ends = append(ends, j.HoldUntil)
		}
	}
	if len(ends) == 0 {
		return nil
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	return &heldStarts{ends: ends, best: make([]heldStart, len(ends)+1), cnt: make([]int, len(ends)+1)}
}

// rank returns how many of the holds' ends are at or before t.
func (h *heldStarts) rank(t workload.Time) int {
	return sort.Search(len(h.ends), func(k int) bool { return h.ends[k] > t })
}

// add records held job j, started at start (Forever: never).
func (h *heldStarts) add(j *workload.Job, start workload.Time) {
	x := heldStart{start: start, end: j.HoldUntil, id: j.ID}
	for k := h.rank(x.end); k < len(h.best); k += k & -k {
		if h.cnt[k]++; h.cnt[k] == 1 || x.start > h.best[k].start {
			h.best[k] = x
		}
	}
}

// latest returns, of the held jobs added whose holds ended by t, the
// latest start, its job and the end of its hold; a start of −1 if none.
func (h *heldStarts) latest(t workload.Time) (start workload.Time, id int64, end workload.Time) {
	start = -1
	if h == nil {
		return
	}
	for k := h.rank(t); k > 0; k -= k & -k {
		if h.cnt[k] > 0 && h.best[k].start > start {
			start, id, end = h.best[k].start, h.best[k].id, h.best[k].end
		}
	}
	return
}

// count returns how many held jobs added had their holds end by t.
func (h *heldStarts) count(t workload.Time) int {
	n := 0
	if h == nil {
		return n
	}
	for k := h.rank(t); k > 0; k -= k & -k {
		n += h.cnt[k]
	}
	return n
}

// checkHeadReservations checks that every job starts no later than the
// shadow time it had when it became the head of the queue (FCFS order).
// A job is queued from its submission, or a held one (Job.HoldUntil) from
// the end of its hold, at its submission's place: it becomes the head at
// the first instant h from then at which every job before it in
// submission order that was queued by h has started, and stays the head
// until it starts unless a job before it joins the queue meanwhile (a
// hold that ends), which voids its reservation (the engine plans anew);
// such a job is not checked. ran lists the jobs that ran in submission
// order, byStart in start order.
func checkHeadReservations(procs int, outs []Outcome, ran, byStart []int) []Violation {
	held := newHeldStarts(outs, ran) // nil: none held
	var heads []headPromise
	started := workload.Time(-1) // the latest start of the jobs not held so far
	for _, i := range ran {      // submission order
		o := &outs[i]
		h := max(o.Job.Submit, o.Job.HoldUntil, started)
		for {
			s, _, _ := held.latest(h)
			if s <= h {
				break
			}
			h = s // a job before it, queued by h, started only then
		}
		if o.Start > h && held.count(o.Start) == held.count(h) {
			heads = append(heads, headPromise{i, h})
		}
		if isHeld(&o.Job) {
			held.add(&o.Job, o.Start)
		} else {
			started = max(started, o.Start)
		}
	}
	var vs []Violation
	brokenPromises(procs, outs, byStart, heads, func(o *Outcome, h, shadow workload.Time) {
		vs = append(vs, Violation{JobID: o.Job.ID, Rule: "head-reservation",
			Msg: fmt.Sprintf("became the head at %d with a reservation at %d, started at %d", h, shadow, o.Start)})
	})
	return vs
}

// headPromise is job outs[i], the head of the queue from instant h until
// it started.
type headPromise struct {
	i int
	h workload.Time
}

// brokenPromises sweeps heads by the instant each became the head,
// keeping the jobs running then, and calls broken for each head that
// started after its shadow time then (a head waiting for a job without
// an estimate has no promise). heads is sorted in place.
func brokenPromises(procs int, outs []Outcome, byStart []int, heads []headPromise, broken func(o *Outcome, h, shadow workload.Time)) {
	slices.SortStableFunc(heads, func(a, b headPromise) int { return cmp.Compare(a.h, b.h) })
	sw := headSweep{procs: procs, outs: outs, byStart: byStart}
	for _, hd := range heads {
		o := &outs[hd.i]
		sw.at(hd.h)
		if shadow, ok := sw.shadow(hd.h, o.Job.Procs); ok && o.Start > shadow {
			broken(o, hd.h, shadow)
		}
	}
}

// headSweep keeps the jobs running at an instant that never decreases,
// for the shadow time of the job that is the head of the queue then
// (brokenPromises, for checkHeadReservations and checkTierHeads).
type headSweep struct {
	procs   int
	outs    []Outcome
	byStart []int     // outs in start order
	active  []runSpan // running at the instant, sorted by predicted end
	busy    int       // their processors
	next    int       // the next job of byStart to start
}

// runSpan is a job of a headSweep: its predicted end (Forever without an
// estimate), its end and its processors.
type runSpan struct {
	predEnd, end workload.Time
	procs        int
}

// at brings the running set to instant h, no earlier than the last one:
// the jobs started at or before h, less those that ended by then.
func (w *headSweep) at(h workload.Time) {
	for ; w.next < len(w.byStart) && w.outs[w.byStart[w.next]].Start <= h; w.next++ {
		r := &w.outs[w.byStart[w.next]]
		if r.End <= h {
			continue
		}
		pe := workload.Forever
		if r.Job.Estimate > 0 {
			pe = r.Start + r.Job.Estimate
		}
		k := sort.Search(len(w.active), func(k int) bool { return w.active[k].predEnd > pe })
		w.active = slices.Insert(w.active, k, runSpan{pe, r.End, r.Job.Procs})
		w.busy += r.Job.Procs
	}
	n := 0
	for _, sp := range w.active {
		if sp.end <= h {
			w.busy -= sp.procs
			continue
		}
		w.active[n] = sp
		n++
	}
	w.active = w.active[:n]
}

// shadow returns the head's shadow time at h, the instant need processors
// are free by the running jobs' predicted ends; ok is false when the head
// waits for a job without an estimate, or for more than the machine: no
// promise.
func (w *headSweep) shadow(h workload.Time, need int) (shadow workload.Time, ok bool) {
	free := w.procs - w.busy
	shadow = h
	for _, sp := range w.active {
		if free >= need {
			break
		}
		free += sp.procs
		shadow = sp.predEnd
	}
	return shadow, free >= need && shadow < workload.Forever
}

// nodeTimeline is the node-event schedule per node, for Verify.
type nodeTimeline struct {
	size  int // allocation units per node, without unitNode
	units int // allocation units of the machine
	// unitNode maps an allocation unit to its node (a cons_res cluster's
	// cores); nil: unit / size.
	unitNode []int32
	// events[n] are node n's changes in time order.
	events [][]nodeChange
}

func (nt *nodeTimeline) node(u int) int {
	if nt.unitNode != nil {
		return int(nt.unitNode[u])
	}
	return u / nt.size
}

type nodeChange struct {
	at    workload.Time
	state cluster.NodeState
}

// newNodeTimeline returns the timeline of evs on a pool of procs
// processors, size per node, or on the nodes of c if not nil.
func newNodeTimeline(evs []cluster.NodeEvent, size, procs int, c *cluster.Spec) *nodeTimeline {
	size = max(size, 1)
	nt := &nodeTimeline{size: size, units: procs}
	nodes := (procs + size - 1) / size
	if c != nil {
		nt.size, nodes, nt.units = 1, c.Nodes(), c.Nodes()
		if c.Select == cluster.SelectConsRes {
			nt.units = c.Cores()
			nt.unitNode = make([]int32, 0, nt.units)
			n := int32(0)
			for _, g := range c.Groups {
				for range g.Count {
					for range g.Cores {
						nt.unitNode = append(nt.unitNode, n)
					}
					n++
				}
			}
		}
	}
	nt.events = make([][]nodeChange, nodes)
	for _, ev := range evs {
		for _, r := range ev.Nodes {
			for n := max(r.Lo, 0); n < min(r.Hi, len(nt.events)); n++ {
				nt.events[n] = append(nt.events[n], nodeChange{ev.At, ev.State})
			}
		}
	}
	for _, e := range nt.events {
		slices.SortStableFunc(e, func(a, b nodeChange) int { return int(min(max(a.at-b.at, -1), 1)) })
	}
	return nt
}

// check returns what is wrong with o's run on its nodes: a start on a node
// out of service, a run across a DOWN of one of its nodes, or a NodeFail
// without a DOWN of one of its nodes at its end.
func (nt *nodeTimeline) check(o *Outcome) []string {
	var msgs []string
	downAtEnd := false
	for _, r := range o.Alloc {
		lo, hi := max(r.Lo, 0), min(r.Hi, nt.units)
		for n, last := -1, -1; lo < hi; lo++ {
			if n = nt.node(lo); n == last {
				continue
			}
			last = n
			in := true // in service at the start, after the start instant's events
			for _, c := range nt.events[n] {
				switch {
				case c.at <= o.Start:
					in = c.state == cluster.NodeResume
				case c.state == cluster.NodeDown && c.at < o.End:
					msgs = append(msgs, fmt.Sprintf("runs %d-%d on node %d, which went down at %d", o.Start, o.End, n, c.at))
				case c.state == cluster.NodeDown && c.at == o.End:
					downAtEnd = true
				}
			}
			if !in {
				msgs = append(msgs, fmt.Sprintf("started at %d on node %d, which was out of service", o.Start, n))
			}
		}
	}
	if o.State == NodeFail && !downAtEnd {
		msgs = append(msgs, fmt.Sprintf("killed by a node failure at %d, but none of its nodes went down then", o.End))
	}
	return msgs
}

// checkRuns is check for a preempted job (Config.Preempt), run by run:
// each run starts on nodes in service — or, resuming after a suspension,
// on nodes draining, where the suspended job kept its allocation — and
// none of its nodes goes down while it holds them: while it runs, and
// while it is suspended up to its resumption (a DOWN then ends the job).
// A NodeFail job is killed by a DOWN of one of its last run's nodes at
// its end, running or suspended.
func (nt *nodeTimeline) checkRuns(o *Outcome) []string {
	var msgs []string
	downAtEnd := false
	runs, marks := o.Runs, o.Preemptions
	for k, r := range runs {
		resumed := k > 0 && k-1 < len(marks) && marks[k-1].Mode == policy.PreemptSuspend
		suspended := k < len(marks) && marks[k].Mode == policy.PreemptSuspend
		held := r.To // it holds the nodes until then
		switch {
		case suspended && k+1 < len(runs):
			held = runs[k+1].From
		case suspended:
			held = o.End // killed while suspended
		}
		last := k == len(runs)-1
		for _, a := range r.Alloc {
			lo, hi := max(a.Lo, 0), min(a.Hi, nt.units)
			for n, prev := -1, -1; lo < hi; lo++ {
				if n = nt.node(lo); n == prev {
					continue
				}
				prev = n
				in := true
				for _, c := range nt.events[n] {
					switch {
					case c.at <= r.From:
						in = c.state == cluster.NodeResume || resumed && c.state == cluster.NodeDrain
					case c.state == cluster.NodeDown && c.at < held:
						msgs = append(msgs, fmt.Sprintf("holds node %d from %d to %d, which went down at %d", n, r.From, held, c.at))
					case c.state == cluster.NodeDown && c.at == held && last:
						downAtEnd = true
					}
				}
				if !in {
					msgs = append(msgs, fmt.Sprintf("started at %d on node %d, which was out of service", r.From, n))
				}
			}
		}
	}
	if o.State == NodeFail && !downAtEnd {
		msgs = append(msgs, fmt.Sprintf("killed by a node failure at %d, but none of its nodes went down then", o.End))
	}
	return msgs
}

// partitionCheck checks a job's run against the partitions of a cluster
// (VerifyOptions.Cluster).
type partitionCheck struct {
	consRes bool
	coreEnd []int             // cons_res: coreEnd[n] = first core after node n
	parts   [][]cluster.Range // each partition's nodes
	maxTime []workload.Time   // in ticks (cluster.Spec.Tick)
	names   []string
	nodes   []cluster.Range // scratch: the job's nodes
	tick    workload.Time
}

func newPartitionCheck(c *cluster.Spec) *partitionCheck {
	pc := &partitionCheck{consRes: c.Select == cluster.SelectConsRes, tick: max(c.Tick, 1)}
	at := map[string]cluster.Range{}
	n, core := 0, 0
	for _, g := range c.Groups {
		at[g.Name] = cluster.Range{Lo: n, Hi: n + g.Count}
		for range g.Count {
			core += g.Cores
			pc.coreEnd = append(pc.coreEnd, core)
		}
		n += g.Count
	}
	for _, p := range c.Partitions {
		var rs []cluster.Range
		for _, g := range p.Groups {
			rs = append(rs, at[g])
		}
		sort.Slice(rs, func(a, b int) bool { return rs[a].Lo < rs[b].Lo })
		merged := rs[:0]
		for _, r := range rs { // adjacent groups form one run of nodes
			if k := len(merged); k > 0 && r.Lo <= merged[k-1].Hi {
				merged[k-1].Hi = max(merged[k-1].Hi, r.Hi)
			} else {
				merged = append(merged, r)
			}
		}
		pc.parts = append(pc.parts, merged)
		pc.maxTime = append(pc.maxTime, p.MaxTime*pc.tick)
		pc.names = append(pc.names, p.Name)
	}
	return pc
}

// node returns the node of allocation unit u.
func (pc *partitionCheck) node(u int) int {
	if !pc.consRes {
		return u
	}
	return sort.SearchInts(pc.coreEnd, u+1)
}

// check returns what o's run breaks of the partitions' limits ("" if
// nothing).
func (pc *partitionCheck) check(o *Outcome) string {
	pc.nodes = pc.nodes[:0]
	for _, r := range o.Alloc {
		if r.Lo >= r.Hi || r.Lo < 0 {
			return "" // reported as alloc-range
		}
		pc.nodes = append(pc.nodes, cluster.Range{Lo: pc.node(r.Lo), Hi: pc.node(r.Hi-1) + 1})
	}
	if len(pc.nodes) == 0 {
		return ""
	}
	within := func(p []cluster.Range) bool {
		for _, x := range pc.nodes {
			in := false
			for _, r := range p {
				if r.Lo <= x.Lo && x.Hi <= r.Hi {
					in = true
					break
				}
			}
			if !in {
				return false
			}
		}
		return true
	}
	best, limit := -1, workload.Time(0)
	for i, p := range pc.parts {
		if !within(p) {
			continue
		}
		if pc.maxTime[i] == 0 {
			return "" // an unlimited partition holds it
		}
		if best < 0 || pc.maxTime[i] > limit {
			best, limit = i, pc.maxTime[i]
		}
	}
	if best < 0 {
		return fmt.Sprintf("runs on nodes %s, which no partition holds", cluster.FormatRanges(nil, pc.nodes))
	}
	if o.Job.Estimate > limit {
		return fmt.Sprintf("requested time %s s exceeds partition %s's MaxTime of %s s", pc.secs(o.Job.Estimate), pc.names[best], pc.secs(limit))
	}
	if run := o.End - o.Start; run > limit {
		return fmt.Sprintf("ran %s s, beyond partition %s's MaxTime of %s s", pc.secs(run), pc.names[best], pc.secs(limit))
	}
	return ""
}

// neverSubmittedPrefix begins the reason of a job a closed loop never
// submitted (see Engine.neverSubmitted).
const neverSubmittedPrefix = "never submitted: it follows job "

// checkNeverSubmitted checks a job recorded as never submitted by a closed
// loop: the job it names must be in the schedule and must never have run
// (rejected, failed or still pending). It returns what is wrong, or "".
// neverRan is filled on the first call: by job number, whether some job
// of that number never ran.
func checkNeverSubmitted(o *Outcome, outs []Outcome, neverRan *map[int64]bool) string {
	rest := strings.TrimPrefix(o.Reason, neverSubmittedPrefix)
	n, _, _ := strings.Cut(rest, " ")
	pred, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return fmt.Sprintf("its reason %q does not name the job it follows", o.Reason)
	}
	if *neverRan == nil {
		m := map[int64]bool{}
		for i := range outs {
			id := outs[i].Job.ID
			st := outs[i].State
			if _, seen := m[id]; !seen {
				m[id] = false
			}
			if st == Rejected || st == Failed || st == Pending {
				m[id] = true
			}
		}
		*neverRan = m
	}
	never, ok := (*neverRan)[pred]
	switch {
	case !ok:
		return fmt.Sprintf("never submitted after job %d, which is not in the schedule", pred)
	case !never:
		return fmt.Sprintf("never submitted after job %d, which ran", pred)
	}
	return ""
}

// preempted reports whether a job of ran was preempted.
func preempted(outs []Outcome, ran []int) bool {
	for _, i := range ran {
		if len(outs[i].Runs) > 0 {
			return true
		}
	}
	return false
}

// runSpans returns the runs of the jobs of ran as outcomes of their own
// (a job never preempted as it is), and their indices in order of start.
func runSpans(outs []Outcome, ran []int) ([]Outcome, []int) {
	var spans []Outcome
	for _, i := range ran {
		o := &outs[i]
		if len(o.Runs) == 0 {
			spans = append(spans, *o)
			continue
		}
		for _, r := range o.Runs {
			spans = append(spans, Outcome{Job: o.Job, State: o.State, Start: r.From, End: r.To, Alloc: r.Alloc})
		}
	}
	idx := make([]int, len(spans))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return spans[idx[a]].Start < spans[idx[b]].Start })
	return spans, idx
}

// checkRuns checks a preempted job's runs against its preemptions
// (Config.Preempt): the runs follow each other from its start to its end;
// each preemption ends a run; a suspended job resumes where it ran; the
// runs since its last requeue add up to its run time (cut at its limit),
// and those before to the run time lost, or, for a job cancelled by
// preemption (Preempted), to less than its run time, ending at its last
// preemption.
func checkRuns(o *Outcome) []string {
	var msgs []string
	bad := func(format string, a ...any) { msgs = append(msgs, fmt.Sprintf(format, a...)) }
	runs, marks := o.Runs, o.Preemptions
	if len(runs) == 0 {
		bad("state %s with %d preemptions but no runs", o.State, len(marks))
		return msgs
	}
	// Killed by a node failure while suspended (NodeFail): its last run
	// ended at its suspension, before its end.
	suspendedKill := o.State == NodeFail && len(marks) == len(runs) && marks[len(marks)-1].Mode == policy.PreemptSuspend
	if len(marks) != len(runs)-1 && !(o.State == Preempted && len(marks) == len(runs)) && !suspendedKill {
		bad("%d runs for %d preemptions", len(runs), len(marks))
		return msgs
	}
	if last := runs[len(runs)-1].To; runs[0].From != o.Start || last != o.End && !(suspendedKill && last < o.End) {
		bad("runs from %d to %d, but it started at %d and ended at %d", runs[0].From, runs[len(runs)-1].To, o.Start, o.End)
	}
	var attempt, lost workload.Time
	for k, r := range runs {
		if r.To < r.From || k > 0 && r.From < runs[k-1].To {
			bad("run %d-%d out of order", r.From, r.To)
			return msgs
		}
		attempt += r.To - r.From
		if k == len(marks) {
			break
		}
		m := marks[k]
		if m.At != r.To {
			bad("preempted at %d by job %d, but its run ended at %d", m.At, m.By, r.To)
		}
		switch m.Mode {
		case policy.PreemptSuspend:
			if k+1 < len(runs) && !slices.Equal(runs[k+1].Alloc, r.Alloc) {
				bad("suspended at %d on %s, resumed at %d on %s", m.At, cluster.FormatRanges(nil, r.Alloc), runs[k+1].From, cluster.FormatRanges(nil, runs[k+1].Alloc))
			}
		case policy.PreemptRequeue:
			lost += attempt
			attempt = 0
		case policy.PreemptCancel:
			if k != len(runs)-1 || o.State != Preempted {
				bad("cancelled by preemption at %d, but it ran on (state %s)", m.At, o.State)
			}
		}
	}
	if lost != o.LostRun {
		bad("its runs before its last requeue add up to %d s, it records %d s lost", lost, o.LostRun)
	}
	want := o.Job.ActualRun()
	switch {
	case o.State == Preempted && attempt >= want:
		bad("cancelled by preemption after %d s of its %d s", attempt, want)
	case o.State == NodeFail && attempt >= want:
		bad("killed by a node failure after %d s of its %d s", attempt, want)
	case o.State != Preempted && o.State != NodeFail && attempt != want:
		bad("its runs since its last requeue add up to %d s, its run time is %d s", attempt, want)
	}
	return msgs
}

// checkPreemptors checks every preemption of the jobs of ran: the
// preemptor is a job that ran, of a higher tier, and started (or resumed)
// at that instant — or, requeued by a node failure since, started again
// later (its record is its last attempt's).
func checkPreemptors(outs []Outcome, ran []int) []Violation {
	byID := make(map[int64]int, len(ran))
	for _, i := range ran {
		byID[outs[i].Job.ID] = i
	}
	var vs []Violation
	for _, i := range ran {
		o := &outs[i]
		for _, m := range o.Preemptions {
			k, ok := byID[m.By]
			if !ok {
				vs = append(vs, Violation{JobID: o.Job.ID, Rule: "preemptor", Msg: fmt.Sprintf("preempted at %d by job %d, which never ran", m.At, m.By)})
				continue
			}
			p := &outs[k]
			if !p.HasTier || !o.HasTier || p.Tier <= o.Tier {
				vs = append(vs, Violation{JobID: o.Job.ID, Rule: "preemptor", Msg: fmt.Sprintf("preempted at %d by job %d of tier %d, not above its own tier %d", m.At, m.By, p.Tier, o.Tier)})
			}
			starts := p.Start == m.At
			for _, r := range p.Runs {
				starts = starts || r.From == m.At
			}
			// A preemptor a node failure requeued later is recorded by
			// its last attempt only (Config.OnNodeFail): the one that
			// preempted is not in the schedule.
			starts = starts || p.Requeues > 0 && p.Start > m.At
			if !starts {
				vs = append(vs, Violation{JobID: o.Job.ID, Rule: "preemptor", Msg: fmt.Sprintf("preempted at %d by job %d, which did not start then", m.At, m.By)})
			}
		}
	}
	return vs
}

// wholeNodes knows the nodes of a cons_res cluster's OverSubscribe=EXCLUSIVE
// partitions, whose jobs hold whole nodes: more cores than they asked for.
type wholeNodes struct {
	base  []int  // base[i]: the first core of node i; base[nodes] = cores
	node  []int  // core → node
	whole []bool // node → in an EXCLUSIVE partition
}

// newWholeNodes returns the whole-node check of c, or nil when c is not a
// cons_res cluster with an EXCLUSIVE partition.
func newWholeNodes(c *cluster.Spec) *wholeNodes {
	if c == nil || c.Select != cluster.SelectConsRes {
		return nil
	}
	groups := map[string]bool{}
	for _, p := range c.Partitions {
		if p.OverSubscribe == "EXCLUSIVE" {
			for _, g := range p.Groups {
				groups[g] = true
			}
		}
	}
	if len(groups) == 0 {
		return nil
	}
	w := &wholeNodes{base: []int{0}}
	for _, g := range c.Groups {
		for range g.Count {
			n := len(w.whole)
			w.whole = append(w.whole, groups[g.Name])
			for range g.Cores {
				w.node = append(w.node, n)
			}
			w.base = append(w.base, w.base[n]+g.Cores)
		}
	}
	return w
}

// wholeNodes reports whether alloc (core ranges) is a set of whole nodes,
// each of an EXCLUSIVE partition.
func (w *wholeNodes) wholeNodes(alloc []cluster.Range) bool {
	for _, r := range alloc {
		if r.Lo < 0 || r.Hi > len(w.node) || r.Lo >= r.Hi {
			return false
		}
		lo, hi := w.node[r.Lo], w.node[r.Hi-1]
		if w.base[lo] != r.Lo || w.base[hi+1] != r.Hi {
			return false
		}
		for n := lo; n <= hi; n++ {
			if !w.whole[n] {
				return false
			}
		}
	}
	return true
}

// checkOverlapShared is checkOverlap where node u may run caps[u] jobs at
// once (OverSubscribe=FORCE under linear); with caps nil, checkOverlap.
func checkOverlapShared(units int, caps []int, outs []Outcome, byStart []int) []Violation {
	if caps == nil {
		return checkOverlap(units, outs, byStart)
	}
	holders := make([][]int, units) // per node, the outcomes running on it
	var vs []Violation
	for _, i := range byStart {
		o := &outs[i]
		for _, r := range o.Alloc {
			lo, hi := max(r.Lo, 0), min(r.Hi, units)
			for u := lo; u < hi; u++ {
				h := holders[u][:0]
				for _, k := range holders[u] {
					if outs[k].End > o.Start {
						h = append(h, k)
					}
				}
				if len(h) >= caps[u] {
					ids := make([]string, len(h))
					for n, k := range h {
						ids[n] = fmt.Sprint(outs[k].Job.ID)
					}
					vs = append(vs, Violation{JobID: o.Job.ID, Rule: "overlap",
						Msg: fmt.Sprintf("node %d taken at %d while jobs %s run there, and it may run %d at once", u, o.Start, strings.Join(ids, ", "), caps[u])})
					holders[u] = h
					break
				}
				holders[u] = append(h, i)
			}
		}
	}
	return vs
}

// secs prints t, in the cluster's ticks, as seconds.
func (pc *partitionCheck) secs(t workload.Time) string {
	return workload.FormatTicks(t, int64(pc.tick))
}

// verifyShared checks, in a run with time-shared queues, that every job
// not of one started where it fit beside all the jobs running then, the
// time-shared ones at their full size (their processors count as busy
// for the others), those ending at its start gone.
func verifyShared(procs int, outs []Outcome, byStart []int, shared func(*workload.Job) bool) []Violation {
	var vs []Violation
	var running []int // outs indices, started before the current start
	for _, i := range byStart {
		o := &outs[i]
		busy := 0
		k := 0
		for _, r := range running {
			if outs[r].End > o.Start {
				running[k] = r
				k++
				busy += outs[r].Job.Procs
			}
		}
		running = running[:k]
		if !shared(&o.Job) && busy+o.Job.Procs > procs {
			vs = append(vs, Violation{JobID: o.Job.ID, Rule: "shared", Msg: fmt.Sprintf("started at %d on %d processors beside %d busy (time-shared jobs at their full size) of %d", o.Start, o.Job.Procs, busy, procs)})
		}
		running = append(running, i)
	}
	return vs
}

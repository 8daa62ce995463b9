package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// ScoreDOutcome is a job of a SCore-D run (ScoreD) as VerifyScoreD sees
// it: its record's fields that say who held the processors when and what
// its limits were.
type ScoreDOutcome struct {
	ID     int64
	Submit workload.Time
	Procs  int
	State  State
	End    workload.Time // its end (a job that did not run: its submission; Pending: workload.Forever, the end of the run)
	Queue  int           // the queue it ended in
	Reason string
	// MemLimitKB, DiskLimitKB and MemKBPerHost are Record's.
	MemLimitKB, DiskLimitKB, MemKBPerHost int64
	Stints                                []Stint
	// StintAllocs are Record's: the processors of each stint, with node
	// events.
	StintAllocs [][]cluster.Range
}

// ScoreDLimits are what VerifyScoreD needs of a SCore-D run's
// configuration (policy.ScoreD): the cluster's memory and disk limits
// (what one host has, 0: none), the matrix's rows and each queue's limits
// in percent (0: none).
type ScoreDLimits struct {
	MemKB, DiskKB           int64
	MPL                     int
	MemPercent, DiskPercent []int
	// Modes are the queues' modes, in queue order; nil: unknown (a
	// summary.json older than the exclusive-mode check), which skips
	// it. Preempt is what a higher queue's job does to a lower one's,
	// and Holds are the instants queues stopped being activated
	// (policy.ScoreD.Changes to deactivated or disabled).
	Modes   []policy.QueueMode
	Preempt policy.PreemptMode
	Holds   []QueueHold
	// NodeEvents, if not empty, is the run's node-event schedule
	// (ScoreD.SetNodeEvents) with NodeSize processors per node (0: 1): the
	// stints name their processors, and verifyScoreDNodes checks them
	// against it; an exclusive job's run may also be cut by a DOWN of its
	// nodes (requeued).
	NodeEvents []cluster.NodeEvent
	NodeSize   int
	// TicksPerSec is the run's time unit (ScoreD.SetTicks): the outcomes'
	// Submit and End are in ticks of 1/TicksPerSec s; 0 means 1.
	TicksPerSec int64
	// Clusters, if not nil, are the processors of each cluster of a
	// cluster of clusters (Config.ScoreDClusters), numbered cluster after
	// cluster: the stints name their processors, which verifyScoreDNodes
	// checks, and verifyScoreDClusters checks that each job ran on one
	// cluster.
	Clusters []int
	// ClusterMemKB and ClusterDiskKB are, with Clusters, each cluster's
	// memory and disk limits (nil: not checked per cluster; MemKB and
	// DiskKB are then their sums): the limits of the jobs started on a
	// cluster (a job on several holds its limits on each) never sum
	// beyond its own.
	ClusterMemKB, ClusterDiskKB []int64
}

// QueueHold is an instant a SCore-D queue stopped scheduling: its running
// jobs were suspended then.
type QueueHold struct {
	Queue int
	At    workload.Time
}

// VerifyScoreD checks a finished SCore-D run of a machine of procs
// processors (SPEC §4) and returns every violation found (nil if none):
//   - a job's stints lie between its submission and its end, in queues and
//     rows the configuration has;
//   - limits per host: a job whose recorded memory use on one host exceeds
//     its limit was killed for it (LimitKilled), and only such a job; a
//     job's limits are at most the cluster's times its queue's percentage
//     (its memory limit may be smaller: its own request), and only where
//     both set one;
//   - the limits held by the jobs that started and did not end — a
//     descheduled job keeps them, a requeued one gives them back — never
//     sum beyond the cluster's;
//   - no row of the matrix holds more than procs processors (an exclusive
//     job's count in every row);
//   - priority between queues in gang mode: at every instant every row
//     holding running gang jobs holds one of the highest queue that has a
//     running gang job, so a lower queue's job never takes time slices from
//     (shares time with, slows) a higher queue's;
//   - exclusive mode (with lim.Modes): a job started in an exclusive queue
//     ran alone, holding its processors in every row of the matrix (no
//     gang job shares their time), and a gang queue's job in one row; an
//     exclusive job's run was cut before its end only when its queue
//     stopped (lim.Holds) or when it was preempted (lim.Preempt not off)
//     by a job of a higher-priority queue, which started at that instant
//     (for a cancelled job: the job its reason names), or, with node events,
//     by a DOWN of its nodes;
//   - with node events, the processors of every stint: none held twice in
//     a row, none started on out of service, none kept across a DOWN, and
//     a NodeFail at a DOWN of its nodes (see verifyScoreDNodes); without,
//     no job killed by a node failure.
func VerifyScoreD(procs int, outs []ScoreDOutcome, lim ScoreDLimits) []Violation {
	var vs []Violation
	add := func(id int64, rule, format string, a ...any) {
		vs = append(vs, Violation{JobID: id, Rule: rule, Msg: fmt.Sprintf(format, a...)})
	}
	nq := len(lim.MemPercent)
	tps := max(lim.TicksPerSec, 1)
	// The engine's clock is in whole ms: a submission is taken at the ms
	// it falls in or after, an end recorded at the tick it falls in or
	// before.
	subMs := func(t workload.Time) int64 {
		if tps >= 1000 {
			return ceilDiv(int64(t), tps/1000)
		}
		return int64(t) * (1000 / tps)
	}
	endMs := func(t workload.Time) int64 {
		if tps >= 1000 {
			return int64(t) / (tps / 1000)
		}
		return int64(t) * (1000 / tps)
	}
	unit := map[int64]string{1: "s", 1000: "ms", 1_000_000: "us"}[tps]
	for i := range outs {
		o := &outs[i]
		for _, st := range o.Stints {
			switch {
			case st.FromMs < subMs(o.Submit) || o.State != Pending && st.ToMs > endMs(o.End):
				add(o.ID, "stint", "it ran from %s to %s, outside its submission at %d %s and end at %d %s", ms(st.FromMs), ms(st.ToMs), o.Submit, unit, o.End, unit)
			case st.Queue >= nq:
				add(o.ID, "stint", "it ran in queue %d from %s; the run has %d queues", st.Queue, ms(st.FromMs), nq)
			case st.Row >= lim.MPL:
				add(o.ID, "stint", "it ran in row %d from %s; the matrix has %d rows", st.Row, ms(st.FromMs), lim.MPL)
			}
		}
		q := o.Queue
		if len(o.Stints) > 0 {
			q = o.Stints[0].Queue // the queue it was submitted to: demotions come later
		}
		over := o.MemLimitKB > 0 && o.MemKBPerHost > o.MemLimitKB
		switch {
		case over && o.State != LimitKilled && len(o.Stints) > 0:
			add(o.ID, "memory-per-host", "its memory use on one host, %d KB, exceeds its limit %d KB, but it ran (from %s) and ended %s at %d s instead of being killed",
				o.MemKBPerHost, o.MemLimitKB, ms(o.Stints[0].FromMs), o.State, o.End)
		case !over && o.State == LimitKilled:
			add(o.ID, "memory-per-host", "killed at %d s for its memory limit, but its use on one host, %d KB, is within its limit %d KB", o.End, o.MemKBPerHost, o.MemLimitKB)
		}
		if started := len(o.Stints) > 0 || o.State == LimitKilled; started && q < nq {
			checkLimit(add, o.ID, "memory", o.MemLimitKB, lim.MemKB, lim.MemPercent[q], q, false)
			checkLimit(add, o.ID, "disk", o.DiskLimitKB, lim.DiskKB, lim.DiskPercent[q], q, true)
		}
	}
	vs = append(vs, verifyHeld(outs, "memory", lim.MemKB, func(o *ScoreDOutcome) int64 { return o.MemLimitKB })...)
	vs = append(vs, verifyHeld(outs, "disk", lim.DiskKB, func(o *ScoreDOutcome) int64 { return o.DiskLimitKB })...)
	vs = append(vs, verifyRows(procs, outs, lim, nq)...)
	if lim.Modes != nil {
		vs = append(vs, verifyExclusive(outs, lim)...)
	}
	if lim.Clusters != nil {
		vs = append(vs, verifyScoreDClusters(procs, outs, lim)...)
	}
	if len(lim.NodeEvents) > 0 || lim.Clusters != nil {
		vs = append(vs, verifyScoreDNodes(procs, outs, lim)...)
	}
	if len(lim.NodeEvents) == 0 {
		for i := range outs {
			if outs[i].State == NodeFail {
				add(outs[i].ID, "state", "killed by a node failure, but the run has no node events")
			}
		}
	}
	return vs
}

// cutByNode reports whether a DOWN of lim's node events at t (ms) hit
// alloc: a node failure requeued the job whose stint ended there.
func cutByNode(lim ScoreDLimits, alloc []cluster.Range, t int64) bool {
	size := max(lim.NodeSize, 1)
	for _, ev := range lim.NodeEvents {
		if ev.State != cluster.NodeDown || int64(ev.At)*1000 != t {
			continue
		}
		for _, n := range ev.Nodes {
			for _, a := range alloc {
				if max(a.Lo, n.Lo*size) < min(a.Hi, n.Hi*size) {
					return true
				}
			}
		}
	}
	return false
}

// verifyExclusive checks exclusive mode (see VerifyScoreD). A job's stints
// form runs: a stint that starts when the one before it ends continues the
// run (a demotion cuts a stint, not a run).
func verifyExclusive(outs []ScoreDOutcome, lim ScoreDLimits) []Violation {
	var vs []Violation
	add := func(id int64, format string, a ...any) {
		vs = append(vs, Violation{JobID: id, Rule: "exclusive", Msg: fmt.Sprintf(format, a...)})
	}
	// The highest-priority queue whose job starts (or resumes) a run at
	// each instant, and the jobs that do.
	starts := map[int64]int{}
	startedAt := map[int64]map[int64]bool{}
	byID := map[int64]*ScoreDOutcome{}
	for i := range outs {
		o := &outs[i]
		byID[o.ID] = o
		for k, st := range o.Stints {
			if k > 0 && o.Stints[k-1].ToMs == st.FromMs {
				continue
			}
			if q, ok := starts[st.FromMs]; !ok || st.Queue < q {
				starts[st.FromMs] = st.Queue
			}
			if startedAt[st.FromMs] == nil {
				startedAt[st.FromMs] = map[int64]bool{}
			}
			startedAt[st.FromMs][o.ID] = true
		}
	}
	held := map[[2]int64]bool{}
	for _, h := range lim.Holds {
		held[[2]int64{int64(h.Queue), int64(h.At) * 1000}] = true
	}
	for i := range outs {
		o := &outs[i]
		for k := 0; k < len(o.Stints); {
			first := o.Stints[k]
			for k+1 < len(o.Stints) && o.Stints[k+1].FromMs == o.Stints[k].ToMs {
				k++
			}
			last := o.Stints[k]
			k++
			if first.Queue >= len(lim.Modes) {
				continue // reported as a stint violation
			}
			exclusive := lim.Modes[first.Queue] == policy.Exclusive
			switch {
			case exclusive && first.Row >= 0:
				add(o.ID, "it started at %s in exclusive queue %d but ran in row %d of the matrix, sharing its processors' time with that row's jobs instead of running alone", ms(first.FromMs), first.Queue, first.Row)
				continue
			case !exclusive && first.Row < 0:
				add(o.ID, "it started at %s in gang queue %d but held its processors in every row, as an exclusive job", ms(first.FromMs), first.Queue)
				continue
			case !exclusive:
				continue
			}
			cancelled := o.State == Killed && strings.HasPrefix(o.Reason, "preempted by job ")
			if k == len(o.Stints) && !cancelled && o.State != Pending {
				continue // the run ended with the job
			}
			// The queue it was in when cut: a demotion at that very
			// instant leaves no stint of its own, so the queue of its next
			// run, or the one it ended in, if lower.
			t, q := last.ToMs, last.Queue
			if k < len(o.Stints) {
				q = max(q, o.Stints[k].Queue)
			} else {
				q = max(q, o.Queue)
			}
			if held[[2]int64{int64(q), t}] {
				continue // its queue stopped
			}
			if last.Released && k-1 < len(o.StintAllocs) && cutByNode(lim, o.StintAllocs[k-1], t) {
				continue // requeued by a node failure
			}
			if lim.Preempt == policy.PreemptOff {
				add(o.ID, "its exclusive run in queue %d from %s was cut at %s, though preemption is off and its queue did not stop", q, ms(first.FromMs), ms(t))
				continue
			}
			if cancelled {
				var by int64
				var byQ int
				if _, err := fmt.Sscanf(o.Reason, "preempted by job %d (queue %d)", &by, &byQ); err != nil {
					add(o.ID, "cancelled by preemption at %s, but its reason %q names no preemptor", ms(t), o.Reason)
					continue
				}
				if p := byID[by]; p == nil || !startedAt[t][by] || byQ >= q {
					add(o.ID, "cancelled at %s in queue %d by job %d of queue %d, which is not a job of a higher-priority queue starting then", ms(t), q, by, byQ)
				}
				continue
			}
			if top, ok := starts[t]; !ok || top >= q {
				add(o.ID, "its exclusive run in queue %d from %s was cut at %s, but no job of a higher-priority queue started then (exclusive mode runs a job to completion unless a higher queue needs its processors)", q, ms(first.FromMs), ms(t))
			}
		}
	}
	return vs
}

// checkLimit checks job id's limit of one kind (memory or disk) against
// the cluster's and its queue q's percentage; exact says the job cannot
// lower it with a request of its own.
func checkLimit(add func(int64, string, string, ...any), id int64, kind string, got, cluster int64, pct, q int, exact bool) {
	if cluster <= 0 || pct <= 0 {
		if got != 0 {
			add(id, "limit", "its %s limit is %d KB, but the cluster (%d KB) and queue %d (%d %%) do not both set one", kind, got, cluster, q, pct)
		}
		return
	}
	want := cluster * int64(pct) / 100
	switch {
	case exact && got != want, !exact && (got <= 0 || got > want):
		add(id, "limit", "its %s limit is %d KB; queue %d's is %d %% of the cluster's %d KB = %d KB", kind, got, q, pct, cluster, want)
	}
}

// ms formats a time in milliseconds as seconds.
func ms(t int64) string {
	if t%1000 == 0 {
		return fmt.Sprintf("%d s", t/1000)
	}
	return fmt.Sprintf("%d.%03d s", t/1000, t%1000)
}

// stintEdge is a stint's start or end, for the sweeps of VerifyScoreD.
type stintEdge struct {
	at   int64
	end  bool
	job  int // index in outs
	item int // the stint's index in the job's stints (verifyRows) or the hold's amount (verifyHeld)
}

// sortEdges sorts edges by time, ends before starts at the same time (a
// job ending at t frees what a job starting at t takes), then by job.
func sortEdges(edges []stintEdge) {
	slices.SortFunc(edges, func(a, b stintEdge) int {
		switch {
		case a.at != b.at:
			return cmpInt64(a.at, b.at)
		case a.end != b.end:
			if a.end {
				return -1
			}
			return 1
		}
		return a.job - b.job
	})
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// verifyHeld checks that the limits of one kind (memory or disk, limit
// gives a job's) the started jobs hold never sum beyond the cluster's. A
// job holds its limit from the start of a stint until it ends (its last
// stint's end; a job held by its deactivated queue to the end of the run,
// Pending, until then) or until a stint that released it (requeued).
func verifyHeld(outs []ScoreDOutcome, kind string, cluster int64, limit func(*ScoreDOutcome) int64) []Violation {
	var edges []stintEdge
	for i := range outs {
		o := &outs[i]
		if limit(o) <= 0 || len(o.Stints) == 0 {
			continue
		}
		holding := false
		for k, st := range o.Stints {
			if !holding {
				edges = append(edges, stintEdge{at: st.FromMs, job: i})
				holding = true
			}
			if st.Released {
				edges = append(edges, stintEdge{at: st.ToMs, end: true, job: i})
				holding = false
			} else if k == len(o.Stints)-1 {
				end := st.ToMs
				if o.State == Pending {
					end = int64(workload.Forever) // to the end of the run: after every other event
				}
				edges = append(edges, stintEdge{at: end, end: true, job: i})
			}
		}
	}
	if len(edges) == 0 {
		return nil
	}
	sortEdges(edges)
	var vs []Violation
	held := int64(0)
	holders := map[int]bool{}
	reported := false
	for k := 0; k < len(edges); {
		t := edges[k].at
		for ; k < len(edges) && edges[k].at == t; k++ {
			e := edges[k]
			if e.end {
				held -= limit(&outs[e.job])
				delete(holders, e.job)
			} else {
				held += limit(&outs[e.job])
				holders[e.job] = true
			}
		}
		switch {
		case held > cluster && !reported:
			reported = true
			var ids []int64
			for j := range holders {
				ids = append(ids, outs[j].ID)
			}
			slices.Sort(ids)
			last := outs[edges[k-1].job].ID
			vs = append(vs, Violation{JobID: last, Rule: kind + "-held", Msg: fmt.Sprintf(
				"at %s the started jobs %s hold %s limits of %d KB in all, beyond the cluster's %d KB", ms(t), idList(ids), kind, held, cluster)})
		case held <= cluster:
			reported = false
		}
	}
	return vs
}

// idList formats job ids for a message.
func idList(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, id)
	}
	return b.String()
}

// verifyRows checks the matrix: no row over-allocated, and priority
// between queues in gang mode (see VerifyScoreD).
func verifyRows(procs int, outs []ScoreDOutcome, lim ScoreDLimits, nq int) []Violation {
	var edges []stintEdge
	for i := range outs {
		for k, st := range outs[i].Stints {
			if st.Queue >= nq || st.Row >= lim.MPL || st.FromMs == st.ToMs {
				continue // reported as a stint violation
			}
			edges = append(edges, stintEdge{at: st.FromMs, job: i, item: k}, stintEdge{at: st.ToMs, end: true, job: i, item: k})
		}
	}
	if len(edges) == 0 {
		return nil
	}
	sortEdges(edges)
	mpl := max(lim.MPL, 1)
	ex := 0
	rows := make([]int, mpl)     // gang processors per row
	rowJobs := make([]int, mpl)  // gang jobs per row
	rowQ := make([]int, nq*mpl)  // gang jobs per queue and row
	queueJobs := make([]int, nq) // gang jobs per queue
	active := map[int]int{}      // running job (index in outs) → its stint
	var vs []Violation
	overRow := make([]bool, mpl)
	lowRow := make([]bool, mpl)
	jobsOf := func(row int, pick func(st Stint) bool) []int64 {
		var ids []int64
		for j, k := range active {
			if st := outs[j].Stints[k]; (row < 0 || st.Row == row || st.Row < 0) && pick(st) {
				ids = append(ids, outs[j].ID)
			}
		}
		slices.Sort(ids)
		return ids
	}
	for k := 0; k < len(edges); {
		t := edges[k].at
		for ; k < len(edges) && edges[k].at == t; k++ {
			e := edges[k]
			st := outs[e.job].Stints[e.item]
			d := 1
			if e.end {
				d = -1
				delete(active, e.job)
			} else {
				active[e.job] = e.item
			}
			p := outs[e.job].Procs * d
			if st.Row < 0 {
				ex += p
				continue
			}
			rows[st.Row] += p
			rowJobs[st.Row] += d
			rowQ[st.Queue*mpl+st.Row] += d
			queueJobs[st.Queue] += d
		}
		if k == len(edges) {
			break
		}
		qt := slices.IndexFunc(queueJobs, func(n int) bool { return n > 0 })
		for r := range mpl {
			if over := ex+rows[r] > procs; over && !overRow[r] {
				ids := jobsOf(r, func(Stint) bool { return true })
				vs = append(vs, Violation{JobID: ids[len(ids)-1], Rule: "row-over-allocated", Msg: fmt.Sprintf(
					"from %s row %d holds %d processors (jobs %s) of %d", ms(t), r, ex+rows[r], idList(ids), procs)})
				overRow[r] = true
			} else if !over {
				overRow[r] = false
			}
			low := qt >= 0 && rowJobs[r] > 0 && rowQ[qt*mpl+r] == 0
			if low && !lowRow[r] {
				lows := jobsOf(r, func(st Stint) bool { return st.Row >= 0 })
				tops := jobsOf(-1, func(st Stint) bool { return st.Row >= 0 && st.Queue == qt })
				vs = append(vs, Violation{JobID: lows[0], Rule: "queue-priority", Msg: fmt.Sprintf(
					"from %s row %d takes time slices with jobs %s of lower queues only, while jobs %s of queue %d run in other rows (a lower queue's job may share a row with a higher one's, never open one)",
					ms(t), r, idList(lows), idList(tops), qt)})
			}
			lowRow[r] = low
		}
	}
	return vs
}

package policy

import (
	"slices"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// Slurm's backfill plan on nodes, as sched/backfill builds it with the
// select plugins' WILL_RUN test (slurm.conf(5) SchedulerParameters; the
// slurmctld log with DebugFlags=Backfill names each planned start and its
// nodes):
//
//   - A reservation is a set of nodes over a time span (backfill's
//     node_space map of node bitmaps): a pending job's reservation takes
//     the nodes WILL_RUN named for it, whole nodes, from its planned start
//     to its start plus its time limit.
//   - A job is tested on the nodes no earlier reservation holds at any time
//     of [start_res, start_res + limit] (start_res is now, then a later
//     instant when a reservation ends). WILL_RUN first tries those nodes as
//     they are; then it takes running jobs off them in order of predicted
//     end, a group at a time, and tries again after each group ("the
//     precision starts at 30 seconds and that time interval roughly
//     doubles with each evaluation", slurm.conf bf_window_linear). The
//     groups are aligned on a barrier, as select/cons_tres aligns them:
//     the first usable job's end rounded up to the next multiple of 30 s;
//     a group goes on while the next running job ends no later than the
//     barrier plus the window (30 s, then doubled, or grown by
//     bf_window_linear, and grown again while the next end is beyond it).
//     The job's start is the last end taken off. (--bf-groups first: each
//     group spans the window from its own first end, schedsim's rule
//     before.) The slurmctld log shows the difference: at 20:13:24 of
//     testdata/run2 a 3-CPU job with nodes n15-n32 usable was planned "to
//     start at 20:14:52" (t = 172, the end of the job on n[20-23]), not at
//     t = 142: the first usable end, 131, gives the barrier 150, and the
//     ends 142, 142 and 172 are all within 150 + 30.
//   - The cycle that runs in the second a job ended runs before the job
//     completes: it plans with the job running until its predicted end
//     (start plus limit); the main scheduler, which its end runs, starts
//     jobs on its nodes in that second. (--bf-ended completing: the cycle
//     holds them until the end plus --bf-completing, schedsim's rule
//     before.)
//   - A job WILL_RUN starts now starts on those nodes (Slurm excludes the
//     reserved ones from its selection). A job that would start after the
//     next instant a reservation ends is tested again from there. A job
//     whose nodes overlap a reservation in its span is tested again from
//     its start. A job that can start within bf_window gets a reservation.

// nodeResv is one reservation of the plan: nodes from start to end.
type nodeResv struct {
	start, end workload.Time
	nodes      []int32 // sorted node numbers
}

// nodePlan is the state of one backfill cycle on nodes.
type nodePlan struct {
	tick          workload.Time // the run's ticks a second (SlurmParams.Tick)
	nv            NodeView
	base          cluster.Allocator // the cluster now, with the jobs this cycle started
	nu            cluster.NodeUnits
	held          []cluster.Held // running jobs by predicted end (stable)
	resv          []nodeResv
	work          cluster.Allocator
	block         []bool // node → held by a reservation in the span tested
	ranges, alloc []cluster.Range
	idle          nodeIdle
	started       []bool // queue index → started in this pass
	fromFirst     bool   // SlurmParams.GroupsFromFirst
}

// nodeWindow is WILL_RUN's first window of running jobs' ends (seconds).
const nodeWindow workload.Time = 30

// nodeCycle is cycle for a cluster whose nodes the View names: the plan
// is made of node sets. It returns how many jobs it started, and whether
// the plan depended on the time (nodes completing, a running job past its
// predicted end): a later cycle may then decide otherwise with nothing
// else changed. (A job beyond bf_window is planned again at the next
// event, not at every cycle: on long traces cycles at every bf_interval
// while such a job waits cost too much.)
func (s *Slurm) nodeCycle(v View, d Decisions, nv NodeView, ns NodeStarter) (started int, timed bool) {
	now := v.Now()
	res := s.p.Resolution
	pl := &s.nodes
	pl.tick = s.p.Tick
	pl.fromFirst = s.p.GroupsFromFirst
	pl.nv = nv
	pl.base = nv.Scratch()
	pl.nu = pl.base.(cluster.NodeUnits)
	pl.held = pl.held[:0]
	for k, nr := 0, v.NumRunning(); k < nr; k++ {
		hk := nv.Held(k)
		hk.Alloc = slices.Clone(hk.Alloc)
		pl.held = append(pl.held, hk)
	}
	completing := s.p.Completing
	if completing == 0 {
		completing = DefaultCompleting
	}
	for _, e := range v.Ended() {
		if completing <= 0 || e.End+completing <= now || len(e.Alloc) == 0 {
			continue
		}
		if s.p.phase() && e.End == now && s.ph.seen(e.Seq) {
			continue // --bf-ended phase: it completed before this cycle
		}
		// The cycle runs before the job completes: its nodes are held, as
		// far as the main scheduler left them idle, until its predicted
		// end (slurmctld's cycle sees it running), or until End +
		// completing (--bf-ended completing).
		rs := pl.idleOf(e.Alloc)
		if k := cluster.UnitsProcs(pl.nu, rs); k > 0 {
			timed = true
			req := cluster.Request{Procs: k}
			pl.base.Commit(req, rs)
			end := e.PredictedEnd
			if s.p.EndedCompleting {
				end = e.End + completing
			}
			pl.insertHeld(cluster.Held{End: end, Req: req, Alloc: rs})
		}
	}
	pl.resv = pl.resv[:0]
	if n := pl.nu.Nodes(); cap(pl.block) < n {
		pl.block = make([]bool, n)
	} else {
		pl.block = pl.block[:n]
	}
	windowEnd := now + s.p.Window
	tested := 0
	for _, h := range pl.held {
		timed = timed || h.End <= now
	}
	first := true // the first waiting job gets a promise
	for i, n := 0, v.Len(); i < n; i++ {
		if s.p.MaxJobTest >= 0 && tested >= s.p.MaxJobTest {
			break
		}
		tested++
		j := v.Job(i)
		req := nv.Request(i)
		dur := j.Limit()
		if dur < workload.Forever {
			dur = roundUp(dur, res)
		}
		startRes := now
		for try := 0; try < 4*len(pl.resv)+4; try++ {
			if startRes > windowEnd {
				break
			}
			at, later, ok := pl.test(now, startRes, dur, req, s.p.WindowLinear)
			if !ok {
				if later == 0 {
					break // no place for it in the plan: no reservation
				}
				startRes = later
				continue
			}
			if at <= now {
				// Starts now, on nodes no reservation holds.
				rs := slices.Clone(pl.alloc)
				ns.StartOn(i, rs)
				if s.p.phase() {
					s.ph.started(j.Seq, s.ph.d+s.p.EndLatency)
				}
				pl.base.Commit(req, rs)
				pl.insertHeld(cluster.Held{End: satAdd(now, dur), Req: req, Alloc: rs})
				pl.started[i] = true
				started++
				break
			}
			if later != 0 && at > later {
				startRes = later // try when some reserved nodes are free again
				continue
			}
			if at-now > s.p.Window {
				break // too far in the future: no reservation
			}
			nodes := pl.nodesOf(pl.alloc)
			end := satAdd(at, dur)
			if pl.overlaps(nodes, at, end) {
				if at == startRes {
					at += max(res, 1)
				}
				startRes = at
				continue
			}
			pl.resv = append(pl.resv, nodeResv{start: at, end: end, nodes: nodes})
			if first {
				d.Reserve(i, at) // the first waiting job
			}
			break
		}
	}
	return started, timed
}

// test is one WILL_RUN of the backfill loop: job req of duration dur on
// the nodes no reservation holds in [startRes, startRes+dur]. It returns
// when the job would start (never before startRes) with its resources in
// pl.alloc, and later, the first instant after startRes when a
// reservation ends (0: none). ok is false if the job does not fit those
// nodes even once every running job has ended.
func (pl *nodePlan) test(now, startRes, dur workload.Time, req cluster.Request, linear workload.Time) (at, later workload.Time, ok bool) {
	clear(pl.block)
	endRes := satAdd(startRes, dur)
	for _, r := range pl.resv {
		if r.end > startRes && r.start <= endRes {
			for _, n := range r.nodes {
				pl.block[n] = true
			}
		}
		if r.end > startRes && (later == 0 || r.end < later) {
			later = r.end
		}
	}
	pl.work = cluster.CloneInto(pl.work, pl.base)
	for n, b := range pl.block {
		if !b {
			continue
		}
		pl.ranges = pl.nu.IdleUnits(n, pl.ranges[:0])
		if k := cluster.UnitsProcs(pl.nu, pl.ranges); k > 0 {
			pl.work.Commit(cluster.Request{Procs: k}, pl.ranges)
		}
	}
	if ok, _ := pl.work.TestOnly(req); !ok {
		return workload.Forever, later, false
	}
	if rs, fits := pl.choose(req); fits {
		pl.alloc = rs
		return max(now, startRes), later, true
	}
	// Take running jobs off the usable nodes, a group of ends at a time.
	unit := nodeWindow * max(pl.tick, 1) // in the run's ticks
	window := unit
	barrier := workload.Time(-1)
	k := 0
	for k < len(pl.held) {
		var last workload.Time
		removed := false
		for k < len(pl.held) {
			hj := &pl.held[k]
			if pl.fromFirst && removed && hj.End > barrier+window {
				break
			}
			k++
			if !pl.release(hj) {
				continue // none of its nodes is usable: skipped
			}
			if barrier < 0 {
				barrier = hj.End // the group's first end
				if !pl.fromFirst {
					// select/cons_tres: the next multiple of 30 s after
					// the first usable end, fixed for the whole test.
					barrier = satAdd(hj.End-hj.End%unit, unit)
				}
			}
			removed, last = true, hj.End
			if !pl.fromFirst && k < len(pl.held) && pl.held[k].End > satAdd(barrier, window) {
				break // the next job ends beyond barrier + window
			}
		}
		if !removed {
			break
		}
		if pl.fromFirst {
			barrier = -1 // the next group spans a window from its own first end
			window = pl.grow(window, linear)
		} else {
			// The window grows, and again while the next end is beyond it.
			for window = pl.grow(window, linear); k < len(pl.held) && pl.held[k].End > satAdd(barrier, window) && window < workload.Forever/4; {
				window = pl.grow(window, linear)
			}
		}
		if last >= workload.Forever {
			break
		}
		if rs, fits := pl.choose(req); fits {
			pl.alloc = rs
			if last <= now {
				last = now + 1 // overdue: Slurm guesses it ends in a second
			}
			return max(last, startRes), later, true
		}
	}
	return workload.Forever, later, false
}

// grow returns WILL_RUN's next window: doubled, or grown by
// bf_window_linear.
func (pl *nodePlan) grow(window, linear workload.Time) workload.Time {
	if linear > 0 {
		return window + linear
	}
	return window * 2
}

// insertHeld adds h to the running jobs, after those that end no later.
func (pl *nodePlan) insertHeld(h cluster.Held) {
	k, _ := slices.BinarySearchFunc(pl.held, h.End, func(x cluster.Held, t workload.Time) int {
		if x.End <= t {
			return -1
		}
		return 1
	})
	pl.held = slices.Insert(pl.held, k, h)
}

// idleOf returns the resources of rs idle in pl.base.
func (pl *nodePlan) idleOf(rs []cluster.Range) []cluster.Range {
	var out []cluster.Range
	for _, x := range rs {
		for u := x.Lo; u < x.Hi; u++ {
			pl.ranges = pl.nu.IdleUnits(pl.nu.UnitNode(u), pl.ranges[:0])
			idle := false
			for _, y := range pl.ranges {
				idle = idle || (y.Lo <= u && u < y.Hi)
			}
			if !idle {
				continue
			}
			if k := len(out); k > 0 && out[k-1].Hi == u {
				out[k-1].Hi++
			} else {
				out = append(out, cluster.Range{Lo: u, Hi: u + 1})
			}
		}
	}
	return out
}

// release takes running job hj off the nodes the test may use and reports
// whether it held any of them.
func (pl *nodePlan) release(hj *cluster.Held) bool {
	pl.ranges = pl.ranges[:0]
	for _, x := range hj.Alloc {
		for u := x.Lo; u < x.Hi; u++ {
			if pl.block[pl.nu.UnitNode(u)] {
				continue
			}
			if k := len(pl.ranges); k > 0 && pl.ranges[k-1].Hi == u {
				pl.ranges[k-1].Hi++
			} else {
				pl.ranges = append(pl.ranges, cluster.Range{Lo: u, Hi: u + 1})
			}
		}
	}
	if len(pl.ranges) == 0 {
		return false
	}
	pl.work.Release(hj.Req, pl.ranges)
	return true
}

// nodesOf returns the sorted nodes of the resources rs.
func (pl *nodePlan) nodesOf(rs []cluster.Range) []int32 {
	var nodes []int32
	for _, x := range rs {
		for u := x.Lo; u < x.Hi; u++ {
			n := int32(pl.nu.UnitNode(u))
			if k := len(nodes); k == 0 || nodes[k-1] != n {
				nodes = append(nodes, n)
			}
		}
	}
	slices.Sort(nodes)
	return slices.Compact(nodes)
}

// overlaps reports whether a reservation holds any of nodes at a time of
// [start, end).
func (pl *nodePlan) overlaps(nodes []int32, start, end workload.Time) bool {
	for _, r := range pl.resv {
		if r.end <= start || r.start >= end {
			continue
		}
		for _, n := range nodes {
			if _, found := slices.BinarySearch(r.nodes, n); found {
				return true
			}
		}
	}
	return false
}

// unitsLen is the number of resource ids in rs.
func unitsLen(rs []cluster.Range) int {
	n := 0
	for _, x := range rs {
		n += x.Len()
	}
	return n
}

// choose returns where req would start now on pl.work: nodes chosen as
// Slurm's select plugins choose them for a job that fits (the slurmctld log
// shows it on one-CPU nodes: n[12-30] of free n[04-05,12-32] for 19 CPUs;
// n[04-05,31-32] of free n[04-05,31-32] for 4): while the job needs more,
// the smallest set of consecutive nodes with idle cores that covers the
// rest (its first nodes), else the largest set whole; ties go to the lower
// node numbers. On a node it takes the lowest idle cores. A request of
// memory, which the choice does not weigh, is placed by the selector's own
// RunNow.
func (pl *nodePlan) choose(req cluster.Request) ([]cluster.Range, bool) {
	return chooseNodes(pl.work, pl.work.(cluster.NodeUnits), req, pl.alloc[:0], &pl.idle)
}

// nodeIdle is chooseNodes' scratch: each node's idle cores.
type nodeIdle struct {
	units [][]cluster.Range
	count []int
	sets  []cluster.Range
}

// chooseNodes is nodePlan.choose on the allocator a, whose nodes nu are
// (a itself), appending to dst.
func chooseNodes(a cluster.Allocator, nu cluster.NodeUnits, req cluster.Request, dst []cluster.Range, sc *nodeIdle) ([]cluster.Range, bool) {
	if req.MemKB > 0 {
		return a.RunNow(req, dst)
	}
	if !a.Fits(req) {
		return dst, false
	}
	n := nu.Nodes()
	for len(sc.units) < n {
		sc.units = append(sc.units, nil)
	}
	sc.count = append(sc.count[:0], make([]int, n)...)
	sc.sets = sc.sets[:0]
	for _, part := range nu.NodesFor(req) {
		for k := part.Lo; k < part.Hi; k++ {
			sc.units[k] = nu.IdleUnits(k, sc.units[k][:0])
			sc.count[k] = cluster.UnitsProcs(nu, sc.units[k])
		}
	}
	for k := 0; k < n; k++ {
		c := sc.count[k]
		if c == 0 {
			continue
		}
		if m := len(sc.sets); m > 0 && sc.sets[m-1].Hi == k {
			sc.sets[m-1].Hi++
		} else {
			sc.sets = append(sc.sets, cluster.Range{Lo: k, Hi: k + 1})
		}
	}
	idle := func(s cluster.Range) int {
		c := 0
		for k := s.Lo; k < s.Hi; k++ {
			c += sc.count[k]
		}
		return c
	}
	first := len(dst)
	take := func(k, want int) int {
		got := 0
		for _, x := range sc.units[k] {
			for u := x.Lo; u < x.Hi && got < want; u++ {
				if m := len(dst); m > first && dst[m-1].Hi == u {
					dst[m-1].Hi++
				} else {
					dst = append(dst, cluster.Range{Lo: u, Hi: u + 1})
				}
				got += nu.UnitProcs(cluster.Range{Lo: u, Hi: u + 1})
			}
		}
		return got
	}
	rem := req.Procs
	for rem > 0 {
		best, bestC, large, largeC := -1, 0, -1, 0
		for i, s := range sc.sets {
			c := idle(s)
			if c >= rem && (best < 0 || c < bestC) {
				best, bestC = i, c
			}
			if c > largeC {
				large, largeC = i, c
			}
		}
		if best >= 0 {
			for k := sc.sets[best].Lo; rem > 0; k++ {
				rem -= take(k, rem)
			}
			break
		}
		if large < 0 {
			return dst[:first], false // Fits said yes: a partition the sets ignore
		}
		for k := sc.sets[large].Lo; k < sc.sets[large].Hi; k++ {
			rem -= take(k, rem)
		}
		sc.sets = append(sc.sets[:large], sc.sets[large+1:]...)
	}
	out := dst[first:]
	slices.SortFunc(out, func(x, y cluster.Range) int { return x.Lo - y.Lo })
	// Merge ranges made adjacent by the sort.
	m := first
	for _, x := range out {
		if m > first && dst[m-1].Hi == x.Lo {
			dst[m-1].Hi = x.Hi
		} else {
			dst[m] = x
			m++
		}
	}
	return dst[:m], true
}

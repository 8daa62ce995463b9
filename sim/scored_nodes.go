package sim

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy/scored"
	"github.com/schedsim/schedsim/workload"
)

// Node failures and maintenance in SCore-D's engine (ScoreD.SetNodeEvents),
// with the main engine's semantics (see Config.NodeEvents) carried over to
// SCore-D's processors and Ousterhout matrix:
//
//   - Processors. Node n is nodeSize consecutive processors, as on the
//     main engine's pool (--node-size). With node events a gang job holds
//     processor numbers in its row (the columns of the matrix it was given
//     when it started or resumed, Record.Alloc and StintAllocs), and an
//     exclusive job holds its processors in every row: a job's processes
//     live on the hosts it was given, so a host going down hits exactly the
//     jobs placed on it. An exclusive job therefore needs processors that
//     are free in every row (not only as many as the fullest row leaves).
//     Without node events nothing is placed in the rows and jobs are
//     counted, as before.
//   - DOWN: the nodes leave service at once. Every job running on one of
//     them, in any row, gang or exclusive, is killed (NodeFailKill: state
//     NodeFail, the reason naming the node) or requeued (NodeFailRequeue:
//     back in the queue it is in, at its submission-order place, to run
//     again from the start, its memory and disk limits given back — as
//     SCore-D's own requeue by preemption does). A descheduled job
//     (suspended by preemption, by the priority between queues in gang mode
//     or by a deactivated queue) holds no processors in this model — it
//     resumes wherever it fits — so a failure does not touch it.
//   - DRAIN: the jobs running on the nodes finish; no job starts or resumes
//     there; a processor leaves service in a row as soon as no job holds it
//     in that row.
//   - RESUME: the nodes are back in service, in every row.
//
// At an instant, node events come after the submissions and the ends (and
// demotions), before the scheduled queue changes and the pass; events
// before the first submission apply at it, and events after the last job
// has ended are not applied. The gang clock is untouched: a failure stops
// jobs exactly as a preemption does, crediting them with their progress to
// the millisecond. Jobs still queued at the end of the run in an activated
// queue whose head needs more processors than are left in service are
// recorded as rejected (or, if they ran before a requeue, as Pending) with
// that reason.
type sdNodes struct {
	events []cluster.NodeEvent
	next   int
	size   int // processors per node
	onFail NodeFailAction
	procs  int
	// rowM[k] holds row k's free processors in service (not held by an
	// exclusive job nor by a gang job of row k); allM those free in every
	// row: an exclusive job's candidates.
	rowM []*cluster.Machine
	allM *cluster.Machine
	// use counts each processor's holders: its exclusive job, or one gang
	// job per row holding it.
	use   []int32
	state []uint8 // per node: nodeUp, nodeDown or nodeDrain
	// parkedRow[k*procs+c] says processor c is out of service in row k
	// (taken from rowM[k]); parkedAll[c] that it is out of service and
	// held in no row (taken from allM). nParked counts the latter.
	parkedRow []bool
	parkedAll []bool
	nParked   int
	unavail   int // processors on down or draining nodes
	taken     []cluster.Range
	runs      []cluster.Range
	victims   []int32
	lowerUse  []int32
	// busyFrom[c] is when (ms) processor c was taken by a first holder,
	// while it has one (Config.ScoreDBusy).
	busyFrom []int64
	core     *sdCore // the component, for its clock and Config.ScoreDBusy
	busyOne  [1]cluster.Range
	// power is each node's power state with switching (sdPower.state),
	// nil without: a node that is off or switching is out of service.
	power []uint8
}

// setNodeEvents gives the component a node-event schedule
// (Config.NodeEvents; see ScoreD.SetNodeEvents). With an empty schedule
// the run is as without.
func (e *sdCore) setNodeEvents(evs []cluster.NodeEvent, nodeSize int, onFail NodeFailAction) error {
	if len(evs) == 0 && e.busyRun == nil && e.pw == nil && e.fed == nil {
		if e.savedNodes != nil {
			return fmt.Errorf("sim: SCore-D engine state: saved with node events, resumed without")
		}
		return nil
	}
	if onFail > NodeFailRequeue {
		return fmt.Errorf("sim: on node failure %v: want kill or requeue", onFail)
	}
	switch {
	case nodeSize < 0:
		return fmt.Errorf("sim: node size %d: want ≥ 1 processor", nodeSize)
	case nodeSize == 0:
		nodeSize = 1
	}
	if e.pw != nil {
		// The nodes switched are the power model's.
		if len(evs) > 0 && nodeSize != e.pw.cfg.NodeSize {
			return fmt.Errorf("sim: power management on nodes of %d processors, node events on nodes of %d: want one node size", e.pw.cfg.NodeSize, nodeSize)
		}
		nodeSize = e.pw.cfg.NodeSize
	}
	n := (e.procs + nodeSize - 1) / nodeSize
	for i, ev := range evs {
		if i > 0 && ev.At < evs[i-1].At {
			return fmt.Errorf("sim: node event %d at %d comes after one at %d: events must be sorted by time", i+1, ev.At, evs[i-1].At)
		}
		if ev.State < cluster.NodeDown || ev.State > cluster.NodeResume {
			return fmt.Errorf("sim: node event %d: unknown state %v", i+1, ev.State)
		}
		for _, r := range ev.Nodes {
			if r.Lo < 0 || r.Hi > n || r.Lo >= r.Hi {
				return fmt.Errorf("sim: node event %d: nodes %d-%d outside the machine's nodes 0-%d", i+1, r.Lo, r.Hi-1, n-1)
			}
		}
	}
	nd := &sdNodes{events: evs, size: nodeSize, onFail: onFail, procs: e.procs,
		allM: cluster.NewMachine(e.procs), use: make([]int32, e.procs), state: make([]uint8, n),
		parkedRow: make([]bool, e.mpl*e.procs), parkedAll: make([]bool, e.procs), lowerUse: make([]int32, e.procs),
		busyFrom: make([]int64, e.procs), core: e}
	if e.pw != nil {
		nd.power = e.pw.state
	}
	for range e.mpl {
		nd.rowM = append(nd.rowM, cluster.NewMachine(e.procs))
	}
	if s := e.savedNodes; s != nil {
		if err := nd.restore(s, e.mpl); err != nil {
			return err
		}
		e.savedNodes = nil
	} else if e.resumed {
		return fmt.Errorf("sim: SCore-D engine state: saved without node events, resumed with")
	}
	e.nd = nd
	return nil
}

// nodeOf returns the node of processor c.
func (nd *sdNodes) nodeOf(c int) int { return c / nd.size }

// inService reports whether processor c's node is up.
func (nd *sdNodes) inService(c int) bool {
	n := c / nd.size
	return nd.state[n] == nodeUp && (nd.power == nil || nd.power[n] == powerOn)
}

// procsOf returns node range r as processors.
func (nd *sdNodes) procsOf(r cluster.Range) cluster.Range {
	return cluster.Range{Lo: r.Lo * nd.size, Hi: min(r.Hi*nd.size, nd.procs)}
}

// inServiceIn counts the processors of alloc in service.
func (nd *sdNodes) inServiceIn(alloc []cluster.Range) int {
	n := 0
	for _, r := range alloc {
		for c := r.Lo; c < r.Hi; c++ {
			if nd.inService(c) {
				n++
			}
		}
	}
	return n
}

// forRuns calls f with each run of consecutive processors of alloc for
// which pred holds.
func forRuns(alloc []cluster.Range, pred func(c int) bool, f func(cluster.Range)) {
	for _, r := range alloc {
		for c := r.Lo; c < r.Hi; {
			if !pred(c) {
				c++
				continue
			}
			d := c + 1
			for d < r.Hi && pred(d) {
				d++
			}
			f(cluster.Range{Lo: c, Hi: d})
			c = d
		}
	}
}

// place gives job s, starting in row (-1: exclusive), its processors.
func (nd *sdNodes) place(s *sdSlot, row int) {
	p := s.job.Procs
	d, confined := nd.domain(&s.Job)
	if row >= 0 {
		m := nd.rowM[row]
		if confined {
			if free := m.FreeIn(d); free < p {
				panic(fmt.Sprintf("sim: job %d does not fit row %d: %d processors free in service on its cluster", s.job.ID, row, free))
			}
			s.alloc = m.AllocIn(p, d, s.alloc[:0])
		} else {
			if m.Free() < p {
				panic(fmt.Sprintf("sim: job %d does not fit row %d: %d processors free in service", s.job.ID, row, m.Free()))
			}
			s.alloc = m.Alloc(p, s.alloc[:0])
		}
		for _, r := range s.alloc {
			for c := r.Lo; c < r.Hi; c++ {
				nd.use[c]++
				if nd.use[c] == 1 {
					nd.busyFrom[c] = nd.core.nowMs
				}
			}
		}
		// The processors newly held in a row are no longer free in every
		// row.
		forRuns(s.alloc, func(c int) bool { return nd.use[c] == 1 }, func(r cluster.Range) {
			nd.taken = nd.allM.TakeFree(r, nd.taken[:0])
		})
		return
	}
	if confined {
		if free := nd.allM.FreeIn(d); free < p {
			panic(fmt.Sprintf("sim: exclusive job %d does not fit: %d processors free in every row on its cluster", s.job.ID, free))
		}
		s.alloc = nd.allM.AllocIn(p, d, s.alloc[:0])
	} else {
		if nd.allM.Free() < p {
			panic(fmt.Sprintf("sim: exclusive job %d does not fit: %d processors free in every row", s.job.ID, nd.allM.Free()))
		}
		s.alloc = nd.allM.Alloc(p, s.alloc[:0])
	}
	for _, r := range s.alloc {
		for _, m := range nd.rowM {
			nd.taken = m.TakeFree(r, nd.taken[:0])
			if got := takenLen(nd.taken); got != r.Len() {
				panic(fmt.Sprintf("sim: exclusive job %d's processors %d-%d are not free in every row", s.job.ID, r.Lo, r.Hi-1))
			}
		}
		for c := r.Lo; c < r.Hi; c++ {
			nd.use[c]++
			nd.busyFrom[c] = nd.core.nowMs // free in every row: it had no holder
		}
	}
}

func takenLen(rs []cluster.Range) int {
	n := 0
	for _, r := range rs {
		n += r.Len()
	}
	return n
}

// unplace gives back the processors of job s, stopping; those out of
// service are parked.
func (nd *sdNodes) unplace(s *sdSlot) {
	give := func(k int) {
		m := nd.rowM[k]
		forRuns(s.alloc, nd.inService, func(r cluster.Range) { m.Release([]cluster.Range{r}) })
		forRuns(s.alloc, func(c int) bool { return !nd.inService(c) }, func(r cluster.Range) {
			for c := r.Lo; c < r.Hi; c++ {
				nd.parkedRow[k*nd.procs+c] = true
			}
		})
	}
	if s.Gang {
		give(s.Row)
	} else {
		for k := range nd.rowM {
			give(k)
		}
	}
	for _, r := range s.alloc {
		for c := r.Lo; c < r.Hi; c++ {
			nd.use[c]--
			if nd.use[c] < 0 {
				panic(fmt.Sprintf("sim: processor %d released more often than taken", c))
			}
		}
	}
	if e := nd.core; e.busyRun != nil {
		// The processors no row holds any more were busy since their
		// first holder took them.
		forRuns(s.alloc, func(c int) bool { return nd.use[c] == 0 }, func(r cluster.Range) {
			for c := r.Lo; c < r.Hi; {
				d := c + 1
				for d < r.Hi && nd.busyFrom[d] == nd.busyFrom[c] {
					d++
				}
				if from, to := e.fromMs(nd.busyFrom[c]), e.fromMs(e.nowMs); to > from {
					nd.busyOne[0] = cluster.Range{Lo: c, Hi: d}
					e.busyRun(from, to, nd.busyOne[:])
				}
				c = d
			}
		})
	}
	forRuns(s.alloc, func(c int) bool { return nd.use[c] == 0 && nd.inService(c) }, func(r cluster.Range) {
		nd.allM.Release([]cluster.Range{r})
	})
	forRuns(s.alloc, func(c int) bool { return nd.use[c] == 0 && !nd.inService(c) }, func(r cluster.Range) {
		for c := r.Lo; c < r.Hi; c++ {
			nd.parkedAll[c] = true
		}
		nd.nParked += r.Len()
	})
}

// sdPlacement is the scheduler's view of the placed processors
// (scored.Placement).
type sdPlacement struct{ e *sdCore }

// RowFree returns the processors free and in service in row k that job s
// may take.
func (p sdPlacement) RowFree(s *scored.Job, k int) int {
	if d, ok := p.e.nd.domain(s); ok {
		return p.e.nd.rowM[k].FreeIn(d)
	}
	return p.e.nd.rowM[k].Free()
}

// AllFree returns the processors free and in service in every row that job
// s may take.
func (p sdPlacement) AllFree(s *scored.Job) int {
	if d, ok := p.e.nd.domain(s); ok {
		return p.e.nd.allM.FreeIn(d)
	}
	return p.e.nd.allM.Free()
}

// InService returns the processors in service running job id holds that
// job s may take.
func (p sdPlacement) InService(id int32, s *scored.Job) int {
	if d, ok := p.e.nd.domain(s); ok {
		return p.e.nd.inServiceWithin(p.e.slots[id].alloc, d)
	}
	return p.e.nd.inServiceIn(p.e.slots[id].alloc)
}

// Shares reports whether running job id holds processors job s may take.
func (p sdPlacement) Shares(id int32, s *scored.Job) bool {
	d, ok := p.e.nd.domain(s)
	if !ok {
		return true
	}
	for _, r := range p.e.slots[id].alloc {
		if r.Lo < d.Hi && d.Lo < r.Hi {
			return true
		}
	}
	return false
}

// FreeWithout returns the processors in service that job s may take that
// would be free in every row with the running jobs ids gone: those every
// holder of which, in any row, is among them.
func (p sdPlacement) FreeWithout(s *scored.Job, ids []int32) int {
	nd := p.e.nd
	d, _ := nd.domain(s)
	for _, id := range ids {
		for _, r := range p.e.slots[id].alloc {
			for c := r.Lo; c < r.Hi; c++ {
				nd.lowerUse[c]++
			}
		}
	}
	n := 0
	for c := range nd.procs {
		if nd.use[c] == nd.lowerUse[c] && nd.inService(c) && c >= d.Lo && c < d.Hi {
			n++
		}
		nd.lowerUse[c] = 0
	}
	return n
}

// nextNodeMs returns the time (ms) of the next node event to apply, or
// workload.Forever when none is left or no job is left to run.
func (e *sdCore) nextNodeMs(have bool) int64 {
	nd := e.nd
	if nd == nil || nd.next >= len(nd.events) || !have && len(e.running) == 0 && e.queued() == 0 {
		return int64(workload.Forever)
	}
	return max(int64(nd.events[nd.next].At)*1000, e.nowMs)
}

// applyNodes applies the node events due by now. It reports whether it
// applied one.
func (e *sdCore) applyNodes() bool {
	nd := e.nd
	applied := false
	for nd.next < len(nd.events) && int64(nd.events[nd.next].At)*1000 <= e.nowMs {
		ev := &nd.events[nd.next]
		nd.next++
		applied = true
		switch ev.State {
		case cluster.NodeDown:
			e.failJobs(ev)
			for _, r := range ev.Nodes {
				nd.setState(r, nodeDown)
				nd.park(nd.procsOf(r))
			}
		case cluster.NodeDrain:
			for _, r := range ev.Nodes {
				nd.setState(r, nodeDrain)
				nd.park(nd.procsOf(r))
			}
		case cluster.NodeResume:
			for _, r := range ev.Nodes {
				nd.setState(r, nodeUp)
				e.unparkOn(r)
			}
		}
	}
	return applied
}

// setState moves the nodes of r to state st, keeping the count of
// processors out of service.
func (nd *sdNodes) setState(r cluster.Range, st uint8) {
	for n := r.Lo; n < r.Hi; n++ {
		old := nd.state[n]
		procs := nd.procsOf(cluster.Range{Lo: n, Hi: n + 1}).Len()
		if old == nodeUp && st != nodeUp {
			nd.unavail += procs
		}
		if old != nodeUp && st == nodeUp {
			nd.unavail -= procs
		}
		nd.state[n] = st
	}
}

// park takes the processors of r that are free, in each row and in every
// row, out of service.
func (nd *sdNodes) park(r cluster.Range) {
	for k, m := range nd.rowM {
		nd.taken = m.TakeFree(r, nd.taken[:0])
		for _, t := range nd.taken {
			for c := t.Lo; c < t.Hi; c++ {
				nd.parkedRow[k*nd.procs+c] = true
			}
		}
	}
	nd.taken = nd.allM.TakeFree(r, nd.taken[:0])
	for _, t := range nd.taken {
		for c := t.Lo; c < t.Hi; c++ {
			nd.parkedAll[c] = true
		}
		nd.nParked += t.Len()
	}
}

// unpark puts the parked processors of r back in service.
func (nd *sdNodes) unpark(r cluster.Range) {
	one := []cluster.Range{r}
	for k, m := range nd.rowM {
		forRuns(one, func(c int) bool { return nd.parkedRow[k*nd.procs+c] }, func(x cluster.Range) {
			for c := x.Lo; c < x.Hi; c++ {
				nd.parkedRow[k*nd.procs+c] = false
			}
			m.Release([]cluster.Range{x})
		})
	}
	forRuns(one, func(c int) bool { return nd.parkedAll[c] }, func(x cluster.Range) {
		for c := x.Lo; c < x.Hi; c++ {
			nd.parkedAll[c] = false
		}
		nd.nParked -= x.Len()
		nd.allM.Release([]cluster.Range{x})
	})
}

// firstNodeIn returns the first node of nodes that alloc touches, or −1.
func (nd *sdNodes) firstNodeIn(alloc, nodes []cluster.Range) int {
	for _, a := range alloc {
		for _, r := range nodes {
			u := nd.procsOf(r)
			if lo, hi := max(a.Lo, u.Lo), min(a.Hi, u.Hi); lo < hi {
				return nd.nodeOf(lo)
			}
		}
	}
	return -1
}

// failJobs kills or requeues the running jobs on the nodes of ev, in
// submission order.
func (e *sdCore) failJobs(ev *cluster.NodeEvent) {
	nd := e.nd
	nd.victims = nd.victims[:0]
	for _, id := range e.running {
		if nd.firstNodeIn(e.slots[id].alloc, ev.Nodes) >= 0 {
			nd.victims = append(nd.victims, id)
		}
	}
	sort.Slice(nd.victims, func(a, b int) bool {
		return e.slots[nd.victims[a]].job.Seq < e.slots[nd.victims[b]].job.Seq
	})
	for _, id := range nd.victims {
		s := &e.slots[id]
		node := nd.firstNodeIn(s.alloc, ev.Nodes)
		e.stop(id, e.clock(s)-s.stintAt)
		e.stats.LostProcSeconds += float64(s.job.Procs) * float64(s.cpuUs) / 1e6
		if nd.onFail == NodeFailRequeue {
			e.stats.Requeued++
			s.requeues++
			s.cpuUs, s.resUs = 0, 0
			e.release(s)
			if n := len(s.stints); n > 0 {
				s.stints[n-1].Released = true
			}
			e.emit(EventRequeued, id)
			e.requeue(id)
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "node %d down", node)
		if ev.Reason != "" {
			b.WriteString(": ")
			b.WriteString(ev.Reason)
		}
		e.stats.NodeKilled++
		e.end(id, NodeFail, b.String())
	}
}

// strandReason says why a job of p processors still queued in an
// activated queue at the end of a run with node events never started.
func (nd *sdNodes) strandReason(p int) string {
	return fmt.Sprintf("never started: %d processors in service after the last node event, the job needs %d (or waits behind one that does)", nd.procs-nd.unavail, p)
}

// sdNodesState is sdNodes's state in a checkpoint.
type sdNodesState struct {
	Next      int
	RowM      [][]byte
	AllM      []byte
	Use       []int32
	State     []uint8
	ParkedRow []bool
	ParkedAll []bool
	NParked   int
	Unavail   int
	BusyFrom  []int64
}

// save returns nd's state for a checkpoint.
func (nd *sdNodes) save() (*sdNodesState, error) {
	s := &sdNodesState{Next: nd.next, Use: slices.Clone(nd.use), State: slices.Clone(nd.state),
		ParkedRow: slices.Clone(nd.parkedRow), ParkedAll: slices.Clone(nd.parkedAll), NParked: nd.nParked, Unavail: nd.unavail, BusyFrom: slices.Clone(nd.busyFrom)}
	for _, m := range nd.rowM {
		b, err := m.MarshalBinary()
		if err != nil {
			return nil, err
		}
		s.RowM = append(s.RowM, b)
	}
	b, err := nd.allM.MarshalBinary()
	if err != nil {
		return nil, err
	}
	s.AllM = b
	return s, nil
}

// restore sets nd to the saved state s.
func (nd *sdNodes) restore(s *sdNodesState, mpl int) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("sim: SCore-D engine state: node events: "+format, args...)
	}
	if s.Next < 0 || s.Next > len(nd.events) {
		return bad("event %d of %d", s.Next, len(nd.events))
	}
	if len(s.RowM) != mpl || len(s.Use) != nd.procs || len(s.State) != len(nd.state) || len(s.ParkedRow) != mpl*nd.procs || len(s.ParkedAll) != nd.procs {
		return bad("saved for another machine or schedule")
	}
	for k, b := range s.RowM {
		if err := nd.rowM[k].UnmarshalBinary(b); err != nil {
			return err
		}
		if nd.rowM[k].Size() != nd.procs {
			return bad("row %d of %d processors", k, nd.rowM[k].Size())
		}
	}
	if err := nd.allM.UnmarshalBinary(s.AllM); err != nil {
		return err
	}
	if nd.allM.Size() != nd.procs {
		return bad("machine of %d processors", nd.allM.Size())
	}
	nd.next, nd.use, nd.state, nd.parkedRow, nd.parkedAll, nd.nParked, nd.unavail = s.Next, s.Use, s.State, s.ParkedRow, s.ParkedAll, s.NParked, s.Unavail
	if len(s.BusyFrom) == nd.procs { // a state saved before busy stretches were kept has none
		nd.busyFrom = s.BusyFrom
	}
	return nil
}

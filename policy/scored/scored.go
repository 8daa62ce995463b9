// Package scored is SCore-D's scheduler (SPEC §4) as a policy: it decides,
// the engine applies. Like etcd's raft core, it keeps no state of the run:
// it reads the queues, the Ousterhout matrix and the jobs through a View,
// and issues each outcome of its scheduling pass as a Decision (start on a
// row or resume, preempt, suspend, hold, reject) to an Applier, the engine,
// which carries it out at once — the matrix, the exact gang clock and its
// CPU-time ledger, the stints, the queues and the events the observers see
// stay with the engine. A decision is applied as it is issued, since the
// next one is decided on the state it leaves.
//
// Scheduling pass. Queues are served in priority order (0 first); in an
// activated queue, jobs start in queue order while the head fits: strict
// FCFS within a queue. When a queue's head does not fit and lower-priority
// queues run jobs, it preempts them (policy.PreemptMode) if that makes it
// fit: victims are taken from the lowest-priority queue first, most
// recently started first, until it fits (Slurm's order); a gang job takes
// them only from the row that needs the fewest victims (then the fewest
// processors), so that no job of another row is suspended for nothing.
// Otherwise the queue waits, and lower queues may use the processors left
// (space sharing).
//
// Priority between queues holds in gang mode too: only rows holding a job
// of the highest queue in the matrix take time slices. A gang job of a
// lower queue may join such a row, never open a row of its own, and the
// gang jobs of a row without a job of that queue are suspended back to
// their queues.
package scored

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/schedsim/schedsim/policy"
)

// Kind is the kind of a Decision.
type Kind uint8

// Kinds of Decision.
const (
	// Start starts waiting job ID, the head of its queue, in row Row (-1:
	// an exclusive job, in every row); a job that ran before resumes.
	Start Kind = iota
	// Preempt preempts running job ID for job By, the blocked head of a
	// higher queue, as policy.ScoreD.Preempt says: suspended (back to its
	// queue, keeping its memory), requeued (its progress and limits given
	// back) or cancelled.
	Preempt
	// Suspend suspends running gang job ID back to its queue: its row holds
	// no job of the highest queue in the matrix (priority between queues in
	// gang mode, SPEC §4).
	Suspend
	// Hold deschedules running job ID back to its queue, which was
	// deactivated or disabled; it keeps its memory.
	Hold
	// Reject refuses job ID, submitted at this instant, at place Row of its
	// queue's waiting jobs: its memory or disk limit cannot be granted
	// (resource shortage).
	Reject
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Start:
		return "start"
	case Preempt:
		return "preempt"
	case Suspend:
		return "suspend"
	case Hold:
		return "hold"
	case Reject:
		return "reject"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Decision is one decision of SCore-D's scheduler. Jobs are named by the
// engine's handles (View.Job).
type Decision struct {
	Kind Kind
	ID   int32 // the job
	Row  int   // Start's row (-1: exclusive); Reject's place in its queue
	By   int32 // Preempt's preemptor
}

// Applier carries out decisions: the engine. Apply changes the state the
// View shows before it returns.
type Applier interface {
	Apply(d Decision)
}

// Matrix is the occupation of the machine the engine keeps and the
// scheduler reads: the processors the jobs hold, in the exclusive part and
// in each row of the Ousterhout matrix, per queue, and the memory and disk
// limits held.
type Matrix struct {
	Procs, MPL int     // the machine's processors and the matrix's rows
	Ex         int     // processors held by exclusive jobs
	Rows       []int   // processors held by gang jobs, per row
	RowQ       []int   // the same per queue and row: RowQ[q*MPL+row]
	ExQ        []int   // exclusive processors per queue
	RunQ       []int   // running jobs per queue
	MemQ       []int64 // memory limits of the running jobs, per queue
	DiskQ      []int64
	NonEmpty   int   // rows holding gang jobs
	GangP      int   // processors held by gang jobs, all rows
	MemHeld    int64 // memory limits of the jobs that started and did not end (descheduled ones too)
	DiskHeld   int64
}

// NewMatrix returns the empty matrix of a machine of procs processors and
// mpl rows, for nq queues.
func NewMatrix(procs, mpl, nq int) Matrix {
	return Matrix{Procs: procs, MPL: mpl, Rows: make([]int, mpl), RowQ: make([]int, nq*mpl), ExQ: make([]int, nq),
		RunQ: make([]int, nq), MemQ: make([]int64, nq), DiskQ: make([]int64, nq)}
}

// Busy returns the processors held in at least one row.
func (m *Matrix) Busy() int { return m.Ex + slices.Max(m.Rows) }

// Job is what the scheduler reads of a job. The engine keeps it in its own
// record of the job, so that the scheduler reads it in place.
type Job struct {
	Procs   int
	Seq     int64 // submission order
	Queue   int   // its queue now
	Running bool
	Gang    bool  // it runs in a row (else in every row), if Running
	Row     int   // its row, if Running and Gang
	FirstMs int64 // its first start, -1 before
	LastMs  int64 // start of its current (or last) stint
	// MemKB and DiskKB are its memory and disk limits; Holds says it holds
	// them (it started and was not requeued since).
	MemKB, DiskKB int64
	Holds         bool
	WaitResources int8 // workload.Job.WaitResources
	// Member is the cluster the job was assigned at its submission on a
	// cluster of clusters (1 for the first; Spanning for several
	// together); 0 on one cluster. A placed machine (Placement) confines
	// the job to its cluster's processors, and its memory and disk limits
	// count against its cluster's (Placement.Held). (An int32 beside
	// WaitResources: the struct keeps its size.)
	Member int32
}

// Spanning is Job.Member for a job assigned several clusters together
// (cluster.Spanning): it holds its limits on every cluster.
const Spanning = -1

// View is the state the scheduler reads. The slices it returns are the
// engine's: valid until the next decision.
type View interface {
	// Matrix returns the machine's occupation.
	Matrix() *Matrix
	// QueueState returns queue q's state now.
	QueueState(q int) policy.QueueState
	// Waiting returns queue q's waiting jobs, head first.
	Waiting(q int) []int32
	// Running returns the running jobs, in no order.
	Running() []int32
	// Arrived returns the jobs submitted at this instant and still waiting
	// in their queue or running.
	Arrived() []int32
	// Job returns job id, which the scheduler only reads.
	Job(id int32) *Job
	// Placement returns the processors placed in the rows, with node events;
	// nil when jobs are counted, not placed.
	Placement() Placement
}

// Placement is the view of a machine whose processors are placed (node
// events, a cluster of clusters): a job holds processor numbers, and
// processors out of service are in no row. Each method counts the
// processors job s may take: those of the cluster it was assigned
// (Job.Member), every processor on one cluster.
type Placement interface {
	// RowFree returns the processors free and in service in row k.
	RowFree(s *Job, k int) int
	// AllFree returns the processors free and in service in every row: an
	// exclusive job's candidates.
	AllFree(s *Job) int
	// InService returns the processors in service running job id holds.
	InService(id int32, s *Job) int
	// FreeWithout returns the processors in service that would be free in
	// every row with the running jobs ids gone.
	FreeWithout(s *Job, ids []int32) int
	// Shares reports whether running job id holds processors job s may
	// take: a job on another cluster is no victim of s.
	Shares(id int32, s *Job) bool
	// Held returns, for a job s on a cluster of clusters (Member ≠ 0),
	// the memory and disk limits the started jobs hold on its cluster and
	// that cluster's limits; for a job on several clusters, those of the
	// cluster with the least room left (memory and disk apart).
	Held(s *Job) (mem, disk, memCap, diskCap int64)
}

// Policy is SCore-D's scheduler as the engine calls it.
type Policy interface {
	// Schedule runs the instant's scheduling: a pass, then the refusal of
	// the instant's submissions short of memory or disk, and a pass again
	// after each refusal. It returns the number of passes.
	Schedule(v View, a Applier) int
	// Deactivated holds the running jobs of queue q, just deactivated or
	// disabled, back in their queue.
	Deactivated(v View, a Applier, q int)
}

// Scheduler is SCore-D's scheduler for one configuration: a Policy.
type Scheduler struct {
	cfg     policy.ScoreD
	nq      int
	limits  bool   // some queue's memory or disk limit is active
	gangQ   []bool // the queues in gang mode
	victims []victim
	ids     []int32
	after   []int
	arrived []int32
}

// victim is a running job a blocked head may preempt.
type victim struct {
	id            int32
	member        int32
	queue, row    int
	gang          bool
	procs         int
	lastMs, seq   int64
	memKB, diskKB int64
}

// New returns SCore-D's scheduler for cfg, which the caller validated.
func New(cfg policy.ScoreD) *Scheduler {
	sc := &Scheduler{cfg: cfg, nq: len(cfg.Queues)}
	for _, q := range cfg.Queues {
		sc.gangQ = append(sc.gangQ, q.Mode == policy.Gang)
		if cfg.MemKB > 0 && q.MemPercent > 0 || cfg.DiskKB > 0 && q.DiskPercent > 0 {
			sc.limits = true
		}
	}
	return sc
}

// Schedule implements Policy.
func (sc *Scheduler) Schedule(v View, a Applier) int {
	sc.pass(v, a)
	if !sc.limits {
		return 1 // no job has a limit to be short of
	}
	n := 1
	for sc.rejectShort(v, a) {
		sc.pass(v, a)
		n++
	}
	return n
}

// Deactivated implements Policy: the queue's running jobs are held, in
// submission order.
func (sc *Scheduler) Deactivated(v View, a Applier, q int) {
	sc.ids = sc.ids[:0]
	for _, id := range v.Running() {
		if v.Job(id).Queue == q {
			sc.ids = append(sc.ids, id)
		}
	}
	sc.deschedule(v, a, Hold)
}

// deschedule deschedules the running jobs of sc.ids, in submission order:
// decisions of kind k (Suspend or Hold).
func (sc *Scheduler) deschedule(v View, a Applier, k Kind) {
	slices.SortFunc(sc.ids, func(x, y int32) int { return cmp.Compare(v.Job(x).Seq, v.Job(y).Seq) })
	for _, id := range sc.ids {
		a.Apply(Decision{Kind: k, ID: id})
	}
}

// gang reports whether queue q is in gang mode.
func (sc *Scheduler) gang(q int) bool { return sc.gangQ[q] }

// short reports whether job s's memory or disk limit would push the held
// limits, mem and disk, beyond the cluster's. A job that already holds its
// limits (it started, and was descheduled) is never short.
func (sc *Scheduler) short(s *Job, mem, disk int64) bool {
	if s.Holds {
		return false
	}
	return s.MemKB > 0 && mem+s.MemKB > sc.cfg.MemKB || s.DiskKB > 0 && disk+s.DiskKB > sc.cfg.DiskKB
}

// frees reports whether preempting a job releases its memory and disk: a
// requeued or cancelled job's processes are gone, a suspended job keeps
// them (SPEC §4).
func (sc *Scheduler) frees() bool {
	return sc.cfg.Preempt == policy.PreemptRequeue || sc.cfg.Preempt == policy.PreemptCancel
}

// topGang returns the highest-priority queue (lowest index) with gang jobs
// in the matrix, or the number of queues when there are none.
func (sc *Scheduler) topGang(m *Matrix) int {
	if m.GangP == 0 {
		return sc.nq
	}
	for q := range sc.nq {
		for k := range m.MPL {
			if m.RowQ[q*m.MPL+k] > 0 {
				return q
			}
		}
	}
	return sc.nq
}

// rowAllowed reports whether a gang job of queue qi may take row k:
// priority between queues in gang mode (SPEC §4) lets it share time only
// with the rows of the highest queue in the matrix, so a job of a lower
// queue than that one may only join a row holding one of its jobs (space
// sharing within the row), never open a row of its own. qt is topGang,
// which the caller computes once for all rows.
func rowAllowed(m *Matrix, qi, qt, k int) bool {
	return qi <= qt || m.RowQ[qt*m.MPL+k] > 0
}

// fitRow returns the row job s would run in now: -1 for an exclusive job
// that fits (it takes every row), -2 when it does not fit. ex, rows, mem
// and disk describe the machine to fit it in.
func (sc *Scheduler) fitRow(m *Matrix, s *Job, gang bool, ex int, rows []int, mem, disk int64) int {
	if sc.short(s, mem, disk) {
		return -2
	}
	p := s.Procs
	if !gang {
		if ex+slices.Max(rows)+p <= m.Procs {
			return -1
		}
		return -2
	}
	qt := 0 // one queue: its jobs may take any row
	if sc.nq > 1 {
		qt = sc.topGang(m)
	}
	for k := range m.MPL {
		if ex+rows[k]+p <= m.Procs && rowAllowed(m, s.Queue, qt, k) {
			return k
		}
	}
	return -2
}

// shortPlaced is short for job s on a placed machine, with the limits of
// freedMem and freedDisk given back: on one cluster, the machine's; on a
// cluster of clusters, s's cluster's (Placement.Held).
func (sc *Scheduler) shortPlaced(m *Matrix, pl Placement, s *Job, freedMem, freedDisk int64) bool {
	if s.Member == 0 {
		return sc.short(s, m.MemHeld-freedMem, m.DiskHeld-freedDisk)
	}
	if s.Holds {
		return false
	}
	mem, disk, mc, dc := pl.Held(s)
	return s.MemKB > 0 && mem-freedMem+s.MemKB > mc || s.DiskKB > 0 && disk-freedDisk+s.DiskKB > dc
}

// fitPlaced is fitRow on the processors in service of a placed machine.
func (sc *Scheduler) fitPlaced(m *Matrix, pl Placement, s *Job, gang bool) int {
	if sc.shortPlaced(m, pl, s, 0, 0) {
		return -2
	}
	p := s.Procs
	if !gang {
		if pl.AllFree(s) >= p {
			return -1
		}
		return -2
	}
	qt := sc.topGang(m)
	for k := range m.MPL {
		if pl.RowFree(s, k) >= p && rowAllowed(m, s.Queue, qt, k) {
			return k
		}
	}
	return -2
}

// fitsNow returns where job s fits now (see fitRow) on m, placed by pl
// (nil: counted).
func (sc *Scheduler) fitsNow(m *Matrix, pl Placement, s *Job) int {
	gang := sc.gang(s.Queue)
	if pl != nil {
		return sc.fitPlaced(m, pl, s, gang)
	}
	return sc.fitRow(m, s, gang, m.Ex, m.Rows, m.MemHeld, m.DiskHeld)
}

// gangPriority suspends (back to their queues by submission order) the
// gang jobs of rows that hold no job of the highest queue in the matrix:
// such rows would take time slices from that queue's jobs. They keep their
// memory and disk (SPEC §4) and resume when a pass finds them room. It runs
// after a gang job of a higher queue starts and at each pass (a demotion
// can leave a row without a job of the top queue).
func (sc *Scheduler) gangPriority(v View, m *Matrix, a Applier) {
	if sc.nq == 1 || m.NonEmpty <= 1 {
		return // every row in use holds a job of the top queue
	}
	qt := sc.topGang(m)
	if qt >= sc.nq {
		return
	}
	bad := false
	for k := range m.MPL {
		if m.Rows[k] > 0 && m.RowQ[qt*m.MPL+k] == 0 {
			bad = true
		}
	}
	if !bad {
		return
	}
	sc.ids = sc.ids[:0]
	for _, id := range v.Running() {
		if s := v.Job(id); s.Gang && m.RowQ[qt*m.MPL+s.Row] == 0 {
			sc.ids = append(sc.ids, id)
		}
	}
	sc.deschedule(v, a, Suspend)
}

// pass runs one scheduling pass.
func (sc *Scheduler) pass(v View, a Applier) {
	m := v.Matrix()
	sc.gangPriority(v, m, a)
	var pl Placement
	placed := false // pl was asked for: only when a queue has a head
	for qi := range sc.nq {
		if len(v.Waiting(qi)) == 0 || v.QueueState(qi) != policy.Activated {
			continue
		}
		if !placed {
			pl, placed = v.Placement(), true
		}
		for {
			w := v.Waiting(qi)
			if len(w) == 0 {
				break
			}
			id := w[0]
			s := v.Job(id)
			row := sc.fitsNow(m, pl, s)
			if row == -2 {
				if !sc.preemptFor(v, m, pl, a, id, s, qi) {
					break
				}
				row = sc.fitsNow(m, pl, s)
			}
			a.Apply(Decision{Kind: Start, ID: id, Row: row})
			if row >= 0 {
				sc.gangPriority(v, m, a)
			}
		}
	}
	if qt := sc.topGang(m); qt < sc.nq && sc.nq > 1 && m.NonEmpty > 1 {
		for k := range m.MPL {
			if m.Rows[k] > 0 && m.RowQ[qt*m.MPL+k] == 0 {
				panic(fmt.Sprintf("scored: row %d takes time slices without a job of queue %d, the highest in the matrix", k, qt))
			}
		}
	}
}

// lowerVictims sets sc.victims to the running jobs of queues below qi, in
// preemption order: lowest priority first, then the most recently started,
// then the latest submitted (Slurm's preemption order).
func (sc *Scheduler) lowerVictims(v View, qi int) {
	sc.victims = sc.victims[:0]
	for _, id := range v.Running() {
		if j := v.Job(id); j.Queue > qi {
			sc.victims = append(sc.victims, victim{id: id, member: j.Member, queue: j.Queue, row: j.Row, gang: j.Gang, procs: j.Procs,
				lastMs: j.LastMs, seq: j.Seq, memKB: j.MemKB, diskKB: j.DiskKB})
		}
	}
	slices.SortFunc(sc.victims, func(x, y victim) int {
		if c := cmp.Compare(y.queue, x.queue); c != 0 {
			return c
		}
		if c := cmp.Compare(y.lastMs, x.lastMs); c != 0 {
			return c
		}
		return cmp.Compare(y.seq, x.seq)
	})
}

// preemptFor frees processors for s (job id), the blocked head of queue qi,
// by preempting jobs of lower-priority queues, if that makes it fit. It
// reports whether it did.
func (sc *Scheduler) preemptFor(v View, m *Matrix, pl Placement, a Applier, id int32, s *Job, qi int) bool {
	if sc.cfg.Preempt == policy.PreemptOff {
		return false
	}
	lower := 0
	for q := qi + 1; q < sc.nq; q++ {
		lower += m.RunQ[q]
	}
	if lower == 0 {
		return false
	}
	if pl != nil {
		if !sc.victimsPlaced(v, pl, s, qi) {
			return false
		}
	} else if !sc.victimsCounted(v, s, qi) {
		return false
	}
	for _, x := range sc.victims {
		a.Apply(Decision{Kind: Preempt, ID: x.id, By: id})
		if sc.fitsNow(m, pl, s) != -2 {
			return true
		}
	}
	panic(fmt.Sprintf("scored: preempting every lower-priority job did not make job %d (seq %d) fit", id, s.Seq))
}

// victimsCounted sets sc.victims, in order, for s, the blocked head of
// queue qi, on a machine whose jobs are counted. It reports false when s
// would not fit even with every lower-priority job gone.
func (sc *Scheduler) victimsCounted(v View, s *Job, qi int) bool {
	m := v.Matrix()
	ex, mem, disk := m.Ex, m.MemHeld, m.DiskHeld
	for q := qi + 1; q < sc.nq; q++ {
		ex -= m.ExQ[q]
		if sc.frees() {
			mem -= m.MemQ[q]
			disk -= m.DiskQ[q]
		}
	}
	rows := append(sc.after[:0], m.Rows...)
	for k := range rows {
		for q := qi + 1; q < sc.nq; q++ {
			rows[k] -= m.RowQ[q*m.MPL+k]
		}
	}
	sc.after = rows
	gang := sc.gang(qi)
	if sc.fitRow(m, s, gang, ex, rows, mem, disk) == -2 {
		return false
	}
	sc.lowerVictims(v, qi)
	if gang && m.MPL > 1 {
		sc.victimsForRow(m, s, rows)
	}
	return true
}

// exLower returns the processors exclusive jobs of queues below s's hold.
func (sc *Scheduler) exLower(m *Matrix, s *Job) int {
	n := 0
	for q := s.Queue + 1; q < sc.nq; q++ {
		n += m.ExQ[q]
	}
	return n
}

// victimsIn narrows sc.victims, in place, to the exclusive ones and the
// gang ones of row k.
func (sc *Scheduler) victimsIn(k int) {
	out := sc.victims[:0]
	for _, x := range sc.victims {
		if !x.gang || x.row == k {
			out = append(out, x)
		}
	}
	sc.victims = out
}

// victimsForRow narrows sc.victims (in preemption order) for gang job s to
// the row that needs the fewest victims, then the fewest preempted
// processors, then the lowest row: the exclusive victims and the gang
// victims of that row, so that no job of another row is suspended for
// nothing. after are the rows with every victim gone.
func (sc *Scheduler) victimsForRow(m *Matrix, s *Job, after []int) {
	p := s.Procs
	best, bestN, bestP := -1, 0, 0
	qt := sc.topGang(m)
	for k := range m.MPL {
		if m.Ex-sc.exLower(m, s)+after[k]+p > m.Procs || !rowAllowed(m, s.Queue, qt, k) {
			continue // not even with every victim gone, or a row of a lower queue
		}
		ex, row, mem, disk := m.Ex, m.Rows[k], m.MemHeld, m.DiskHeld
		n, procs := 0, 0
		for _, x := range sc.victims {
			if ex+row+p <= m.Procs && !sc.short(s, mem, disk) {
				break
			}
			switch {
			case !x.gang:
				ex -= x.procs
			case x.row == k:
				row -= x.procs
			default:
				continue
			}
			if sc.frees() {
				mem -= x.memKB
				disk -= x.diskKB
			}
			n++
			procs += x.procs
		}
		if ex+row+p > m.Procs || sc.short(s, mem, disk) {
			continue
		}
		if best < 0 || n < bestN || n == bestN && procs < bestP {
			best, bestN, bestP = k, n, procs
		}
	}
	if best >= 0 { // else memory or disk decide: no row is better
		sc.victimsIn(best)
	}
}

// victimsPlaced sets sc.victims, in order, for s, the blocked head of
// queue qi, on a machine whose processors are placed (node events). It
// reports false when s would not fit even with every lower-priority job
// gone.
func (sc *Scheduler) victimsPlaced(v View, pl Placement, s *Job, qi int) bool {
	m := v.Matrix()
	mem, disk := m.MemHeld, m.DiskHeld
	if sc.frees() {
		for q := qi + 1; q < sc.nq; q++ {
			mem -= m.MemQ[q]
			disk -= m.DiskQ[q]
		}
	}
	if s.Member == 0 && sc.short(s, mem, disk) {
		return false
	}
	sc.lowerVictims(v, qi)
	if s.Member != 0 {
		// On a cluster of clusters, only the jobs on s's cluster, and
		// only the limits they hold there.
		out := sc.victims[:0]
		var fm, fd int64
		for _, x := range sc.victims {
			if pl.Shares(x.id, s) {
				out = append(out, x)
				if sc.frees() && freesOn(s, x) {
					fm += x.memKB
					fd += x.diskKB
				}
			}
		}
		sc.victims = out
		if sc.shortPlaced(m, pl, s, fm, fd) {
			return false
		}
	}
	p := s.Procs
	if !sc.gang(qi) {
		// A processor is the exclusive job's once every job holding it, in
		// any row, is gone.
		sc.ids = sc.ids[:0]
		for _, x := range sc.victims {
			sc.ids = append(sc.ids, x.id)
		}
		return pl.FreeWithout(s, sc.ids) >= p
	}
	// The row that needs the fewest victims, then the fewest preempted
	// processors, then the lowest.
	best, bestN, bestP := -1, 0, 0
	fits := false // with every victim gone
	qt := sc.topGang(m)
	for k := range m.MPL {
		if !rowAllowed(m, s.Queue, qt, k) {
			continue
		}
		all := pl.RowFree(s, k)
		for _, x := range sc.victims {
			if !x.gang || x.row == k {
				all += pl.InService(x.id, s)
			}
		}
		if all < p {
			continue
		}
		fits = true
		avail, mk, dk := pl.RowFree(s, k), m.MemHeld, m.DiskHeld
		n, procs := 0, 0
		for _, x := range sc.victims {
			if avail >= p && !sc.shortPlaced(m, pl, s, m.MemHeld-mk, m.DiskHeld-dk) {
				break
			}
			if x.gang && x.row != k {
				continue
			}
			avail += pl.InService(x.id, s)
			if sc.frees() && freesOn(s, x) {
				mk -= x.memKB
				dk -= x.diskKB
			}
			n++
			procs += x.procs
		}
		if avail < p || sc.shortPlaced(m, pl, s, m.MemHeld-mk, m.DiskHeld-dk) {
			continue
		}
		if best < 0 || n < bestN || n == bestN && procs < bestP {
			best, bestN, bestP = k, n, procs
		}
	}
	switch {
	case !fits:
		return false
	case best >= 0:
		sc.victimsIn(best)
	}
	// else memory or disk decide: no row is better; the victims in order.
	return true
}

// rejectShort refuses the jobs submitted at this instant that did not start
// and whose memory or disk limits cannot be granted now (SPEC §4: resource
// shortage), unless they or their queue wait for resources. A job that only
// lacks processors queues for them. It reports whether it refused one.
func (sc *Scheduler) rejectShort(v View, a Applier) bool {
	sc.arrived = append(sc.arrived[:0], v.Arrived()...)
	refused := false
	for _, id := range sc.arrived {
		s := v.Job(id)
		wait := sc.cfg.Queues[s.Queue].Wait
		if w := s.WaitResources; w != 0 {
			wait = w > 0 // the job's own choice
		}
		m := v.Matrix()
		if s.FirstMs >= 0 || wait || v.QueueState(s.Queue) != policy.Activated {
			continue
		}
		if s.Member == 0 && !sc.short(s, m.MemHeld, m.DiskHeld) || s.Member != 0 && !sc.shortPlaced(m, v.Placement(), s, 0, 0) {
			continue
		}
		refused = true
		k := slices.Index(v.Waiting(s.Queue), id)
		if k < 0 {
			panic(fmt.Sprintf("scored: job (seq %d) neither started nor waiting", s.Seq))
		}
		a.Apply(Decision{Kind: Reject, ID: id, Row: k})
	}
	return refused
}

// freesOn reports whether preempting victim x gives back limits on job s's
// cluster (a job on one cluster: x holds processors there, so its limits
// too; a job on several: only a victim on several holds on every cluster).
func freesOn(s *Job, x victim) bool {
	return s.Member != Spanning || x.member == Spanning
}

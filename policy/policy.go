// Package policy holds the scheduling policies: which queued jobs start, and
// when, at each scheduling pass.
//
// A policy is a pure decision function. At every instant where something
// happened (SPEC §2: after all submissions and ends of that instant) the engine
// calls Schedule once with a read-only View of the queue and the machine, and
// the policy answers through Decisions. The engine applies each decision at
// once, so the View a policy reads after Start already shows the started job
// as running; queue indices stay stable for the whole pass.
package policy

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/workload"
)

// View is what a policy may read of the simulation during a pass.
type View interface {
	// Now is the current instant.
	Now() workload.Time
	// Capacity is the machine's number of processors in service: all of
	// them unless nodes are down or draining (sim.Config.NodeEvents).
	Capacity() int
	// Free is the number of idle processors now.
	Free() int
	// Len is the number of jobs in the queue at the start of the pass.
	Len() int
	// Job returns the i-th queued job in queue order (0 = head). Jobs started
	// during this pass keep their index. The job's Estimate is the run time
	// the policy plans with: the user's requested time, or the prediction of
	// the run's Estimator (sim.Config.Estimator); the job is still killed
	// only at its requested time.
	Job(i int) *workload.Job
	// NumRunning is the number of running jobs.
	NumRunning() int
	// Running returns the k-th running job in order of predicted end (start +
	// estimate, workload.Forever without an estimate; ties in trace order):
	// its predicted end and its processors. Under an Estimator a job that
	// outlives its prediction gets a later one at that instant, never one in
	// the past. A job on draining nodes counts only the processors it will
	// give back to service, so Capacity = Free + Σ Running procs.
	Running(k int) (predictedEnd workload.Time, procs int)
	// Ended returns the jobs that ended since the previous pass, in order of
	// (end, trace order). A job that ends before its predicted end leaves a
	// hole in any plan made with its estimate. The slice is valid during the
	// pass only.
	Ended() []Ended
}

// Fitter is an optional interface of a View whose machine is more than a
// pool of processors (nodes with cores and memory, sim.Config.Allocator):
// there a job may not fit even when enough processors are free. FCFS and
// EASY ask it before starting a job.
type Fitter interface {
	// Fits reports whether queued job i can start now.
	Fits(i int) bool
}

// Ended describes a job that ended.
type Ended struct {
	Seq          int64         // the job's trace position (workload.Job.Seq)
	Start, End   workload.Time // when it ran
	PredictedEnd workload.Time // start + estimate (its last prediction), or workload.Forever
	Procs        int
	User         int // workload.Job.User (SWF field 12), for fair-share
	// Freed is the processors the end gave back to service: those the job
	// held (Procs; on a cluster of nodes those the allocator charged), less
	// those on draining nodes, which leave service with it (the same count
	// View.Running gave for it). A plan of processor counts (Conservative)
	// gives these back.
	Freed int
	// Alloc is, on a cluster of nodes (sim.Config.Allocator), the
	// resources the job held (as cluster.Allocator names them); nil on a
	// pool of processors.
	Alloc []cluster.Range
}

// Decisions receives a policy's decisions.
type Decisions interface {
	// Start starts queued job i now. Starting a job that does not fit is a
	// policy bug: the engine panics.
	Start(i int)
	// Reserve promises that queued job i starts no later than at. The engine
	// checks the promise when the job starts and panics if it was broken
	// (a backfilled job delayed a reservation).
	Reserve(i int, at workload.Time)
	// WakeAt asks for a scheduling pass at time t (after now) even if no job
	// arrives or ends then: for policies that plan periodically, such as
	// Slurm's backfill every bf_interval. The pass runs only if jobs wait.
	WakeAt(t workload.Time)
}

// Policy decides which queued jobs start at each scheduling pass. A policy
// value may keep state between the passes of one run: use a new one for
// every run.
type Policy interface {
	// Name identifies the policy and its settings in reports, e.g. "easy(lookahead=all)".
	Name() string
	// Schedule runs one scheduling pass.
	Schedule(v View, d Decisions)
}

// Backfill is HPC Pack's backfill setting: off, within a lookahead, or the whole queue.
type Backfill string

// Values of Backfill; they double as the --backfill flag's values.
const (
	// BackfillOff starts jobs in strict queue order (FCFS).
	BackfillOff Backfill = "off"
	// BackfillEASY gives the queue's head a reservation and backfills behind it (EASY).
	BackfillEASY Backfill = "easy"
)

// LookaheadAll means backfilling examines the whole queue.
const LookaheadAll = -1

// DefaultLookahead is HPC Pack's default backfill lookahead.
const DefaultLookahead = 1000

// ParseLookahead parses a lookahead: a non-negative number of queued jobs, or "all".
func ParseLookahead(s string) (int, error) {
	if strings.EqualFold(s, "all") {
		return LookaheadAll, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("policy: lookahead %q: want a number of jobs ≥ 0 or \"all\"", s)
	}
	return n, nil
}

// FormatLookahead is the inverse of ParseLookahead.
func FormatLookahead(n int) string {
	if n < 0 {
		return "all"
	}
	return strconv.Itoa(n)
}

// BackfillConservative gives every waiting job a reservation
// (conservative backfilling, reservation depth "all").
const BackfillConservative Backfill = "conservative"

// BackfillHPCPack is HPC Pack's own backfill window (SPEC §3, "Understanding
// backfilling"): the blocked head reserves the processors free now, and a
// job behind it starts only if it fits them and completes, by its requested
// time, before the head's start (EASY with Strict).
const BackfillHPCPack Backfill = "hpcpack"

// BackfillSlurm is Slurm's sched/backfill: a main scheduler in strict
// priority order at every event, and a backfill cycle every bf_interval
// (see Slurm).
const BackfillSlurm Backfill = "slurm"

// DepthAll is the reservation depth of conservative backfilling.
const DepthAll = -1

// Config selects a policy by its settings.
type Config struct {
	// Backfill is off, easy, hpcpack, conservative or slurm.
	Backfill Backfill
	// Lookahead is how many queued jobs behind the head backfilling examines,
	// or LookaheadAll (not for slurm, which has Slurm.MaxJobTest).
	Lookahead int
	// Depth is the reservation depth under easy: 0 or 1 is EASY, DepthAll is
	// conservative, anything between is Depth.
	Depth int
	// Order is the queue's priority order, one of OrderNames; "" is fcfs
	// (submission order). Conservative backfilling keeps submission order.
	Order string
	// Priority holds the settings of the multifactor order; nil means
	// DefaultPriorityParams.
	Priority *PriorityParams
	// SJBF examines EASY's backfill candidates shortest first (easy with
	// depth 1 only).
	SJBF bool
	// Slurm holds the parameters of the slurm backfill; zero fields take
	// Slurm's defaults.
	Slurm SlurmParams
	// Tick is the run's ticks a second (0 or 1: seconds). The durations
	// of the settings, given in seconds (Slurm's bf_interval, bf_window
	// and bf_resolution, the multifactor order's MaxAge, HalfLife and
	// CalcPeriod), and F1's fitted function are turned into ticks here,
	// the one place where the policies' settings meet the time unit.
	Tick workload.Time
}

// New returns the policy for c: the backfilling policy, wrapped in Ordered
// unless the order is fcfs.
func New(c Config) (Policy, error) {
	p, err := newBackfill(c)
	if err != nil {
		return nil, err
	}
	if c.SJBF {
		e, ok := p.(*EASY)
		if !ok || e.Strict {
			return nil, fmt.Errorf("policy: shortest-first backfilling (SJBF) needs easy backfilling with reservation depth 1, not %s", p.Name())
		}
		e.SJBF = true
	}
	prio := DefaultPriorityParams()
	if c.Priority != nil {
		prio = *c.Priority
	}
	if c.Tick > 1 {
		if max(prio.MaxAge, prio.HalfLife, prio.CalcPeriod) > workload.MaxTime {
			return nil, fmt.Errorf("policy: priority durations beyond %d s cannot be counted in ticks of 1/%d s", workload.MaxTime, c.Tick)
		}
		prio.MaxAge *= c.Tick
		prio.HalfLife *= c.Tick
		prio.CalcPeriod *= c.Tick
	}
	o, err := ParseOrder(c.Order, prio)
	if err != nil {
		return nil, err
	}
	if _, ok := o.(F1); ok {
		o = F1{Tick: c.Tick}
	}
	if _, ok := o.(Arrival); ok {
		return p, nil
	}
	if _, ok := p.(*Conservative); ok {
		return nil, fmt.Errorf("policy: conservative backfilling plans in submission order and cannot use order %s (use easy with a reservation depth, or slurm)", o.Name())
	}
	return &Ordered{Order: o, Inner: p}, nil
}

// newBackfill returns the backfilling policy of c.
func newBackfill(c Config) (Policy, error) {
	if c.Lookahead < LookaheadAll {
		return nil, fmt.Errorf("policy: lookahead %d: want ≥ 0 or all", c.Lookahead)
	}
	switch c.Backfill {
	case BackfillOff:
		return FCFS{}, nil
	case BackfillConservative:
		return &Conservative{}, nil
	case BackfillSlurm:
		sp := c.Slurm
		sp.Tick = c.Tick
		return NewSlurm(sp)
	case BackfillHPCPack:
		if c.Depth > 1 || c.Depth == DepthAll {
			return nil, fmt.Errorf("policy: hpcpack backfilling reserves for the head only: reservation depth %s needs easy", FormatLookahead(c.Depth))
		}
		return &EASY{Lookahead: c.Lookahead, Strict: true}, nil
	case BackfillEASY:
		switch {
		case c.Depth == DepthAll:
			return &Conservative{}, nil
		case c.Depth < DepthAll:
			return nil, fmt.Errorf("policy: reservation depth %d: want ≥ 1 or all", c.Depth)
		case c.Depth <= 1:
			return &EASY{Lookahead: c.Lookahead}, nil
		default:
			return &Depth{Depth: c.Depth, Lookahead: c.Lookahead}, nil
		}
	}
	return nil, fmt.Errorf("policy: unknown backfill %q (want off, easy, hpcpack, conservative or slurm)", string(c.Backfill))
}

// FCFS starts jobs from the head of the queue while the head fits, and never
// lets a job overtake another.
type FCFS struct{}

var _ Policy = FCFS{}

// Name implements Policy.
func (FCFS) Name() string { return "fcfs" }

// Schedule implements Policy.
func (FCFS) Schedule(v View, d Decisions) {
	startHeads(v, d)
}

// startHeads starts jobs from the head while they fit, then lets the
// running jobs grow (HPC Pack's min/max job model; a no-op unless d is a
// Grower with growth configured, see Grower), and returns the index of the
// first job that did not fit (v.Len() if all started) and the processors
// left.
func startHeads(v View, d Decisions) (int, int) {
	fit, _ := v.(Fitter)
	i, free := startHeadsOnly(v, d, fit)
	return i, growRunning(v, d, free)
}

// startHeadsOnly starts jobs from the head while they fit and returns the
// index of the first job that does not and the processors left; fit is v
// as a Fitter, nil for a pool of processors.
func startHeadsOnly(v View, d Decisions, fit Fitter) (int, int) {
	free := v.Free()
	_, grows := d.(Grower)
	n := v.Len()
	i := 0
	for ; i < n; i++ {
		p := v.Job(i).Procs
		if p > free || (fit != nil && !fit.Fits(i)) {
			break
		}
		d.Start(i)
		if fit != nil || grows {
			free = v.Free() // whole nodes may hold more than p; a growing job up to its maximum
		} else {
			free -= p
		}
	}
	return i, free
}

// EASY is EASY backfilling as HPC Pack and pyss run it (SPEC §3).
//
// A pass starts jobs from the head while they fit. When the head does not fit,
// it gets a reservation at the shadow time: the earliest predicted end of the
// running jobs (by their estimates) at which enough processors are free for
// it. The jobs behind the head are then examined in queue order, at most
// Lookahead of them (LookaheadAll: every one), and each one that fits now
// starts if it has an estimate and either ends, by its estimate, no later than
// the shadow time, or uses no more than the extra processors: those the head
// will not need at the shadow time. A job started that way consumes its part
// of the extra processors for the candidates after it.
//
// With SJBF the same candidates (the Lookahead jobs behind the head) are
// examined shortest first: by estimate, ties in queue order. This is the
// backfill order of EASY++ (Tsafrir, Etsion and Feitelson, "Backfilling using
// system-generated predictions rather than user runtime estimates", IEEE
// TPDS 18(6), 2007).
//
// A job without an estimate is never backfilled. When the head's shadow time
// is unknown (it waits for a running job without an estimate), the head could
// start as soon as that job ends: jobs that end by the earliest time the head
// could start are backfilled, and longer ones only within the extra that
// EarliestPossible proves safe.
//
// With Strict, EASY is HPC Pack's own backfill window instead (SPEC §3,
// BackfillHPCPack; HPC Pack's "Understanding backfilling"): the blocked head
// reserves the processors free now, the window is those processors × the
// time until the head's start (the shadow time), and a job behind the head
// starts only if it fits the processors left in the window and completes,
// by its estimate, no later than the head's start. There are no extra
// processors: a job that would run past the head's start never backfills,
// even on processors the head will not need. Jobs started take their part
// of the window for the candidates after them. With an unknown shadow time
// the window ends at the earliest time the head could start. On a cluster
// of nodes whose View is a NodeView, the head's start is its start on the
// nodes (see nodeStart), which may be later than processors alone say.
type EASY struct {
	// Lookahead is how many queued jobs behind the head are examined for
	// backfilling: 0 backfills nothing, LookaheadAll the whole queue.
	Lookahead int
	// SJBF examines the backfill candidates shortest first instead of in
	// queue order.
	SJBF bool
	// Strict is HPC Pack's backfill window: a backfilled job must end by
	// the head's start (no extra processors).
	Strict bool

	cand []candidate // SJBF's candidates, reused between passes

	// With the engine's arrival-ordered queue and a long window, backfill
	// candidates come from an index instead of a walk (see fitIndex).
	idx     fitIndex
	idxView View    // the run idx describes
	miss    idxMiss // how the previous indexed pass ended

	// wmiss is how the previous walk over a fastpath.DenseQueue ended (see
	// idxMiss).
	wmiss idxMiss

	// caps are the optional interfaces of the View (and Decisions) the
	// last pass ran on: looking them up costs a few interface look-ups,
	// at every pass. (ArrivalOrder's answer changes during a run: it is
	// asked every time.)
	caps viewCaps

	quiet fastpath.QuietRule // what the last pass leaves (see Quieter)

	calProf cluster.Profile // the running jobs' profile under a Calendar
	calMemo shadowMemo      // the head's shadow under a Calendar, kept between passes

	held   []cluster.Held  // nodeStart's running jobs, reused between passes
	heldAt []cluster.Range // nodeStart's scratch
}

// viewCaps are the optional interfaces of a pass's View and Decisions.
type viewCaps struct {
	v     View
	d     Decisions
	fit   Fitter              // nil: a pool of processors
	ao    arrivalOrdered      // nil: the View never says its queue is in arrival order
	dense fastpath.DenseQueue // nil: the View has no dense queue
	grow  Grower              // d as a Grower, or nil
	sv    shadowView          // nil: shadows are computed through the View
	seq   seqSearcher         // nil: jobs are found by Seq through the View
	cal   Calendar            // nil: no reservations or start windows
	nv    NodeView            // nil: no nodes the policy can plan on
	// steady: fit's refusals hold while only jobs join (nil: not known).
	steady fastpath.SteadyFitter
}

// capsOf returns the optional interfaces of v and d, looked up again only
// when they are not those of the previous pass.
func (e *EASY) capsOf(v View, d Decisions) *viewCaps {
	if c := &e.caps; c.v == v && c.d == d {
		return c
	}
	e.caps = viewCaps{v: v, d: d}
	e.calMemo.valid = false // it was kept for another View
	e.caps.fit, _ = v.(Fitter)
	e.caps.ao, _ = v.(arrivalOrdered)
	e.caps.dense, _ = v.(fastpath.DenseQueue)
	e.caps.grow, _ = d.(Grower)
	e.caps.sv, _ = v.(shadowView)
	e.caps.seq, _ = v.(seqSearcher)
	e.caps.cal, _ = v.(Calendar)
	e.caps.nv, _ = v.(NodeView)
	e.caps.steady, _ = v.(fastpath.SteadyFitter)
	return &e.caps
}

// steadyFit reports whether the pass's Fitter, if any, keeps refusing the
// jobs it refused while only jobs join the queue (fastpath.SteadyFitter):
// the rule the pass leaves (Quiet) then holds for the jobs it passed over.
func (c *viewCaps) steadyFit() bool {
	return c.fit == nil || (c.steady != nil && c.steady.SteadyFits())
}

// arrivalOrdered reports whether the queue of the pass is in arrival order.
func (c *viewCaps) arrivalOrdered() bool { return c.ao != nil && c.ao.ArrivalOrder() }

// candidate is a backfill candidate: its estimate and queue index.
type candidate struct {
	est workload.Time
	i   int
}

func compareCandidates(a, b candidate) int {
	switch {
	case a.est != b.est:
		return cmp.Compare(a.est, b.est)
	default:
		return cmp.Compare(a.i, b.i)
	}
}

var _ fastpath.Quieter = (*EASY)(nil)

// Quiet implements fastpath.Quieter. EASY gives a rule after a pass on a pool of
// processors (no Fitter) whose head did not fit and had a known shadow
// time, and whose backfill window reached the end of the queue: a job
// joining behind can start only as a backfilled job, under the shadow
// time and the processors the pass left. (Its passed-over jobs stay
// passed over: free, extra and the shadow time do not change while only
// jobs join, and now only moves on; see idxMiss.) A pass that started
// nothing behind a blocked head, because no processor was free or it
// backfills nothing, leaves a rule that no joining job can start.
func (e *EASY) Quiet() fastpath.QuietRule { return e.quiet }

var _ fastpath.RoomBound = (*EASY)(nil)

// NeedsRoom implements fastpath.RoomBound: EASY starts queued jobs only, each on the
// processors it asks for, out of those free. What it keeps between passes
// (the walk's and the index's misses) is checked against View.Ended, which
// holds the ends of the passes an engine skipped; a reservation it would
// have made in a skipped pass is only promised again at the next.
func (e *EASY) NeedsRoom() bool { return true }

// Name implements Policy.
func (e *EASY) Name() string {
	n := "easy(lookahead=" + FormatLookahead(e.Lookahead)
	if e.Strict {
		n = "hpcpack(lookahead=" + FormatLookahead(e.Lookahead)
	}
	if e.SJBF {
		n += ",sjbf"
	}
	return n + ")"
}

// indexMinWindow is the backfill window from which EASY finds candidates
// through its index rather than by walking the window: below it the walk
// is cheaper than keeping the index.
const indexMinWindow = 128

// Schedule implements Policy.
func (e *EASY) Schedule(v View, d Decisions) {
	c := e.capsOf(v, d)
	// wmiss is valid only for a dense walk right after another; the rule
	// left is void until this pass gives one. (Only the flags are reset:
	// the fields are read before they are written again, if at all.)
	wmissValid := e.wmiss.valid
	e.wmiss.valid, e.quiet.Valid = false, false
	h, free := startHeadsOnly(v, d, c.fit)
	if c.grow != nil && free > 0 && c.grow.GrowRunning(free) > 0 {
		free = v.Free() // as growRunning does
	}
	n := v.Len()
	if h >= n {
		return
	}
	head := v.Job(h)
	var shadow workload.Time
	var extra int
	switch {
	case c.cal != nil:
		// Reservations and start windows: the head's start is the
		// earliest the calendar allows too, and the extra processors
		// are those free for it all along its estimate.
		shadow, extra = e.calMemo.shadow(&e.calProf, v, c.cal, h)
	case c.sv != nil:
		shadow, extra = c.sv.ShadowOf(head.Procs, false) // Shadow, without looking up c.sv again
	default:
		shadow, extra = ShadowOver(v, head.Procs, false)
	}
	if e.Strict && c.nv != nil {
		// HPC Pack's window lasts until the head's start on the nodes,
		// which may be later than processors alone say (see nodeStart).
		shadow = max(shadow, e.nodeStart(v, c.nv, h, false))
	}
	if shadow < workload.Forever {
		d.Reserve(h, shadow)
	}
	if e.Strict {
		extra = 0 // HPC Pack's window: nothing may run past the head's start
	}
	if e.Lookahead == 0 || free == 0 {
		// Nothing can start until something other than a submission
		// happens: the head does not fit and nothing is backfilled.
		e.quiet = fastpath.QuietRule{Valid: c.steadyFit()}
		return
	}
	known := shadow < workload.Forever
	if !known {
		// The head waits for a job without an estimate: its start is
		// unknown, but not before this.
		shadow, extra = EarliestPossible(v, head.Procs)
		if e.Strict {
			extra = 0
			if c.nv != nil {
				shadow = max(shadow, e.nodeStart(v, c.nv, h, true))
			}
		}
	}
	end := n
	if e.Lookahead > 0 && h+1+e.Lookahead < n {
		end = h + 1 + e.Lookahead
	}
	if known && end == n && c.steadyFit() {
		// The rule for the passes that follow: free and extra are set
		// once the backfill below is done.
		e.quiet = fastpath.QuietRule{Valid: true, Limit: math.MaxInt, Shadow: shadow}
		if e.Lookahead > 0 {
			e.quiet.Limit = 1 + e.Lookahead
		}
	}
	now := v.Now()
	before := free
	switch {
	case e.SJBF:
		cand := e.cand[:0]
		for i := h + 1; i < end; i++ {
			if est := v.Job(i).Estimate; est > 0 {
				cand = append(cand, candidate{est, i})
			}
		}
		slices.SortFunc(cand, compareCandidates)
		e.cand = cand
		for _, k := range cand {
			if free == 0 {
				break
			}
			free, extra, _ = backfillStarted(v, d, c.fit, k.i, now, shadow, free, extra)
		}
	case end-(h+1) >= indexMinWindow && c.arrivalOrdered():
		e.syncIndex(v, h)
		free, extra = e.backfillIndexed(v, d, c.fit, h+1, end, now, shadow, free, extra)
	case c.dense != nil:
		e.idxView = nil // rebuilt when a long window needs it again
		q := c.dense.Queued(end)
		first := h + 1
		ao := c.arrivalOrdered()
		if m := &e.wmiss; ao && wmissValid && h == 0 && m.head == head.Seq && m.free == free && m.extra == extra &&
			m.shadow == shadow && len(v.Ended()) == 0 && c.fit == nil {
			// Nothing started or ended since the previous walk, which
			// went through its whole window: the jobs it passed over are
			// passed over again (time only moved on), and only the jobs
			// that joined since can start (see idxMiss).
			first = e.indexOfSeq(v, first, end, m.hi+1)
		}
		free, extra = walkDense(v, d, c.fit, q, first, now, shadow, free, extra)
		if ao && free > 0 && end > h+1 {
			e.wmiss = idxMiss{valid: true, head: head.Seq, free: free, extra: extra, shadow: shadow, hi: v.Job(end - 1).Seq}
		}
	default:
		e.idxView = nil
		for i := h + 1; i < end && free > 0; i++ {
			free, extra, _ = backfillStarted(v, d, c.fit, i, now, shadow, free, extra)
		}
	}
	e.quiet.Free, e.quiet.Extra = free, extra
	if c.cal != nil && free != before {
		// Under a calendar the extra processors are the fewest free
		// over the head's run, and a job backfilled on them may end
		// before that minimum: the next pass finds more than this one
		// left. Only a pass that started nothing leaves its rule.
		e.quiet.Valid = false
	}
}

// nodeStart returns the earliest time queued job h could start on the
// nodes of nv if the running jobs ended at their predicted ends and nothing
// else started (Slurm's WILL_RUN, cluster.WillRun); with unknownEndsNow a
// running job without an estimate counts as ending now (the earliest its
// start could be). It is never earlier than the shadow time counted in
// processors, and later when the free processors are on nodes the job
// cannot use: its memory does not fit there, they are in another
// partition, or whole nodes are not free. HPC Pack's window (Strict) lasts
// until the head's start: "the window is those nodes × the time until the
// head's start" (SPEC §3).
func (e *EASY) nodeStart(v View, nv NodeView, h int, unknownEndsNow bool) workload.Time {
	now := v.Now()
	held := e.held[:0]
	for k, n := 0, v.NumRunning(); k < n; k++ {
		x := nv.Held(k)
		if unknownEndsNow && x.End >= workload.Forever {
			x.End = now
		}
		held = append(held, x)
	}
	e.held = held
	at, rs := cluster.WillRun(nv.Scratch(), now, nv.Request(h), held, e.heldAt[:0])
	e.heldAt = rs
	return at
}

// syncIndex brings the index up to date with the queue, whose head (index
// h) did not fit: it forgets the jobs started ahead of it in this pass and
// adds the jobs that joined since the previous pass, or builds the index
// anew for a new run or after a pass that did without it.
func (e *EASY) syncIndex(v View, h int) {
	n := v.Len()
	if v != e.idxView {
		e.miss = idxMiss{}
		e.idx.reset()
		e.idxView = v
		low := v.Job(h).Seq
		for i := h; i < n; i++ {
			e.idx.add(v.Job(i), low)
		}
		return
	}
	for i := 0; i < h; i++ {
		e.idx.remove(v.Job(i).Seq)
	}
	k := n
	for k > h && v.Job(k-1).Seq > e.idx.tail {
		k--
	}
	low := v.Job(h).Seq
	for i := k; i < n; i++ {
		e.idx.add(v.Job(i), low)
	}
}

// backfillIndexed is the backfill walk over queue indices [first, end),
// visiting only the jobs the index says may start: the same jobs, in the
// same order, as walking every index. It returns the free and extra
// processors left.
func (e *EASY) backfillIndexed(v View, d Decisions, fit Fitter, first, end int, now, shadow workload.Time, free, extra int) (int, int) {
	if first >= end {
		e.miss = idxMiss{}
		return free, extra
	}
	lo, hi := v.Job(first).Seq, v.Job(end-1).Seq
	head := v.Job(first - 1).Seq
	if m := e.miss; m.valid && m.head == head && m.free == free && m.extra == extra && m.shadow == shadow &&
		first == 1 && len(v.Ended()) == 0 && fit == nil {
		// Nothing started or ended since the previous pass found no job
		// up to m.hi, and the window has not moved: only the jobs that
		// joined since can be backfilled (see idxMiss).
		lo = max(lo, m.hi+1)
	}
	e.miss = idxMiss{}
	// Over the whole queue on a pool of processors, no job outside the
	// window may be backfilled (the head does not fit, the jobs ahead of it
	// left the index, none follow the window), nor any job before lo (it
	// was rejected with more room, see idxMiss): the search need not keep
	// to [lo, hi], which costs a search most of its visits.
	whole := end == v.Len() && lo == v.Job(first).Seq && fit == nil
	for free > 0 {
		if lo > hi {
			e.miss = idxMiss{valid: true, head: head, free: free, extra: extra, shadow: shadow, hi: hi}
			return free, extra
		}
		var s int64
		if whole {
			s = e.idx.firstAny(int32(free), int32(min(free, extra)), int64(shadow-now))
			if s >= 0 && (s < lo || s > hi) {
				whole = false // cannot happen; keep to the window
			}
		}
		if !whole {
			s = e.idx.first(lo, hi, int32(free), int32(min(free, extra)), int64(shadow-now))
		}
		if s < 0 {
			e.miss = idxMiss{valid: true, head: head, free: free, extra: extra, shadow: shadow, hi: hi}
			return free, extra
		}
		lo = s + 1
		k := e.indexOfSeq(v, first, end, s)
		if k == end || v.Job(k).Seq != s {
			e.idx.remove(s) // no longer queued
			continue
		}
		var started bool
		free, extra, started = backfillStarted(v, d, fit, k, now, shadow, free, extra)
		if started {
			e.idx.remove(s)
		} else {
			whole = false // s stays in the index: search after it
		}
		first = k + 1
	}
	return free, extra
}

// seqSearcher is implemented by a View that can find a job by Seq in an
// arrival-ordered queue without an interface call per probe (the engine).
type seqSearcher interface {
	// SearchSeq returns the smallest queue index k in [lo, hi) with
	// Job(k).Seq ≥ seq, or hi if there is none.
	SearchSeq(lo, hi int, seq int64) int
}

// indexOfSeq returns the smallest queue index k in [lo, hi) whose job has
// Seq ≥ s (hi if none), in v's arrival-ordered queue.
// It is called during a pass of Schedule, whose View e.caps describes.
func (e *EASY) indexOfSeq(v View, lo, hi int, s int64) int {
	if ss := e.caps.seq; ss != nil {
		return ss.SearchSeq(lo, hi, s)
	}
	return lo + sort.Search(hi-lo, func(k int) bool { return v.Job(lo+k).Seq >= s })
}

// backfillStarted starts queued job i if it may start now without delaying
// the head's start at shadow, and returns the free and extra processors
// left and whether it started the job; fit is v as a Fitter, nil for a pool
// of processors.
func backfillStarted(v View, d Decisions, fit Fitter, i int, now, shadow workload.Time, free, extra int) (int, int, bool) {
	j := v.Job(i)
	if j.Procs > free || j.Estimate <= 0 {
		return free, extra, false
	}
	useExtra := false
	switch {
	case now+j.Estimate <= shadow:
		// Ends before the head needs the processors.
	case j.Procs <= extra:
		useExtra = true
	default:
		return free, extra, false
	}
	if fit != nil {
		if !fit.Fits(i) {
			return free, extra, false
		}
		d.Start(i)
		if useExtra {
			extra -= free - v.Free() // the processors it holds
		}
		return v.Free(), max(extra, 0), true
	}
	if useExtra {
		extra -= j.Procs
	}
	d.Start(i)
	return free - j.Procs, extra, true
}

// Shadow returns the earliest predicted time at which procs processors are
// free (from the running jobs' predicted ends) and how many processors beyond
// procs are free then. The time is workload.Forever when it depends on a job
// without an estimate; extra is then 0.
func Shadow(v View, procs int) (at workload.Time, extra int) {
	return shadow(v, procs, false)
}

// EarliestPossible is for a head whose shadow time is unknown because it
// waits for running jobs without an estimate. It returns the earliest time
// the head could start (when it would if those jobs ended now) and the
// processors a job running past that time may use without ever delaying the
// head: the head's leftover at that time when a single running job lacks an
// estimate (the head cannot start before it ends, and from then on the real
// free processors are at least the predicted ones), and 0 when several do
// (the head could start once only some of them end, with less room).
func EarliestPossible(v View, procs int) (at workload.Time, extra int) {
	at, extra = shadow(v, procs, true)
	unknown := 0
	for k := v.NumRunning() - 1; k >= 0; k-- {
		if end, _ := v.Running(k); end < workload.Forever {
			break
		}
		unknown++
	}
	if unknown > 1 {
		extra = 0
	}
	return at, extra
}

// shadowView is implemented by a View that computes shadow itself, over
// its own running jobs, without an interface call per job (the engine: a
// pass computes the head's shadow over every running job it waits for).
type shadowView interface {
	// ShadowOf returns what shadow(v, procs, unknownEndsNow) returns.
	ShadowOf(procs int, unknownEndsNow bool) (at workload.Time, extra int)
}

// shadow computes Shadow, or with unknownEndsNow the shadow time if every
// running job without an estimate ended now.
func shadow(v View, procs int, unknownEndsNow bool) (at workload.Time, extra int) {
	if sv, ok := v.(shadowView); ok {
		return sv.ShadowOf(procs, unknownEndsNow)
	}
	return ShadowOver(v, procs, unknownEndsNow)
}

// ShadowOver computes the head's shadow time as Shadow and EarliestPossible
// do, reading the View's running jobs one by one: the definition that a
// View computing it itself (see Engine.ShadowOf in package sim) must match.
func ShadowOver(v View, procs int, unknownEndsNow bool) (at workload.Time, extra int) {
	avail := v.Free()
	at = v.Now()
	n := v.NumRunning()
	if unknownEndsNow {
		for k := n - 1; k >= 0; k-- {
			end, p := v.Running(k)
			if end < workload.Forever {
				break
			}
			avail += p
		}
	}
	if avail >= procs {
		return at, avail - procs
	}
	for k := 0; k < n; k++ {
		end, p := v.Running(k)
		if end >= workload.Forever {
			break
		}
		if avail >= procs && end > at {
			break // jobs ending at the shadow time itself are counted too
		}
		avail += p
		at = end
	}
	if avail < procs {
		return workload.Forever, 0
	}
	return at, avail - procs
}

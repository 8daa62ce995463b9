package policy

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/workload"
)

// Order is a queue ordering: a priority key for every waiting job. Jobs with
// lower keys come first; ties keep submission order. Ordered presents the
// queue to a policy in this order.
//
// Key must not return NaN. An order whose keys depend on more than the job
// and the instant (such as fair-share, which needs the users' past usage)
// also implements Updater.
type Order interface {
	// Name is the order's name, as the --order flag takes it.
	Name() string
	// Key returns queued job j's key at instant now.
	Key(j *workload.Job, now workload.Time) float64
}

// Updater is implemented by orders that keep state across passes. Ordered
// calls Update once at the start of every pass, before any Key.
type Updater interface {
	Update(v View)
}

// Names of the orders; they double as the --order flag's values.
const (
	OrderFCFS        = "fcfs"
	OrderSJF         = "sjf"
	OrderSmallest    = "smallest"
	OrderLargest     = "largest"
	OrderWFP3        = "wfp3"
	OrderUNICEP      = "unicep"
	OrderF1          = "f1"
	OrderMultiFactor = "multifactor"
)

// OrderNames lists the orders ParseOrder knows, in the order of the
// documentation.
var OrderNames = []string{OrderFCFS, OrderSJF, OrderSmallest, OrderLargest, OrderWFP3, OrderUNICEP, OrderF1, OrderMultiFactor}

// ParseOrder returns the order named s (one of OrderNames). A multifactor
// order gets the priority parameters p; the other orders ignore them. Each
// call returns a new order: stateful orders must not be shared between runs.
func ParseOrder(s string, p PriorityParams) (Order, error) {
	switch strings.ToLower(s) {
	case OrderFCFS, "":
		return Arrival{}, nil
	case OrderSJF:
		return SJF{}, nil
	case OrderSmallest:
		return SmallestFirst{}, nil
	case OrderLargest:
		return LargestFirst{}, nil
	case OrderWFP3:
		return WFP3{}, nil
	case OrderUNICEP:
		return UNICEP{}, nil
	case OrderF1:
		return F1{}, nil
	case OrderMultiFactor:
		return NewMultiFactor(p)
	}
	return nil, fmt.Errorf("policy: unknown order %q (want one of %s)", s, strings.Join(OrderNames, ", "))
}

// Arrival is first-come-first-served: submission order (ties in trace
// order), the queue's own order.
type Arrival struct{}

// Name implements Order.
func (Arrival) Name() string { return OrderFCFS }

// Key implements Order: every job has key 0, so ties keep submission order.
func (Arrival) Key(*workload.Job, workload.Time) float64 { return 0 }

// SJF is shortest job first: by runtime estimate (the requested time, or the
// prediction under an estimator), shortest first. Jobs without an estimate
// come last.
type SJF struct{}

// Name implements Order.
func (SJF) Name() string { return OrderSJF }

// Key implements Order: the estimate.
func (SJF) Key(j *workload.Job, _ workload.Time) float64 {
	if j.Estimate <= 0 {
		return math.Inf(1)
	}
	return float64(j.Estimate)
}

// SmallestFirst orders by processors, fewest first.
type SmallestFirst struct{}

// Name implements Order.
func (SmallestFirst) Name() string { return OrderSmallest }

// Key implements Order: the processors.
func (SmallestFirst) Key(j *workload.Job, _ workload.Time) float64 { return float64(j.Procs) }

// LargestFirst orders by processors, most first.
type LargestFirst struct{}

// Name implements Order.
func (LargestFirst) Name() string { return OrderLargest }

// Key implements Order: minus the processors.
func (LargestFirst) Key(j *workload.Job, _ workload.Time) float64 { return -float64(j.Procs) }

// WFP3 is the WFP utility function of Tang, Lan, Desai and Buettner,
// "Fault-aware, utility-based job scheduling on Blue Gene/P systems"
// (IEEE Cluster 2009), used at Argonne's Intrepid: the job with the largest
//
//	(w / r)³ · n
//
// goes first, where w is the job's wait so far, r its requested time and n
// its processors. It favours old and short jobs while keeping large jobs
// from starving. A job without an estimate counts as requesting forever: its
// key stays (almost) 0 however long it waits.
type WFP3 struct{}

// Name implements Order.
func (WFP3) Name() string { return OrderWFP3 }

// Key implements Order: −(w/r)³·n.
func (WFP3) Key(j *workload.Job, now workload.Time) float64 {
	x := waited(j, now) / requested(j)
	return -(x * x * x * float64(j.Procs))
}

// UNICEP is the UNICEP utility function of Tang et al. (Cluster 2009, see
// WFP3): the job with the largest
//
//	w / (log₂(n) · r)
//
// goes first (w wait so far, r requested time, n processors), which gives
// small jobs a fast turnaround. The formula was written for Blue Gene/P
// partitions of at least 64 nodes; log₂ 1 = 0 would divide by zero, so a
// 1-processor job counts as 2 processors here.
type UNICEP struct{}

// Name implements Order.
func (UNICEP) Name() string { return OrderUNICEP }

// Key implements Order: −w/(log₂(n)·r).
func (UNICEP) Key(j *workload.Job, now workload.Time) float64 {
	n := math.Log2(float64(max(j.Procs, 2)))
	return -waited(j, now) / (n * requested(j))
}

// F1 is the first scheduling function Carastan-Santos and de Camargo
// obtained by simulation and regression in "Obtaining dynamic scheduling
// policies with simulation and machine learning" (SC'17): the job with the
// smallest
//
//	log₁₀(r) · n + 870 · log₁₀(s)
//
// goes first, where r is the requested time, n the processors and s the
// submit time (seconds since the trace's start). Times below one second
// count as one (log₁₀ 1 = 0), so a job submitted at 0 does not get −∞.
// The function was fitted in seconds: in a run whose times are ticks of
// 1/Tick second, r and s are turned into seconds first.
type F1 struct {
	// Tick is the run's ticks a second (0 or 1: seconds).
	Tick workload.Time
}

// Name implements Order.
func (F1) Name() string { return OrderF1 }

// Key implements Order: log₁₀(r)·n + 870·log₁₀(s).
func (f F1) Key(j *workload.Job, _ workload.Time) float64 {
	if f.Tick > 1 {
		r := requested(j)
		if j.Estimate > 0 {
			r /= float64(f.Tick)
		}
		return math.Log10(r)*float64(j.Procs) + 870*math.Log10(max(float64(j.Submit)/float64(f.Tick), 1))
	}
	return math.Log10(requested(j))*float64(j.Procs) + 870*math.Log10(float64(max(j.Submit, 1)))
}

// waited returns how long j has waited at now, in seconds (≥ 0).
func waited(j *workload.Job, now workload.Time) float64 {
	return float64(max(now-j.Submit, 0))
}

// requested returns j's estimate in seconds; a job without one counts as
// requesting workload.Forever.
func requested(j *workload.Job) float64 {
	if j.Estimate <= 0 {
		return float64(workload.Forever)
	}
	return float64(j.Estimate)
}

// Ordered presents the queue to Inner in the priority order of Order:
// Inner's View lists the waiting jobs by key (ties in submission order), and
// its decisions are passed on for the jobs they name. Any policy that plans
// from scratch at every pass can be ordered: FCFS, EASY, Depth, Slurm.
// Conservative keeps its plan in submission order and cannot.
//
// The engine checks a reservation as a promise: the job must start by then.
// Under any order but Arrival a job that arrives later can overtake the head
// (a shorter job under SJF, a job whose priority grew under WFP3), so the
// head's reservation is only a plan, remade at every pass, and Ordered does
// not pass it on; under Arrival it does.
//
// Ordered reuses its buffers: a pass allocates nothing once the queue has
// been as long before.
type Ordered struct {
	// Order gives the priority order.
	Order Order
	// Inner is the policy that sees the queue in that order.
	Inner Policy
	// Tier, if not nil, ranks jobs before Order does: jobs of a higher
	// tier come first (Slurm's partition PriorityTier: "a partition's
	// priority tier takes precedence over a job's priority"). Reservations
	// are then plans, not promises, as under any order but Arrival.
	Tier func(j *workload.Job) int

	items []orderItem
	view  orderedView
	fit   orderedFitView
}

var _ Policy = (*Ordered)(nil)

// orderItem is a queued job's key and index in the engine's queue.
type orderItem struct {
	tier int
	key  float64
	i    int
}

func compareItems(a, b orderItem) int {
	if c := cmp.Compare(b.tier, a.tier); c != 0 {
		return c
	}
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.i, b.i)
}

// Name implements Policy: the inner policy's name and the order's, e.g.
// "easy(lookahead=all)+order=sjf".
func (o *Ordered) Name() string {
	n := o.Inner.Name() + "+order=" + o.Order.Name()
	if o.Tier != nil {
		n += "+priority-tier"
	}
	return n
}

// WithTiers returns p with its queue ranked by tier first (Ordered.Tier),
// then by p's own order (submission order for a policy that is not
// Ordered).
func WithTiers(p Policy, tier func(j *workload.Job) int) Policy {
	if o, ok := p.(*Ordered); ok {
		o.Tier = tier
		return o
	}
	return &Ordered{Order: Arrival{}, Inner: p, Tier: tier}
}

// Schedule implements Policy.
func (o *Ordered) Schedule(v View, d Decisions) {
	if u, ok := o.Order.(Updater); ok {
		u.Update(v)
	}
	n := v.Len()
	now := v.Now()
	items := o.items[:0]
	for i := range n {
		j := v.Job(i)
		it := orderItem{key: o.Order.Key(j, now), i: i}
		if o.Tier != nil {
			it.tier = o.Tier(j)
		}
		items = append(items, it)
	}
	slices.SortFunc(items, compareItems)
	o.items = items
	_, fcfs := o.Order.(Arrival)
	fcfs = fcfs && o.Tier == nil
	o.view = orderedView{View: v, d: d, items: items, reserve: fcfs}
	if f, ok := v.(Fitter); ok {
		o.fit = orderedFitView{&o.view, f}
		if nc, ok := v.(NodeCalendar); ok {
			cv := orderedNodeCalView{orderedCalView{&o.fit, nc}, nc}
			o.Inner.Schedule(&cv, &o.view)
		} else if c, ok := v.(Calendar); ok {
			cv := orderedCalView{&o.fit, c}
			o.Inner.Schedule(&cv, &o.view)
		} else {
			o.Inner.Schedule(&o.fit, &o.view)
		}
	} else {
		o.Inner.Schedule(&o.view, &o.view)
	}
	o.view, o.fit = orderedView{}, orderedFitView{} // drop the references to this pass
}

// orderedView is the permuted View and Decisions Ordered hands its inner
// policy.
type orderedView struct {
	View
	d       Decisions
	items   []orderItem
	reserve bool // pass reservations on
}

// orderedFitView is the permuted View of a View that is a Fitter.
type orderedFitView struct {
	*orderedView
	f Fitter
}

// Fits implements Fitter: the i-th job in priority order.
func (o *orderedFitView) Fits(i int) bool { return o.f.Fits(o.items[i].i) }

// orderedCalView is the permuted View of a View that is a Fitter and a
// Calendar.
type orderedCalView struct {
	*orderedFitView
	c Calendar
}

// Withheld implements Calendar: the i-th job in priority order.
func (o *orderedCalView) Withheld(i int, t workload.Time) (int, workload.Time) {
	return o.c.Withheld(o.items[i].i, t)
}

// CreditGen implements fastpath.Credited: the wrapped calendar's.
func (o *orderedCalView) CreditGen() uint64 { return creditGen(o.c) }

// AdmitsSome implements Admitter: the wrapped calendar's (true when it
// cannot tell).
func (o *orderedCalView) AdmitsSome() bool {
	a, ok := o.c.(Admitter)
	return !ok || a.AdmitsSome()
}

// Admitted implements JobAdmitter: the i-th job in priority order (true
// when the wrapped calendar cannot tell).
func (o *orderedCalView) Admitted(i int) bool {
	a, ok := o.c.(JobAdmitter)
	return !ok || a.Admitted(o.items[i].i)
}

// Memoless implements fastpath.Memoless: the wrapped calendar's.
func (o *orderedCalView) Memoless() bool {
	ml, ok := o.c.(fastpath.Memoless)
	return ok && ml.Memoless()
}

// StartFrom implements Calendar: the i-th job in priority order.
func (o *orderedCalView) StartFrom(i int, t workload.Time) workload.Time {
	return o.c.StartFrom(o.items[i].i, t)
}

// FirstOver implements fastpath.Spans: the i-th job in priority order.
func (o *orderedCalView) FirstOver(i int, count bool, slack int, from, to workload.Time) (workload.Time, workload.Time, bool) {
	if sp, ok := o.c.(fastpath.Spans); ok {
		return sp.FirstOver(o.items[i].i, count, slack, from, to)
	}
	return 0, 0, false
}

// Blocked implements fastpath.Spans: the i-th job in priority order.
func (o *orderedCalView) Blocked(i, slack int, from, dur workload.Time) bool {
	sp, ok := o.c.(fastpath.Spans)
	return ok && sp.Blocked(o.items[i].i, slack, from, dur)
}

// Horizon implements fastpath.Spans: the wrapped calendar's.
func (o *orderedCalView) Horizon(from workload.Time) workload.Time {
	if sp, ok := o.c.(fastpath.Spans); ok {
		return sp.Horizon(from)
	}
	return workload.Forever
}

// orderedNodeCalView is the permuted View of a View that is a Fitter and
// a NodeCalendar.
type orderedNodeCalView struct {
	orderedCalView
	nc NodeCalendar
}

// Pinned implements NodeCalendar: the i-th job in priority order.
func (o *orderedNodeCalView) Pinned(i int, from, to workload.Time, dst []PinnedRun) (int, []PinnedRun, workload.Time) {
	return o.nc.Pinned(o.items[i].i, from, to, dst)
}

// WithheldCount implements NodeCalendar: the i-th job in priority order.
func (o *orderedNodeCalView) WithheldCount(i int, t workload.Time) (int, workload.Time) {
	return o.nc.WithheldCount(o.items[i].i, t)
}

// TicksPerSecond implements Ticker: the inner calendar's unit.
func (o *orderedCalView) TicksPerSecond() workload.Time {
	if t, ok := o.c.(Ticker); ok {
		return t.TicksPerSecond()
	}
	return 1
}

// Job implements View: the i-th job in priority order.
func (o *orderedView) Job(i int) *workload.Job { return o.View.Job(o.items[i].i) }

// Start implements Decisions.
func (o *orderedView) Start(i int) { o.d.Start(o.items[i].i) }

// WakeAt implements Decisions.
func (o *orderedView) WakeAt(t workload.Time) { o.d.WakeAt(t) }

// Settled implements Settler: Inner's answer; false when Inner is not a
// Settler.
func (o *Ordered) Settled(since workload.Time) bool {
	s, ok := o.Inner.(Settler)
	return ok && s.Settled(since)
}

// Strand implements Settler: Inner's reason ("" when Inner is not a
// Settler).
func (o *Ordered) Strand(j *workload.Job) string {
	if s, ok := o.Inner.(Settler); ok {
		return s.Strand(j)
	}
	return ""
}

var _ Settler = (*Ordered)(nil)

// Fail implements Failer, for a policy inside Ordered that fails jobs
// (Filtered); it panics if Ordered's own Decisions cannot.
func (o *orderedView) Fail(i int, reason string) {
	f, ok := o.d.(Failer)
	if !ok {
		panic(fmt.Sprintf("policy: cannot fail a job: %T does not implement Failer", o.d))
	}
	f.Fail(o.items[i].i, reason)
}

// Reserve implements Decisions; it passes the reservation on only under
// submission order (see Ordered).
func (o *orderedView) Reserve(i int, at workload.Time) {
	if o.reserve {
		o.d.Reserve(o.items[i].i, at)
	}
}

// Preempt implements Preempter for a policy inside Ordered that preempts
// (PartitionPrio): the i-th job in priority order. Without a Preempter
// underneath, nothing starts and no job could preempt.
func (o *orderedView) Preempt(i int) (started, more bool) {
	p, ok := o.d.(Preempter)
	if !ok {
		return false, false
	}
	return p.Preempt(o.items[i].i)
}

package policy

import "github.com/schedsim/schedsim/workload"

// This file holds the policy side of HPC Pack's job model with minimum and
// maximum resources (SPEC §3 and §6): running jobs grow toward their
// maximum before the scheduler backfills. The engine does the growing
// (sim.Grow); a policy only says when, by calling GrowRunning between the
// starts at the head of the queue and backfilling, and a GrowFilter (HPC
// Pack's activation filters, package policy/hpcpack) decides whether each
// growth happens.

// Grower is implemented by Decisions that can grow running jobs (the engine
// under sim.Config.Grow; policy wrappers pass it on). GrowRunning offers up
// to spare idle processors to the running jobs below their maximum, in
// their order (see sim.Grow), and returns how many it gave. A Grower
// without growth configured gives none.
type Grower interface {
	GrowRunning(spare int) int
}

// Assigner is implemented by Decisions under growth (the engine under
// sim.Config.Grow; policy wrappers pass it on) for a policy that decides
// itself how many processors a job starts with (hpcpack.Filtered, whose
// activation filters are asked once for the whole assignment). Range
// returns the processors queued job i may hold, [lo, hi] (hi = lo for a
// job that cannot grow); StartWith starts it as Decisions.Start does, on
// lo, and gives it at once up to procs processors in all, as many as the
// idle processors allow (procs ≤ lo: its minimum only).
type Assigner interface {
	Range(i int) (lo, hi int)
	StartWith(i, procs int)
}

// GrowOffer is an offer of idle processors to a running job: the engine
// asks its GrowFilter whether Job may grow to Procs processors.
type GrowOffer struct {
	// Job is the running job.
	Job *workload.Job
	// Now is the simulated instant.
	Now workload.Time
	// Pass is the scheduling pass number (1 for the first pass of a run).
	Pass int64
	// Procs is the processor count the job would grow to.
	Procs int
	// Start is when the running job started.
	Start workload.Time
}

// GrowFilter decides whether a running job may grow: HPC Pack's activation
// filters' "running job (grow)" column of SPEC §6 (hpcpack.Model).
type GrowFilter interface {
	FilterGrow(o GrowOffer) bool
}

// growRunning lets d grow the running jobs with the free processors and
// returns the processors still free: the step between the starts at the
// head of the queue and backfilling.
func growRunning(v View, d Decisions, free int) int {
	g, ok := d.(Grower)
	if !ok || free <= 0 {
		return free
	}
	if g.GrowRunning(free) > 0 {
		return v.Free()
	}
	return free
}

// GrowRunning implements Grower.
func (o *orderedView) GrowRunning(spare int) int {
	if g, ok := o.d.(Grower); ok {
		return g.GrowRunning(spare)
	}
	return 0
}

// Range implements Assigner.
func (o *orderedView) Range(i int) (int, int) {
	if a, ok := o.d.(Assigner); ok {
		return a.Range(o.items[i].i)
	}
	p := o.Job(i).Procs
	return p, p
}

// StartWith implements Assigner.
func (o *orderedView) StartWith(i, procs int) {
	if a, ok := o.d.(Assigner); ok {
		a.StartWith(o.items[i].i, procs)
		return
	}
	o.Start(i)
}

var (
	_ Grower   = (*orderedView)(nil)
	_ Assigner = (*orderedView)(nil)
)

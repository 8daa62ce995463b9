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

var _ Grower = (*orderedView)(nil)

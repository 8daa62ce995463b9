package hpcpack

import (
	"slices"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// This file holds the filters' side of HPC Pack's job model with minimum
// and maximum resources (SPEC §3 and §6): each growth of a running job
// passes its activation chain (Model.FilterGrow), and Filtered passes the
// growth step on to the engine with the processors the filters do not
// reserve.

// GrowRunning implements policy.Grower: Inner's growth with the idle
// processors the activation filters do not reserve. In a round that
// refused a start (another round follows) it grows nothing: the refused
// job's processors go to the next job of the queue first. When Inner's
// last round did not grow the running jobs (no round ran, or it refused a
// start before its growth), Schedule grows them after it.
func (w *filteredView) GrowRunning(spare int) int {
	f := w.f
	if f.refused {
		return 0
	}
	f.grewIn = f.round
	return f.grow(spare)
}

// grow passes growth on to the engine, with at most the unreserved idle
// processors.
func (f *Filtered) grow(spare int) int {
	g, ok := f.d.(policy.Grower)
	spare = min(spare, f.v.Free()-f.reserved)
	if !ok || spare <= 0 {
		return 0
	}
	return g.GrowRunning(spare)
}

var (
	_ policy.Grower     = (*filteredView)(nil)
	_ policy.GrowFilter = (*Model)(nil)
)

// FilterGrow implements policy.GrowFilter: the job's activation chain (its
// template's filters, then the cluster's) decides, SPEC §6's "running job
// (grow)" column: 0 grows the job; 1 does not, the queue is not blocked and
// the processors go to others. Results SPEC §6 leaves undefined for a
// running job (2, 3, 4, any other code, a timeout, a missing filter) are
// treated as 1, and the job's note counts them under their own code. After
// a refusal the job is not offered processors again before
// Model.Reevaluate has passed, as blocked jobs are re-evaluated; Filtered
// asks the engine for a pass then (Decisions.WakeAt), so that the job is
// offered the idle processors again at its next re-evaluation even when
// nothing else happens; the refusal is reverted in the chain as for a
// queued job.
//
// The filters get an Activation with Grow set, Index -1, Backfill false,
// Resources the processor count the job would grow to and Start the job's
// start.
func (h *Model) FilterGrow(o policy.GrowOffer) bool {
	h.setup()
	chain := h.ActivationChain(o.Job)
	if len(chain) == 0 {
		return true
	}
	nt := h.note(o.Job.Seq)
	if nt.growNext > o.Now {
		return false
	}
	h.growAct = Activation{Job: o.Job, Now: o.Now, Pass: o.Pass, Index: -1, Resources: o.Procs, Grow: true, Start: o.Start}
	r, _ := ActivationChain(chain, &h.growAct, nil)
	nt.grow[counter(r)]++
	if r.Status == Exited && r.Code == ActivateStart {
		nt.growNext = 0
		h.dropGrowWait(o.Job.Seq)
		return true
	}
	nt.growNext = o.Now + h.reevaluate()
	if !slices.Contains(h.growWait, o.Job.Seq) {
		h.growWait = append(h.growWait, o.Job.Seq)
	}
	return false
}

// dropGrowWait takes the job with sequence seq off the running jobs whose
// growth was refused.
func (h *Model) dropGrowWait(seq int64) {
	if k := slices.Index(h.growWait, seq); k >= 0 {
		h.growWait = slices.Delete(h.growWait, k, k+1)
	}
}

// nextGrowth returns the earliest re-evaluation after now of a running job
// whose growth was refused (SPEC §6: the processors are offered again at
// the next re-evaluation), or workload.Forever. A job whose re-evaluation
// is due already is offered processors at any pass that has idle ones and
// needs no wake.
func (h *Model) nextGrowth(now workload.Time) workload.Time {
	next := workload.Forever
	for _, seq := range h.growWait {
		if nt := h.notes[seq]; nt != nil && nt.growNext > now {
			next = min(next, nt.growNext)
		}
	}
	return next
}

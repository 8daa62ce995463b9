package policy

import "strconv"

// This file holds the policy side of HPC Pack's job model with minimum and
// maximum resources (SPEC §3 and §6): running jobs grow toward their
// maximum before the scheduler backfills. The engine does the growing
// (sim.Grow); a policy only says when, by calling GrowRunning between the
// starts at the head of the queue and backfilling, and the activation
// filters decide whether each growth happens (GrowFilter).

// Grower is implemented by Decisions that can grow running jobs (the engine
// under sim.Config.Grow; policy wrappers pass it on). GrowRunning offers up
// to spare idle processors to the running jobs below their maximum, in
// their order (see sim.Grow), and returns how many it gave. A Grower
// without growth configured gives none.
type Grower interface {
	GrowRunning(spare int) int
}

// GrowFilter decides whether a running job may grow: the activation
// filters' "running job (grow)" column of SPEC §6. The engine calls
// FilterGrow with a.Grow set, a.Index -1, a.Backfill false and a.Resources
// the processor count the job would grow to.
type GrowFilter interface {
	FilterGrow(a *Activation) bool
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

// GrowRunning implements Grower: Inner's growth with the idle processors
// the activation filters do not reserve. In a round that refused a start
// (another round follows) it grows nothing: the refused job's processors
// go to the next job of the queue first. When Inner's last round did not
// grow the running jobs (no round ran, or it refused a start before its
// growth), Schedule grows them after it.
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
	g, ok := f.d.(Grower)
	spare = min(spare, f.v.Free()-f.reserved)
	if !ok || spare <= 0 {
		return 0
	}
	return g.GrowRunning(spare)
}

// GrowRunning implements Grower.
func (o *orderedView) GrowRunning(spare int) int {
	if g, ok := o.d.(Grower); ok {
		return g.GrowRunning(spare)
	}
	return 0
}

var (
	_ Grower     = (*filteredView)(nil)
	_ Grower     = (*orderedView)(nil)
	_ GrowFilter = (*HPCPack)(nil)
)

// FilterGrow implements GrowFilter: the job's activation chain (its
// template's filters, then the cluster's) decides, SPEC §6's "running job
// (grow)" column: 0 grows the job; 1 does not, the queue is not blocked and
// the processors go to others. Results SPEC §6 leaves undefined for a
// running job (2, 3, 4, any other code, a timeout, a missing filter) are
// treated as 1, and the job's note counts them under their own code. After
// a refusal the job is not offered processors again before
// HPCPack.Reevaluate has passed, as blocked jobs are re-evaluated; the
// refusal is reverted in the chain as for a queued job.
func (h *HPCPack) FilterGrow(a *Activation) bool {
	h.setup()
	chain := h.ActivationChain(a.Job)
	if len(chain) == 0 {
		return true
	}
	nt := h.note(a.Job.Seq)
	if nt.growNext > a.Now {
		return false
	}
	r, _ := ActivationChain(chain, a, nil)
	k := countOther
	switch {
	case r.Status == TimedOut:
		k = countTimeout
	case r.Status == NotFound:
		k = countNotFound
	case r.Code >= 0 && r.Code < 5:
		k = r.Code
	}
	nt.grow[k]++
	if r.Status == Exited && r.Code == ActivateStart {
		nt.growNext = 0
		return true
	}
	nt.growNext = a.Now + h.reevaluate()
	return false
}

// appendGrowNote appends "grow=0x2,1x1" (the grow results and their
// counts) when n saw any, after a space when dst grew beyond start.
func appendGrowNote(dst []byte, start int, n *jobNote) []byte {
	first := true
	for k, c := range n.grow {
		if c == 0 {
			continue
		}
		if first {
			if len(dst) > start {
				dst = append(dst, ' ')
			}
			dst = append(dst, "grow="...)
			first = false
		} else {
			dst = append(dst, ',')
		}
		dst = append(dst, countNames[k]...)
		dst = append(dst, 'x')
		dst = strconv.AppendInt(dst, int64(c), 10)
	}
	return dst
}

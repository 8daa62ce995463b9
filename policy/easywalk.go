package policy

import (
	"math"

	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/workload"
)

// clamp32 returns v cut to the largest int32.
func clamp32(v int64) int32 { return int32(min(v, math.MaxInt32)) }

// walkDense is EASY's backfill walk over queue indices [first, len(q)),
// with q the View's dense queue as a filter: it starts the same jobs, in
// the same order, as calling backfillStarted on every index. A job the
// filter lets through is checked again on the View's own job, whose values
// the clamped ones can only understate; fit is v as a Fitter, nil for a
// pool of processors.
//
// It returns the processors left free and the extra processors left.
func walkDense(v View, d Decisions, fit Fitter, q []fastpath.Queued, first int, now, shadow workload.Time, free, extra int) (int, int) {
	horizon := int64(shadow - now)
	for i := first; i < len(q) && free > 0; i++ {
		if i = nextCandidate(q, i, free, min(free, extra), horizon); i == len(q) {
			break
		}
		free, extra, _ = backfillStarted(v, d, fit, i, now, shadow, free, extra)
	}
	return free, extra
}

// nextCandidate returns the first index k ≥ i of q whose job may be
// backfilled with free processors, lim of them usable past the shadow
// time, horizon seconds before it (len(q) if none): one that fits and has
// an estimate, and either ends by the shadow time or uses no more than lim
// processors. Most jobs need more than free: the scan does one compare
// for them. It is kept out of line so that the scan holds its bounds in
// registers.
//
//go:noinline
func nextCandidate(q []fastpath.Queued, i, free, lim int, horizon int64) int {
	// Queued's fields are at most the largest int32, so bounds cut to it
	// give the same answers.
	f := int32(min(free, math.MaxInt32))
	l := int32(min(max(lim, -1), math.MaxInt32))
	h := uint32(min(max(horizon, 0), math.MaxInt32))
	rest := q[i:]
	for k := range rest {
		j := &rest[k]
		if j.Procs > f {
			continue
		}
		// Est in [1, h], or Est > 0 and Procs ≤ l: uint32(Est-1) is
		// below h exactly for Est in [1, h], and at least 2³¹−1 for
		// Est ≤ 0.
		if e := uint32(j.Est - 1); e < h || (e < math.MaxInt32 && j.Procs <= l) {
			return i + k
		}
	}
	return len(q)
}

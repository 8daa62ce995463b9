package policy

import (
	"math"

	"github.com/schedsim/schedsim/workload"
)

// DenseQueue is an optional interface of a View that keeps, beside its
// queue, what a backfill scan reads of every queued job in one dense slice
// (the engine). At normal load a pass happens at almost every submission
// and end, and each walks the few dozen jobs behind a blocked head, most of
// which need more processors than are free. Reading them through View.Job
// costs an interface call and a cache miss per job; reading Queued costs
// neither.
type DenseQueue interface {
	// Queued returns the first n jobs of the queue as it was at the start
	// of the pass (n ≤ Len()): entry i describes Job(i). The slice is
	// valid during the pass only and must not be modified.
	Queued(n int) []Queued
}

// Queued is what a backfill scan reads of a queued job, in 8 bytes.
type Queued struct {
	// Est is the job's Estimate, cut to the largest int32; ≤ 0 means none
	// (the job is never backfilled).
	Est int32
	// Procs is the job's Procs, cut to the largest int32.
	Procs int32
}

// QueuedOf returns what a DenseQueue holds for j.
func QueuedOf(j *workload.Job) Queued {
	return Queued{Est: clamp32(int64(j.Estimate)), Procs: clamp32(int64(j.Procs))}
}

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
func walkDense(v View, d Decisions, fit Fitter, q []Queued, first int, now, shadow workload.Time, free, extra int) (int, int) {
	// A job may start if it fits (Procs ≤ free) and has an estimate, and
	// either ends by the shadow time (Est ≤ horizon) or uses no more than
	// the extra processors (Procs ≤ lim). Most jobs fail the first test:
	// the scan does one compare for them.
	horizon := int64(shadow - now)
	for i := first; i < len(q) && free > 0; i++ {
		lim := min(free, extra)
		for ; i < len(q); i++ {
			j := &q[i]
			if int(j.Procs) <= free && j.Est > 0 && (int64(j.Est) <= horizon || int(j.Procs) <= lim) {
				break
			}
		}
		if i == len(q) {
			break
		}
		free, extra, _ = backfillStarted(v, d, fit, i, now, shadow, free, extra)
	}
	return free, extra
}

package sim

import (
	"fmt"

	"github.com/schedsim/schedsim/policy/scored"
)

// SkippedPasses returns the passes e skipped, among its Stats.Passes: the
// tests of the skipping rules check that they skip.
func SkippedPasses(e *Engine) int64 { return e.skipped }

// SlowLimits makes the engines of cfg walk the whole queue under limits
// (the path before the owners' index): the tests compare both.
func SlowLimits(cfg *Config) { cfg.slowLimits = true }

// SlowCalendar makes engine e walk the reservations at every check, as
// it did before the spans and the admission cache (tests compare both).
func SlowCalendar(e *Engine) {
	if e.cons != nil {
		e.cons.noMemo = true
		e.quieter, e.roomBound = nil, false // every pass runs
	}
}

// RecordDecisions makes the SCore-D engine s append every decision of its
// scheduler to *out, as it is applied, one line each: "MS ms KIND job ID"
// plus the row of a start and the preemptor of a preemption.
func RecordDecisions(s *ScoreD, out *[]string) {
	sd := s.eng.sd
	sd.decided = func(d scored.Decision) {
		line := fmt.Sprintf("%d ms %v job %d", sd.nowMs, d.Kind, sd.slots[d.ID].job.ID)
		switch d.Kind {
		case scored.Start:
			line += fmt.Sprintf(" row %d", d.Row)
		case scored.Preempt:
			line += fmt.Sprintf(" by job %d", sd.slots[d.By].job.ID)
		}
		*out = append(*out, line)
	}
}

package schedsim

import (
	"fmt"
	"strings"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// warnings returns what the user of a run should know about its input and
// options: a trace whose jobs mostly have no requested time (backfilling
// then seldom applies), options that do not apply to the chosen policy,
// and an order that can starve jobs without an estimate. Each is said once,
// on the warning writer and in summary.json.
func (o *runner) warnings(sdRun bool, c workload.CleanStats) []string {
	w := append([]string(nil), o.notes...)
	if o.PolicyExec == "" && (o.PolicyTimeout != "" || o.PolicyLog != "") {
		w = append(w, "--policy-timeout and --policy-log apply to --policy-exec: they have no effect")
	}
	if sdRun {
		return w
	}
	def := Default()
	if o.PolicyExec != "" {
		// The program is the policy: the built-in policy's options that
		// the table of combinations lets through do nothing.
		if o.Lookahead != def.Lookahead || (o.Backfill != def.Backfill && !strings.EqualFold(o.Backfill, string(policy.BackfillEASY))) {
			w = append(w, "--backfill and --lookahead choose a built-in policy, which --policy-exec replaces: they have no effect")
		}
		return w
	}
	backfill := policy.Backfill(strings.ToLower(o.Backfill))
	user := o.Estimates == "" || strings.EqualFold(o.Estimates, policy.EstimatesUser)
	if c.Kept > 0 && c.NoEstimate*2 > c.Kept && backfill != policy.BackfillOff && user {
		w = append(w, fmt.Sprintf("%d of %d jobs (%.0f %%) have no requested time: they are never backfilled (nor planned around), so %s behaves much like FCFS here; --missing-estimate runtime or --estimates perfect|predict give them one",
			c.NoEstimate, c.Kept, 100*float64(c.NoEstimate)/float64(c.Kept), backfill))
	}
	if o.Lookahead != def.Lookahead && backfill != policy.BackfillEASY && backfill != policy.BackfillHPCPack {
		hint := ""
		if backfill == policy.BackfillSlurm {
			hint = " (Slurm's is --bf-max-job-test)"
		}
		w = append(w, fmt.Sprintf("--lookahead %s applies to --backfill easy and hpcpack, not %s: it has no effect%s", o.Lookahead, backfill, hint))
	}
	if o.ReservationDepth != def.ReservationDepth && backfill != policy.BackfillEASY {
		w = append(w, fmt.Sprintf("--reservation-depth %s applies to --backfill easy, not %s: it has no effect", o.ReservationDepth, backfill))
	}
	switch strings.ToLower(o.Order) {
	case "sjf", "wfp3", "unicep", "f1":
		if c.NoEstimate > 0 && user {
			w = append(w, fmt.Sprintf("--order %s ranks jobs by their requested time, and %d jobs have none: they rank as if their request were unbounded and can wait behind every later job", o.Order, c.NoEstimate))
		}
	}
	return w
}

package report

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// WriteSummaryJSON writes s to w as indented JSON (two spaces) with a trailing
// newline. The output depends only on s.
func WriteSummaryJSON(w io.Writer, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encoding summary: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// WriteSummaryTable writes s to w as an aligned two-column table for a
// terminal, with units. Cleaning counts appear only when non-zero, under the
// keys they have in summary.json; the records read and kept head them.
func WriteSummaryTable(w io.Writer, s *Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range summaryRows(s) {
		fmt.Fprintf(tw, "%s%s\t%s\n", strings.Repeat("  ", r.indent), r.label, r.value)
	}
	for _, r := range cleaningRows(s.Cleaning) {
		fmt.Fprintf(tw, "%s%s\t%s\n", strings.Repeat("  ", r.indent), r.label, r.value)
	}
	return tw.Flush()
}

// tableRow is one row of the summary table: a label (indented by indent
// levels under the row before) and its value with units.
type tableRow struct {
	label, value string
	indent       int
}

// summaryRows returns the summary table's rows, as the terminal and the HTML
// report show them.
func summaryRows(s *Summary) []tableRow {
	var rows []tableRow
	row := func(indent int, label, format string, args ...any) {
		rows = append(rows, tableRow{label: label, value: fmt.Sprintf(format, args...), indent: indent})
	}
	row(0, "trace", "%s", s.Trace)
	row(0, "policy", "%s", s.Policy)
	row(0, "processors", "%d", s.Procs)
	row(0, "jobs", "%d", s.Jobs)
	row(1, "started", "%d", s.Started)
	if s.Immediate > 0 {
		row(2, "of immediate queues, beside the machine", "%d", s.Immediate)
	}
	row(1, "completed", "%d", s.Completed)
	row(1, "killed at limit", "%d", s.Killed)
	if s.NodeFail > 0 {
		row(1, "killed by a node failure", "%d", s.NodeFail)
	}
	if s.LimitKilled > 0 {
		row(1, "killed for a memory or disk limit", "%d", s.LimitKilled)
	}
	row(1, "rejected", "%d", s.Rejected)
	if s.Failed > 0 {
		row(1, "failed by a filter", "%d", s.Failed)
	}
	if s.Pending > 0 {
		row(1, "never started (kept waiting by filters)", "%d", s.Pending)
	}
	row(0, "wait mean", "%.1f s", s.Wait.Mean)
	row(0, "wait median", "%.0f s", s.Wait.Median)
	row(0, "wait p90", "%.0f s", s.Wait.P90)
	row(0, "wait p95", "%.0f s", s.Wait.P95)
	row(0, "wait p99", "%.0f s", s.Wait.P99)
	row(0, "wait max", "%.0f s", s.Wait.Max)
	row(0, "mean response", "%.1f s", s.MeanResponse)
	row(0, fmt.Sprintf("mean bounded slowdown (τ=%d s)", BoundedSlowdownTauSec), "%.3f", s.MeanBoundedSlowdown)
	b := s.BoundedSlowdown
	row(0, "bounded slowdown median/p90/p99/max", "%.2f / %.2f / %.2f / %.2f", b.Median, b.P90, b.P99, b.Max)
	row(0, "utilisation", "%.2f %%", 100*s.Utilisation)
	row(0, "loss of capacity", "%.2f %% (%d processor-s)", 100*s.LossOfCapacity, s.LossOfCapacityProcSec)
	row(0, "throughput", "%.2f jobs/h", s.ThroughputPerHour)
	row(0, "makespan", "%d s (%s)", s.MakespanSec, time.Duration(s.MakespanSec)*time.Second)
	row(0, "first submit", "%d s", s.FirstSubmit)
	row(0, "last end", "%d s", s.LastEnd)
	row(0, "scheduling passes", "%d", s.Passes)
	row(0, "max queue", "%d jobs", s.MaxQueue)
	if s.PredictedStarts > 0 {
		row(0, "predicted starts met", "%d of %d (%.1f %%)", s.PredictedStartsMet, s.PredictedStarts, 100*float64(s.PredictedStartsMet)/float64(s.PredictedStarts))
	}
	rows = append(rows, nodeFailureRows(s)...)
	return rows
}

// cleaningRows returns the rows of the cleaning counts: none when all are
// zero, else the records read and kept, then each non-zero count under its
// summary.json key.
func cleaningRows(c workload.CleanStats) []tableRow {
	if c == (workload.CleanStats{}) {
		return nil
	}
	rows := []tableRow{{label: "cleaning", value: fmt.Sprintf("%d records read, %d kept", c.Records, c.Kept)}}
	v := reflect.ValueOf(c)
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if !f.CanInt() || f.Int() == 0 || key == "records" || key == "kept" {
			continue
		}
		rows = append(rows, tableRow{label: key, value: fmt.Sprint(f.Int()), indent: 1})
	}
	return rows
}

// cleaningLabels are the cleaning counts' names for people, by their
// summary.json key: report.html shows these, with the key beside them.
var cleaningLabels = map[string]string{
	"procs_from_fallback":  "processor count taken from the fallback field",
	"dropped_procs_le_0":   "dropped: no positive processor count",
	"dropped_run_le_0":     "dropped: run time of 0 s or less",
	"run_set_to_1":         "run time of 0 s or less raised to 1 s",
	"no_estimate":          "kept without a requested time",
	"estimate_from_run":    "requested time set to the run time",
	"overrun_killed":       "ran past the requested time: killed at the limit",
	"overrun_extended":     "ran past the requested time: limit raised to the run time",
	"dropped_status":       "dropped by the status filter",
	"dropped_partial":      "dropped: partial record (status 2, 3 or 4)",
	"rounded_fractional":   "fractional times rounded to whole seconds",
	"dropped_submit_unset": "dropped: no submit time",
	"duplicate_ids":        "kept with the number of an earlier job",
	"dropped_duplicate_id": "dropped: an earlier job has its number",
	"status_unknown":       "status SWF does not define, cleaned as any job",
	"extra_fields_ignored": "lines with more than 18 fields, read up to the 18th",
	"dropped_before_from":  "dropped: submitted before --from",
	"dropped_after_until":  "dropped: submitted at or after --until",
	"dropped_user":         "dropped: user not selected",
	"dropped_queue":        "dropped: queue not selected",
	"dropped_partition":    "dropped: partition not selected",
	"dropped_max_jobs":     "dropped: past --max-jobs",
	"dropped_unfinished":   "dropped: not finished when sacct ran, or revoked",
	"sacct_steps_folded":   "job steps folded into their job",
	"sacct_het_folded":     "heterogeneous job components folded into their job",
}

// cleaningHumanRows returns cleaningRows with each count named for people,
// its summary.json key in parentheses.
func cleaningHumanRows(c workload.CleanStats) []tableRow {
	rows := cleaningRows(c)
	for i := range rows {
		if l, ok := cleaningLabels[rows[i].label]; ok {
			rows[i].label = l + " (" + rows[i].label + ")"
		}
	}
	return rows
}

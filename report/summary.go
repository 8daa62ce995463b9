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
	row := func(label, format string, args ...any) {
		fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{label}, args...)...)
	}
	row("trace", "%s", s.Trace)
	row("policy", "%s", s.Policy)
	row("processors", "%d", s.Procs)
	row("jobs", "%d", s.Jobs)
	row("  started", "%d", s.Started)
	row("  completed", "%d", s.Completed)
	row("  killed at limit", "%d", s.Killed)
	row("  rejected", "%d", s.Rejected)
	row("wait mean", "%.1f s", s.Wait.Mean)
	row("wait median", "%.0f s", s.Wait.Median)
	row("wait p95", "%.0f s", s.Wait.P95)
	row("wait max", "%.0f s", s.Wait.Max)
	row("mean response", "%.1f s", s.MeanResponse)
	row(fmt.Sprintf("mean bounded slowdown (τ=%d s)", BoundedSlowdownTauSec), "%.3f", s.MeanBoundedSlowdown)
	row("utilisation", "%.2f %%", 100*s.Utilisation)
	row("makespan", "%d s (%s)", s.MakespanSec, time.Duration(s.MakespanSec)*time.Second)
	row("first submit", "%d s", s.FirstSubmit)
	row("last end", "%d s", s.LastEnd)
	row("scheduling passes", "%d", s.Passes)
	row("max queue", "%d jobs", s.MaxQueue)
	c := s.Cleaning
	if c != (workload.CleanStats{}) {
		row("cleaning", "%d records read, %d kept", c.Records, c.Kept)
	}
	v := reflect.ValueOf(c)
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if !f.CanInt() || f.Int() == 0 || key == "records" || key == "kept" {
			continue
		}
		row("  "+key, "%d", f.Int())
	}
	return tw.Flush()
}

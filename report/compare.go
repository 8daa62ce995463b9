package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// compareRow is one metric of the comparison table across runs.
type compareRow struct {
	metric string
	text   []string // the value in each run
	change []string // relative change against the first run; "" for the first
	class  []string // "better", "worse" or ""
}

// compareMetric defines one row: how to read the value, format it, and
// which direction is better (−1: lower is better, +1: higher, 0: neither).
type compareMetric struct {
	name   string
	value  func(s *Summary) float64
	format string
	better int
}

var compareMetrics = []compareMetric{
	{"jobs", func(s *Summary) float64 { return float64(s.Jobs) }, "%.0f", 0},
	{"started", func(s *Summary) float64 { return float64(s.Started) }, "%.0f", 0},
	{"killed at limit", func(s *Summary) float64 { return float64(s.Killed) }, "%.0f", -1},
	{"rejected", func(s *Summary) float64 { return float64(s.Rejected) }, "%.0f", -1},
	{"wait mean (s)", func(s *Summary) float64 { return s.Wait.Mean }, "%.1f", -1},
	{"wait median (s)", func(s *Summary) float64 { return s.Wait.Median }, "%.0f", -1},
	{"wait p90 (s)", func(s *Summary) float64 { return s.Wait.P90 }, "%.0f", -1},
	{"wait p99 (s)", func(s *Summary) float64 { return s.Wait.P99 }, "%.0f", -1},
	{"wait max (s)", func(s *Summary) float64 { return s.Wait.Max }, "%.0f", -1},
	{"bounded slowdown mean", func(s *Summary) float64 { return s.MeanBoundedSlowdown }, "%.3f", -1},
	{"bounded slowdown median", func(s *Summary) float64 { return s.BoundedSlowdown.Median }, "%.3f", -1},
	{"bounded slowdown p90", func(s *Summary) float64 { return s.BoundedSlowdown.P90 }, "%.2f", -1},
	{"bounded slowdown p99", func(s *Summary) float64 { return s.BoundedSlowdown.P99 }, "%.2f", -1},
	{"bounded slowdown max", func(s *Summary) float64 { return s.BoundedSlowdown.Max }, "%.1f", -1},
	{"mean response (s)", func(s *Summary) float64 { return s.MeanResponse }, "%.1f", -1},
	{"utilisation (%)", func(s *Summary) float64 { return 100 * s.Utilisation }, "%.2f", +1},
	{"loss of capacity (%)", func(s *Summary) float64 { return 100 * s.LossOfCapacity }, "%.2f", -1},
	{"throughput (jobs/h)", func(s *Summary) float64 { return s.ThroughputPerHour }, "%.3f", +1},
	{"makespan (s)", func(s *Summary) float64 { return float64(s.MakespanSec) }, "%.0f", -1},
	{"max queue (jobs)", func(s *Summary) float64 { return float64(s.MaxQueue) }, "%.0f", -1},
}

// runName returns run i's name, or "run i+1" when it has none.
func runName(runs []*Run, i int) string {
	if runs[i].Name != "" {
		return runs[i].Name
	}
	return fmt.Sprintf("run %d", i+1)
}

// compareRows returns the comparison table's header and rows.
func compareRows(runs []*Run) ([]string, []compareRow) {
	head := []string{"metric"}
	for i := range runs {
		head = append(head, runName(runs, i))
	}
	rows := make([]compareRow, 0, len(compareMetrics)+1)
	pol := compareRow{metric: "policy"}
	for _, run := range runs {
		pol.text = append(pol.text, run.Summary.Policy)
		pol.change = append(pol.change, "")
		pol.class = append(pol.class, "")
	}
	rows = append(rows, pol)
	for _, m := range compareMetrics {
		r := compareRow{metric: m.name}
		base := m.value(&runs[0].Summary)
		for i, run := range runs {
			v := m.value(&run.Summary)
			r.text = append(r.text, fmt.Sprintf(m.format, v))
			ch, cl := "", ""
			if i > 0 {
				ch, cl = relChange(base, v, m.better)
			}
			r.change = append(r.change, ch)
			r.class = append(r.class, cl)
		}
		rows = append(rows, r)
	}
	return head, rows
}

// relChange formats (v − base) / |base| as a signed percentage, and says
// whether the change is for the better or the worse.
func relChange(base, v float64, better int) (string, string) {
	d := v - base
	var text string
	switch {
	case d == 0:
		return "=", ""
	case base == 0:
		text = "new"
	default:
		pct := 100 * d / math.Abs(base)
		text = fmt.Sprintf("%+.1f%%", pct)
		if text == "+0.0%" || text == "-0.0%" {
			text = fmt.Sprintf("%+.2g%%", pct)
		}
	}
	class := ""
	switch {
	case better < 0 && d < 0, better > 0 && d > 0:
		class = "better"
	case better != 0:
		class = "worse"
	}
	return text, class
}

// WriteCompareTable writes the comparison of runs to w as an aligned table:
// the policy of each run, then a row per metric, a column per run, and after
// each value of the second and later runs its relative change against the
// first run in parentheses ("=" when equal, "new" when the first run's value
// is 0).
func WriteCompareTable(w io.Writer, runs []*Run) error {
	if len(runs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head, rows := compareRows(runs)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		cells := []string{r.metric}
		for i, t := range r.text {
			if r.change[i] != "" {
				t += " (" + r.change[i] + ")"
			}
			cells = append(cells, t)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

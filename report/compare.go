package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
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
	key    string // the metric's name in compare.csv and compare.json
	value  func(s *Summary) float64
	format string
	better int
}

var compareMetrics = []compareMetric{
	{"jobs", "jobs", func(s *Summary) float64 { return float64(s.Jobs) }, "%.0f", 0},
	{"started", "started", func(s *Summary) float64 { return float64(s.Started) }, "%.0f", 0},
	{"killed at limit", "killed", func(s *Summary) float64 { return float64(s.Killed) }, "%.0f", -1},
	{"rejected", "rejected", func(s *Summary) float64 { return float64(s.Rejected) }, "%.0f", -1},
	{"wait mean (s)", "wait_mean_s", func(s *Summary) float64 { return s.Wait.Mean }, "%.1f", -1},
	{"wait median (s)", "wait_median_s", func(s *Summary) float64 { return s.Wait.Median }, "%.0f", -1},
	{"wait p90 (s)", "wait_p90_s", func(s *Summary) float64 { return s.Wait.P90 }, "%.0f", -1},
	{"wait p99 (s)", "wait_p99_s", func(s *Summary) float64 { return s.Wait.P99 }, "%.0f", -1},
	{"wait max (s)", "wait_max_s", func(s *Summary) float64 { return s.Wait.Max }, "%.0f", -1},
	{"bounded slowdown mean", "bounded_slowdown_mean", func(s *Summary) float64 { return s.MeanBoundedSlowdown }, "%.3f", -1},
	{"bounded slowdown median", "bounded_slowdown_median", func(s *Summary) float64 { return s.BoundedSlowdown.Median }, "%.3f", -1},
	{"bounded slowdown p90", "bounded_slowdown_p90", func(s *Summary) float64 { return s.BoundedSlowdown.P90 }, "%.2f", -1},
	{"bounded slowdown p99", "bounded_slowdown_p99", func(s *Summary) float64 { return s.BoundedSlowdown.P99 }, "%.2f", -1},
	{"bounded slowdown max", "bounded_slowdown_max", func(s *Summary) float64 { return s.BoundedSlowdown.Max }, "%.1f", -1},
	{"mean response (s)", "response_mean_s", func(s *Summary) float64 { return s.MeanResponse }, "%.1f", -1},
	{"utilisation (%)", "utilisation_pct", func(s *Summary) float64 { return 100 * s.Utilisation }, "%.2f", +1},
	{"loss of capacity (%)", "loss_of_capacity_pct", func(s *Summary) float64 { return 100 * s.LossOfCapacity }, "%.2f", -1},
	{"throughput (jobs/h)", "throughput_per_hour", func(s *Summary) float64 { return s.ThroughputPerHour }, "%.3f", +1},
	{"makespan (s)", "makespan_s", func(s *Summary) float64 { return float64(s.MakespanSec) }, "%.0f", -1},
	{"max queue (jobs)", "max_queue_jobs", func(s *Summary) float64 { return float64(s.MaxQueue) }, "%.0f", -1},
}

// energyCompareMetrics are the rows of runs with a power model, shown when
// one of the runs has one (a run without reads NaN, shown "-").
var energyCompareMetrics = []compareMetric{
	{"energy (kWh)", "energy_kwh", func(s *Summary) float64 {
		if s.Energy == nil {
			return math.NaN()
		}
		return s.Energy.KWh
	}, "%.3f", -1},
	{"mean power (W)", "power_mean_w", func(s *Summary) float64 {
		if s.Energy == nil {
			return math.NaN()
		}
		return s.Energy.MeanWatts
	}, "%.1f", -1},
}

// compareMetricsOf returns the rows of the comparison of runs:
// compareMetrics, and energyCompareMetrics when a run has a power model.
func compareMetricsOf(runs []*Run) []compareMetric {
	for _, r := range runs {
		if r.Summary.Energy != nil {
			return append(compareMetrics[:len(compareMetrics):len(compareMetrics)], energyCompareMetrics...)
		}
	}
	return compareMetrics
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
	metrics := compareMetricsOf(runs)
	rows := make([]compareRow, 0, len(metrics)+1)
	pol := compareRow{metric: "policy"}
	for _, run := range runs {
		pol.text = append(pol.text, run.Summary.Policy)
		pol.change = append(pol.change, "")
		pol.class = append(pol.class, "")
	}
	rows = append(rows, pol)
	for _, m := range metrics {
		r := compareRow{metric: m.name}
		base := m.value(&runs[0].Summary)
		for i, run := range runs {
			v := m.value(&run.Summary)
			if math.IsNaN(v) {
				r.text = append(r.text, "-")
			} else {
				r.text = append(r.text, fmt.Sprintf(m.format, v))
			}
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

// compareValue is one metric of one run in the machine-readable comparison:
// its value, its relative change against the first run, and the verdict.
type compareValue struct {
	value  float64
	change float64 // (value − base) / |base|
	has    bool    // change is defined: not the first run, and base ≠ 0 or value = base
	class  string  // "better", "worse" or ""
}

// compareValues returns, for each metric of compareMetrics, its value in
// each run.
func compareValues(runs []*Run) [][]compareValue {
	metrics := compareMetricsOf(runs)
	out := make([][]compareValue, len(metrics))
	for k, m := range metrics {
		base := m.value(&runs[0].Summary)
		for i, run := range runs {
			v := compareValue{value: m.value(&run.Summary)}
			if i > 0 {
				d := v.value - base
				switch {
				case d == 0:
					v.has = true
				case base != 0:
					v.change, v.has = d/math.Abs(base), true
				}
				_, v.class = relChange(base, v.value, m.better)
			}
			out[k] = append(out[k], v)
		}
	}
	return out
}

// betterText names a metric's good direction in compare.csv and
// compare.json.
func betterText(better int) string {
	switch {
	case better < 0:
		return "lower"
	case better > 0:
		return "higher"
	}
	return ""
}

// formatNumber formats v in the fewest digits that read back as v; NaN and
// infinities, which no metric should be, as "".
func formatNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteCompareCSV writes the comparison of runs to w as CSV in long form, a
// row per run and metric: run, policy, metric (a key such as wait_mean_s),
// better (lower, higher or empty when neither), value, relative_change
// against the first run ((value − first) / |first|, a fraction; empty for the
// first run and when the first run's value is 0 and this one's is not), and
// verdict (better, worse or empty). Values are written in full precision.
func WriteCompareCSV(w io.Writer, runs []*Run) error {
	if len(runs) == 0 {
		return nil
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"run", "policy", "metric", "better", "value", "relative_change", "verdict"})
	vals := compareValues(runs)
	for i, run := range runs {
		for k, m := range compareMetricsOf(runs) {
			v := vals[k][i]
			change := ""
			if v.has {
				change = formatNumber(v.change)
			}
			cw.Write([]string{runName(runs, i), run.Summary.Policy, m.key, betterText(m.better), formatNumber(v.value), change, v.class})
		}
	}
	cw.Flush()
	return cw.Error()
}

// compareJSON is the layout of compare.json.
type compareJSON struct {
	Baseline string              `json:"baseline"`
	Runs     []compareJSONRun    `json:"runs"`
	Metrics  []compareJSONMetric `json:"metrics"`
}

type compareJSONRun struct {
	Name   string `json:"name"`
	Policy string `json:"policy"`
}

type compareJSONMetric struct {
	Key            string     `json:"key"`
	Label          string     `json:"label"`
	Better         string     `json:"better"`
	Values         []*float64 `json:"values"`
	RelativeChange []*float64 `json:"relative_change"`
	Verdict        []string   `json:"verdict"`
}

// WriteCompareJSON writes the comparison of runs to w as indented JSON: the
// baseline (the first run's name), the runs (name and policy) and, for each
// metric, its key, its label in the table, its good direction (lower, higher
// or ""), and per run, in the runs' order, its value, its relative change
// against the baseline (a fraction; null for the baseline and when the
// baseline's value is 0 and the run's is not) and the verdict (better, worse
// or "").
func WriteCompareJSON(w io.Writer, runs []*Run) error {
	if len(runs) == 0 {
		return nil
	}
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	doc := compareJSON{Baseline: runName(runs, 0)}
	for i, run := range runs {
		doc.Runs = append(doc.Runs, compareJSONRun{Name: runName(runs, i), Policy: run.Summary.Policy})
	}
	vals := compareValues(runs)
	for k, m := range compareMetricsOf(runs) {
		jm := compareJSONMetric{Key: m.key, Label: m.name, Better: betterText(m.better)}
		for _, v := range vals[k] {
			jm.Values = append(jm.Values, num(v.value))
			var ch *float64
			if v.has {
				ch = num(v.change)
			}
			jm.RelativeChange = append(jm.RelativeChange, ch)
			jm.Verdict = append(jm.Verdict, v.class)
		}
		doc.Metrics = append(doc.Metrics, jm)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encoding the comparison: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

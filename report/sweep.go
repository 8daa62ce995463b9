package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// SweepMetric is one number of a run's Summary as a sweep's results table,
// its plots and schedsim check know it.
type SweepMetric struct {
	// Name is the metric's column name in the results table, e.g.
	// "wait_mean"; schedsim check and --plot-metrics take it too.
	Name string
	// Label names the metric on a plot axis, with its unit.
	Label string
	// Int marks a whole number (an INT64 column in Parquet).
	Int bool
	// Fraction marks a fraction in [0, 1] that people read as a percentage:
	// the table keeps the fraction, plots and check show 100 times it.
	Fraction bool
	// Better is the direction of an improvement: −1 when lower is better,
	// +1 when higher is better, 0 when neither (a count fixed by the trace).
	Better int
	// Value reads the metric from a summary.
	Value func(s *Summary) float64
}

// Display returns the metric's value as people read it: 100 × a Fraction,
// else the value itself.
func (m *SweepMetric) Display(s *Summary) float64 {
	if m.Fraction {
		return 100 * m.Value(s)
	}
	return m.Value(s)
}

// SweepMetrics are the summary metrics of a sweep's results table, in column
// order. The per-class statistics stay in each point's JSON file.
var SweepMetrics = []SweepMetric{
	{Name: "jobs", Label: "jobs", Int: true, Value: func(s *Summary) float64 { return float64(s.Jobs) }},
	{Name: "started", Label: "jobs started", Int: true, Value: func(s *Summary) float64 { return float64(s.Started) }},
	{Name: "completed", Label: "jobs completed", Int: true, Value: func(s *Summary) float64 { return float64(s.Completed) }},
	{Name: "killed", Label: "jobs killed at their limit", Int: true, Better: -1, Value: func(s *Summary) float64 { return float64(s.Killed) }},
	{Name: "rejected", Label: "jobs rejected", Int: true, Better: -1, Value: func(s *Summary) float64 { return float64(s.Rejected) }},
	{Name: "wait_mean", Label: "mean wait (s)", Better: -1, Value: func(s *Summary) float64 { return s.Wait.Mean }},
	{Name: "wait_median", Label: "median wait (s)", Better: -1, Value: func(s *Summary) float64 { return s.Wait.Median }},
	{Name: "wait_p90", Label: "90th percentile wait (s)", Better: -1, Value: func(s *Summary) float64 { return s.Wait.P90 }},
	{Name: "wait_p95", Label: "95th percentile wait (s)", Better: -1, Value: func(s *Summary) float64 { return s.Wait.P95 }},
	{Name: "wait_p99", Label: "99th percentile wait (s)", Better: -1, Value: func(s *Summary) float64 { return s.Wait.P99 }},
	{Name: "wait_max", Label: "longest wait (s)", Better: -1, Value: func(s *Summary) float64 { return s.Wait.Max }},
	{Name: "bounded_slowdown_mean", Label: "mean bounded slowdown", Better: -1, Value: func(s *Summary) float64 { return s.MeanBoundedSlowdown }},
	{Name: "bounded_slowdown_median", Label: "median bounded slowdown", Better: -1, Value: func(s *Summary) float64 { return s.BoundedSlowdown.Median }},
	{Name: "bounded_slowdown_p90", Label: "90th percentile bounded slowdown", Better: -1, Value: func(s *Summary) float64 { return s.BoundedSlowdown.P90 }},
	{Name: "bounded_slowdown_p95", Label: "95th percentile bounded slowdown", Better: -1, Value: func(s *Summary) float64 { return s.BoundedSlowdown.P95 }},
	{Name: "bounded_slowdown_p99", Label: "99th percentile bounded slowdown", Better: -1, Value: func(s *Summary) float64 { return s.BoundedSlowdown.P99 }},
	{Name: "bounded_slowdown_max", Label: "largest bounded slowdown", Better: -1, Value: func(s *Summary) float64 { return s.BoundedSlowdown.Max }},
	{Name: "mean_response", Label: "mean response time (s)", Better: -1, Value: func(s *Summary) float64 { return s.MeanResponse }},
	{Name: "utilisation", Label: "utilisation (%)", Fraction: true, Better: +1, Value: func(s *Summary) float64 { return s.Utilisation }},
	{Name: "loss_of_capacity", Label: "loss of capacity (%)", Fraction: true, Better: -1, Value: func(s *Summary) float64 { return s.LossOfCapacity }},
	{Name: "loss_of_capacity_proc_sec", Label: "loss of capacity (processor-s)", Int: true, Better: -1, Value: func(s *Summary) float64 { return float64(s.LossOfCapacityProcSec) }},
	{Name: "throughput_jobs_per_hour", Label: "throughput (jobs/h)", Better: +1, Value: func(s *Summary) float64 { return s.ThroughputPerHour }},
	{Name: "makespan_sec", Label: "makespan (s)", Int: true, Better: -1, Value: func(s *Summary) float64 { return float64(s.MakespanSec) }},
	{Name: "first_submit", Label: "first submission (s)", Int: true, Value: func(s *Summary) float64 { return float64(s.FirstSubmit) }},
	{Name: "last_end", Label: "last end (s)", Int: true, Better: -1, Value: func(s *Summary) float64 { return float64(s.LastEnd) }},
	{Name: "passes", Label: "scheduling passes", Int: true, Value: func(s *Summary) float64 { return float64(s.Passes) }},
	{Name: "max_queue", Label: "longest queue (jobs)", Int: true, Better: -1, Value: func(s *Summary) float64 { return float64(s.MaxQueue) }},
}

// EnergyMetrics are the metrics of a run with a power model (Summary's
// Energy): they follow SweepMetrics in a table only when one of its runs
// has a power model, so the tables of runs without one are unchanged. A
// summary without an energy reads as NaN (an empty cell).
var EnergyMetrics = []SweepMetric{
	{Name: "energy_kwh", Label: "energy (kWh)", Better: -1, Value: func(s *Summary) float64 {
		if s.Energy == nil {
			return math.NaN()
		}
		return s.Energy.KWh
	}},
	{Name: "power_mean_w", Label: "mean power (W)", Better: -1, Value: func(s *Summary) float64 {
		if s.Energy == nil {
			return math.NaN()
		}
		return s.Energy.MeanWatts
	}},
}

// MetricsOf returns the metrics of a table of the summaries: SweepMetrics,
// and EnergyMetrics after them when one of the summaries has an energy.
func MetricsOf(ss ...*Summary) []SweepMetric {
	for _, s := range ss {
		if s.Energy != nil {
			return append(slices.Clip(SweepMetrics), EnergyMetrics...)
		}
	}
	return SweepMetrics
}

// LookupSweepMetric returns the metric of SweepMetrics or EnergyMetrics
// named name.
func LookupSweepMetric(name string) (*SweepMetric, bool) {
	for i := range SweepMetrics {
		if SweepMetrics[i].Name == name {
			return &SweepMetrics[i], true
		}
	}
	for i := range EnergyMetrics {
		if EnergyMetrics[i].Name == name {
			return &EnergyMetrics[i], true
		}
	}
	return nil, false
}

// metrics returns the table's metrics (MetricsOf its points).
func (t *SweepTable) metrics() []SweepMetric {
	ss := make([]*Summary, len(t.Points))
	for i := range t.Points {
		ss[i] = &t.Points[i].Summary
	}
	return MetricsOf(ss...)
}

// SweepPoint is one point of a sweep: its parameter values and the summary
// of its run.
type SweepPoint struct {
	// Key identifies the point's options (a hash; see schedsim sweep).
	Key string
	// Values holds the point's parameter values, in the order of
	// SweepTable.Params.
	Values []string
	// Summary is the point's run summary.
	Summary Summary
}

// SweepTable is a sweep's results: a row per point, in the sweep's order.
type SweepTable struct {
	// Params names the parameters, swept ones first.
	Params []string
	// Points are the rows.
	Points []SweepPoint
}

// sweepFixedColumns follow the parameters in the results table; they are
// named so that no schedsim run option has their name.
var sweepFixedColumns = []string{"trace_name", "policy_name", "machine_procs"}

// cleaningFields returns the indices of the CleanStats counts that are
// columns of t: every count, except that one tagged sweep:"ifused" is a
// column only if some point has it non-zero, so that a sweep of traces no
// such rule touched keeps the columns it had before the rule existed.
func (t *SweepTable) cleaningFields() []int {
	typ := reflect.TypeFor[workload.CleanStats]()
	var idx []int
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.Type.Kind() != reflect.Int64 {
			continue
		}
		if f.Tag.Get("sweep") == "ifused" {
			used := false
			for k := range t.Points {
				if reflect.ValueOf(&t.Points[k].Summary.Cleaning).Elem().Field(i).Int() != 0 {
					used = true
					break
				}
			}
			if !used {
				continue
			}
		}
		idx = append(idx, i)
	}
	return idx
}

// cleaningColumns returns the names of the cleaning counts' columns,
// "cleaning_" and the key each count has in summary.json, in field order.
func cleaningColumns(idx []int) []string {
	typ := reflect.TypeFor[workload.CleanStats]()
	names := make([]string, 0, len(idx))
	for _, i := range idx {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		names = append(names, "cleaning_"+key)
	}
	return names
}

// cleaningValues returns the cleaning counts of c in cleaningColumns' order.
func cleaningValues(c *workload.CleanStats, idx []int) []int64 {
	v := reflect.ValueOf(c).Elem()
	out := make([]int64, 0, len(idx))
	for _, i := range idx {
		out = append(out, v.Field(i).Int())
	}
	return out
}

// Columns returns the table's column names: "point" (the row's number from
// 0) and "key", the parameters, trace_name, policy_name, machine_procs,
// every metric of SweepMetrics, then the cleaning counts (cleaning_KEY). It
// returns an error if a parameter's name is taken by another column.
func (t *SweepTable) Columns() ([]string, error) {
	cols := append([]string{"point", "key"}, t.Params...)
	cols = append(cols, sweepFixedColumns...)
	for _, m := range t.metrics() {
		cols = append(cols, m.Name)
	}
	cols = append(cols, cleaningColumns(t.cleaningFields())...)
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c] {
			return nil, fmt.Errorf("report: sweep table: two columns are named %q", c)
		}
		seen[c] = true
	}
	for i, p := range t.Points {
		if len(p.Values) != len(t.Params) {
			return nil, fmt.Errorf("report: sweep table: point %d has %d parameter values, want %d", i, len(p.Values), len(t.Params))
		}
	}
	return cols, nil
}

// formatMetric formats a metric's value for the CSV table: an integer
// without decimals, a float in its shortest exact decimal form.
func formatMetric(m *SweepMetric, v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	if m.Int {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// WriteSweepCSV writes the table as CSV with a header line (see Columns). The
// output depends only on t.
func WriteSweepCSV(w io.Writer, t *SweepTable) error {
	cols, err := t.Columns()
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(cols); err != nil {
		return err
	}
	rec := make([]string, 0, len(cols))
	clean := t.cleaningFields()
	metrics := t.metrics()
	for i := range t.Points {
		p := &t.Points[i]
		s := &p.Summary
		rec = append(rec[:0], strconv.Itoa(i), p.Key)
		rec = append(rec, p.Values...)
		rec = append(rec, s.Trace, s.Policy, strconv.Itoa(s.Procs))
		for k := range metrics {
			rec = append(rec, formatMetric(&metrics[k], metrics[k].Value(s)))
		}
		for _, c := range cleaningValues(&s.Cleaning, clean) {
			rec = append(rec, strconv.FormatInt(c, 10))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSweepParquet writes the table as Parquet, the columns of
// WriteSweepCSV typed: point, machine_procs, the Int metrics and the
// cleaning counts as INT64, the other metrics as DOUBLE, the rest as
// strings. The output depends only on t.
func WriteSweepParquet(w io.Writer, t *SweepTable) error {
	names, err := t.Columns()
	if err != nil {
		return err
	}
	cols := make([]workload.ParquetColumn, len(names))
	for i, n := range names {
		cols[i] = workload.ParquetColumn{Name: n, Type: workload.ParquetString}
	}
	cols[0].Type = workload.ParquetInt64
	at := 2 + len(t.Params) + len(sweepFixedColumns) - 1 // machine_procs
	cols[at].Type = workload.ParquetInt64
	metrics := t.metrics()
	for k, m := range metrics {
		cols[at+1+k].Type = workload.ParquetDouble
		if m.Int {
			cols[at+1+k].Type = workload.ParquetInt64
		}
	}
	for k := at + 1 + len(metrics); k < len(cols); k++ {
		cols[k].Type = workload.ParquetInt64
	}
	pt, err := workload.NewParquetTable(w, cols, [2]string{"schedsim.table", "sweep"})
	if err != nil {
		return err
	}
	clean := t.cleaningFields()
	for i := range t.Points {
		p := &t.Points[i]
		s := &p.Summary
		pt.Int64(int64(i))
		pt.String(p.Key)
		for _, v := range p.Values {
			pt.String(v)
		}
		pt.String(s.Trace)
		pt.String(s.Policy)
		pt.Int64(int64(s.Procs))
		for k := range metrics {
			m := &metrics[k]
			if m.Int {
				pt.Int64(int64(m.Value(s)))
			} else {
				pt.Double(m.Value(s))
			}
		}
		for _, c := range cleaningValues(&s.Cleaning, clean) {
			pt.Int64(c)
		}
		if err := pt.EndRow(); err != nil {
			return err
		}
	}
	return pt.Close()
}

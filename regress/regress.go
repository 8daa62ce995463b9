// Package regress checks a run against a baseline: each metric's change,
// under a tolerance per metric, with a verdict, so that a CI pipeline fails
// when a change makes waits worse. A baseline stores the run's scenario
// and the hash of its input files, never its command line.
package regress

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/report"
)

// baselineFormat is the format of the baselines Baseline.Write writes;
// baselineFormat1 that of earlier ones, which held the run's command line
// and are still read (their scenario is unknown).
const (
	baselineFormat  = "schedsim-baseline/2"
	baselineFormat1 = "schedsim-baseline/1"
)

// Baseline is a run's metrics to check another run against: its summary
// and, when known, its scenario and that scenario's hash over its input
// files.
type Baseline struct {
	// Path is the file it was read from ("" for a run's).
	Path string
	// schedsim.Scenario is the run's scenario as canonical JSON, or nil when
	// unknown (a summary.json, or a baseline of the first format).
	Scenario json.RawMessage
	// Inputs is schedsim.Scenario.Hash ("" when unknown).
	Inputs string
	// Summary is the run's summary.
	Summary report.Summary
	// missing lists the metrics the file does not hold (absent, or
	// null), which are not 0.
	missing map[string]bool
}

// NewBaseline returns the baseline of a run of sc with summary s: sc's
// scenario and hash and the summary. A run of no known scenario has a nil
// sc.
func NewBaseline(sc *schedsim.Scenario, s *report.Summary) (*Baseline, error) {
	b := &Baseline{Summary: *s}
	if sc != nil {
		h, err := sc.Hash()
		if err != nil {
			return nil, err
		}
		b.Scenario, b.Inputs = sc.Canonical(), h
	}
	return b, nil
}

// baselineFile is a baseline as a file.
type baselineFile struct {
	Format   string          `json:"format"`
	Scenario json.RawMessage `json:"scenario,omitempty"`
	Inputs   string          `json:"inputs,omitempty"`
	Summary  *report.Summary `json:"summary"`
}

// Write writes the baseline to path, atomically, as JSON: the format, the
// scenario, its hash and the summary. A baseline read from a file that
// lacks a metric is not written (an *schedsim.InputError): the metric would read
// as 0.
func (b *Baseline) Write(path string) error {
	var lacks []string
	for i := range report.SweepMetrics {
		if name := report.SweepMetrics[i].Name; b.missing[name] {
			lacks = append(lacks, name)
		}
	}
	if b.missing["procs"] {
		lacks = append(lacks, "procs")
	}
	if len(lacks) > 0 {
		return inputf("%s has no %s (absent or null): a baseline written from it would hold 0 instead", b.name(), strings.Join(lacks, ", "))
	}
	data, err := json.MarshalIndent(&baselineFile{Format: baselineFormat, Scenario: b.Scenario, Inputs: b.Inputs, Summary: &b.Summary}, "", "  ")
	if err != nil {
		return err
	}
	return report.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// ReadBaseline reads a baseline: a file Baseline.Write wrote (or one of the
// first format), or a run's summary.json (a directory stands for its
// summary.json). A metric the file lacks, or holds as null, is recorded as
// missing, never read as 0. An unreadable file or one that is neither is
// an *schedsim.InputError.
func ReadBaseline(path string) (*Baseline, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "summary.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &schedsim.InputError{Err: err}
	}
	var probe struct {
		Format   string          `json:"format"`
		Scenario json.RawMessage `json:"scenario"`
		Inputs   string          `json:"inputs"`
		Summary  json.RawMessage `json:"summary"`
		Trace    *string         `json:"trace"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, inputf("%s: not a baseline or summary.json: %v", path, err)
	}
	b := &Baseline{Path: path}
	sum := data
	switch {
	case probe.Format == baselineFormat:
		b.Scenario, b.Inputs, sum = probe.Scenario, probe.Inputs, probe.Summary
		if len(b.Scenario) > 0 {
			var compact bytes.Buffer
			if err := json.Compact(&compact, b.Scenario); err != nil {
				return nil, inputf("%s: scenario: %v", path, err)
			}
			b.Scenario = compact.Bytes()
		}
	case probe.Format == baselineFormat1:
		sum = probe.Summary
	case probe.Format == "" && probe.Trace != nil:
	case probe.Format != "":
		return nil, inputf("%s: format %q, want %q", path, probe.Format, baselineFormat)
	default:
		return nil, inputf("%s: not a baseline or summary.json (no \"format\" or \"trace\")", path)
	}
	if len(sum) == 0 || string(sum) == "null" {
		return nil, inputf("%s: no summary", path)
	}
	if b.missing, err = decodeSummary(sum, &b.Summary); err != nil {
		return nil, inputf("%s: %v", path, err)
	}
	return b, nil
}

// decodeSummary decodes a summary into s and returns the metrics (names
// of report.SweepMetrics, and "procs") it lacks or holds as null. It
// decodes twice, over summaries whose every number is 1 and 2: a metric
// that differs between the two was not in the data.
func decodeSummary(data []byte, s *report.Summary) (map[string]bool, error) {
	var ones, twos report.Summary
	fillNumbers(reflect.ValueOf(&ones).Elem(), 1)
	fillNumbers(reflect.ValueOf(&twos).Elem(), 2)
	for _, p := range []*report.Summary{s, &ones, &twos} {
		if err := json.Unmarshal(data, p); err != nil {
			return nil, err
		}
	}
	missing := map[string]bool{}
	all := append(slices.Clip(report.SweepMetrics), report.EnergyMetrics...)
	for i := range all {
		m := &all[i]
		if v1, v2 := m.Value(&ones), m.Value(&twos); v1 != v2 || math.IsNaN(v1) {
			missing[m.Name] = true
		}
	}
	if ones.Procs != twos.Procs {
		missing["procs"] = true
	}
	return missing, nil
}

// fillNumbers sets every number of v (a struct, array or number, nested)
// to x; pointers, slices and maps are left.
func fillNumbers(v reflect.Value, x int) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillNumbers(v.Field(i), x)
			}
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fillNumbers(v.Index(i), x)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(x))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(x))
	}
}

// Tolerance is how much worse one metric may get.
type Tolerance struct {
	// Metric is the name of one of report.SweepMetrics.
	Metric string
	// Value is ≥ 0: a percentage of the baseline when Relative, else in
	// the metric's display unit (seconds, percentage points, jobs).
	Value    float64
	Relative bool
}

// Tolerances are the checked metrics' tolerances, by metric name.
type Tolerances map[string]Tolerance

// DefaultTolerances returns the tolerances of schedsim check unless told
// otherwise: wait_mean and bounded_slowdown_mean may grow 5 %, utilisation
// may drop one percentage point.
func DefaultTolerances() Tolerances {
	return Tolerances{
		"wait_mean":             {Metric: "wait_mean", Value: 5, Relative: true},
		"bounded_slowdown_mean": {Metric: "bounded_slowdown_mean", Value: 5, Relative: true},
		"utilisation":           {Metric: "utilisation", Value: 1},
	}
}

// ParseTolerances applies each text ("METRIC=T%", "METRIC=T" or
// "METRIC=off", several separated by commas) to the defaults. A bad text
// is an *schedsim.InputError.
func ParseTolerances(texts []string) (Tolerances, error) {
	tols := DefaultTolerances()
	for _, text := range texts {
		for _, item := range strings.Split(text, ",") {
			name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
			name, val = strings.TrimSpace(name), strings.TrimSpace(val)
			if !ok || name == "" || val == "" {
				return nil, inputf("--tolerance %q: want METRIC=T%%, METRIC=T or METRIC=off", item)
			}
			if _, ok := report.LookupSweepMetric(name); !ok {
				return nil, inputf("--tolerance %q: unknown metric %q (see schedsim check --help)", item, name)
			}
			if val == "off" {
				delete(tols, name)
				continue
			}
			t := Tolerance{Metric: name}
			if v, found := strings.CutSuffix(val, "%"); found {
				t.Relative, val = true, v
			}
			f, err := strconv.ParseFloat(strings.TrimPrefix(val, "+"), 64)
			if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, inputf("--tolerance %q: %q is not a number ≥ 0", item, val)
			}
			t.Value = f
			tols[name] = t
		}
	}
	return tols, nil
}

// format formats the tolerance of metric m with the direction of worse:
// "+5%", "-1 pt", "+60".
func (t Tolerance) format(m *report.SweepMetric) string {
	sign := "±"
	switch m.Better {
	case -1:
		sign = "+"
	case +1:
		sign = "-"
	}
	v := strconv.FormatFloat(t.Value, 'f', -1, 64)
	switch {
	case t.Relative:
		return sign + v + "%"
	case m.Fraction:
		return sign + v + " pt"
	}
	return sign + v
}

// CheckRow is one metric's line of a check.
type CheckRow struct {
	// Metric is the row's metric.
	Metric *report.SweepMetric
	// Base and Cur are the display values (report.SweepMetric.Display).
	Base, Cur float64
	// Change, Tolerance and Verdict are as the table shows them; Verdict
	// is "=", "better", "worse", "changed", "worse, within tolerance",
	// "changed, within tolerance", "REGRESSION" or "not in the baseline"
	// / "not in the run" (an unchecked metric one side lacks).
	Change, Tolerance, Verdict string
	// Regressed is set when the metric got worse beyond its tolerance.
	Regressed bool
	// Missing is set when one side lacks the metric: it is not compared.
	Missing bool
}

// Check is the outcome of CheckRegression.
type Check struct {
	// Base and Cur are the baseline and the run checked against it.
	Base, Cur *Baseline
	// Rows has a row per metric with a direction or a tolerance, in
	// report.SweepMetrics' order.
	Rows []CheckRow
	// Checked counts the metrics with a tolerance.
	Checked int
	// schedsim.Scenario says how the two runs' scenarios relate: "the same
	// scenario and input files", what differs, or why they are not
	// compared.
	Scenario string
}

// CheckRegression compares cur with base under tols. Both must be runs of
// the same trace, machine size and job count, and both must hold every
// checked metric: anything else is an *schedsim.InputError (a metric a baseline
// lacks is never taken as 0). A metric that is not checked and that one
// side lacks is shown as missing and not compared.
func CheckRegression(base, cur *Baseline, tols Tolerances) (*Check, error) {
	for _, b := range []*Baseline{base, cur} {
		for _, name := range []string{"jobs", "procs"} {
			if b.missing[name] {
				return nil, inputf("%s has no %s: it cannot be compared", b.name(), name)
			}
		}
	}
	bs, cs := &base.Summary, &cur.Summary
	if bs.Trace != cs.Trace || bs.Procs != cs.Procs || bs.Jobs != cs.Jobs {
		return nil, inputf("the baseline is of %s (%d jobs on %d processors), this run of %s (%d jobs on %d processors): compare runs of the same trace and machine",
			bs.Trace, bs.Jobs, bs.Procs, cs.Trace, cs.Jobs, cs.Procs)
	}
	c := &Check{Base: base, Cur: cur, Checked: len(tols), Scenario: scenarioRelation(base, cur)}
	metrics := report.MetricsOf(bs, cs)
	for i := range metrics {
		m := &metrics[i]
		tol, checked := tols[m.Name]
		if m.Better == 0 && !checked {
			continue
		}
		for _, b := range []*Baseline{base, cur} {
			if checked && b.missing[m.Name] {
				return nil, inputf("%s has no %s (absent or null): it cannot be checked; give --tolerance %s=off to check the other metrics", b.name(), m.Name, m.Name)
			}
		}
		r := CheckRow{Metric: m, Base: m.Display(bs), Cur: m.Display(cs), Tolerance: "-"}
		switch {
		case base.missing[m.Name]:
			r.Missing, r.Change, r.Verdict = true, "-", "not in the baseline"
		case cur.missing[m.Name]:
			r.Missing, r.Change, r.Verdict = true, "-", "not in the run"
		default:
			r.compare(tol, checked)
		}
		c.Rows = append(c.Rows, r)
	}
	return c, nil
}

// compare fills the row's change and verdict.
func (r *CheckRow) compare(tol Tolerance, checked bool) {
	m := r.Metric
	d := r.Cur - r.Base
	switch {
	case d == 0:
		r.Change = "="
	case r.Base == 0:
		r.Change = fmt.Sprintf("%+g", d)
	default:
		r.Change = fmt.Sprintf("%+.2f%%", 100*d/math.Abs(r.Base))
	}
	if m.Fraction && d != 0 {
		r.Change += fmt.Sprintf(" (%+.2f pt)", d)
	}
	// worse is how much worse the metric got, in its unit (≤ 0: not worse).
	worse := math.Abs(d)
	if m.Better != 0 {
		worse = -float64(m.Better) * d
	}
	if checked {
		r.Tolerance = tol.format(m)
		allowed := tol.Value
		if tol.Relative {
			allowed = tol.Value / 100 * math.Abs(r.Base)
		}
		// A relative tolerance of a metric at 0 allows no change.
		r.Regressed = worse > allowed*(1+1e-12)
	}
	switch {
	case d == 0:
		r.Verdict = "="
	case r.Regressed:
		r.Verdict = "REGRESSION"
	case worse < 0:
		r.Verdict = "better"
	case checked && m.Better == 0:
		r.Verdict = "changed, within tolerance"
	case checked:
		r.Verdict = "worse, within tolerance"
	case m.Better == 0:
		r.Verdict = "changed"
	default:
		r.Verdict = "worse"
	}
}

// name names the baseline in messages.
func (b *Baseline) name() string {
	if b.Path == "" {
		return "the run"
	}
	return b.Path
}

// scenarioRelation says how the scenarios of two runs relate.
func scenarioRelation(base, cur *Baseline) string {
	switch {
	case base.Scenario == nil && cur.Scenario == nil:
		return "not compared (neither records one)"
	case base.Scenario == nil:
		return "not compared (the baseline records none)"
	case cur.Scenario == nil:
		return "not compared (the run's summary records none)"
	case !bytes.Equal(base.Scenario, cur.Scenario):
		return "DIFFERS from the baseline's: " + schedsim.ScenarioDiff(base.Scenario, cur.Scenario)
	case base.Inputs != cur.Inputs:
		return "the baseline's, but its input files (trace, config, slurm_conf, node_events) changed since"
	}
	return "the baseline's, with the same input files"
}

// Regressions returns the rows of the metrics that regressed.
func (c *Check) Regressions() []CheckRow {
	var bad []CheckRow
	for _, r := range c.Rows {
		if r.Regressed {
			bad = append(bad, r)
		}
	}
	return bad
}

// ErrRegression is what Check.Err wraps: a checked metric got worse
// beyond its tolerance.
var ErrRegression = errors.New("regression")

// Err returns nil when no checked metric regressed; else an error wrapping
// ErrRegression that names each one, with its change and tolerance.
func (c *Check) Err() error {
	var bad []string
	for _, r := range c.Regressions() {
		bad = append(bad, fmt.Sprintf("%s %s (tolerance %s)", r.Metric.Name, r.Change, r.Tolerance))
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrRegression, strings.Join(bad, "; "))
}

// WriteTable writes the check as an aligned table: the runs, how their
// scenarios relate, and a row per metric.
func (c *Check) WriteTable(w io.Writer) error {
	bs, cs := &c.Base.Summary, &c.Cur.Summary
	fmt.Fprintf(w, "baseline: %s · %s\ncurrent:  %s · %s\nscenario: %s\n\n", bs.Trace, bs.Policy, cs.Trace, cs.Policy, c.Scenario)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tbaseline\tcurrent\tchange\ttolerance\tverdict")
	for _, r := range c.Rows {
		name := r.Metric.Name
		if r.Metric.Fraction {
			name += " (%)"
		}
		base, cur := formatDisplay(r.Metric, r.Base), formatDisplay(r.Metric, r.Cur)
		switch r.Verdict {
		case "not in the baseline":
			base = "-"
		case "not in the run":
			cur = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, base, cur, r.Change, r.Tolerance, r.Verdict)
	}
	return tw.Flush()
}

// formatDisplay formats a metric's display value.
func formatDisplay(m *report.SweepMetric, v float64) string {
	switch {
	case m.Int:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case m.Fraction:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// inputf returns an *schedsim.InputError: bad input, which the command
// line reports with exit status 2.
func inputf(format string, a ...any) error {
	return &schedsim.InputError{Err: fmt.Errorf(format, a...)}
}

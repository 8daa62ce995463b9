package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/report"
)

const checkUsage = `Usage: schedsim check --baseline FILE [SUMMARY.json | RUN_DIR]
       schedsim check --baseline FILE [run options]
       schedsim check --write-baseline FILE [SUMMARY.json | RUN_DIR | run options]

Compares a run's metrics with a baseline, under a tolerance per metric, and
fails when one got worse by more than its tolerance: a regression test for
a scheduler change, a policy setting or a new trace version.

The run is a summary.json (or a directory written by schedsim run --out),
or, without one, a fresh run of the run options given (--trace, --backfill,
--lookahead, ...; see schedsim run --help). --write-baseline FILE writes
that run's metrics as a baseline instead of comparing. A baseline is a
small JSON file (the run's options and summary); a summary.json serves as
one too.

The table lists every metric with a direction (lower or higher is better):
its baseline and current values, the change, the tolerance and the verdict:
"=", "better", "worse" (not checked), "worse, within tolerance" or
"REGRESSION". Both runs must be of the same trace, machine size and job
count; anything else is bad input.

Tolerances (--tolerance METRIC=T, repeatable or comma-separated):
  T%     relative: the metric may get worse by T percent of the baseline
  T      absolute, in the metric's unit: seconds for waits, percentage
         points for utilisation and loss of capacity, jobs for counts
  off    do not check the metric
Defaults: ` + defaultTolerancesText + `. Metric names are the
columns of schedsim sweep's table: wait_mean, wait_p95, wait_max,
bounded_slowdown_mean, utilisation, loss_of_capacity, max_queue, ...

Exit status: 0 when no checked metric regressed (or the baseline was
written); 1 on a regression (or when a file cannot be written); 2 on bad
usage or input (unreadable files, runs of different traces).

Examples:
  schedsim check --write-baseline ci/baseline.json --trace t.swf.gz --lookahead 100
  schedsim check --baseline ci/baseline.json --trace t.swf.gz --lookahead 100
  schedsim check --baseline ci/baseline.json results/summary.json --tolerance wait_p95=10%
`

// defaultTolerances are the tolerances of schedsim check unless told
// otherwise.
var defaultTolerances = []tolerance{
	{metric: "wait_mean", value: 5, relative: true},
	{metric: "bounded_slowdown_mean", value: 5, relative: true},
	{metric: "utilisation", value: 1},
}

const defaultTolerancesText = "wait_mean=5%, bounded_slowdown_mean=5%,\nutilisation=1 (one percentage point)"

// baselineFormat is the format of the files --write-baseline writes.
const baselineFormat = "schedsim-baseline/1"

// baselineFile is what --write-baseline writes.
type baselineFile struct {
	Format string `json:"format"`
	// Options are the run options of a fresh run (none for a summary
	// read from a file).
	Options []string       `json:"options,omitempty"`
	Summary report.Summary `json:"summary"`
}

// tolerance is how much worse one metric may get.
type tolerance struct {
	metric   string
	value    float64 // ≥ 0: a percentage when relative, else in the metric's display unit
	relative bool
}

// format formats the tolerance of metric m with the direction of worse:
// "+5%", "-1 pt", "+60 s".
func (t tolerance) format(m *report.SweepMetric) string {
	sign := "±"
	switch m.Better {
	case -1:
		sign = "+"
	case +1:
		sign = "-"
	}
	v := strconv.FormatFloat(t.value, 'f', -1, 64)
	switch {
	case t.relative:
		return sign + v + "%"
	case m.Fraction:
		return sign + v + " pt"
	}
	return sign + v
}

// parseTolerances applies each --tolerance text (METRIC=T[,METRIC=T...])
// to the defaults and returns the tolerances by metric, in SweepMetrics'
// order.
func parseTolerances(texts []string) (map[string]tolerance, error) {
	tols := map[string]tolerance{}
	for _, t := range defaultTolerances {
		tols[t.metric] = t
	}
	for _, text := range texts {
		for _, item := range strings.Split(text, ",") {
			name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
			name, val = strings.TrimSpace(name), strings.TrimSpace(val)
			if !ok || name == "" || val == "" {
				return nil, usagef("--tolerance %q: want METRIC=T%%, METRIC=T or METRIC=off", item)
			}
			if _, ok := report.LookupSweepMetric(name); !ok {
				return nil, usagef("--tolerance %q: unknown metric %q (see schedsim check --help)", item, name)
			}
			if val == "off" {
				delete(tols, name)
				continue
			}
			t := tolerance{metric: name}
			if v, found := strings.CutSuffix(val, "%"); found {
				t.relative, val = true, v
			}
			f, err := strconv.ParseFloat(strings.TrimPrefix(val, "+"), 64)
			if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, usagef("--tolerance %q: %q is not a number ≥ 0", item, val)
			}
			t.value = f
			tols[name] = t
		}
	}
	return tols, nil
}

// readBaseline reads a baseline: a file --write-baseline wrote, or a
// summary.json (a directory stands for its summary.json).
func readBaseline(path string) (report.Summary, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "summary.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return report.Summary{}, usageError{err}
	}
	var probe struct {
		Format  string          `json:"format"`
		Summary json.RawMessage `json:"summary"`
		Trace   *string         `json:"trace"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return report.Summary{}, usagef("%s: not a baseline or summary.json: %v", path, err)
	}
	var s report.Summary
	switch {
	case probe.Format == baselineFormat:
		err = json.Unmarshal(probe.Summary, &s)
	case probe.Format == "" && probe.Trace != nil:
		err = json.Unmarshal(b, &s)
	case probe.Format != "":
		return s, usagef("%s: format %q, want %q", path, probe.Format, baselineFormat)
	default:
		return s, usagef("%s: not a baseline or summary.json (no \"format\" or \"trace\")", path)
	}
	if err != nil {
		return s, usagef("%s: %v", path, err)
	}
	return s, nil
}

// checkRow is one metric's line of the check table.
type checkRow struct {
	metric          *report.SweepMetric
	base, cur       float64 // display values
	change, verdict string
	tol             string
	regressed       bool
}

// checkMetrics compares cur with base under tols and returns a row per
// metric that has a direction or a tolerance, in SweepMetrics' order.
func checkMetrics(base, cur *report.Summary, tols map[string]tolerance) []checkRow {
	var rows []checkRow
	for i := range report.SweepMetrics {
		m := &report.SweepMetrics[i]
		tol, checked := tols[m.Name]
		if m.Better == 0 && !checked {
			continue
		}
		r := checkRow{metric: m, base: m.Display(base), cur: m.Display(cur), tol: "-"}
		d := r.cur - r.base
		switch {
		case d == 0:
			r.change = "="
		case r.base == 0:
			r.change = fmt.Sprintf("%+g", d)
		default:
			r.change = fmt.Sprintf("%+.2f%%", 100*d/math.Abs(r.base))
		}
		if m.Fraction && d != 0 {
			r.change += fmt.Sprintf(" (%+.2f pt)", d)
		}
		// worse is how much worse the metric got, in its unit (≤ 0: not worse).
		worse := math.Abs(d)
		if m.Better != 0 {
			worse = -float64(m.Better) * d
		}
		if checked {
			r.tol = tol.format(m)
			allowed := tol.value
			if tol.relative {
				allowed = tol.value / 100 * math.Abs(r.base)
			}
			// A relative tolerance of a metric at 0 allows no change.
			r.regressed = worse > allowed*(1+1e-12)
		}
		switch {
		case d == 0:
			r.verdict = "="
		case r.regressed:
			r.verdict = "REGRESSION"
		case worse < 0:
			r.verdict = "better"
		case checked && m.Better == 0:
			r.verdict = "changed, within tolerance"
		case checked:
			r.verdict = "worse, within tolerance"
		case m.Better == 0:
			r.verdict = "changed"
		default:
			r.verdict = "worse"
		}
		rows = append(rows, r)
	}
	return rows
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

// writeCheckTable prints the rows as an aligned table.
func writeCheckTable(w io.Writer, base, cur *report.Summary, rows []checkRow) error {
	fmt.Fprintf(w, "baseline: %s · %s\ncurrent:  %s · %s\n\n", base.Trace, base.Policy, cur.Trace, cur.Policy)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tbaseline\tcurrent\tchange\ttolerance\tverdict")
	for _, r := range rows {
		name := r.metric.Name
		if r.metric.Fraction {
			name += " (%)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, formatDisplay(r.metric, r.base), formatDisplay(r.metric, r.cur), r.change, r.tol, r.verdict)
	}
	return tw.Flush()
}

// errRegression is returned by check when a metric regressed.
var errRegression = errors.New("regression")

func cmdCheck(args []string, stdout, stderr io.Writer) error {
	o := schedsim.Default()
	var baseline, write string
	var tolTexts []string
	fs := newFlagSet("check", checkUsage, stdout)
	registerScenario(fs, &o)
	fs.StringVar(&baseline, "baseline", "", "the baseline to compare with: a file --write-baseline wrote, or a summary.json")
	fs.StringVar(&write, "write-baseline", "", "write the run's metrics to this file as a baseline, and compare nothing")
	fs.StringArrayVar(&tolTexts, "tolerance", nil, "METRIC=T% (relative), METRIC=T (absolute, in the metric's unit) or METRIC=off; repeatable (defaults: "+strings.ReplaceAll(defaultTolerancesText, "\n", " ")+")")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usagef("%v (see schedsim check --help)", err)
	}
	switch {
	case baseline == "" && write == "":
		return usagef("give --baseline FILE to compare with, or --write-baseline FILE to make one (see schedsim check --help)")
	case baseline != "" && write != "":
		return usagef("give either --baseline or --write-baseline, not both")
	case fs.NArg() > 1:
		return usagef("unexpected argument %q: give one summary.json or run directory", fs.Arg(1))
	}
	tols, err := parseTolerances(tolTexts)
	if err != nil {
		return err
	}
	var runArgs []string
	probe := runOptionProbe()
	fs.Visit(func(f *pflag.Flag) {
		if probe.Lookup(f.Name) != nil {
			runArgs = append(runArgs, "--"+f.Name+"="+f.Value.String())
		}
	})
	var cur report.Summary
	if fs.NArg() == 1 {
		if len(runArgs) > 0 {
			return usagef("give either a summary.json or run options (%s), not both", strings.Join(runArgs, " "))
		}
		if cur, err = readBaseline(fs.Arg(0)); err != nil {
			return err
		}
	} else {
		res, err := schedsim.Run(context.Background(), &o, schedsim.Options{})
		if err != nil {
			return err
		}
		cur = res.Summary
	}
	if write != "" {
		if err := writeJSONAtomic(write, &baselineFile{Format: baselineFormat, Options: runArgs, Summary: cur}); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote baseline %s: %s · %s, wait mean %.1f s, bounded slowdown %.3f, utilisation %.2f %%\n",
			write, cur.Trace, cur.Policy, cur.Wait.Mean, cur.MeanBoundedSlowdown, 100*cur.Utilisation)
		return nil
	}
	base, err := readBaseline(baseline)
	if err != nil {
		return err
	}
	if base.Trace != cur.Trace || base.Procs != cur.Procs || base.Jobs != cur.Jobs {
		return usagef("the baseline is of %s (%d jobs on %d processors), this run of %s (%d jobs on %d processors): compare runs of the same trace and machine",
			base.Trace, base.Jobs, base.Procs, cur.Trace, cur.Jobs, cur.Procs)
	}
	rows := checkMetrics(&base, &cur, tols)
	var buf bytes.Buffer
	if err := writeCheckTable(&buf, &base, &cur, rows); err != nil {
		return err
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	var bad []string
	for _, r := range rows {
		if r.regressed {
			bad = append(bad, fmt.Sprintf("%s %s (tolerance %s)", r.metric.Name, r.change, r.tol))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s", errRegression, strings.Join(bad, "; "))
	}
	fmt.Fprintf(stdout, "\nok: no checked metric got worse beyond its tolerance (%d checked)\n", len(tols))
	return nil
}

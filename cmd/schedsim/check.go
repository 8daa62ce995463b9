package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/regress"
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
small JSON file: the run's scenario (every option, not the command line),
a hash of the content of the input files it names, and its summary; a
summary.json serves as one too. The check says whether the run's scenario
is the baseline's, which keys differ, or whether only the input files
changed.

The table lists every metric with a direction (lower or higher is better):
its baseline and current values, the change, the tolerance and the verdict:
"=", "better", "worse" (not checked), "worse, within tolerance" or
"REGRESSION". Both runs must be of the same trace, machine size and job
count; anything else is bad input. A metric a file lacks (or holds as
null) is never read as 0: a checked one is bad input (uncheck it with
--tolerance METRIC=off), an unchecked one is shown as missing.

Tolerances (--tolerance METRIC=T, repeatable or comma-separated):
  T%     relative: the metric may get worse by T percent of the baseline
  T      absolute, in the metric's unit: seconds for waits, percentage
         points for utilisation and loss of capacity, jobs for counts
  off    do not check the metric
Defaults: wait_mean=5%, bounded_slowdown_mean=5%, utilisation=1 (one
percentage point). Metric names are the columns of schedsim sweep's table:
wait_mean, wait_p95, wait_max, bounded_slowdown_mean, utilisation,
loss_of_capacity, max_queue, ...

Exit status: 0 when no checked metric regressed (or the baseline was
written); 1 on a regression (or when a file cannot be written); 2 on bad
usage or input (unreadable files, runs of different traces, a checked
metric missing); 130 when interrupted.

Examples:
  schedsim check --write-baseline ci/baseline.json --trace t.swf.gz --lookahead 100
  schedsim check --baseline ci/baseline.json --trace t.swf.gz --lookahead 100
  schedsim check --baseline ci/baseline.json results/summary.json --tolerance wait_p95=10%
`

func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sc := schedsim.Default()
	var baseline, write string
	var tolTexts []string
	fs := newFlagSet("check", checkUsage, stdout)
	registerScenario(fs, &sc)
	fs.StringVar(&baseline, "baseline", "", "the baseline to compare with: a file --write-baseline wrote, or a summary.json")
	fs.StringVar(&write, "write-baseline", "", "write the run's metrics to this file as a baseline, and compare nothing")
	fs.StringArrayVar(&tolTexts, "tolerance", nil, "METRIC=T% (relative), METRIC=T (absolute, in the metric's unit) or METRIC=off; repeatable (defaults: wait_mean=5%, bounded_slowdown_mean=5%, utilisation=1)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	switch {
	case baseline == "" && write == "":
		return usagef("give --baseline FILE to compare with, or --write-baseline FILE to make one (see schedsim check --help)")
	case baseline != "" && write != "":
		return usagef("give either --baseline or --write-baseline, not both")
	case fs.NArg() > 1:
		return usagef("unexpected argument %q: give one summary.json or run directory", fs.Arg(1))
	}
	tols, err := regress.ParseTolerances(tolTexts)
	if err != nil {
		return err
	}
	var cur *regress.Baseline
	if fs.NArg() == 1 {
		if set := scenarioSettings(fs); len(set) > 0 {
			return usagef("give either a summary.json or run options (--%s), not both", set[0].Key)
		}
		cur, err = regress.ReadBaseline(fs.Arg(0))
	} else {
		res, rerr := schedsim.Run(ctx, &sc, schedsim.Options{Observers: readyObservers(ctx, "check:job")})
		if rerr != nil {
			return rerr
		}
		cur, err = regress.NewBaseline(&sc, &res.Summary)
	}
	if err != nil {
		return err
	}
	if write != "" {
		if err := cur.Write(write); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote baseline %s: %s · %s, %s\n", write, cur.Summary.Trace, cur.Summary.Policy, cur.Summary.Headline())
		return nil
	}
	base, err := regress.ReadBaseline(baseline)
	if err != nil {
		return err
	}
	c, err := regress.CheckRegression(base, cur, tols)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := c.WriteTable(&buf); err != nil {
		return err
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	if err := c.Err(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nok: no checked metric got worse beyond its tolerance (%d checked)\n", c.Checked)
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/workload"
)

const fidelityUsage = `Usage: schedsim fidelity [SCENARIO.toml] [options]
       schedsim fidelity --dir RESULTS --trace LOG [options]

How close is the simulation to the real machine? A log of the Parallel
Workloads Archive records the wait every job really had (SWF field 3). This
command replays the log under a scenario (the options and scenario files of
schedsim run) — or reads a result directory schedsim run --out wrote (--dir)
— and compares each job's simulated wait with its recorded one.

It prints, for all jobs and per class (size, requested time, queue, the users
with the most jobs, calendar month, and held or not when the scenario holds
jobs): the recorded and simulated mean and median wait, the mean bounded slowdown (10 s threshold) of both, the
Spearman rank correlation of the per-job waits (1: the simulation orders the
jobs' waits as the machine did; 0: no relation), and the fraction of jobs
whose simulated wait is within the tolerance of the recorded one:
|simulated - recorded| <= max(--tolerance-abs, --tolerance-rel x recorded).

Jobs the log gives no wait for (-1) are skipped and counted, as are jobs the
simulation did not run (rejected, failed, still pending). With --recorded
the truth comes from another file than the simulated trace (e.g. the waits a
real Slurm gave the same jobs), joined by job number.

A faithful simulation has a Spearman of 0.5 or more and a mean wait within
25 % of the recorded one. When it is far off, schedsim infer LOG writes a
scenario with what the log shows of the real machine (outages, drains,
start windows, user limits), to rerun this command with.

With --out DIR it writes DIR/fidelity.json (the same numbers, and the
weekly means), and, unless --plots=false, DIR/fidelity_waits (a density of
the jobs by recorded and simulated wait on logarithmic axes, the diagonal
and the tolerance band drawn in) and DIR/fidelity_weekly (the weekly mean
wait, recorded and simulated, over calendar time), each .svg and .png.
Each file is written to a temporary name and renamed when whole.

Examples:
  schedsim fidelity --trace LANL-CM5-1994-4.1-cln.swf.gz --backfill easy
  schedsim fidelity --trace CTC-SP2-1996-3.1-cln.swf.gz --out fid/ctc
  schedsim fidelity inferred.toml --out fid/inferred
  schedsim run --trace log.swf.gz --out res && schedsim fidelity --dir res --trace log.swf.gz
  schedsim fidelity --trace log.swf.gz --tolerance-abs 30m --tolerance-rel 0.25
`

func cmdFidelity(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var fo schedsim.FidelityOptions
	var out, tolAbs string
	plots := true
	tolRel := report.DefaultTolerance.Rel
	sc, fs, err := parseScenario("fidelity", fidelityUsage, args, stdout, func(fs *pflag.FlagSet, sc *schedsim.Scenario) {
		registerScenario(fs, sc)
		fs.StringVar(&fo.Recorded, "recorded", "", "the trace whose recorded waits are the truth, joined by job number (default: --trace)")
		fs.StringVar(&fo.Dir, "dir", "", "read the simulated waits from this result directory of schedsim run --out instead of simulating")
		fs.StringVar(&out, "out", "", "write fidelity.json and the plots into this directory (created if needed)")
		fs.BoolVar(&plots, "plots", true, "with --out, write the plots")
		fs.StringVar(&tolAbs, "tolerance-abs", "10m", "absolute tolerance of a simulated wait: seconds, or a number with unit s, m, h or d")
		fs.Float64Var(&tolRel, "tolerance-rel", tolRel, "relative tolerance of a simulated wait, a fraction of the recorded wait (0.5 = 50 %)")
	})
	if err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usagef("unexpected argument %q (see schedsim fidelity --help)", fs.Arg(1))
	}
	abs, ok := workload.ParseSeconds(tolAbs, 1<<40)
	if !ok {
		return usagef("--tolerance-abs %q: want seconds, or a number with unit s, m, h or d", tolAbs)
	}
	if !(tolRel >= 0) || tolRel > 1e6 {
		return usagef("--tolerance-rel %v: want a fraction of 0 or more", tolRel)
	}
	fo.Tolerance = report.Tolerance{AbsSec: abs, Rel: tolRel}
	if fo.Tolerance == (report.Tolerance{}) {
		return usagef("--tolerance-abs 0 and --tolerance-rel 0: a tolerance of nothing; give one of them")
	}
	if fo.Dir != "" && sc.Trace == "" && fo.Recorded == "" {
		return usagef("--dir needs the log with the recorded waits: give --trace or --recorded")
	}
	f, err := schedsim.Fidelity(ctx, sc, fo, schedsim.Options{Warn: stderr})
	if err != nil {
		return err
	}
	if f.Overall.Jobs == 0 {
		return usagef("no job to compare: the log records no wait (field 3 is -1 everywhere) or the simulation ran none of its jobs")
	}
	if err := report.WriteFidelityTable(stdout, f); err != nil {
		return err
	}
	if out == "" {
		return nil
	}
	wrote, err := schedsim.WriteFidelity(ctx, out, f, plots)
	if len(wrote) > 0 {
		fmt.Fprintf(stderr, "wrote %s\n", strings.Join(wrote, ", "))
	}
	return err
}

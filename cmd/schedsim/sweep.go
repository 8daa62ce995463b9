package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sweep"
)

const sweepUsage = `Usage: schedsim sweep [SCENARIO.toml] --param NAME=V1,V2,... [--param ...] [run options] --out DIR
       schedsim sweep [SCENARIO.toml] --file SWEEP [run options] --out DIR
       schedsim sweep ... --emit-slurm DIR       (then: sbatch DIR/sweep.sbatch)
       schedsim sweep --manifest DIR/manifest.json --task K
       schedsim sweep --merge DIR

Runs schedsim run over a grid of scenarios and writes one results table and
one plot per metric. A point of the grid is a base scenario (the scenario
file, if given, then the run options given outside --param) with the
point's values. Each --param names a scenario key (an option of schedsim
run without its dashes, or its TOML key: reservation-depth or
reservation_depth) and the values it takes, separated by commas, or by "|"
when a value itself holds commas (--param 'status=1|0,1,5'); a list
(queue-state) separates its items with ";". The grid is every combination;
the first parameter varies slowest.

A sweep file (--file) holds one parameter per line, "NAME = V1, V2, ...",
with the same separators; blank lines and lines starting with # are
skipped. Relative paths are relative to the working directory, as on the
command line.

Points are simulated in parallel, --jobs at a time. Each finished point is
kept in DIR/points/KEY.json (KEY: a hash of the point's values), written
atomically, with the point's whole scenario, a hash of the content of every
input file it names (trace, config, slurm-conf, node-events) and a
checksum: an interrupted sweep (Ctrl-C, a kill, a crash) loses at most the
points that were running, and the same command run again computes only the
points that are missing, or whose scenario or input files changed, or
whose file is corrupt (said on stderr). The results do not depend on --jobs
or on what was resumed. Kept points do not record schedsim's version:
after upgrading it, use a new DIR.

Output, in DIR:
  sweep.csv, sweep.parquet  one row per point in grid order: point, key,
                            every parameter (swept ones first, then the
                            options given outside --param), trace_name,
                            policy_name, machine_procs, every summary metric
                            (wait_mean, bounded_slowdown_mean, utilisation,
                            ...), the cleaning counts (cleaning_*)
  sweep_METRIC.svg/.png     each --plot-metrics against the --x parameter,
                            one line per value of the other swept parameters

On a Slurm cluster: --emit-slurm DIR writes DIR/manifest.json (the base
scenario, the grid, and which array task runs which points) and
DIR/sweep.sbatch, a job array of one task per --chunk points, at most
--array-limit running at once. Each task runs "schedsim sweep --manifest
DIR/manifest.json --task K" and writes DIR/parts/part-K.json; "schedsim
sweep --merge DIR" joins the parts into DIR/sweep.csv, DIR/sweep.parquet
and the plots, or lists the missing tasks (no part, a corrupt part, or one
computed from input files that changed since) with the sbatch command that
reruns them and exits with status 1. DIR and the input files must be on a
file system the compute nodes share.

Examples:
  schedsim sweep --trace LANL-CM5-1994-4.1-cln.swf.gz \
      --param lookahead=1,10,100,1000,all --out sweep-la
  schedsim sweep --param lookahead=1,10,100,1000,all \
      --param trace=a.swf.gz,b.swf.gz --param backfill=easy,conservative --out sw
  schedsim sweep lanl.toml --param reservation_depth=1,2,4,all --out sw
  schedsim sweep --file grid.txt --emit-slurm /shared/sw --chunk 4 --array-limit 20
  sbatch /shared/sw/sweep.sbatch && schedsim sweep --merge /shared/sw

Exit status: 0 when every point is done; 2 on bad usage or input; 1 when
an output cannot be written or parts are missing; 130 when interrupted
(SIGINT or SIGTERM: the finished points are kept, nothing else written).
`

// sweepFlags are the options of schedsim sweep beyond the scenario's.
type sweepFlags struct {
	params                []string
	file, out, x, plotStr string
	plots, quiet          bool
	jobs                  int
	progress              string
	emit                  string
	chunk, limit, cpus    int
	sbatchOpts            []string
	binary                string
	manifest              string
	task                  int
	merge                 string
}

func (f *sweepFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.params, "param", nil, "a swept scenario key (an option of schedsim run) and its values: NAME=V1,V2,... (repeat for each parameter)")
	fs.StringVar(&f.file, "file", "", "read the parameters from this sweep file, one NAME = V1, V2, ... per line")
	fs.StringVar(&f.out, "out", "", "results directory: DIR/points/ (one file per finished point), DIR/sweep.csv, DIR/sweep.parquet and the plots")
	fs.IntVar(&f.jobs, "jobs", runtime.GOMAXPROCS(0), "points simulated at once (default: the number of CPUs)")
	fs.StringVar(&f.x, "x", "", "the parameter along the plots' x axis (default: the first swept parameter with several values, other than trace)")
	fs.StringVar(&f.plotStr, "plot-metrics", strings.Join(report.DefaultSweepPlots, ","), "metrics to plot, comma-separated (any column of the metrics, e.g. wait_p99, loss_of_capacity, max_queue)")
	fs.BoolVar(&f.plots, "plots", true, "write the plots; --plots=false skips them")
	fs.StringVar(&f.progress, "progress", "auto", "say on stderr as each point finishes: auto (only on a terminal, not under CI), always or never")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "do not print the table of points")
	fs.StringVar(&f.emit, "emit-slurm", "", "do not run: write DIR/manifest.json and DIR/sweep.sbatch, a Slurm job array over the points")
	fs.IntVar(&f.chunk, "chunk", 1, "with --emit-slurm, points per array task")
	fs.IntVar(&f.limit, "array-limit", 16, "with --emit-slurm, array tasks running at once (sbatch --array=0-N%LIMIT)")
	fs.IntVar(&f.cpus, "cpus-per-task", 1, "with --emit-slurm, CPUs of each array task; a task runs that many points at once")
	fs.StringArrayVar(&f.sbatchOpts, "sbatch-option", nil, "with --emit-slurm, an extra #SBATCH line, e.g. --sbatch-option=--partition=batch --sbatch-option=--time=2:00:00 (repeatable)")
	fs.StringVar(&f.binary, "schedsim", "", "with --emit-slurm, the schedsim binary the tasks run (default: this one, by absolute path)")
	fs.StringVar(&f.manifest, "manifest", "", "run the points of this manifest (written by --emit-slurm): those of --task, or all")
	fs.IntVar(&f.task, "task", -1, "with --manifest, the array task to run ($SLURM_ARRAY_TASK_ID)")
	fs.StringVar(&f.merge, "merge", "", "join the parts the array tasks wrote in DIR into DIR/sweep.csv, sweep.parquet and the plots")
}

func cmdSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f sweepFlags
	base, fs, err := parseScenario("sweep", sweepUsage, args, stdout, func(fs *pflag.FlagSet, sc *schedsim.Scenario) {
		registerScenario(fs, sc)
		f.register(fs)
	})
	if err != nil {
		return err
	}
	if _, _, err := newProgress(f.progress, io.Discard, 1); err != nil {
		return err
	}
	if f.jobs < 1 {
		return usagef("--jobs %d: want at least 1", f.jobs)
	}
	modes := 0
	for _, m := range []bool{f.emit != "", f.manifest != "", f.merge != ""} {
		if m {
			modes++
		}
	}
	if modes > 1 {
		return usagef("give at most one of --emit-slurm, --manifest and --merge")
	}
	if f.task >= 0 && f.manifest == "" {
		return usagef("--task needs --manifest")
	}
	fixed := scenarioSettings(fs)
	if f.manifest != "" || f.merge != "" {
		if len(fixed) > 0 || len(f.params) > 0 || f.file != "" || f.out != "" || fs.NArg() > 0 {
			return usagef("--manifest and --merge take the sweep from the manifest: give no scenario file, --param, --file, --out or run options")
		}
		path := f.manifest
		if f.merge != "" {
			path = filepath.Join(f.merge, "manifest.json")
		}
		ss, err := sweep.OpenSlurmSweep(path)
		if err != nil {
			return err
		}
		total := 0 // the grid's
		if f.task >= 0 {
			from, to := ss.TaskPoints(f.task)
			total = to - from
		}
		f.setUp(ctx, &ss.Sweep, total, stderr)
		if f.merge != "" {
			return sweepMerge(ss, f, stdout, stderr)
		}
		return sweepTask(ctx, ss, f, stdout, stderr)
	}
	axes, err := sweep.ParseAxes(f.file, f.params)
	if err != nil {
		return err
	}
	sw := &sweep.Sweep{Grid: sweep.Grid{Base: *base, Fixed: fixed, Axes: axes}, Dir: f.out, Jobs: f.jobs, X: f.x}
	for _, m := range strings.Split(f.plotStr, ",") {
		if m = strings.TrimSpace(m); m != "" {
			sw.Plots = append(sw.Plots, m)
		}
	}
	if f.emit != "" {
		e, err := sw.EmitSlurm(sweep.SlurmArray{Dir: f.emit, Chunk: f.chunk, Limit: f.limit, CPUs: f.cpus, SbatchOptions: f.sbatchOpts, Binary: f.binary})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d points) and %s (%d array tasks, at most %d at once)\n", e.Manifest, e.Points, e.Script, e.Tasks, f.limit)
		fmt.Fprintf(stdout, "submit: sbatch %s\nthen:   schedsim sweep --merge %s\n", e.Script, filepath.Dir(e.Manifest))
		return nil
	}
	f.setUp(ctx, sw, 0, stderr)
	return sweepLocal(ctx, sw, f, stdout, stderr)
}

// scenarioSettings returns the scenario options set on the command line,
// as settings: the values every point of a sweep shares.
func scenarioSettings(fs *pflag.FlagSet) []schedsim.Setting {
	var set []schedsim.Setting
	fs.Visit(func(fl *pflag.Flag) {
		if !isScenarioFlag(fl.Name) {
			return
		}
		v := fl.Value.String()
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), ";")
		}
		set = append(set, schedsim.Setting{Key: fl.Name, Value: v})
	})
	return set
}

// setUp sets the sweep's options that do not change its results: jobs,
// plots, warnings, and progress on stderr over total points (≤ 0: the
// grid's), and the tests' ready hook.
func (f sweepFlags) setUp(ctx context.Context, sw *sweep.Sweep, total int, stderr io.Writer) {
	sw.Jobs, sw.NoPlots, sw.Warn = f.jobs, !f.plots, stderr
	show := report.ProgressShown(f.progress, stderr)
	if pts, _ := sw.Points(); total <= 0 {
		total = len(pts) // an error stops the sweep before any point is done
	}
	n := 0
	sw.Done = func(pt *sweep.Point, reused bool, took time.Duration) {
		n++
		if show && !reused {
			fmt.Fprintf(stderr, "[%d/%d] %s: done in %.1f s\n", n, total, pt.Label, took.Seconds())
		}
		if !reused {
			ready(ctx, "sweep:point")
		}
	}
}

// sweepLocal runs a sweep on this machine and prints what it did.
func sweepLocal(ctx context.Context, sw *sweep.Sweep, f sweepFlags, stdout, stderr io.Writer) error {
	start := time.Now()
	res, err := sw.Run(ctx)
	if err != nil {
		return err
	}
	res.Counts.Report(stderr, len(res.Table.Points), sw.Dir, time.Since(start))
	return printSweep(res, sw.Dir, f.quiet, stdout, stderr)
}

// printSweep says what a sweep wrote and, unless quiet, prints its table.
func printSweep(res *sweep.Result, dir string, quiet bool, stdout, stderr io.Writer) error {
	if res.ReportWrote(stderr, dir); quiet {
		return nil
	}
	return res.Print(stdout)
}

// sweepTask runs the points of one array task of a manifest (or, without
// --task, all of them, and writes the results).
func sweepTask(ctx context.Context, ss *sweep.SlurmSweep, f sweepFlags, stdout, stderr io.Writer) error {
	if f.task < 0 {
		return sweepLocal(ctx, &ss.Sweep, f, stdout, stderr)
	}
	start := time.Now()
	tr, err := ss.RunTask(ctx, f.task)
	if err != nil {
		return err
	}
	tr.Counts.Report(stderr, len(tr.Points), ss.Dir, time.Since(start))
	tr.Print(stdout, f.task)
	return nil
}

// sweepMerge joins the parts of a Slurm sweep into its results, or says
// which tasks to run again.
func sweepMerge(ss *sweep.SlurmSweep, f sweepFlags, stdout, stderr io.Writer) error {
	res, err := ss.Merge()
	var missing *sweep.MissingPartsError
	if errors.As(err, &missing) {
		for _, why := range missing.Reasons {
			fmt.Fprintln(stderr, "missing:", why)
		}
		fmt.Fprintf(stderr, "rerun them with: %s\n", missing.Rerun())
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "merged %d parts, %d points\n", ss.Tasks, len(res.Table.Points))
	return printSweep(res, ss.Dir, f.quiet, stdout, stderr)
}

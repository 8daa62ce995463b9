package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/report"
)

const compareUsage = `Usage: schedsim compare [options] --run 'NAME: OPTIONS' --run 'NAME: OPTIONS' ...
       schedsim compare [options] --dirs DIR DIR ...

Compares several runs side by side: a table with a row per metric and a
column per run, where every run after the first shows its relative change
against the first, and, with --out, overlaid plots and compare.html.

From option sets (--run): each --run is a run of the simulator. Its text is
a name, a colon, and the options of that run as schedsim run takes them,
separated by spaces (no quoting: option values have no spaces). The options
given outside --run (--trace, --procs, the policy, the cleaning rules) apply
to every run, and a run's own options override them. Without "NAME:" the run
is named by its options. The runs are independent and are simulated in
parallel, --jobs at a time; the table and the files list them in the order
given, whatever order they finish in.

From result directories (--dirs): the arguments are directories written by
schedsim run --out; each one's summary.json and per-job table are read:
jobs.csv, or jobs.parquet for a run with --format parquet (the time series
are rebuilt from it). Runs are named by their directory.

Examples:
  schedsim compare --trace LANL-CM5-1994-4.1-cln.swf.gz \
      --run 'la1: --lookahead 1' --run 'la10: --lookahead 10' \
      --run 'la100: --lookahead 100' --run 'all: --lookahead all' --out cmp
  schedsim compare --trace log.swf.gz --run 'fcfs: --backfill off' \
      --run 'easy: --backfill easy' --run 'cons: --backfill conservative'
  schedsim compare --dirs results/easy results/fcfs --out cmp

With --out DIR it writes the table for programs as DIR/compare.csv (a row
per run and metric: run, policy, metric, better, value, relative_change,
verdict) and DIR/compare.json (per metric, the values and relative changes
in the runs' order), and, unless --plots=false, DIR/compare_wait_cdf,
DIR/compare_utilisation and DIR/compare_queue (each .svg and .png) and
DIR/compare.html. Relative changes there are fractions,
(value - first) / |first|, empty (null) for the first run.
`

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	base := schedsim.Default()
	var runs []string
	var dirs, plots bool
	var out, progress string
	jobs := runtime.GOMAXPROCS(0)
	fs := newFlagSet("compare", compareUsage, stdout)
	registerScenario(fs, &base)
	fs.StringArrayVar(&runs, "run", nil, "a run: 'NAME: OPTIONS' (repeat for each run)")
	fs.BoolVar(&dirs, "dirs", false, "compare the result directories given as arguments instead of running simulations")
	fs.StringVar(&out, "out", "", "write compare.csv, compare.json, the overlaid plots and compare.html into this directory (created if needed)")
	fs.BoolVar(&plots, "plots", true, "with --out, write the plots and compare.html")
	fs.IntVar(&jobs, "jobs", jobs, "how many runs to simulate at once (default: the number of CPUs)")
	fs.StringVar(&progress, "progress", "auto", "say on stderr as each run finishes: auto (only on a terminal, not under CI), always or never")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if _, _, err := newProgress(progress, io.Discard, 1); err != nil {
		return err
	}
	show := report.ProgressShown(progress, stderr)
	if jobs < 1 {
		return usagef("--jobs %d: want at least 1", jobs)
	}
	var results []*report.Run
	switch {
	case dirs && len(runs) > 0:
		return usagef("give either --run option sets or --dirs directories, not both")
	case dirs:
		if fs.NArg() < 1 {
			return usagef("--dirs needs at least one result directory as argument")
		}
		for _, d := range fs.Args() {
			r, err := report.ReadRunDir(d, report.DefaultSeriesPoints)
			if err != nil {
				if errors.Is(err, report.ErrNotResultDir) || errors.Is(err, os.ErrNotExist) {
					return usageError{err}
				}
				return err
			}
			results = append(results, r)
		}
	default:
		if fs.NArg() > 0 {
			return usagef("unexpected argument %q (directories need --dirs; see schedsim compare --help)", fs.Arg(0))
		}
		if len(runs) == 0 {
			return usagef("nothing to compare: give --run 'NAME: OPTIONS' for each run, or --dirs DIR ... (see schedsim compare --help)")
		}
		named, err := parseRuns(&base, runs)
		if err != nil {
			return err
		}
		results, err = schedsim.Compare(ctx, named, jobs, func(i int, took time.Duration) {
			if show {
				fmt.Fprintf(stderr, "run %q done in %.1f s\n", named[i].Name, took.Seconds())
			}
			ready(ctx, "compare:run")
		})
		if err != nil {
			return err
		}
	}
	if err := report.WriteCompareTable(stdout, results); err != nil {
		return err
	}
	if out == "" {
		return nil
	}
	wrote, err := schedsim.WriteCompare(ctx, out, results, plots)
	if len(wrote) > 0 {
		fmt.Fprintf(stderr, "wrote %s\n", strings.Join(wrote, ", "))
	}
	return err
}

// parseRuns returns the scenario of each --run text: base (the options
// given outside --run) with the run's own options over it.
func parseRuns(base *schedsim.Scenario, runs []string) ([]schedsim.Named, error) {
	named := make([]schedsim.Named, 0, len(runs))
	seen := map[string]bool{}
	for i, text := range runs {
		name, opts := splitRunSpec(text)
		if name == "" {
			name = strings.Join(opts, " ")
		}
		if name == "" {
			name = fmt.Sprintf("run %d", i+1)
		}
		if seen[name] {
			return nil, usagef("--run %q: two runs are named %q", text, name)
		}
		seen[name] = true
		n := schedsim.Named{Name: name, Scenario: *base}
		n.Scenario.QueueStates = slices.Clone(base.QueueStates)
		fs := pflag.NewFlagSet("compare --run", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		registerScenario(fs, &n.Scenario)
		if err := fs.Parse(opts); err != nil {
			return nil, usagef("--run %q: %v (a run takes the options of schedsim run)", text, err)
		}
		if fs.NArg() > 0 {
			return nil, usagef("--run %q: unexpected argument %q", text, fs.Arg(0))
		}
		named = append(named, n)
	}
	return named, nil
}

// splitRunSpec splits "NAME: OPTIONS" into the name and the options. Text
// that starts with an option ("-") has no name.
func splitRunSpec(text string) (string, []string) {
	text = strings.TrimSpace(text)
	if name, rest, ok := strings.Cut(text, ":"); ok && !strings.HasPrefix(strings.TrimSpace(name), "-") {
		return strings.TrimSpace(name), strings.Fields(rest)
	}
	return "", strings.Fields(text)
}

package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schedsim/schedsim/internal/bench"
)

const benchUsage = `Usage: schedsim bench [options] [TRACE...]

Measures schedsim end to end, the way a user runs it: for each case it runs
"schedsim run ... --out DIR" as a child process, --repeat times, plots
and report.html included as schedsim run writes them (--plots=false
leaves them out: their drawing takes a fixed few tenths of a second
after the simulation), and prints
the median wall time, jobs per second, the median CPU time (the child's
user and system time, over all its threads) and peak memory (the child's
maximum resident set size) as a table.

A run is a pipeline of goroutines: on several cores its stages overlap
and the wall time is less than the CPU time, the work done on all cores.
A change can move one and not the other: less work in a stage that waits
for another shows in the CPU time only. On a shared machine (a CI runner,
a virtual machine whose host is busy) both vary from run to run by a
tenth and more: compare medians of several runs (--repeat).

The cases are two synthetic traces generated first with the Lublin–Feitelson
model (seeded, --jobs jobs on --procs processors): one at an offered load of
0.85 run with EASY and lookahead 1000, one at 1.10 — the queue grows to
thousands of jobs — run with EASY and lookahead all; then every TRACE given,
run with --trace-args (default: EASY, lookahead all). Use it in CI to
benchmark your own trace files.

Profiles: with --cpuprofile-dir DIR every run also writes its CPU profile
(schedsim run --cpuprofile), for go tool pprof. schedsim itself is built
with profile-guided optimisation from cmd/schedsim/default.pgo, which go
build and go run use by themselves: the merged profiles of the default
cases and of LANL-CM5. After a change to the hot paths, refresh it from
the repository's root with

  go run ./cmd/schedsim bench --repeat 3 --cpuprofile-dir prof \
      ../shared/traces/LANL-CM5-1994-4.1-cln.swf.gz
  go tool pprof -proto prof/*.pprof > cmd/schedsim/default.pgo

Examples:
  schedsim bench                                     # 1M-job traces, 5 runs each
  schedsim bench --jobs 100000 --repeat 3 LANL-CM5-1994-4.1-cln.swf.gz
  schedsim bench --loads '' --trace-args '--backfill off' my.swf.gz
`

// benchChildEnv, when set, tells a test binary to act as the schedsim
// command (see TestMain), so that bench can measure child processes in tests.
const benchChildEnv = "SCHEDSIM_BENCH_AS_MAIN"

func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", benchUsage, stdout)
	jobs := fs.Int("jobs", 1_000_000, "jobs in each generated trace")
	procs := fs.Int("procs", 1024, "processors of the generated traces' machine")
	loads := fs.String("loads", "0.85,1.10", "offered loads of the generated traces, comma-separated ('' for none)")
	seed := fs.Int64("seed", 1, "seed of the generated traces")
	repeat := fs.Int("repeat", 5, "runs per case; the table shows the median")
	traceArgs := fs.String("trace-args", "--backfill easy --lookahead all", "options of schedsim run for the TRACE files")
	keep := fs.String("keep", "", "keep the generated traces and outputs in this directory (default: a temporary one, removed)")
	plots := fs.Bool("plots", true, "let every run write its plots and report.html, as schedsim run does; --plots=false times the simulation and its tables (jobs.csv, summary.json) alone")
	profDir := fs.String("cpuprofile-dir", "", "write every run's CPU profile to this directory, as case<N>-run<R>.pprof (see Profiles below)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if *repeat < 1 || *jobs < 2 || *procs < 1 {
		return usagef("--repeat, --jobs and --procs must be positive (--jobs at least 2)")
	}
	dir, cleanup, err := bench.WorkDir(*keep)
	if err != nil {
		return err
	}
	defer cleanup()
	runArgs, err := bench.RunArgs(*plots, *profDir)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}

	ls, err := bench.ParseLoads(*loads)
	if err != nil {
		return usageError{err}
	}
	cases, err := bench.Generated(dir, *jobs, *procs, ls, *seed, stderr)
	if err != nil {
		return err
	}
	for _, tr := range fs.Args() {
		c, err := bench.TraceCase(tr, strings.Fields(*traceArgs))
		if err != nil {
			return usageError{err}
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return usagef("nothing to measure: give --loads or TRACE files")
	}
	br := bench.Runner{Binary: self, Env: []string{benchChildEnv + "=1", "CI=true"}}
	results, err := br.Measure(cases, *repeat, dir, runArgs)
	if err != nil {
		return err
	}
	what := map[bool]string{true: "with plots", false: "without plots"}[*plots]
	return bench.PrintTable(stdout, cases, results, fmt.Sprintf("(%d runs per case, %s; peak RSS is the largest of them)", *repeat, what))
}

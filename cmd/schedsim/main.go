// Command schedsim replays HPC workload traces against simulated batch
// schedulers and reports what the schedule would have been.
//
// Run "schedsim help" for the commands and "schedsim COMMAND --help" for a
// command's options.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/schedsim/schedsim"
	"github.com/spf13/pflag"
)

// Exit statuses.
const (
	exitOK          = 0
	exitError       = 1   // the run failed for a reason outside the input (I/O)
	exitUsage       = 2   // bad input or usage: the message says what to fix
	exitInterrupted = 130 // stopped by SIGINT or SIGTERM, as a shell reports it
)

// usageError marks an error the user can fix by changing the command or its
// input; it exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// command is a subcommand. Its context is cancelled on SIGINT or SIGTERM:
// the command stops, removes what it had not finished writing, and
// returns an error wrapping schedsim.ErrInterrupted.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"run", "replay a trace under one scheduling policy and report the result", cmdRun},
	{"convert", "convert a trace between SWF and Parquet, losslessly", cmdConvert},
	{"generate", "generate a synthetic trace (Lublin-Feitelson model) as SWF or Parquet", cmdGenerate},
	{"compare", "compare several runs side by side: a table and overlaid plots", cmdCompare},
	{"sweep", "run a grid of parameters in parallel, resumable, or as a Slurm job array", cmdSweep},
	{"fidelity", "compare a replay's per-job waits with the waits the log recorded", cmdFidelity},
	{"infer", "read a log's recorded starts and write a scenario with the machine's rules it shows, each with its evidence", whole(cmdInfer)},
	{"check", "compare a run with a baseline under tolerances; exit 1 on a regression", cmdCheck},
	{"verify", "check a run's jobs.csv or jobs.parquet against the simulator's invariants and its summary.json", whole(cmdVerify)},
	{"bench", "measure wall time, jobs/s and peak memory of end-to-end runs", whole(cmdBench)},
	{"version", "print the version of schedsim, its commit and its Go toolchain", whole(cmdVersion)},
}

const topUsage = `schedsim — a discrete-event simulator of HPC batch schedulers.

It replays workload traces (SWF logs of the Parallel Workloads Archive,
Parquet datasets, Slurm accounting, Batsim workloads) against a simulated
machine (a processor pool, or nodes and partitions as a slurm.conf gives
them) under a scheduling policy (FCFS, EASY with a lookahead, conservative,
Slurm's backfill, SCore-D's gang and exclusive queues, HPC Pack's filters,
or a program of your own), and reports every job's start, the summary
metrics, plots and a report page.

Usage:
  schedsim COMMAND [options]

Commands:
%s
Run "schedsim COMMAND --help" for a command's options and examples.

Exit status: 0 on success, 2 on bad input or usage (the message names the
file, line and field), 1 when output could not be written, 130 when
interrupted (SIGINT or SIGTERM; nothing is written then).
`

func main() {
	os.Exit(mainWith(os.Args[1:], os.Stdout, os.Stderr))
}

// mainWith runs the command line args and returns the exit status. The
// command's context is cancelled on SIGINT or SIGTERM, which exit with
// status 130: the one signal path of every subcommand.
func mainWith(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mainCtx(ctx, args, stdout, stderr)
}

// mainCtx is mainWith under ctx.
func mainCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			return mainCtx(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		w := stdout
		status := exitOK
		if len(args) == 0 {
			w, status = stderr, exitUsage
		}
		printTopUsage(w)
		return status
	}
	if args[0] == "--version" {
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		ready(ctx, c.name)
		err := c.run(ctx, args[1:], stdout, stderr)
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, pflag.ErrHelp):
			return exitOK
		}
		fmt.Fprintf(stderr, "schedsim %s: %v\n", c.name, err)
		if errors.Is(err, schedsim.ErrInterrupted) {
			return exitInterrupted
		}
		var ue usageError
		var ie *schedsim.InputError
		if errors.As(err, &ue) || errors.As(err, &ie) {
			return exitUsage
		}
		return exitError
	}
	fmt.Fprintf(stderr, "schedsim: unknown command %q\n\n", args[0])
	printTopUsage(stderr)
	return exitUsage
}

// whole adapts a command that does not watch its context and writes no
// file a signal could cut: it runs to its end, and a signal meanwhile
// still exits with status 130.
func whole(run func(args []string, stdout, stderr io.Writer) error) func(context.Context, []string, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		err := run(args, stdout, stderr)
		if ctx.Err() != nil && !errors.Is(err, pflag.ErrHelp) {
			return schedsim.ErrInterrupted
		}
		return err
	}
}

// testHook, set by tests only, is called by ready.
var testHook func(ctx context.Context, stage string)

// ready marks a stage of a command (its start, a first record written, a
// first point done) where a test may interrupt it: a child process of the
// tests says it is there, and waits for the signal. It does nothing
// outside tests.
func ready(ctx context.Context, stage string) {
	if testHook != nil {
		testHook(ctx, stage)
	}
}

func printTopUsage(w io.Writer) {
	var list string
	for _, c := range commands {
		list += fmt.Sprintf("  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, topUsage, list)
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints usage (with the given text before the options) on --help.
func newFlagSet(name, usage string, stdout io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprint(stdout, usage)
		fmt.Fprintln(stdout, "\nOptions:")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args, which may hold no argument but options, and
// turns pflag's errors into usage errors.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (see schedsim %s --help)", fs.Arg(0), fs.Name())
	}
	return nil
}

// parseArgs parses args, options and arguments, and turns pflag's errors
// into usage errors; --help returns pflag.ErrHelp, the usage printed.
func parseArgs(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usagef("%v (see schedsim %s --help)", err, fs.Name())
	}
	return nil
}

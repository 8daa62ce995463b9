// Command schedsim replays HPC workload traces against simulated batch
// schedulers and reports what the schedule would have been.
//
// Run "schedsim help" for the commands and "schedsim COMMAND --help" for a
// command's options.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/schedsim/schedsim"
	"github.com/spf13/pflag"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the run failed for a reason outside the input (I/O)
	exitUsage = 2 // bad input or usage: the message says what to fix
)

// usageError marks an error the user can fix by changing the command or its
// input; it exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"run", "replay a trace under one scheduling policy and report the result", cmdRun},
	{"convert", "convert a trace between SWF and Parquet, losslessly", cmdConvert},
	{"generate", "generate a synthetic trace (Lublin-Feitelson model) as SWF or Parquet", cmdGenerate},
	{"compare", "compare several runs side by side: a table and overlaid plots", cmdCompare},
	{"sweep", "run a grid of parameters in parallel, resumable, or as a Slurm job array", cmdSweep},
	{"check", "compare a run with a baseline under tolerances; exit 1 on a regression", cmdCheck},
	{"verify", "check a run's jobs.csv against the simulator's invariants", cmdVerify},
	{"bench", "measure wall time, jobs/s and peak memory of end-to-end runs", cmdBench},
	{"version", "print the version of schedsim, its commit and its Go toolchain", cmdVersion},
}

const topUsage = `schedsim — a discrete-event simulator of HPC batch schedulers.

It replays workload traces (the Standard Workload Format of the Parallel
Workloads Archive, plain or gzip) against a simulated machine under FCFS or
EASY backfilling, and reports every job's start and the summary metrics.

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

// mainWith runs the command line args and returns the exit status.
func mainWith(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			return mainWith([]string{args[1], "--help"}, stdout, stderr)
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
		err := c.run(args[1:], stdout, stderr)
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

// parseFlags parses args and turns pflag's errors into usage errors.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usagef("%v (see schedsim %s --help)", err, fs.Name())
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (see schedsim %s --help)", fs.Arg(0), fs.Name())
	}
	return nil
}

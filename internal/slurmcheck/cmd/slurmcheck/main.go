// Command slurmcheck is the Go side of .ci/slurm-backfill-check.sh:
//
//	slurmcheck workload --seed N --jobs 40 --span 180 --cpus 32
//	    prints the seeded workload, "offset cpus limit_minutes sleep" a line
//	slurmcheck trace --t0 UNIX --cpus 32 --scontrol FILE --out real.swf
//	    turns `scontrol -o show job` (times in UTC) into an SWF trace
//	slurmcheck latency --log slurmctld.log --workload workload.txt [--flag]
//	    measures how long after its start plus its sleep a job's end reached
//	    slurmctld (the median over the jobs of the run's log), and prints it
//	    as a sentence or, with --flag, as the value of --bf-end-latency
//	slurmcheck compare [--gate] REFERENCE RUN
//	    compares two runs (an SWF with recorded waits, or a result directory
//	    of schedsim run --out) job by job; with --gate exits 1 when RUN
//	    misses issue 28's gate against REFERENCE
//
// Bad input exits 2 with the file, line and field.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim/internal/slurmcheck"
	"github.com/schedsim/schedsim/report"
)

var errGate = errors.New("gate failed")

func main() {
	err := run(os.Args[1:], os.Stdout)
	switch {
	case err == nil:
	case errors.Is(err, errGate):
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, "slurmcheck:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("want a command: workload, trace, latency or compare")
	}
	fs := pflag.NewFlagSet("slurmcheck "+args[0], pflag.ContinueOnError)
	switch args[0] {
	case "workload":
		seed := fs.Uint64("seed", 28, "the workload's seed")
		n := fs.Int("jobs", 40, "how many jobs")
		span := fs.Int64("span", 180, "submissions spread over this many seconds")
		cpus := fs.Int("cpus", 32, "the machine's CPUs (one per node)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *n < 1 || *cpus < 1 || *span < 1 {
			return fmt.Errorf("--jobs, --cpus and --span: want positive values")
		}
		return slurmcheck.WriteWorkload(stdout, slurmcheck.Workload(*seed, *n, *span, *cpus))
	case "trace":
		t0 := fs.Int64("t0", 0, "the Unix second the workload's offsets count from")
		cpus := fs.Int("cpus", 32, "the machine's CPUs (one per node)")
		in := fs.String("scontrol", "", "the output of scontrol -o show job, times in UTC")
		out := fs.String("out", "", "the SWF trace to write")
		note := fs.String("note", "", "a note for the trace's header")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *in == "" || *out == "" || *t0 <= 0 {
			return fmt.Errorf("trace needs --t0, --scontrol and --out")
		}
		f, err := os.Open(*in)
		if err != nil {
			return err
		}
		defer f.Close()
		recs, err := slurmcheck.ParseScontrol(f, *in, time.UTC)
		if err != nil {
			return err
		}
		return report.WriteFileAtomic(*out, func(w io.Writer) error {
			return slurmcheck.WriteSWF(w, recs, *t0, *cpus, *note)
		})
	case "latency":
		logPath := fs.String("log", "", "slurmctld's log of the run (DebugFlags=Backfill, millisecond timestamps)")
		wlPath := fs.String("workload", "", "the workload the run submitted (slurmcheck workload's output)")
		flag := fs.Bool("flag", false, "print only the value of schedsim's --bf-end-latency (e.g. 19000us)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *logPath == "" || *wlPath == "" || fs.NArg() != 0 {
			return fmt.Errorf("latency needs --log and --workload")
		}
		l, err := measure(*logPath, *wlPath)
		if err != nil {
			return err
		}
		if *flag {
			_, err = fmt.Fprintln(stdout, l.Flag())
		} else {
			_, err = fmt.Fprintln(stdout, l.String())
		}
		return err
	case "compare":
		gate := fs.Bool("gate", false, "exit 1 when RUN misses issue 28's gate against REFERENCE")
		refName := fs.String("ref-name", "real", "the reference's name in the table")
		name := fs.String("name", "schedsim", "the run's name in the table")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 2 {
			return fmt.Errorf("compare wants REFERENCE and RUN")
		}
		ref, err := slurmcheck.LoadSide(fs.Arg(0))
		if err != nil {
			return err
		}
		got, err := slurmcheck.LoadSide(fs.Arg(1))
		if err != nil {
			return err
		}
		c, err := slurmcheck.Compare(ref, got)
		if err != nil {
			return fmt.Errorf("%s vs %s: %v", fs.Arg(0), fs.Arg(1), err)
		}
		if err := c.WriteTable(stdout, *refName, *name); err != nil {
			return err
		}
		fails := slurmcheck.IssueGate.Check(c)
		if len(fails) == 0 {
			fmt.Fprintln(stdout, "gate (makespan ±5 %, mean wait ±20 %, 90 % of starts within 2 s): pass")
			return nil
		}
		for _, f := range fails {
			fmt.Fprintln(stdout, "gate: FAIL:", f)
		}
		if *gate {
			return errGate
		}
		return nil
	}
	return fmt.Errorf("unknown command %q: want workload, trace, latency or compare", args[0])
}

// measure reads a run's slurmctld log and workload and measures its end
// latency.
func measure(logPath, wlPath string) (slurmcheck.EndLatency, error) {
	wf, err := os.Open(wlPath)
	if err != nil {
		return slurmcheck.EndLatency{}, err
	}
	defer wf.Close()
	subs, err := slurmcheck.ReadWorkload(wf, wlPath)
	if err != nil {
		return slurmcheck.EndLatency{}, err
	}
	lf, err := os.Open(logPath)
	if err != nil {
		return slurmcheck.EndLatency{}, err
	}
	defer lf.Close()
	jobs, err := slurmcheck.ParseCtldLog(lf, logPath)
	if err != nil {
		return slurmcheck.EndLatency{}, err
	}
	sleeps := make([]int64, len(subs))
	for i, s := range subs {
		sleeps[i] = s.Sleep
	}
	l, err := slurmcheck.MeasureEndLatency(jobs, sleeps)
	if err != nil {
		return l, fmt.Errorf("%s against %s: %v", logPath, wlPath, err)
	}
	return l, nil
}

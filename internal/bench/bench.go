// Package bench measures schedsim end to end, as `schedsim bench` does: each
// case is a `schedsim run` child process, timed by wall clock, CPU time and
// peak resident memory, and the medians are printed as a table.
//
// The measurements are of the machine, not of the simulation: nothing here
// reaches a simulation's result.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/workload"
)

// Case is one command measured: schedsim run on Trace with Args.
type Case struct {
	// Name labels the case in the table.
	Name string
	// Trace is the trace file given to --trace.
	Trace string
	// Jobs is the number of jobs the trace holds, for the jobs/s column.
	Jobs int64
	// Args are the run options after --trace and --out.
	Args []string
}

// Result holds the measurements of every run of a case.
type Result struct {
	// Wall and CPU (user + system, all threads) are one per run.
	Wall, CPU []time.Duration
	// MaxRSS is the peak resident set size of each run in KiB, where
	// the platform reports it.
	MaxRSS []int64
}

// Runner runs the cases as child processes of Binary.
type Runner struct {
	// Binary is the schedsim executable.
	Binary string
	// Env is added to the children's environment.
	Env []string
}

// Run runs c once with its outputs in out (which must not exist yet),
// adding extra options, and appends the measurements to r.
func (br Runner) Run(c Case, out string, extra []string, r *Result) error {
	argv := append([]string{"run", "--trace", c.Trace, "--out", out, "-q"}, c.Args...)
	argv = append(argv, extra...)
	cmd := exec.Command(br.Binary, argv...)
	cmd.Env = append(os.Environ(), br.Env...)
	var errb strings.Builder
	cmd.Stderr = &errb
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: schedsim %s: %v\n%s", c.Name, strings.Join(argv, " "), err, errb.String())
	}
	r.Wall = append(r.Wall, time.Since(t0))
	r.CPU = append(r.CPU, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	if kib, ok := peakRSS(cmd.ProcessState); ok {
		r.MaxRSS = append(r.MaxRSS, kib)
	}
	return nil
}

// PrintTable writes the medians of results (one per case) as a table;
// footer is its last line.
func PrintTable(w io.Writer, cases []Case, results []Result, footer string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tpolicy\tjobs\twall median\tmin\tmax\tjobs/s\tCPU median\tpeak RSS\t")
	for ci, c := range cases {
		res := results[ci]
		if len(res.Wall) == 0 {
			continue
		}
		wall, cpu := slices.Sorted(slices.Values(res.Wall)), slices.Sorted(slices.Values(res.CPU))
		med := wall[len(wall)/2]
		rss := "-"
		if len(res.MaxRSS) > 0 {
			rss = fmt.Sprintf("%.0f MiB", float64(slices.Max(res.MaxRSS))/1024)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f s\t%.3f s\t%.3f s\t%s\t%.3f s\t%s\t\n", c.Name, strings.Join(c.Args, " "), c.Jobs,
			med.Seconds(), wall[0].Seconds(), wall[len(wall)-1].Seconds(),
			HumanCount(int64(float64(c.Jobs)/med.Seconds())), cpu[len(cpu)/2].Seconds(), rss)
	}
	fmt.Fprintf(tw, "%s\t\t\t\t\t\t\t\t\t\n", footer)
	return tw.Flush()
}

// GenerateTrace writes a Lublin–Feitelson trace of jobs jobs on procs
// processors at the offered load, with seed, to path (SWF; gzipped when
// the name ends in .gz), atomically.
func GenerateTrace(path string, jobs, procs int, load float64, seed int64) error {
	cfg := workload.GenConfig{Jobs: jobs, Procs: procs, Seed: seed, Load: load}
	format, err := schedsim.TraceFormat(path)
	if err != nil {
		return err
	}
	w, err := schedsim.CreateTrace(path, format, cfg.Header())
	if err != nil {
		return err
	}
	defer w.Abort()
	if err := workload.Generate(cfg, w.Write); err != nil {
		return err
	}
	return w.Commit(context.Background())
}

// CountJobs counts the jobs a trace holds after the default cleaning.
func CountJobs(path string) (int64, error) {
	r, err := workload.OpenSWF(path, workload.Rules{})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var j workload.Job
	for {
		if err := r.Next(&j); err == io.EOF {
			return r.Stats().Kept, nil
		} else if err != nil {
			return 0, err
		}
	}
}

// HumanCount formats n with a k or M suffix.
func HumanCount(n int64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return strconv.FormatInt(n, 10)
}

// Generated writes, in dir, one Lublin–Feitelson trace of jobs jobs on
// procs processors for each offered load, with seed, saying each on
// progress, and returns their cases: EASY with lookahead 1000 below a load
// of 1, and lookahead all above it, where the queue grows to thousands of
// jobs.
func Generated(dir string, jobs, procs int, loads []float64, seed int64, progress io.Writer) ([]Case, error) {
	var cases []Case
	for _, load := range loads {
		path := filepath.Join(dir, fmt.Sprintf("lublin-%d-load%.2f-seed%d.swf", jobs, load, seed))
		fmt.Fprintf(progress, "generating %s ...\n", filepath.Base(path))
		if err := GenerateTrace(path, jobs, procs, load, seed); err != nil {
			return nil, err
		}
		la := "1000"
		if load > 1 {
			la = "all"
		}
		cases = append(cases, Case{
			Name:  fmt.Sprintf("lublin %s jobs, load %.2f", HumanCount(int64(jobs)), load),
			Trace: path, Jobs: int64(jobs),
			Args: []string{"--backfill", "easy", "--lookahead", la},
		})
	}
	return cases, nil
}

// TraceCase returns the case of a user's trace file run with args, named
// by its base name; counting its jobs reads it whole, so a trace that
// cannot be read is refused here, before anything is timed.
func TraceCase(path string, args []string) (Case, error) {
	n, err := CountJobs(path)
	if err != nil {
		return Case{}, err
	}
	return Case{Name: filepath.Base(path), Trace: path, Jobs: n, Args: args}, nil
}

// Measure runs every case repeat times, each run writing a fresh
// directory in dir (replacing the previous run's files would time the file
// system freeing them), with the options extra(case, run) adds, and
// returns the measurements, one Result per case.
func (br Runner) Measure(cases []Case, repeat int, dir string, extra func(ci, r int) []string) ([]Result, error) {
	results := make([]Result, len(cases))
	for ci, c := range cases {
		out := filepath.Join(dir, fmt.Sprintf("out-%d", ci))
		for r := 0; r < repeat; r++ {
			if err := os.RemoveAll(out); err != nil {
				return nil, err
			}
			if err := br.Run(c, out, extra(ci, r), &results[ci]); err != nil {
				return nil, err
			}
		}
	}
	return results, nil
}

// ParseLoads parses the offered loads of --loads: positive numbers,
// comma-separated, blanks skipped ("" gives none).
func ParseLoads(text string) ([]float64, error) {
	var ls []float64
	for _, l := range strings.Split(text, ",") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		load, err := strconv.ParseFloat(strings.TrimSpace(l), 64)
		if err != nil || load <= 0 {
			return nil, fmt.Errorf("--loads: %q is not a positive number", l)
		}
		ls = append(ls, load)
	}
	return ls, nil
}

// WorkDir returns the directory the generated traces and the outputs go
// to: keep, created if needed, or else a new temporary one, which cleanup
// removes.
func WorkDir(keep string) (dir string, cleanup func(), err error) {
	if keep != "" {
		return keep, func() {}, os.MkdirAll(keep, 0o755)
	}
	d, err := os.MkdirTemp("", "schedsim-bench-")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}

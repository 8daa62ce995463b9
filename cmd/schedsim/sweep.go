package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/report"
)

const sweepUsage = `Usage: schedsim sweep --param NAME=V1,V2,... [--param ...] [run options] --out DIR
       schedsim sweep --file SWEEP [run options] --out DIR
       schedsim sweep ... --emit-slurm DIR       (then: sbatch DIR/sweep.sbatch)
       schedsim sweep --manifest DIR/manifest.json --task K
       schedsim sweep --merge DIR

Runs schedsim run over a grid of parameters and writes one results table and
one plot per metric. Each --param names an option of schedsim run (without
its dashes) and the values it takes, separated by commas, or by "|" when a
value itself holds commas (--param 'status=1|0,1,5'). The grid is every
combination; the first parameter varies slowest. Options given outside
--param apply to every point.

A sweep file (--file) holds one parameter per line, "NAME = V1, V2, ...",
with the same separators; blank lines and lines starting with # are
skipped. Relative paths are relative to the working directory, as on the
command line.

Points are simulated in parallel, --jobs at a time. Each finished point is
kept in DIR/points/KEY.json (KEY: a hash of the point's options), written
atomically: an interrupted sweep (Ctrl-C, a kill, a crash) loses at most
the points that were running, and the same command run again computes only
the points that are missing. Points are keyed by their options, not by the
traces' content or schedsim's version: after changing either, use a new
DIR. The results do not depend on --jobs or on what was resumed.

Output, in DIR:
  sweep.csv, sweep.parquet  one row per point in grid order: point, key,
                            every parameter (swept ones first, then the
                            options given outside --param), trace_name,
                            policy_name, machine_procs, every summary metric
                            (wait_mean, bounded_slowdown_mean, utilisation,
                            ...), the cleaning counts (cleaning_*)
  sweep_METRIC.svg/.png     each --plot-metrics against the --x parameter,
                            one line per value of the other swept parameters

On a Slurm cluster: --emit-slurm DIR writes DIR/manifest.json (the points,
and which array task runs which) and DIR/sweep.sbatch, a job array of one
task per --chunk points, at most --array-limit running at once. Each task
runs "schedsim sweep --manifest DIR/manifest.json --task K" and writes
DIR/parts/part-K.json; "schedsim sweep --merge DIR" joins the parts into
DIR/sweep.csv, DIR/sweep.parquet and the plots, or lists the missing tasks
(and the sbatch command that reruns them) and exits with status 1. DIR must
be on a file system the compute nodes share.

Examples:
  schedsim sweep --trace LANL-CM5-1994-4.1-cln.swf.gz \
      --param lookahead=1,10,100,1000,all --out sweep-la
  schedsim sweep --param lookahead=1,10,100,1000,all \
      --param trace=a.swf.gz,b.swf.gz --param backfill=easy,conservative --out sw
  schedsim sweep --file grid.txt --emit-slurm /shared/sw --chunk 4 --array-limit 20
  sbatch /shared/sw/sweep.sbatch && schedsim sweep --merge /shared/sw

Exit status: 0 when every point is done; 2 on bad usage or input; 1 when
an output cannot be written, the sweep was interrupted or parts are missing.
`

// Versions of the files a sweep writes; a file of another version is not
// read.
const (
	sweepPointFormat    = "schedsim-sweep-point/1"
	sweepPartFormat     = "schedsim-sweep-part/1"
	sweepManifestFormat = "schedsim-sweep-manifest/1"
)

// sweepParam is one swept parameter: a schedsim run option and its values.
type sweepParam struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// sweepOption is an option given outside --param: it applies to every point.
type sweepOption struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// sweepSpec defines a sweep: the grid and what to plot.
type sweepSpec struct {
	Params []sweepParam   `json:"params"`
	Fixed  []sweepOption  `json:"fixed"` // sorted by name, none of them swept
	X      string         `json:"x"`
	Plots  []string       `json:"plots"`
	points []*sweepPoint  // the grid, in order
	table  []string       // the table's parameter columns
	runOpt *pflag.FlagSet // a probe that knows schedsim run's options
}

// sweepPoint is one point of the grid.
type sweepPoint struct {
	index  int
	key    string
	values []string // one per column of sweepSpec.table
	args   []string // the run options, canonical: --name=value sorted by name
	label  string   // the swept parameters, for messages
}

// runOptionProbe returns a flag set that knows schedsim run's options.
func runOptionProbe() *pflag.FlagSet {
	probe := pflag.NewFlagSet("probe", pflag.ContinueOnError)
	probe.SetOutput(io.Discard)
	sc := schedsim.Default()
	registerScenario(probe, &sc)
	return probe
}

// parseParam parses "NAME=V1,V2,..." (or "NAME = V1|V2" with sep "=").
func parseParam(text string) (sweepParam, error) {
	name, list, ok := strings.Cut(text, "=")
	name = strings.TrimPrefix(strings.TrimSpace(name), "--")
	if !ok || name == "" {
		return sweepParam{}, fmt.Errorf("%q: want NAME=V1,V2,... (NAME an option of schedsim run)", text)
	}
	sep := ","
	if strings.Contains(list, "|") {
		sep = "|"
	}
	p := sweepParam{Name: name}
	for _, v := range strings.Split(list, sep) {
		v = strings.TrimSpace(v)
		if v == "" {
			return sweepParam{}, fmt.Errorf("%q: empty value", text)
		}
		if slices.Contains(p.Values, v) {
			return sweepParam{}, fmt.Errorf("%q: value %q given twice", text, v)
		}
		p.Values = append(p.Values, v)
	}
	return p, nil
}

// readSweepFile reads a sweep file: one "NAME = V1, V2, ..." per line.
func readSweepFile(path string) ([]sweepParam, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer f.Close()
	var params []sweepParam
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		p, err := parseParam(text)
		if err != nil {
			return nil, usagef("%s:%d: %v", path, line, err)
		}
		params = append(params, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return params, nil
}

// newSweepSpec checks the parameters and options and lays out the grid.
func newSweepSpec(params []sweepParam, fixed []sweepOption, x string, plots []string) (*sweepSpec, error) {
	s := &sweepSpec{Params: params, X: x, Plots: plots, runOpt: runOptionProbe()}
	if len(params) == 0 {
		return nil, usagef("nothing to sweep: give --param NAME=V1,V2,... or --file (see schedsim sweep --help)")
	}
	swept := map[string]bool{}
	for _, p := range params {
		if s.runOpt.Lookup(p.Name) == nil {
			return nil, usagef("--param %s: schedsim run has no option --%s (see schedsim run --help)", p.Name, p.Name)
		}
		if swept[p.Name] {
			return nil, usagef("--param %s: given twice", p.Name)
		}
		if len(p.Values) == 0 {
			return nil, usagef("--param %s: no values", p.Name)
		}
		swept[p.Name] = true
		s.table = append(s.table, p.Name)
	}
	for _, o := range fixed {
		if !swept[o.Name] {
			s.Fixed = append(s.Fixed, o)
		}
	}
	sort.Slice(s.Fixed, func(i, j int) bool { return s.Fixed[i].Name < s.Fixed[j].Name })
	for _, o := range s.Fixed {
		s.table = append(s.table, o.Name)
	}
	if s.X == "" {
		s.X = defaultSweepX(params)
	} else if !swept[s.X] {
		return nil, usagef("--x %s: not a swept parameter", s.X)
	}
	if len(s.Plots) == 0 {
		s.Plots = report.DefaultSweepPlots
	}
	for _, m := range s.Plots {
		if _, ok := report.LookupSweepMetric(m); !ok {
			var names []string
			for _, sm := range report.SweepMetrics {
				names = append(names, sm.Name)
			}
			return nil, usagef("--plot-metrics: unknown metric %q (want one of %s)", m, strings.Join(names, ", "))
		}
	}
	// The grid: the first parameter varies slowest.
	n := 1
	for _, p := range params {
		n *= len(p.Values)
		if n > 1_000_000 {
			return nil, usagef("the grid has more than a million points")
		}
	}
	idx := make([]int, len(params))
	for i := 0; i < n; i++ {
		pt := &sweepPoint{index: i}
		opts := map[string]string{}
		for _, o := range s.Fixed {
			opts[o.Name] = o.Value
		}
		var label []string
		for k, p := range params {
			v := p.Values[idx[k]]
			opts[p.Name] = v
			pt.values = append(pt.values, v)
			label = append(label, p.Name+"="+report.SweepValueLabel(p.Name, v))
		}
		for _, o := range s.Fixed {
			pt.values = append(pt.values, o.Value)
		}
		names := make([]string, 0, len(opts))
		for name := range opts {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			pt.args = append(pt.args, "--"+name+"="+opts[name])
		}
		pt.key = pointKey(pt.args)
		pt.label = strings.Join(label, " ")
		s.points = append(s.points, pt)
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < len(params[k].Values) {
				break
			}
			idx[k] = 0
		}
	}
	return s, nil
}

// defaultSweepX picks the parameter plotted along x: the first swept one
// with several values other than the trace, else the first with several
// values, else the first.
func defaultSweepX(params []sweepParam) string {
	for _, p := range params {
		if len(p.Values) > 1 && p.Name != "trace" {
			return p.Name
		}
	}
	for _, p := range params {
		if len(p.Values) > 1 {
			return p.Name
		}
	}
	return params[0].Name
}

// pointKey is the hash that names a point's result file: the first 16 hex
// digits of the SHA-256 of the point format and its canonical options.
func pointKey(args []string) string {
	h := sha256.New()
	io.WriteString(h, sweepPointFormat+"\n")
	for _, a := range args {
		io.WriteString(h, a+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// options parses a point's run options; a relative trace is taken relative
// to workdir when workdir is not empty.
func (pt *sweepPoint) options(workdir string) (*schedsim.Scenario, error) {
	o := schedsim.Default()
	fs := pflag.NewFlagSet("sweep point", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	registerScenario(fs, &o)
	if err := fs.Parse(pt.args); err != nil {
		return nil, usagef("point %s: %v", pt.label, err)
	}
	if workdir != "" && o.Trace != "" && !filepath.IsAbs(o.Trace) {
		o.Trace = filepath.Join(workdir, o.Trace)
	}
	return &o, nil
}

// validate checks every point's options before any is run, so that bad
// input stops the sweep at once: the policy, rules and estimates must parse
// and the traces must exist.
func (s *sweepSpec) validate(workdir string) error {
	seen := map[string]bool{}
	for _, pt := range s.points {
		o, err := pt.options(workdir)
		if err != nil {
			return err
		}
		trace := o.Trace
		o.Trace = ""
		if err := o.Check(); err != nil {
			return usagef("point %s: %v", pt.label, err)
		}
		if trace != "" && !seen[trace] {
			seen[trace] = true
			if _, err := os.Stat(trace); err != nil {
				return usagef("point %s: %v", pt.label, err)
			}
		}
	}
	return nil
}

// pointFile is a point's result as kept in DIR/points/KEY.json and in the
// parts of a Slurm sweep.
type pointFile struct {
	Format  string   `json:"format"`
	Key     string   `json:"key"`
	Options []string `json:"options"`
	// Inputs is the point's scenario hash (schedsim.Scenario.Hash): its
	// options and the content of every file they name. A kept point
	// whose inputs changed is run again.
	Inputs  string         `json:"inputs"`
	Summary report.Summary `json:"summary"`
}

// partFile is what one array task of a Slurm sweep writes.
type partFile struct {
	Format string      `json:"format"`
	Task   int         `json:"task"`
	Points []pointFile `json:"points"`
}

// sweepRunner runs points, keeping each result in its own file.
type sweepRunner struct {
	pointsDir string // DIR/points
	workdir   string // where relative traces are; "" for the working directory
	jobs      int
	// done, when set, is called (from one goroutine at a time) as each point
	// is found done or finishes.
	done func(pt *sweepPoint, reused bool, took time.Duration)
}

// sweepStats counts what a run of points did.
type sweepStats struct {
	computed, reused int
}

// loadPoint reads a kept point result; ok is false when there is none, or
// when it is unreadable or of other options (the point is then run again).
func loadPoint(path string, pt *sweepPoint, workdir string) (report.Summary, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return report.Summary{}, false
	}
	var f pointFile
	if err := json.Unmarshal(b, &f); err != nil || f.Format != sweepPointFormat || f.Key != pt.key || !slices.Equal(f.Options, pt.args) {
		return report.Summary{}, false
	}
	if h, err := pointInputs(pt, workdir); err != nil || h != f.Inputs {
		return report.Summary{}, false
	}
	return f.Summary, true
}

// pointInputs returns the scenario hash of a point: its options and the
// content of every file they name.
func pointInputs(pt *sweepPoint, workdir string) (string, error) {
	sc, err := pt.options(workdir)
	if err != nil {
		return "", err
	}
	return sc.Hash()
}

// run returns the summaries of pts, in their order: each point kept from an
// earlier run is read, the others are simulated, r.jobs at a time, and kept
// as they finish. When ctx is cancelled no new point starts; the running
// ones finish and are kept, and run returns ctx's error. Otherwise the
// first error in the points' order is returned.
func (r *sweepRunner) run(ctx context.Context, pts []*sweepPoint) ([]report.Summary, sweepStats, error) {
	var st sweepStats
	if err := os.MkdirAll(r.pointsDir, 0o755); err != nil {
		return nil, st, err
	}
	sums := make([]report.Summary, len(pts))
	var todo []int
	for i, pt := range pts {
		if s, ok := loadPoint(filepath.Join(r.pointsDir, pt.key+".json"), pt, r.workdir); ok {
			sums[i] = s
			st.reused++
			if r.done != nil {
				r.done(pt, true, 0)
			}
			continue
		}
		todo = append(todo, i)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(pts))
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < min(r.jobs, len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					continue // cancelled while this point was handed over
				}
				start := time.Now()
				s, err := r.compute(pts[i])
				if err != nil {
					errs[i] = fmt.Errorf("point %s: %w", pts[i].label, err)
					cancel()
					continue
				}
				sums[i] = s
				mu.Lock()
				st.computed++
				if r.done != nil {
					r.done(pts[i], false, time.Since(start))
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, i := range todo {
		select {
		case <-ctx.Done():
			break feed
		case next <- i:
		}
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			var ue usageError
			if errors.As(err, &ue) {
				return nil, st, usageError{err}
			}
			return nil, st, err
		}
	}
	if st.computed+st.reused < len(pts) {
		return nil, st, context.Cause(ctx)
	}
	return sums, st, nil
}

// compute simulates one point and keeps its result.
func (r *sweepRunner) compute(pt *sweepPoint) (report.Summary, error) {
	path := filepath.Join(r.pointsDir, pt.key+".json")
	// Temporary files a killed run of this point left behind.
	if old, _ := filepath.Glob(filepath.Join(r.pointsDir, "."+pt.key+".json.tmp-*")); len(old) > 0 {
		for _, f := range old {
			os.Remove(f)
		}
	}
	o, err := pt.options(r.workdir)
	if err != nil {
		return report.Summary{}, err
	}
	inputs, err := o.Hash()
	if err != nil {
		return report.Summary{}, err
	}
	res, err := schedsim.Run(context.Background(), o, schedsim.Options{})
	if err != nil {
		return report.Summary{}, err
	}
	f := pointFile{Format: sweepPointFormat, Key: pt.key, Options: pt.args, Inputs: inputs, Summary: res.Summary}
	if err := writeJSONAtomic(path, &f); err != nil {
		return report.Summary{}, err
	}
	return res.Summary, nil
}

// writeJSONAtomic writes v as indented JSON to path, atomically.
func writeJSONAtomic(path string, v any) error {
	return report.WriteFileAtomic(path, func(w io.Writer) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
}

// tableOf returns the results table of the spec's points, given their
// summaries in the same order.
func (s *sweepSpec) tableOf(sums []report.Summary) *report.SweepTable {
	t := &report.SweepTable{Params: s.table, Points: make([]report.SweepPoint, len(s.points))}
	for i, pt := range s.points {
		t.Points[i] = report.SweepPoint{Key: pt.key, Values: pt.values, Summary: sums[i]}
	}
	return t
}

// writeSweepOutputs writes DIR/sweep.csv, DIR/sweep.parquet and, with plots,
// the figures.
func writeSweepOutputs(dir string, s *sweepSpec, t *report.SweepTable, plots bool, stderr io.Writer) error {
	if err := report.WriteFileAtomic(filepath.Join(dir, "sweep.csv"), func(w io.Writer) error { return report.WriteSweepCSV(w, t) }); err != nil {
		return err
	}
	if err := report.WriteFileAtomic(filepath.Join(dir, "sweep.parquet"), func(w io.Writer) error { return report.WriteSweepParquet(w, t) }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s and %s\n", filepath.Join(dir, "sweep.csv"), filepath.Join(dir, "sweep.parquet"))
	if !plots {
		return nil
	}
	figs, err := report.SweepFigures(t, s.X, s.Plots)
	if err != nil {
		return err
	}
	if _, err := report.WriteFigures(dir, figs); err != nil {
		return err
	}
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	fmt.Fprintf(stderr, "wrote the plots %s (.svg, .png) in %s\n", strings.Join(names, ", "), dir)
	return nil
}

// writeSweepSummary prints a short table of the points: the swept
// parameters and the main metrics.
func writeSweepSummary(w io.Writer, s *sweepSpec, t *report.SweepTable) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"point"}
	for _, p := range s.Params {
		head = append(head, p.Name)
	}
	head = append(head, "wait mean (s)", "bounded slowdown", "utilisation (%)")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for i, p := range t.Points {
		row := []string{strconv.Itoa(i)}
		for k, sp := range s.Params {
			row = append(row, report.SweepValueLabel(sp.Name, p.Values[k]))
		}
		row = append(row, fmt.Sprintf("%.1f", p.Summary.Wait.Mean), fmt.Sprintf("%.3f", p.Summary.MeanBoundedSlowdown), fmt.Sprintf("%.2f", 100*p.Summary.Utilisation))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// sweepFlags are the options of schedsim sweep beyond those of run.
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

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return sweepMain(ctx, args, stdout, stderr, nil)
}

// sweepMain is schedsim sweep with a context (cancelled on Ctrl-C) and, for
// tests, a hook called as each point is done.
func sweepMain(ctx context.Context, args []string, stdout, stderr io.Writer, hook func(*sweepPoint, bool, time.Duration)) error {
	base := schedsim.Default()
	var f sweepFlags
	fs := newFlagSet("sweep", sweepUsage, stdout)
	registerScenario(fs, &base)
	fs.StringArrayVar(&f.params, "param", nil, "a swept option of schedsim run and its values: NAME=V1,V2,... (repeat for each parameter)")
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
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if _, _, err := newProgress(f.progress, io.Discard); err != nil {
		return err
	}
	if f.jobs < 1 {
		return usagef("--jobs %d: want at least 1", f.jobs)
	}
	show := progressShown(f.progress, stderr)
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
	var fixed []sweepOption
	probe := runOptionProbe()
	fs.Visit(func(fl *pflag.Flag) {
		if probe.Lookup(fl.Name) != nil {
			fixed = append(fixed, sweepOption{Name: fl.Name, Value: fl.Value.String()})
		}
	})
	if f.manifest != "" || f.merge != "" {
		if len(fixed) > 0 || len(f.params) > 0 || f.file != "" || f.out != "" {
			return usagef("--manifest and --merge take the sweep from the manifest: give no --param, --file, --out or run options")
		}
		if f.merge != "" {
			return sweepMerge(f.merge, f, stdout, stderr)
		}
		return sweepTask(ctx, f, show, stdout, stderr, hook)
	}

	params := make([]sweepParam, 0, len(f.params))
	if f.file != "" {
		fp, err := readSweepFile(f.file)
		if err != nil {
			return err
		}
		params = append(params, fp...)
	}
	for _, text := range f.params {
		p, err := parseParam(text)
		if err != nil {
			return usagef("--param %v", err)
		}
		params = append(params, p)
	}
	var plots []string
	for _, m := range strings.Split(f.plotStr, ",") {
		if m = strings.TrimSpace(m); m != "" {
			plots = append(plots, m)
		}
	}
	spec, err := newSweepSpec(params, fixed, f.x, plots)
	if err != nil {
		return err
	}
	if err := spec.validate(""); err != nil {
		return err
	}
	if f.emit != "" {
		return emitSlurm(spec, f, stdout, stderr)
	}
	if f.out == "" {
		return usagef("--out DIR is required: it keeps each finished point, so that an interrupted sweep can resume")
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	r := &sweepRunner{pointsDir: filepath.Join(f.out, "points"), jobs: f.jobs}
	return runSweep(ctx, spec, r, spec.points, show, hook, stdout, stderr, func(sums []report.Summary) error {
		t := spec.tableOf(sums)
		if err := writeSweepOutputs(f.out, spec, t, f.plots, stderr); err != nil {
			return err
		}
		if f.quiet {
			return nil
		}
		return writeSweepSummary(stdout, spec, t)
	})
}

// runSweep runs pts with r, reporting progress, and hands the summaries to
// finish.
func runSweep(ctx context.Context, spec *sweepSpec, r *sweepRunner, pts []*sweepPoint, show bool, hook func(*sweepPoint, bool, time.Duration), stdout, stderr io.Writer, finish func([]report.Summary) error) error {
	start := time.Now()
	n := 0
	r.done = func(pt *sweepPoint, reused bool, took time.Duration) {
		n++
		if show && !reused {
			fmt.Fprintf(stderr, "[%d/%d] %s: done in %.1f s\n", n, len(pts), pt.label, took.Seconds())
		}
		if hook != nil {
			hook(pt, reused, took)
		}
	}
	sums, st, err := r.run(ctx, pts)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return fmt.Errorf("interrupted: %d of %d points are done and kept in %s; run the same command again to finish the rest", st.computed+st.reused, len(pts), r.pointsDir)
		}
		return err
	}
	fmt.Fprintf(stderr, "sweep: %d points: %d simulated, %d already done (kept in %s), in %.1f s\n",
		len(pts), st.computed, st.reused, r.pointsDir, time.Since(start).Seconds())
	return finish(sums)
}

// sweepManifest is DIR/manifest.json of a Slurm sweep.
type sweepManifest struct {
	Format string `json:"format"`
	// Workdir is the directory the sweep was emitted from: relative traces
	// are relative to it.
	Workdir string    `json:"workdir"`
	Sweep   sweepSpec `json:"sweep"`
	// PointsPerTask is the chunk size: task K runs points K·PointsPerTask
	// up to the next chunk.
	PointsPerTask int `json:"points_per_task"`
	Tasks         int `json:"tasks"`
	// Points lists each point's key and task, in grid order.
	Points []manifestPoint `json:"points"`
}

// manifestPoint is one point in the manifest.
type manifestPoint struct {
	Key    string   `json:"key"`
	Task   int      `json:"task"`
	Values []string `json:"values"`
}

// taskPoints returns the indexes of task k's points.
func (m *sweepManifest) taskPoints(k int) (from, to int) {
	from = k * m.PointsPerTask
	return from, min(from+m.PointsPerTask, len(m.Points))
}

// readManifest reads DIR/manifest.json and rebuilds its sweep, checking that
// the points are those it lists (a manifest of another schedsim version, or
// edited by hand, is refused).
func readManifest(path string) (*sweepManifest, *sweepSpec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, usageError{err}
	}
	var m sweepManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, usagef("%s: not a sweep manifest: %v", path, err)
	}
	if m.Format != sweepManifestFormat {
		return nil, nil, usagef("%s: format %q, want %q", path, m.Format, sweepManifestFormat)
	}
	spec, err := newSweepSpec(m.Sweep.Params, m.Sweep.Fixed, m.Sweep.X, m.Sweep.Plots)
	if err != nil {
		return nil, nil, usagef("%s: %v", path, err)
	}
	if m.PointsPerTask < 1 || len(spec.points) != len(m.Points) || m.Tasks != (len(m.Points)+m.PointsPerTask-1)/m.PointsPerTask {
		return nil, nil, usagef("%s: inconsistent: %d points in the grid, %d listed, %d tasks of %d", path, len(spec.points), len(m.Points), m.Tasks, m.PointsPerTask)
	}
	for i, pt := range spec.points {
		if m.Points[i].Key != pt.key {
			return nil, nil, usagef("%s: point %d has key %s, this schedsim computes %s: use the schedsim that emitted it", path, i, m.Points[i].Key, pt.key)
		}
	}
	return &m, spec, nil
}

// emitSlurm writes DIR/manifest.json and DIR/sweep.sbatch.
func emitSlurm(spec *sweepSpec, f sweepFlags, stdout, stderr io.Writer) error {
	if f.chunk < 1 || f.limit < 1 || f.cpus < 1 {
		return usagef("--chunk, --array-limit and --cpus-per-task must be at least 1")
	}
	dir, err := filepath.Abs(f.emit)
	if err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	for _, p := range []string{dir, wd} {
		if strings.ContainsAny(p, " \t\n%'\"\\$`") {
			return usagef("%q: an #SBATCH line cannot hold this path (spaces, quotes, %% or $): choose another directory", p)
		}
	}
	bin := f.binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return err
		}
	}
	m := sweepManifest{Format: sweepManifestFormat, Workdir: wd, Sweep: *spec, PointsPerTask: f.chunk}
	m.Tasks = (len(spec.points) + f.chunk - 1) / f.chunk
	for i, pt := range spec.points {
		m.Points = append(m.Points, manifestPoint{Key: pt.key, Task: i / f.chunk, Values: pt.values})
	}
	for _, sub := range []string{"logs", "parts", "points"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	manifest := filepath.Join(dir, "manifest.json")
	if err := writeJSONAtomic(manifest, &m); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# A Slurm job array written by schedsim sweep --emit-slurm: %d points in %d tasks\n", len(spec.points), m.Tasks)
	fmt.Fprintf(&b, "# of at most %d points, %d running at once. Submit it with\n", f.chunk, f.limit)
	fmt.Fprintf(&b, "#   sbatch %s\n", filepath.Join(dir, "sweep.sbatch"))
	fmt.Fprintf(&b, "# and, once every task is over, join the parts with\n")
	fmt.Fprintf(&b, "#   schedsim sweep --merge %s\n", dir)
	fmt.Fprintf(&b, "#SBATCH --job-name=schedsim-sweep\n")
	fmt.Fprintf(&b, "#SBATCH --array=0-%d%%%d\n", m.Tasks-1, f.limit)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", f.cpus)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(dir, "logs", "task-%a.out"))
	fmt.Fprintf(&b, "#SBATCH --chdir=%s\n", wd)
	for _, o := range f.sbatchOpts {
		if strings.ContainsAny(o, "\n") || !strings.HasPrefix(o, "-") {
			return usagef("--sbatch-option %q: want an sbatch option, e.g. --partition=batch", o)
		}
		fmt.Fprintf(&b, "#SBATCH %s\n", o)
	}
	fmt.Fprintf(&b, "set -eu\n")
	fmt.Fprintf(&b, "echo \"schedsim sweep: array job ${SLURM_ARRAY_JOB_ID} task ${SLURM_ARRAY_TASK_ID} (job ${SLURM_JOB_ID}) on $(hostname) at $(date -u +%%FT%%TZ)\"\n")
	fmt.Fprintf(&b, "exec %s sweep --manifest %s --task \"${SLURM_ARRAY_TASK_ID}\" --jobs \"${SLURM_CPUS_PER_TASK:-1}\"\n", shellQuote(bin), shellQuote(manifest))
	script := filepath.Join(dir, "sweep.sbatch")
	if err := report.WriteFileAtomic(script, func(w io.Writer) error { _, err := io.WriteString(w, b.String()); return err }); err != nil {
		return err
	}
	if err := os.Chmod(script, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d points) and %s (%d array tasks, at most %d at once)\n", manifest, len(spec.points), script, m.Tasks, f.limit)
	fmt.Fprintf(stdout, "submit: sbatch %s\nthen:   schedsim sweep --merge %s\n", script, dir)
	return nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sweepTask runs the points of one array task of a manifest (or, without
// --task, all of them) and writes the task's part.
func sweepTask(ctx context.Context, f sweepFlags, show bool, stdout, stderr io.Writer, hook func(*sweepPoint, bool, time.Duration)) error {
	m, spec, err := readManifest(f.manifest)
	if err != nil {
		return err
	}
	dir := filepath.Dir(f.manifest)
	r := &sweepRunner{pointsDir: filepath.Join(dir, "points"), workdir: m.Workdir, jobs: f.jobs}
	if f.task < 0 {
		if err := spec.validate(m.Workdir); err != nil {
			return err
		}
		return runSweep(ctx, spec, r, spec.points, show, hook, stdout, stderr, func(sums []report.Summary) error {
			return writeSweepOutputs(dir, spec, spec.tableOf(sums), f.plots, stderr)
		})
	}
	if f.task >= m.Tasks {
		return usagef("--task %d: the manifest has tasks 0 to %d", f.task, m.Tasks-1)
	}
	from, to := m.taskPoints(f.task)
	pts := spec.points[from:to]
	sub := &sweepSpec{points: pts}
	if err := sub.validate(m.Workdir); err != nil {
		return err
	}
	return runSweep(ctx, spec, r, pts, show, hook, stdout, stderr, func(sums []report.Summary) error {
		part := partFile{Format: sweepPartFormat, Task: f.task}
		for i, pt := range pts {
			part.Points = append(part.Points, pointFile{Format: sweepPointFormat, Key: pt.key, Options: pt.args, Summary: sums[i]})
			fmt.Fprintf(stdout, "point %d %s: wait mean %.1f s, bounded slowdown %.3f, utilisation %.2f %%\n",
				pt.index, pt.label, sums[i].Wait.Mean, sums[i].MeanBoundedSlowdown, 100*sums[i].Utilisation)
		}
		path := partPath(dir, f.task)
		if err := writeJSONAtomic(path, &part); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "task %d: wrote %s (points %d to %d)\n", f.task, path, from, to-1)
		return nil
	})
}

// partPath is where array task k writes its part.
func partPath(dir string, k int) string {
	return filepath.Join(dir, "parts", fmt.Sprintf("part-%d.json", k))
}

// errMissingParts is returned by a merge that lacks parts.
var errMissingParts = errors.New("parts are missing")

// sweepMerge joins the parts of a Slurm sweep into its results table.
func sweepMerge(dir string, f sweepFlags, stdout, stderr io.Writer) error {
	m, spec, err := readManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return err
	}
	sums := make([]report.Summary, len(spec.points))
	var missing []int
	var why []string
	for k := 0; k < m.Tasks; k++ {
		from, to := m.taskPoints(k)
		b, err := os.ReadFile(partPath(dir, k))
		if errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, k)
			why = append(why, fmt.Sprintf("task %d (points %d to %d): no part", k, from, to-1))
			continue
		} else if err != nil {
			return err
		}
		var part partFile
		ok := json.Unmarshal(b, &part) == nil && part.Format == sweepPartFormat && part.Task == k && len(part.Points) == to-from
		for i := 0; ok && i < len(part.Points); i++ {
			pt := spec.points[from+i]
			ok = part.Points[i].Key == pt.key && slices.Equal(part.Points[i].Options, pt.args)
			sums[from+i] = part.Points[i].Summary
		}
		if !ok {
			missing = append(missing, k)
			why = append(why, fmt.Sprintf("task %d (points %d to %d): %s is not this sweep's part", k, from, to-1, partPath(dir, k)))
		}
	}
	if len(missing) > 0 {
		for _, w := range why {
			fmt.Fprintln(stderr, "missing:", w)
		}
		ids := make([]string, len(missing))
		for i, k := range missing {
			ids[i] = strconv.Itoa(k)
		}
		fmt.Fprintf(stderr, "rerun them with: sbatch --array=%s %s\n", strings.Join(ids, ","), filepath.Join(dir, "sweep.sbatch"))
		return fmt.Errorf("%d of %d tasks have no part in %s: %w", len(missing), m.Tasks, filepath.Join(dir, "parts"), errMissingParts)
	}
	t := spec.tableOf(sums)
	fmt.Fprintf(stderr, "merged %d parts, %d points\n", m.Tasks, len(spec.points))
	if err := writeSweepOutputs(dir, spec, t, f.plots, stderr); err != nil {
		return err
	}
	if f.quiet {
		return nil
	}
	return writeSweepSummary(stdout, spec, t)
}

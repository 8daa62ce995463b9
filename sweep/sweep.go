// Package sweep runs a grid of scenarios: a base scenario and the values
// of the keys it sweeps, each point a schedsim.Run. Finished points are
// kept on disk with their scenario and the fingerprints of their input
// files, so an interrupted sweep resumes where it stopped and an edited
// input is simulated again; the same grid can be written as a Slurm job
// array whose parts are merged afterwards. The results are one table
// (CSV, Parquet) and one plot per metric.
package sweep

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/report"
)

// Versions of the files a sweep writes. A point file of another version
// is simulated again; a part or manifest of another version is refused.
const (
	pointFormat    = "schedsim-sweep-point/2"
	partFormat     = "schedsim-sweep-part/2"
	manifestFormat = "schedsim-sweep-manifest/2"
	// pointKeyPrefix heads the text a point's key hashes: the first
	// point format's name, kept so that keys (sweep.csv's key column,
	// the point files' names) stay those of earlier sweeps.
	pointKeyPrefix = "schedsim-sweep-point/1"
)

// MaxGridPoints bounds the number of points of a grid.
const MaxGridPoints = 1_000_000

// Axis is one swept scenario key and the values it takes, as text
// (schedsim.Scenario.Set).
type Axis struct {
	// Key is a scenario key, in its TOML form or as the option's name.
	Key string `json:"name"`
	// Values are the values it takes, as text, in the grid's order.
	Values []string `json:"values"`
}

// ParseAxis parses "KEY=V1,V2,...": a scenario key (its TOML form or the
// option's name, with or without leading dashes) and its values, separated
// by commas, or by '|' when the text holds one (a value with commas:
// "status=1|0,1,5").
func ParseAxis(text string) (Axis, error) {
	name, list, ok := strings.Cut(text, "=")
	name = strings.TrimPrefix(strings.TrimSpace(name), "--")
	if !ok || name == "" {
		return Axis{}, inputf("%q: want NAME=V1,V2,... (NAME an option of schedsim run)", text)
	}
	sep := ","
	if strings.Contains(list, "|") {
		sep = "|"
	}
	a := Axis{Key: name}
	for _, v := range strings.Split(list, sep) {
		v = strings.TrimSpace(v)
		if v == "" {
			return Axis{}, inputf("%q: empty value", text)
		}
		if slices.Contains(a.Values, v) {
			return Axis{}, inputf("%q: value %q given twice", text, v)
		}
		a.Values = append(a.Values, v)
	}
	return a, nil
}

// ReadAxes reads a sweep file: one "KEY = V1, V2, ..." per line (ParseAxis),
// blank lines and lines starting with # skipped. An unreadable file or a bad
// line is an *schedsim.InputError naming the file and the line.
func ReadAxes(path string) ([]Axis, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &schedsim.InputError{Err: err}
	}
	defer f.Close()
	var axes []Axis
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		a, err := ParseAxis(text)
		if err != nil {
			return nil, inputf("%s:%d: %v", path, line, err)
		}
		axes = append(axes, a)
	}
	if err := sc.Err(); err != nil {
		return nil, inputf("%s: %w", path, err)
	}
	return axes, nil
}

// ParseAxes returns the axes of a sweep: those of the sweep file, if file
// is not empty (ReadAxes), then one for each text of params, "KEY=V1,..."
// (ParseAxis; schedsim sweep's --param, which a bad one's error names).
func ParseAxes(file string, params []string) ([]Axis, error) {
	var axes []Axis
	if file != "" {
		var err error
		if axes, err = ReadAxes(file); err != nil {
			return nil, err
		}
	}
	for _, text := range params {
		a, err := ParseAxis(text)
		if err != nil {
			return nil, inputf("--param %v", err)
		}
		axes = append(axes, a)
	}
	return axes, nil
}

// Grid is a set of scenarios: a base scenario, settings that apply to
// every point, and axes, every combination of whose values is a point
// (the first axis varies slowest).
type Grid struct {
	// Base is the scenario every point starts from. A point writes no
	// run outputs: its out, format, plots, gantt_max_jobs and
	// page_gantt_max_jobs are the
	// defaults'.
	Base schedsim.Scenario
	// Fixed are set over Base in every point; they are columns of the
	// results table after the axes. One whose key an axis sweeps is left
	// out.
	Fixed []schedsim.Setting
	// Axes are the swept keys.
	Axes []Axis
	// Workdir, when not empty, is the directory the points' relative
	// paths (trace, config, slurm_conf, node_events) are relative to;
	// "" leaves them relative to the working directory.
	Workdir string
}

// Point is one scenario of a grid.
type Point struct {
	// Index is the point's place in the grid.
	Index int
	// Key names the point: a hash of its settings (the swept values and
	// the fixed settings), which names its result file and fills the
	// results table's key column. The file also holds the whole scenario.
	Key string
	// Values are the point's values of the table's columns (Grid.Columns).
	Values []string
	// Label names the swept values, for messages: "lookahead=10 order=sjf".
	Label string
	// schedsim.Scenario is Base with the point's settings.
	Scenario schedsim.Scenario
}

// normal returns the grid with its keys in their option form, the fixed
// settings swept by no axis sorted by key, checked: every key is a
// scenario key that changes a result, no axis is given twice or has no
// value.
func (g *Grid) normal() (*Grid, error) {
	n := &Grid{Base: g.Base, Workdir: g.Workdir}
	if len(g.Axes) == 0 {
		return nil, inputf("nothing to sweep: give --param NAME=V1,V2,... or --file (see schedsim sweep --help)")
	}
	swept := map[string]bool{}
	for _, a := range g.Axes {
		name, err := sweptKey(a.Key)
		if err != nil {
			return nil, err
		}
		if swept[name] {
			return nil, inputf("--param %s: given twice", a.Key)
		}
		if len(a.Values) == 0 {
			return nil, inputf("--param %s: no values", a.Key)
		}
		swept[name] = true
		n.Axes = append(n.Axes, Axis{Key: name, Values: a.Values})
	}
	for _, s := range g.Fixed {
		name, err := sweptKey(s.Key)
		if err != nil {
			return nil, err
		}
		if !swept[name] {
			n.Fixed = append(n.Fixed, schedsim.Setting{Key: name, Value: s.Value})
		}
	}
	slices.SortStableFunc(n.Fixed, func(a, b schedsim.Setting) int { return strings.Compare(a.Key, b.Key) })
	for i := 1; i < len(n.Fixed); i++ {
		if n.Fixed[i].Key == n.Fixed[i-1].Key {
			return nil, inputf("%s: set twice", n.Fixed[i].Key)
		}
	}
	return n, nil
}

// sweptKey returns the option form of a key a grid may set.
func sweptKey(key string) (string, error) {
	name, ok := schedsim.FlagName(strings.TrimPrefix(strings.TrimSpace(key), "--"))
	if !ok {
		return "", inputf("--param %s: schedsim run has no option --%s and a scenario no key %s (see schedsim run --help)", key, name, strings.ReplaceAll(name, "-", "_"))
	}
	if schedsim.IsOutputKey(name) {
		return "", inputf("--param %s: a sweep point writes no run outputs; the sweep's own options say what it writes", key)
	}
	return name, nil
}

// Columns returns the names of the results table's parameter columns: the
// swept keys, then the fixed settings' keys, sorted.
func (g *Grid) Columns() ([]string, error) {
	n, err := g.normal()
	if err != nil {
		return nil, err
	}
	var cols []string
	for _, a := range n.Axes {
		cols = append(cols, a.Key)
	}
	for _, s := range n.Fixed {
		cols = append(cols, s.Key)
	}
	return cols, nil
}

// Points lays out the grid: every combination of the axes' values, the
// first axis varying slowest. A key that is no scenario key (or an output
// one), an axis given twice, a value that does not parse or a grid of more
// than MaxGridPoints points is an *schedsim.InputError. What the values mean is
// checked by Sweep.Run before any point runs.
func (g *Grid) Points() ([]*Point, error) {
	n, err := g.normal()
	if err != nil {
		return nil, err
	}
	total := 1
	for _, a := range n.Axes {
		total *= len(a.Values)
		if total > MaxGridPoints {
			return nil, inputf("the grid has more than %d points", MaxGridPoints)
		}
	}
	def := schedsim.Default()
	idx := make([]int, len(n.Axes))
	pts := make([]*Point, 0, total)
	for i := 0; i < total; i++ {
		pt := &Point{Index: i, Scenario: n.Base}
		settings := slices.Clone(n.Fixed)
		var label []string
		for k, a := range n.Axes {
			v := a.Values[idx[k]]
			settings = append(settings, schedsim.Setting{Key: a.Key, Value: v})
			pt.Values = append(pt.Values, v)
			label = append(label, a.Key+"="+report.SweepValueLabel(a.Key, v))
		}
		for _, s := range n.Fixed {
			pt.Values = append(pt.Values, s.Value)
		}
		pt.Label = strings.Join(label, " ")
		slices.SortStableFunc(settings, func(a, b schedsim.Setting) int { return strings.Compare(a.Key, b.Key) })
		pt.Key = pointKey(settings)
		sc := &pt.Scenario
		sc.QueueStates = slices.Clone(sc.QueueStates)
		for _, s := range settings {
			if err := sc.Set(s.Key, s.Value); err != nil {
				return nil, inputf("point %s: %v", pt.Label, err)
			}
		}
		sc.Out, sc.Format, sc.Plots, sc.GanttMaxJobs, sc.PageGanttMaxJobs = "", def.Format, def.Plots, def.GanttMaxJobs, def.PageGanttMaxJobs
		if n.Workdir != "" {
			for _, p := range []*string{&sc.Trace, &sc.Config, &sc.SlurmConf, &sc.NodeEvents} {
				if *p != "" && !filepath.IsAbs(*p) {
					*p = filepath.Join(n.Workdir, *p)
				}
			}
		}
		pts = append(pts, pt)
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < len(n.Axes[k].Values) {
				break
			}
			idx[k] = 0
		}
	}
	return pts, nil
}

// pointKey is the first 16 hex digits of the SHA-256 of pointKeyPrefix and
// the point's settings, "--key=value" a line, sorted by key.
func pointKey(settings []schedsim.Setting) string {
	h := sha256.New()
	io.WriteString(h, pointKeyPrefix+"\n")
	for _, s := range settings {
		io.WriteString(h, "--"+s.Key+"="+s.Value+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// checkPoints checks every point's scenario before any runs, so that bad
// input stops a sweep at once: the policy, rules and estimates must parse
// and the traces must exist.
func checkPoints(pts []*Point) error {
	seen := map[string]bool{}
	for _, pt := range pts {
		sc := pt.Scenario
		trace := sc.Trace
		sc.Trace = ""
		if err := sc.Check(); err != nil {
			return inputf("point %s: %v", pt.Label, err)
		}
		if trace != "" && !seen[trace] {
			seen[trace] = true
			if _, err := os.Stat(trace); err != nil {
				return inputf("point %s: %v", pt.Label, err)
			}
		}
	}
	return nil
}

// DefaultX returns the axis a sweep plots along x: the first with several
// values other than the trace, else the first with several values, else
// the first.
func DefaultX(axes []Axis) string {
	for _, a := range axes {
		if len(a.Values) > 1 && a.Key != "trace" {
			return a.Key
		}
	}
	for _, a := range axes {
		if len(a.Values) > 1 {
			return a.Key
		}
	}
	if len(axes) == 0 {
		return ""
	}
	return axes[0].Key
}

// Sweep runs the points of a grid, keeping each result in its own file,
// and writes the results table and plots.
type Sweep struct {
	Grid
	// Dir is the results directory: Dir/points keeps each finished point
	// (points/KEY.json, written atomically), so that an interrupted
	// sweep run again simulates only the points it lacks; Dir/sweep.csv,
	// Dir/sweep.parquet and the plots are the results.
	Dir string
	// Jobs is how many points are simulated at once (less than 1: one).
	Jobs int
	// X is the axis along the plots' x axis ("": DefaultX).
	X string
	// Plots are the metrics plotted (nil: report.DefaultSweepPlots).
	Plots []string
	// NoPlots writes the tables and no plot.
	NoPlots bool
	// Done, when set, is called as each point is found done (reused) or
	// finishes, one call at a time.
	Done func(pt *Point, reused bool, took time.Duration)
	// Warn receives warnings, e.g. a kept point file found corrupt (nil:
	// none are written).
	Warn io.Writer
}

// Result is what a sweep did and wrote.
type Result struct {
	// Table holds the points' summaries in grid order.
	Table *report.SweepTable
	// Swept is how many of Table's first parameters are swept.
	Swept int
	Counts
	// Wrote lists the tables written; Figures the plots' names (each as
	// NAME.svg and NAME.png in the directory).
	Wrote   []string
	Figures []string
}

// checkPlots checks X and Plots against the grid and returns X.
func (s *Sweep) checkPlots() (string, error) {
	x := s.X
	if x == "" {
		n, err := s.Grid.normal()
		if err != nil {
			return "", err
		}
		x = DefaultX(n.Axes)
	} else {
		name, _ := schedsim.FlagName(x)
		found := false
		for _, a := range s.Axes {
			if k, _ := schedsim.FlagName(strings.TrimPrefix(a.Key, "--")); k == name {
				found = true
			}
		}
		if !found {
			return "", inputf("--x %s: not a swept parameter", x)
		}
		x = name
	}
	for _, m := range s.plots() {
		if _, ok := report.LookupSweepMetric(m); !ok {
			var names []string
			for _, sm := range report.SweepMetrics {
				names = append(names, sm.Name)
			}
			return "", inputf("--plot-metrics: unknown metric %q (want one of %s)", m, strings.Join(names, ", "))
		}
	}
	return x, nil
}

func (s *Sweep) plots() []string {
	if len(s.Plots) == 0 {
		return report.DefaultSweepPlots
	}
	return s.Plots
}

// schedsim.Run simulates the points Dir/points does not hold yet, Jobs at a time,
// and writes the results. Every point is checked before any runs: bad
// input is an *schedsim.InputError. When ctx is cancelled no point starts, the
// running ones stop (and are simulated again next time), and schedsim.Run returns
// an error that wraps schedsim.ErrInterrupted and says how many points are kept.
// The results do not depend on Jobs or on which points were kept.
func (s *Sweep) Run(ctx context.Context) (*Result, error) {
	pts, err := s.Points()
	if err != nil {
		return nil, err
	}
	x, err := s.checkPlots()
	if err != nil {
		return nil, err
	}
	if err := checkPoints(pts); err != nil {
		return nil, err
	}
	scs := make([]*schedsim.Scenario, len(pts))
	for i, pt := range pts {
		scs[i] = &pt.Scenario
	}
	if err := schedsim.CheckSideBySide(scs); err != nil {
		return nil, err
	}
	if s.Dir == "" {
		return nil, inputf("--out DIR is required: it keeps each finished point, so that an interrupted sweep can resume")
	}
	r := s.runner(filepath.Join(s.Dir, "points"))
	sums, err := r.run(ctx, pts)
	if err != nil {
		return nil, err
	}
	res, err := s.result(pts, sums)
	if err != nil {
		return nil, err
	}
	res.Counts = r.Counts
	if ctx.Err() != nil {
		return nil, &interruptedSweep{done: len(pts), total: len(pts), dir: r.dir}
	}
	if err := res.write(s.Dir, x, s.plots(), !s.NoPlots); err != nil {
		return nil, err
	}
	return res, nil
}

// result builds the results table of pts from their summaries.
func (s *Sweep) result(pts []*Point, sums []report.Summary) (*Result, error) {
	cols, err := s.Columns()
	if err != nil {
		return nil, err
	}
	t := &report.SweepTable{Params: cols, Points: make([]report.SweepPoint, len(pts))}
	for i, pt := range pts {
		t.Points[i] = report.SweepPoint{Key: pt.Key, Values: pt.Values, Summary: sums[i]}
	}
	return &Result{Table: t, Swept: len(s.Axes)}, nil
}

func (s *Sweep) runner(dir string) *pointRunner {
	return &pointRunner{dir: dir, jobs: max(s.Jobs, 1), done: s.Done, warn: s.Warn, fp: newFingerprints()}
}

// write writes dir/sweep.csv, dir/sweep.parquet and, with plots, the
// figures of metrics along x.
func (res *Result) write(dir, x string, metrics []string, plots bool) error {
	t := res.Table
	csvPath, pqPath := filepath.Join(dir, "sweep.csv"), filepath.Join(dir, "sweep.parquet")
	if err := report.WriteFileAtomic(csvPath, func(w io.Writer) error { return report.WriteSweepCSV(w, t) }); err != nil {
		return err
	}
	if err := report.WriteFileAtomic(pqPath, func(w io.Writer) error { return report.WriteSweepParquet(w, t) }); err != nil {
		return err
	}
	res.Wrote = []string{csvPath, pqPath}
	if !plots {
		return nil
	}
	figs, err := report.SweepFigures(t, x, metrics)
	if err != nil {
		return err
	}
	if _, err := report.WriteFigures(dir, figs); err != nil {
		return err
	}
	for _, f := range figs {
		res.Figures = append(res.Figures, f.Name)
	}
	return nil
}

// Print writes a short table of the points: the swept values and the main
// metrics.
func (res *Result) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := append([]string{"point"}, res.Table.Params[:res.Swept]...)
	head = append(head, "wait mean (s)", "bounded slowdown", "utilisation (%)")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for i, p := range res.Table.Points {
		row := []string{strconv.Itoa(i)}
		for k, name := range res.Table.Params[:res.Swept] {
			row = append(row, report.SweepValueLabel(name, p.Values[k]))
		}
		row = append(row, fmt.Sprintf("%.1f", p.Summary.Wait.Mean), fmt.Sprintf("%.3f", p.Summary.MeanBoundedSlowdown), fmt.Sprintf("%.2f", 100*p.Summary.Utilisation))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// Counts say what a run of points did.
type Counts struct {
	// Computed and Reused count the points simulated now and those whose
	// kept result was read; Stale counts the kept results that were not
	// this scenario's (other input files or options, an older format, a
	// corrupt file) and were simulated again.
	Computed, Reused, Stale int
}

// Report says on w how many of n points were simulated and reused, the
// kept ones in dir/points, in took.
func (c Counts) Report(w io.Writer, n int, dir string, took time.Duration) {
	fmt.Fprintf(w, "sweep: %d points: %d simulated, %d already done (kept in %s), in %.1f s\n",
		n, c.Computed, c.Reused, filepath.Join(dir, "points"), took.Seconds())
	if c.Stale > 0 {
		fmt.Fprintf(w, "sweep: %d kept points were of other options or input files, an older format, or corrupt, and were simulated again\n", c.Stale)
	}
}

// ReportWrote says on w which files the sweep wrote in dir.
func (res *Result) ReportWrote(w io.Writer, dir string) {
	fmt.Fprintf(w, "wrote %s\n", strings.Join(res.Wrote, " and "))
	if len(res.Figures) > 0 {
		fmt.Fprintf(w, "wrote the plots %s (.svg, .png) in %s\n", strings.Join(res.Figures, ", "), dir)
	}
}

// interruptedSweep is the error of a sweep stopped by its context: it
// says what is kept, and wraps schedsim.ErrInterrupted.
type interruptedSweep struct {
	done, total int
	dir         string
}

func (e *interruptedSweep) Error() string {
	return fmt.Sprintf("interrupted: %d of %d points are done and kept in %s; run the same command again to finish the rest", e.done, e.total, e.dir)
}

func (e *interruptedSweep) Unwrap() error { return schedsim.ErrInterrupted }

// pointRunner simulates points and keeps each result in its own file.
type pointRunner struct {
	dir  string // where the point files are
	jobs int
	done func(pt *Point, reused bool, took time.Duration)
	warn io.Writer
	fp   *fingerprints

	Counts
}

// run returns the summaries of pts, in their order: each point kept from an
// earlier run is read, the others are simulated, r.jobs at a time, and kept
// as they finish. When ctx is cancelled no new point starts and the running
// ones stop; run returns an *interruptedSweep. Otherwise the first error in
// the points' order is returned.
func (r *pointRunner) run(ctx context.Context, pts []*Point) ([]report.Summary, error) {
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	sums := make([]report.Summary, len(pts))
	var todo []int
	for i, pt := range pts {
		s, err := r.load(pt)
		switch {
		case err == nil:
			sums[i] = s
			r.Reused++
			if r.done != nil {
				r.done(pt, true, 0)
			}
			continue
		case errors.Is(err, errPointCorrupt):
			r.Stale++
			if r.warn != nil {
				fmt.Fprintf(r.warn, "sweep: point %s: %v: simulated again\n", pt.Label, err)
			}
		case !errors.Is(err, os.ErrNotExist):
			r.Stale++
		}
		todo = append(todo, i)
	}
	inner, cancel := context.WithCancel(ctx)
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
				if inner.Err() != nil {
					continue // cancelled while this point was handed over
				}
				start := time.Now()
				s, err := r.compute(inner, pts[i])
				if err != nil {
					if !errors.Is(err, schedsim.ErrInterrupted) {
						errs[i] = fmt.Errorf("point %s: %w", pts[i].Label, err)
						cancel()
					}
					continue
				}
				sums[i] = s
				mu.Lock()
				r.Computed++
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
		case <-inner.Done():
			break feed
		case next <- i:
		}
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if n := r.Computed + r.Reused; n < len(pts) || ctx.Err() != nil {
		return nil, &interruptedSweep{done: n, total: len(pts), dir: r.dir}
	}
	return sums, nil
}

// path is where the result of pt is kept.
func (r *pointRunner) path(pt *Point) string { return filepath.Join(r.dir, pt.Key+".json") }

// load reads the kept result of pt. The error is os.ErrNotExist when there
// is none, errPointCorrupt when the file's checksum does not match, and
// errPointStale when it is of another format, scenario or input files.
func (r *pointRunner) load(pt *Point) (report.Summary, error) {
	b, err := os.ReadFile(r.path(pt))
	if err != nil {
		return report.Summary{}, err
	}
	body, err := decodePoint(b)
	if err != nil {
		return report.Summary{}, fmt.Errorf("%s: %w", r.path(pt), err)
	}
	if err := r.matches(body, pt); err != nil {
		return report.Summary{}, err
	}
	return body.Summary, nil
}

// matches checks that a point's kept result is that of pt: same key, same
// scenario, same input files.
func (r *pointRunner) matches(body *pointBody, pt *Point) error {
	var sc bytes.Buffer
	if body.Key != pt.Key || json.Compact(&sc, body.Scenario) != nil || !bytes.Equal(sc.Bytes(), pt.Scenario.Canonical()) {
		return errPointStale
	}
	h, err := pt.Scenario.HashWith(r.fp.get)
	if err != nil {
		return err
	}
	if h != body.Inputs {
		return errPointStale
	}
	return nil
}

// compute simulates one point and keeps its result.
func (r *pointRunner) compute(ctx context.Context, pt *Point) (report.Summary, error) {
	// Temporary files a killed run of this point left behind.
	if old, _ := filepath.Glob(filepath.Join(r.dir, "."+pt.Key+".json.tmp-*")); len(old) > 0 {
		for _, f := range old {
			os.Remove(f)
		}
	}
	inputs, err := pt.Scenario.HashWith(r.fp.get)
	if err != nil {
		return report.Summary{}, err
	}
	sc := pt.Scenario
	res, err := schedsim.Run(ctx, &sc, schedsim.Options{})
	if err != nil {
		return report.Summary{}, err
	}
	b, err := encodePoint(&pointBody{Key: pt.Key, Scenario: pt.Scenario.Canonical(), Inputs: inputs, Summary: res.Summary})
	if err != nil {
		return report.Summary{}, err
	}
	if err := writeFileAtomic(r.path(pt), b); err != nil {
		return report.Summary{}, err
	}
	return res.Summary, nil
}

// Errors of a kept point that is not used.
var (
	errPointCorrupt = errors.New("corrupt (its checksum does not match its content)")
	errPointStale   = errors.New("the result of other options, input files or an older schedsim")
)

// pointBody is a point's result: its key, its scenario (canonical JSON),
// the scenario's hash over its input files (schedsim.Scenario.Hash) and the run's
// summary.
type pointBody struct {
	Key      string          `json:"key"`
	Scenario json.RawMessage `json:"scenario"`
	Inputs   string          `json:"inputs"`
	Summary  report.Summary  `json:"summary"`
}

// pointFile is a point's result as kept in DIR/points/KEY.json and in the
// parts of a Slurm sweep: the format, the SHA-256 of the point's JSON with
// insignificant white space removed, and the point.
type pointFile struct {
	Format string          `json:"format"`
	SHA256 string          `json:"sha256"`
	Point  json.RawMessage `json:"point"`
}

// newPointFile returns the file of body.
func newPointFile(body *pointBody) (*pointFile, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	return &pointFile{Format: pointFormat, SHA256: hex.EncodeToString(sum[:]), Point: b}, nil
}

// encodePoint returns the point file of body, indented.
func encodePoint(body *pointBody) ([]byte, error) {
	f, err := newPointFile(body)
	if err != nil {
		return nil, err
	}
	return indentJSON(f)
}

// decodePoint decodes a point file; one of another format is
// errPointStale, one whose checksum does not match errPointCorrupt.
func decodePoint(b []byte) (*pointBody, error) {
	var f pointFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", errPointCorrupt, err)
	}
	return f.body()
}

// body checks f and decodes its point.
func (f *pointFile) body() (*pointBody, error) {
	if f.Format != pointFormat {
		return nil, errPointStale
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, f.Point); err != nil {
		return nil, fmt.Errorf("%w: %v", errPointCorrupt, err)
	}
	sum := sha256.Sum256(compact.Bytes())
	if hex.EncodeToString(sum[:]) != f.SHA256 {
		return nil, errPointCorrupt
	}
	var body pointBody
	if err := json.Unmarshal(f.Point, &body); err != nil {
		return nil, fmt.Errorf("%w: %v", errPointCorrupt, err)
	}
	return &body, nil
}

// indentJSON returns v as indented JSON and a newline.
func indentJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeFileAtomic writes b to path, atomically.
func writeFileAtomic(path string, b []byte) error {
	return report.WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// fingerprints takes each input file's fingerprint once, for the many
// scenarios of a sweep that name the same files.
type fingerprints struct {
	mu sync.Mutex
	m  map[string]schedsim.FileFingerprint
}

func newFingerprints() *fingerprints { return &fingerprints{m: map[string]schedsim.FileFingerprint{}} }

func (c *fingerprints) get(path string) (schedsim.FileFingerprint, error) {
	c.mu.Lock()
	fp, ok := c.m[path]
	c.mu.Unlock()
	if ok {
		return fp, nil
	}
	fp, err := schedsim.Fingerprint(path)
	if err != nil {
		return fp, err
	}
	c.mu.Lock()
	c.m[path] = fp
	c.mu.Unlock()
	return fp, nil
}

// inputf returns an *schedsim.InputError: bad input, which the command
// line reports with exit status 2.
func inputf(format string, a ...any) error {
	return &schedsim.InputError{Err: fmt.Errorf(format, a...)}
}

package report

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// tinyReport returns tinyRun as a Run with every plot's data: exact series,
// waits and the Gantt.
func tinyReport() *Run {
	m := NewMetrics()
	g := NewGantt(100)
	replay(tinyRun(), Observers{m, g})
	ts := NewTimeSeries(tinyProcs, 64)
	feed(ts, tinySamples())
	s := m.Summary("tiny.swf", "easy", tinyProcs, tinyStats, tinyCleaning)
	ts.AddTo(&s)
	return &Run{Name: "tiny", Summary: s, Waits: m.Waits(), Series: ts, Gantt: g}
}

// syntheticReport simulates n seeded jobs on 64 processors under pol, with a
// series bounded to bound points.
func syntheticReport(t *testing.T, name string, n, bound int, cfg policy.Config) *Run {
	t.Helper()
	const procs = 64
	pol, err := policy.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := sim.New(sim.Config{Procs: procs, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics()
	ts := NewTimeSeries(procs, bound)
	g := NewGantt(DefaultGanttMaxJobs)
	st, err := eng.Run(&simtest.Source{Jobs: syntheticJobs(11, n, procs)}, Observers{m, ts, g})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Summary("synthetic.swf", pol.Name(), procs, st, workload.CleanStats{})
	ts.AddTo(&s)
	return &Run{Name: name, Summary: s, Waits: m.Waits(), Series: ts, Gantt: g}
}

var (
	easyCfg = policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.DefaultLookahead, Depth: 1}
	fcfsCfg = policy.Config{Backfill: policy.BackfillOff}
)

// TestPlotGolden renders each plot kind on a small scenario and compares
// the SVG text with testdata/plots/NAME.svg and the PNG's pixels with
// testdata/plots/NAME.png (go test -update rewrites them). gonum's SVG
// output is deterministic (fixed float precision, no ids, no dates), so
// that comparison is byte for byte; the PNG's pixels may differ from the
// golden image's within goldenPNG's tolerance, so that a cheaper way of
// drawing the same picture passes and a different picture does not. The
// dense figures, of a run whose series has thousands of points, draw
// lines of many more vertices than pixel columns, as long traces do.
func TestPlotGolden(t *testing.T) {
	tiny := tinyReport()
	bucketed := syntheticReport(t, "bucketed", 3000, 64, easyCfg)
	dense := syntheticReport(t, "dense", 6000, DefaultSeriesPoints, easyCfg)
	easy := syntheticReport(t, "easy", 300, DefaultSeriesPoints, easyCfg)
	fcfs := syntheticReport(t, "fcfs", 300, DefaultSeriesPoints, fcfsCfg)
	if bucketed.Series.Width() == 1 {
		t.Fatal("the bucketed scenario did not bucket")
	}
	figs := map[string]*Figure{}
	for _, f := range RunFigures(tiny) {
		figs[f.Name] = f
	}
	for _, f := range RunFigures(bucketed) {
		if f.Name == "utilisation" || f.Name == "queue" {
			f.Name += "_bucketed"
			figs[f.Name] = f
		}
	}
	for _, f := range RunFigures(dense) {
		if f.Name == "utilisation" || f.Name == "queue" {
			f.Name += "_dense"
			figs[f.Name] = f
		}
	}
	for _, f := range CompareFigures([]*Run{easy, fcfs}) {
		figs[f.Name] = f
	}
	want := []string{"utilisation", "queue", "wait_cdf", "slowdown_by_class", "gantt",
		"utilisation_bucketed", "queue_bucketed", "utilisation_dense", "queue_dense",
		"compare_wait_cdf", "compare_utilisation", "compare_queue"}
	if len(figs) != len(want) {
		t.Errorf("%d figures, want %d", len(figs), len(want))
	}
	for _, name := range want {
		t.Run(name, func(t *testing.T) {
			f := figs[name]
			if f == nil {
				t.Fatalf("no figure %s", name)
			}
			got, err := f.SVG()
			if err != nil {
				t.Fatal(err)
			}
			again, _ := f.SVG()
			if !bytes.Equal(got, again) {
				t.Fatal("two renderings of the same figure differ")
			}
			goldenSVG(t, filepath.Join("plots", name+".svg"), got)
			p, err := f.PNG()
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(p))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != int(f.Width.Dots(PNGDPI)+0.5) || b.Dy() != int(f.Height.Dots(PNGDPI)+0.5) {
				t.Errorf("PNG is %v, want %.0f×%.0f in at %d dpi", b, f.Width/vg.Inch, f.Height/vg.Inch, PNGDPI)
			}
			if pngGolden[name] {
				goldenPNG(t, filepath.Join("plots", name+".png"), img)
			}
		})
	}
}

// pngGolden are the figures whose PNGs have golden images: between them
// they draw every kind of mark (text, rectangles, solid and dashed lines,
// sparse and dense ones, a heatmap), and the files stay few.
var pngGolden = map[string]bool{"utilisation": true, "queue": true, "wait_cdf": true, "slowdown_by_class": true,
	"gantt": true, "utilisation_dense": true, "queue_dense": true, "compare_queue": true}

// goldenPNG compares a PNG's pixels with testdata/name, or rewrites it
// under -update. The pictures must match up to the anti-aliasing of edges:
// no channel of a pixel more than goldenPNGWorst levels apart, and on
// average less than goldenPNGMean.
func goldenPNG(t *testing.T, name string, got image.Image) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		// Compressed as hard as image/png can: the files stay small.
		var buf bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, got); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	want, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	worst, mean := pixelDiff(t, want, got)
	if worst > goldenPNGWorst || mean > goldenPNGMean {
		t.Errorf("%s: the pixels differ by up to %d levels, %.4f on average; want at most %d, %.4f (go test -update rewrites it)", path, worst, mean, goldenPNGWorst, goldenPNGMean)
	}
}

// The tolerance of goldenPNG: a few anti-aliased edges drawn another way.
const (
	goldenPNGWorst = 128
	goldenPNGMean  = 0.02
)

// goldenSVG compares an SVG with testdata/name, or rewrites it under -update;
// on a difference it reports the first differing line.
func goldenSVG(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < min(len(gl), len(wl)); i++ {
		if gl[i] != wl[i] {
			t.Fatalf("%s differs from the golden file at line %d (go test -update rewrites it)\ngot:  %.300s\nwant: %.300s", name, i+1, gl[i], wl[i])
		}
	}
	t.Fatalf("%s differs from the golden file: %d lines, want %d", name, len(gl), len(wl))
}

// TestRunFiguresChoice checks which figures a run gets.
func TestRunFiguresChoice(t *testing.T) {
	names := func(figs []*Figure) string {
		var n []string
		for _, f := range figs {
			n = append(n, f.Name)
		}
		return strings.Join(n, " ")
	}
	full := tinyReport()
	over := tinyReport()
	over.Gantt = NewGantt(2)
	replay(tinyRun(), over.Gantt)
	noSeries := tinyReport()
	noSeries.Series = nil
	for _, tc := range []struct {
		name string
		r    *Run
		want string
	}{
		{"everything", full, "utilisation queue wait_cdf slowdown_by_class gantt"},
		{"too many jobs for a Gantt", over, "utilisation queue wait_cdf slowdown_by_class"},
		{"no series", noSeries, "wait_cdf slowdown_by_class gantt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(RunFigures(tc.r)); got != tc.want {
				t.Errorf("figures %q, want %q", got, tc.want)
			}
		})
	}
	if over.Gantt.Complete() || over.Gantt.Jobs() != nil {
		t.Error("a Gantt past its limit still holds jobs")
	}
}

func TestGanttKeepsAllocations(t *testing.T) {
	g := NewGantt(10)
	replay(tinyRun(), g)
	jobs := g.Jobs()
	if len(jobs) != 5 {
		t.Fatalf("%d jobs, want the 5 that ran", len(jobs))
	}
	// Job 2 ran on 0-3 and 6, and was killed.
	j := jobs[2]
	if j.ID != 2 || !j.Killed || len(j.Alloc) != 2 || j.Alloc[0] != rg(0, 4) || j.Alloc[1] != rg(6, 7) {
		t.Errorf("job 2: %+v", j)
	}
}

func TestCDFPoints(t *testing.T) {
	for _, tc := range []struct {
		name  string
		waits []int64
		want  string
	}{
		{"zeros share x = 1", []int64{0, 0, 0, 5}, "(1,0.75) (5,1)"},
		{"distinct", []int64{1, 2, 2, 10}, "(1,0.25) (2,0.75) (10,1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var parts []string
			for _, p := range cdfXYs(tc.waits, 1) {
				parts = append(parts, "("+trimFloat(p.X)+","+trimFloat(p.Y)+")")
			}
			if got := strings.Join(parts, " "); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	// A million distinct waits draw at most about 2·cdfMaxPoints vertices.
	waits := make([]int64, 1_000_000)
	for i := range waits {
		waits[i] = int64(i)
	}
	if n := len(cdfXYs(waits, 1)); n > 2*cdfMaxPoints+2 {
		t.Errorf("%d vertices for a million waits", n)
	}
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// TestCompareShowsDifferences: a run identical to an earlier one is named so
// in the legend (its line hides under the other), and a panel below draws
// each later run's difference from the first.
func TestCompareShowsDifferences(t *testing.T) {
	easy := syntheticReport(t, "easy", 300, DefaultSeriesPoints, easyCfg)
	fcfs := syntheticReport(t, "fcfs", 300, DefaultSeriesPoints, fcfsCfg)
	twin := *easy
	twin.Name = "easy again"
	for _, f := range CompareFigures([]*Run{easy, fcfs, &twin}) {
		if f.Name == "compare_wait_cdf" {
			continue
		}
		svg, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"easy again (same as easy)", "difference from easy"} {
			if !bytes.Contains(svg, []byte(want)) {
				t.Errorf("%s lacks %q", f.Name, want)
			}
		}
		if strings.Contains(string(svg), "fcfs (same as") {
			t.Errorf("%s: fcfs differs from easy but is marked the same", f.Name)
		}
		if !strings.Contains(f.Caption, "same as") {
			t.Errorf("%s: caption %q does not explain \"same as\"", f.Name, f.Caption)
		}
	}
}

// TestQueueDemandScale: the demand panel's scale stops at twice the machine
// or the demand's 99th percentile over time, and the caption says when
// peaks are cut.
func TestQueueDemandScale(t *testing.T) {
	bucketed := syntheticReport(t, "bucketed", 3000, 64, easyCfg)
	top := demandScale(bucketed.Series)
	if top < 2*64 {
		t.Errorf("demand scale %v below twice the machine", top)
	}
	peak := 0.0
	for _, g := range bucketed.Series.MaxSegments(nil) {
		peak = max(peak, g.Level[QueuedProcs])
	}
	f := queueFigure(bucketed, "")
	if cut := strings.Contains(f.Caption, "cut at the top"); cut != (peak > top*1.05) {
		t.Errorf("peak %v, scale %v: caption %q", peak, top, f.Caption)
	}
}

// TestPNGConcurrentSame draws the same figures on several goroutines at
// once, as a run draws its figures, and checks that every PNG equals the
// one drawn alone: canvases share pools of buffers and a cache of glyphs,
// and none may leak into another's pixels (PrepareDrawing runs beside
// them, as in a run).
func TestPNGConcurrentSame(t *testing.T) {
	dense := syntheticReport(t, "dense", 6000, DefaultSeriesPoints, easyCfg)
	figs := append(RunFigures(dense), RunFigures(tinyReport())...)
	want := make([][]byte, len(figs))
	for i, f := range figs {
		b, err := f.PNG()
		if err != nil {
			t.Fatal(err)
		}
		want[i] = b
	}
	for round := range 3 {
		got := make([][]byte, 4*len(figs))
		var wg sync.WaitGroup
		wg.Go(PrepareDrawing)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range figs {
					i := (k + g*3) % len(figs) // each goroutine in another order
					b, err := figs[i].PNG()
					if err != nil {
						t.Error(err)
						return
					}
					got[g*len(figs)+i] = b
				}
			}()
		}
		wg.Wait()
		for g := range 4 {
			for i := range figs {
				if !bytes.Equal(got[g*len(figs)+i], want[i]) {
					t.Errorf("round %d, goroutine %d: %s.png differs from the one drawn alone", round, g, figs[i].Name)
				}
			}
		}
	}
}

// TestSpares checks the spare buffers canvases draw on: the smallest that
// fits is handed out, resliced, and no more than sparesMax are kept.
func TestSpares(t *testing.T) {
	var s spares[byte]
	if s.get(1) != nil {
		t.Fatal("an empty spares handed out a buffer")
	}
	for _, n := range []int{300, 100, 200} {
		if !s.put(make([]byte, n)) {
			t.Fatalf("put of a buffer of %d refused", n)
		}
	}
	if b := s.get(150); len(b) != 150 || cap(b) != 200 {
		t.Errorf("get(150): len %d cap %d, want 150 and the buffer of 200", len(b), cap(b))
	}
	if b := s.get(400); b != nil {
		t.Errorf("get(400) = a buffer of %d, want none", cap(b))
	}
	for s.put(make([]byte, 10)) {
	}
	if len(s.bufs) != sparesMax {
		t.Errorf("keeps %d buffers, want %d", len(s.bufs), sparesMax)
	}
}

// TestRunLongestFirst checks that every task runs once, and on one
// processor in order of work, the longest first (ties in their order).
func TestRunLongestFirst(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ran []int
	works := []float64{1, 5, 0.5, 5, 3}
	tasks := make([]renderTask, len(works))
	for i, w := range works {
		tasks[i] = renderTask{w, func() { ran = append(ran, i) }}
	}
	runLongestFirst(tasks)
	if want := []int{1, 3, 4, 0, 2}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
	runtime.GOMAXPROCS(2)
	var count [20]atomic.Int32
	tasks = tasks[:0]
	for i := range count {
		tasks = append(tasks, renderTask{float64(i % 7), func() { count[i].Add(1) }})
	}
	runLongestFirst(tasks)
	for i := range count {
		if n := count[i].Load(); n != 1 {
			t.Errorf("task %d ran %d times", i, n)
		}
	}
}

func TestWrapSubtitle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"LANL-CM5-1994-4.1-cln.swf.gz · easy(lookahead=1000)", "LANL-CM5-1994-4.1-cln.swf.gz · easy(lookahead=1000)"},
		{"CEA-Curie-2011-sample30k.swf.gz · easy(lookahead=1000)+order=fcfs+priority-tier+slurm-conf=slurm-hetero.conf+select=cons_res",
			"CEA-Curie-2011-sample30k.swf.gz\neasy(lookahead=1000)+order=fcfs+priority-tier+slurm-conf=slurm-hetero.conf+\nselect=cons_res"},
		{"a.swf, b.swf, c.swf", "a.swf, b.swf, c.swf"},
		{strings.Repeat("x", 90), strings.Repeat("x", 90)},
	} {
		got := wrapSubtitle(c.in, 80)
		if got != c.want {
			t.Errorf("wrapSubtitle(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.ReplaceAll(got, "\n", "") != strings.ReplaceAll(strings.ReplaceAll(c.in, " · ", ""), "·", "") && !strings.Contains(c.in, " · ") {
			t.Errorf("wrapSubtitle(%q) lost text: %q", c.in, got)
		}
	}
}

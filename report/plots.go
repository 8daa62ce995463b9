package report

import (
	"bytes"
	"cmp"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/brewer"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/schedsim/schedsim/workload"
)

// Run is what the plots and the HTML report show of one run.
type Run struct {
	// Name labels the run in comparisons.
	Name string
	// Summary is the run's summary.
	Summary Summary
	// Waits are the waits of the jobs that ran, in ticks (Tick; seconds
	// by default), sorted ascending.
	Waits []int64
	// Series is the run's time series; nil draws no time plots.
	Series *TimeSeries
	// Gantt holds the allocations for a Gantt chart; nil, or one that is not
	// Complete, draws none.
	Gantt *Gantt
	// GanttFigureMax, when positive, draws the static Gantt chart
	// (gantt.svg, gantt.png) only for at most this many jobs; the page's
	// canvas chart shows every job the Gantt kept.
	GanttFigureMax int
	// Calendar, when the trace's start time is known, puts the time axes
	// on the wall clock (nil: time since the first submission).
	Calendar *Calendar
	// Power is the machine's power and node states after each instant of
	// a run with a power model (EnergyRun.Points); nil draws no power
	// plot.
	Power []PowerPoint
	// Tick is the run's ticks a second (0 or 1: seconds): its times,
	// Waits and Series included, are ticks of 1/Tick second. The figures
	// draw their time axes in seconds (or minutes, hours, days) all the
	// same, fractional where the unit is finer.
	Tick int64
}

// Figure is one plot, ready to render as SVG or PNG.
type Figure struct {
	// Name is the file name without extension, e.g. "utilisation".
	Name string
	// Title is the figure's heading in the HTML report.
	Title string
	// Caption says, in a sentence or two, how to read the figure.
	Caption string
	// Width and Height are the figure's size.
	Width, Height vg.Length

	draw func(c draw.Canvas)
	// points is about how many points the figure's lines have, for
	// estimating the work of drawing it (pngWork, svgWork).
	points int
	// hover are the points report.html names on hover, in the SVG's
	// coordinates, recorded when the SVG is drawn.
	hover []hoverPoint
}

// PNGDPI is the resolution of the PNG files.
const PNGDPI = 120

// SVG renders the figure as SVG. The output depends only on the figure's
// data: the same run gives the same bytes.
func (f *Figure) SVG() ([]byte, error) {
	c := newSVGCanvas(f.Width, f.Height)
	f.hover = f.hover[:0]
	f.draw(draw.New(c))
	var buf bytes.Buffer
	if !c.writeTo(&buf) {
		// As vgsvg draws it alone.
		c := vgsvg.New(f.Width, f.Height)
		f.hover = f.hover[:0]
		f.draw(draw.New(c))
		buf.Reset()
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("report: rendering %s.svg: %w", f.Name, err)
		}
	}
	// Name fonts with Liberation Sans's metrics (Arimo, Arial, Helvetica)
	// after it: a viewer without Liberation Sans then keeps the text within
	// the places computed for it.
	return bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"), []byte(svgFontFamily)), nil
}

// svgFontFamily is the font-family of the text in SVG output.
const svgFontFamily = "font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;"

// PNG renders the figure as a PNG image at PNGDPI.
func (f *Figure) PNG() ([]byte, error) {
	c := newFastCanvas(f.Width, f.Height, PNGDPI)
	defer c.close()
	f.draw(draw.New(c))
	var buf bytes.Buffer
	img, ok := c.Image().(*image.RGBA)
	var err error
	if ok {
		err = encodePNG(&buf, img)
	} else {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, c.Image())
	}
	if err != nil {
		return nil, fmt.Errorf("report: rendering %s.png: %w", f.Name, err)
	}
	return buf.Bytes(), nil
}

// Rendered is a figure with its SVG, as the HTML pages embed it.
type Rendered struct {
	*Figure
	// SVGBytes is the figure as SVG, as Figure.SVG renders it.
	SVGBytes []byte
	// hover is the figure's hoverJSON, made beside the other figures'
	// rendering (hoverMade), not after them all.
	hover     string
	hoverMade bool
}

// WriteFigures renders each figure as DIR/NAME.svg and DIR/NAME.png, each
// written atomically, and returns the figures with their SVG for an HTML
// page. Figures render side by side, at most one per processor, the
// longest first; the files and the result are the same as rendering them
// one after the other, and the error, if any, is the first figure's.
func WriteFigures(dir string, figs []*Figure) ([]Rendered, error) {
	out, wait, _ := writeFigures(dir, figs, nil, nil, false)
	if err := wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// RenderFigures is WriteFigures on the figures build returns. It calls
// build twice and renders the SVGs from one set and the PNGs from the
// other: a figure's plots must not be drawn by two goroutines at once, and
// with two sets every file renders on its own, which spreads a few uneven
// figures better over the processors. build must return the same figures
// each time (the figure constructors do).
func RenderFigures(dir string, build func() []*Figure) ([]Rendered, error) {
	out, wait, _ := renderFigures(dir, build, nil, false)
	if err := wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// renderFigures is RenderFigures without waiting for the files: it
// returns once every figure is rendered, with wait, which waits until the
// files are written and returns the first error of all (as RenderFigures
// does), and the first error rendering a figure. built, if not nil, is called
// with the first set of figures once both are built, before they render
// (it must not draw them); the tasks it returns run beside the figures',
// and are done when renderFigures returns. syncLater is writeFigures'.
func renderFigures(dir string, build func() []*Figure, built func([]*Figure) []renderTask, syncLater bool) ([]Rendered, func() error, error) {
	// The two sets are built side by side (build must only read what it
	// shares between calls).
	var figs, twins []*Figure
	done := make(chan struct{})
	go func() {
		defer close(done)
		twins = build()
	}()
	figs = build()
	<-done
	fail := func(err error) ([]Rendered, func() error, error) { return nil, func() error { return err }, err }
	if len(twins) != len(figs) {
		return fail(fmt.Errorf("report: rendering figures: built %d, then %d", len(figs), len(twins)))
	}
	for i := range figs {
		if twins[i].Name != figs[i].Name {
			return fail(fmt.Errorf("report: rendering figures: built %s, then %s", figs[i].Name, twins[i].Name))
		}
	}
	var extra []renderTask
	if built != nil {
		extra = built(figs)
	}
	return writeFigures(dir, figs, twins, extra, syncLater)
}

// renderTask is a piece of the work of drawing: a figure's PNG or SVG, or
// work done beside them (report.html's Gantt data). work is an estimate
// of how long it takes (about a millisecond a unit, on the machine the
// estimates were made on); only the order the tasks start in follows
// from it, never what they make.
type renderTask struct {
	work float64
	run  func()
}

// runLongestFirst runs the tasks on at most one goroutine per processor,
// the longest first, and returns when all are done. Started longest
// first, tasks of uneven lengths finish close together (Graham's LPT
// rule): a long figure started last would keep one processor busy after
// the others had finished.
func runLongestFirst(tasks []renderTask) {
	order := make([]int, len(tasks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(tasks[b].work, tasks[a].work) })
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(max(runtime.GOMAXPROCS(0), 1), len(tasks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(order) {
					return
				}
				tasks[order[k]].run()
			}
		}()
	}
	wg.Wait()
}

// Estimates of the work of a figure's files (renderTask.work): a PNG
// costs by its pixels (filled, compressed) and the points of its lines
// (stroked), an SVG by its points (written as text). Measured on
// LANL-CM5's figures, they are rough, and only order the work.
const (
	pngWorkPerMpx   = 5    // per million pixels
	pngWorkPerPoint = 4e-4 // per point of its lines
	svgWork         = 0.3
	svgWorkPerPoint = 1.5e-4
)

// pngWork and svgWork estimate the work of the figure's PNG and SVG.
func (f *Figure) pngWork() float64 {
	px := float64(f.Width) / 72 * PNGDPI * float64(f.Height) / 72 * PNGDPI
	return pngWorkPerMpx*px/1e6 + pngWorkPerPoint*float64(f.points)
}

func (f *Figure) svgWork() float64 { return svgWork + svgWorkPerPoint*float64(f.points) }

// writeFigures renders figs' SVGs, and their PNGs from twins (from figs if
// twins is nil, on the same goroutine as the figure's SVG), beside the
// extra tasks, longest first (runLongestFirst). Each file is written as
// soon as it is rendered, to a temporary name (AtomicFile). Without
// syncLater it is then synced and renamed by a goroutine of its own, so
// that waiting for the disk overlaps the rendering of the others. With
// syncLater it is only handed to the kernel's writeback, and synced and
// renamed by wait, all files at once: a goroutine waiting in a sync holds
// its processor until the runtime takes it back (up to milliseconds
// later), which stalled the rendering of the others, and syncs made
// together end together.
//
// writeFigures returns when every figure is rendered and every extra task
// done, with wait, which waits for the files (committing them, with
// syncLater) and returns the first error of all (in the figures' order,
// SVG before PNG, a file's rendering before its writing), and the first
// error rendering.
func writeFigures(dir string, figs, twins []*Figure, extra []renderTask, syncLater bool) ([]Rendered, func() error, error) {
	type rendering struct {
		svg, png           []byte
		hover              string
		svgErr, pngErr     error
		svgWrite, pngWrite error
		// svgFile and pngFile, with syncLater, are the files written
		// and not yet committed.
		svgFile, pngFile *AtomicFile
	}
	done := make([]rendering, len(figs))
	var writes sync.WaitGroup
	write := func(name string, b []byte, err *error, file **AtomicFile) {
		path := filepath.Join(dir, name)
		if syncLater {
			a, cerr := CreateAtomic(path)
			if cerr != nil {
				*err = cerr
				return
			}
			if _, werr := a.Write(b); werr != nil {
				a.Abort()
				*err = fmt.Errorf("report: writing %s: %w", path, werr)
				return
			}
			a.StartWriteback()
			*file = a
			return
		}
		writes.Add(1)
		go func() {
			defer writes.Done()
			*err = WriteFileAtomic(path, func(w io.Writer) error {
				_, err := w.Write(b)
				return err
			})
		}()
	}
	svg := func(f *Figure, r *rendering) {
		if r.svg, r.svgErr = f.SVG(); r.svgErr == nil {
			r.hover = f.hoverJSON()
			write(f.Name+".svg", r.svg, &r.svgWrite, &r.svgFile)
		}
	}
	png := func(f *Figure, r *rendering) {
		if r.png, r.pngErr = f.PNG(); r.pngErr == nil {
			write(f.Name+".png", r.png, &r.pngWrite, &r.pngFile)
		}
	}
	tasks := extra
	for i, f := range figs {
		r := &done[i]
		if twins == nil {
			tasks = append(tasks, renderTask{f.pngWork() + f.svgWork(), func() {
				svg(f, r)
				png(f, r)
			}})
			continue
		}
		tasks = append(tasks,
			renderTask{twins[i].pngWork(), func() { png(twins[i], r) }},
			renderTask{f.svgWork(), func() { svg(f, r) }})
	}
	runLongestFirst(tasks)
	var renderErr error
	for i := range done {
		// Only the rendering's fields: the files' may still be written.
		renderErr = cmp.Or(renderErr, done[i].svgErr, done[i].pngErr)
	}
	wait := func() error {
		for i := range done {
			r := &done[i]
			for _, c := range []struct {
				file **AtomicFile
				err  *error
			}{{&r.svgFile, &r.svgWrite}, {&r.pngFile, &r.pngWrite}} {
				if a := *c.file; a != nil {
					*c.file = nil
					if renderErr != nil {
						a.Abort() // no figure's file without the others
						continue
					}
					writes.Go(func() { *c.err = a.Commit() })
				}
			}
		}
		writes.Wait()
		for _, r := range done {
			if err := cmp.Or(r.svgErr, r.svgWrite, r.pngErr, r.pngWrite); err != nil {
				return err
			}
		}
		return nil
	}
	if renderErr != nil {
		return nil, wait, renderErr
	}
	out := make([]Rendered, 0, len(figs))
	for i, f := range figs {
		out = append(out, Rendered{Figure: f, SVGBytes: done[i].svg, hover: done[i].hover, hoverMade: true})
	}
	return out, wait, nil
}

// RunFigures returns the figures of one run, in report order: utilisation
// and queue over time (with a Series), the wait-time CDF (with waits), the
// bounded slowdown by class, and the Gantt chart (with a complete Gantt
// holding at least one job).
func RunFigures(r *Run) []*Figure {
	var figs []*Figure
	sub := wrapSubtitle(r.Summary.Trace+" · "+r.Summary.Policy, subtitleWidth)
	if r.Series != nil && r.Series.started {
		figs = append(figs, utilisationFigure(r, sub), queueFigure(r, sub))
		if f := nodeEventsFigure(r, sub); f != nil {
			figs = append(figs, f)
		}
		if len(r.Power) > 0 {
			figs = append(figs, powerFigure(r, sub))
		}
	}
	if len(r.Waits) > 0 {
		figs = append(figs, waitCDFFigure([]*Run{r}, "wait_cdf", "Wait-time CDF\n"+sub))
	}
	figs = append(figs, slowdownFigure(r, sub))
	if b := r.Summary.Breakdowns; b != nil && b.HourOfWeek != nil {
		figs = append(figs, hourOfWeekFigure(r, sub))
	}
	if r.Gantt != nil && r.Gantt.Len() > 0 && (r.GanttFigureMax <= 0 || r.Gantt.Len() <= r.GanttFigureMax) {
		figs = append(figs, ganttFigure(r, sub))
	}
	return figs
}

// CompareFigures returns the overlaid figures of several runs: wait-time
// CDFs, utilisation and queue length on shared axes.
func CompareFigures(runs []*Run) []*Figure {
	var figs []*Figure
	withWaits := 0
	for _, r := range runs {
		if len(r.Waits) > 0 {
			withWaits++
		}
	}
	if withWaits > 0 {
		figs = append(figs, waitCDFFigure(runs, "compare_wait_cdf", "Wait-time CDF\n"+compareSubtitle(runs)))
	}
	withSeries := true
	for _, r := range runs {
		withSeries = withSeries && r.Series != nil && r.Series.started
	}
	if withSeries && len(runs) > 0 {
		figs = append(figs,
			overlayFigure(runs, Busy, "compare_utilisation", "Utilisation over time\n"+compareSubtitle(runs), "utilisation (%)"),
			overlayFigure(runs, Queued, "compare_queue", "Queued jobs over time\n"+compareSubtitle(runs), "queued jobs"))
	}
	return figs
}

func compareSubtitle(runs []*Run) string {
	traces := map[string]bool{}
	var names []string
	for _, r := range runs {
		if !traces[r.Summary.Trace] {
			traces[r.Summary.Trace] = true
			names = append(names, r.Summary.Trace)
		}
	}
	return wrapSubtitle(strings.Join(names, ", "), subtitleWidth)
}

// subtitleWidth is the most characters a line of a plot's subtitle holds:
// at the title's size, a longer line would be cut at the narrowest
// figure's edges.
const subtitleWidth = 80

// wrapSubtitle breaks s into lines of at most width characters where it
// can: after the " · " between trace and policy, then after the "+" or
// ", " between a policy's settings or a comparison's traces. A piece
// longer than width stays whole.
func wrapSubtitle(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	var lines []string
	line := ""
	for _, piece := range splitAfterAny(s, " · ", "+", ", ") {
		if line != "" && utf8.RuneCountInString(line)+utf8.RuneCountInString(piece) > width {
			lines = append(lines, strings.TrimSpace(strings.TrimSuffix(line, " ·")))
			line = ""
		}
		line += piece
		if strings.HasSuffix(piece, " · ") {
			// The trace on a line of its own when the whole is too long.
			lines = append(lines, strings.TrimSuffix(line, " · "))
			line = ""
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// splitAfterAny splits s after every occurrence of any of the separators,
// which stay at the ends of the pieces.
func splitAfterAny(s string, seps ...string) []string {
	var pieces []string
	for s != "" {
		cut := len(s)
		for _, sep := range seps {
			if i := strings.Index(s, sep); i >= 0 && i+len(sep) < cut {
				cut = i + len(sep)
			}
		}
		pieces = append(pieces, s[:cut])
		s = s[cut:]
	}
	return pieces
}

// Text and line styles shared by every plot.
var (
	sansFont   = font.Font{Typeface: "Liberation", Variant: "Sans"}
	gridColor  = color.Gray{Y: 225}
	lineColors = []color.Color{
		color.RGBA{R: 31, G: 119, B: 180, A: 255},
		color.RGBA{R: 214, G: 39, B: 40, A: 255},
		color.RGBA{R: 44, G: 160, B: 44, A: 255},
		color.RGBA{R: 148, G: 103, B: 189, A: 255},
		color.RGBA{R: 255, G: 127, B: 14, A: 255},
		color.RGBA{R: 140, G: 86, B: 75, A: 255},
		color.RGBA{R: 227, G: 119, B: 194, A: 255},
		color.RGBA{R: 127, G: 127, B: 127, A: 255},
	}
	lineDashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}
)

func sans(st *text.Style, size vg.Length) {
	st.Font = font.From(sansFont, size)
	st.Handler = plotTextHandler()
}

// newPlot returns a plot with the house style: sans-serif text, light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	sans(&p.Title.TextStyle, 12)
	sans(&p.X.Label.TextStyle, 11)
	sans(&p.Y.Label.TextStyle, 11)
	sans(&p.X.Tick.Label, 10)
	sans(&p.Y.Tick.Label, 10)
	sans(&p.Legend.TextStyle, 10)
	p.Title.Padding = vg.Points(8)
	p.X.Padding, p.Y.Padding = vg.Points(2), vg.Points(2)
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = gridColor, gridColor
	p.Add(g)
	return p
}

// timeUnit is the unit of a time axis.
type timeUnit struct {
	name string
	sec  float64 // the run's ticks in one unit
	tick float64 // the run's ticks a second
}

// timeUnitFor picks the unit that gives readable ticks over span, in a
// run's ticks of 1/tick second (0 or 1: seconds).
func timeUnitFor(span workload.Time, tick int64) timeUnit {
	k := float64(max(tick, 1))
	s := float64(span) / k
	switch {
	case s >= 3*86400:
		return timeUnit{"days", 86400 * k, k}
	case s >= 3*3600:
		return timeUnit{"hours", 3600 * k, k}
	case s >= 20*60:
		return timeUnit{"minutes", 60 * k, k}
	}
	return timeUnit{"s", k, k}
}

// dur formats a duration of d of the run's ticks for people
// (durationText).
func (u timeUnit) dur(d float64) string { return durationText(d / u.tick) }

// timeAxisLabel is the label of a time axis in unit u since the first
// submission.
func timeAxisLabel(u timeUnit) string {
	return "time since the first submission (" + u.name + ")"
}

// stepXYs turns segments into the vertices of a step line of quantity s,
// scaled by scale, with x in unit u since origin.
func stepXYs(segs []Segment, s Series, scale float64, origin workload.Time, u timeUnit) plotter.XYs {
	xys := make(plotter.XYs, 0, 2*len(segs))
	for _, g := range segs {
		y := g.Level[s] * scale
		x0 := float64(g.From-origin) / u.sec
		x1 := float64(g.To-origin) / u.sec
		if n := len(xys); n > 0 && xys[n-1].Y == y && xys[n-1].X == x0 {
			xys[n-1].X = x1 // extend a level that goes on
			continue
		}
		xys = append(xys, plotter.XY{X: x0, Y: y}, plotter.XY{X: x1, Y: y})
	}
	return xys
}

// stepKey names a step line of a TimeSeries (cachedStepXYs).
type stepKey struct {
	peak  bool
	s     Series
	scale float64
	u     timeUnit
}

// cachedStepXYs returns stepXYs of quantity s of the series' segments
// (peak: the bucket peaks), scaled, from its start, in unit u: made once
// for the figures of a run, which draw it for the SVG and for the PNG file.
// The line is shared: it must not be changed.
func (ts *TimeSeries) cachedStepXYs(peak bool, s Series, scale float64, u timeUnit) plotter.XYs {
	k := stepKey{peak, s, scale, u}
	ts.xyMu.Lock()
	defer ts.xyMu.Unlock()
	if xys, ok := ts.xys[k]; ok {
		return xys
	}
	xys := stepXYs(ts.cachedSegments(peak), s, scale, ts.Start(), u)
	if ts.xys == nil {
		ts.xys = map[stepKey]plotter.XYs{}
	}
	ts.xys[k] = xys
	return xys
}

// newLine returns a solid line through xys in colour i of the palette.
func newLine(xys plotter.XYs, i int, width vg.Length) *polyline {
	return &polyline{xys: xys, LineStyle: draw.LineStyle{Color: lineColors[i%len(lineColors)], Width: width}}
}

// overlayLine returns the line of run i in an overlay: colour i and, so
// that lines stay apart in grey print, dash pattern i.
func overlayLine(xys plotter.XYs, i int, width vg.Length) *polyline {
	l := newLine(xys, i, width)
	l.Dashes = lineDashes[i%len(lineDashes)]
	return l
}

// hline returns a dashed horizontal reference line at y over [x0, x1].
func hline(y, x0, x1 float64, c color.Color) *polyline {
	return &polyline{xys: plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}},
		LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}}
}

// resolution describes the series' bucket width for a caption.
func resolution(ts *TimeSeries, u timeUnit) string {
	if ts.Width() <= 1 {
		return "exact: every change is drawn"
	}
	return "each step is the time-weighted mean over " + u.dur(float64(ts.Width())) +
		" (the series keeps at most " + fmt.Sprint(ts.maxPoints) + " points)"
}

// durationText formats sec seconds for people: "45 s", "12 min", "3.5 h",
// "2.0 days".
func durationText(sec float64) string {
	switch {
	case sec < 120:
		return fmt.Sprintf("%.0f s", sec)
	case sec < 2*3600:
		return fmt.Sprintf("%.0f min", sec/60)
	case sec < 2*86400:
		return fmt.Sprintf("%.1f h", sec/3600)
	}
	return fmt.Sprintf("%.1f days", sec/86400)
}

// smoothWidths are the bin widths a dense utilisation plot may be smoothed
// over, in seconds: a minute, ten minutes, an hour, six hours, a day, a week,
// thirty days.
var smoothWidths = []workload.Time{60, 600, 3600, 6 * 3600, 86400, 7 * 86400, 30 * 86400}

// smoothAbove is the number of segments above which a time plot is too dense
// to read and the utilisation plot adds smoothed means.
const smoothAbove = 400

// smoothWidth returns the smallest of smoothWidths that cuts span, in
// ticks of 1/tick second, into at most 250 bins.
func smoothWidth(span workload.Time, tick int64) workload.Time {
	for _, w := range smoothWidths {
		if w *= workload.Time(max(tick, 1)); span/w <= 250 {
			return w
		}
	}
	return max(span/250, 1)
}

func utilisationFigure(r *Run, sub string) *Figure {
	ts := r.Series
	u := timeUnitFor(ts.End()-ts.Start(), r.Tick)
	p := newPlot("Utilisation over time\n"+sub, "", "busy processors (% of "+fmt.Sprint(ts.Procs())+")")
	timeAxis(&p.X, r.Calendar, u, ts.Start())
	segs := ts.cachedSegments(false)
	scale := 100 / float64(ts.Procs())
	x1 := float64(ts.End()-ts.Start()) / u.sec
	caption := "Processors allocated, as a percentage of the machine, against simulated time; " + resolution(ts, u) + "."
	points := 0
	if len(segs) <= smoothAbove {
		l := newLine(ts.cachedStepXYs(false, Busy, scale, u), 0, vg.Points(1))
		points = len(l.xys)
		p.Add(l)
		p.Legend.Add("busy processors", l)
	} else {
		raw := newLine(ts.cachedStepXYs(false, Busy, scale, u), 0, vg.Points(0.5))
		raw.Color = color.RGBA{R: 160, G: 195, B: 225, A: 255}
		w := smoothWidth(ts.End()-ts.Start(), r.Tick)
		n := int((ts.End() - ts.Start() + w - 1) / w)
		means := ts.Resample(Busy, ts.Start(), ts.Start()+workload.Time(n)*w, n)
		xys := make(plotter.XYs, 0, 2*n)
		for b, m := range means {
			x0 := float64(workload.Time(b)*w) / u.sec
			xe := math.Min(float64(workload.Time(b+1)*w)/u.sec, x1)
			xys = append(xys, plotter.XY{X: x0, Y: m * scale}, plotter.XY{X: xe, Y: m * scale})
		}
		smooth := newLine(xys, 0, vg.Points(1.6))
		points = len(raw.xys) + len(xys)
		smooth.Color = color.RGBA{R: 8, G: 48, B: 107, A: 255}
		p.Add(raw, smooth)
		p.Legend.Add("busy processors", raw)
		p.Legend.Add("mean per "+u.dur(float64(w)), smooth)
		caption += " The dark line is the mean over each " + u.dur(float64(w)) + "."
	}
	caption += addUnavailable(p, ts, segs, u)
	mean := hline(100*r.Summary.Utilisation, 0, x1, color.Black)
	p.Add(mean)
	p.Legend.Add(fmt.Sprintf("utilisation over the makespan: %.1f %%", 100*r.Summary.Utilisation), mean)
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, 125 // room for the legend above 100 %
	p.Y.Tick.Marker = fixedTicks(0, 100, 20, "%.0f")
	p.X.Min, p.X.Max = 0, x1
	fig := &Figure{
		Name: "utilisation", Title: "Utilisation over time",
		Caption: caption + " The dashed line is the utilisation over the whole makespan.",
		Width:   9 * vg.Inch, Height: 4.5 * vg.Inch,
		draw: p.Draw, points: points,
	}
	addLazyHover(fig, p, func() []hoverDatum {
		return seriesHover(ts, Busy, scale, u, ts.Start(), r.Calendar, hoverBins, "busy", "%.1f %%")
	})
	return fig
}

// hoverBins is how many values a time plot names on hover.
const hoverBins = 400

// niceTicks puts about five to ten labelled ticks at round values (1, 2 or
// 5 times a power of ten) with a minor tick between each, labelled with as
// few decimals as the step needs.
var niceTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	raw := (hi - lo) / 8
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var ts []plot.Tick
	first := math.Ceil(lo/step*2-1e-9) / 2
	for k := first; k*step <= hi+math.Abs(hi)*1e-12+1e-12; k += 0.5 {
		v := k * step
		label := ""
		if math.Mod(k, 1) == 0 {
			label = strconv.FormatFloat(v, 'f', dec, 64)
			if label == "-0" {
				label = "0"
			}
		}
		ts = append(ts, plot.Tick{Value: v, Label: label})
	}
	return ts
})

// lighter returns c mixed with white, a fraction f of the way.
func lighter(c color.Color, f float64) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8(float64(v>>8) + (255-float64(v>>8))*f) }
	return color.RGBA{R: mix(r), G: mix(g), B: mix(b), A: 255}
}

// addSeries adds quantity s of the series to p as a step line in colour i,
// with the bucket peaks drawn lighter behind it when the series is
// bucketed, and returns how many points the lines have.
func addSeries(p *plot.Plot, ts *TimeSeries, s Series, i int, u timeUnit, label string) int {
	l := newLine(ts.cachedStepXYs(false, s, 1, u), i, vg.Points(0.9))
	points := len(l.xys)
	if ts.Width() > 1 {
		peak := newLine(ts.cachedStepXYs(true, s, 1, u), i, vg.Points(0.6))
		peak.Color = lighter(l.Color, 0.6)
		points += len(peak.xys)
		p.Add(peak)
		p.Legend.Add(label+", peak per "+u.dur(float64(ts.Width())), peak)
		label += ", mean per " + u.dur(float64(ts.Width()))
	}
	p.Add(l)
	p.Legend.Add(label, l)
	return points
}

func queueFigure(r *Run, sub string) *Figure {
	ts := r.Series
	u := timeUnitFor(ts.End()-ts.Start(), r.Tick)
	x1 := float64(ts.End()-ts.Start()) / u.sec

	// Three panels, each on its own scale: a queue of hundreds of jobs
	// and a few dozen running ones, or a demand of tens of machines and
	// the machine itself, flatten each other on one axis.
	queued := newPlot("Queue over time\n"+sub, "", "queued jobs")
	queued.Y.Tick.Marker = niceTicks
	timeAxis(&queued.X, r.Calendar, u, ts.Start())
	queued.X.Label.Text = ""
	points := addSeries(queued, ts, Queued, 1, u, "queued jobs")
	queued.Legend.Top = true
	queued.X.Min, queued.X.Max = 0, x1
	queued.Y.Min = 0
	queued.Y.Max = max(queued.Y.Max, 1) * 1.35 // room for the legend

	running := newPlot("", "", "running jobs")
	running.Y.Tick.Marker = niceTicks
	timeAxis(&running.X, r.Calendar, u, ts.Start())
	running.X.Label.Text = ""
	points += addSeries(running, ts, Running, 0, u, "running jobs")
	running.Legend.Top = true
	running.X.Min, running.X.Max = 0, x1
	running.Y.Min = 0
	running.Y.Max = max(running.Y.Max, 1) * 1.35

	demand := newPlot("", "", "processors")
	demand.Y.Tick.Marker = niceTicks
	timeAxis(&demand.X, r.Calendar, u, ts.Start())
	points += addSeries(demand, ts, QueuedProcs, 3, u, "processors the queued jobs ask for")
	machine := hline(float64(ts.Procs()), 0, x1, color.Black)
	demand.Add(machine)
	demand.Legend.Add(fmt.Sprintf("machine size (%d)", ts.Procs()), machine)
	demand.Legend.Top = true
	demand.X.Min, demand.X.Max = 0, x1
	demand.Y.Min = 0
	// A few bursts of demand tens of machines deep would flatten the rest
	// against the axis: the scale stops at twice the machine or the 99th
	// percentile of the demand over time, whichever is higher, and cuts
	// the higher peaks.
	peak, top := demand.Y.Max, demandScale(ts)
	if peak <= top*1.05 {
		top = peak
	}
	demand.Y.Max = math.Max(top, float64(ts.Procs())) * 1.3 // room for the legend
	cut := ""
	if peak > demand.Y.Max {
		cut = fmt.Sprintf(" The demand's scale stops at %.0f processors: higher peaks (the highest: %.0f) are cut at the top.", demand.Y.Max, peak)
	}
	fig := &Figure{
		Name: "queue", Title: "Queue length and queued demand over time",
		Caption: "Top: jobs waiting. Middle: jobs running, on its own scale. Bottom: processors the waiting jobs ask for, in all, against the machine size; " +
			resolution(ts, u) + ", drawn lighter at its peak." + cut,
		Width: 9 * vg.Inch, Height: 8 * vg.Inch, points: points,
		draw: func(c draw.Canvas) {
			tiles := draw.Tiles{Rows: 3, Cols: 1, PadY: vg.Points(6), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(6)}
			cs := plot.Align([][]*plot.Plot{{queued}, {running}, {demand}}, tiles, c)
			queued.Draw(cs[0][0])
			running.Draw(cs[1][0])
			demand.Draw(cs[2][0])
		},
	}
	addLazyHover(fig, queued, func() []hoverDatum {
		return seriesHover(ts, Queued, 1, u, ts.Start(), r.Calendar, hoverBins, "queued jobs", "%.1f")
	})
	addLazyHover(fig, running, func() []hoverDatum {
		return seriesHover(ts, Running, 1, u, ts.Start(), r.Calendar, hoverBins, "running jobs", "%.1f")
	})
	addLazyHover(fig, demand, func() []hoverDatum {
		return seriesHover(ts, QueuedProcs, 1, u, ts.Start(), r.Calendar, hoverBins, "processors asked for by the queued jobs", "%.0f")
	})
	return fig
}

// demandScale returns the top of the queued-demand axis: twice the machine
// size, or the 99th percentile over time of the demand (the series' means),
// whichever is higher.
func demandScale(ts *TimeSeries) float64 {
	segs := ts.cachedSegments(false)
	if len(segs) == 0 {
		return 2 * float64(ts.Procs())
	}
	type level struct {
		v   float64
		dur workload.Time
	}
	levels := make([]level, len(segs))
	var total workload.Time
	for i, g := range segs {
		levels[i] = level{g.Level[QueuedProcs], g.To - g.From}
		total += g.To - g.From
	}
	slices.SortFunc(levels, func(a, b level) int { return cmp.Compare(a.v, b.v) })
	var acc workload.Time
	p99 := levels[len(levels)-1].v
	for _, l := range levels {
		acc += l.dur
		if float64(acc) >= 0.99*float64(total) {
			p99 = l.v
			break
		}
	}
	return math.Max(2*float64(ts.Procs()), p99)
}

// fixedTicks returns a ticker with a labelled tick every step from lo to hi.
func fixedTicks(lo, hi, step float64, format string) plot.Ticker {
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		var ts []plot.Tick
		for v := lo; v <= hi+step/1e6; v += step {
			ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprintf(format, v)})
		}
		return ts
	})
}

// waitTicks labels a logarithmic wait axis in time units people read.
var waitTicks = plot.TickerFunc(func(min, max float64) []plot.Tick {
	marks := []struct {
		v     float64
		label string
	}{
		{1, "≤1 s"}, {10, "10 s"}, {60, "1 min"}, {600, "10 min"}, {3600, "1 h"},
		{36000, "10 h"}, {86400, "1 day"}, {864000, "10 days"}, {8640000, "100 days"},
	}
	var ts []plot.Tick
	for _, m := range marks {
		if m.v >= min*0.999 && m.v <= max*1.001 {
			ts = append(ts, plot.Tick{Value: m.v, Label: m.label})
		}
	}
	return ts
})

// cdfMaxPoints bounds the vertices of a CDF line.
const cdfMaxPoints = 2000

// cdfXYs returns the step CDF of the sorted waits, in ticks of 1/tick
// second (0 or 1: seconds), in seconds, with waits below 1 s
// drawn at 1 s (the axis is logarithmic). Each distinct wait gives a vertex;
// past cdfMaxPoints of them, a vertex is kept only where the wait grew by
// a factor of at least (max)^(1/cdfMaxPoints) or the fraction by
// 1/cdfMaxPoints, which keeps the curve's shape at any scale.
func cdfXYs(waits []int64, tick int64) plotter.XYs {
	n := float64(len(waits))
	xys := plotter.XYs{}
	lastX, lastY := math.Inf(-1), math.Inf(-1)
	k := float64(max(tick, 1))
	maxW := math.Max(1, float64(waits[len(waits)-1])/k)
	xStep := math.Pow(maxW, 1.0/cdfMaxPoints)
	for i := 0; i < len(waits); {
		j := i
		for j < len(waits) && waits[j] == waits[i] {
			j++
		}
		x := math.Max(1, float64(waits[i])/k)
		y := float64(j) / n
		if j == len(waits) || len(xys) == 0 || x >= lastX*xStep || y-lastY >= 1.0/cdfMaxPoints {
			if k := len(xys); k > 0 && xys[k-1].X == x {
				xys[k-1].Y = y // several waits below 1 s share x = 1
			} else {
				xys = append(xys, plotter.XY{X: x, Y: y})
			}
			lastX, lastY = x, y
		}
		i = j
	}
	return xys
}

func waitCDFFigure(runs []*Run, name, title string) *Figure {
	p := newPlot(title, "wait (log scale)", "fraction of jobs that waited at most x")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = waitTicks
	maxW := 10.0 // s
	for _, r := range runs {
		if len(r.Waits) > 0 {
			maxW = max(maxW, float64(r.Waits[len(r.Waits)-1])/float64(max(r.Tick, 1)))
		}
	}
	var hover []hoverDatum
	points := 0
	for i, r := range runs {
		if len(r.Waits) == 0 {
			continue
		}
		xys := cdfXYs(r.Waits, r.Tick)
		if last := xys[len(xys)-1]; last.X < maxW {
			xys = append(xys, plotter.XY{X: maxW, Y: last.Y})
		}
		steps := make(plotter.XYs, 0, 2*len(xys))
		for k, xy := range xys {
			if k > 0 {
				steps = append(steps, plotter.XY{X: xy.X, Y: xys[k-1].Y})
			}
			steps = append(steps, xy)
		}
		l := overlayLine(steps, i, vg.Points(1.2))
		points += len(steps)
		p.Add(l)
		label := r.Name
		if label == "" {
			label = "jobs that ran"
		}
		// On hover: about a hundred points of the curve, evenly spread
		// on the logarithmic axis.
		lastX := 0.0
		for _, xy := range xys {
			if xy.X >= lastX*1.08 || xy.X == xys[len(xys)-1].X {
				hover = append(hover, hoverDatum{X: xy.X, Y: xy.Y,
					Label: fmt.Sprintf("%s: %s of the jobs waited at most %s", label, percentText(xy.Y), durationText(xy.X))})
				lastX = xy.X
			}
		}
		zero := 0
		for zero < len(r.Waits) && r.Waits[zero] < 1 {
			zero++
		}
		p.Legend.Add(fmt.Sprintf("%s (%d jobs, %.0f %% started at once)", label, len(r.Waits), 100*float64(zero)/float64(len(r.Waits))), l)
	}
	p.X.Min, p.X.Max = 1, float64(maxW)
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = fixedTicks(0, 1, 0.2, "%.1f")
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.YOffs = vg.Points(8)
	fig := &Figure{
		Name: name, Title: "Wait-time CDF",
		Caption: "Fraction of the jobs that ran whose wait (start − submit) was at most x, on a logarithmic axis; " +
			"the curve starts at x = 1 s with the jobs that did not wait.",
		Width: 8 * vg.Inch, Height: 4.5 * vg.Inch,
		draw: p.Draw, points: points,
	}
	addHover(fig, p, hover)
	return fig
}

// classGrid is the heatmap's grid: runtime classes across, size classes up.
type classGrid struct{ s *Summary }

func (g classGrid) Dims() (c, r int) { return NumRuntimeClasses, NumSizeClasses }
func (g classGrid) Z(c, r int) float64 {
	cs := g.s.BySizeRuntime[r][c]
	if cs.Jobs == 0 {
		return math.NaN()
	}
	return math.Log10(cs.BoundedSlowdown.Mean)
}
func (g classGrid) X(c int) float64 { return float64(c) }
func (g classGrid) Y(r int) float64 { return float64(r) }

// heatPalette is ColorBrewer's sequential OrRd, light to dark.
func heatPalette() palette.Palette {
	p, err := brewer.GetPalette(brewer.TypeSequential, "OrRd", 9)
	if err != nil {
		panic(fmt.Sprintf("report: %v", err))
	}
	return p
}

func slowdownFigure(r *Run, sub string) *Figure {
	s := &r.Summary
	p := newPlot("Mean bounded slowdown by job class\n"+sub, "run time (actual)", "processors")
	hm := plotter.NewHeatMap(classGrid{s}, heatPalette())
	hm.Min = 0
	hm.Max = 1 // log10(10): a slowdown of 10 or more is dark
	for i := range s.BySizeRuntime {
		for k := range s.BySizeRuntime[i] {
			if c := s.BySizeRuntime[i][k]; c.Jobs > 0 {
				hm.Max = math.Max(hm.Max, math.Log10(c.BoundedSlowdown.Mean))
			}
		}
	}
	hm.NaN = color.Gray{Y: 245}
	hm.Overflow = hm.Palette.Colors()[len(hm.Palette.Colors())-1]
	hm.Underflow = hm.Palette.Colors()[0]
	p.Add(hm)
	var light, dark plotter.XYLabels
	for i := range s.BySizeRuntime {
		for k := range s.BySizeRuntime[i] {
			c := s.BySizeRuntime[i][k]
			text := "no jobs"
			if c.Jobs > 0 {
				text = fmt.Sprintf("%s\n%d %s", slowdownText(c.BoundedSlowdown.Mean), c.Jobs, plural(c.Jobs, "job", "jobs"))
			}
			set := &light
			if c.Jobs > 0 && math.Log10(c.BoundedSlowdown.Mean) > 0.65*hm.Max {
				set = &dark
			}
			set.XYs = append(set.XYs, plotter.XY{X: float64(k), Y: float64(i)})
			set.Labels = append(set.Labels, text)
		}
	}
	for _, set := range []struct {
		l   plotter.XYLabels
		clr color.Color
	}{{light, color.Black}, {dark, color.White}} {
		if len(set.l.XYs) == 0 {
			continue
		}
		labels, err := plotter.NewLabels(set.l)
		if err != nil {
			panic(fmt.Sprintf("report: %v", err))
		}
		for i := range labels.TextStyle {
			sans(&labels.TextStyle[i], 10)
			labels.TextStyle[i].Color = set.clr
			labels.TextStyle[i].XAlign = draw.XCenter
			labels.TextStyle[i].YAlign = draw.YCenter
		}
		p.Add(labels)
	}
	p.X.Tick.Marker = classTicks(RuntimeClassLabels[:])
	p.Y.Tick.Marker = classTicks(SizeClassLabels[:])
	p.X.Min, p.X.Max = -0.5, NumRuntimeClasses-0.5
	p.Y.Min, p.Y.Max = -0.5, NumSizeClasses-0.5
	var hover []hoverDatum
	for i := range s.BySizeRuntime {
		for k, c := range s.BySizeRuntime[i] {
			text := "no jobs"
			if c.Jobs > 0 {
				text = fmt.Sprintf("mean bounded slowdown %s, %d %s, mean wait %s", slowdownText(c.BoundedSlowdown.Mean), c.Jobs, plural(c.Jobs, "job", "jobs"), durationText(c.Wait.Mean))
			}
			hover = append(hover, hoverDatum{X: float64(k), Y: float64(i),
				Label: SizeClassLabels[i] + " processors, " + RuntimeClassLabels[k] + ": " + text})
		}
	}
	fig := &Figure{
		Name: "slowdown_by_class", Title: "Mean bounded slowdown by job class",
		Caption: fmt.Sprintf("Mean bounded slowdown (τ = %d s) of the jobs in each size × run-time class, with the number of jobs; "+
			"darker is slower, on a logarithmic colour scale from 1 to the largest cell (at least 10).", BoundedSlowdownTauSec),
		Width: 8 * vg.Inch, Height: 5 * vg.Inch,
		draw: p.Draw,
	}
	addHover(fig, p, hover)
	return fig
}

// slowdownText formats a slowdown with two decimals below 100 and none
// above.
func slowdownText(v float64) string {
	if v < 100 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// plural returns one if n is 1, else many.
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// SizeClassLabels and RuntimeClassLabels are the class names as the plots
// and the HTML tables show them.
var (
	SizeClassLabels    = [NumSizeClasses]string{"1", "2–4", "5–16", "17–64", "> 64"}
	RuntimeClassLabels = [NumRuntimeClasses]string{"< 10 min", "10 min – 1 h", "1 h – 10 h", "≥ 10 h"}
)

// classTicks labels integer positions 0, 1, … with names.
func classTicks(names []string) plot.Ticker {
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		ts := make([]plot.Tick, len(names))
		for i, n := range names {
			ts[i] = plot.Tick{Value: float64(i), Label: n}
		}
		return ts
	})
}

func overlayFigure(runs []*Run, s Series, name, title, yLabel string) *Figure {
	from, to := runs[0].Series.Start(), runs[0].Series.End()
	for _, r := range runs[1:] {
		from, to = min(from, r.Series.Start()), max(to, r.Series.End())
	}
	u := timeUnitFor(to-from, runs[0].Tick)
	const bins = 300
	cal := sameCalendar(runs)
	p := newPlot(title, "", yLabel)
	timeAxis(&p.X, cal, u, from)
	p.X.Label.Text = ""
	if s != Busy {
		p.Y.Tick.Marker = niceTicks
	}
	// Below the overlay, each later run's difference from the first: runs
	// that differ little draw lines on top of each other above, apart
	// here.
	diff := newPlot("", "", "difference from "+runName(runs, 0))
	diff.Y.Tick.Marker = niceTicks
	timeAxis(&diff.X, cal, u, from)
	zero := hline(0, 0, float64(to-from)/u.sec, color.Black)
	zero.Dashes = nil
	zero.Width = vg.Points(0.5)
	diff.Add(zero)
	binW := float64(to-from) / bins
	var base []float64
	var all [][]float64
	var hover []hoverDatum
	unitWord := map[Series]string{Busy: "% busy", Queued: "queued jobs"}[s]
	same := 0
	for i, r := range runs {
		means := r.Series.Resample(s, from, to, bins)
		scale := 1.0
		if s == Busy {
			scale = 100 / float64(r.Series.Procs())
		}
		for b := range means {
			means[b] *= scale
		}
		steps := func(vals []float64) plotter.XYs {
			xys := make(plotter.XYs, 0, 2*bins)
			for b, m := range vals {
				x0 := (float64(b) * binW) / u.sec
				x1 := (float64(b+1) * binW) / u.sec
				xys = append(xys, plotter.XY{X: x0, Y: m}, plotter.XY{X: x1, Y: m})
			}
			return xys
		}
		label := runName(runs, i)
		for k, prev := range all {
			if slices.Equal(prev, means) {
				label += " (same as " + runName(runs, k) + ")"
				same++
				break
			}
		}
		all = append(all, means)
		for b := 0; b < len(means); b += 2 {
			mid := from + workload.Time((float64(b)+0.5)*binW)
			hover = append(hover, hoverDatum{X: (float64(b) + 0.5) * binW / u.sec, Y: means[b],
				Label: fmt.Sprintf("%s, %s: %.1f %s", runName(runs, i), timeText(cal, from, mid, u), means[b], unitWord)})
		}
		l := overlayLine(steps(means), i, vg.Points(1.2))
		p.Add(l)
		p.Legend.Add(label, l)
		if i == 0 {
			base = means
			continue
		}
		d := make([]float64, len(means))
		for b := range means {
			d[b] = means[b] - base[b]
		}
		dl := overlayLine(steps(d), i, vg.Points(1.2))
		diff.Add(dl)
	}
	p.Legend.Top = true
	p.X.Min, p.X.Max = 0, float64(to-from)/u.sec
	diff.X.Min, diff.X.Max = p.X.Min, p.X.Max
	lim := math.Max(math.Abs(diff.Y.Min), math.Abs(diff.Y.Max))
	if lim == 0 {
		lim = 1
	}
	diff.Y.Min, diff.Y.Max = -lim*1.1, lim*1.1
	p.Y.Min = 0
	if s == Busy {
		p.Y.Max = 100 + 7*float64(len(runs)) // room for the legend
		p.Y.Tick.Marker = fixedTicks(0, 100, 20, "%.0f")
		diff.Y.Label.Text += " (points)"
	} else {
		p.Y.Max *= 1 + 0.1*float64(len(runs))
		diff.Y.Label.Text += " (jobs)"
	}
	what := map[Series]string{Busy: "Processors allocated, as a percentage of each run's machine",
		Queued: "Jobs waiting in the queue"}[s]
	caption := fmt.Sprintf("%s, for each run, as time-weighted means over %d equal bins of %s. "+
		"Below: each later run minus %s, bin by bin.", what, bins, u.dur(binW), runName(runs, 0))
	if same > 0 {
		caption += " A run marked \"same as\" draws exactly the line of the run it names, which hides it."
	}
	height := 4.5 * vg.Inch
	if len(runs) == 1 {
		p.X.Label.Text = diff.X.Label.Text
	} else {
		height = 6.5 * vg.Inch
	}
	fig := &Figure{
		Name: name, Title: title,
		Caption: caption,
		Width:   9 * vg.Inch, Height: height,
		draw: func(c draw.Canvas) {
			if len(runs) == 1 {
				p.Draw(c)
				return
			}
			tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(6), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(6)}
			cs := plot.Align([][]*plot.Plot{{p}, {diff}}, tiles, c)
			p.Draw(cs[0][0])
			diff.Draw(cs[1][0])
		},
	}
	addHover(fig, p, hover)
	return fig
}

package report

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DefaultSweepPlots are the metrics schedsim sweep plots unless told
// otherwise.
var DefaultSweepPlots = []string{"wait_mean", "wait_p95", "bounded_slowdown_mean", "utilisation"}

// sweepGlyphs are the point markers of a sweep plot's lines, one per line
// in turn, so that lines stay apart in grey print.
var sweepGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// SweepValueLabel returns how a parameter value is shown on a plot: a
// trace's base name, any other value as it is.
func SweepValueLabel(param, value string) string {
	if param == "trace" && value != "" {
		return filepath.Base(value)
	}
	return value
}

// SweepFigures returns one figure per metric of metrics (names from
// SweepMetrics), each named "sweep_METRIC": the metric against parameter x,
// whose values are spaced evenly in the order they first appear, with one
// line per combination of the other parameters whose value varies across
// the points (one trace, one policy, …). A metric whose positive values
// span two decades or more gets a logarithmic axis. It returns an error for
// an unknown metric or parameter, or a table without points.
func SweepFigures(t *SweepTable, x string, metrics []string) ([]*Figure, error) {
	xi := -1
	for i, p := range t.Params {
		if p == x {
			xi = i
		}
	}
	if xi < 0 {
		return nil, fmt.Errorf("report: sweep plot: %q is not a parameter of the sweep (%s)", x, strings.Join(t.Params, ", "))
	}
	if len(t.Points) == 0 {
		return nil, fmt.Errorf("report: sweep plot: no points")
	}
	// The x categories, and the parameters that tell the lines apart.
	var xs []string
	xpos := map[string]int{}
	var varying []int
	for i := range t.Params {
		for _, p := range t.Points {
			if i == xi {
				if _, ok := xpos[p.Values[i]]; !ok {
					xpos[p.Values[i]] = len(xs)
					xs = append(xs, p.Values[i])
				}
			} else if p.Values[i] != t.Points[0].Values[i] && (len(varying) == 0 || varying[len(varying)-1] != i) {
				varying = append(varying, i)
			}
		}
	}
	type line struct {
		label string
		pts   []int // point indexes
	}
	var lines []*line
	byKey := map[string]*line{}
	for k, p := range t.Points {
		var key, label []string
		for _, i := range varying {
			key = append(key, p.Values[i])
			v := SweepValueLabel(t.Params[i], p.Values[i])
			if len(varying) > 1 || t.Params[i] != "trace" {
				v = t.Params[i] + "=" + v
			}
			label = append(label, v)
		}
		id := strings.Join(key, "\x00")
		l := byKey[id]
		if l == nil {
			l = &line{label: strings.Join(label, ", ")}
			byKey[id] = l
			lines = append(lines, l)
		}
		l.pts = append(l.pts, k)
	}
	var figs []*Figure
	for _, name := range metrics {
		m, ok := LookupSweepMetric(name)
		if !ok {
			return nil, fmt.Errorf("report: sweep plot: unknown metric %q", name)
		}
		title := fmt.Sprintf("%s against %s", upperFirst(strings.TrimSuffix(strings.TrimSuffix(m.Label, " (s)"), " (%)")), x)
		if sub := sweepSubtitle(t, x, varying); sub != "" {
			title += "\n" + sub
		}
		p := newPlot(title, x, m.Label)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, pt := range t.Points {
			v := m.Display(&pt.Summary)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		logY := lo > 0 && hi/lo >= 100
		if logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
			p.Y.Label.Text += " (log scale)"
		} else {
			p.Y.Tick.Marker = niceTicks
			if lo >= 0 {
				p.Y.Min = 0
			}
			if hi > 0 {
				p.Y.Max = hi * 1.05 // room for the markers at the top
			}
		}
		// Categories (policies, traces, backfill modes) have no order: their
		// points are not joined, and each line's markers are set a little
		// apart so that equal values do not hide each other.
		categorical := !sweepOrdered(xs)
		leg := plot.NewLegend()
		sans(&leg.TextStyle, 10)
		leg.Top, leg.Left = true, true
		for i, l := range lines {
			xys := make(plotter.XYs, 0, len(l.pts))
			for _, k := range l.pts {
				pt := &t.Points[k]
				x := float64(xpos[pt.Values[xi]])
				if categorical && len(lines) > 1 {
					x += 0.3 * (float64(i)/float64(len(lines)-1) - 0.5)
				}
				xys = append(xys, plotter.XY{X: x, Y: m.Display(&pt.Summary)})
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("report: sweep plot of %s: %w", name, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: lineColors[i%len(lineColors)], Radius: vg.Points(3), Shape: sweepGlyphs[i%len(sweepGlyphs)]}
			if categorical {
				p.Add(sc)
				if l.label != "" {
					leg.Add(l.label, sc)
				}
				continue
			}
			ln := overlayLine(xys, i, vg.Points(1.5))
			p.Add(ln, sc)
			if l.label != "" {
				leg.Add(l.label, ln, sc)
			}
		}
		p.X.Min, p.X.Max = -0.3, float64(len(xs)-1)+0.3
		xticks := make([]plot.Tick, len(xs))
		for i, v := range xs {
			xticks[i] = plot.Tick{Value: float64(i), Label: SweepValueLabel(x, v)}
		}
		p.X.Tick.Marker = plot.ConstantTicks(xticks)
		caption := fmt.Sprintf("%s of each point of the sweep against %s (values evenly spaced, in the order given)", upperFirst(m.Label), x)
		switch {
		case categorical && len(lines) > 1:
			caption += fmt.Sprintf("; %s values are categories, not joined; one marker for each %s, set side by side", x, strings.Join(paramNames(t.Params, varying), " and "))
		case categorical:
			caption += fmt.Sprintf("; %s values are categories, not joined", x)
		case len(lines) > 1:
			caption += fmt.Sprintf("; one line for each %s", strings.Join(paramNames(t.Params, varying), " and "))
		}
		figs = append(figs, &Figure{
			Name: "sweep_" + name, Title: title, Caption: caption + ".",
			Width: 9 * vg.Inch, Height: 4.5 * vg.Inch,
			draw: func(c draw.Canvas) { drawWithSideLegend(c, p, &leg) },
		})
	}
	return figs, nil
}

// sweepOrdered reports whether the x values of a sweep have an order that a
// line between them means: every value is a number, a duration with a unit
// (30m, 2h), or a word for no bound ("all", "unlimited", "infinite").
func sweepOrdered(xs []string) bool {
	for _, v := range xs {
		v = strings.ToLower(strings.TrimSpace(v))
		switch v {
		case "all", "unlimited", "infinite", "inf":
			continue
		}
		num := strings.TrimRight(v, "smhdw%")
		if _, err := strconv.ParseFloat(num, 64); err != nil {
			return false
		}
	}
	return true
}

// drawWithSideLegend draws p with leg to its right, outside the data area,
// so that the legend never hides a line.
func drawWithSideLegend(c draw.Canvas, p *plot.Plot, leg *plot.Legend) {
	r := leg.Rectangle(c)
	if r.Max.X-r.Min.X <= 0 {
		p.Draw(c)
		return
	}
	gap := vg.Points(12)
	w := r.Max.X - r.Min.X + gap
	p.Draw(draw.Crop(c, 0, -w, 0, 0))
	top := p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding
	leg.Draw(draw.Crop(c, c.Max.X-c.Min.X-w+gap/2, 0, 0, -top))
}

// paramNames returns the names of the parameters at indexes idx.
func paramNames(params []string, idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = params[i]
	}
	return out
}

// upperFirst returns s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sweepSubtitle names the trace of a plot whose lines are not one per
// trace: the trace of every point, when they share one.
func sweepSubtitle(t *SweepTable, x string, varying []int) string {
	if x == "trace" {
		return ""
	}
	for _, i := range varying {
		if t.Params[i] == "trace" {
			return ""
		}
	}
	name := t.Points[0].Summary.Trace
	for _, p := range t.Points {
		if p.Summary.Trace != name {
			return ""
		}
	}
	return name
}

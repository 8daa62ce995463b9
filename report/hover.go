package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/schedsim/schedsim/workload"
)

// hoverDatum is a point of a plot that report.html names on hover: where
// it is, in the plot's data coordinates, and what it is.
type hoverDatum struct {
	X, Y  float64
	Label string
}

// hoverMarks is an invisible plotter that, when its plot is drawn as SVG,
// records where its points land in the SVG's coordinates (points, y down)
// in the figure, for the page's script. Its points are made (by make) when
// an SVG is first drawn: a figure drawn only as PNG never needs them.
type hoverMarks struct {
	fig  *Figure
	pts  []hoverDatum
	make func() []hoverDatum
}

// Plot records the points' positions; it draws nothing.
func (h *hoverMarks) Plot(c draw.Canvas, p *plot.Plot) {
	var svg *vgsvg.Canvas
	switch c := innerCanvas(c).(type) {
	case *vgsvg.Canvas:
		svg = c
	case *svgCanvas:
		svg = c.Canvas
	default:
		return
	}
	if h.make != nil {
		h.pts, h.make = h.make(), nil
	}
	_, height := svg.Size()
	trX, trY := p.Transforms(&c)
	for _, d := range h.pts {
		if math.IsNaN(d.X) || math.IsNaN(d.Y) || d.X < p.X.Min || d.X > p.X.Max || d.Y < p.Y.Min || d.Y > p.Y.Max {
			continue
		}
		x, y := trX(d.X), trY(d.Y)
		h.fig.hover = append(h.fig.hover, hoverPoint{X: round2(float64(x)), Y: round2(float64(height - y)), Label: d.Label})
	}
}

// innerCanvas returns the canvas c draws on: a plot's data canvas may be
// a draw.Canvas on a draw.Canvas (of a tile) on the figure's canvas, each
// passing every call on unchanged.
func innerCanvas(c draw.Canvas) vg.Canvas {
	var inner vg.Canvas = c.Canvas
	for {
		dc, ok := inner.(draw.Canvas)
		if !ok {
			return inner
		}
		inner = dc.Canvas
	}
}

// hoverPoint is a hover point in SVG coordinates.
type hoverPoint struct {
	X, Y  float64
	Label string
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// addHover adds points to name on hover to p, drawn in fig.
func addHover(fig *Figure, p *plot.Plot, pts []hoverDatum) {
	p.Add(&hoverMarks{fig: fig, pts: pts})
}

// addLazyHover is addHover of the points pts returns, made only if the
// figure is drawn as SVG (the figures built for the PNG files are not).
func addLazyHover(fig *Figure, p *plot.Plot, pts func() []hoverDatum) {
	p.Add(&hoverMarks{fig: fig, make: pts})
}

// hoverJSON returns the figure's hover points as JSON: [[x, y, label], …].
func (f *Figure) hoverJSON() string {
	if len(f.hover) == 0 {
		return ""
	}
	// As json.Marshal writes [][3]any of them, byte for byte, without
	// boxing every value: numbers as encoding/json writes those from 1e-6
	// to 1e21 (strconv's shortest 'f'), and labels of plain ASCII quoted
	// as they are; any other label goes through json.Marshal, and a point
	// with another number makes the whole go through it.
	b := make([]byte, 0, 64*len(f.hover))
	b = append(b, '[')
	for i, h := range f.hover {
		if !jsonPlainNumber(h.X) || !jsonPlainNumber(h.Y) {
			return f.hoverJSONMarshal()
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendFloat(b, h.X, 'f', -1, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, h.Y, 'f', -1, 64)
		b = append(b, ',')
		if jsonPlainString(h.Label) {
			b = append(b, '"')
			b = append(b, h.Label...)
			b = append(b, '"')
		} else {
			s, err := json.Marshal(h.Label)
			if err != nil {
				return ""
			}
			b = append(b, s...)
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	return string(b)
}

// hoverJSONMarshal is hoverJSON through json.Marshal.
func (f *Figure) hoverJSONMarshal() string {
	rows := make([][3]any, len(f.hover))
	for i, h := range f.hover {
		rows[i] = [3]any{h.X, h.Y, h.Label}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return ""
	}
	return string(b)
}

// jsonPlainNumber reports whether encoding/json writes v as strconv's
// shortest 'f' format: zero, and magnitudes from 1e-6 up to 1e21.
func jsonPlainNumber(v float64) bool {
	a := math.Abs(v)
	return a == 0 || a >= 1e-6 && a < 1e21
}

// jsonPlainString reports whether json.Marshal writes s as it is, within
// quotes: printable ASCII, without the quote, the backslash and the
// characters it escapes for HTML (<, >, &).
func jsonPlainString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// timeText names trace time t for a hover label: a local date and time
// with a calendar, else the time since origin; u gives the run's tick.
func timeText(cal *Calendar, origin, t workload.Time, u timeUnit) string {
	if cal != nil {
		return cal.At(t).Format("Mon 2 Jan 2006 15:04")
	}
	return u.dur(float64(t-origin)) + " after the first submission"
}

// seriesHover returns hover points for quantity s of ts, scaled, at n
// equal bins' means, with x in unit u since origin.
func seriesHover(ts *TimeSeries, s Series, scale float64, u timeUnit, origin workload.Time, cal *Calendar, n int, what string, format string) []hoverDatum {
	from, to := ts.Start(), ts.End()
	if to <= from {
		return nil
	}
	n = int(min(int64(n), int64(to-from)))
	means := ts.Resample(s, from, to, n)
	w := float64(to-from) / float64(n)
	out := make([]hoverDatum, 0, n)
	for b, m := range means {
		mid := from + workload.Time((float64(b)+0.5)*w)
		v := m * scale
		out = append(out, hoverDatum{X: float64(mid-origin) / u.sec, Y: v,
			Label: timeText(cal, origin, mid, u) + ": " + fmt.Sprintf(format, v) + " " + what + " (mean over " + u.dur(w) + ")"})
	}
	return out
}

// percentText formats a fraction as a percentage.
func percentText(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + " %" }

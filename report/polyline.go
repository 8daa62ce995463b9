package report

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// polylineChunk is the most vertices stroked as one path. The PNG
// rasteriser (freetype) slows down more than linearly with a path's length:
// a series of thousands of vertices stroked as one path takes seconds, as
// short paths it takes milliseconds.
const polylineChunk = 64

// polyline is a line plotter like plotter.Line. On a PNG's canvas a solid
// line is stroked whole, by fastCanvas directly from its vertices; anything
// else (SVG, dashed lines) is stroked in short paths of polylineChunk
// vertices, each starting where the previous ended.
type polyline struct {
	xys plotter.XYs
	draw.LineStyle
}

var (
	_ plot.Plotter     = (*polyline)(nil)
	_ plot.DataRanger  = (*polyline)(nil)
	_ plot.Thumbnailer = (*polyline)(nil)
)

// Plot strokes the line.
func (l *polyline) Plot(c draw.Canvas, p *plot.Plot) {
	pts := make([]vg.Point, len(l.xys))
	_, linX := p.X.Scale.(plot.LinearScale)
	_, linY := p.Y.Scale.(plot.LinearScale)
	if linX && linY {
		// As p.Transforms maps them, written out: its functions copy both
		// axes for every value.
		x0, dx, w, xl := p.X.Min, p.X.Max-p.X.Min, c.Max.X-c.Min.X, c.Min.X
		y0, dy, h, yl := p.Y.Min, p.Y.Max-p.Y.Min, c.Max.Y-c.Min.Y, c.Min.Y
		for i, xy := range l.xys {
			pts[i] = vg.Point{X: vg.Length((xy.X-x0)/dx)*w + xl, Y: vg.Length((xy.Y-y0)/dy)*h + yl}
		}
	} else {
		trX, trY := p.Transforms(&c)
		for i, xy := range l.xys {
			pts[i] = vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
		}
	}
	pts = decimate(pts, decimateWidth)
	fc, fast := innerCanvas(c).(*fastCanvas)
	for _, line := range clipLines(&c, pts) {
		if fast && fc.strokePolyline(l.LineStyle, line) {
			continue
		}
		// SVG, and dashed lines on PNG (vgimg's).
		for len(line) > polylineChunk {
			c.StrokeLines(l.LineStyle, line[:polylineChunk])
			line = line[polylineChunk-1:]
		}
		c.StrokeLines(l.LineStyle, line)
	}
}

// clipLines returns the parts of the line through pts inside c, as
// c.ClipLinesXY does: a line of two or more vertices that are all inside
// is returned whole at once, without clipping it segment by segment.
func clipLines(c *draw.Canvas, pts []vg.Point) [][]vg.Point {
	if len(pts) < 2 {
		return c.ClipLinesXY(pts)
	}
	for _, p := range pts {
		if p.X < c.Min.X || p.X > c.Max.X || p.Y < c.Min.Y || p.Y > c.Max.Y {
			return c.ClipLinesXY(pts)
		}
	}
	return [][]vg.Point{pts}
}

// DataRange returns the extent of the vertices.
func (l *polyline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return xyRange(l.xys)
}

// xyRange returns the extent of xys, as plotter.XYRange does, a few times
// faster (min and max built in, where math.Min and math.Max are calls).
func xyRange(xys plotter.XYs) (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, p := range xys {
		xmin, xmax = min(xmin, p.X), max(xmax, p.X)
		ymin, ymax = min(ymin, p.Y), max(ymax, p.Y)
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail draws the legend's sample of the line.
func (l *polyline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.LineStyle, c.Min.X, y, c.Max.X, y)
}

// decimateWidth is the width of the columns a dense line is thinned to:
// less than a pixel of the PNG files (0.6 pt at 120 dpi).
const decimateWidth = vg.Length(0.5)

// decimate thins a line of many more vertices than columns of width w:
// within each column it keeps the first vertex, the lowest, the highest
// and the last, in their order, so that the line drawn covers the same
// pixels (every vertical extent is kept) at a fraction of the cost of
// stroking thousands of segments. Lines of fewer vertices than twice their
// columns are returned as they are.
func decimate(pts []vg.Point, w vg.Length) []vg.Point {
	if len(pts) < 64 {
		return pts
	}
	lo, hi := pts[0].X, pts[0].X
	for _, p := range pts {
		lo, hi = min(lo, p.X), max(hi, p.X)
	}
	if float64(len(pts)) < 2*float64((hi-lo)/w) {
		return pts
	}
	out := make([]vg.Point, 0, 4*int((hi-lo)/w)+8)
	for i := 0; i < len(pts); {
		col := int((pts[i].X - lo) / w)
		k := i
		lowest, highest := i, i
		for k+1 < len(pts) && int((pts[k+1].X-lo)/w) == col {
			k++
			if pts[k].Y < pts[lowest].Y {
				lowest = k
			}
			if pts[k].Y > pts[highest].Y {
				highest = k
			}
		}
		out = append(out, pts[i])
		a, b := min(lowest, highest), max(lowest, highest)
		for _, j := range []int{a, b, k} {
			if j != i && (j != a || a != b) && pts[j] != out[len(out)-1] {
				out = append(out, pts[j])
			}
		}
		i = k + 1
	}
	return out
}

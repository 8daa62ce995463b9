package report

import (
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

// polyline is a line plotter like plotter.Line that strokes its vertices
// in short paths of polylineChunk vertices, each starting where the previous
// ended.
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
	trX, trY := p.Transforms(&c)
	pts := make([]vg.Point, len(l.xys))
	for i, xy := range l.xys {
		pts[i] = vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
	}
	for _, line := range c.ClipLinesXY(pts) {
		for len(line) > polylineChunk {
			c.StrokeLines(l.LineStyle, line[:polylineChunk])
			line = line[polylineChunk-1:]
		}
		c.StrokeLines(l.LineStyle, line)
	}
}

// DataRange returns the extent of the vertices.
func (l *polyline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return plotter.XYRange(l.xys)
}

// Thumbnail draws the legend's sample of the line.
func (l *polyline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.LineStyle, c.Min.X, y, c.Max.X, y)
}

package report

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedsim/schedsim/workload"
)

// ganttPlotter draws one rectangle per job and processor range: time across,
// processors up.
type ganttPlotter struct {
	jobs   []GanttJob
	origin workload.Time
	unit   timeUnit
	procs  int
}

// ganttColors are light fills, picked per job by a hash of its ID so that
// neighbours rarely share a colour; every rectangle has a dark outline.
var ganttColors = []color.Color{
	color.RGBA{R: 166, G: 206, B: 227, A: 255},
	color.RGBA{R: 178, G: 223, B: 138, A: 255},
	color.RGBA{R: 251, G: 154, B: 153, A: 255},
	color.RGBA{R: 253, G: 191, B: 111, A: 255},
	color.RGBA{R: 202, G: 178, B: 214, A: 255},
	color.RGBA{R: 255, G: 255, B: 153, A: 255},
	color.RGBA{R: 141, G: 211, B: 199, A: 255},
	color.RGBA{R: 190, G: 186, B: 218, A: 255},
	color.RGBA{R: 252, G: 205, B: 229, A: 255},
	color.RGBA{R: 204, G: 235, B: 197, A: 255},
}

// killedColor outlines the jobs killed at their requested time.
var killedColor = color.RGBA{R: 200, G: 0, B: 0, A: 255}

func (g *ganttPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	outline := draw.LineStyle{Color: color.Gray{Y: 80}, Width: vg.Points(0.3)}
	killed := draw.LineStyle{Color: killedColor, Width: vg.Points(0.8)}
	for _, j := range g.jobs {
		x0 := trX(float64(j.Start-g.origin) / g.unit.sec)
		x1 := trX(float64(j.End-g.origin) / g.unit.sec)
		fill := ganttColors[uint64(j.ID)*0x9E3779B97F4A7C15>>60%uint64(len(ganttColors))]
		for _, r := range j.Alloc {
			y0, y1 := trY(float64(r.Lo)), trY(float64(r.Hi))
			pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
			c.FillPolygon(fill, c.ClipPolygonXY(pts))
			st := outline
			if j.Killed {
				st = killed
			}
			c.StrokeLines(st, c.ClipLinesXY(append(pts, pts[0]))...)
		}
	}
}

func (g *ganttPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmax = 0
	for _, j := range g.jobs {
		xmax = max(xmax, float64(j.End-g.origin)/g.unit.sec)
	}
	return 0, xmax, 0, float64(g.procs)
}

func ganttFigure(r *Run, sub string) *Figure {
	jobs := r.Gantt.Jobs()
	origin := r.Summary.FirstSubmit
	end := r.Summary.LastEnd
	if r.Series != nil && r.Series.started {
		origin = min(origin, r.Series.Start())
	}
	u := timeUnitFor(end - origin)
	gp := &ganttPlotter{jobs: jobs, origin: origin, unit: u, procs: r.Summary.Procs}
	p := newPlot("Gantt chart\n"+sub, "", "processor")
	p.Y.Tick.Marker = niceTicks
	timeAxis(&p.X, r.Calendar, u, origin)
	p.Add(gp)
	p.X.Min, p.Y.Min = 0, 0
	p.Y.Max = float64(r.Summary.Procs)
	return &Figure{
		Name: "gantt", Title: "Gantt chart",
		Caption: fmt.Sprintf("Each rectangle is a job on the processors it ran on, from its start to its end (%d jobs); "+
			"jobs killed at their requested time have a red outline. Drawn for runs of at most the --gantt-max-jobs limit.", len(jobs)),
		Width: 10 * vg.Inch, Height: 5 * vg.Inch,
		draw: p.Draw,
	}
}

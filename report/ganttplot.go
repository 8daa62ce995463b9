package report

import (
	"fmt"
	"image/color"
	"slices"

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
	if r.Series != nil && r.Series.started {
		origin = min(origin, r.Series.Start())
	}
	from, to, before := ganttView(jobs)
	origin = min(origin, from)
	u := timeUnitFor(to-from, r.Tick)
	gp := &ganttPlotter{jobs: jobs, origin: origin, unit: u, procs: r.Summary.Procs}
	p := newPlot("Gantt chart\n"+sub, "", "processor")
	p.Y.Tick.Marker = niceTicks
	timeAxis(&p.X, r.Calendar, u, origin)
	p.Add(gp)
	p.X.Min, p.X.Max = float64(from-origin)/u.sec, float64(to-origin)/u.sec
	p.Y.Min = 0
	p.Y.Max = float64(r.Summary.Procs)
	var hover []hoverDatum
	for _, j := range jobs {
		for _, a := range j.Alloc {
			label := fmt.Sprintf("job %d: processors %d–%d, %s to %s (%s)", j.ID, a.Lo, a.Hi-1,
				timeText(r.Calendar, origin, j.Start, u), timeText(r.Calendar, origin, j.End, u), u.dur(float64(j.End-j.Start)))
			if j.Killed {
				label += ", killed"
			}
			hover = append(hover, hoverDatum{X: float64(j.Start+j.End-2*origin) / 2 / u.sec, Y: float64(a.Lo+a.Hi) / 2, Label: label})
		}
	}
	fig := &Figure{
		Name: "gantt", Title: "Gantt chart",
		Caption: fmt.Sprintf("Each rectangle is a job on the processors it ran on, from its start to its end (%d jobs); "+
			"jobs killed at their requested time have a red outline. Drawn for runs of at most the --gantt-max-jobs limit.", len(jobs)) + beforeText(before),
		Width: 10 * vg.Inch, Height: 5 * vg.Inch,
		draw: p.Draw,
	}
	addHover(fig, p, hover)
	return fig
}

// ganttView returns the time span a Gantt chart shows by default: where
// the jobs are. It spans from the first start to the last end, unless a
// few early jobs (at most one in twenty) lie so far before the rest that
// they would squeeze the others into less than half the width: the span
// then starts at the first of the rest, and before counts the jobs that
// ended before it.
func ganttView(jobs []GanttJob) (from, to workload.Time, before int) {
	starts := make([]workload.Time, len(jobs))
	for i, j := range jobs {
		starts[i] = j.Start
		to = max(to, j.End)
	}
	slices.Sort(starts)
	from = starts[0]
	if k := len(starts) / 20; k > 0 && 2*(starts[k]-from) > to-from {
		from = starts[k]
		for _, j := range jobs {
			if j.End < from {
				before++
			}
		}
	}
	return from, to, before
}

// beforeText says, for a caption, how many jobs a Gantt chart leaves out.
func beforeText(before int) string {
	if before == 0 {
		return ""
	}
	return fmt.Sprintf(" It starts where the jobs are: %d early %s, far before the others, ended before it (the page's chart shows them with \"all jobs\").", before, plural(int64(before), "job", "jobs"))
}

package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/brewer"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// weekGrid is an hour-of-week heatmap's grid: hours across, weekdays up
// (Monday at the top).
type weekGrid struct {
	z [HoursPerWeek]float64
	// ok says which cells have a value.
	ok [HoursPerWeek]bool
}

func (g *weekGrid) Dims() (c, r int) { return 24, 7 }
func (g *weekGrid) Z(c, r int) float64 {
	i := 24*(6-r) + c
	if !g.ok[i] {
		return math.NaN()
	}
	return g.z[i]
}
func (g *weekGrid) X(c int) float64 { return float64(c) }
func (g *weekGrid) Y(r int) float64 { return float64(r) }

// weekdayNames are the rows of an hour-of-week heatmap, bottom to top.
var weekdayNames = []string{"Sun", "Sat", "Fri", "Thu", "Wed", "Tue", "Mon"}

// weekPalette returns ColorBrewer's sequential palette name, 9 classes.
func weekPalette(name string) palette.Palette {
	p, err := brewer.GetPalette(brewer.TypeSequential, name, 9)
	if err != nil {
		panic(fmt.Sprintf("report: %v", err))
	}
	return p
}

// weekPlot returns one heatmap of the hour-of-week figure, its colours from
// lo (lightest) to hi (darkest).
func weekPlot(title string, g *weekGrid, pal palette.Palette, lo, hi float64) *plot.Plot {
	p := newPlot(title, "", "")
	hm := plotter.NewHeatMap(g, pal)
	hm.Min, hm.Max = lo, math.Max(hi, lo+1e-9)
	hm.NaN = gridColor
	p.Add(hm)
	hours := make([]plot.Tick, 0, 24)
	for h := 0; h < 24; h++ {
		label := ""
		if h%3 == 0 {
			label = fmt.Sprintf("%02d:00", h)
		}
		hours = append(hours, plot.Tick{Value: float64(h), Label: label})
	}
	p.X.Tick.Marker = plot.ConstantTicks(hours)
	p.Y.Tick.Marker = classTicks(weekdayNames)
	p.X.Min, p.X.Max = -0.5, 23.5
	p.Y.Min, p.Y.Max = -0.5, 6.5
	return p
}

// hourOfWeekFigure draws the weekly pattern: the mean wait of the jobs
// submitted in each hour of the week, and the mean utilisation of each.
func hourOfWeekFigure(r *Run, sub string) *Figure {
	hw := r.Summary.Breakdowns.HourOfWeek
	var waits, util weekGrid
	maxWait, maxUtil := 0.0, 0.0
	for i := range HoursPerWeek {
		if hw.Jobs[i] > 0 {
			waits.z[i], waits.ok[i] = hw.WaitMeanSec[i]/3600, true
			maxWait = math.Max(maxWait, waits.z[i])
		}
		util.z[i], util.ok[i] = 100*hw.Utilisation[i], true
		maxUtil = math.Max(maxUtil, util.z[i])
	}
	top := weekPlot(fmt.Sprintf("Mean wait by hour of submission (h; light 0, dark %.1f)\n%s", maxWait, sub), &waits, weekPalette("OrRd"), 0, maxWait)
	bot := weekPlot(fmt.Sprintf("Mean utilisation by hour (%%; light 0, dark %.0f)", maxUtil), &util, weekPalette("Blues"), 0, maxUtil)
	bot.X.Label.Text = "hour of the day, " + hw.Zone
	fig := &Figure{
		Name: "hour_of_week", Title: "Weekly pattern: waits and utilisation by hour of the week",
		Caption: fmt.Sprintf("Top: the mean wait of the jobs submitted in each hour of the week (grey: none), darker is longer, up to %.1f h. "+
			"Bottom: the mean share of the processors busy in each hour, darker is busier, up to %.0f %%. Local time of the trace (%s).",
			maxWait, maxUtil, hw.Zone),
		Width: 9 * vg.Inch, Height: 6 * vg.Inch,
		draw: func(c draw.Canvas) {
			tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(10), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(6)}
			cs := plot.Align([][]*plot.Plot{{top}, {bot}}, tiles, c)
			top.Draw(cs[0][0])
			bot.Draw(cs[1][0])
		},
	}
	var hw1, hw2 []hoverDatum
	for i := range HoursPerWeek {
		d, h := i/24, i%24
		at := fmt.Sprintf("%s %02d:00–%02d:59", []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}[d], h, h)
		x, y := float64(h), float64(6-d)
		wait := "no jobs submitted"
		if hw.Jobs[i] > 0 {
			wait = fmt.Sprintf("mean wait %s over %d %s submitted", durationText(hw.WaitMeanSec[i]), hw.Jobs[i], plural(hw.Jobs[i], "job", "jobs"))
		}
		hw1 = append(hw1, hoverDatum{X: x, Y: y, Label: at + ": " + wait})
		hw2 = append(hw2, hoverDatum{X: x, Y: y, Label: at + ": " + percentText(hw.Utilisation[i]) + " of the processors busy on average"})
	}
	addHover(fig, top, hw1)
	addHover(fig, bot, hw2)
	return fig
}

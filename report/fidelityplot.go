package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/schedsim/schedsim/workload"
)

// FidelityDensityBins is the number of cells of the wait-vs-wait density
// plot along each axis.
const FidelityDensityBins = 60

// densityGrid is the density plot's grid of job counts on log10 axes.
type densityGrid struct {
	n      int
	lo, hi float64 // log10 of the axes' ends
	count  []float64
}

func (g *densityGrid) Dims() (c, r int) { return g.n, g.n }
func (g *densityGrid) Z(c, r int) float64 {
	v := g.count[r*g.n+c]
	if v == 0 {
		return math.NaN()
	}
	return math.Log10(v)
}
func (g *densityGrid) X(c int) float64 { return g.lo + (float64(c)+0.5)*(g.hi-g.lo)/float64(g.n) }
func (g *densityGrid) Y(r int) float64 { return g.X(r) }

// cell returns the cell of a wait: waits under 1 s count as 1 s.
func (g *densityGrid) cell(w workload.Time) int {
	x := math.Log10(math.Max(1, float64(w)))
	return min(g.n-1, max(0, int((x-g.lo)/(g.hi-g.lo)*float64(g.n))))
}

// logWaitTicks labels an axis in log10 seconds with times people read.
// A label closer than 0.4 decade to the previous one (1 day after 10 h)
// is left as a tick without a label: side by side on the
// recorded-wait axis the two ran together.
var logWaitTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	last := math.Inf(-1)
	for _, t := range waitTicks.Ticks(1, 1e9) {
		if v := math.Log10(t.Value); v >= lo-1e-9 && v <= hi+1e-9 {
			tk := plot.Tick{Value: v, Label: t.Label}
			if tk.Label != "" {
				if v-last < 0.4 {
					tk.Label = ""
				} else {
					last = v
				}
			}
			ts = append(ts, tk)
		}
	}
	return ts
})

// FidelityFigures returns the plots of a comparison: the density of jobs
// by recorded and simulated wait (fidelity_waits) and the weekly mean
// waits, recorded and simulated, over time (fidelity_weekly).
func FidelityFigures(f *Fidelity) []*Figure {
	if len(f.jobs) == 0 {
		return nil
	}
	return []*Figure{fidelityDensityFigure(f), fidelityWeeklyFigure(f)}
}

func fidelityDensityFigure(f *Fidelity) *Figure {
	maxW := workload.Time(10)
	for _, j := range f.jobs {
		maxW = max(maxW, j.Recorded, j.Simulated)
	}
	g := &densityGrid{n: FidelityDensityBins, lo: 0, hi: math.Log10(float64(maxW)) * 1.0001}
	g.count = make([]float64, g.n*g.n)
	var top float64
	for _, j := range f.jobs {
		k := g.cell(j.Simulated)*g.n + g.cell(j.Recorded)
		g.count[k]++
		top = math.Max(top, g.count[k])
	}
	p := newPlot("Recorded vs simulated wait, per job\n"+fidelitySubtitle(f), "recorded wait (log scale; waits under 1 s at 1 s)", "simulated wait (log scale)")
	hm := plotter.NewHeatMap(g, weekPalette("YlGnBu"))
	hm.Min, hm.Max = 0, math.Max(math.Log10(top), 1e-9)
	hm.NaN = color.White
	p.Add(hm)
	// The diagonal and the tolerance band around it.
	var diag, upper, lower plotter.XYs
	const steps = 200
	for i := 0; i <= steps; i++ {
		x := g.lo + float64(i)*(g.hi-g.lo)/steps
		rec := math.Pow(10, x)
		slack := math.Max(float64(f.Tolerance.AbsSec), f.Tolerance.Rel*rec)
		diag = append(diag, plotter.XY{X: x, Y: x})
		upper = append(upper, plotter.XY{X: x, Y: math.Min(g.hi, math.Log10(rec+slack))})
		if rec-slack >= 1 {
			lower = append(lower, plotter.XY{X: x, Y: math.Log10(rec - slack)})
		}
	}
	d := newLine(diag, 0, vg.Points(1))
	d.Color = color.Black
	p.Add(d)
	p.Legend.Add("simulated = recorded", d)
	band := fmt.Sprintf("tolerance: ± max(%s, %.0f %%)", durationText(float64(f.Tolerance.AbsSec)), 100*f.Tolerance.Rel)
	u := newLine(upper, 1, vg.Points(1))
	u.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(u)
	p.Legend.Add(band, u)
	if len(lower) > 1 {
		l := newLine(lower, 1, vg.Points(1))
		l.Dashes = u.Dashes
		p.Add(l)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Tick.Marker, p.Y.Tick.Marker = logWaitTicks, logWaitTicks
	p.X.Min, p.X.Max = g.lo, g.hi
	p.Y.Min, p.Y.Max = g.lo, g.hi
	rho := "undefined"
	if s := f.Overall.Spearman; s != nil {
		rho = fmt.Sprintf("%.3f", *s)
	}
	return &Figure{
		Name: "fidelity_waits", Title: "Recorded vs simulated wait, per job",
		Caption: fmt.Sprintf("Each of the %d jobs compared is counted in the cell of its recorded wait (across) and simulated wait (up), "+
			"both on logarithmic axes; the darker the cell, the more jobs (colour on a logarithmic scale: the lightest is 1 job, the darkest %.0f). "+
			"A faithful simulation puts the jobs on the diagonal, between the dashed lines of the tolerance. Spearman rank correlation: %s; "+
			"within tolerance: %.1f %%.", f.Overall.Jobs, top, rho, 100*f.Overall.WithinTolerance),
		Width: 7 * vg.Inch, Height: 7 * vg.Inch,
		draw: p.Draw,
	}
}

func fidelityWeeklyFigure(f *Fidelity) *Figure {
	ws := f.Weeks
	origin := ws[0].From
	span := ws[len(ws)-1].From + 7*86400 - origin
	u := timeUnitFor(span, 1)
	p := newPlot("Weekly mean wait, recorded and simulated\n"+fidelitySubtitle(f), "", "mean wait of the jobs submitted that week (hours)")
	timeAxis(&p.X, f.cal, u, origin)
	p.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ts := niceTicks.Ticks(lo, hi)
		for i := range ts {
			if ts[i].Value == 0 && ts[i].Label != "" {
				ts[i].Label = "0" // not "-0.0"
			}
		}
		return ts
	})
	var rec, sim plotter.XYs
	for _, w := range ws {
		x0 := float64(w.From-origin) / u.sec
		x1 := x0 + 7*86400/u.sec
		rec = append(rec, plotter.XY{X: x0, Y: w.RecordedMeanWait / 3600}, plotter.XY{X: x1, Y: w.RecordedMeanWait / 3600})
		sim = append(sim, plotter.XY{X: x0, Y: w.SimulatedMeanWait / 3600}, plotter.XY{X: x1, Y: w.SimulatedMeanWait / 3600})
	}
	lr := overlayLine(rec, 0, vg.Points(1.2))
	ls := overlayLine(sim, 1, vg.Points(1.2))
	p.Add(lr, ls)
	p.Legend.Add(fmt.Sprintf("recorded (mean %s)", durationText(f.Overall.RecordedMeanWait)), lr)
	p.Legend.Add(fmt.Sprintf("simulated (mean %s)", durationText(f.Overall.SimulatedMeanWait)), ls)
	p.Legend.Top = true
	p.X.Min, p.X.Max = 0, float64(span)/u.sec
	p.Y.Min = 0
	p.Y.Max = math.Max(p.Y.Max, 0.1) * 1.2 // room for the legend
	return &Figure{
		Name: "fidelity_weekly", Title: "Weekly mean wait, recorded and simulated",
		Caption: fmt.Sprintf("The mean wait of the jobs submitted in each week (%d weeks), as the log recorded it and as the simulation gave it. "+
			"Weeks where the lines part are where the simulated machine behaved unlike the real one: an outage, a reservation or a limit the simulation does not know.", len(ws)),
		Width: 9 * vg.Inch, Height: 4.5 * vg.Inch,
		draw: p.Draw,
	}
}

// fidelitySubtitle is the second line (or more) of a fidelity plot's
// title: the trace and the simulated policy, wrapped to fit the figure as
// the run's plots wrap theirs (a scenario's policy name is long).
func fidelitySubtitle(f *Fidelity) string {
	return wrapSubtitle(f.Trace+" · "+f.Policy, subtitleWidth)
}

package report

import (
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedsim/schedsim/cluster/energy"
	"github.com/schedsim/schedsim/workload"
)

// PowerPoint is the machine's state after an instant of a run with a
// power model: its power and how many nodes are in each state
// (energy.Kind order).
type PowerPoint struct {
	T      workload.Time
	Watts  float64
	Counts [energy.Kinds]int32
}

// maxPowerSteps bounds the steps a power plot draws: past it, instants are
// merged into bins, each drawn at its mean power (exact, from the energy)
// and its last node counts.
const maxPowerSteps = 4000

// powerFigure draws the power and the machine states over time of a run
// with a power model (Run.Power), on one time axis from the first
// submission.
func powerFigure(r *Run, sub string) *Figure {
	pts := r.Power
	origin, end := r.Series.Start(), r.Series.End()
	if end <= origin {
		end = origin + 1
	}
	u := timeUnitFor(end-origin, r.Tick)
	x := func(t workload.Time) float64 { return float64(max(t, origin)-origin) / u.sec }
	x1 := x(end)
	// Merge instants into at most maxPowerSteps bins of width w.
	w := max(1, (end-origin+maxPowerSteps-1)/maxPowerSteps)
	type bin struct {
		from, to workload.Time
		joules   float64
		counts   [energy.Kinds]int32
	}
	var bins []bin
	for i, p := range pts {
		to := end
		if i+1 < len(pts) {
			to = min(pts[i+1].T, end)
		}
		from := max(p.T, origin)
		if to <= from {
			if len(bins) > 0 {
				bins[len(bins)-1].counts = p.Counts
			}
			continue
		}
		j := p.Watts * float64(to-from)
		if n := len(bins); n > 0 && (bins[n-1].to-bins[n-1].from < w) {
			bins[n-1].to, bins[n-1].joules, bins[n-1].counts = to, bins[n-1].joules+j, p.Counts
			continue
		}
		bins = append(bins, bin{from, to, j, p.Counts})
	}
	power := newPlot("Power over time\n"+sub, "", "power (W)")
	power.Y.Tick.Marker = niceTicks
	timeAxis(&power.X, r.Calendar, u, origin)
	power.X.Label.Text = ""
	var pw plotter.XYs
	states := make([]plotter.XYs, energy.Kinds)
	for _, b := range bins {
		y := b.joules / float64(b.to-b.from)
		pw = append(pw, plotter.XY{X: x(b.from), Y: y}, plotter.XY{X: x(b.to), Y: y})
		for k := range states {
			c := float64(b.counts[k])
			states[k] = append(states[k], plotter.XY{X: x(b.from), Y: c}, plotter.XY{X: x(b.to), Y: c})
		}
	}
	l := newLine(pw, 0, vg.Points(1))
	power.Add(l)
	mean := 0.0
	if e := r.Summary.Energy; e != nil {
		mean = e.MeanWatts
	}
	m := hline(mean, 0, x1, lineColors[7])
	power.Add(m)
	power.Legend.Add("power", l)
	power.Legend.Add(fmt.Sprintf("mean: %.0f W", mean), m)
	power.Legend.Top = true
	power.X.Min, power.X.Max = 0, x1
	power.Y.Min = 0
	power.Y.Max = max(power.Y.Max, 1) * 1.3

	nodes := newPlot("", "", "nodes")
	nodes.Y.Tick.Marker = niceTicks
	timeAxis(&nodes.X, r.Calendar, u, origin)
	for k := range states {
		if !anyNonZero(states[k]) {
			continue
		}
		sl := newLine(states[k], k+1, vg.Points(1))
		nodes.Add(sl)
		nodes.Legend.Add(energy.Kind(k).String(), sl)
	}
	nodes.Legend.Top = true
	nodes.X.Min, nodes.X.Max = 0, x1
	nodes.Y.Min = 0
	nodes.Y.Max = max(nodes.Y.Max, 1) * 1.3
	caption := "The machine's power (above) and its nodes in each state (below: computing, idle, sleeping, switching on or off), as Batsim's consumed_energy.csv and machine_states.csv say, against simulated time."
	if len(bins) < len(pts)-1 {
		caption += fmt.Sprintf(" Instants are merged into steps of %s, each at its mean power and its last node counts.", u.dur(float64(w)))
	}
	return &Figure{
		Name: "power", Title: "Power and machine states over time", Caption: caption,
		Width: 9 * vg.Inch, Height: 6 * vg.Inch,
		draw: func(c draw.Canvas) {
			top := draw.Crop(c, 0, 0, c.Size().Y/2, 0)
			bottom := draw.Crop(c, 0, 0, 0, -c.Size().Y/2)
			power.Draw(top)
			nodes.Draw(bottom)
		},
	}
}

// anyNonZero reports whether a line leaves 0.
func anyNonZero(xys plotter.XYs) bool {
	for _, p := range xys {
		if p.Y != 0 {
			return true
		}
	}
	return false
}

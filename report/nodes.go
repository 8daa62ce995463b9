package report

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// finalNodeFail is Batsim's final_state of a job killed from outside: here
// by a node failure (sim.NodeFail).
const finalNodeFail = "COMPLETED_KILLED"

// NodeFailures describes a run's node failures and maintenance
// (sim.Config.NodeEvents) in its summary: the schedule itself, so that
// "schedsim verify" can check the run against it, and what it cost.
type NodeFailures struct {
	// Events is the node-event schedule, one cluster.FormatNodeEvent line
	// per event, in order.
	Events []string `json:"events"`
	// Nodes is the number of nodes the schedule names.
	Nodes int `json:"nodes"`
	// NodeSize is the number of processors per node of the processor
	// pool (1 on a cluster of nodes, whose nodes are the cluster's).
	NodeSize int `json:"node_size"`
	// OnNodeFail is what happened to the jobs on a node that went down:
	// kill or requeue.
	OnNodeFail string `json:"on_node_fail"`
	// Killed counts the jobs a node failure killed, Requeued the requeues.
	Killed   int64 `json:"killed"`
	Requeued int64 `json:"requeued"`
	// LostProcSec is the processor-seconds of the runs that node failures
	// cut short (killed or requeued).
	LostProcSec int64 `json:"lost_proc_sec"`
	// UnavailableProcSec is the processor-seconds idle processors spent out
	// of service (TimeSeries.UnavailableProcSec).
	UnavailableProcSec int64 `json:"unavailable_proc_sec"`
	// UtilisationInService is Σ procs · run / (P · makespan −
	// UnavailableProcSec): the utilisation of the capacity that was in
	// service.
	UtilisationInService float64 `json:"utilisation_in_service"`
}

// SetNodeFailures sets s.NodeFailures for a run with node events evs on
// nodes nodes of nodeSize processors each (1 on a cluster of nodes) and
// action onFail, from the run's statistics st and time series ts (nil: no
// unavailable capacity known). s must be the summary of the same run.
func (s *Summary) SetNodeFailures(evs []cluster.NodeEvent, nodes, nodeSize int, onFail sim.NodeFailAction, st sim.Stats, ts *TimeSeries) {
	n := &NodeFailures{Nodes: nodes, NodeSize: max(nodeSize, 1), OnNodeFail: onFail.String(),
		Killed: st.NodeKilled, Requeued: st.Requeued, LostProcSec: int64(st.LostProcSeconds + 0.5)}
	var b []byte
	for _, ev := range evs {
		b = cluster.FormatNodeEvent(b[:0], ev)
		n.Events = append(n.Events, string(b))
	}
	if ts != nil {
		n.UnavailableProcSec = ts.UnavailableProcSec()
	}
	if in := float64(s.Procs)*float64(s.MakespanSec) - float64(n.UnavailableProcSec); in > 0 {
		n.UtilisationInService = s.Utilisation * float64(s.Procs) * float64(s.MakespanSec) / in
	}
	s.NodeFailures = n
}

// Schedule returns the node-event schedule of n, as the run used it.
func (n *NodeFailures) Schedule() ([]cluster.NodeEvent, error) {
	return cluster.ReadNodeEvents(strings.NewReader(strings.Join(n.Events, "\n")), "summary.json node_failures.events", n.Nodes)
}

// nodeFailureRows are the summary table's rows about node failures: none
// without node events.
func nodeFailureRows(s *Summary) []tableRow {
	n := s.NodeFailures
	if n == nil {
		return nil
	}
	return []tableRow{
		{label: "node events", value: fmt.Sprintf("%d on %d %s, on failure: %s", len(n.Events), n.Nodes, plural(int64(n.Nodes), "node", "nodes"), n.OnNodeFail)},
		{label: "jobs killed by node failures", value: fmt.Sprintf("%d", n.Killed), indent: 1},
		{label: "requeues after node failures", value: fmt.Sprintf("%d", n.Requeued), indent: 1},
		{label: "lost to node failures", value: fmt.Sprintf("%d processor-s", n.LostProcSec), indent: 1},
		{label: "idle out of service", value: fmt.Sprintf("%d processor-s", n.UnavailableProcSec), indent: 1},
		{label: "utilisation in service", value: fmt.Sprintf("%.2f %%", 100*n.UtilisationInService), indent: 1},
	}
}

// addUnavailable shades, on a utilisation plot of ts (y in percent of the
// machine), the idle capacity out of service (down or drained nodes) from
// the top, with its lower edge (the capacity in service) drawn over the
// stretch where some capacity was out, and returns a sentence for the
// caption. It adds nothing and returns "" when no processor was ever out of
// service.
func addUnavailable(p *plot.Plot, ts *TimeSeries, segs []Segment, u timeUnit) string {
	first, last := -1, -1
	for i, g := range segs {
		if g.Level[Unavailable] > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return ""
	}
	lo, hi := max(first-1, 0), min(last+2, len(segs))
	top := stepXYs(segs[lo:hi], Unavailable, -100/float64(ts.Procs()), ts.Start(), u)
	for i := range top {
		top[i].Y += 100
	}
	area := append(plotter.XYs{}, top...)
	area = append(area, plotter.XY{X: top[len(top)-1].X, Y: 100}, plotter.XY{X: top[0].X, Y: 100})
	poly, err := plotter.NewPolygon(area)
	if err != nil {
		return ""
	}
	poly.Color = color.RGBA{R: 240, G: 170, B: 160, A: 255}
	poly.LineStyle.Width = 0
	edge := &polyline{xys: top, LineStyle: draw.LineStyle{Color: color.RGBA{R: 200, G: 40, B: 30, A: 255}, Width: vg.Points(1.2)}}
	p.Add(poly, edge)
	p.Legend.Add("capacity in service (down or drained nodes out)", edge)
	return " The red line is the capacity in service and the shaded band above it the idle capacity out of service (down or drained nodes)."
}

// nodeEventsFigure is the utilisation plot zoomed on the node events: from
// two days before the first to two days after the last, within the run.
// It returns nil without node events or a series.
func nodeEventsFigure(r *Run, sub string) *Figure {
	n, ts := r.Summary.NodeFailures, r.Series
	if n == nil || ts == nil || !ts.started || len(n.Events) == 0 {
		return nil
	}
	evs, err := n.Schedule()
	if err != nil || len(evs) == 0 {
		return nil
	}
	// The schedule is in seconds; the series in the run's ticks.
	k := workload.Time(max(r.Tick, 1))
	margin := 2 * 86400 * k
	from := max(evs[0].At*k-margin, ts.Start())
	to := min(evs[len(evs)-1].At*k+margin, ts.End())
	if to <= from {
		return nil
	}
	u := timeUnitFor(to-from, r.Tick)
	p := newPlot("Utilisation around the node events\n"+sub, "", "processors (% of "+fmt.Sprint(ts.Procs())+")")
	timeAxis(&p.X, r.Calendar, u, ts.Start())
	segs := ts.cachedSegments(false)
	scale := 100 / float64(ts.Procs())
	busy := newLine(stepXYs(segs, Busy, scale, ts.Start(), u), 0, vg.Points(1))
	p.Add(busy)
	p.Legend.Add("busy processors", busy)
	caption := "Processors allocated, as a percentage of the machine, from two days before the first node event to two days after the last; " + resolution(ts, u) + "."
	caption += addUnavailable(p, ts, segs, u)
	for _, ev := range evs {
		x := float64(ev.At-ts.Start()) / u.sec
		mark := &polyline{xys: plotter.XYs{{X: x, Y: 0}, {X: x, Y: 100}},
			LineStyle: draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}}
		p.Add(mark)
	}
	caption += " Dotted verticals mark the node events."
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, 125
	p.Y.Tick.Marker = fixedTicks(0, 100, 20, "%.0f")
	p.X.Min, p.X.Max = float64(from-ts.Start())/u.sec, float64(to-ts.Start())/u.sec
	return &Figure{
		Name: "utilisation_node_events", Title: "Utilisation around the node events",
		Caption: caption,
		Width:   9 * vg.Inch, Height: 4.5 * vg.Inch,
		draw: p.Draw,
	}
}

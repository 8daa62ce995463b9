package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

func TestJobsCSVNodeFailureRows(t *testing.T) {
	job := &workload.Job{ID: 7, Submit: 0, Procs: 2, Run: 100, Estimate: 100}
	for _, tc := range []struct {
		name string
		rec  sim.Record
		want string
	}{
		{"killed by a node failure",
			sim.Record{Job: job, State: sim.NodeFail, Start: 10, End: 30, Alloc: []cluster.Range{rg(0, 2)}, Reason: "node 1 down: psu"},
			"7,w,delay,0,2,100,0,COMPLETED_KILLED,10,20,30,10,30,1.5,0-1,,node 1 down: psu"},
		{"killed after a requeue, with a prediction",
			sim.Record{Job: job, State: sim.NodeFail, Start: 10, End: 30, Alloc: []cluster.Range{rg(0, 2)}, Reason: "node 1 down", Requeues: 1, Predicted: 5, HasPrediction: true},
			"7,w,delay,0,2,100,0,COMPLETED_KILLED,10,20,30,10,30,1.5,0-1,,predicted_start=5 requeues=1 node 1 down"},
		{"completed after two requeues",
			sim.Record{Job: job, State: sim.Completed, Start: 50, End: 150, Alloc: []cluster.Range{rg(2, 4)}, Requeues: 2},
			"7,w,delay,0,2,100,1,COMPLETED_SUCCESSFULLY,50,100,150,50,150,1.5,2-3,,requeues=2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			c := NewJobsCSV(&b, "w")
			c.JobDone(&tc.rec)
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := strings.Split(b.String(), "\n")[1]; got != tc.want {
				t.Errorf("row\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestNodeFailuresSummary checks the node failure part of a summary, by
// hand: a 10-processor machine, jobs 1 (4 procs, 0-100) and 2 (2 procs,
// 0-50, killed by a node failure), processors 8-9 idle out of service from
// 20 to 80.
func TestNodeFailuresSummary(t *testing.T) {
	m := NewMetrics()
	ts := NewTimeSeries(10, 64)
	m.JobDone(&sim.Record{Job: &workload.Job{ID: 1, Procs: 4, Run: 100, Estimate: 100}, State: sim.Completed, Start: 0, End: 100})
	m.JobDone(&sim.Record{Job: &workload.Job{ID: 2, Procs: 2, Run: 90, Estimate: 100}, State: sim.NodeFail, Start: 0, End: 50, Reason: "node 3 down"})
	for _, s := range []sim.Sample{
		{Time: 0, Busy: 6, Running: 2, QueuedProcs: 5, Queued: 1},
		{Time: 20, Busy: 6, Running: 2, QueuedProcs: 5, Queued: 1, Unavailable: 2},
		{Time: 50, Busy: 4, Running: 1, QueuedProcs: 5, Queued: 1, Unavailable: 2},
		{Time: 80, Busy: 4, Running: 1, QueuedProcs: 5, Queued: 1},
		{Time: 100},
	} {
		ts.Sample(&s)
	}
	st := sim.Stats{NodeKilled: 1, LostProcSeconds: 100}
	s := m.Summary("t", "p", 10, st, workload.CleanStats{})
	ts.AddTo(&s)
	evs := []cluster.NodeEvent{{At: 20, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 8, Hi: 10}}, Reason: "psu"}, {At: 80, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 8, Hi: 10}}}}
	s.SetNodeFailures(evs, 10, 1, sim.NodeFailKill, st, ts)
	n := s.NodeFailures
	// Work: 4·100 + 2·50 = 500 processor-s of 10·100; out of service:
	// 2·60 = 120, so 500 / 880 in service. Loss of capacity: idle in
	// service (10 − busy − out), capped by 5 queued: 4 over 0-20, 2 over
	// 20-50, 4 over 50-80, 5 over 80-100: 80 + 60 + 120 + 100.
	if s.Started != 2 || s.NodeFail != 1 || s.Utilisation != 0.5 || n.UnavailableProcSec != 120 || n.Killed != 1 || n.LostProcSec != 100 ||
		n.UtilisationInService != 500.0/880 || s.LossOfCapacityProcSec != 360 {
		t.Errorf("started %d, node_fail %d, utilisation %v, loss %d, node failures %+v", s.Started, s.NodeFail, s.Utilisation, s.LossOfCapacityProcSec, *n)
	}
	if got := strings.Join(n.Events, "|"); got != "20 DOWN 8-9 psu|80 RESUME 8-9" {
		t.Errorf("events %q", got)
	}
	back, err := n.Schedule()
	if err != nil || len(back) != 2 || back[0].Reason != "psu" || back[1].At != 80 {
		t.Errorf("schedule read back: %+v, %v", back, err)
	}
	var b bytes.Buffer
	if err := WriteSummaryTable(&b, &s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"killed by a node failure", "node events", "2 on 10 nodes, on failure: kill", "idle out of service", "120 processor-s", "utilisation in service", "56.82 %"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary table lacks %q:\n%s", want, b.String())
		}
	}
	// The plots: the zoomed figure exists with node events only.
	run := &Run{Summary: s, Series: ts}
	names := func() string {
		var ns []string
		for _, f := range RunFigures(run) {
			ns = append(ns, f.Name)
		}
		return strings.Join(ns, " ")
	}
	if got := names(); !strings.Contains(got, "utilisation_node_events") {
		t.Errorf("figures %q lack utilisation_node_events", got)
	}
	run.Summary.NodeFailures = nil
	if got := names(); strings.Contains(got, "node_events") {
		t.Errorf("figures %q of a run without node events", got)
	}
}

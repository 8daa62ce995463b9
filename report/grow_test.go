package report

import (
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// A job that grew (sim.Grow) is drawn as one piece per step: here 2
// processors from its start at 0 and 6 more from 100, all to its end at
// 125; the metrics count the 400 processor-seconds it held.
func TestGrowGanttAndMetrics(t *testing.T) {
	j := workload.Job{ID: 7, Procs: 4, Run: 100, Estimate: 1000}
	r := &sim.Record{Job: &j, State: sim.Completed, Start: 0, End: 125,
		Alloc: []cluster.Range{rg(0, 2), rg(2, 8)},
		Steps: []sim.GrowStep{{At: 0, Procs: 2, Alloc: []cluster.Range{rg(0, 2)}}, {At: 100, Procs: 8, Alloc: []cluster.Range{rg(2, 8)}}},
	}
	g := NewGantt(10)
	g.JobDone(r)
	jobs := g.Jobs()
	if len(jobs) != 2 || jobs[0].Start != 0 || jobs[0].Alloc[0] != rg(0, 2) || jobs[1].Start != 100 || jobs[1].Alloc[0] != rg(2, 8) ||
		jobs[0].End != 125 || jobs[1].End != 125 || jobs[0].ID != 7 || jobs[1].ID != 7 {
		t.Errorf("pieces %+v, want 0–125 on 0-1 and 100–125 on 2-7", jobs)
	}
	m := NewMetrics()
	m.JobDone(r)
	if m.procSec != 400 {
		t.Errorf("metrics count %d processor-seconds, want 400", m.procSec)
	}
}

package report

import (
	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// DefaultGanttMaxJobs is the largest run, in jobs that ran, whose Gantt chart
// the command line draws by default: beyond about two thousand jobs the
// rectangles shrink below a pixel and the chart shows nothing a person can
// read (and its SVG grows past a few megabytes).
const DefaultGanttMaxJobs = 2000

// GanttJob is one job of a Gantt chart, or one piece of a job that grew
// (sim.Grow): a piece per step, each from its step to the job's end.
type GanttJob struct {
	ID         int64
	Start, End workload.Time
	Killed     bool // killed at its requested time or by a node failure
	// Alloc are the processors the job ran on.
	Alloc []cluster.Range
}

// Gantt is a sim.Observer that keeps the allocation of every job that ran,
// for a Gantt chart, as long as the run has at most a given number of such
// jobs. Past that it drops what it kept and keeps nothing more, so its memory
// stays bounded by the limit.
type Gantt struct {
	limit  int
	jobs   []GanttJob
	ranges []cluster.Range // backing store of the jobs' Alloc
	seen   int64
}

var _ sim.Observer = (*Gantt)(nil)

// NewGantt returns a Gantt that keeps up to maxJobs jobs.
func NewGantt(maxJobs int) *Gantt { return &Gantt{limit: maxJobs} }

// JobDone keeps r's allocation if the limit allows.
func (g *Gantt) JobDone(r *sim.Record) {
	if r.State == sim.Rejected || r.State == sim.Failed || r.State == sim.Pending {
		return
	}
	g.seen++
	if g.seen > int64(g.limit) {
		g.jobs, g.ranges = nil, nil
		return
	}
	if len(r.Steps) > 0 {
		// A job that grew (sim.Grow): one piece per step, from the step on.
		for _, st := range r.Steps {
			g.add(r, st.At, st.Alloc)
		}
		return
	}
	g.add(r, r.Start, r.Alloc)
}

// add keeps a piece of r's run: alloc from start to r's end.
func (g *Gantt) add(r *sim.Record, start workload.Time, alloc []cluster.Range) {
	lo := len(g.ranges)
	g.ranges = append(g.ranges, alloc...)
	g.jobs = append(g.jobs, GanttJob{ID: r.Job.ID, Start: start, End: r.End, Killed: r.State == sim.Killed || r.State == sim.NodeFail || r.State == sim.LimitKilled,
		Alloc: g.ranges[lo:len(g.ranges):len(g.ranges)]})
}

// Complete reports whether the Gantt holds every job that ran: false when
// the run had more than the limit.
func (g *Gantt) Complete() bool { return g.seen <= int64(g.limit) }

// Jobs returns the jobs kept, in the order they ended. The Alloc slices
// share memory that the next JobDone may move: read them before the run
// goes on. It returns nil when Complete is false.
func (g *Gantt) Jobs() []GanttJob {
	if !g.Complete() {
		return nil
	}
	// Re-slice Alloc: appends to ranges may have moved the backing array.
	off := 0
	for i := range g.jobs {
		n := len(g.jobs[i].Alloc)
		g.jobs[i].Alloc = g.ranges[off : off+n : off+n]
		off += n
	}
	return g.jobs
}

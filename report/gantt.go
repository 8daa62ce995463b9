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
	recs   []ganttRec
	ranges []cluster.Range // the jobs' allocations, one after the other
	seen   int64
	// jobs is recs as Jobs returns them, made by its first call after the
	// last JobDone.
	jobs []GanttJob
}

// ganttRec is a job as a Gantt keeps it while the run goes on: without
// pointers, so that keeping a million of them costs the run only copies.
// Its allocation is ranges[off : off+n].
type ganttRec struct {
	id, start, end int64
	off            int
	n              int32
	killed         bool
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
		g.recs, g.ranges, g.jobs = nil, nil, nil
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

func (g *Gantt) add(r *sim.Record, start workload.Time, alloc []cluster.Range) {
	g.recs = append(g.recs, ganttRec{id: r.Job.ID, start: int64(start), end: int64(r.End), off: len(g.ranges), n: int32(len(alloc)),
		killed: r.State == sim.Killed || r.State == sim.NodeFail || r.State == sim.LimitKilled})
	g.ranges = append(g.ranges, alloc...)
	g.jobs = nil
}

// Complete reports whether the Gantt holds every job that ran: false when
// the run had more than the limit.
func (g *Gantt) Complete() bool { return g.seen <= int64(g.limit) }

// Len returns the number of jobs kept (pieces of jobs that grew counted
// one by one); 0 when Complete is false.
func (g *Gantt) Len() int {
	if !g.Complete() {
		return 0
	}
	return len(g.recs)
}

// Jobs returns the jobs kept, in the order they ended; nil when Complete
// is false. The Alloc slices share memory that the next JobDone may move:
// read them before the run goes on. Once the run is over, the first call
// makes the slice and later calls only read it, so they may come from
// several goroutines.
func (g *Gantt) Jobs() []GanttJob {
	if !g.Complete() {
		return nil
	}
	if len(g.jobs) != len(g.recs) {
		g.jobs = make([]GanttJob, len(g.recs))
		for i, r := range g.recs {
			g.jobs[i] = GanttJob{ID: r.id, Start: workload.Time(r.start), End: workload.Time(r.end), Killed: r.killed,
				Alloc: g.ranges[r.off : r.off+int(r.n) : r.off+int(r.n)]}
		}
	}
	return g.jobs
}

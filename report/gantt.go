package report

import (
	"sync"
	"unsafe"

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
	limit int
	// The jobs and their allocations are kept in blocks that never move:
	// a run of a million jobs then costs no copying as they accumulate.
	recs   [][]ganttRec
	ranges [][]cluster.Range
	n      int // jobs kept
	nr     int // ranges kept
	seen   int64
	// jobs is what Jobs returns, made by its first call after the last
	// JobDone.
	jobs []GanttJob
	// order is the jobs' order on the page's chart (ganttOrder), made by
	// Settle or the page's first reading after the last JobDone.
	orderMu sync.Mutex
	order   []int32
}

// ganttBlock is the number of jobs, and of ranges, in a block.
const ganttBlock = 1 << 13

// ganttRec is a job as a Gantt keeps it while the run goes on, without
// pointers: its allocation is ranges[blk][pos : pos+n].
type ganttRec struct {
	id, start, end int64
	blk, pos, n    int32
	killed         bool
}

var _ sim.Observer = (*Gantt)(nil)

// Wants implements sim.Observer: the records, of whose jobs it reads only
// the ID (a job head: behind report.Async, with the report's other
// observers, no run copies whole jobs for it).
func (g *Gantt) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds, JobHead: true} }

// Observe implements sim.Observer: JobDone with the event's record.
func (g *Gantt) Observe(e *sim.Event) { g.JobDone(e.Record) }

// NewGantt returns a Gantt that keeps up to maxJobs jobs.
func NewGantt(maxJobs int) *Gantt { return &Gantt{limit: maxJobs} }

// JobDone keeps r's allocation if the limit allows.
func (g *Gantt) JobDone(r *sim.Record) {
	if r.State == sim.Rejected || r.State == sim.Failed || r.State == sim.Pending || r.Immediate {
		return // not on the machine
	}
	g.seen++
	if g.seen > int64(g.limit) {
		g.recs, g.ranges, g.n, g.nr, g.jobs, g.order = nil, nil, 0, 0, nil, nil
		return
	}
	killed := r.State == sim.Killed || r.State == sim.NodeFail || r.State == sim.LimitKilled || r.State == sim.Preempted
	if len(r.Steps) > 0 {
		// A job that grew (sim.Grow): one piece per step, from the step on.
		for _, st := range r.Steps {
			g.add(r.Job.ID, int64(st.At), int64(r.End), killed, st.Alloc)
		}
		return
	}
	g.add(r.Job.ID, int64(r.Start), int64(r.End), killed, r.Alloc)
}

func (g *Gantt) add(id, start, end int64, killed bool, alloc []cluster.Range) {
	// The allocation goes whole into the last block of ranges, or a new
	// one (of its own size if it is larger than a block).
	k := len(g.ranges) - 1
	if k < 0 || len(g.ranges[k])+len(alloc) > cap(g.ranges[k]) {
		b := make([]cluster.Range, 0, max(ganttBlock, len(alloc)))
		prefault(unsafe.Pointer(unsafe.SliceData(b)), cap(b)*int(unsafe.Sizeof(cluster.Range{})))
		g.ranges = append(g.ranges, b)
		k++
	}
	pos := len(g.ranges[k])
	g.ranges[k] = append(g.ranges[k], alloc...)
	g.nr += len(alloc)
	if len(g.recs) == 0 || len(g.recs[len(g.recs)-1]) == ganttBlock {
		b := make([]ganttRec, 0, ganttBlock)
		prefault(unsafe.Pointer(unsafe.SliceData(b)), cap(b)*int(unsafe.Sizeof(ganttRec{})))
		g.recs = append(g.recs, b)
	}
	last := &g.recs[len(g.recs)-1]
	*last = append(*last, ganttRec{id: id, start: start, end: end, blk: int32(k), pos: int32(pos), n: int32(len(alloc)), killed: killed})
	g.n++
	g.jobs, g.order = nil, nil
}

// rec returns the i-th job kept.
func (g *Gantt) rec(i int) *ganttRec { return &g.recs[i/ganttBlock][i%ganttBlock] }

// alloc returns the allocation of a job kept.
func (g *Gantt) alloc(r *ganttRec) []cluster.Range {
	return g.ranges[r.blk][r.pos : r.pos+r.n : r.pos+r.n]
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
	return g.n
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
	if len(g.jobs) != g.n {
		g.jobs = make([]GanttJob, g.n)
		for i := range g.n {
			r := g.rec(i)
			g.jobs[i] = GanttJob{ID: r.id, Start: workload.Time(r.start), End: workload.Time(r.end), Killed: r.killed, Alloc: g.alloc(r)}
		}
	}
	return g.jobs
}

// Settle makes, once the run is over, the part of the page's reading of g
// that takes time: the order of the jobs on its chart (a sort of every
// job, with buffers of megabytes for a long run). Without it the page
// makes the order when it is written, while the figures are drawn on
// every processor; a run calls Settle on a goroutine of its own as soon
// as its last record is in, while its summary is computed on one
// processor. What the page shows is the same either way. Settle may be
// called from several goroutines at once, and more than once, but not
// while the run goes on.
func (g *Gantt) Settle() {
	if g.Complete() && g.n > 0 {
		g.pageOrder()
	}
}

// pageOrder returns the jobs' order on the page's chart (ganttOrder),
// made on its first call after the last JobDone.
func (g *Gantt) pageOrder() []int32 {
	g.orderMu.Lock()
	defer g.orderMu.Unlock()
	if len(g.order) != g.n {
		g.order = ganttOrder(g)
	}
	return g.order
}

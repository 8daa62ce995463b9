package sim

import (
	"fmt"
	"math"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// allocView is the policy's view of an engine with a node selector
// (Config.Allocator): the engine's view plus policy.Fitter.
type allocView struct {
	*Engine
}

// Fits implements policy.Fitter: queued job i can start now on the nodes.
func (v allocView) Fits(i int) bool {
	return v.alloc.Fits(cluster.RequestOf(v.Job(i)))
}

var _ policy.Fitter = allocView{}

// allocate places the job of slot s with the node selector and returns the
// processors it holds.
func (e *Engine) allocate(s *slot) int {
	r := cluster.RequestOf(&s.job)
	rs, ok := e.alloc.RunNow(r, s.alloc[:0])
	if !ok {
		panic(fmt.Sprintf("sim: policy %s started job %d (%d processors, %d KB each) at %d, which does not fit the nodes (%d processors free)", e.pol.Name(), s.job.ID, r.Procs, r.MemKB, e.now, e.alloc.Free()))
	}
	s.alloc = rs
	held := e.alloc.Commit(r, rs)
	s.held = int32(held)
	return held
}

// willRun is the engine's scratch for WILL_RUN predictions.
type willRun struct {
	scratch cluster.Allocator
	held    []cluster.Held
	where   []cluster.Range
}

// predict returns the start WILL_RUN predicts now for job j, which was just
// queued: now if it fits the idle nodes, else the earliest predicted end of
// running jobs after which it fits (workload.Forever if none).
func (e *Engine) predict(j *workload.Job) workload.Time {
	r := cluster.RequestOf(j)
	if e.alloc.Fits(r) {
		return e.now
	}
	w := &e.will
	w.held = w.held[:0]
	for _, rj := range e.running {
		s := &e.slots[rj.id]
		w.held = append(w.held, cluster.Held{End: rj.predEnd, Req: cluster.RequestOf(&s.job), Alloc: s.alloc})
	}
	w.scratch = cluster.CloneInto(w.scratch, e.alloc)
	at, where := cluster.WillRun(w.scratch, e.now, r, w.held, w.where[:0])
	w.where = where
	return at
}

// scaler is an Allocator on which a job's run time depends on where it
// runs (cluster.Federation).
type scaler interface {
	Scale(rs []cluster.Range) float64
}

// scaleRun returns run scaled by f, rounded up to whole seconds (at least
// 1 s for a positive run).
func scaleRun(run workload.Time, f float64) workload.Time {
	if run <= 0 || f == 1 {
		return run
	}
	return max(workload.Time(math.Ceil(float64(run)*f-1e-9)), 1)
}

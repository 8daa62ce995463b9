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
	return v.alloc.Fits(v.slots[v.queue[i]].request())
}

// request is what the job of slot s asks of the node selector; its time is
// its time limit (not a shorter prediction an Estimator made), which a
// partition's MaxTime is checked against.
func (s *slot) request() cluster.Request {
	r := cluster.RequestOf(&s.job)
	if s.limit > 0 {
		r.TimeSec = s.limit
	}
	r.Member = int(s.member)
	return r
}

// memberAssigner is an Allocator that assigns a job its place at
// submission (cluster.Federation: SCore-D assigns a job its cluster then);
// the engine keeps the answer with the job and puts it in its requests.
type memberAssigner interface {
	Assign(r cluster.Request) int
	Waiting(r cluster.Request, wait bool)
}

var (
	_ policy.Fitter      = allocView{}
	_ policy.NodeStarter = (*Engine)(nil)
)

// nodeView is the policy's view of an engine whose node selector knows its
// nodes (cluster.NodeUnits): allocView plus policy.NodeView.
type nodeView struct {
	allocView
}

var _ policy.NodeView = nodeView{}

// Scratch implements policy.NodeView (and, on any node selector, gives a
// copy of it to a policy that places jobs itself, such as HPC Pack's
// activation filters, which keep resources reserved).
func (v allocView) Scratch() cluster.Allocator {
	v.will.plan = cluster.CloneInto(v.will.plan, v.alloc)
	return v.will.plan
}

// Held implements policy.NodeView.
func (v nodeView) Held(k int) cluster.Held {
	rj := &v.running[k]
	x := &v.slots[rj.id]
	return cluster.Held{End: rj.predEnd, Req: x.request(), Alloc: x.alloc}
}

// Request implements policy.NodeView (see Scratch).
func (v allocView) Request(i int) cluster.Request { return v.slots[v.queue[i]].request() }

// StartOn implements policy.NodeStarter: queued job i starts on rs (on a
// cluster of clusters too, where rs then sets the job's cluster). On a
// pool of processors, which has no nodes to choose, the start panics
// (see overAllocated).
func (e *Engine) StartOn(i int, rs []cluster.Range) {
	e.startOn = rs
	e.startWith(i, -1)
	e.startOn = nil
}

// allocate places the job of slot s with the node selector and returns the
// processors it holds.
func (e *Engine) allocate(s *slot) int {
	r := s.request()
	if e.startOn != nil {
		// Resources the policy chose (StartOn): Commit panics on any that
		// is not idle.
		s.alloc = append(s.alloc[:0], e.startOn...)
		held := e.alloc.Commit(r, s.alloc)
		s.held = int32(held)
		return held
	}
	var rs []cluster.Range
	ok := true
	if e.pre != nil && e.pre.useFix {
		// Preemption chose where the job starts (see Engine.Preempt).
		rs, e.pre.useFix = append(s.alloc[:0], e.pre.fixed...), false
	} else {
		var taken []cluster.Range
		if e.cons != nil && e.cons.pins != nil {
			taken = e.pinOut(s) // not on the nodes of a reservation it may not use
		}
		rs, ok = e.alloc.RunNow(r, s.alloc[:0])
		if taken != nil {
			e.pinBack(taken)
		}
	}
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
	kept    []cluster.Range   // the held allocations on nodes in service, end to end
	plan    cluster.Allocator // the policy's copy (nodeView.Scratch)
}

// inService returns the units of rs not on draining nodes, in the
// engine's WILL_RUN scratch (valid until the next predict).
func (e *Engine) inService(rs []cluster.Range) []cluster.Range {
	w, ns := &e.will, &e.nodes
	first := len(w.kept)
	for _, r := range rs {
		for u := r.Lo; u < r.Hi; u++ {
			if ns.state[ns.units.UnitNode(u)] == nodeDrain {
				continue
			}
			if n := len(w.kept); n > first && w.kept[n-1].Hi == u {
				w.kept[n-1].Hi++
			} else {
				w.kept = append(w.kept, cluster.Range{Lo: u, Hi: u + 1})
			}
		}
	}
	return w.kept[first:len(w.kept):len(w.kept)]
}

// predict sets the start WILL_RUN predicts now for the job of slot s, just
// queued, and where it would start: now if it fits the idle nodes, else
// the earliest predicted end of running jobs after which it fits
// (workload.Forever if none: no place then). A job held until later is
// predicted to start no earlier than its hold.
func (e *Engine) predict(s *slot) {
	r := s.request()
	w := &e.will
	var at workload.Time
	if rs, ok := e.alloc.RunNow(r, s.predAt[:0]); ok {
		at, s.predAt = e.now, rs
	} else {
		w.held, w.kept = w.held[:0], w.kept[:0]
		for _, rj := range e.running {
			x := &e.slots[rj.id]
			alloc := x.alloc
			if e.nodes.draining > 0 {
				// What a running job holds on draining nodes leaves
				// service when it ends: WILL_RUN may not count it.
				alloc = e.inService(x.alloc)
				if len(alloc) == 0 {
					continue
				}
			}
			w.held = append(w.held, cluster.Held{End: rj.predEnd, Req: cluster.RequestOf(&x.job), Alloc: alloc})
		}
		w.scratch = cluster.CloneInto(w.scratch, e.alloc)
		at, s.predAt = cluster.WillRun(w.scratch, e.now, r, w.held, s.predAt[:0])
		if at >= workload.Forever {
			s.predAt = s.predAt[:0]
		}
	}
	if s.job.HoldUntil > at && at < workload.Forever {
		at = s.job.HoldUntil
	}
	s.predicted = at
}

// scaler is an Allocator on which a job's run time depends on where it
// runs (cluster.Federation).
type scaler interface {
	Scale(rs []cluster.Range) float64
	// DefaultTimeOn is the time limit of the partition of the member
	// holding rs for a job without one (0: none).
	DefaultTimeOn(r cluster.Request, rs []cluster.Range) workload.Time
}

// scaleRun returns run scaled by f, rounded up to whole seconds (at least
// 1 s for a positive run).
func scaleRun(run workload.Time, f float64) workload.Time {
	if run <= 0 || f == 1 {
		return run
	}
	return max(workload.Time(math.Ceil(float64(run)*f-1e-9)), 1)
}

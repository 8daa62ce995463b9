package sim

import (
	"fmt"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
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

package sim

import (
	"fmt"
	"slices"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// allocator is where the engine takes the processors of the jobs it
// starts and gives them back: one path for every kind of machine. The
// engine holds exactly one, which New chooses from the configuration:
//
//   - poolAlloc, the pool of processors numbered in the engine
//     (cluster.Machine: a job takes the lowest free numbers);
//   - countAlloc, the same pool counted only, its numbers given behind
//     the engine by a Placer (Config.DeferPlacement), usually on the
//     observers' goroutine;
//   - nodeAlloc, a node selector (Config.Allocator: cluster.Linear,
//     cluster.ConsRes, cluster.Federation).
//
// An allocator decides nothing: the policy chose the job, the allocator
// places it. Like the engine's other invariant checks, take panics when
// the policy started a job whose processors are not free.
type allocator interface {
	// free returns the idle processors.
	free() int
	// held returns the processors the running job of slot s holds.
	held(s *slot) int
	// testOnly reports whether job j, just submitted to e, can ever run
	// on the machine, all of it idle (Slurm's TEST_ONLY), as it will queue
	// (at its minimum under Grow); if not, reason says why.
	testOnly(e *Engine, j *workload.Job) (ok bool, reason string)
	// fits reports whether the queued job of slot s can start now
	// (Slurm's RUN_NOW).
	fits(s *slot) bool
	// queued tells that the job of slot id joined the engine: on nodes,
	// its start is predicted (WILL_RUN).
	queued(e *Engine, s *slot, id int32)
	// take gives the job starting in slot id its processors (s.alloc,
	// unless they are numbered behind the engine) and returns how many
	// it holds.
	take(e *Engine, s *slot, id int32) (held int)
	// give takes back the processors of the job of slot s, which stopped.
	give(s *slot)
	// ended returns where the job of slot s, which ended, ran, as
	// policy.Ended gives it to the policy: a copy of s.alloc on nodes,
	// nil on a pool of processors.
	ended(s *slot) []cluster.Range
	// observe is called as a run starts, with its observer: deferred
	// numbering needs one that wants the starts (a Placer behind it).
	observe(obs *sink) error
	// counting reports whether a job fits exactly when enough processors
	// are idle (a pool of processors): the engine then checks that
	// reservations are kept and may skip passes that cannot start a job
	// (see fastpath.Quieter), both of which count processors.
	counting() bool
	// attach sets up what the engine offers on this machine: on nodes,
	// the policy's view of them (policy.Fitter, policy.NodeView), the
	// selector's partition time limits and run-time scaling.
	attach(e *Engine)
	// fitsMore reports whether need more processors than it holds fit
	// now for the running job of slot s, which grows (Config.Grow): on
	// the pool always, its callers counting the idle processors; on
	// nodes, where the selector can place them.
	fitsMore(e *Engine, s *slot, need int) bool
	// grow gives the running job of slot s add more processors in all
	// (Config.Grow): s.alloc and what it holds grow. It returns the
	// processors the job held before, the idle ones it took (on nodes,
	// none when it grows onto the cores of the nodes it holds) and the
	// ranges it got, which the engine keeps in the job's growth step.
	grow(e *Engine, s *slot, add int) (held, taken int, got []cluster.Range)
	// restored rebuilds the allocation state of engine e, restored from
	// a checkpoint whose slots and node states it has: a node selector
	// is given the running jobs' allocations back and its parked units
	// taken out of service again; the pool's free ranges were restored
	// with the engine's Machine.
	restored(e *Engine) error
}

var (
	_ allocator = (*poolAlloc)(nil)
	_ allocator = (*countAlloc)(nil)
	_ allocator = nodeAlloc{}
)

// newAllocator returns the allocator for cfg (see allocator); m is the
// engine's pool of processors.
func newAllocator(cfg *Config, m *cluster.Machine) allocator {
	switch {
	case cfg.Allocator != nil:
		return nodeAlloc{cfg.Allocator}
	case cfg.DeferPlacement:
		return &countAlloc{size: m.Size()}
	}
	return &poolAlloc{m}
}

// poolAlloc is the pool of processors, numbered in the engine: a job
// takes the lowest free numbers (cluster.Machine). Growing jobs (Grow),
// node events and power management work on the same Machine.
type poolAlloc struct {
	m *cluster.Machine
}

func (p *poolAlloc) free() int         { return p.m.Free() }
func (p *poolAlloc) held(s *slot) int  { return s.job.Procs }
func (p *poolAlloc) fits(s *slot) bool { return s.job.Procs <= p.m.Free() }
func (p *poolAlloc) give(s *slot)      { p.m.Release(s.alloc) }

func (p *poolAlloc) testOnly(e *Engine, j *workload.Job) (bool, string) {
	return p.m.CanEverRun(e.procsAtSubmit(j))
}

func (p *poolAlloc) take(e *Engine, s *slot, id int32) int {
	if e.shared {
		if e.isShared(s) {
			return e.sharedTake(p, s, id)
		}
		if s.job.Procs > p.m.Free()-e.sharedOver {
			e.overAllocated(s, p.m.Free()-e.sharedOver)
		}
	}
	if s.job.Procs > p.m.Free() || e.startOn != nil {
		e.overAllocated(s, p.m.Free())
	}
	s.alloc = p.m.Alloc(s.job.Procs, s.alloc[:0])
	return s.job.Procs
}

func (p *poolAlloc) fitsMore(*Engine, *slot, int) bool { return true }

func (p *poolAlloc) grow(_ *Engine, s *slot, add int) (held, taken int, got []cluster.Range) {
	n := len(s.alloc)
	s.alloc = p.m.Alloc(add, s.alloc)
	return s.job.Procs, add, s.alloc[n:len(s.alloc):len(s.alloc)]
}

func (p *poolAlloc) queued(*Engine, *slot, int32) {}
func (p *poolAlloc) ended(*slot) []cluster.Range  { return nil }
func (p *poolAlloc) observe(*sink) error          { return nil }
func (p *poolAlloc) counting() bool               { return true }
func (p *poolAlloc) attach(*Engine)               {}
func (p *poolAlloc) restored(*Engine) error       { return nil }

// countAlloc is the pool of processors counted only
// (Config.DeferPlacement). Which processors a job gets depends only on
// the order of the starts and ends: the engine tells the observer behind
// it (a Placer) of each start (EventStarted, Event.Deferred), in order
// with the records, and the Placer numbers them as poolAlloc would.
type countAlloc struct {
	size, busy int
}

func (c *countAlloc) free() int         { return c.size - c.busy }
func (c *countAlloc) held(s *slot) int  { return s.job.Procs }
func (c *countAlloc) fits(s *slot) bool { return s.job.Procs <= c.size-c.busy }
func (c *countAlloc) give(s *slot)      { c.busy -= s.job.Procs }

func (c *countAlloc) testOnly(e *Engine, j *workload.Job) (bool, string) {
	if procs := e.procsAtSubmit(j); procs > c.size {
		return false, c.tooBig(procs)
	}
	return true, ""
}

// tooBig says why a job of procs processors is refused: it is apart from
// testOnly, which runs for every job, so that testOnly is inlined.
//
//go:noinline
func (c *countAlloc) tooBig(procs int) string {
	return fmt.Sprintf("needs %d processors, machine has %d", procs, c.size)
}

func (c *countAlloc) take(e *Engine, s *slot, id int32) int {
	if s.job.Procs > c.size-c.busy || e.startOn != nil {
		if e.startOn == nil && e.isShared(s) {
			// Time-shared (Config.Shared): it takes the idle processors
			// and shares the rest.
			got := min(s.job.Procs, max(c.size-c.busy, 0))
			c.busy += s.job.Procs
			e.sharedBeyond(id, s.job.Procs-got)
			return got
		}
		e.overAllocated(s, c.size-c.busy)
	}
	c.busy += s.job.Procs
	return s.job.Procs
}

// observe checks that obs takes the starts, which number the processors.
func (c *countAlloc) observe(obs *sink) error {
	if !obs.wants(EventStarted) {
		return fmt.Errorf("sim: deferred placement needs an Observer that wants EventStarted (a Placer behind it), not %T", obs.obs)
	}
	return nil
}

// fitsMore and grow are never called: New refuses growing jobs under
// deferred placement, whose Placer numbers each job's processors once.
func (c *countAlloc) fitsMore(*Engine, *slot, int) bool { return true }
func (c *countAlloc) grow(*Engine, *slot, int) (int, int, []cluster.Range) {
	panic("sim: growing a job under deferred placement")
}

func (c *countAlloc) queued(*Engine, *slot, int32) {}
func (c *countAlloc) ended(*slot) []cluster.Range  { return nil }
func (c *countAlloc) counting() bool               { return true }
func (c *countAlloc) attach(*Engine)               {}

// restored is never called: Restore refuses a run whose numbering is
// deferred (see CanCheckpoint).
func (c *countAlloc) restored(*Engine) error { return nil }

// nodeAlloc is a node selector (Config.Allocator). The engine keeps it as
// Engine.alloc too, for what only nodes have: WILL_RUN predictions, the
// policy's view of the nodes, reservations pinned to nodes, clusters of
// clusters and preemption.
type nodeAlloc struct {
	a cluster.Allocator
}

func (n nodeAlloc) free() int        { return n.a.Free() }
func (n nodeAlloc) held(s *slot) int { return int(s.held) }
func (n nodeAlloc) fits(s *slot) bool {
	return s.job.Procs <= n.a.Free() && n.a.Fits(s.request())
}
func (n nodeAlloc) give(s *slot) { n.a.Release(cluster.RequestOf(&s.job), s.alloc) }

func (n nodeAlloc) testOnly(e *Engine, j *workload.Job) (bool, string) {
	if e.grow != nil {
		j = e.grow.atMinimum(j, e.machine.Size()) // as it will queue
	}
	return n.a.TestOnly(cluster.RequestOf(j))
}

// take places the job where the policy (StartOn), preemption or the
// selector (RUN_NOW) chose: see Engine.allocate.
func (n nodeAlloc) take(e *Engine, s *slot, _ int32) int { return e.allocate(s) }

// queued predicts the job's start (WILL_RUN), once the instant's node
// events are applied.
func (n nodeAlloc) queued(e *Engine, s *slot, id int32) {
	if e.nodes.nextAt() <= e.now {
		// Node events of this instant (or from before the first
		// submission) are applied after the submissions: predict once
		// they are.
		e.toPredict = append(e.toPredict, id)
		return
	}
	e.predict(s)
}

// fitsMore tries where the need more processors would go, in the engine's
// scratch.
func (n nodeAlloc) fitsMore(e *Engine, s *slot, need int) bool {
	rs, ok := n.place(e, s, need, e.grow.rs[:0])
	e.grow.rs = rs[:0]
	return ok
}

// grow fills the cores the job holds beyond its processors first (slack)
// and takes from the selector only what they lack.
func (n nodeAlloc) grow(e *Engine, s *slot, add int) (held, taken int, got []cluster.Range) {
	held = int(s.held)
	need := s.job.Procs + add - held
	if need <= 0 {
		return held, 0, nil
	}
	rs, ok := n.place(e, s, need, nil)
	if !ok {
		panic(fmt.Sprintf("sim: growing job %d by %d processors at %d, which do not fit the nodes", s.job.ID, need, e.now))
	}
	r := s.request()
	r.Procs = need
	taken = n.a.Commit(r, rs)
	s.held += int32(taken)
	// A new slice: the steps keep parts of the old one.
	s.alloc = mergeRanges(append(slices.Clone(s.alloc), rs...))
	return held, taken, rs
}

// place appends to dst where need more processors of the running job of
// slot s would go now on the node selector (as a start's would: not on
// the nodes of a reservation it may not use) and reports whether they fit.
func (n nodeAlloc) place(e *Engine, s *slot, need int, dst []cluster.Range) ([]cluster.Range, bool) {
	r := s.request()
	r.Procs = need
	var taken []cluster.Range
	if e.cons != nil && e.cons.pins != nil {
		taken = e.pinOut(s)
	}
	rs, ok := n.a.RunNow(r, dst)
	if taken != nil {
		e.pinBack(taken)
	}
	return rs, ok
}

func (n nodeAlloc) ended(s *slot) []cluster.Range { return slices.Clone(s.alloc) }
func (n nodeAlloc) observe(*sink) error           { return nil }
func (n nodeAlloc) counting() bool                { return false }

func (n nodeAlloc) restored(e *Engine) error {
	if err := e.recommit(); err != nil {
		return err
	}
	return e.repark()
}

func (n nodeAlloc) attach(e *Engine) {
	e.view = allocView{e}
	if _, ok := n.a.(cluster.NodeUnits); ok {
		e.view = nodeView{allocView{e}}
	}
	e.scale, _ = n.a.(scaler)
	e.defTime, _ = n.a.(cluster.DefaultTimer)
}

// overAllocated panics: the policy started the job of slot s with only
// free processors idle, or chose its processors (StartOn) on a pool,
// which has no nodes to choose. It is apart so that take, small, stays
// cheap.
//
//go:noinline
func (e *Engine) overAllocated(s *slot, free int) {
	if e.startOn != nil {
		panic(fmt.Sprintf("sim: policy %s chose the resources of a job on a machine without nodes to choose", e.pol.Name()))
	}
	panic(fmt.Sprintf("sim: policy %s started job %d (%d processors) at %d with %d free", e.pol.Name(), s.job.ID, s.job.Procs, e.now, free))
}

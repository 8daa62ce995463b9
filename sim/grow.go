package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Grow turns on HPC Pack's job model with minimum and maximum resources
// (SPEC §3 and §6) in a run (Config.Grow).
//
// A job's range is [MinProcs, MaxProcs] (workload.Job; a bound that is 0
// is its Procs, the maximum is cut to the machine). A job whose range is a
// single count is rigid and runs as without Grow.
//
// Start: a queued job asks for its minimum (the policy sees Procs =
// minimum). A job started at the head of the queue (before the policy grows
// the running jobs in this pass, policy.Grower) is given at once as many
// processors up to its maximum as are idle: HPC Pack's Queued mode, where
// jobs start in priority order, each with as many resources up to its
// maximum as are free ("The job can run when its minimum resource
// requirements are met. The scheduler may allocate up to the maximum
// specified resource limit for the job.", ISchedulerJob.MinimumNumberOfNodes).
// Its start and that growth are one assignment (its Steps show the start on
// the minimum and the growth at the same instant); a policy that asks
// activation filters (hpcpack.Filtered) asks them once for the whole of it
// and says how many processors it may take (policy.Assigner). Then, right
// after the starts at the head and before backfilling, every running job
// below its maximum is offered the idle processors, in order of priority
// (workload.Job.Priority, highest first), then of submission; each takes
// what it can up to its maximum, if its activation filters let it (Filter,
// SPEC §6's "running job (grow)" column). A backfilled job starts on its
// minimum and grows at a later pass, once the head has been served (SPEC
// §3: growth before backfilling).
// A job refused by a filter keeps its processors; the processors it did not
// get go to the next job. Growth happens at scheduling passes only.
//
// Run time: the trace's run time is the job's run time on its trace
// processor count p0 (workload.Job.Procs). Its work is run · S(p0), S the
// Speedup's factor; on p processors the remaining work runs
// remaining / S(p) seconds, rounded up to a whole second (policy.Span). A
// growth at t converts the work left at t (the work done so far counted
// exactly, at the rate of each processor count held) to the new rate: the
// job's end moves to t + Span(left, p'), never later than it was. The
// requested time converts the same way (it is the requested time at p0):
// the job's predicted end, which the policies plan with, and its kill
// limit; a job whose trace run time exceeds its requested time is killed
// when it has done the requested time's work. A job that starts on p ≠ p0
// gets its run time and estimate converted at its start the same way.
//
// Every growth voids the reservations made before it (the running jobs
// they were planned on changed), as a corrected prediction does under an
// Estimator.
//
// Under an Estimator, the estimator works in the trace's terms, as the
// requested time does: it predicts the job's run time on p0 processors
// (Predict sees the job as the trace gives it), and its prediction converts
// to the processors the job holds as the requested time does — the predicted
// work, run · S(p0), spans Span(work, p) on p processors, and what is left
// of it re-spans at every growth. A job that outlives its prediction has
// done the predicted work: the estimator corrects the prediction on p0
// (Correct(j, pred) with pred the predicted run on p0) and the extra work
// spans the processors held. When the job ends the estimator learns its
// run time on p0: the trace's run time, or its requested time if it was
// killed.
//
// Only policies that call policy.Grower between their head starts and
// backfilling grow jobs: FCFS, EASY and Depth, also under policy.Ordered
// and hpcpack.Filtered (which grows once more after its last round);
// Conservative and Slurm plan with fixed processor counts and never do
// (their jobs run on their minimum). Activation filters reserve (result 2)
// a queued job's minimum.
//
// On a cluster of nodes (Config.Allocator) a job grows on the node
// selector: HPC Pack allocates a job's resources in its unit type, cores
// or nodes (ISchedulerJob.UnitType: "A job can specify that it needs a
// minimum of four nodes to run, regardless of how many cores are on each
// node. The job could also specify that it needs four cores to run").
// With cons_res a job's unit is the core: it starts on its minimum in
// cores and grows by taking idle cores (in its partition, with the memory
// it asks per core) wherever they are. With linear it is the node: it
// holds whole nodes (at least its processors' worth), grows first onto the
// idle cores of the nodes it holds, then by taking whole idle nodes of its
// partition, and runs on its processor count (never above its maximum)
// whichever nodes it holds. A growth takes what the selector can give of
// what the job is offered; its step names the nodes (linear) or cores
// (cons_res) it got, none when it grew onto cores it held. Clusters of
// clusters are refused: they are SCore-D's model (SPEC §5), where a job is
// given a member cluster, or several, and may run at its member's speed
// (Config.Allocator scales its run time at its start); HPC Pack grows a
// job on the nodes of one cluster.
type Grow struct {
	// Speedup is the run-time model; nil is policy.Linear.
	Speedup policy.Speedup
	// Filter, if not nil, decides every growth (hpcpack.Model does:
	// its activation filters).
	Filter policy.GrowFilter
	// Balanced runs HPC Pack's Balanced scheduling mode instead of Queued
	// ("attempt to start all incoming jobs as soon as possible at their
	// minimum resource requirements. After all the jobs in the queue have
	// their minimum resources, [...] allocate additional cluster resources
	// to jobs", SchedulingMode.Balanced; PriorityBias NoBias: "allocated
	// equally"). Every job starts on its minimum, never more, at the head
	// of the queue too (Range reports its minimum alone, so activation
	// filters are asked for it and result 2 reserves it); the policy's
	// growth between its head starts and backfilling gives nothing. At the
	// end of a pass that leaves no job waiting (none queued, none held), the
	// idle processors are shared out evenly among the running jobs below
	// their maximum (see balance). Running jobs are never shrunk (HPC
	// Pack's immediate preemption of tasks on additional resources is not
	// modelled): growing while jobs wait would delay their minimums.
	Balanced bool
}

// GrowStep is one step of a running job's allocation under Grow: from At it
// held Procs processors in all, Alloc being the ones it got at At (at its
// start, all of them).
type GrowStep struct {
	At    workload.Time
	Procs int
	Alloc []cluster.Range
}

// growSlot is a slot's state under Grow: plain fields, so that a run's
// state can be saved.
type growSlot struct {
	p0, minP, maxP int           // trace, minimum and maximum processors
	run0, est0     workload.Time // trace run time and requested time (≤ 0: none)
	since          workload.Time // when wRun, wEst and wPred were last brought up to date
	wRun, wEst     float64       // work left (one-processor seconds) at since
	// Under an Estimator (0 without): pred0 is the prediction on p0,
	// wPred the predicted work left at since, and wPredTot the whole
	// predicted work.
	pred0           workload.Time
	wPred, wPredTot float64
	gen             uint32 // generation of the job's live end event
	steps           []GrowStep
}

// growState is the engine's state under Grow.
type growState struct {
	speedup  policy.Speedup
	filter   policy.GrowFilter
	balanced bool            // Grow.Balanced
	plan     []int32         // balance's scratch
	rs       []cluster.Range // growFit's scratch
	slots    []growSlot      // by slot id
	order    []int32         // running jobs below their maximum, by (priority desc, seq)
}

// errGrowWith is returned by New for a Grow it cannot combine.
var errGrowWith = errors.New("sim: growing jobs (HPC Pack's min/max resources)")

// newGrowState checks cfg's Grow and returns the state, or nil without Grow.
func newGrowState(cfg *Config) (*growState, error) {
	if cfg.Grow == nil {
		return nil, nil
	}
	if _, ok := cfg.Allocator.(scaler); ok {
		return nil, fmt.Errorf("%w cannot be combined with a cluster of clusters (SCore-D's model; HPC Pack grows a job on the nodes of one cluster)", errGrowWith)
	}
	g := &growState{speedup: cfg.Grow.Speedup, filter: cfg.Grow.Filter, balanced: cfg.Grow.Balanced}
	if g.speedup == nil {
		g.speedup = policy.Linear{}
	}
	return g, nil
}

// procsAtSubmit returns the processors job j asks for to start: its
// minimum under Grow.
func (e *Engine) procsAtSubmit(j *workload.Job) int {
	if e.grow == nil {
		return j.Procs
	}
	lo, _ := e.grow.bounds(j, e.machine.Size())
	return lo
}

// bounds returns j's processor range on a machine of size processors.
func (g *growState) bounds(j *workload.Job, size int) (lo, hi int) { return procRange(j, size) }

// procRange returns j's processor range on a machine of size processors
// (see Grow): [MinProcs, MaxProcs], a bound that is 0 being Procs, the
// maximum cut to the machine but not below the minimum (a minimum above
// the machine is reported as size+1 at most: the job is rejected).
func procRange(j *workload.Job, size int) (lo, hi int) {
	lo, hi = j.Procs, j.Procs
	if j.MinProcs > 0 {
		lo = int(min(j.MinProcs, int64(size)+1))
	}
	if j.MaxProcs > 0 {
		hi = int(min(j.MaxProcs, int64(size)))
	}
	hi = max(hi, lo)
	if hi > size {
		hi = max(size, lo)
	}
	return lo, hi
}

// hasRange reports whether j has a processor range on a machine of size:
// whether Grow may run it on another count than Procs.
func hasRange(j *workload.Job, size int) bool {
	lo, hi := procRange(j, size)
	return lo != hi || lo != j.Procs
}

// submitted shapes the job just queued in slot id: it asks for its
// minimum, with its run time and requested time converted to it.
func (g *growState) submitted(e *Engine, s *slot, id int32) {
	for int(id) >= len(g.slots) {
		g.slots = append(g.slots, growSlot{})
	}
	gs := &g.slots[id]
	// Under an Estimator the job's Estimate is the prediction on p0 and
	// its limit the requested time; without one they are equal.
	gs.p0, gs.run0, gs.est0 = s.job.Procs, s.job.Run, s.job.Estimate
	gs.pred0, gs.wPred, gs.wPredTot = 0, 0, 0
	if e.est != nil {
		gs.est0, gs.pred0 = s.limit, s.job.Estimate
	}
	gs.minP, gs.maxP = g.bounds(&s.job, e.machine.Size())
	gs.steps = gs.steps[:0]
	gs.wRun, gs.wEst = 0, 0
	if gs.minP == gs.p0 && gs.maxP == gs.p0 {
		return // rigid
	}
	run := min(gs.run0, s.limit)
	if s.limit <= 0 {
		run = gs.run0
	}
	// Work at p0, and its span at the minimum.
	gs.wRun = policy.Work(g.speedup, run, gs.p0)
	s.job.Procs = gs.minP
	s.job.Run = policy.Span(g.speedup, policy.Work(g.speedup, gs.run0, gs.p0), gs.minP)
	if gs.est0 > 0 {
		gs.wEst = policy.Work(g.speedup, gs.est0, gs.p0)
		s.job.Estimate = policy.Span(g.speedup, gs.wEst, gs.minP)
		s.limit = s.job.Estimate
		if gs.run0 > gs.est0 {
			s.job.Run = s.limit + 1 // killed at its converted limit
		} else {
			s.job.Run = min(s.job.Run, s.limit)
		}
		if e.est != nil {
			gs.wPredTot = policy.Work(g.speedup, gs.pred0, gs.p0)
			gs.wPred = gs.wPredTot
			s.job.Estimate = min(max(policy.Span(g.speedup, gs.wPred, gs.minP), 1), s.limit)
		}
	}
}

// atMinimum returns a copy of job j as it queues under Grow on a machine
// of size processors: on its minimum, its requested time converted to it
// (see submitted); j itself when it has no range.
func (g *growState) atMinimum(j *workload.Job, size int) *workload.Job {
	lo, hi := g.bounds(j, size)
	if lo == hi && lo == j.Procs {
		return j
	}
	c := *j
	c.Procs = lo
	if j.Estimate > 0 {
		c.Estimate = policy.Span(g.speedup, policy.Work(g.speedup, j.Estimate, j.Procs), lo)
	}
	return &c
}

// trace returns the prediction to requeue the job in slot id with, on
// its trace processors: the estimator's under an Estimator, else the
// requested time (limit).
func (g *growState) trace(id int32, limit workload.Time) workload.Time {
	if gs := &g.slots[id]; gs.pred0 > 0 {
		return gs.pred0
	}
	return limit
}

// runOnP0 returns the run time the Estimator learns for the job in slot
// id, which ran for run seconds: for a job with a processor range, its run
// time on its trace processors (the trace's run time, or the requested time
// if it was killed at it).
func (g *growState) runOnP0(id int32, run workload.Time) workload.Time {
	gs := &g.slots[id]
	if gs.minP == gs.maxP && gs.minP == gs.p0 {
		return run
	}
	if gs.est0 > 0 && gs.run0 > gs.est0 {
		return gs.est0
	}
	return gs.run0
}

// expire corrects, under an Estimator, the prediction of the running job
// in slot id, which has done its predicted work now without ending: the
// estimator's new prediction on p0 (clamped to [pred+1, requested time])
// adds work, which spans the processors the job holds. It returns the new
// predicted end.
func (g *growState) expire(e *Engine, s *slot, id int32) workload.Time {
	gs := &g.slots[id]
	g.catchUp(e, s, gs)
	pred := policy.Span(g.speedup, gs.wPredTot, gs.p0)
	j := s.job
	j.Procs, j.Run, j.Estimate = gs.p0, gs.run0, gs.est0
	next := min(max(e.est.Correct(&j, pred), pred+1), gs.est0)
	tot := policy.Work(g.speedup, next, gs.p0)
	gs.wPred += tot - gs.wPredTot
	gs.wPredTot = tot
	return e.now + max(policy.Span(g.speedup, gs.wPred, s.job.Procs), 1)
}

// catchUp brings the work left of the running job in slot s up to now.
func (g *growState) catchUp(e *Engine, s *slot, gs *growSlot) {
	done := policy.Work(g.speedup, e.now-gs.since, s.job.Procs)
	gs.wRun -= done
	gs.wEst -= done
	gs.wPred -= done
	gs.since = e.now
}

// malleable reports whether the job in slot id has a processor range.
func (g *growState) malleable(id int32) bool {
	gs := &g.slots[id]
	return gs.minP != gs.maxP || gs.minP != gs.p0
}

// started records the start of the job in slot id (on its minimum) and
// puts it among the jobs that may grow.
func (g *growState) started(e *Engine, s *slot, id int32) {
	gs := &g.slots[id]
	gs.gen++
	if !g.malleable(id) {
		return
	}
	gs.since = e.now
	gs.steps = append(gs.steps[:0], GrowStep{At: e.now, Procs: s.job.Procs, Alloc: s.alloc[:len(s.alloc):len(s.alloc)]})
	if s.job.Procs < gs.maxP {
		g.insert(e, id)
	}
}

// endGen is the generation an end event of slot id is pushed with.
func (g *growState) endGen(id int32) uint32 { return g.slots[id].gen }

// insert puts running job id into the growth order.
func (g *growState) insert(e *Engine, id int32) {
	j := &e.slots[id].job
	k, _ := slices.BinarySearchFunc(g.order, id, func(x, _ int32) int {
		o := &e.slots[x].job
		switch {
		case o.Priority != j.Priority:
			if o.Priority > j.Priority {
				return -1
			}
			return 1
		case o.Seq < j.Seq:
			return -1
		case o.Seq > j.Seq:
			return 1
		}
		return 0
	})
	g.order = slices.Insert(g.order, k, id)
}

// remove takes slot id out of the growth order, if it is there.
func (g *growState) remove(id int32) {
	if k := slices.Index(g.order, id); k >= 0 {
		g.order = slices.Delete(g.order, k, k+1)
	}
}

// finished restores the trace's job in slot id for its record and drops
// the job from the growth order; its end event generation moves on, so
// that a stale event of the slot can never match a later job in it. The
// policies learn of a job that grew (policy.Ended, just appended) with its
// average processor count, rounded to the nearest, so that usage-based
// orders (fair-share) count about what it held.
func (g *growState) finished(e *Engine, s *slot, id int32) {
	gs := &g.slots[id]
	gs.gen++
	if !g.malleable(id) {
		return
	}
	if d := int64(s.end - s.start); d > 0 && len(gs.steps) > 1 {
		e.ended[len(e.ended)-1].Procs = int((stepsProcSeconds(gs.steps, s.end) + d/2) / d)
	}
	g.remove(id)
	s.job.Procs, s.job.Run, s.limit = gs.p0, gs.run0, gs.est0
}

// stale reports whether end event ev was replaced by a later plan.
func (g *growState) stale(ev endEvent) bool {
	return ev.gen != g.slots[ev.id].gen
}

// GrowRunning implements policy.Grower: it offers up to spare idle
// processors to the running jobs below their maximum (see Grow) and
// returns how many they took. Without Config.Grow it gives none.
func (e *Engine) GrowRunning(spare int) int {
	e.headPhase = false
	g := e.grow
	if g == nil || len(g.order) == 0 || g.balanced {
		return 0
	}
	spare = min(spare, e.freeProcs())
	given := 0
	for k := 0; k < len(g.order) && spare > 0; {
		id := g.order[k]
		s := &e.slots[id]
		gs := &g.slots[id]
		if gs.maxP <= s.job.Procs {
			panic(fmt.Sprintf("sim: job %d in the growth order at its maximum %d", s.job.ID, gs.maxP))
		}
		add := min(gs.maxP-s.job.Procs, spare+e.slack(s))
		if add = e.growFit(s, add); add == 0 {
			k++ // the nodes it may use are busy: offered again later
			continue
		}
		if e.cons != nil {
			if add = e.growRoom(s, id, add); add == 0 {
				k++ // the limits or a reservation hold it: offered again later
				continue
			}
		}
		if g.filter != nil {
			if !g.filter.FilterGrow(policy.GrowOffer{Job: &s.job, Now: e.now, Pass: e.stats.Passes, Procs: s.job.Procs + add, Start: s.start}) {
				k++
				continue
			}
		}
		spare -= e.growBy(s, id, add)
		given += add
		if s.job.Procs == gs.maxP {
			g.order = slices.Delete(g.order, k, k+1)
			continue
		}
		k++
	}
	if given > 0 {
		e.epoch++ // reservations were planned on the jobs before they grew
	}
	return given
}

// balance shares the idle processors out among the running jobs below
// their maximum, in Balanced mode (Grow.Balanced), at the end of a pass
// that left no job waiting: evenly — each gets the same number, capped at
// what it lacks of its maximum, what a capped job does not take going to
// the others, and the processors that do not divide evenly one each to the
// first jobs in the growth order (priority, then submission). Each job's
// share is one assignment: its activation filters (Grow.Filter) are asked
// once, for it; a refused share goes to the jobs not yet asked.
func (e *Engine) balance() {
	g := e.grow
	if len(g.order) == 0 || len(e.queue) > 0 || len(e.holds) > 0 {
		return
	}
	spare := e.freeProcs()
	g.plan = append(g.plan[:0], g.order...)
	cand := g.plan
	shares := make([]int, len(cand))
	fair := func() {
		for k := range shares {
			shares[k] = 0
		}
		left, open := spare, len(cand)
		for left > 0 && open > 0 {
			each := left / open
			if each == 0 {
				// One each to the first jobs that still lack some.
				for k, id := range cand {
					if left == 0 {
						break
					}
					if shares[k] < g.slots[id].maxP-e.slots[id].job.Procs {
						shares[k]++
						left--
					}
				}
				break
			}
			open = 0
			for k, id := range cand {
				room := g.slots[id].maxP - e.slots[id].job.Procs - shares[k]
				add := min(each, room)
				shares[k] += add
				left -= add
				if room > add {
					open++
				}
			}
		}
	}
	fair()
	given := 0
	for len(cand) > 0 && spare > 0 {
		id, add := cand[0], shares[0]
		cand, shares = cand[1:], shares[1:]
		if add == 0 {
			continue
		}
		s := &e.slots[id]
		if s.end <= e.now {
			fair() // it ends now: its share goes to the others
			continue
		}
		if r := e.growFit(s, add); r < add {
			// The nodes it may use hold less than its share: it takes
			// what they give, the rest goes to the others.
			if r > 0 && e.cons != nil {
				r = e.growRoom(s, id, r)
			}
			if r > 0 && (g.filter == nil || g.filter.FilterGrow(policy.GrowOffer{Job: &s.job, Now: e.now, Pass: e.stats.Passes, Procs: s.job.Procs + r, Start: s.start})) {
				spare -= e.growBy(s, id, r)
				given += r
			}
			fair()
			continue
		}
		if e.cons != nil {
			if r := e.growRoom(s, id, add); r < add {
				// The limits or a reservation cut its share: it takes
				// what they leave, the rest goes to the others.
				if r > 0 && (g.filter == nil || g.filter.FilterGrow(policy.GrowOffer{Job: &s.job, Now: e.now, Pass: e.stats.Passes, Procs: s.job.Procs + r, Start: s.start})) {
					spare -= e.growBy(s, id, r)
					given += r
				}
				fair()
				continue
			}
		}
		if g.filter != nil && !g.filter.FilterGrow(policy.GrowOffer{Job: &s.job, Now: e.now, Pass: e.stats.Passes, Procs: s.job.Procs + add, Start: s.start}) {
			fair() // its share goes to the others
			continue
		}
		spare -= e.growBy(s, id, add)
		given += add
	}
	if given == 0 {
		return
	}
	g.order = slices.DeleteFunc(g.order, func(id int32) bool { return e.slots[id].job.Procs >= g.slots[id].maxP })
	e.epoch++ // reservations were planned on the jobs before they grew
}

// assign gives the job just started in slot id, on its minimum, up to
// procs processors in all at once: as many more as its maximum and the idle
// processors allow. Its start and this growth are one assignment: the
// growth filter is not asked (the policy asked the job's activation
// filters for the whole of it, see policy.Assigner).
func (g *growState) assign(e *Engine, s *slot, id int32, procs int) {
	gs := &g.slots[id]
	if !g.malleable(id) || s.end <= e.now || g.balanced {
		return
	}
	add := min(procs, gs.maxP) - s.job.Procs
	add = e.growFit(s, min(add, e.freeProcs()+e.slack(s)))
	if e.cons != nil {
		add = e.growRoom(s, id, add)
	}
	if add <= 0 {
		return
	}
	e.growBy(s, id, add)
	if s.job.Procs == gs.maxP {
		g.remove(id)
	}
	e.epoch++ // reservations were planned on the job's minimum
}

// slack returns the cores the running job of slot s holds beyond its
// processors (whole nodes, on a cluster of nodes): it grows onto them
// first, taking nothing from the selector.
func (e *Engine) slack(s *slot) int {
	return max(e.pool.held(s)-s.job.Procs, 0)
}

// growFit returns how many of add more processors the running job of slot
// s can take now: add on the pool (its callers count the idle processors);
// on a cluster of nodes, its slack and then as many as the node selector
// can give it (in its partition, with its memory, in whole nodes with
// linear). Whether k more fit is monotone in k: the most that fit is
// found by halving.
func (e *Engine) growFit(s *slot, add int) int {
	if add <= 0 {
		return 0
	}
	slack := e.slack(s)
	if add <= slack || e.pool.fitsMore(e, s, add-slack) {
		return add
	}
	lo, hi := 0, add-slack // lo more fit, hi do not
	for hi-lo > 1 {
		if m := (lo + hi) / 2; e.pool.fitsMore(e, s, m) {
			lo = m
		} else {
			hi = m
		}
	}
	return slack + lo
}

// growBy adds add processors to running job id now and re-plans its end
// and predicted end. It returns the idle processors the growth took: add
// on the pool; on a cluster of nodes the cores of the nodes or cores it
// got (none when it grew onto cores it held, see slack).
func (e *Engine) growBy(s *slot, id int32, add int) int {
	g := e.grow
	gs := &g.slots[id]
	if !s.started || s.end <= e.now {
		panic(fmt.Sprintf("sim: growing job %d at %d: started %v, end %d", s.job.ID, e.now, s.started, s.end))
	}
	g.catchUp(e, s, gs)
	np := s.job.Procs + add
	held, taken, got := e.pool.grow(e, s, add)
	if e.pw != nil {
		e.powerBusy(got, 1)
	}
	gs.steps = append(gs.steps, GrowStep{At: e.now, Procs: np, Alloc: got})
	end := min(e.now+max(policy.Span(g.speedup, gs.wRun, np), 1), s.end)
	e.stats.ProcSeconds += float64(held+taken)*float64(end-e.now) - float64(held)*float64(s.end-e.now)
	s.end = end
	gs.gen++
	e.ends.push(endEvent{at: end, seq: s.job.Seq, id: id, gen: gs.gen})
	k := e.findRunning(s.predEnd, s.job.Seq)
	e.running = append(e.running[:k], e.running[k+1:]...)
	switch {
	case e.est != nil && s.predEnd < workload.Forever:
		// The predicted work left, on the processors it now holds; the
		// expiry event of the old prediction is stale (gen moved on).
		s.predEnd = min(e.now+max(policy.Span(g.speedup, gs.wPred, np), 1), s.predEnd)
		if s.predEnd < end {
			e.expiry.push(endEvent{at: s.predEnd, seq: s.job.Seq, id: id, gen: gs.gen})
		} else {
			s.predEnd = end
		}
	case s.predEnd < workload.Forever:
		s.predEnd = min(max(e.now+policy.Span(g.speedup, gs.wEst, np), end), s.predEnd)
	}
	if e.cons != nil {
		e.cons.running(&s.job, -1)
	}
	s.job.Procs = np
	if e.cons != nil {
		e.cons.running(&s.job, 1)
	}
	e.insertRunning(s, id)
	return taken
}

// mergeRanges sorts rs, disjoint ranges, and merges the adjacent ones, in
// place.
func mergeRanges(rs []cluster.Range) []cluster.Range {
	slices.SortFunc(rs, func(a, b cluster.Range) int { return a.Lo - b.Lo })
	out := rs[:0]
	for _, r := range rs {
		if k := len(out); k > 0 && out[k-1].Hi == r.Lo {
			out[k-1].Hi = r.Hi
			continue
		}
		out = append(out, r)
	}
	return out
}

// growRoom returns how many of add more processors the running job in
// slot id may take now under Config.Constraints. The limits on processors
// (MaxTRESPerUser=cpu, GrpTRES=cpu) count them as they count a start's.
// And, as a start must (see clearOfReservations), the added processors
// must run into no reservation that does not admit the job: at every
// instant u until the job's requested end on its new count, the processors
// free at u (now's, plus those the other running jobs give back by their
// predicted ends) less those withheld from it are at least the added ones.
// Start windows bound starts, not growth.
func (e *Engine) growRoom(s *slot, id int32, add int) int {
	cs := e.cons
	if add <= 0 {
		return 0
	}
	add = cs.growLimits(&s.job, add)
	if len(cs.resv) == 0 || add <= 0 {
		return add
	}
	g := e.grow
	gs := &g.slots[id]
	free := e.freeProcs()
	for add > 0 {
		end := e.now + calendarHorizon
		if gs.est0 > 0 {
			left := gs.wEst - policy.Work(g.speedup, e.now-gs.since, s.job.Procs)
			end = e.now + max(policy.Span(g.speedup, left, s.job.Procs+add), 1)
		}
		room := add
		for u := e.now; u < end && room > 0; {
			held, next := cs.withheld(&s.job, u)
			if held > 0 {
				f := free + e.releasedBy(u) - held
				if s.predEnd <= u {
					f -= s.job.Procs // its own, counted as given back
				}
				room = min(room, f)
			}
			u = next
		}
		if room >= add {
			return add
		}
		add = max(room, 0)
	}
	return 0
}

// dropStaleEnds pops the end events that a growth replaced.
func (e *Engine) dropStaleEnds() {
	for len(e.ends) > 0 && e.grow.stale(e.ends[0]) {
		e.ends.pop()
	}
}

// recordGrowth puts the growth steps of job id into the record.
func (e *Engine) recordGrowth(id int32) {
	if e.grow != nil {
		e.rec.Steps = e.grow.slots[id].steps
	}
}

// Range implements policy.Assigner: queued job i's processor range under
// Grow; without Grow, or for a rigid job, its processor count twice.
func (e *Engine) Range(i int) (int, int) {
	if i < 0 || i >= e.passLen {
		panic(fmt.Sprintf("sim: policy %s asked the range of queue index %d of %d", e.pol.Name(), i, e.passLen))
	}
	id := e.queue[i]
	p := e.slots[id].job.Procs
	if e.grow == nil || int(id) >= len(e.grow.slots) || !e.grow.malleable(id) || e.grow.balanced {
		return p, p
	}
	return p, max(e.grow.slots[id].maxP, p)
}

// StartWith implements policy.Assigner.
func (e *Engine) StartWith(i, procs int) { e.startWith(i, procs) }

var (
	_ policy.Grower   = (*Engine)(nil)
	_ policy.Assigner = (*Engine)(nil)
)

// ProcSeconds returns the processor-seconds the job of r held: its
// processors times its run time, or under Config.Grow, for a job with
// Steps, the processors it held in each interval between its steps and its
// end.
func (r *Record) ProcSeconds() int64 {
	if len(r.Steps) == 0 {
		return int64(r.Job.Procs) * int64(r.End-r.Start)
	}
	return stepsProcSeconds(r.Steps, r.End)
}

// stepsProcSeconds sums the processors of each step times its length, the
// last step lasting until end.
func stepsProcSeconds(steps []GrowStep, end workload.Time) int64 {
	var sum int64
	for k, g := range steps {
		until := end
		if k+1 < len(steps) {
			until = steps[k+1].At
		}
		sum += int64(g.Procs) * int64(until-g.At)
	}
	return sum
}

package sim

import (
	"errors"
)

// Time-shared queues (Config.Shared). A job of such a queue ran in
// non-dedicated mode: time-shared with whatever else ran on its
// processors (the LANL CM-5's log says "many jobs, especially smaller
// ones, ran in non-dedicated mode"). It never waits for processors: the
// engine starts it, before the policy's pass, at the first pass at which
// it is queued (after its submission, its hold and the submission
// latency) and the calendar lets it start — its start windows, and no
// reservation it may not use holding the whole machine (an outage) in its
// requested time. A reservation of part of the machine does not hold it:
// it shares the processors left.
//
// Its processors count as busy for every other job: the idle processors
// the policies see are the machine's less those of every running job,
// time-shared ones included, and may fall below zero while the
// time-shared jobs hold more than the idle ones; another job starts only
// where it fits beside them. It takes, of its processors, those idle at
// its start (jobs.csv's allocated_resources, the utilisation); the rest
// it shares. A time-shared start voids the promises made before it (a
// head's reservation may move later), as a change of the capacity in
// service does: conservative backfilling, whose plan then shows more
// processors free than there are, plans anew.
//
// The policies never see a time-shared job: it is left out of the queue
// they are shown while the calendar keeps it.

// ErrSharedCombo refuses Config.Shared where the engine cannot share
// processors beyond the idle ones.
var ErrSharedCombo = errors.New("sim: time-shared queues (Config.Shared) need a machine counted in processors (no Allocator: a node selector places every job on idle nodes), and not with ScoreD, Grow, Preempt or NodeEvents")

// checkShared refuses cfg's time-shared queues with what cannot share.
func checkShared(cfg *Config) error {
	if cfg.Shared == nil {
		return nil
	}
	if cfg.Allocator != nil || cfg.ScoreD != nil || cfg.Grow != nil || cfg.Preempt != nil || len(cfg.NodeEvents) > 0 {
		return ErrSharedCombo
	}
	return nil
}

// isShared reports whether the job of slot s is of a time-shared queue.
func (e *Engine) isShared(s *slot) bool { return e.shared && e.cfg.Shared(&s.job) }

// startShared starts, ahead of the policy, every queued job of a
// time-shared queue that the calendar lets start now, whatever the idle
// processors, and takes the started ones out of the queue.
func (e *Engine) startShared() {
	e.passLen = len(e.queue)
	e.started = false
	e.startedAt = e.startedAt[:0]
	for i, id := range e.queue {
		if s := &e.slots[id]; e.isShared(s) && e.sharedMay(s) {
			if !e.started {
				e.epoch++ // reservations were planned without these jobs' processors
			}
			e.startWith(i, -1)
		}
	}
	if !e.started {
		return
	}
	e.removeStarted()
	e.started = false
	e.startedAt = e.startedAt[:0]
	if e.cons != nil {
		e.cons.visible = e.cons.visible[:0]
	}
}

// sharedMay reports whether the calendar lets the time-shared job of slot
// s start now: its start windows, and no reservation it may not use
// holding the whole machine at an instant of its requested time.
func (e *Engine) sharedMay(s *slot) bool {
	cs := e.cons
	if cs == nil {
		return true
	}
	if cs.startFrom(&s.job, s.limit, e.now) != e.now {
		return false
	}
	if len(cs.resv) == 0 {
		return true
	}
	end := e.now + calendarHorizon*cs.c.tick()
	if s.limit > 0 {
		end = e.now + s.limit
	}
	for u := e.now; u < end; {
		held, next := cs.withheld(&s.job, u)
		if held >= cs.procs {
			return false
		}
		if next <= u {
			break
		}
		u = next
	}
	return true
}

// sharedTake gives the time-shared job of slot id its processors on a
// pool that numbers them: the idle ones, up to its size, the rest shared.
// It returns how many it took.
func (e *Engine) sharedTake(p *poolAlloc, s *slot, id int32) int {
	got := min(s.job.Procs, max(p.m.Free()-e.sharedOver, 0))
	s.alloc = s.alloc[:0]
	if got > 0 {
		s.alloc = p.m.Alloc(got, s.alloc)
	}
	e.sharedBeyond(id, s.job.Procs-got)
	return got
}

// sharedBeyond notes that the time-shared job of slot id, starting,
// shares over processors beyond the idle ones it took. (Kept out of
// line: it is off the paths every job takes.)
//
//go:noinline
func (e *Engine) sharedBeyond(id int32, over int) {
	if over <= 0 {
		return
	}
	if e.sharedOf == nil {
		e.sharedOf = map[int32]int{}
	}
	e.sharedOf[id] = over
	e.sharedOver += over
}

// sharedEnded gives back what the job of slot id, which stopped, shared
// beyond the processors it took.
//
//go:noinline
func (e *Engine) sharedEnded(id int32) {
	if over, ok := e.sharedOf[id]; ok {
		e.sharedOver -= over
		delete(e.sharedOf, id)
	}
}

// restoreShared recounts, in an engine restored from a checkpoint (on a
// pool that numbers its processors), what its running time-shared jobs
// share beyond the processors they took.
func (e *Engine) restoreShared() {
	e.sharedOver, e.sharedOf = 0, nil
	if e.cfg.Shared == nil {
		return
	}
	for _, r := range e.running {
		if s := &e.slots[r.id]; e.isShared(s) {
			n := 0
			for _, rg := range s.alloc {
				n += rg.Len()
			}
			e.sharedBeyond(r.id, s.job.Procs-n)
		}
	}
}

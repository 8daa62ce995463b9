package sim

import (
	"errors"
	"fmt"

	"github.com/schedsim/schedsim/workload"
)

// Immediate queues (Config.Immediate). A job of such a queue ran beside the
// scheduled machine: interactive or non-dedicated work (the LANL CM-5's
// log says many of its jobs ran "in non-dedicated mode", time-shared with
// the batch jobs), or work on processors the trace's machine size leaves
// out. It starts the moment it is submitted and takes none of the
// machine's processors, so no policy, limit, reservation, filter or node
// event sees it.
//
// The engine sets such jobs aside as it reads them: they are never
// submitted, queued or started, and no instant of the run is theirs (a
// policy passes exactly when it would without them). Each one's record
// (Record.Immediate) reaches the observers in time order with the
// engine's: at the first instant at or after its end, before that
// instant's events when it ended earlier, and before the instant's
// sample and checkpoint when it ends then. Since what happens to them is
// a function of the trace alone, a checkpoint keeps nothing of them: a
// resumed run reads them again with the jobs it skips and drops those
// whose records were given before the checkpoint.

// errImmediateLoop refuses Config.Immediate with Config.ClosedLoop.
var errImmediateLoop = errors.New("sim: immediate queues (Config.Immediate) with a closed loop (Config.ClosedLoop): a closed loop submits a job after its preceding job's end, and an immediate queue's job is set aside as it is read, before the loop could delay it")

// setAside takes job j, read from the trace, when it is of an immediate
// queue: it then ran from its submission for its run time, cut at its
// requested time as any job's (killed), beside the machine. It reports
// whether it took it.
//
//go:noinline
func (e *Engine) setAside(j *workload.Job) (bool, error) {
	if !e.cfg.Immediate(j) {
		return false, nil
	}
	if j.Submit < e.asideLast {
		return false, fmt.Errorf("%w: job %d submitted at %d after a job at %d", ErrUnsorted, j.ID, j.Submit, e.asideLast)
	}
	e.asideLast = j.Submit
	e.stats.Immediate++
	e.aside.push(lateJob{at: j.Submit + j.ActualRun(), job: *j})
	return true, nil
}

// giveAside gives the observers the records of the set-aside jobs that
// ended before instant t (on the engine's clock), or at t too when
// through is set.
func (e *Engine) giveAside(t workload.Time, through bool) {
	for len(e.aside) > 0 {
		at := e.at(e.aside[0].at)
		if at > t || (at == t && !through) {
			return
		}
		e.asideNow = e.aside.pop()
		a := &e.asideNow
		st := Completed
		if a.job.Killed() {
			st = Killed
		}
		e.rec = Record{Job: &a.job, State: st, Start: a.job.Submit, End: a.at, Immediate: true}
		e.obs.record(&e.rec)
	}
}

// dropGivenAside drops, in a resumed run, the set-aside jobs read again
// whose records the saved run had given: those that ended at or before
// the checkpoint's instant now (on the engine's clock).
func (e *Engine) dropGivenAside(now workload.Time) {
	for len(e.aside) > 0 && e.at(e.aside[0].at) <= now {
		e.aside.pop()
	}
}

// giveAllAside gives the records of the set-aside jobs left when the run
// ends, in order.
func (e *Engine) giveAllAside() {
	for len(e.aside) > 0 {
		e.giveAside(e.at(e.aside[0].at), true)
	}
}

// checkImmediate returns what is wrong with outcome o of a job that ran
// beside the machine or belongs to an immediate queue (isImm, nil for
// none), or "".
func checkImmediate(o *Outcome, isImm func(*workload.Job) bool) string {
	j := &o.Job
	switch {
	case isImm == nil || !isImm(j):
		return fmt.Sprintf("ran beside the machine, but its queue %d is not an immediate queue", j.Queue)
	case !o.Immediate:
		return fmt.Sprintf("of immediate queue %d, but not run beside the machine at its submission (state %s, start %d)", j.Queue, o.State, o.Start)
	case o.State != Completed && o.State != Killed:
		return fmt.Sprintf("ran beside the machine with state %s", o.State)
	case o.Start != j.Submit:
		return fmt.Sprintf("ran beside the machine from %d, submitted at %d: an immediate queue's job starts at its submission", o.Start, j.Submit)
	case o.End != o.Start+j.ActualRun():
		return fmt.Sprintf("ends at %d, want start %d + %d = %d", o.End, o.Start, j.ActualRun(), o.Start+j.ActualRun())
	case (o.State == Killed) != j.Killed():
		return fmt.Sprintf("state %s, but run %d against limit %d", o.State, j.Run, j.Limit())
	case len(o.Alloc) > 0:
		return fmt.Sprintf("ran beside the machine, but on processors %v of it", o.Alloc)
	}
	return ""
}

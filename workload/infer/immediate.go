package infer

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// immediatePastMin is the fewest jobs of a queue that must have started
// past a waiting job of another queue for the queue to be immediate,
// however small ImmediatePastFrac makes the share.
const immediatePastMin = 20

// ImmediateQueue is a queue whose jobs started at their submission, beside
// the scheduled machine (written as immediate_queues).
type ImmediateQueue struct {
	Queue int
	// Jobs are the queue's jobs, AtOnce those that started within
	// ImmediateWaitSec of their submission, and Past those of AtOnce
	// that started while a job of another queue, submitted before them
	// and asking for no more processors and no more time, had waited
	// ImmediateWaitSec or more and still waited for processors.
	Jobs, AtOnce, Past int
	// PastWait is the median, over the Past jobs, of how long the
	// longest-waiting such job of another queue had waited at their
	// start.
	PastWait workload.Time
	// Evidence are the comment lines above the key.
	Evidence []string
	// example is the Past job at the median PastWait and other the job
	// of another queue it started past.
	example, other Job
}

// pastJob is a job of an immediate queue's candidate that started past a
// waiting job of another queue, and how long that one had waited.
type pastJob struct {
	j, other Job
	waited   workload.Time
}

// immediate finds the queues whose jobs started at their submission, beside
// the machine rather than scheduled on it: a queue of ImmediateMinJobs
// jobs or more, ImmediateShare or more of which started within
// ImmediateWaitSec of their submission, and not because the machine was
// idle: ImmediatePastFrac of those (and immediatePastMin or more) started
// while a job of another queue, submitted before them and asking for no
// more processors and no more time, had already waited ImmediateWaitSec
// or more and was still waiting for processors (the other queues'
// recorded jobs left fewer idle than it asked, so no window or hold kept
// it). Backfilling does not explain that (the waiting job fitted wherever
// the prompt one ran), nor does a priority (a queue ranked first still
// waits for processors to free up on a full machine), so the queue's jobs
// ran on processors of their own (interactive or non-dedicated jobs).
// Jobs of no known queue (-1) are not judged. jobs are sorted by
// submission.
func (r *Result) immediate(jobs []Job, opt Options) {
	if !(opt.ImmediateShare > 0) {
		return
	}
	byQueue := map[int][]Job{}
	for _, j := range jobs {
		byQueue[j.Queue] = append(byQueue[j.Queue], j)
	}
	if len(byQueue) < 2 {
		r.Notes = append(r.Notes, "immediate queues: not looked for (one queue)")
		return
	}
	var idle []string // queues prompt enough, but not past jobs waiting for processors
	for _, q := range sortedKeys(byQueue) {
		qj := byQueue[q]
		if q < 0 || len(qj) < opt.ImmediateMinJobs {
			continue
		}
		atOnce := 0
		for _, j := range qj {
			if j.Start-j.Submit <= opt.ImmediateWaitSec {
				atOnce++
			}
		}
		if float64(atOnce) < opt.ImmediateShare*float64(len(qj)) {
			continue
		}
		past := pastWaiting(jobs, q, r.Log.Procs, opt.ImmediateWaitSec)
		need := max(immediatePastMin, int(opt.ImmediatePastFrac*float64(atOnce)+0.999999))
		if len(past) < need {
			idle = append(idle, fmt.Sprintf("queue %d (%d of its %d jobs started within %s, but only %d of them while an earlier job of another queue asking no more had waited %s or more for processors, under %d)",
				q, atOnce, len(qj), durationText(opt.ImmediateWaitSec), len(past), durationText(opt.ImmediateWaitSec), need))
			continue
		}
		slices.SortFunc(past, func(a, b pastJob) int {
			if c := cmp.Compare(a.waited, b.waited); c != 0 {
				return c
			}
			return cmp.Compare(a.j.ID, b.j.ID)
		})
		mid := past[(len(past)-1)/2]
		r.Immediate = append(r.Immediate, ImmediateQueue{Queue: q, Jobs: len(qj), AtOnce: atOnce, Past: len(past), PastWait: mid.waited,
			example: mid.j, other: mid.other})
	}
	if len(r.Immediate) > 0 {
		return
	}
	note := fmt.Sprintf("immediate queues: none (no queue of %d jobs or more of which %.0f %% or more started within %s of their submission, %.0f %% of those and %d or more while an earlier job of another queue asking no more had waited %s or more for processors)",
		opt.ImmediateMinJobs, 100*opt.ImmediateShare, durationText(opt.ImmediateWaitSec), 100*opt.ImmediatePastFrac, immediatePastMin, durationText(opt.ImmediateWaitSec))
	r.Notes = append(r.Notes, note)
	if len(idle) > 0 {
		r.Notes = append(r.Notes, "  prompt, but not on a busy machine: "+strings.Join(idle, "; "))
	}
}

// pastWaiting returns the jobs of queue q that started within wait of
// their submission while a job of another queue, submitted before them and
// asking for no more processors and no more time (so backfilling does not
// explain the order), had waited wait or more at their start and started
// later, and the other queues' recorded jobs left fewer processors of the
// machine idle than it asked (it waited for processors, not for a window
// or a hold); each with the longest-waiting such job. The machine has
// procs processors, or, when 0, the most the other queues' jobs held at
// once. jobs are sorted by submission.
func pastWaiting(jobs []Job, q, procs int, wait workload.Time) []pastJob {
	var mine, others []Job
	for _, j := range jobs {
		if j.Queue == q {
			if j.Start-j.Submit <= wait {
				mine = append(mine, j)
			}
		} else {
			others = append(others, j)
		}
	}
	if len(mine) == 0 || len(others) == 0 {
		return nil
	}
	slices.SortStableFunc(mine, func(a, b Job) int { return cmp.Compare(a.Start, b.Start) })
	tl := newTimeline(others)
	if procs <= 0 {
		procs = tl.peak()
	}
	// A sweep over q's starts in time order: waiting holds the other
	// queues' jobs submitted by now and not started, in submission order
	// (a job started by now stays started for every later start).
	var out []pastJob
	var waiting []Job
	next := 0
	for _, j := range mine {
		for next < len(others) && others[next].Submit <= j.Start {
			waiting = append(waiting, others[next])
			next++
		}
		waiting = slices.DeleteFunc(waiting, func(o Job) bool { return o.Start <= j.Start })
		idle := int64(procs) - tl.busy(j.Start)
		for k := range waiting {
			o := &waiting[k]
			if o.Submit >= j.Submit || j.Start-o.Submit < wait {
				break // the later ones were submitted later still
			}
			if int64(o.Procs) > idle && asksNoMore(o, &j) {
				out = append(out, pastJob{j: j, other: *o, waited: j.Start - o.Submit})
				break
			}
		}
	}
	return out
}

// immediateEvidence writes each immediate queue's evidence, on the
// inferred clock (after drains set it).
func (r *Result) immediateEvidence(opt Options) {
	for i := range r.Immediate {
		iq := &r.Immediate[i]
		e, o := iq.example, iq.other
		at := func(t workload.Time) string { return r.wall(r.Log.Epoch, t).Format("2006-01-02 15:04:05") }
		iq.Evidence = []string{
			fmt.Sprintf("evidence: %d of the %d jobs of queue %d (%.2f %%, --immediate-share %.0f %% or more) started within %s of their submission (--immediate-wait),",
				iq.AtOnce, iq.Jobs, iq.Queue, 100*float64(iq.AtOnce)/float64(iq.Jobs), 100*opt.ImmediateShare, durationText(opt.ImmediateWaitSec)),
			fmt.Sprintf("and %d of those (%.1f %%, --immediate-past %.0f %% and %d or more) while a job of another queue, submitted before them and asking for no more processors and no more time,",
				iq.Past, 100*float64(iq.Past)/float64(iq.AtOnce), 100*opt.ImmediatePastFrac, immediatePastMin),
			fmt.Sprintf("had waited %s or more and still waited for processors (the other queues' jobs left fewer idle than it asked; the longest-waiting such job had waited %.1f hours, the median over those starts):",
				durationText(opt.ImmediateWaitSec), float64(iq.PastWait)/3600),
			fmt.Sprintf("e.g. job %d, submitted %s, started after %d s, while job %d of queue %d, submitted %s, asking %d processors, waited until %s (%s; job %d asked %d).",
				e.ID, at(e.Submit), e.Start-e.Submit, o.ID, o.Queue, at(o.Submit), o.Procs, at(o.Start), r.Zone, e.ID, e.Procs),
			"The machine was not idle, yet these jobs never waited: they ran beside it, on processors of their own (interactive or non-dedicated jobs).",
		}
	}
}

// immediateSet reports which queues are immediate.
func (r *Result) immediateSet() map[int]bool {
	set := map[int]bool{}
	for _, iq := range r.Immediate {
		set[iq.Queue] = true
	}
	return set
}

// immediateList writes the immediate queues as the scenario key takes
// them: a TOML string of comma-separated queue numbers ("1,6").
func (r *Result) immediateList() string {
	qs := make([]string, len(r.Immediate))
	for i, iq := range r.Immediate {
		qs[i] = strconv.Itoa(iq.Queue)
	}
	return strconv.Quote(strings.Join(qs, ","))
}

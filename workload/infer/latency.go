package infer

import (
	"fmt"
	"slices"

	"github.com/schedsim/schedsim/workload"
)

// latencyMinJobs is the fewest prompt jobs (of the log, or of a queue) whose
// median wait makes a latency.
const latencyMinJobs = 100

// Latency is the inferred submission latency: how long after its
// submission a job reached the scheduler (written as submit_latency, in
// workload.Latency's form): Default for every job, and Queues for the
// queues whose prompt jobs' median differs from it.
type Latency struct {
	workload.Latency
	Evidence []string
}

// latency finds the submission latency: the median recorded wait of the
// prompt jobs — those that found at least their processors idle at their
// submission (by the recorded jobs) and started within LatencyWaitSec of
// it: a scheduler that starts what fits started them as soon as it saw
// them, so their waits are what it took to see them — over all jobs and
// per queue, latencyMinJobs of them or more. A queue's own is written
// where it differs from the one of all jobs. The immediate queues' jobs
// are left out (sched): they reached no scheduler. A scheduler that ran
// on a cycle instead starts the jobs at its passes: when more than half of
// the prompt jobs started on one second of the minute, the prompt waits
// are the time to the next pass, no latency, and none is written.
func (r *Result) latency(sched []Job, tl *timeline, opt Options) {
	if opt.LatencyWaitSec <= 0 {
		return
	}
	var all []workload.Time
	byQueue := map[int][]workload.Time{}
	var second [60]int
	for _, j := range sched {
		w := j.Start - j.Submit
		if w > opt.LatencyWaitSec {
			continue
		}
		busy := tl.busy(j.Submit)
		if j.Start <= j.Submit {
			busy -= int64(j.Procs) // itself
		}
		if int64(r.Procs)-busy < int64(j.Procs) {
			continue
		}
		all = append(all, w)
		byQueue[j.Queue] = append(byQueue[j.Queue], w)
		second[(j.Start%60+60)%60]++
	}
	within := durationText(opt.LatencyWaitSec)
	if len(all) < latencyMinJobs {
		r.Notes = append(r.Notes, fmt.Sprintf("submission latency: %d jobs found their processors idle at their submission and started within %s, fewer than %d", len(all), within, latencyMinJobs))
		return
	}
	if top := slices.Max(second[:]); 2*top > len(all) {
		r.Notes = append(r.Notes, fmt.Sprintf("submission latency: none; of the %d jobs that found their processors idle at their submission and started within %s, %d started on second %d of the minute: the scheduler ran on a cycle, and their waits are the time to its next pass",
			len(all), within, top, slices.Index(second[:], top)))
		return
	}
	slices.Sort(all)
	l := &r.Latency
	l.Default = median(all)
	l.Evidence = append(l.Evidence, fmt.Sprintf("Submission latency: %d of the %d jobs the scheduler ran found their processors idle at their submission (by the recorded jobs)", len(all), len(sched)),
		fmt.Sprintf("  and started within %s; their median wait, %d s, is how long a job took to reach the scheduler (%s),", within, l.Default, waitSpread(all)),
		"  their starts spread over the seconds of the minute (no cycle): each job joins the queue that long after its submission.")
	for _, q := range sortedKeys(byQueue) {
		ws := byQueue[q]
		if len(ws) < latencyMinJobs {
			continue
		}
		slices.Sort(ws)
		if m := median(ws); m != l.Default {
			l.Queues = append(l.Queues, workload.QueueLatency{Queue: int64(q), Delay: m})
			l.Evidence = append(l.Evidence, fmt.Sprintf("  queue %d: %d s, the median of its %d such jobs (%s)", q, m, len(ws), waitSpread(ws)))
		}
	}
	if l.Default == 0 && len(l.Queues) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("submission latency: 0 s, the median wait of the %d jobs that found their processors idle at their submission and started within %s", len(all), within))
		*l = Latency{}
	}
}

// waitSpread describes sorted waits by their quartiles.
func waitSpread(ws []workload.Time) string {
	return fmt.Sprintf("quartiles %d s and %d s", ws[(len(ws)-1)/4], ws[(3*(len(ws)-1))/4])
}

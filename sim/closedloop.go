package sim

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/schedsim/schedsim/workload"
)

// closedLoop replays SWF's feedback fields (Config.ClosedLoop): a job that
// names a preceding job (field 17) is submitted no earlier than the
// preceding job's end plus the think time (field 18), nor earlier than
// its recorded submit time.
//
// The preceding job is found by number among the jobs read from the trace
// before (the latest one with that number). When it has ended, the job is
// submitted at max(recorded submit, end + think); when it waits for its own
// preceding job, is queued or is running, the job waits for its end; a
// preceding job rejected at submission or failed by a filter ends, for
// this purpose, at that instant. A job whose preceding job was never read
// — the number is not in the trace, comes later in it, is the job's own,
// or was dropped by a cleaning rule — is submitted at its recorded time,
// and counted (Stats.LoopUnknown). A think time of -1 (unknown) counts as
// 0; a field 17 of -1 or 0 means no preceding job.
//
// Jobs delayed to an instant are submitted with the trace's jobs of that
// instant, in trace order. A job whose preceding job ends at that very
// instant with a think time of 0 cannot be submitted before that end: it
// joins the queue after the ends of the instant, before its one
// scheduling pass.
type closedLoop struct {
	// endAt holds the end of every job that has ended, by number.
	endAt map[int64]workload.Time
	// live holds the numbers of the jobs read from the trace that have
	// not ended: waiting to be submitted, queued or running.
	live map[int64]bool
	// waiting holds, by the number of their preceding job, the jobs
	// waiting for it to end, in submission order.
	waiting map[int64][]workload.Job
	// late holds the jobs to submit at a later instant than their
	// recorded one, by (instant, Seq).
	late lateHeap
	// cur is the job being submitted from late, copied out of the heap.
	cur workload.Job
}

func newClosedLoop() *closedLoop {
	return &closedLoop{endAt: map[int64]workload.Time{}, live: map[int64]bool{}, waiting: map[int64][]workload.Job{}}
}

// thinkOf returns j's think time in whole seconds (0 when unknown).
func thinkOf(j *workload.Job) workload.Time {
	if !(j.ThinkTime > 0) {
		return 0
	}
	return workload.Time(math.Round(min(j.ThinkTime, float64(workload.MaxTime))))
}

// arrive decides what becomes of j, read from the trace at its recorded
// submit time now: it returns true when j is to be submitted now, and
// false when it was kept (copied) for later.
func (c *closedLoop) arrive(j *workload.Job, now workload.Time, st *Stats) bool {
	p := j.PrecedingJob
	defer func() { c.live[j.ID] = true }()
	if p <= 0 {
		return true
	}
	st.LoopFollowing++
	if c.live[p] && p != j.ID {
		st.LoopDelayed++
		c.waiting[p] = append(c.waiting[p], *j)
		return false
	}
	end, ok := c.endAt[p]
	if !ok || p == j.ID {
		st.LoopUnknown++
		return true
	}
	at := end + thinkOf(j)
	if at <= now {
		return true
	}
	st.LoopDelayed++
	c.late.push(lateJob{at: at, job: *j})
	return false
}

// ended notes that job id ended (ran, was rejected or failed) at end, and
// schedules the jobs waiting for it.
func (c *closedLoop) ended(id int64, end workload.Time) {
	delete(c.live, id)
	c.endAt[id] = end
	ws := c.waiting[id]
	if len(ws) == 0 {
		return
	}
	delete(c.waiting, id)
	for i := range ws {
		w := &ws[i]
		c.late.push(lateJob{at: max(end+thinkOf(w), w.Submit), job: *w})
	}
}

// next returns the instant of the next late submission, or Forever.
func (c *closedLoop) next() workload.Time {
	if len(c.late) == 0 {
		return workload.Forever
	}
	return c.late[0].at
}

// pop returns the next late job, its Submit set to its instant; the job is
// valid until the next pop.
func (c *closedLoop) pop() *workload.Job {
	l := c.late.pop()
	c.cur = l.job
	c.cur.Submit = l.at
	return &c.cur
}

// left says whether jobs still wait: for a preceding job that never ended,
// or for their instant.
func (c *closedLoop) left() int {
	n := len(c.late)
	for _, ws := range c.waiting {
		n += len(ws)
	}
	return n
}

// drain removes and returns every job the loop still holds (delayed to a
// later instant, or waiting for a preceding job that has not ended), in
// trace order.
func (c *closedLoop) drain() []workload.Job {
	var js []workload.Job
	for _, l := range c.late {
		js = append(js, l.job)
	}
	c.late = c.late[:0]
	for p, ws := range c.waiting {
		js = append(js, ws...)
		delete(c.waiting, p)
	}
	slices.SortFunc(js, func(a, b workload.Job) int { return cmp.Compare(a.Seq, b.Seq) })
	return js
}

// neverSubmitted ends, once the run is over, the jobs a closed loop still
// holds. It runs after strand: each of them follows (SWF field 17) a job
// that nodes out of service to the end of the run kept from ever starting,
// or a job that was itself never submitted. In the system the trace came
// from, such a job's user would still be waiting for the preceding job to
// end, so the job never enters the queue; schedsim records it as rejected
// at its recorded submit time, with the reason, so that no job of the
// trace is lost. Their successors follow them in turn.
func (e *Engine) neverSubmitted(loop *closedLoop, obs *sink) {
	for js := loop.drain(); len(js) > 0; js = loop.drain() {
		for i := range js {
			j := &js[i]
			e.stats.Jobs++
			e.stats.Rejected++
			e.stats.LoopNeverSubmitted++
			e.rec = Record{Job: j, State: Rejected, Start: j.Submit, End: j.Submit,
				Reason: fmt.Sprintf("never submitted: it follows job %d (SWF field 17), which never ran", j.PrecedingJob)}
			obs.record(&e.rec)
		}
	}
}

// lateJob is a job to submit at a later instant than its recorded one.
type lateJob struct {
	at  workload.Time
	job workload.Job
}

// lateHeap is a binary min-heap of lateJobs by (at, job.Seq): at one
// instant, trace order. The engine keeps the jobs of immediate queues in
// one too, by their ends (see immediate.go).
type lateHeap []lateJob

func (h lateHeap) less(a, b int) bool {
	return h[a].at < h[b].at || (h[a].at == h[b].at && h[a].job.Seq < h[b].job.Seq)
}

func (h *lateHeap) push(l lateJob) {
	*h = append(*h, l)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *lateHeap) pop() lateJob {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s.less(l, m) {
			m = l
		}
		if r < n && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// closedLoopState is a closedLoop's state for a checkpoint, its maps as
// slices sorted by job number.
type closedLoopState struct {
	EndID   []int64
	EndAt   []workload.Time
	Live    []int64
	WaitFor []int64          // preceding job numbers …
	Waiting [][]workload.Job // … and the jobs waiting for each, in order
	LateAt  []workload.Time  // the late heap, in its array order
	Late    []workload.Job
}

// state copies c's state out.
func (c *closedLoop) state() *closedLoopState {
	s := &closedLoopState{}
	for _, id := range slices.Sorted(maps.Keys(c.endAt)) {
		s.EndID = append(s.EndID, id)
		s.EndAt = append(s.EndAt, c.endAt[id])
	}
	s.Live = slices.Sorted(maps.Keys(c.live))
	for _, id := range slices.Sorted(maps.Keys(c.waiting)) {
		s.WaitFor = append(s.WaitFor, id)
		s.Waiting = append(s.Waiting, slices.Clone(c.waiting[id]))
	}
	for _, l := range c.late {
		s.LateAt = append(s.LateAt, l.at)
		s.Late = append(s.Late, l.job)
	}
	return s
}

// restoreClosedLoop returns the closed loop of state s.
func restoreClosedLoop(s *closedLoopState) (*closedLoop, error) {
	if len(s.EndAt) != len(s.EndID) || len(s.Waiting) != len(s.WaitFor) || len(s.Late) != len(s.LateAt) {
		return nil, errors.New("closed loop state: columns of different lengths")
	}
	c := newClosedLoop()
	for i, id := range s.EndID {
		c.endAt[id] = s.EndAt[i]
	}
	for _, id := range s.Live {
		c.live[id] = true
	}
	for i, id := range s.WaitFor {
		if len(s.Waiting[i]) == 0 {
			return nil, fmt.Errorf("closed loop state: no job waits for job %d", id)
		}
		c.waiting[id] = s.Waiting[i]
	}
	for i, at := range s.LateAt {
		c.late = append(c.late, lateJob{at: at, job: s.Late[i]})
	}
	for i := 1; i < len(c.late); i++ {
		if c.late.less(i, (i-1)/2) {
			return nil, errors.New("closed loop state: the late jobs are not a heap")
		}
	}
	return c, nil
}

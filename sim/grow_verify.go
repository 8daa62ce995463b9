package sim

import (
	"fmt"
	"sort"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// copyGrows returns a deep copy of steps (nil for none).
func copyGrows(steps []GrowStep) []GrowStep {
	if len(steps) == 0 {
		return nil
	}
	out := make([]GrowStep, len(steps))
	for k, g := range steps {
		g.Alloc = append([]cluster.Range(nil), g.Alloc...)
		out[k] = g
	}
	return out
}

// rangesLen returns the processors in rs.
func rangesLen(rs []cluster.Range) int {
	n := 0
	for _, r := range rs {
		n += r.Len()
	}
	return n
}

// startAlloc returns the ranges o started on: Alloc without those of its
// growths, which come last; ok is false when the growths claim more ranges
// than Alloc has.
func startAlloc(o *Outcome) (rs []cluster.Range, ok bool) {
	n := len(o.Alloc)
	for _, g := range o.Grows {
		n -= len(g.Alloc)
	}
	if n < 0 {
		return nil, false
	}
	return o.Alloc[:n], true
}

// verifyGrown checks a job of a run with Grow (see Grow): it started on its
// minimum, every growth added processors within its maximum while it ran,
// and its end is the one its growths give under m: the work of its run time
// (cut at its requested time) on its trace processors, less the work done
// at each processor count held, the rest at the last count, rounded up.
// It returns the processor-seconds the job held and the violations.
func verifyGrown(procs int, o *Outcome, m policy.Speedup) (float64, []Violation) {
	j := &o.Job
	var vs []Violation
	add := func(rule, format string, a ...any) {
		vs = append(vs, Violation{JobID: j.ID, Rule: rule, Msg: fmt.Sprintf(format, a...)})
	}
	lo, hi := j.Procs, j.Procs
	if j.MinProcs > 0 {
		lo = int(j.MinProcs)
	}
	if j.MaxProcs > 0 {
		hi = int(min(j.MaxProcs, int64(procs)))
	}
	hi = max(hi, lo)
	rs, ok := startAlloc(o)
	if !ok {
		add("alloc-size", "%d growths name more ranges than the %d allocated", len(o.Grows), len(o.Alloc))
		return 0, vs
	}
	for _, r := range o.Alloc {
		if r.Lo < 0 || r.Hi > procs || r.Lo >= r.Hi {
			add("alloc-range", "allocated %d-%d outside the machine of %d", r.Lo, r.Hi-1, procs)
		}
	}
	cur := rangesLen(rs)
	if cur != lo {
		add("alloc-size", "started on %d processors, its minimum is %d", cur, lo)
	}
	if (o.State == Killed) != j.Killed() {
		add("state", "state %s, but run %d against limit %d", o.State, j.Run, j.Limit())
	}
	work := policy.Work(m, j.ActualRun(), j.Procs)
	t, end := o.Start, o.Start+policy.Span(m, work, cur)
	area := 0.0
	for k, g := range o.Grows {
		switch {
		case g.At < t || g.At >= end:
			add("grow-time", "growth %d at %d outside its run %d–%d", k+1, g.At, t, end)
		case g.Procs != cur+rangesLen(g.Alloc) || g.Procs > hi:
			add("grow-size", "growth %d at %d to %d processors from %d with %d more, maximum %d", k+1, g.At, g.Procs, cur, rangesLen(g.Alloc), hi)
		}
		work -= policy.Work(m, g.At-t, cur)
		area += float64(cur) * float64(g.At-t)
		t, cur = g.At, g.Procs
		end = min(t+max(policy.Span(m, work, cur), 1), end)
	}
	if o.End != end {
		add("end", "ends at %d, its growths under %s give %d", o.End, m.Name(), end)
	}
	area += float64(cur) * float64(o.End-t)
	return area, vs
}

// checkOverlapGrown is checkOverlap for a run with Grow: each job holds the
// processors it started on from its start, and those of each growth from
// the growth, until its end.
func checkOverlapGrown(procs int, outs []Outcome, byStart []int) []Violation {
	type piece struct {
		at, end workload.Time
		alloc   []cluster.Range
		job     int64
	}
	var ps []piece
	for _, i := range byStart {
		o := &outs[i]
		rs, ok := startAlloc(o)
		if !ok {
			continue // reported by verifyGrown
		}
		ps = append(ps, piece{o.Start, o.End, rs, o.Job.ID})
		for _, g := range o.Grows {
			ps = append(ps, piece{g.At, o.End, g.Alloc, o.Job.ID})
		}
	}
	sort.SliceStable(ps, func(a, b int) bool { return ps[a].at < ps[b].at })
	busyUntil := make([]workload.Time, procs)
	owner := make([]int64, procs)
	var vs []Violation
	for _, p := range ps {
		for _, r := range p.alloc {
			lo, hi := max(r.Lo, 0), min(r.Hi, procs)
			for x := lo; x < hi; x++ {
				if busyUntil[x] > p.at {
					vs = append(vs, Violation{JobID: p.job, Rule: "overlap",
						Msg: fmt.Sprintf("processor %d taken at %d while job %d holds it until %d", x, p.at, owner[x], busyUntil[x])})
					break
				}
				busyUntil[x], owner[x] = p.end, p.job
			}
		}
	}
	return vs
}

package sim

import (
	"fmt"
	"sort"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// copySteps returns a deep copy of steps (nil for none).
func copySteps(steps []GrowStep) []GrowStep {
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

// verifyGrown checks a job of a run with Grow (see Grow): it started on its
// minimum, every growth added processors within its maximum while it ran,
// and its end is the one its growths give under m: the work of its run time
// (cut at its requested time) on its trace processors, less the work done
// at each processor count held, the rest at the last count, rounded up.
// Allocations are units out of units: processors on the pool (each step
// adds exactly its processors); on a cluster of nodes, nodes (linear:
// nodeSum[i] the cores of nodes 0..i-1) or cores, and each step's
// processors must lie within the cores held so far (a job of whole nodes
// holds more, and may grow onto them without taking any); exact says a
// job holds exactly its processors (the pool, cons_res without whole-node
// partitions). It returns the
// processor-seconds the job held (on nodes, the cores held) and the
// violations.
func verifyGrown(procs, units int, nodeSum []int, exact bool, o *Outcome, m policy.Speedup) (float64, []Violation) {
	j := &o.Job
	var vs []Violation
	add := func(rule, format string, a ...any) {
		vs = append(vs, Violation{JobID: j.ID, Rule: rule, Msg: fmt.Sprintf(format, a...)})
	}
	cores := func(rs []cluster.Range) int {
		if nodeSum == nil {
			return rangesLen(rs)
		}
		n := 0
		for _, r := range rs {
			if r.Lo >= 0 && r.Lo < r.Hi && r.Hi < len(nodeSum) {
				n += nodeSum[r.Hi] - nodeSum[r.Lo]
			}
		}
		return n
	}
	lo, hi := procRange(j, procs)
	if len(o.Steps) == 0 {
		add("grow-steps", "a job with the processor range [%d, %d] ran without steps", lo, hi)
		return 0, vs
	}
	n := 0
	for _, g := range o.Steps {
		n += cores(g.Alloc)
	}
	last := o.Steps[len(o.Steps)-1].Procs
	if held := cores(o.Alloc); held != n || held < last || (exact && held != last) {
		add("alloc-size", "allocated %d processors, its steps add up to %d and end on %d", held, n, last)
	}
	for _, r := range o.Alloc {
		if r.Lo < 0 || r.Hi > units || r.Lo >= r.Hi {
			add("alloc-range", "allocated %d-%d outside the machine of %d", r.Lo, r.Hi-1, units)
		}
	}
	first := o.Steps[0]
	held := cores(first.Alloc)
	cur := first.Procs
	if first.At != o.Start || held < cur || (exact && held != cur) {
		add("grow-steps", "first step %d processors at %d (%d allocated), start at %d", first.Procs, first.At, held, o.Start)
	}
	if cur != lo {
		add("alloc-size", "started on %d processors, its minimum is %d", cur, lo)
	}
	if o.State != NodeFail && (o.State == Killed) != j.Killed() {
		add("state", "state %s, but run %d against limit %d", o.State, j.Run, j.Limit())
	}
	work := policy.Work(m, j.ActualRun(), j.Procs)
	t, end := o.Start, o.Start+policy.Span(m, work, cur)
	area := 0.0
	for k, g := range o.Steps[1:] {
		more := cores(g.Alloc)
		switch {
		case g.At < t || g.At >= end:
			add("grow-time", "growth %d at %d outside its run %d–%d", k+1, g.At, t, end)
		case g.Procs > hi || g.Procs <= cur || g.Procs > held+more || (exact && g.Procs != cur+more):
			add("grow-size", "growth %d at %d to %d processors from %d with %d more (%d held), maximum %d", k+1, g.At, g.Procs, cur, more, held, hi)
		}
		work -= policy.Work(m, g.At-t, cur)
		area += float64(held) * float64(g.At-t)
		t, cur, held = g.At, g.Procs, held+more
		end = min(t+max(policy.Span(m, work, cur), 1), end)
	}
	switch {
	case o.State == NodeFail:
		// Killed by a node failure (Config.NodeEvents), before its end.
		if o.End >= end || o.End < t {
			add("end", "killed by a node failure at %d, outside its run %d–%d", o.End, t, end)
		}
	case o.End != end:
		add("end", "ends at %d, its growths under %s give %d", o.End, m.Name(), end)
	}
	area += float64(held) * float64(o.End-t)
	return area, vs
}

// checkOverlapGrown is checkOverlap for a run with Grow: a job with Steps
// holds the processors of each step from the step's time until its end.
func checkOverlapGrown(procs int, outs []Outcome, byStart []int) []Violation {
	type piece struct {
		at, end workload.Time
		alloc   []cluster.Range
		job     int64
	}
	var ps []piece
	for _, i := range byStart {
		o := &outs[i]
		if len(o.Steps) == 0 {
			ps = append(ps, piece{o.Start, o.End, o.Alloc, o.Job.ID})
			continue
		}
		for _, g := range o.Steps {
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

package infer

import (
	"fmt"
	"slices"
)

// sizeWindows finds start hours at which a queue's large jobs, or its
// small ones, did not start: per queue (and for all jobs), day type and local start hour, the
// smallest processor count B such that the queue's jobs asking more than
// B were expected there (from the queue's own starts in that hour and the
// share of its jobs asking more than B) at least SizeWindowMinExpected
// times, and WindowLeakFrac or less of that expectation started there.
// Neighbouring hours with the same bound make one window, written as a
// start window with max_procs: a machine that kept a queue's large jobs
// out of some hours (its partitions laid out otherwise at night, or the
// large jobs held for a dedicated time). The same with the jobs asking
// fewer than B (the largest such B) gives a window with min_procs: a
// machine whose daytime partitions were kept for a queue's large jobs. The expectation comes from the
// queue's own starts, not from all jobs', so a queue closed at some hours
// (the requested-time windows' concern) shows no size window there. A
// queue's window is kept only where it is stricter than one for all jobs.
//
// Only a time-shared machine is searched. On a space-shared one a job's
// size decides when it fits: large jobs start where the load lets them
// (after a drain for them, rarely at the busiest hours), so hours without
// large starts are what a full machine does and tell nothing of a rule.
// A time-shared machine started its jobs beside a full one, so an hour
// that none of a queue's large (or small) jobs started in was kept from
// them.
func (r *Result) sizeWindows(jobs []Job, opt Options) {
	if opt.SizeWindowMinExpected <= 0 {
		return
	}
	if !r.TimeShared {
		r.Notes = append(r.Notes, "size windows: not looked for (a space-shared machine: a job's size decides when it fits)")
		return
	}
	byQueue := map[int][]Job{}
	for _, j := range jobs {
		if j.Queue >= 0 {
			byQueue[j.Queue] = append(byQueue[j.Queue], j)
		}
	}
	var found []StartWindow
	for _, small := range []bool{false, true} {
		global := r.sizeWindowsOf(jobs, -1, small, nil, opt)
		found = append(found, global...)
		if len(byQueue) > 1 {
			for _, q := range sortedKeys(byQueue) {
				found = append(found, r.sizeWindowsOf(byQueue[q], q, small, global, opt)...)
			}
		}
	}
	if len(found) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("size windows: none (no start hour where the jobs asking more, or fewer, than a processor count, of all queues or of one, were %.0f %% or less of those expected, %.0f or more)",
			100*opt.WindowLeakFrac, opt.SizeWindowMinExpected))
	}
	r.Windows = append(r.Windows, found...)
}

// sizeWindowsOf finds the size windows of the jobs given (those of queue
// q, or all with q = -1): with small, the windows that keep the jobs
// asking fewer than a count out (min_procs), else those asking more
// (max_procs). Those of a queue are kept where stricter than every window
// of global.
func (r *Result) sizeWindowsOf(jobs []Job, q int, small bool, global []StartWindow, opt Options) []StartWindow {
	var sizes []int
	for _, j := range jobs {
		sizes = append(sizes, j.Procs)
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	if len(sizes) < 2 {
		return nil
	}
	bounds := sizes[:len(sizes)-1] // a bound under the largest size: more than it
	if small {
		// fewer than it: a bound over the smallest size, the largest
		// (strictest) first
		bounds = slices.Clone(sizes[1:])
		slices.Reverse(bounds)
	}
	nb := len(bounds)
	beyond := func(p, b int) bool { return p > b }
	if small {
		beyond = func(p, b int) bool { return p < b }
	}
	var cell [2][24]int        // the jobs started in the cell
	var over [2][24][]int      // ... those asking more than each bound
	overAll := make([]int, nb) // all jobs asking more than each bound
	for d := range over {
		for h := range over[d] {
			over[d][h] = make([]int, nb)
		}
	}
	for _, j := range jobs {
		d, h := r.startCell(j)
		cell[d][h]++
		for k, b := range bounds {
			if beyond(j.Procs, b) {
				over[d][h][k]++
				overAll[k]++
			}
		}
	}
	total := len(jobs)
	limit, expect := cellBounds(&cell, total, &over, overAll, opt.SizeWindowMinExpected, opt.WindowLeakFrac, func(d, h, k int) bool {
		return q < 0 || stricterSize(global, d, h, bounds[k], small)
	})
	var out []StartWindow
	for d := range limit {
		hourRuns(&limit[d], func(h, n, k int) {
			in, leak, exp := runTotals(&cell[d], &over[d], &expect[d], h, n, k)
			who := "jobs"
			if q >= 0 {
				who = fmt.Sprintf("jobs of queue %d", q)
			}
			w := StartWindow{Queue: q, Days: dayTypes[d], FromHour: h, ToHour: (h + n) % 24}
			than, kept := "more", "larger"
			if small {
				w.MinProcs, than, kept = bounds[k], "fewer", "smaller"
			} else {
				w.MaxProcs = bounds[k]
			}
			w.Evidence = []string{fmt.Sprintf("evidence: %d %s started on %s %02d:00-%02d:00 (%s); %d of them asked %s than %d processors, where %.0f would be expected",
				in, who, dayTypes[d], h, (h+n)%24, r.Zone, leak, than, bounds[k], exp),
				fmt.Sprintf("from those jobs' share of the %d %s (they ask %d to %d processors): the %s ones were kept out of these hours.", total, who, sizes[0], sizes[len(sizes)-1], kept)}
			out = append(out, w)
		})
	}
	return out
}

// stricterSize reports whether bound b (a minimum with small, else a
// maximum) at day type d and hour h is stricter than every size window of
// ws there.
func stricterSize(ws []StartWindow, d, h int, b int, small bool) bool {
	for _, w := range ws {
		in := h >= w.FromHour && h < w.ToHour
		if w.ToHour <= w.FromHour {
			in = h >= w.FromHour || h < w.ToHour
		}
		if w.Days != dayTypes[d] || !in {
			continue
		}
		if (!small && w.MaxProcs > 0 && w.MaxProcs <= b) || (small && w.MinProcs >= b) {
			return false
		}
	}
	return true
}

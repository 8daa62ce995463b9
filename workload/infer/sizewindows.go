package infer

import (
	"fmt"
	"slices"
)

// sizeWindows finds start hours at which a queue's large jobs did not
// start: per queue (and for all jobs), day type and local start hour, the
// smallest processor count B such that the queue's jobs asking more than
// B were expected there (from the queue's own starts in that hour and the
// share of its jobs asking more than B) at least SizeWindowMinExpected
// times, and WindowLeakFrac or less of that expectation started there.
// Neighbouring hours with the same bound make one window, written as a
// start window with max_procs: a machine that kept a queue's large jobs
// out of some hours (its partitions laid out otherwise at night, or the
// large jobs held for a dedicated time). The expectation comes from the
// queue's own starts, not from all jobs', so a queue closed at some hours
// (the requested-time windows' concern) shows no size window there. A
// queue's window is kept only where it is stricter than one for all jobs.
func (r *Result) sizeWindows(jobs []Job, opt Options) {
	if opt.SizeWindowMinExpected <= 0 {
		return
	}
	byQueue := map[int][]Job{}
	for _, j := range jobs {
		if j.Queue >= 0 {
			byQueue[j.Queue] = append(byQueue[j.Queue], j)
		}
	}
	global := r.sizeWindowsOf(jobs, -1, nil, opt)
	found := global
	if len(byQueue) > 1 {
		for _, q := range sortedKeys(byQueue) {
			found = append(found, r.sizeWindowsOf(byQueue[q], q, global, opt)...)
		}
	}
	if len(found) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("size windows: none (no start hour where the jobs asking more than a processor count, of all queues or of one, were %.0f %% or less of those expected, %.0f or more)",
			100*opt.WindowLeakFrac, opt.SizeWindowMinExpected))
	}
	r.Windows = append(r.Windows, found...)
}

// sizeWindowsOf finds the size windows of the jobs given (those of queue
// q, or all with q = -1); those of a queue are kept where stricter than
// every window of global.
func (r *Result) sizeWindowsOf(jobs []Job, q int, global []StartWindow, opt Options) []StartWindow {
	var sizes []int
	for _, j := range jobs {
		sizes = append(sizes, j.Procs)
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	if len(sizes) < 2 {
		return nil
	}
	bounds := sizes[:len(sizes)-1] // a bound under the largest size
	nb := len(bounds)
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
			if j.Procs > b {
				over[d][h][k]++
				overAll[k]++
			}
		}
	}
	total := len(jobs)
	var limit [2][24]int
	var expect [2][24]float64
	for d := range limit {
		for h := range limit[d] {
			limit[d][h] = -1
			share := float64(cell[d][h]) / float64(total)
			for k, b := range bounds {
				e := float64(overAll[k]) * share
				if e >= opt.SizeWindowMinExpected && float64(over[d][h][k]) <= opt.WindowLeakFrac*e && (q < 0 || stricterSize(global, d, h, b)) {
					limit[d][h], expect[d][h] = k, e
					break
				}
			}
		}
	}
	var out []StartWindow
	for d := range limit {
		// Runs of equal bounds; a run may wrap midnight.
		h0 := 0
		if limit[d][0] >= 0 && limit[d][23] == limit[d][0] {
			for h0 < 24 && limit[d][h0] == limit[d][0] {
				h0++
			}
			if h0 == 24 {
				h0 = 0
			}
		}
		for i := 0; i < 24; {
			h := (h0 + i) % 24
			k := limit[d][h]
			n := 1
			for n < 24-i && limit[d][(h+n)%24] == k {
				n++
			}
			if k >= 0 {
				var in, leak int
				var exp float64
				for m := 0; m < n; m++ {
					c := (h + m) % 24
					in += cell[d][c]
					leak += over[d][c][k]
					exp += expect[d][c]
				}
				who := "jobs"
				if q >= 0 {
					who = fmt.Sprintf("jobs of queue %d", q)
				}
				out = append(out, StartWindow{Queue: q, Days: dayTypes[d], FromHour: h, ToHour: (h + n) % 24, MaxProcs: bounds[k],
					Evidence: []string{fmt.Sprintf("evidence: %d %s started on %s %02d:00-%02d:00 (%s); %d of them asked more than %d processors, where %.0f would be expected",
						in, who, dayTypes[d], h, (h+n)%24, r.Zone, leak, bounds[k], exp),
						fmt.Sprintf("from those jobs' share of the %d %s (they ask up to %d processors): the larger ones were kept out of these hours.", total, who, sizes[len(sizes)-1])}})
			}
			i += n
		}
	}
	return out
}

// stricterSize reports whether bound b at day type d and hour h is
// stricter than every size window of ws there.
func stricterSize(ws []StartWindow, d, h int, b int) bool {
	for _, w := range ws {
		in := h >= w.FromHour && h < w.ToHour
		if w.ToHour <= w.FromHour {
			in = h >= w.FromHour || h < w.ToHour
		}
		if w.MaxProcs > 0 && w.Days == dayTypes[d] && in && w.MaxProcs <= b {
			return false
		}
	}
	return true
}

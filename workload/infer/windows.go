package infer

import (
	"fmt"
	"slices"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// dayTypes are the rows of the start-window table.
var dayTypes = [2]string{"Mon-Fri", "Sat,Sun"}

// windows finds, per day type and local start hour, the largest requested
// time that jobs may start with: a cell where the jobs asking more than a
// bound B are expected (from their share of all starts) but nearly absent
// is restricted to B. Neighbouring hours with the same bound make one
// window. It then does the same for each queue's jobs alone (their
// expectation still from the share of all starts in the cell), for queues
// a machine opened only at some hours (a production queue that starts at
// night): a queue's window is kept where it is stricter than the windows
// for all jobs.
func (r *Result) windows(jobs []Job, opt Options) {
	var cell [2][24]int // jobs with a requested time started in the cell
	total := 0
	byQueue := map[int][]Job{}
	for _, j := range jobs {
		if j.ReqTime <= 0 {
			continue
		}
		d, h := r.startCell(j)
		cell[d][h]++
		total++
		if j.Queue >= 0 {
			byQueue[j.Queue] = append(byQueue[j.Queue], j)
		}
	}
	if total == 0 {
		r.Notes = append(r.Notes, "start windows: not looked for (no job gives a requested time)")
		return
	}
	global := r.windowsOf(jobs, -1, cell, total, nil, opt)
	r.Windows = append(r.Windows, global...)
	queues := make([]int, 0, len(byQueue))
	for q := range byQueue {
		queues = append(queues, q)
	}
	slices.Sort(queues)
	if len(queues) > 1 {
		for _, q := range queues {
			r.Windows = append(r.Windows, r.windowsOf(byQueue[q], q, cell, total, global, opt)...)
		}
	}
	if len(r.Windows) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("start windows: none (no start hour where the jobs asking more than a bound, of all queues or of one, were %.0f %% or less of those expected)", 100*opt.WindowLeakFrac))
	}
}

// startCell returns the day type (0 weekday, 1 weekend) and local hour of
// the job's recorded start.
func (r *Result) startCell(j Job) (int, int) {
	w := r.wall(r.Log.Epoch, j.Start)
	d := 0
	if wd := w.Weekday(); wd == time.Saturday || wd == time.Sunday {
		d = 1
	}
	return d, w.Hour()
}

// stricter reports whether bound b at day type d and hour h is stricter
// than every window of ws there.
func stricter(ws []StartWindow, d, h int, b workload.Time) bool {
	for _, w := range ws {
		in := h >= w.FromHour && h < w.ToHour
		if w.ToHour <= w.FromHour {
			in = h >= w.FromHour || h < w.ToHour
		}
		if w.Days == dayTypes[d] && in && w.MaxWallSec <= b {
			return false
		}
	}
	return true
}

// windowsOf finds the windows of the jobs given (those of queue q, or all
// with q = -1): cell and total count all the starts with a requested
// time, which give each cell its share; a window of a queue is kept only
// where it is stricter than those of global.
func (r *Result) windowsOf(jobs []Job, q int, cell [2][24]int, total int, global []StartWindow, opt Options) []StartWindow {
	nb := len(opt.WindowBoundsSec)
	var over [2][24][]int      // the jobs asking more than each bound started in the cell
	overAll := make([]int, nb) // all jobs asking more than each bound
	var maxReq workload.Time
	for d := range over {
		for h := range over[d] {
			over[d][h] = make([]int, nb)
		}
	}
	var qcell [2][24]int
	for _, j := range jobs {
		if j.ReqTime <= 0 {
			continue
		}
		d, h := r.startCell(j)
		qcell[d][h]++
		maxReq = max(maxReq, j.ReqTime)
		for k, b := range opt.WindowBoundsSec {
			if j.ReqTime > b {
				over[d][h][k]++
				overAll[k]++
			}
		}
	}
	var out []StartWindow
	// Only the bounds before the first that no job asks more than.
	n := len(opt.WindowBoundsSec)
	for k, b := range opt.WindowBoundsSec {
		if b >= maxReq {
			n = k
			break
		}
	}
	limit, expect := cellBounds(&cell, total, &over, overAll[:n], opt.WindowMinExpected, opt.WindowLeakFrac, func(d, h, k int) bool {
		return q < 0 || stricter(global, d, h, opt.WindowBoundsSec[k])
	})
	for d := range limit {
		hourRuns(&limit[d], func(h, n, k int) {
			jobsIn, leak, exp := runTotals(&qcell[d], &over[d], &expect[d], h, n, k)
			b := opt.WindowBoundsSec[k]
			who, of := "jobs", ""
			if q >= 0 {
				who, of = fmt.Sprintf("jobs of queue %d", q), fmt.Sprintf(" of queue %d", q)
			}
			out = append(out, StartWindow{Queue: q, Days: dayTypes[d], FromHour: h, ToHour: (h + n) % 24, MaxWallSec: b,
				Evidence: []string{fmt.Sprintf("evidence: %d %s started on %s %02d:00-%02d:00 (%s); %d of them asked more than %s, where %.0f would be expected from such jobs' share of all starts",
					jobsIn, who, dayTypes[d], h, (h+n)%24, r.Zone, leak, durationText(b), exp),
					fmt.Sprintf("(the longest requested time%s in the log is %s).", of, durationText(maxReq))}})
		})
	}
	return out
}

// cellBounds picks, for each day type d and start hour h, the first
// bound k (of those overAll counts, in the caller's order) that the cell's
// jobs nearly never passed: the jobs passing it expected in the cell from
// its share of the total starts (cell[d][h] / total of overAll[k]) are
// minExpected or more, those seen (over[d][h][k]) leak × that or fewer,
// and keep(d, h, k) says so. limit[d][h] is that k, −1 for none, and
// expect[d][h] what was expected.
func cellBounds(cell *[2][24]int, total int, over *[2][24][]int, overAll []int, minExpected, leak float64, keep func(d, h, k int) bool) (limit [2][24]int, expect [2][24]float64) {
	for d := range limit {
		for h := range limit[d] {
			limit[d][h] = -1
			share := float64(cell[d][h]) / float64(total)
			for k := range overAll {
				e := float64(overAll[k]) * share
				if e >= minExpected && float64(over[d][h][k]) <= leak*e && keep(d, h, k) {
					limit[d][h], expect[d][h] = k, e
					break
				}
			}
		}
	}
	return limit, expect
}

// hourRuns calls f(h, n, k) for each run of n hours from hour h (a run may
// wrap midnight) in which bounds holds the same k ≥ 0, in hour order from
// the first hour that does not continue the run that wraps (from 0 when
// none does, or when one bound holds all day).
func hourRuns(bounds *[24]int, f func(h, n, k int)) {
	h0 := 0
	if bounds[0] >= 0 && bounds[23] == bounds[0] {
		// Start after the run that wraps, unless it is the whole day.
		for h0 < 24 && bounds[h0] == bounds[0] {
			h0++
		}
		if h0 == 24 {
			h0 = 0
		}
	}
	for i := 0; i < 24; {
		h := (h0 + i) % 24
		k := bounds[h]
		n := 1
		for n < 24-i && bounds[(h+n)%24] == k {
			n++
		}
		if k >= 0 {
			f(h, n, k)
		}
		i += n
	}
}

// runTotals sums, over the n hours from hour h (wrapping midnight), the
// jobs started (cells), those of them asking more than bound k (over) and
// the number of those expected (expect): a window's evidence.
func runTotals(cells *[24]int, over *[24][]int, expect *[24]float64, h, n, k int) (started, leak int, exp float64) {
	for m := 0; m < n; m++ {
		c := (h + m) % 24
		started += cells[c]
		leak += over[c][k]
		exp += expect[c]
	}
	return started, leak, exp
}

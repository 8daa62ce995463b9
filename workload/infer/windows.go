package infer

import (
	"fmt"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// dayTypes are the rows of the start-window table.
var dayTypes = [2]string{"Mon-Fri", "Sat,Sun"}

// windows finds, per day type and local start hour, the largest requested
// time that jobs may start with: a cell where the jobs asking more than a
// bound B are expected (from their share of all starts) but nearly absent
// is restricted to B. Neighbouring hours with the same bound make one
// window.
func (r *Result) windows(jobs []Job, opt Options) {
	nb := len(opt.WindowBoundsSec)
	var cell [2][24]int        // jobs with a requested time started in the cell
	var over [2][24][]int      // of them, those asking more than each bound
	overAll := make([]int, nb) // all jobs asking more than each bound
	total := 0
	var maxReq workload.Time
	for d := range over {
		for h := range over[d] {
			over[d][h] = make([]int, nb)
		}
	}
	for _, j := range jobs {
		if j.ReqTime <= 0 {
			continue
		}
		w := r.wall(r.Log.Epoch, j.Start)
		d := 0
		if wd := w.Weekday(); wd == time.Saturday || wd == time.Sunday {
			d = 1
		}
		h := w.Hour()
		cell[d][h]++
		total++
		maxReq = max(maxReq, j.ReqTime)
		for k, b := range opt.WindowBoundsSec {
			if j.ReqTime > b {
				over[d][h][k]++
				overAll[k]++
			}
		}
	}
	if total == 0 {
		r.Notes = append(r.Notes, "start windows: not looked for (no job gives a requested time)")
		return
	}
	// limit[d][h] is the index of the cell's bound, -1 for none.
	var limit [2][24]int
	var expect [2][24]float64
	for d := range limit {
		for h := range limit[d] {
			limit[d][h] = -1
			share := float64(cell[d][h]) / float64(total)
			for k, b := range opt.WindowBoundsSec {
				if b >= maxReq {
					break
				}
				e := float64(overAll[k]) * share
				if e >= opt.WindowMinExpected && float64(over[d][h][k]) <= opt.WindowLeakFrac*e {
					limit[d][h], expect[d][h] = k, e
					break
				}
			}
		}
	}
	for d := range limit {
		// Runs of equal bounds; a run may wrap midnight.
		h0 := 0
		if limit[d][0] >= 0 && limit[d][23] == limit[d][0] {
			// Start after the run that wraps, unless it is the whole day.
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
				var jobsIn, leak int
				var exp float64
				for m := 0; m < n; m++ {
					c := (h + m) % 24
					jobsIn += cell[d][c]
					leak += over[d][c][k]
					exp += expect[d][c]
				}
				b := opt.WindowBoundsSec[k]
				r.Windows = append(r.Windows, StartWindow{Days: dayTypes[d], FromHour: h, ToHour: (h + n) % 24, MaxWallSec: b,
					Evidence: []string{fmt.Sprintf("evidence: %d jobs started on %s %02d:00-%02d:00 (%s); %d of them asked more than %s, where %.0f would be expected from such jobs' share of all starts",
						jobsIn, dayTypes[d], h, (h+n)%24, r.Zone, leak, durationText(b), exp),
						fmt.Sprintf("(the longest requested time in the log is %s).", durationText(maxReq))}})
			}
			i += n
		}
	}
	if len(r.Windows) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("start windows: none (no start hour where the jobs asking more than a bound were %.0f %% or less of those expected)", 100*opt.WindowLeakFrac))
	}
}

package infer

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/schedsim/schedsim/workload"
)

// throttleMinJobs is the fewest jobs a user needs for the throttle rule to
// judge it.
const throttleMinJobs = 50

// throttled finds the users a limit kept below what the machine had room
// for, when the limit moved over time so that no plateau shows (the caps
// rule finds plateaus): a user whose jobs were queued for
// ThrottleMinBacklogSec or more in all, with the machine's idle
// processors (by the recorded jobs) at least the user's median job size in
// ThrottleRoomFrac or more of that time. A machine that starts what fits
// leaves no such backlog; a user limit does. The cap written is the
// ThrottleQuantile quantile of the processors the user held while their
// jobs were queued (at least their largest job, so that every job can
// run), as one [[limit]] per user; users the caps rule capped already are
// left alone, as are the users of a time-shared machine, whose idle
// processors the log does not show.
func (r *Result) throttled(jobs []Job, tl *timeline, opt Options) {
	if !(opt.ThrottleQuantile > 0) {
		return
	}
	if r.TimeShared {
		r.Notes = append(r.Notes, "throttled users: not looked for (the machine time-shared: its idle processors do not show in the log)")
		return
	}
	capped := map[string]bool{}
	for _, l := range r.Limits {
		for _, u := range l.Users {
			capped[u] = true
		}
	}
	if capped["*"] {
		return
	}
	byUser := map[int][]Job{}
	for _, j := range jobs {
		if j.User >= 0 {
			byUser[j.User] = append(byUser[j.User], j)
		}
	}
	step := opt.CapSampleSec
	var found []int
	for _, u := range sortedKeys(byUser) {
		js := byUser[u]
		if len(js) < throttleMinJobs || capped[strconv.Itoa(u)] {
			continue
		}
		var submits []workload.Time
		type tp struct {
			t workload.Time
			p int
		}
		var st, en []tp
		sizes := make([]int, len(js))
		largest := 0
		first, last := js[0].Submit, js[0].End
		for i, j := range js {
			submits = append(submits, j.Submit)
			st, en = append(st, tp{j.Start, j.Procs}), append(en, tp{j.End, j.Procs})
			sizes[i] = j.Procs
			largest = max(largest, j.Procs)
			first, last = min(first, j.Submit), max(last, j.End)
		}
		slices.Sort(submits)
		slices.SortFunc(st, func(a, b tp) int { return cmp.Compare(a.t, b.t) })
		slices.SortFunc(en, func(a, b tp) int { return cmp.Compare(a.t, b.t) })
		slices.Sort(sizes)
		med := sizes[(len(sizes)-1)/2]
		// A sweep over the samples with one pointer per sorted list.
		var is, ist, ien, held int
		var backlog []int
		room := 0
		for t := first; t < last; t += step {
			for is < len(submits) && submits[is] <= t {
				is++
			}
			for ist < len(st) && st[ist].t <= t {
				held += st[ist].p
				ist++
			}
			for ien < len(en) && en[ien].t <= t {
				held -= en[ien].p
				ien++
			}
			if is-ist <= 0 {
				continue
			}
			backlog = append(backlog, held)
			if r.Procs-int(tl.busy(t)) >= med {
				room++
			}
		}
		n := len(backlog)
		if n == 0 || workload.Time(n)*step < opt.ThrottleMinBacklogSec || float64(room) < opt.ThrottleRoomFrac*float64(n) {
			continue
		}
		peak := 0
		for _, x := range backlog {
			peak = max(peak, x)
		}
		slices.Sort(backlog)
		pos := opt.ThrottleQuantile * float64(n-1)
		lo := int(pos)
		v := float64(backlog[lo])
		if lo+1 < n {
			v += (pos - float64(lo)) * float64(backlog[lo+1]-backlog[lo])
		}
		c := max(int(math.Ceil(v-1e-9)), largest)
		if c >= peak {
			continue
		}
		found = append(found, u)
		r.Limits = append(r.Limits, Limit{Users: []string{strconv.Itoa(u)}, MaxCPUs: c, Evidence: []string{
			fmt.Sprintf("evidence: jobs of user %d were queued for %.0f hours in all, and in %.0f %% of that time the recorded jobs left idle at least their median size (%d processors):",
				u, float64(workload.Time(n)*step)/3600, 100*float64(room)/float64(n), med),
			fmt.Sprintf("something kept them from starting — a limit that moved, as no plateau shows. They held %d processors or fewer %.0f %% of that time (--throttle-quantile; up to %d), and their largest job asks %d.",
				c, 100*opt.ThrottleQuantile, peak, largest)}})
	}
	if len(found) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("throttled users: none (no user of %d jobs or more had jobs queued for %s or more with room for them %.0f %% of that time or more)",
			throttleMinJobs, durationText(opt.ThrottleMinBacklogSec), 100*opt.ThrottleRoomFrac))
	}
}

package infer

import (
	"fmt"
	"strings"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// sharedDayMinHours is the fewest hours in a row that make a daytime cut
// for the shared queues.
const sharedDayMinHours = 4

// sharedDay finds the processors a machine with shared queues kept for
// them by day, away from its dedicated jobs (the jobs of every other
// queue but the immediate ones). Every CapSampleSec over the log, on
// weekdays, at the samples where a dedicated job waited (submitted, not
// started) and no inferred reservation (capacity, outage, drain) held
// processors, it takes the processors the dedicated jobs held; per local
// hour h, their median B(h). The hours whose Procs − B(h) is at least
// SharedDayFreeFrac of the machine are those at which the dedicated jobs
// waited although they left that much of it to the others. Of those, the
// longest run of consecutive hours, sharedDayMinHours or more, whose
// medians lie within a band (the allocation unit, at least 1/32 of the
// machine) is a plateau, as a daytime partition's size bounds the load it
// holds; it is the daytime cut when at most a quarter of the other hours
// sit within the band of it (else the level is not the day's). The cut is
// the median, over the run's samples pooled, of the processors the
// dedicated jobs left (pooled rather than the median of the hours'
// medians, so an hour with few samples weighs little), rounded down to
// the allocation unit: the inferred node size, else 32 processors on a
// machine of 512 or more, else one. It is written as a maintenance
// reservation of that many processors, recurring on weekdays, which the
// shared queues' jobs are not held by (they are held only by reservations
// of the whole machine).
func (r *Result) sharedDay(jobs []Job, opt Options) {
	if len(r.Shared) == 0 || !(opt.SharedDayFreeFrac > 0) || r.Procs <= 0 {
		return
	}
	shared, imm := r.sharedSet(), r.immediateSet()
	var ded []Job
	first, last := jobs[0].Submit, jobs[0].End
	for _, j := range jobs {
		first, last = min(first, j.Submit), max(last, j.End)
		if !shared[j.Queue] && !imm[j.Queue] {
			ded = append(ded, j)
		}
	}
	const what = "processors kept for the shared queues by day"
	if len(ded) == 0 {
		r.Notes = append(r.Notes, what+": not looked for (no job of a dedicated queue)")
		return
	}
	tl := newTimeline(ded)
	// The samples inside an inferred reservation (capacity, outage,
	// drain) are left out: it, not the shared queues, held the processors.
	step := opt.CapSampleSec
	held := make([]bool, (last-first+step-1)/step)
	for _, o := range r.occurrences(last) {
		for k := max(0, (o.from-first+step-1)/step); k < workload.Time(len(held)) && first+k*step < o.to; k++ {
			held[k] = true
		}
	}
	var busy [24][]int // weekday samples with a dedicated job queued, by local hour: the dedicated busy processors
	for k, t := 0, first; t < last; k, t = k+1, t+step {
		if held[k] {
			continue
		}
		w := r.wall(r.Log.Epoch, t)
		if wd := w.Weekday(); wd == time.Saturday || wd == time.Sunday || tl.queued(t) == 0 {
			continue
		}
		busy[w.Hour()] = append(busy[w.Hour()], int(tl.busy(t)))
	}
	need := opt.SharedDayFreeFrac * float64(r.Procs)
	var kept [24]int // 0: the hour left need or more free; -1 not
	var hourMed [24]int
	for h := range kept {
		kept[h] = -1
		if len(busy[h]) > 0 {
			hourMed[h] = median(busy[h])
			if float64(r.Procs-hourMed[h]) >= need {
				kept[h] = 0
			}
		}
	}
	unit, unitText := 1, "whole processors"
	switch {
	case r.NodeSize > 1:
		unit, unitText = r.NodeSize, fmt.Sprintf("whole nodes of %d", r.NodeSize)
	case r.Procs >= 512:
		unit, unitText = 32, "a multiple of 32"
	}
	// A plateau: consecutive hours whose medians lie within band of each
	// other, as a partition's size bounds the load it holds.
	band := max(unit, r.Procs/32)
	from, n := 0, 0
	for h := range kept {
		if kept[h] < 0 {
			continue
		}
		lo, hi, m := hourMed[h], hourMed[h], 0
		for m < 24 {
			k := (h + m) % 24
			if kept[k] < 0 || max(hi, hourMed[k])-min(lo, hourMed[k]) > band {
				break
			}
			lo, hi, m = min(lo, hourMed[k]), max(hi, hourMed[k]), m+1
		}
		if m > n {
			from, n = h, m
		}
	}
	var perHour []string
	for h := range busy {
		if len(busy[h]) > 0 {
			perHour = append(perHour, fmt.Sprintf("%02d %d", h, hourMed[h]))
		}
	}
	hours := fmt.Sprintf("%02d:00-%02d:00", from, (from+n)%24)
	notFound := func(why string) {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: none (%s)", what, why),
			fmt.Sprintf("  the dedicated queues' median busy processors while one of their jobs waited, per weekday hour (%s): %s", r.Zone, strings.Join(perHour, ", ")))
	}
	switch {
	case n == 0:
		notFound(fmt.Sprintf("at no weekday hour did the dedicated queues' jobs leave %.0f %% of the machine or more while some of them waited, --shared-day-free", 100*opt.SharedDayFreeFrac))
		return
	case n < sharedDayMinHours:
		notFound(fmt.Sprintf("they left %.0f %% of the machine or more while some of them waited, at a plateau (hourly medians within %d processors), only on weekdays %s, under %d hours in a row", 100*opt.SharedDayFreeFrac, band, hours, sharedDayMinHours))
		return
	case n == 24:
		notFound(fmt.Sprintf("their load sat at one plateau, leaving %.0f %% of the machine or more, at every weekday hour: not by day", 100*opt.SharedDayFreeFrac))
		return
	}
	var in, out []int
	for h := range busy {
		if (h-from+24)%24 < n {
			in = append(in, busy[h]...)
		} else {
			out = append(out, busy[h]...)
		}
	}
	free := func(b []int) []int {
		f := make([]int, len(b))
		for i, x := range b {
			f[i] = r.Procs - x
		}
		return f
	}
	dayFree, nightFree := median(free(in)), median(free(out))
	// By day only: few of the other hours sit at the plateau too.
	lo, hi := r.Procs, 0
	for m := range n {
		lo, hi = min(lo, hourMed[(from+m)%24]), max(hi, hourMed[(from+m)%24])
	}
	var at, others int
	for h := range busy {
		if (h-from+24)%24 >= n && len(busy[h]) > 0 {
			others++
			if hourMed[h] >= lo-band && hourMed[h] <= hi+band {
				at++
			}
		}
	}
	if 4*at > others {
		notFound(fmt.Sprintf("on weekdays %s their load sat at a plateau (hourly medians %d to %d), leaving a median of %d processors while some of them waited, but so did %d of the %d other hours (within %d processors): not by day only",
			hours, lo, hi, dayFree, at, others, band))
		return
	}
	cut := dayFree / unit * unit
	if cut <= 0 {
		notFound(fmt.Sprintf("on weekdays %s they left a median of %d processors while some of them waited, under %s", hours, dayFree, unitText))
		return
	}
	var sharedNames []string
	for _, q := range r.Shared {
		sharedNames = append(sharedNames, fmt.Sprint(q))
	}
	r.SharedDay = append(r.SharedDay, Reservation{
		Name: "shared-day", Start: r.firstWeekdayAt(first, from),
		DurationSec: workload.Time(n * 3600), Recur: "weekdays", Procs: cut,
		Evidence: []string{
			fmt.Sprintf("evidence: on weekdays %s (%s) the dedicated queues' jobs held a median of %d of the %d processors while some of their jobs waited (%d samples every %s), their hourly medians at a plateau (%d to %d, within %d processors),",
				hours, r.Zone, r.Procs-dayFree, r.Procs, len(in), durationText(opt.CapSampleSec), lo, hi, band),
			fmt.Sprintf("which %d of the %d other hours reach (a median of %d outside those hours, %d samples), as a daytime partition's size would bound their load:", at, others, r.Procs-nightFree, len(out)),
			fmt.Sprintf("%d processors (the %d they left, rounded down to %s) kept for the time-shared %s %s by day (--shared-day-free %.0f %%, %d hours or more in a row).",
				cut, dayFree, unitText, plural(len(r.Shared), "queue", "queues"), strings.Join(sharedNames, ", "), 100*opt.SharedDayFreeFrac, sharedDayMinHours),
			"Their median busy processors while some waited, per weekday hour: " + strings.Join(perHour, ", ") + ".",
		},
	})
}

// firstWeekdayAt returns the first instant at or after trace time t that
// is hour h of a local weekday (Monday to Friday).
func (r *Result) firstWeekdayAt(t workload.Time, h int) workload.Time {
	w := r.wall(r.Log.Epoch, t)
	for k := 0; ; k++ {
		d := time.Date(w.Year(), w.Month(), w.Day()+k, h, 0, 0, 0, r.loc)
		s := workload.Time(d.Unix() - r.Log.Epoch)
		if wd := d.Weekday(); wd != time.Saturday && wd != time.Sunday && s >= t {
			return s
		}
	}
}

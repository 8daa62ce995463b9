package infer

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// dayStat is one local day of the sweep.
type dayStat struct {
	start     workload.Time // local midnight, trace time
	maxBusy   int
	fitQueued workload.Time // time a queued job would have fit the idle processors
}

// gap is an interval in which the running jobs held, by their requested
// times, almost no processors while a queued job would have fit.
type gap struct{ from, to workload.Time }

// sweepResult is what the event sweep found.
type sweepResult struct {
	days []dayStat
	gaps []gap
}

// sweep replays the recorded submissions, starts and ends in time order
// and records, per local day, the most processors busy and how long a
// queued job would have fit the idle ones, and every interval of near-zero
// busy processors while a queued job would have fit.
func sweep(jobs []Job, procs int, loc *time.Location, epoch int64, opt Options) *sweepResult {
	type ev struct {
		t     workload.Time
		kind  int8 // 0 submit, 1 start, 2 end, 3 requested end
		procs int
	}
	evs := make([]ev, 0, 4*len(jobs))
	for _, j := range jobs {
		re := j.End
		if j.ReqTime > 0 && j.Start+j.ReqTime > re {
			re = j.Start + j.ReqTime
		}
		evs = append(evs, ev{j.Submit, 0, j.Procs}, ev{j.Start, 1, j.Procs}, ev{j.End, 2, j.Procs}, ev{re, 3, j.Procs})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.kind, b.kind)
	})
	queued := make([]int, procs+2) // queued jobs by processor count
	minQ := procs + 1              // smallest processor count queued (procs+1: none)
	busy, promised := 0, 0         // processors busy, and held by the jobs' requested times
	near := int(math.Floor(opt.NearZeroFrac * float64(procs)))
	sr := &sweepResult{}
	dayOf := func(t workload.Time) workload.Time {
		w := time.Unix(epoch+int64(t), 0).In(loc)
		return workload.Time(time.Date(w.Year(), w.Month(), w.Day(), 0, 0, 0, 0, loc).Unix() - epoch)
	}
	nextDay := func(d workload.Time) workload.Time {
		w := time.Unix(epoch+int64(d), 0).In(loc)
		return workload.Time(time.Date(w.Year(), w.Month(), w.Day()+1, 0, 0, 0, 0, loc).Unix() - epoch)
	}
	var cur *dayStat
	var curEnd workload.Time
	gapFrom := workload.Time(-1)
	prev := evs[0].t
	fits := false
	// advance accounts the state of [prev, t) to the days it covers.
	advance := func(t workload.Time) {
		for prev < t {
			if cur == nil || prev >= curEnd {
				d := dayOf(prev)
				sr.days = append(sr.days, dayStat{start: d, maxBusy: busy})
				cur, curEnd = &sr.days[len(sr.days)-1], nextDay(d)
			}
			step := min(t, curEnd) - prev
			if fits {
				cur.fitQueued += step
			}
			cur.maxBusy = max(cur.maxBusy, busy)
			prev += step
		}
	}
	for i := 0; i < len(evs); {
		t := evs[i].t
		advance(t)
		for ; i < len(evs) && evs[i].t == t; i++ {
			e := evs[i]
			p := min(e.procs, procs+1)
			switch e.kind {
			case 0:
				queued[p]++
				minQ = min(minQ, p)
			case 1:
				queued[p]--
				for minQ <= procs && queued[minQ] == 0 {
					minQ++
				}
				busy += e.procs
				promised += e.procs
			case 2:
				busy -= e.procs
			case 3:
				promised -= e.procs
			}
		}
		fits = minQ <= procs-busy
		if cur != nil && t < curEnd {
			cur.maxBusy = max(cur.maxBusy, busy)
		}
		idle := fits && promised <= near
		switch {
		case idle && gapFrom < 0:
			gapFrom = t
		case !idle && gapFrom >= 0:
			sr.gaps = append(sr.gaps, gap{gapFrom, t})
			gapFrom = -1
		}
	}
	return sr
}

// capacityPlateauNear: a day reaches a stretch's plateau when its most
// busy processors are at least this fraction of the stretch's.
const capacityPlateauNear = 0.95

// capacity finds long stretches of days on which the machine never used
// more than part of its processors although queued jobs would have fit:
// processors out of service, written as maintenance reservations of the
// processors missing.
func (r *Result) capacity(sw *sweepResult, opt Options) {
	low := int(opt.CapacityLowFrac * float64(r.Procs))
	isLow := func(d dayStat) bool { return d.maxBusy <= low && d.fitQueued >= opt.CapacityQueuedSec }
	n := 0
	for i := 0; i < len(sw.days); {
		if !isLow(sw.days[i]) {
			i++
			continue
		}
		k := i
		top := 0
		var fit workload.Time
		for k < len(sw.days) && isLow(sw.days[k]) {
			top = max(top, sw.days[k].maxBusy)
			fit += sw.days[k].fitQueued
			k++
		}
		plateau := 0
		for _, d := range sw.days[i:k] {
			if float64(d.maxBusy) >= capacityPlateauNear*float64(top) {
				plateau++
			}
		}
		if k-i >= opt.CapacityMinDays && float64(plateau) >= opt.CapacityPlateauFrac*float64(k-i) {
			n++
			end := sw.days[k-1].start + 86400
			if k < len(sw.days) {
				end = sw.days[k].start
			}
			from := sw.days[i].start
			r.Capacity = append(r.Capacity, Reservation{
				Name: fmt.Sprintf("capacity-%d", n), Start: from, DurationSec: end - from, Recur: "once", Procs: r.Procs - top,
				Evidence: []string{fmt.Sprintf("evidence: for %d days from %s, at most %d of the %d processors were ever busy (each day's maximum at most %.0f %% of the machine; %d of the days reached %d or more),",
					k-i, r.wall(r.Log.Epoch, from).Format("2006-01-02"), top, r.Procs, 100*opt.CapacityLowFrac, plateau, int(capacityPlateauNear*float64(top)+0.999)),
					fmt.Sprintf("while a queued job would have fit the idle processors for %.0f hours in all: %d processors out of service.", float64(fit)/3600, r.Procs-top)},
			})
		}
		i = k
	}
	if len(r.Capacity) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("capacity timeline: the whole machine in service (no %d days or more in a row with at most %.0f %% of it busy, at a plateau, while queued jobs would have fit)", opt.CapacityMinDays, 100*opt.CapacityLowFrac))
	}
}

// outages finds the long idle-with-queue gaps that end with the queue
// starting together, and that no recurring drain explains.
func (r *Result) outages(sw *sweepResult, tl *timeline, opt Options) {
	n := 0
	for _, g := range sw.gaps {
		if g.to-g.from < opt.OutageMinSec {
			continue
		}
		burst := tl.startsIn(g.to, g.to+opt.OutageBurstSec)
		if burst < opt.OutageMinStarts || r.inDrain(g) {
			continue
		}
		n++
		r.Outages = append(r.Outages, Reservation{
			Name: fmt.Sprintf("outage-%d", n), Start: g.from, DurationSec: g.to - g.from, Recur: "once",
			Evidence: []string{fmt.Sprintf("evidence: from %s for %.1f hours, the jobs held (by their requested times) at most %.0f %% of the processors while a queued job would have fit; %d jobs started within %d min of its end.",
				r.wall(r.Log.Epoch, g.from).Format("2006-01-02 15:04"), float64(g.to-g.from)/3600, 100*opt.NearZeroFrac, burst, opt.OutageBurstSec/60)},
		})
	}
	if len(r.Outages) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("planned outages: none (no idle-with-queue gap of %s or more that ends with %d jobs or more starting together)", durationText(opt.OutageMinSec), opt.OutageMinStarts))
	}
}

// inDrain reports whether the gap overlaps an occurrence of an inferred
// recurring drain.
func (r *Result) inDrain(g gap) bool {
	for _, d := range r.Drains {
		first := r.wall(r.Log.Epoch, d.Start)
		for t := first; ; {
			s := workload.Time(t.Unix() - r.Log.Epoch)
			if s >= g.to || (d.Until > 0 && s > d.Until) {
				break
			}
			if s+d.DurationSec > g.from && d.occursOn(t.Weekday()) {
				return true
			}
			t = t.AddDate(0, 0, 1)
		}
	}
	return false
}

// occursOn reports whether a recurring reservation occurs on weekday wd
// (weekly: the weekday of its start, checked by the caller's stepping).
func (d *Reservation) occursOn(wd time.Weekday) bool {
	switch d.Recur {
	case "daily":
		return true
	case "weekdays":
		return wd != time.Saturday && wd != time.Sunday
	case "weekends":
		return wd == time.Saturday || wd == time.Sunday
	case "weekly":
		return wd == d.weekday
	}
	return false
}

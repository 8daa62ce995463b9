package infer

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// zoneCandidate is a clock the drains may be on.
type zoneCandidate struct {
	name string
	loc  *time.Location
	why  string
}

// zoneCandidates are the clocks tried: the header's zone and, when it
// keeps daylight saving time, its standard time as a fixed offset (a
// machine whose clock stays on one UTC offset all year).
func zoneCandidates(l *Log) []zoneCandidate {
	name := l.Zone.String()
	if name == "" || name == "Local" {
		name = "UTC"
	}
	cs := []zoneCandidate{{name, l.Zone, "the header's zone"}}
	if !l.HasCalendar {
		cs[0].why = "no UnixStartTime in the header: trace time 0 taken as midnight UTC"
		return cs
	}
	// Standard time: the smaller of the offsets in January and July.
	y := time.Unix(l.Epoch, 0).In(l.Zone).Year()
	_, jan := time.Date(y, 1, 1, 12, 0, 0, 0, l.Zone).Zone()
	_, jul := time.Date(y, 7, 1, 12, 0, 0, 0, l.Zone).Zone()
	if jan != jul {
		off := min(jan, jul)
		n := fixedName(off)
		cs = append(cs, zoneCandidate{n, time.FixedZone(n, off), "the header zone's standard time, kept all year (no daylight saving)"})
	}
	return cs
}

// fixedName writes a fixed offset as "UTC+02:00".
func fixedName(off int) string {
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("UTC%c%02d:%02d", sign, off/3600, off/60%60)
}

// drainCell counts, for one weekday and clock-time bin, the days seen and
// the days the machine was near zero there with jobs queued.
type drainCell struct {
	days, near  int
	first, last workload.Time // first and last near-zero instants
}

// drainProfile is the 7 × bins table of a clock.
type drainProfile struct {
	bins  int
	cells [7][]drainCell
	// sharp is how well the near-idle samples line up: the sum, over
	// the cells seen on DrainMinDays days or more, of the squared share
	// of their days near idle (a clock that spreads them over more cells
	// scores less).
	sharp float64
}

// profile samples the middle of every clock-time bin of every local day
// of the log under loc.
func profile(tl *timeline, loc *time.Location, epoch int64, procs int, opt Options) *drainProfile {
	bins := 86400 / opt.BinSec
	p := &drainProfile{bins: bins}
	for d := range p.cells {
		p.cells[d] = make([]drainCell, bins)
	}
	near := int64(math.Floor(opt.NearZeroFrac * float64(procs)))
	at := func(t time.Time) workload.Time { return workload.Time(t.Unix() - epoch) }
	first := time.Unix(epoch+int64(tl.first), 0).In(loc)
	day := time.Date(first.Year(), first.Month(), first.Day(), 0, 0, 0, 0, loc)
	for ; at(day) <= tl.last; day = day.AddDate(0, 0, 1) {
		wd := int(day.Weekday())
		for b := 0; b < bins; b++ {
			t := at(day.Add(time.Duration(b*opt.BinSec+opt.BinSec/2) * time.Second))
			if t < tl.first || t > tl.last {
				continue
			}
			c := &p.cells[wd][b]
			c.days++
			if tl.reqBusy(t) <= near && tl.queued(t) > 0 {
				if c.near == 0 {
					c.first = t
				}
				c.near++
				c.last = t
			}
		}
	}
	for d := range p.cells {
		for b := range p.cells[d] {
			if c := p.cells[d][b]; c.days >= opt.DrainMinDays {
				f := float64(c.near) / float64(c.days)
				p.sharp += f * f
			}
		}
	}
	return p
}

// drains finds recurring drains and the clock they line up on.
func (r *Result) drains(l *Log, tl *timeline, opt Options) {
	cands := zoneCandidates(l)
	profs := make([]*drainProfile, len(cands))
	best := 0
	for i, c := range cands {
		profs[i] = profile(tl, c.loc, l.Epoch, r.Procs, opt)
		if profs[i].sharp > profs[best].sharp+1e-9 {
			best = i
		}
	}
	r.Zone, r.loc = cands[best].name, cands[best].loc
	r.ZoneEvidence = []string{fmt.Sprintf("%s: %s.", cands[best].name, cands[best].why)}
	if len(cands) > 1 {
		var parts []string
		for i, c := range cands {
			parts = append(parts, fmt.Sprintf("%s %.2f", c.name, profs[i].sharp))
		}
		r.ZoneEvidence = append(r.ZoneEvidence, "Clocks tried, by how well the times at which no job held (by its requested time) more than a few processors while jobs were queued line up on weekdays and clock times (the sum over weekday × clock-time bins of the squared share of such days): "+
			strings.Join(parts, ", ")+"; the highest score wins, the header's zone on a tie.")
	}
	p := profs[best]
	// Runs of drain bins per weekday.
	type run struct{ from, to int }
	var runs [7][]run
	for wd := 0; wd < 7; wd++ {
		b := 0
		for b < p.bins {
			if !isDrain(p.cells[wd][b], opt) {
				b++
				continue
			}
			e := b
			for e < p.bins && isDrain(p.cells[wd][e], opt) {
				e++
			}
			runs[wd] = append(runs[wd], run{b, e})
			b = e
		}
	}
	// Group the weekdays' runs by their first bin; each group is one
	// reservation.
	used := [7][]bool{}
	for wd := range runs {
		used[wd] = make([]bool, len(runs[wd]))
	}
	n := 0
	for wd0 := 0; wd0 < 7; wd0++ {
		for k0, r0 := range runs[wd0] {
			if used[wd0][k0] {
				continue
			}
			days := [7]bool{}
			from, to := r0.from, r0.to
			var dayN, nearN int
			var first, last workload.Time = math.MaxInt64, math.MinInt64
			var members [][2]int
			// The runs of other weekdays that overlap this one join it
			// while the intersection of them all is not empty.
			for wd := 0; wd < 7; wd++ {
				for k, rr := range runs[wd] {
					if used[wd][k] || days[wd] || max(from, rr.from) >= min(to, rr.to) {
						continue
					}
					used[wd][k] = true
					days[wd] = true
					from, to = max(from, rr.from), min(to, rr.to)
					members = append(members, [2]int{wd, k})
				}
			}
			for _, m := range members {
				rr := runs[m[0]][m[1]]
				for b := rr.from; b < rr.to; b++ {
					c := p.cells[m[0]][b]
					dayN += c.days
					nearN += c.near
					if c.near > 0 {
						first, last = min(first, c.first), max(last, c.last)
					}
				}
			}
			recur, wdays := recurrence(days)
			sets := [][7]bool{days}
			if recur == "weekly" {
				// One weekly reservation per day.
				sets = sets[:0]
				for wd, ok := range days {
					if ok {
						var one [7]bool
						one[wd] = true
						sets = append(sets, one)
					}
				}
			}
			for _, set := range sets {
				n++
				start := r.firstOccurrence(l.Epoch, first, set, from*opt.BinSec)
				dur := workload.Time((to - from) * opt.BinSec)
				res := Reservation{
					Name: fmt.Sprintf("drain-%d", n), Start: start, DurationSec: dur, Recur: recur,
					Until:   last + 1,
					weekday: r.wall(l.Epoch, start).Weekday(),
					Evidence: []string{fmt.Sprintf("evidence: on %s from %s for %s (%s), jobs held (by their requested time) at most %.0f %% of the processors, with jobs queued, in %d of %d samples (%.0f %%) — each a clock-time bin of %d min on one day;",
						wdays, clock(from*opt.BinSec), durationText(dur), r.Zone, 100*opt.NearZeroFrac, nearN, dayN, 100*float64(nearN)/float64(max(dayN, 1)), opt.BinSec/60),
						fmt.Sprintf("seen from %s to %s.", r.wall(l.Epoch, first).Format("2006-01-02"), r.wall(l.Epoch, last).Format("2006-01-02"))},
				}
				r.Drains = append(r.Drains, res)
			}
		}
	}
	if len(r.Drains) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("recurring drains: none (no weekday and clock time at which jobs held, by their requested time, almost no processors while jobs were queued, on %.0f %% of the days or more)", 100*opt.DrainMinFrac))
	}
}

// isDrain reports whether a cell is a drain.
func isDrain(c drainCell, opt Options) bool {
	return c.days >= opt.DrainMinDays && float64(c.near) >= opt.DrainMinFrac*float64(c.days)
}

var weekdayShort = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

// recurrence names the recurrence of a set of weekdays and lists them.
func recurrence(days [7]bool) (recur, list string) {
	var names []string
	n := 0
	for wd, ok := range days {
		if ok {
			names = append(names, weekdayShort[wd])
			n++
		}
	}
	list = strings.Join(names, ",")
	switch {
	case n == 7:
		return "daily", "every day"
	case n == 5 && !days[0] && !days[6]:
		return "weekdays", "weekdays (Mon-Fri)"
	case n == 2 && days[0] && days[6]:
		return "weekends", "weekends (Sat,Sun)"
	case n == 1:
		return "weekly", list
	}
	return "weekly", list // written as one weekly reservation per day
}

// firstOccurrence returns the first instant, at or before the first
// near-zero sample, on one of the days, at clock time sec.
func (r *Result) firstOccurrence(epoch int64, first workload.Time, days [7]bool, sec int) workload.Time {
	w := r.wall(epoch, first)
	d := time.Date(w.Year(), w.Month(), w.Day(), 0, 0, 0, 0, r.loc)
	for i := 0; i < 8 && !days[d.Weekday()]; i++ {
		d = d.AddDate(0, 0, 1)
	}
	return workload.Time(d.Add(time.Duration(sec)*time.Second).Unix() - epoch)
}

// wall returns trace time t on the inferred clock.
func (r *Result) wall(epoch int64, t workload.Time) time.Time {
	return time.Unix(epoch+int64(t), 0).In(r.loc)
}

// clock writes seconds after midnight as "07:00".
func clock(sec int) string { return fmt.Sprintf("%02d:%02d", sec/3600, sec/60%60) }

// durationText writes seconds as "30m", "4h", "2d", or "90s".
func durationText(sec workload.Time) string {
	switch {
	case sec%86400 == 0 && sec >= 86400:
		return fmt.Sprintf("%dd", sec/86400)
	case sec%3600 == 0 && sec >= 3600:
		return fmt.Sprintf("%dh", sec/3600)
	case sec%60 == 0 && sec >= 60:
		return fmt.Sprintf("%dm", sec/60)
	}
	return fmt.Sprintf("%ds", sec)
}

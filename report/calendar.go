package report

import (
	"fmt"
	"time"

	"gonum.org/v1/plot"

	"github.com/schedsim/schedsim/workload"
)

// Calendar places a run's times on the wall clock (see workload.Calendar,
// which the engine's calendar rules use too).
type Calendar = workload.Calendar

// sameCalendar reports whether every run has a calendar, the same one.
func sameCalendar(runs []*Run) *Calendar {
	if len(runs) == 0 || runs[0].Calendar == nil {
		return nil
	}
	c := runs[0].Calendar
	for _, r := range runs[1:] {
		if r.Calendar == nil || r.Calendar.Epoch != c.Epoch || r.Calendar.ZoneName() != c.ZoneName() {
			return nil
		}
	}
	return c
}

// timeAxis sets a time axis whose x values are in unit u since trace time
// origin: ticks at round numbers and "time since the first submission"
// without a calendar; with one, ticks at calendar dates or hours in its
// zone, and a label naming the zone and the first day.
func timeAxis(a *plot.Axis, cal *Calendar, u timeUnit, origin workload.Time) {
	if cal == nil {
		a.Label.Text = timeAxisLabel(u)
		a.Tick.Marker = niceTicks
		return
	}
	a.Label.Text = fmt.Sprintf("local time, %s (time 0 of the trace: %s)", cal.ZoneName(), cal.At(0).Format("Mon 2 Jan 2006 15:04"))
	a.Tick.Marker = calendarTicks(cal, u, origin)
}

// calendarStep is one choice of calendar ticks: a tick at each step from
// a truncated start, labelled every label-th tick.
type calendarStep struct {
	minSpan time.Duration // the span from which this step is used
	trunc   func(t time.Time) time.Time
	next    func(t time.Time) time.Time
	label   func(t time.Time, first bool) string
	every   func(t time.Time) bool // labelled ticks
}

func dayStart(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// calendarSteps are the tick choices, widest span first.
var calendarSteps = []calendarStep{
	{minSpan: 400 * 24 * time.Hour, // months, labelled each quarter
		trunc: func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location()) },
		next:  func(t time.Time) time.Time { return t.AddDate(0, 1, 0) },
		label: func(t time.Time, first bool) string { return t.Format("Jan 2006") },
		every: func(t time.Time) bool { return (t.Month()-1)%3 == 0 }},
	{minSpan: 100 * 24 * time.Hour, // months
		trunc: func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location()) },
		next:  func(t time.Time) time.Time { return t.AddDate(0, 1, 0) },
		label: func(t time.Time, first bool) string {
			if first || t.Month() == time.January {
				return t.Format("Jan 2006")
			}
			return t.Format("Jan")
		},
		every: func(time.Time) bool { return true }},
	{minSpan: 20 * 24 * time.Hour, // days, labelled on Mondays
		trunc: dayStart,
		next:  func(t time.Time) time.Time { return t.AddDate(0, 0, 1) },
		label: func(t time.Time, first bool) string { return t.Format("Mon 2 Jan") },
		every: func(t time.Time) bool { return t.Weekday() == time.Monday }},
	{minSpan: 7 * 24 * time.Hour, // days, labelled every other day
		trunc: dayStart,
		next:  func(t time.Time) time.Time { return t.AddDate(0, 0, 1) },
		label: func(t time.Time, first bool) string { return t.Format("Mon 2 Jan") },
		every: func(t time.Time) bool { return t.YearDay()%2 == 0 }},
	{minSpan: 2 * 24 * time.Hour, // days, with minor ticks every six hours
		trunc: dayStart,
		next: func(t time.Time) time.Time {
			n := t.Add(6 * time.Hour)
			if d := dayStart(n); d.After(t) && d.Before(n) {
				return d // a day shorter or longer than 24 h (DST)
			}
			return n
		},
		label: func(t time.Time, first bool) string { return t.Format("Mon 2 Jan") },
		every: func(t time.Time) bool { return t.Hour() == 0 }},
	{minSpan: 12 * time.Hour, // every three hours
		trunc: dayStart,
		next:  func(t time.Time) time.Time { return t.Add(time.Hour) },
		label: func(t time.Time, first bool) string {
			if t.Hour() == 0 {
				return t.Format("Mon 2 Jan")
			}
			return t.Format("15:04")
		},
		every: func(t time.Time) bool { return t.Hour()%3 == 0 }},
	{minSpan: 0, // hours, with minor ticks every ten minutes
		trunc: func(t time.Time) time.Time { return t.Truncate(time.Hour) },
		next:  func(t time.Time) time.Time { return t.Add(10 * time.Minute) },
		label: func(t time.Time, first bool) string { return t.Format("15:04") },
		every: func(t time.Time) bool { return t.Minute() == 0 }},
}

// calendarTicks returns a ticker for an axis in unit u since trace time
// origin that puts ticks at the calendar's dates or hours.
func calendarTicks(cal *Calendar, u timeUnit, origin workload.Time) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		toTime := func(x float64) time.Time { return cal.At(origin + workload.Time(x*u.sec)) }
		from, to := toTime(lo), toTime(hi)
		span := to.Sub(from)
		st := calendarSteps[len(calendarSteps)-1]
		for _, s := range calendarSteps {
			if span >= s.minSpan {
				st = s
				break
			}
		}
		var ts []plot.Tick
		first := true
		for t := st.trunc(from); !t.After(to) && len(ts) < 2000; t = st.next(t) {
			if t.Before(from) {
				continue
			}
			x := float64(cal.TraceTime(t)-origin) / u.sec
			label := ""
			if st.every(t) {
				label = st.label(t, first)
				first = false
			}
			ts = append(ts, plot.Tick{Value: x, Label: label})
		}
		return ts
	})
}

package report

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// TestCalendarTicks: the ticks of a calendar axis fall on local dates and
// hours, labelled at a density that fits the span, across a change of
// daylight-saving time.
func TestCalendarTicks(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	// 1994-10-04 07:01:12 MDT, LANL-CM5's UnixStartTime.
	lanl := &Calendar{Epoch: 781275672, Loc: time.FixedZone("MDT", -6*3600)}
	// 2024-03-30 00:00 in Paris: the clocks go forward on the 31st.
	dst := &Calendar{Epoch: time.Date(2024, 3, 30, 0, 0, 0, 0, paris).Unix(), Loc: paris}
	for _, tc := range []struct {
		name   string
		cal    *Calendar
		u      timeUnit
		hi     float64
		labels []string // the first labels
		all    int      // labelled ticks, 0: not checked
	}{
		{"two years", lanl, timeUnit{"days", 86400, 1}, 720, []string{"Jan 1995", "Apr 1995", "Jul 1995"}, 7},
		{"four months", lanl, timeUnit{"days", 86400, 1}, 120, []string{"Nov 1994", "Dec", "Jan 1995"}, 4},
		{"three days over DST", dst, timeUnit{"hours", 3600, 1}, 72, []string{"Sat 30 Mar", "Sun 31 Mar", "Mon 1 Apr"}, 4},
		{"half a day", dst, timeUnit{"hours", 3600, 1}, 12, []string{"Sat 30 Mar", "03:00", "06:00"}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ticks := calendarTicks(tc.cal, tc.u, 0).Ticks(0, tc.hi)
			var labels []string
			for _, tk := range ticks {
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
				if tk.Value < 0 || tk.Value > tc.hi {
					t.Errorf("tick %v outside [0, %v]", tk.Value, tc.hi)
				}
			}
			if len(labels) < len(tc.labels) || strings.Join(labels[:len(tc.labels)], "|") != strings.Join(tc.labels, "|") {
				t.Errorf("labels %q, want them to start %q", labels, tc.labels)
			}
			if tc.all > 0 && len(labels) != tc.all {
				t.Errorf("%d labels %q, want %d", len(labels), labels, tc.all)
			}
		})
	}
	// Sun 31 Mar 2024 has 23 hours in Paris: Mon 1 Apr 00:00 is 47 h after
	// Sat 30 Mar 00:00.
	ticks := calendarTicks(dst, timeUnit{"hours", 3600, 1}, 0).Ticks(0, 72)
	for _, tk := range ticks {
		if tk.Label == "Mon 1 Apr" && tk.Value != 47 {
			t.Errorf("Mon 1 Apr at %v h, want 47", tk.Value)
		}
	}
}

// TestCalendarPlotGolden: the tiny run's plots on a calendar.
func TestCalendarPlotGolden(t *testing.T) {
	r := tinyReport()
	r.Calendar = &Calendar{Epoch: 781275672, Loc: time.FixedZone("MDT", -6*3600)}
	for _, f := range RunFigures(r) {
		if f.Name != "utilisation" && f.Name != "queue" {
			continue
		}
		svg, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(svg), "local time, MDT") {
			t.Errorf("%s: no calendar axis label", f.Name)
		}
		goldenSVG(t, filepath.Join("plots", f.Name+"_calendar.svg"), svg)
	}
}

// TestHourOfWeek: the waits fall in the hour of the week of their
// submission in the calendar's zone, and the utilisation of each hour is
// a share of the machine.
func TestHourOfWeek(t *testing.T) {
	monday := &Calendar{Epoch: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), Loc: time.UTC}
	b := NewBreakdown(nil)
	b.SetCalendar(monday)
	replay(tinyRun(), b)
	hw := b.Breakdowns().HourOfWeek
	// Five jobs ran, all submitted in Monday's first hour, waiting 0, 90,
	// 70, 0 and 955 s.
	if hw == nil || hw.Zone != "UTC" || hw.Jobs[0] != 5 || hw.WaitMeanSec[0] != 1115.0/5 {
		t.Fatalf("hour of week %+v", hw)
	}
	// An hour later in Tokyo's zone: Monday 09:00.
	tokyo := &Calendar{Epoch: monday.Epoch, Loc: time.FixedZone("JST", 9*3600)}
	if c := new(weekClock).cell(tokyo, 3600); c != 10 {
		t.Errorf("cell %d, want 10 (Monday 10:00 in Tokyo)", c)
	}
	if c := new(weekClock).cell(monday, -3600); c != HoursPerWeek-1 {
		t.Errorf("cell %d, want the last (Sunday 23:00)", c)
	}
	r := syntheticReport(t, "easy", 3000, DefaultSeriesPoints, easyCfg)
	u := HourOfWeekUtilisation(r.Series, monday)
	some := false
	for c, v := range u {
		if v < 0 || v > 1 {
			t.Errorf("hour %d: utilisation %v", c, v)
		}
		some = some || v > 0
	}
	if !some {
		t.Error("no hour has any utilisation")
	}
	r.Calendar = monday
	r.Summary.Breakdowns = &Breakdowns{HourOfWeek: &HourOfWeek{Zone: "UTC", Jobs: hw.Jobs, WaitMeanSec: hw.WaitMeanSec, Utilisation: u}}
	var fig *Figure
	for _, f := range RunFigures(r) {
		if f.Name == "hour_of_week" {
			fig = f
		}
	}
	if fig == nil {
		t.Fatal("no hour_of_week figure")
	}
	svg, err := fig.SVG()
	if err != nil {
		t.Fatal(err)
	}
	goldenSVG(t, filepath.Join("plots", "hour_of_week.svg"), svg)
}

// TestGanttView: the Gantt chart starts where the jobs are, leaving out at
// most one job in twenty that lie far before the rest.
func TestGanttView(t *testing.T) {
	jobs := func(starts ...workload.Time) []GanttJob {
		var out []GanttJob
		for _, s := range starts {
			out = append(out, GanttJob{Start: s, End: s + 10})
		}
		return out
	}
	many := []workload.Time{0}
	for i := 0; i < 24; i++ {
		many = append(many, 1000000+workload.Time(i)*100)
	}
	for _, tc := range []struct {
		name     string
		jobs     []GanttJob
		from, to workload.Time
		before   int
	}{
		{"spread evenly", jobs(0, 100, 200, 300), 0, 310, 0},
		{"one early job of 25", jobs(many...), 1000000, 1002310, 1},
		{"too few jobs to leave one out", jobs(0, 1000000, 1000100), 0, 1000110, 0},
	} {
		from, to, before := ganttView(tc.jobs)
		if from != tc.from || to != tc.to || before != tc.before {
			t.Errorf("%s: %d–%d leaving out %d, want %d–%d leaving out %d", tc.name, from, to, before, tc.from, tc.to, tc.before)
		}
	}
}

// TestWeekClockMatchesTime checks the cached zone arithmetic of
// weekClock against time.Time's weekday and hour, in zones with daylight
// saving (whole and half hours), a fixed odd offset and UTC, at second
// and millisecond ticks, one clock walking forward, backward and
// jumping, across the transitions of several years.
func TestWeekClockMatchesTime(t *testing.T) {
	zones := []*time.Location{nil, time.FixedZone("odd", -(3*3600 + 17*60 + 5))}
	for _, name := range []string{"America/Denver", "Europe/Stockholm", "Asia/Kolkata", "Australia/Lord_Howe"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatalf("zone %s: %v", name, err)
		}
		zones = append(zones, loc)
	}
	for _, loc := range zones {
		for _, tick := range []int64{1, 1000} {
			cal := &Calendar{Epoch: 788918400, Loc: loc, Tick: tick} // 1995-01-01 UTC
			var z weekClock
			check := func(t0 workload.Time) {
				t.Helper()
				w := cal.At(t0)
				want := 24*((int(w.Weekday())+6)%7) + w.Hour()
				if got := z.cell(cal, t0); got != want {
					t.Fatalf("zone %v tick %d time %d (%s): cell %d, want %d", loc, tick, t0, w, got, want)
				}
			}
			// Every hour and 13 s over three years, both ways.
			step := workload.Time(3613 * tick)
			end := workload.Time(3*366*86400) * workload.Time(tick)
			for t0 := -end / 3; t0 < end; t0 += step {
				check(t0)
			}
			for t0 := end; t0 > -end/3; t0 -= step {
				check(t0 - 1)
			}
			// Jumps between far times, and the ticks around a second.
			for i := int64(0); i < 2000; i++ {
				check(workload.Time((i*7919*86400 + i*i*37) % int64(end)))
				check(workload.Time(-i*tick - 1))
			}
		}
	}
}

package infer

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// sharedDayLog is a synthetic time-shared machine of procs processors
// (UTC, 21 days from Monday 1994-10-03 00:00, trace time 0). Every hour,
// three jobs of queue 1, of procs/2 processors each, start at their
// submission and run the hour: they alone hold more than the machine, so
// queue 1 is shared. Queue 2 is dedicated: the job of each hour (from the
// second) holds busy(weekday, hour) processors for the hour and is
// submitted an hour before, so one of its jobs waits at every instant.
func sharedDayLog(procs int, busy func(weekday bool, h int) int) *Log {
	const days = 21
	epoch := time.Date(1994, 10, 3, 0, 0, 0, 0, time.UTC).Unix()
	l := &Log{Procs: procs, Name: "sharedday.swf", Zone: time.UTC, Epoch: epoch, HasCalendar: true}
	id := int64(0)
	for s := range workload.Time(days * 24) {
		at := s * 3600
		for range 3 {
			id++
			l.Jobs = append(l.Jobs, Job{ID: id, Submit: at, Start: at, End: at + 3600, Procs: procs / 2, ReqTime: 3600, User: 1, Queue: 1})
		}
		if s == 0 {
			continue
		}
		id++
		l.Jobs = append(l.Jobs, Job{ID: id, Submit: at - 3600, Start: at, End: at + 3600, Procs: busy(s/24%7 < 5, int(s%24)), ReqTime: 7200, User: 2, Queue: 2})
	}
	return l
}

// hoursBusy returns a load of in processors on weekdays in the hours from
// from (wrapping midnight) for n hours, and out elsewhere (weekends all
// day unless weekend).
func hoursBusy(from, n, in, out int, weekend bool) func(bool, int) int {
	return func(weekday bool, h int) int {
		if (weekday || weekend) && (h-from+24)%24 < n {
			return in
		}
		return out
	}
}

// TestInferSharedDay: on a machine with a shared queue, the weekday hours
// at which the dedicated queue's jobs, one of them waiting, left 10 % of
// the machine or more (--shared-day-free) are found as one recurring
// reservation of what they left (rounded down to 32 processors on a
// machine of 512 or more), and nothing is written where every hour, too
// few hours, or also the other hours left that much.
func TestInferSharedDay(t *testing.T) {
	h := workload.Time(3600)
	for _, tc := range []struct {
		name  string
		procs int
		busy  func(bool, int) int
		set   func(*Options)
		// start, dur and cut are the reservation's start (trace time;
		// day 0 is a Monday), duration and processors (cut 0: none);
		// note is in the notes when none is found ("": no note).
		start, dur workload.Time
		cut        int
		note       string
	}{
		{"day cut", 128, hoursBusy(7, 12, 96, 128, false), nil, 7 * h, 12 * h, 32, ""},
		{"weekends left out", 128, hoursBusy(7, 12, 96, 128, true), nil, 7 * h, 12 * h, 32, ""},
		{"whole processors", 128, hoursBusy(8, 10, 100, 127, false), nil, 8 * h, 10 * h, 28, ""},
		{"rounded to 32", 1024, hoursBusy(9, 8, 700, 1000, false), nil, 9 * h, 8 * h, 320, ""},
		{"wraps midnight", 128, hoursBusy(20, 8, 96, 128, false), nil, 20 * h, 8 * h, 32, ""},
		{"every hour", 128, hoursBusy(0, 24, 96, 96, false), nil, 0, 0, 0, "at every weekday hour: not by day"},
		{"too short", 128, hoursBusy(10, 3, 96, 128, false), nil, 0, 0, 0, "only on weekdays 10:00-13:00, under 4 hours in a row"},
		{"nights not different", 128, func(_ bool, h int) int {
			switch h {
			case 3, 4, 5, 6, 13, 20:
				return 128
			}
			return 96 // runs 07-13, 14-20, 21-03: the longest, first, 07-13
		}, nil, 0, 0, 0, "but so did 12 of the 18 other hours (within 4 processors): not by day only"},
		{"plateau among other levels", 128, func(weekday bool, h int) int {
			switch {
			case !weekday:
				return 128
			case h >= 9 && h < 20:
				return 96 // the plateau: 11 hours
			case h >= 3 && h < 9:
				return 64 // emptier, 6 hours: a shorter run
			}
			return 112 // nights: a level of their own
		}, nil, 9 * h, 11 * h, 32, ""},
		{"never enough", 128, hoursBusy(7, 12, 120, 128, false), nil, 0, 0, 0, "at no weekday hour"},
		{"threshold raised", 128, hoursBusy(7, 12, 96, 128, false), func(o *Options) { o.SharedDayFreeFrac = 0.3 }, 0, 0, 0, "at no weekday hour"},
		{"never looked for", 128, hoursBusy(7, 12, 96, 128, false), func(o *Options) { o.SharedDayFreeFrac = 0 }, 0, 0, 0, ""},
		{"queues a note only", 128, hoursBusy(7, 12, 96, 128, false), func(o *Options) { o.NonDedicatedNote = true }, 0, 0, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := Defaults()
			if tc.set != nil {
				tc.set(&opt)
			}
			r, err := Infer(sharedDayLog(tc.procs, tc.busy), opt)
			if err != nil {
				t.Fatal(err)
			}
			if !opt.NonDedicatedNote && (len(r.Shared) != 1 || r.Shared[0] != 1) {
				t.Fatalf("shared queues %v, want [1]", r.Shared)
			}
			var out bytes.Buffer
			if err := r.WriteTOML(&out, "synthetic.swf"); err != nil {
				t.Fatal(err)
			}
			checkTOML(t, out.Bytes(), r)
			note := strings.Join(r.Notes, "\n")
			if tc.cut == 0 {
				if len(r.SharedDay) > 0 || tc.note != "" && !strings.Contains(note, tc.note) || tc.note == "" && strings.Contains(note, "by day") {
					t.Errorf("found %+v; want none, and the note %q:\n%s", r.SharedDay, tc.note, note)
				}
				return
			}
			if len(r.SharedDay) != 1 {
				t.Fatalf("found %d reservations, want 1; notes:\n%s", len(r.SharedDay), note)
			}
			res := r.SharedDay[0]
			if res.Start != tc.start || res.DurationSec != tc.dur || res.Procs != tc.cut || res.Recur != "weekdays" || res.Name != "shared-day" {
				t.Errorf("reservation %s from %d for %d s, %d processors, %s; want from %d for %d s, %d processors, weekdays",
					res.Name, res.Start, res.DurationSec, res.Procs, res.Recur, tc.start, tc.dur, tc.cut)
			}
			if !strings.Contains(out.String(), "[[reservation]]\nname = \"shared-day\"\n") || !strings.Contains(out.String(), "recur = \"weekdays\"\nprocs = "+strconv.Itoa(tc.cut)+"\nmaint = true\n") ||
				strings.Contains(note, "by day") {
				t.Errorf("scenario:\n%s", out.String())
			}
		})
	}
}

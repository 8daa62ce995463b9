package infer

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// timeSharedLog is a synthetic log of a time-shared machine of 64
// processors (UTC, 60 days from a Monday): jobs of 4 to 64 processors in
// queues 1 and 2 start as soon as they are submitted, beside whatever
// runs (the recorded jobs hold more than the machine most of the time),
// except, when planted, that queue 1's jobs of more than 16 processors
// do not start from 19:00 to 07:00 (they wait for 07:00) and queue 2's
// jobs of fewer than 32 do not start on weekdays from 07:00 to 19:00
// (they wait for 19:00).
func timeSharedLog(t *testing.T, planted bool, seed uint64) *Log {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 16))
	const days = 60
	// 1994-10-03 was a Monday.
	epoch := time.Date(1994, 10, 3, 0, 0, 0, 0, time.UTC).Unix()
	l := &Log{Procs: 64, Name: "timeshared.swf", Zone: time.UTC, Epoch: epoch, HasCalendar: true}
	sizes := []int{4, 8, 16, 32, 64}
	var at int64
	for id := int64(1); ; id++ {
		at += int64(rng.ExpFloat64() * 300)
		if at >= days*86400 {
			break
		}
		q := 1 + rng.IntN(2)
		p := sizes[rng.IntN(len(sizes))]
		start := at
		day, sec := at/86400, at%86400
		weekday := day%7 < 5
		if planted {
			switch {
			case q == 1 && p > 16 && sec >= 19*3600:
				start = (day+1)*86400 + 7*3600
			case q == 1 && p > 16 && sec < 7*3600:
				start = day*86400 + 7*3600
			case q == 2 && p < 32 && weekday && sec >= 7*3600 && sec < 19*3600:
				start = day*86400 + 19*3600
			}
		}
		run := 600 + rng.Int64N(3*3600)
		l.Jobs = append(l.Jobs, Job{ID: id, Submit: workload.Time(at), Start: workload.Time(start), End: workload.Time(start + run),
			Procs: p, ReqTime: workload.Time(run + 600), User: 1 + rng.IntN(10), Queue: q})
	}
	return l
}

// TestInferSizeWindows: on a time-shared log, queue 1's night hours are
// found closed to its jobs of more than 16 processors (max_procs) and
// queue 2's weekday hours to its jobs of fewer than 32 (min_procs), and
// no other size window; without the planted rule none is found, nor on
// the same log read as space-shared (--time-share above 1), nor with
// --size-window-expected 0.
func TestInferSizeWindows(t *testing.T) {
	r, err := Infer(timeSharedLog(t, true, 3), Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimeShared {
		t.Fatal("the synthetic log is not found time-shared")
	}
	var out bytes.Buffer
	if err := r.WriteTOML(&out, "synthetic.swf"); err != nil {
		t.Fatal(err)
	}
	checkTOML(t, out.Bytes(), r)
	// covered[q][d][h]: a size window of queue q holds on day type d at
	// hour h.
	covered := map[int]*[2][24]bool{1: {}, 2: {}}
	for _, w := range r.Windows {
		switch {
		case w.Queue == 1 && w.MaxProcs == 16 && w.MinProcs == 0 && w.MaxWallSec == 0:
		case w.Queue == 2 && w.MinProcs == 32 && w.MaxProcs == 0 && w.MaxWallSec == 0 && w.Days == "Mon-Fri":
		default:
			t.Errorf("a window not planted: %+v", w)
			continue
		}
		d := 0
		if w.Days == "Sat,Sun" {
			d = 1
		}
		for h := w.FromHour; ; h = (h + 1) % 24 {
			covered[w.Queue][d][h] = true
			if (h+1)%24 == w.ToHour {
				break
			}
		}
	}
	for d := 0; d < 2; d++ {
		for _, h := range []int{20, 23, 2, 6} {
			if !covered[1][d][h] {
				t.Errorf("queue 1, day type %d, %02d:00: no size window\n%s", d, h, out.String())
			}
		}
		for _, h := range []int{9, 12, 15} {
			if covered[1][d][h] {
				t.Errorf("queue 1, day type %d, %02d:00: a size window in its open hours", d, h)
			}
		}
	}
	for _, h := range []int{8, 12, 18} {
		if !covered[2][0][h] {
			t.Errorf("queue 2, weekdays %02d:00: no size window\n%s", h, out.String())
		}
	}
	for _, h := range []int{20, 2} {
		if covered[2][0][h] {
			t.Errorf("queue 2, weekdays %02d:00: a size window in its open hours", h)
		}
	}
	if !strings.Contains(out.String(), "max_procs = 16\n") || !strings.Contains(out.String(), "min_procs = 32\n") {
		t.Errorf("the scenario does not write the size windows:\n%s", out.String())
	}

	none := func(name string, l *Log, opt Options) {
		t.Helper()
		r, err := Infer(l, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range r.Windows {
			if w.MaxProcs > 0 || w.MinProcs > 0 {
				t.Errorf("%s: a size window %+v", name, w)
			}
		}
	}
	none("not planted", timeSharedLog(t, false, 3), Defaults())
	spaceShared := Defaults()
	spaceShared.TimeShareFrac = 1.01
	none("space-shared", timeSharedLog(t, true, 3), spaceShared)
	off := Defaults()
	off.SizeWindowMinExpected = 0
	none("--size-window-expected 0", timeSharedLog(t, true, 3), off)
}

// TestInferNonDedicated: queue 2's jobs (32 of 64 processors, one at a
// time) fit the machine, queue 1's (64 each, six at once) overlap it: the
// machine is time-shared and queue 1 is non-dedicated, written as
// shared_queues; with --non-dedicated-note it is only said in a note, and
// with --non-dedicated 0 nothing is said.
func TestInferNonDedicated(t *testing.T) {
	l := &Log{Procs: 64, Name: "nd.swf", Zone: time.UTC}
	id := int64(0)
	for at := workload.Time(0); at < 10*86400; at += 600 {
		id++
		l.Jobs = append(l.Jobs, Job{ID: id, Submit: at, Start: at, End: at + 3600, Procs: 64, ReqTime: 3600, User: 1, Queue: 1})
		if at%3600 == 0 {
			id++
			l.Jobs = append(l.Jobs, Job{ID: id, Submit: at, Start: at, End: at + 3000, Procs: 32, ReqTime: 3600, User: 2, Queue: 2})
		}
	}
	for _, tc := range []struct {
		name       string
		set        func(*Options)
		shared     []int
		note, file string // in the notes, in the scenario ("" none)
	}{
		{"written", func(*Options) {}, []int{1}, "", "shared_queues = \"1\"\n"},
		{"note only", func(o *Options) { o.NonDedicatedNote = true }, nil, "non-dedicated queues: 1 (", ""},
		{"never", func(o *Options) { o.NonDedicatedFrac = 0 }, nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := Defaults()
			tc.set(&opt)
			r, err := Infer(l, opt)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := r.WriteTOML(&out, "synthetic.swf"); err != nil {
				t.Fatal(err)
			}
			checkTOML(t, out.Bytes(), r)
			note := strings.Join(r.Notes, "\n")
			if !r.TimeShared || !slices.Equal(r.Shared, tc.shared) {
				t.Errorf("time shared %v, shared queues %v, want %v", r.TimeShared, r.Shared, tc.shared)
			}
			if tc.note != "" && !strings.Contains(note, tc.note) || tc.note == "" && strings.Contains(note, "non-dedicated") {
				t.Errorf("notes, want %q:\n%s", tc.note, note)
			}
			if has := strings.Contains(out.String(), "\nshared_queues = "); has != (tc.file != "") || !strings.Contains(out.String(), tc.file) {
				t.Errorf("scenario, want %q:\n%s", tc.file, out.String())
			}
		})
	}
}

package workload

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseLatency(t *testing.T) {
	h := &Header{Fields: []HeaderField{{Key: "Queue", Value: "2 batch"}, {Key: "Queue", Value: "7 debug"}}}
	for _, tc := range []struct {
		name, in string
		want     Latency
		str      string
		err      string // a part of the error message; "" for none
	}{
		{name: "empty", in: "", want: Latency{}, str: ""},
		{name: "blank", in: "  ", want: Latency{}, str: ""},
		{name: "default", in: "15s", want: Latency{Default: 15}, str: "15s"},
		{name: "bare seconds", in: "15", want: Latency{Default: 15}, str: "15s"},
		{name: "minutes", in: "2m", want: Latency{Default: 120}, str: "120s"},
		{name: "a day", in: "1d", want: Latency{Default: 86400}, str: "86400s"},
		{name: "queues", in: "2s, 2=4s,-1=0,13 = 3s", want: Latency{Default: 2, Queues: []QueueLatency{{2, 4}, {-1, 0}, {13, 3}}}, str: "2s,2=4s,-1=0s,13=3s"},
		{name: "queue only", in: "7=1m", want: Latency{Queues: []QueueLatency{{7, 60}}}, str: "0s,7=60s"},
		{name: "queue names", in: "batch=4s,debug=0s,1s", want: Latency{Default: 1, Queues: []QueueLatency{{2, 4}, {7, 0}}}, str: "1s,2=4s,7=0s"},
		{name: "over a day", in: "86401", err: "from 0 to a day"},
		{name: "negative", in: "-1s", err: `"-1s": want a delay`},
		{name: "fraction", in: "1.5s", err: "want a delay"},
		{name: "empty entry", in: "1s,,2=3s", err: `"": want a delay`},
		{name: "two defaults", in: "1s,2s", err: "given twice"},
		{name: "queue twice", in: "2=1s,batch=3s", err: "queue 2 is given twice"},
		{name: "no queue", in: " =1s", err: "no queue before ="},
		{name: "bad queue", in: "-3=1s", err: "want a queue number ≥ 0"},
		{name: "unknown name", in: "fast=1s", err: `"fast" is not a number`},
		{name: "no delay", in: "2=", err: `"2=": want a delay`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLatency(tc.in, h)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrLatency) {
					t.Fatalf("err %v, want one wrapping ErrLatency containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Default != tc.want.Default || !slices.Equal(got.Queues, tc.want.Queues) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if s := got.String(); s != tc.str {
				t.Errorf("String() = %q, want %q", s, tc.str)
			}
		})
	}
}

func TestLatencyOf(t *testing.T) {
	l := Latency{Default: 5, Queues: []QueueLatency{{2, 0}, {-1, 9}}}
	for q, want := range map[int]Time{1: 5, 2: 0, -1: 9, 30: 5} {
		if got := l.Of(q); got != want {
			t.Errorf("queue %d: %d, want %d", q, got, want)
		}
	}
	for _, tc := range []struct {
		l    Latency
		zero bool
	}{{Latency{}, true}, {Latency{Queues: []QueueLatency{{2, 0}}}, true}, {Latency{Queues: []QueueLatency{{2, 1}}}, false}, {Latency{Default: 1}, false}} {
		if tc.l.Zero() != tc.zero {
			t.Errorf("%+v: Zero() = %v, want %v", tc.l, !tc.zero, tc.zero)
		}
	}
}

// TestLatencyHold: a job's Hold Until becomes at least its submission
// plus its queue's latency; a hold of its own (a Parquet column, a
// filter) that ends later stays.
func TestLatencyHold(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Latency
		tick int64
		own  Time // job 2's own Hold Until, in the run's ticks
		want map[int64]Time
	}{
		{name: "default", l: Latency{Default: 4}, tick: 1, want: map[int64]Time{1: 4, 2: 9, 3: 13}},
		{name: "per queue", l: Latency{Default: 4, Queues: []QueueLatency{{2, 0}, {3, 1}}}, tick: 1, want: map[int64]Time{1: 4, 2: 0, 3: 10}},
		{name: "own hold later", l: Latency{Default: 4}, tick: 1, own: 50, want: map[int64]Time{1: 4, 2: 50, 3: 13}},
		{name: "own hold sooner", l: Latency{Default: 4}, tick: 1, own: 7, want: map[int64]Time{1: 4, 2: 9, 3: 13}},
		// The run's times in ms (as for a Batsim workload): the latency
		// is given in seconds.
		{name: "milliseconds", l: Latency{Default: 4}, tick: 1000, want: map[int64]Time{1: 4000, 2: 4005, 3: 4009}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := map[int64]Time{1: 0, 2: 5, 3: 9}
			for id := int64(1); id <= 3; id++ {
				j := Job{ID: id, Submit: sub[id], Queue: int(id)}
				if id == 2 {
					j.HoldUntil = tc.own
				}
				tc.l.Hold(&j, tc.tick)
				if j.HoldUntil != tc.want[id] {
					t.Errorf("job %d (submitted at %d): Hold Until %d, want %d", id, j.Submit, j.HoldUntil, tc.want[id])
				}
			}
		})
	}
	// A submission so late that the hold would pass MaxTime: none.
	j := Job{ID: 9, Submit: MaxTime - 2}
	Latency{Default: 4}.Hold(&j, 1)
	if j.HoldUntil != 0 {
		t.Errorf("submitted at MaxTime-2: Hold Until %d, want none", j.HoldUntil)
	}
}

// FuzzParseLatency: any input gives a latency or an error wrapping
// ErrLatency, never a panic; what it accepts, written back, reads the
// same.
func FuzzParseLatency(f *testing.F) {
	for _, s := range []string{"", "15s", "2s,2=4s,6=0", "batch=1m", "1s,1s", "=", ",", "-1=-1", "1d,3=86400"} {
		f.Add(s)
	}
	h := &Header{Fields: []HeaderField{{Key: "Queue", Value: "2 batch"}}}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLatency(s, h)
		if err != nil {
			if !errors.Is(err, ErrLatency) {
				t.Fatalf("%q: %v, want an error wrapping ErrLatency", s, err)
			}
			return
		}
		back, err := ParseLatency(l.String(), nil)
		if err != nil || back.Default != l.Default || !slices.Equal(back.Queues, l.Queues) {
			t.Fatalf("%q written back as %q: %+v, %v, want %+v", s, l.String(), back, err, l)
		}
	})
}

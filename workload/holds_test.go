package workload

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestParseHolds(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Holds
		err      string // a part of the error message; "" for none
	}{
		{name: "empty", in: "", want: Holds{}},
		{name: "comments and blanks", in: "# held jobs\n\n  # more\n", want: Holds{}},
		{name: "two jobs", in: "12 3600\n7\t100\n", want: Holds{12: 3600, 7: 100}},
		{name: "spaces around", in: "  12   3600  \n", want: Holds{12: 3600}},
		{name: "one field", in: "12\n", err: "h.txt:1: bad holds file: want two fields"},
		{name: "three fields", in: "# c\n12 3 4\n", err: "h.txt:2: bad holds file: want two fields, JOB HOLD_UNTIL, got 3"},
		{name: "bad job", in: "x 3\n", err: `h.txt:1: column "job"`},
		{name: "negative job", in: "-1 3\n", err: `column "job"`},
		{name: "fraction", in: "1 3.5\n", err: `h.txt:1: column "hold_until"`},
		{name: "negative time", in: "1 -3\n", err: `column "hold_until"`},
		{name: "beyond MaxTime", in: "1 99999999999999999\n", err: `column "hold_until"`},
		{name: "twice", in: "1 3\n1 4\n", err: `h.txt:2: column "job": bad holds file: job 1 is held twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseHolds(strings.NewReader(tc.in), "h.txt")
			if tc.err != "" {
				var pe *ParseError
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &pe) || !errors.Is(err, ErrHolds) {
					t.Fatalf("err %v, want a *ParseError wrapping ErrHolds containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for id, at := range tc.want {
				if got[id] != at {
					t.Errorf("job %d: %d, want %d", id, got[id], at)
				}
			}
		})
	}
}

func TestWithHolds(t *testing.T) {
	in := "; MaxProcs: 4\n" +
		"1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n" +
		"2 5 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n" +
		"3 9 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"
	for _, tc := range []struct {
		name    string
		holds   Holds
		tick    int64
		want    map[int64]Time
		applied int64
	}{
		{name: "none", holds: Holds{}, tick: 1, want: map[int64]Time{1: 0, 2: 0, 3: 0}},
		{name: "later and unknown jobs", holds: Holds{2: 100, 9: 50}, tick: 1, want: map[int64]Time{1: 0, 2: 100, 3: 0}, applied: 1},
		{name: "at or before submission", holds: Holds{2: 5, 3: 1}, tick: 1, want: map[int64]Time{1: 0, 2: 0, 3: 0}},
		{name: "milliseconds", holds: Holds{3: 20}, tick: 1000, want: map[int64]Time{1: 0, 2: 0, 3: 20000}, applied: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd, err := NewReader(strings.NewReader(in), "h.swf", Rules{})
			if err != nil {
				t.Fatal(err)
			}
			hr := WithHolds(rd, tc.holds, tc.tick)
			jobs, err := readEvery(hr)
			if !errors.Is(err, io.EOF) || len(jobs) != 3 || hr.Applied != tc.applied {
				t.Fatalf("%d jobs, %d held, %v; want 3, %d and EOF", len(jobs), hr.Applied, err, tc.applied)
			}
			for _, j := range jobs {
				if j.HoldUntil != tc.want[j.ID] {
					t.Errorf("job %d: Hold Until %d, want %d", j.ID, j.HoldUntil, tc.want[j.ID])
				}
			}
		})
	}
}

// FuzzParseHolds: any input gives holds or a *ParseError, never a panic;
// what it accepts, written back, reads the same.
func FuzzParseHolds(f *testing.F) {
	for _, s := range []string{"", "1 2\n", "# c\n3 4\n5\t6", "1 2 3", "x y", "1 1\n1 2\n", "-0 0\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHolds(strings.NewReader(s), "f")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%q: %T %v, want a *ParseError", s, err, err)
			}
			return
		}
		var b strings.Builder
		for id, at := range h {
			b.WriteString(strconv.FormatInt(id, 10) + " " + strconv.FormatInt(int64(at), 10) + "\n")
		}
		h2, err := ParseHolds(strings.NewReader(b.String()), "f")
		if err != nil || len(h2) != len(h) {
			t.Fatalf("%q written back as %q: %v, %d holds, want %d", s, b.String(), err, len(h2), len(h))
		}
		for id, at := range h {
			if h2[id] != at {
				t.Fatalf("job %d: %d, then %d", id, at, h2[id])
			}
		}
	})
}

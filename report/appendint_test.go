package report

import (
	"math"
	"strconv"
	"testing"
)

func TestAppendInt(t *testing.T) {
	for _, v := range []int64{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, 99999, 100000,
		1234567, 1<<31 - 1, 1 << 40, math.MaxInt64, -1, -10, -12345, math.MinInt64} {
		if got, want := string(appendInt([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Errorf("appendInt(%d) = %q, want %q", v, got, want)
		}
	}
	// Every digit count, at both sides of each power of ten, into a
	// slice with and without room to spare.
	for p := int64(10); p > 0 && p <= math.MaxInt64/10; p *= 10 {
		for _, v := range []int64{p - 1, p, p + 1} {
			for _, b := range [][]byte{nil, make([]byte, 0, 64)} {
				if got, want := string(appendInt(b, v)), strconv.FormatInt(v, 10); got != want {
					t.Errorf("appendInt(%d) = %q, want %q", v, got, want)
				}
			}
		}
	}
}

func TestAppendStretch(t *testing.T) {
	cases := []struct {
		turnaround, exec int64
		want             string
	}{
		{100, 100, "1"},
		{300, 100, "3"},
		{150, 100, "1.5"},
		{10, 3, "3.3333333333333335"},
		{999999, 1, "999999"},
		{1000000, 1, "1e+06"},
		{2000000, 2, "1e+06"},
		{1234567, 1, "1.234567e+06"},
	}
	for _, c := range cases {
		if got := string(appendStretch(nil, c.turnaround, c.exec)); got != c.want {
			t.Errorf("appendStretch(%d, %d) = %q, want %q", c.turnaround, c.exec, got, c.want)
		}
	}
}

// FuzzAppendStretch checks appendStretch against strconv on any operands.
func FuzzAppendStretch(f *testing.F) {
	f.Add(int64(100), int64(100))
	f.Add(int64(7), int64(3))
	f.Add(int64(3000000), int64(3))
	f.Fuzz(func(t *testing.T, turnaround, exec int64) {
		if exec <= 0 {
			return
		}
		want := strconv.AppendFloat(nil, float64(turnaround)/float64(exec), 'g', -1, 64)
		if got := appendStretch(nil, turnaround, exec); string(got) != string(want) {
			t.Fatalf("appendStretch(%d, %d) = %q, want %q", turnaround, exec, got, want)
		}
		if got, want := appendInt(nil, turnaround), strconv.AppendInt(nil, turnaround, 10); string(got) != string(want) {
			t.Fatalf("appendInt(%d) = %q, want %q", turnaround, got, want)
		}
	})
}

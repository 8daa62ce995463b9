package schedsim

import (
	"testing"

	"github.com/schedsim/schedsim/report"
)

// TestParseTicks reads jobs.csv's times in the run's unit.
func TestParseTicks(t *testing.T) {
	for _, tc := range []struct {
		in   string
		tps  int64
		want int64
		ok   bool
	}{
		{"88", 1, 88, true}, {"88.5", 1, 0, false}, {"88.510", 1000, 88510, true}, {"88.51", 1000, 88510, true},
		{"0.000001", 1_000_000, 1, true}, {"1.0000001", 1_000_000, 0, false}, {"-1", 1, 0, false}, {"+1", 1, 0, false},
		{"1.", 1000, 0, false}, {"1.-5", 1000, 0, false}, {"", 1000, 0, false}, {"9223372036854775807", 1000, 0, false},
	} {
		got, ok := parseTicks(tc.in, tc.tps)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseTicks(%q, %d) = %d, %v; want %d, %v", tc.in, tc.tps, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParseTicks: parseTicks never panics, and reads back every time
// report.AppendTicks writes.
func FuzzParseTicks(f *testing.F) {
	for _, s := range []string{"0", "88.510", "1.000001", "-3", "1e3", "12.", ".5"} {
		f.Add(s, int64(1000))
	}
	f.Fuzz(func(t *testing.T, s string, tps int64) {
		switch tps % 3 {
		case 0:
			tps = 1
		case 1, -1:
			tps = 1000
		default:
			tps = 1_000_000
		}
		v, ok := parseTicks(s, tps)
		if !ok {
			return
		}
		if v < 0 {
			t.Fatalf("%q: %d < 0", s, v)
		}
		if again, ok := parseTicks(string(report.AppendTicks(nil, v, tps)), tps); !ok || again != v {
			t.Fatalf("%q: %d, written and read again %d (%v)", s, v, again, ok)
		}
	})
}

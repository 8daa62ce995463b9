package report

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/schedsim/schedsim/workload"
)

func TestSpearman(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
		ok   bool
	}{
		{"increasing", []float64{1, 2, 3}, []float64{10, 20, 30}, 1, true},
		{"decreasing", []float64{1, 2, 3}, []float64{30, 20, 5}, -1, true},
		{"monotone, not linear", []float64{1, 2, 3, 4}, []float64{1, 10, 100, 1000}, 1, true},
		// No ties: 1 - 6 Σd² / (n (n² - 1)) = 1 - 6·194/990.
		{"textbook ten", []float64{106, 86, 100, 101, 99, 103, 97, 113, 112, 110},
			[]float64{7, 0, 27, 50, 28, 29, 20, 12, 6, 17}, 1 - 6*194.0/990, true},
		// x ranks 1, 2.5, 2.5, 4 against 1..4: Σdxdy = 4.5, Σdx² = 4.5,
		// Σdy² = 5, ρ = 4.5 / √22.5.
		{"ties in x", []float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}, 4.5 / math.Sqrt(22.5), true},
		// Ranks 1.5 1.5 3.5 3.5 against 1.5 3.5 1.5 3.5: no relation.
		{"ties on both sides", []float64{1, 1, 2, 2}, []float64{1, 2, 1, 2}, 0, true},
		// x ranks 2, 2, 2, 4 (three tied): dx = -0.5, -0.5, -0.5, 1.5;
		// y 1..4: dy = -1.5, -0.5, 0.5, 1.5; Σdxdy = 0.75+0.25-0.25+2.25
		// = 3, Σdx² = 3, Σdy² = 5.
		{"three tied", []float64{0, 0, 0, 9}, []float64{1, 2, 3, 4}, 3 / math.Sqrt(15), true},
		{"constant side", []float64{5, 5, 5}, []float64{1, 2, 3}, 0, false},
		{"one pair", []float64{1}, []float64{2}, 0, false},
		{"empty", nil, nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Spearman(tc.x, tc.y)
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Spearman = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestRanks(t *testing.T) {
	for _, tc := range []struct {
		x, want []float64
	}{
		{[]float64{3, 1, 3, 2}, []float64{3.5, 1, 3.5, 2}},
		{[]float64{7, 7, 7}, []float64{2, 2, 2}},
		{[]float64{0, 5, 1, 5, 5}, []float64{1, 4, 2, 4, 4}},
		{nil, []float64{}},
	} {
		if got := Ranks(tc.x); !slices.Equal(got, tc.want) {
			t.Errorf("Ranks(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
}

func TestToleranceWithin(t *testing.T) {
	tol := DefaultTolerance // max(600 s, 50 %)
	for _, tc := range []struct {
		rec, sim workload.Time
		want     bool
	}{
		{0, 0, true},
		{0, 600, true},     // the absolute slack
		{0, 601, false},    // just past it
		{1000, 1600, true}, // 600 > 50 % of 1000
		{1000, 400, true},
		{1000, 399, false},
		{3600, 5400, true}, // 50 % of 3600 = 1800
		{3600, 5401, false},
		{3600, 1800, true},
		{3600, 1799, false},
	} {
		if got := tol.Within(tc.rec, tc.sim); got != tc.want {
			t.Errorf("Within(%d, %d) = %v, want %v", tc.rec, tc.sim, got, tc.want)
		}
	}
	strict := Tolerance{AbsSec: 0, Rel: 0.1}
	if !strict.Within(100, 110) || strict.Within(100, 111) || strict.Within(0, 1) {
		t.Error("a relative tolerance of 10 % alone is wrong")
	}
}

// TestFidelityClasses checks the class breakdown of a hand-made set of
// jobs: which classes appear, in which order, with which counts and
// means.
func TestFidelityClasses(t *testing.T) {
	cal := &Calendar{Epoch: time.Date(2024, 1, 30, 0, 0, 0, 0, time.UTC).Unix(), Loc: time.UTC}
	day := workload.Time(86400)
	jobs := []FidelityJob{
		{ID: 1, Submit: 0, Procs: 1, ReqTime: 300, Queue: 2, User: 9, RunSec: 100, Recorded: 0, Simulated: 60},
		{ID: 2, Submit: 1 * day, Procs: 8, ReqTime: 7200, Queue: 1, User: 9, RunSec: 100, Recorded: 3600, Simulated: 1800},
		{ID: 3, Submit: 3 * day, Procs: 100, ReqTime: -1, Queue: -1, User: 4, RunSec: 10, Recorded: 100, Simulated: 100},
		{ID: 4, Submit: 3 * day, Procs: 3, ReqTime: 36000, Queue: 1, User: 4, RunSec: 5, Recorded: 200, Simulated: 5000},
	}
	f := NewFidelity(jobs, cal, DefaultTolerance)
	type row struct {
		by, class string
		jobs      int
		recMean   float64
		simMean   float64
		within    float64
	}
	var got []row
	for _, c := range f.Classes {
		got = append(got, row{c.By, c.Class, c.Jobs, c.RecordedMeanWait, c.SimulatedMeanWait, c.WithinTolerance})
	}
	want := []row{
		{"size", "1", 1, 0, 60, 1},
		{"size", "2-4", 1, 200, 5000, 0},
		{"size", "5-16", 1, 3600, 1800, 1},
		{"size", ">64", 1, 100, 100, 1},
		{"requested_time", "<10m", 1, 0, 60, 1},
		{"requested_time", "1h-10h", 1, 3600, 1800, 1},
		{"requested_time", ">=10h", 1, 200, 5000, 0},
		{"requested_time", "none", 1, 100, 100, 1},
		{"queue", "unknown", 1, 100, 100, 1},
		{"queue", "1", 2, 1900, 3400, 0.5},
		{"queue", "2", 1, 0, 60, 1},
		// Both users have two jobs: the lower id first.
		{"user", "user 4", 2, 150, 2550, 0.5},
		{"user", "user 9", 2, 1800, 930, 1},
		{"month", "2024-01", 2, 1800, 930, 1},
		{"month", "2024-02", 2, 150, 2550, 0.5},
	}
	if !slices.Equal(got, want) {
		t.Errorf("classes:\n got %v\nwant %v", got, want)
	}
	o := f.Overall
	if o.Jobs != 4 || o.RecordedMeanWait != 975 || o.SimulatedMeanWait != 1740 || o.RecordedMedianWait != 150 || o.SimulatedMedianWait != 950 || o.WithinTolerance != 0.75 {
		t.Errorf("overall %+v", o)
	}
	// Bounded slowdowns: recorded max(1, (0+100)/100)=1, (3600+100)/100=37,
	// (100+10)/10=11, (200+5)/10=20.5 → mean 17.375.
	if math.Abs(o.RecordedMeanBoundedSlowdown-17.375) > 1e-12 {
		t.Errorf("recorded mean bounded slowdown %v, want 17.375", o.RecordedMeanBoundedSlowdown)
	}
	if o.MeanWaitRatio == nil || math.Abs(*o.MeanWaitRatio-1740.0/975) > 1e-12 {
		t.Errorf("mean wait ratio %v", o.MeanWaitRatio)
	}
	// 2024-01-30 is a Tuesday: its week starts Monday 29 January; jobs 3
	// and 4 (1 February, Thursday) are in the same week.
	if len(f.Weeks) != 1 || f.Weeks[0].From != -day || f.Weeks[0].Jobs != 4 {
		t.Errorf("weeks %+v", f.Weeks)
	}
}

// TestFidelityTopUsers checks that only the users with the most jobs get
// a class of their own.
func TestFidelityTopUsers(t *testing.T) {
	var jobs []FidelityJob
	for u := 0; u < FidelityTopUsers+3; u++ {
		for k := 0; k <= u; k++ {
			jobs = append(jobs, FidelityJob{ID: int64(len(jobs)), User: u, Procs: 1, RunSec: 1, Recorded: 1, Simulated: 1})
		}
	}
	f := NewFidelity(jobs, nil, DefaultTolerance)
	var users []string
	for _, c := range f.Classes {
		if c.By == "user" {
			users = append(users, c.Class)
		}
	}
	if len(users) != FidelityTopUsers+1 || users[0] != "user 12" || users[len(users)-1] != "other" {
		t.Errorf("user classes %v", users)
	}
	// Without a calendar, months are 30-day periods from time 0.
	for _, c := range f.Classes {
		if c.By == "month" && c.Class != "days 0-29" {
			t.Errorf("month class %q", c.Class)
		}
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// TestMetricsTiny checks tinyRun's summary against values worked out by hand.
//
// Ran: jobs 1, 4, 2, 5, 6 with waits 0, 70, 90, 0, 955 (sorted 0 0 70 90 955),
// runs 100, 5, 360, 1000, 10, responses 100, 75, 450, 1000, 965.
// Bounded slowdowns: 100/100=1, 75/10=7.5, 450/360=1.25, 1, 965/10=96.5.
// Σ procs·run = 400+5+1800+2000+80 = 4285 over 8 · (1015−0).
func TestMetricsTiny(t *testing.T) {
	m := NewMetrics()
	replay(tinyRun(), m)
	got := m.Summary("tiny.swf", "easy", tinyProcs, tinyStats, tinyCleaning)
	want := withClassNames(Summary{
		Trace: "tiny.swf", Policy: "easy", Procs: 8,
		Jobs: 6, Started: 5, Completed: 4, Killed: 1, Rejected: 1,
		Wait:                WaitStats{Mean: 223, Median: 70, P90: 955, P95: 955, P99: 955, Max: 955},
		MeanBoundedSlowdown: 107.25 / 5,
		BoundedSlowdown:     Dist{Mean: 107.25 / 5, Median: 1.25, P90: 96.5, P95: 96.5, P99: 96.5, Max: 96.5},
		MeanResponse:        518,
		Utilisation:         4285.0 / 8120,
		MakespanSec:         1015,
		FirstSubmit:         0,
		LastEnd:             1015,
		ThroughputPerHour:   5 * 3600.0 / 1015,
		Cleaning:            tinyCleaning,
		Passes:              7,
		MaxQueue:            3,
	})
	// Classes (size by processors; runtime by actual run):
	//   job 1: 4 procs, 100 s  → 2-4 × <10m, wait 0,   bsld 1
	//   job 4: 1 proc,  5 s    → 1 × <10m,   wait 70,  bsld 7.5
	//   job 2: 5 procs, 360 s  → 5-16 × <10m, wait 90, bsld 1.25, killed
	//   job 5: 2 procs, 1000 s → 2-4 × 10m-1h, wait 0, bsld 1
	//   job 6: 8 procs, 10 s   → 5-16 × <10m, wait 955, bsld 96.5
	cls := func(c *ClassStats, jobs, killed int64, w, b Dist) {
		c.Jobs, c.Killed, c.Wait, c.BoundedSlowdown = jobs, killed, w, b
	}
	one := func(v float64) Dist { return Dist{v, v, v, v, v, v} }
	cls(&want.BySize[0], 1, 0, one(70), one(7.5))
	cls(&want.BySize[1], 2, 0, one(0), one(1))
	cls(&want.BySize[2], 2, 1, Dist{522.5, 90, 955, 955, 955, 955}, Dist{48.875, 1.25, 96.5, 96.5, 96.5, 96.5})
	cls(&want.ByRuntime[0], 4, 1, Dist{278.75, 70, 955, 955, 955, 955}, Dist{106.25 / 4, 1.25, 96.5, 96.5, 96.5, 96.5})
	cls(&want.ByRuntime[1], 1, 0, one(0), one(1))
	cls(&want.BySizeRuntime[0][0], 1, 0, one(70), one(7.5))
	cls(&want.BySizeRuntime[1][0], 1, 0, one(0), one(1))
	cls(&want.BySizeRuntime[1][1], 1, 0, one(0), one(1))
	want.BySizeRuntime[2][0] = want.BySize[2]
	want.BySizeRuntime[2][0].Runtime = RuntimeClassNames[0]
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary\n got %+v\nwant %+v", got, want)
	}
	if again := m.Summary("tiny.swf", "easy", tinyProcs, tinyStats, tinyCleaning); !reflect.DeepEqual(again, got) {
		t.Errorf("second Summary differs:\n%+v\n%+v", again, got)
	}
}

// withClassNames returns s with the class names set in its class tables
// and the version of schedsim, as Summary sets them.
func withClassNames(s Summary) Summary {
	s.SchedsimVersion = workload.Version()
	for i := range s.BySize {
		s.BySize[i].Size = SizeClassNames[i]
		for k := range s.BySizeRuntime[i] {
			s.BySizeRuntime[i][k].Size = SizeClassNames[i]
			s.BySizeRuntime[i][k].Runtime = RuntimeClassNames[k]
		}
	}
	for k := range s.ByRuntime {
		s.ByRuntime[k].Runtime = RuntimeClassNames[k]
	}
	return s
}

func TestClasses(t *testing.T) {
	for _, tc := range []struct {
		name      string
		procs     int
		run       workload.Time
		size, rtc int
	}{
		{"serial short", 1, 1, 0, 0},
		{"2 procs just under 10 min", 2, 599, 1, 0},
		{"4 procs at 10 min", 4, 600, 1, 1},
		{"5 procs under an hour", 5, 3599, 2, 1},
		{"16 procs at an hour", 16, 3600, 2, 2},
		{"17 procs under 10 h", 17, 35999, 3, 2},
		{"64 procs at 10 h", 64, 36000, 3, 3},
		{"65 procs, days", 65, 5 * 86400, 4, 3},
		{"zero procs counts as serial", 0, 10, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SizeClass(tc.procs); got != tc.size {
				t.Errorf("SizeClass(%d) = %d, want %d", tc.procs, got, tc.size)
			}
			if got := RuntimeClass(tc.run); got != tc.rtc {
				t.Errorf("RuntimeClass(%d) = %d, want %d", tc.run, got, tc.rtc)
			}
		})
	}
}

func TestWaitPercentiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		waits []workload.Time
		want  WaitStats
	}{
		{"one", []workload.Time{7}, WaitStats{Mean: 7, Median: 7, P90: 7, P95: 7, P99: 7, Max: 7}},
		{"two: lower median", []workload.Time{10, 0}, WaitStats{Mean: 5, Median: 0, P90: 10, P95: 10, P99: 10, Max: 10}},
		{"four", []workload.Time{4, 1, 3, 2}, WaitStats{Mean: 2.5, Median: 2, P90: 4, P95: 4, P99: 4, Max: 4}},
		// 20 waits 1..20: median rank 10, p90 ⌈18⌉, p95 ⌈19⌉, p99 ⌈19.8⌉ = 20.
		{"twenty", seq(20), WaitStats{Mean: 10.5, Median: 10, P90: 18, P95: 19, P99: 20, Max: 20}},
		// 21 waits 1..21: median ⌈10.5⌉ = 11, p90 ⌈18.9⌉ = 19, p95 ⌈19.95⌉ = 20, p99 ⌈20.79⌉ = 21.
		{"twenty-one", seq(21), WaitStats{Mean: 11, Median: 11, P90: 19, P95: 20, P99: 21, Max: 21}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMetrics()
			for i, w := range tc.waits {
				j := &workload.Job{ID: int64(i), Submit: 100, Procs: 1, Run: 1, Estimate: workload.Unknown}
				m.JobDone(&sim.Record{Job: j, State: sim.Completed, Start: 100 + w, End: 101 + w})
			}
			if got := m.Summary("", "", 1, sim.Stats{}, workload.CleanStats{}).Wait; got != tc.want {
				t.Errorf("waits %v: got %+v, want %+v", tc.waits, got, tc.want)
			}
		})
	}
}

func seq(n int) []workload.Time {
	out := make([]workload.Time, n)
	for i := range out {
		out[n-1-i] = workload.Time(i + 1) // descending, so Summary must sort
	}
	return out
}

func TestBoundedSlowdown(t *testing.T) {
	for _, tc := range []struct {
		name      string
		wait, run workload.Time
		want      float64
	}{
		{"short job counts as tau", 15, 2, 17.0 / 10},
		{"short job without wait is at least 1", 0, 3, 1},
		{"long job", 30, 20, 50.0 / 20},
		{"exactly tau", 10, 10, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMetrics()
			j := &workload.Job{Submit: 0, Procs: 1, Run: tc.run, Estimate: workload.Unknown}
			m.JobDone(&sim.Record{Job: j, State: sim.Completed, Start: tc.wait, End: tc.wait + tc.run})
			if got := m.Summary("", "", 1, sim.Stats{}, workload.CleanStats{}).MeanBoundedSlowdown; got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEmptyRun checks that a run where no job ran has zeros, not NaN, and
// still encodes as JSON.
func TestEmptyRun(t *testing.T) {
	rejected := &workload.Job{ID: 1, Submit: 50, Procs: 100, Run: 10}
	for _, tc := range []struct {
		name string
		recs []sim.Record
		want Summary
	}{
		{"no jobs", nil, withClassNames(Summary{Trace: "t", Policy: "p", Procs: 4})},
		{"only rejected", []sim.Record{{Job: rejected, State: sim.Rejected, Start: 50, End: 50, Reason: "too big"}},
			withClassNames(Summary{Trace: "t", Policy: "p", Procs: 4, Jobs: 1, Rejected: 1})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMetrics()
			replay(tc.recs, m)
			s := m.Summary("t", "p", 4, sim.Stats{}, workload.CleanStats{})
			if !reflect.DeepEqual(s, tc.want) {
				t.Errorf("got %+v, want %+v", s, tc.want)
			}
			var buf bytes.Buffer
			if err := WriteSummaryJSON(&buf, &s); err != nil {
				t.Fatal(err)
			}
			var back Summary
			if err := json.Unmarshal(buf.Bytes(), &back); err != nil || !reflect.DeepEqual(back, s) {
				t.Errorf("JSON round trip: %v, got %+v", err, back)
			}
			buf.Reset()
			if err := WriteSummaryTable(&buf, &s); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(buf.String(), "cleaning") {
				t.Errorf("table shows cleaning counts, all zero:\n%s", buf.String())
			}
		})
	}
}

type countObserver struct {
	name string
	log  *[]string
}

func (c countObserver) JobDone(r *sim.Record) { *c.log = append(*c.log, c.name) }

func (c countObserver) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds} }

func (c countObserver) Observe(e *sim.Event) { c.JobDone(e.Record) }

func TestObserversOrder(t *testing.T) {
	var log []string
	obs := Observers{countObserver{"a", &log}, countObserver{"b", &log}}
	replay(tinyRun()[:2], obs)
	if got := strings.Join(log, " "); got != "a b a b" {
		t.Errorf("calls = %q, want %q", got, "a b a b")
	}
}

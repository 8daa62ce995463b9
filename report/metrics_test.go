package report

import (
	"bytes"
	"encoding/json"
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
	want := Summary{
		Trace: "tiny.swf", Policy: "easy", Procs: 8,
		Jobs: 6, Started: 5, Completed: 4, Killed: 1, Rejected: 1,
		Wait:                WaitStats{Mean: 223, Median: 70, P95: 955, Max: 955},
		MeanBoundedSlowdown: 107.25 / 5,
		MeanResponse:        518,
		Utilisation:         4285.0 / 8120,
		MakespanSec:         1015,
		FirstSubmit:         0,
		LastEnd:             1015,
		Cleaning:            tinyCleaning,
		Passes:              7,
		MaxQueue:            3,
	}
	if got != want {
		t.Errorf("summary\n got %+v\nwant %+v", got, want)
	}
	if again := m.Summary("tiny.swf", "easy", tinyProcs, tinyStats, tinyCleaning); again != got {
		t.Errorf("second Summary differs:\n%+v\n%+v", again, got)
	}
}

func TestWaitPercentiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		waits []workload.Time
		want  WaitStats
	}{
		{"one", []workload.Time{7}, WaitStats{7, 7, 7, 7}},
		{"two: lower median", []workload.Time{10, 0}, WaitStats{5, 0, 10, 10}},
		{"four", []workload.Time{4, 1, 3, 2}, WaitStats{2.5, 2, 4, 4}},
		// 20 waits 1..20: p95 rank ⌈19⌉ = 19, median rank 10.
		{"twenty", seq(20), WaitStats{10.5, 10, 19, 20}},
		// 21 waits 1..21: p95 rank ⌈19.95⌉ = 20, median rank ⌈10.5⌉ = 11.
		{"twenty-one", seq(21), WaitStats{11, 11, 20, 21}},
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
		{"no jobs", nil, Summary{Trace: "t", Policy: "p", Procs: 4}},
		{"only rejected", []sim.Record{{Job: rejected, State: sim.Rejected, Start: 50, End: 50, Reason: "too big"}},
			Summary{Trace: "t", Policy: "p", Procs: 4, Jobs: 1, Rejected: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMetrics()
			replay(tc.recs, m)
			s := m.Summary("t", "p", 4, sim.Stats{}, workload.CleanStats{})
			if s != tc.want {
				t.Errorf("got %+v, want %+v", s, tc.want)
			}
			var buf bytes.Buffer
			if err := WriteSummaryJSON(&buf, &s); err != nil {
				t.Fatal(err)
			}
			var back Summary
			if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back != s {
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

func TestObserversOrder(t *testing.T) {
	var log []string
	obs := Observers{countObserver{"a", &log}, countObserver{"b", &log}}
	replay(tinyRun()[:2], obs)
	if got := strings.Join(log, " "); got != "a b a b" {
		t.Errorf("calls = %q, want %q", got, "a b a b")
	}
}

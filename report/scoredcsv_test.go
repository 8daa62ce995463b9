package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

func TestScoreDJobsCSVRows(t *testing.T) {
	job := &workload.Job{ID: 7, Submit: 0, Procs: 4, Run: 100, Estimate: workload.Unknown}
	for _, tc := range []struct {
		name string
		rec  sim.Record
		want string
	}{
		// Issue 22 item 15: the stretch is turnaround / CPU time
		// received (220 / 100), as the bounded slowdown counts it, not
		// turnaround / (end − start) = 1.
		{"gang, suspended and demoted",
			sim.Record{Job: job, State: sim.Completed, Start: 0, End: 220, ScoreD: true, Queue: 1, Demotions: 1, Suspensions: 2, CPUTime: 100,
				MemLimitKB: 600, MemKBPerHost: 400, DiskLimitKB: 50,
				Stints: []sim.Stint{{FromMs: 0, ToMs: 20500, Queue: 0, Row: 1, Released: true}, {FromMs: 30000, ToMs: 90000, Queue: 0, Row: -1}, {FromMs: 90000, ToMs: 220000, Queue: 1, Row: 0}}},
			"7,w,delay,0,4,,1,COMPLETED_SUCCESSFULLY,0,220,220,0,220,2.2,,,,1,1,2,100,,600,400,50,0-20500:0:1! 30000-90000:0:x 90000-220000:1:0"},
		{"ran, then held by a deactivated queue to the end",
			sim.Record{Job: job, State: sim.Pending, Start: 0, End: 20, ScoreD: true, Suspensions: 1, CPUTime: 20, Reason: "queue 0 deactivated at the end of the run (it ran from 0 with 20 s of CPU time and was held since)"},
			"7,w,delay,0,4,,0,SUBMITTED,,,,,,,,,queue 0 deactivated at the end of the run (it ran from 0 with 20 s of CPU time and was held since) pending_at=20,0,0,1,20,queue 0 deactivated at the end of the run (it ran from 0 with 20 s of CPU time and was held since),0,0,0,"},
		{"killed at the queue's CPU limit",
			sim.Record{Job: job, State: sim.Killed, Start: 0, End: 30, ScoreD: true, CPUTime: 30, Reason: "exceeded queue 0's maximum CPU time 30 s"},
			"7,w,delay,0,4,,0,COMPLETED_WALLTIME_REACHED,0,30,30,0,30,1,,,,0,0,0,30,exceeded queue 0's maximum CPU time 30 s,0,0,0,"},
		{"killed for its memory limit per host",
			sim.Record{Job: job, State: sim.LimitKilled, Start: 3, End: 3, ScoreD: true, Reason: "memory use 800 KB per host exceeds its limit 600 KB", MemLimitKB: 600, MemKBPerHost: 800},
			"7,w,delay,0,4,,0,COMPLETED_KILLED,3,0,3,3,3,,,,memory use 800 KB per host exceeds its limit 600 KB,0,0,0,0,memory use 800 KB per host exceeds its limit 600 KB,600,800,0,"},
		{"rejected, reason with a comma",
			sim.Record{Job: job, State: sim.Rejected, Start: 0, End: 0, ScoreD: true, Queue: 2, Reason: "queue 2 is disabled, sorry"},
			`7,w,delay,0,4,,0,REJECTED,,,,,,,,,"queue 2 is disabled, sorry",2,0,0,0,"queue 2 is disabled, sorry",0,0,0,`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := NewScoreDJobsCSV(&buf, "w")
			c.JobDone(&tc.rec)
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			head, row, _ := strings.Cut(buf.String(), "\n")
			if head+"\n" != strings.TrimSuffix(jobsCSVHeader, "\n")+scoredCSVColumns {
				t.Errorf("header %q", head)
			}
			if row != tc.want+"\n" {
				t.Errorf("row\n got %q\nwant %q", row, tc.want+"\n")
			}
		})
	}
}

func TestScoreDJobsCSVColumns(t *testing.T) {
	var buf bytes.Buffer
	c := NewScoreDJobsCSV(&buf, "w")
	c.JobDone(&sim.Record{Job: &workload.Job{ID: 1, Procs: 1, Run: 1, Estimate: 1}, State: sim.Completed, End: 1, ScoreD: true, CPUTime: 1})
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || len(recs[0]) != 26 || len(recs[1]) != 26 {
		t.Fatalf("want a header and a row of 26 columns, got %v", recs)
	}
}

// TestMetricsScoreD checks that a SCore-D record's slowdown and share of the
// machine count the CPU time it received, not its stretched run.
func TestMetricsScoreD(t *testing.T) {
	m := NewMetrics()
	// Gang: 100 s of work in 220 s from submission at 0: bsld 2.2.
	m.JobDone(&sim.Record{Job: &workload.Job{ID: 1, Procs: 4, Run: 100}, State: sim.Completed, Start: 0, End: 220, ScoreD: true, CPUTime: 100})
	// Suspended 50 s after a 10 s wait: response 160, CPU 100: bsld 1.6.
	m.JobDone(&sim.Record{Job: &workload.Job{ID: 2, Procs: 4, Run: 100}, State: sim.Completed, Start: 10, End: 160, ScoreD: true, CPUTime: 100})
	s := m.Summary("t", "p", 4, sim.Stats{}, workload.CleanStats{})
	if d := s.MeanBoundedSlowdown - 1.9; d > 1e-12 || d < -1e-12 {
		t.Errorf("mean bounded slowdown %v, want 1.9", s.MeanBoundedSlowdown)
	}
	// 800 processor-seconds of CPU over 4 processors × 220 s.
	if want := 800.0 / 880.0; s.Utilisation != want {
		t.Errorf("utilisation %v, want %v", s.Utilisation, want)
	}
}

// TestMetricsLimitKilled checks that a job killed for its memory limit is
// counted apart from walltime kills, and as started.
func TestMetricsLimitKilled(t *testing.T) {
	m := NewMetrics()
	m.JobDone(&sim.Record{Job: &workload.Job{ID: 1, Procs: 4, Run: 100}, State: sim.LimitKilled, Start: 3, End: 3, ScoreD: true, Reason: "memory use"})
	m.JobDone(&sim.Record{Job: &workload.Job{ID: 2, Procs: 4, Run: 100, Estimate: 50}, State: sim.Killed, Start: 0, End: 50, ScoreD: true, CPUTime: 50})
	s := m.Summary("t", "p", 4, sim.Stats{}, workload.CleanStats{})
	if s.LimitKilled != 1 || s.Killed != 1 || s.Started != 2 || s.Completed != 0 {
		t.Errorf("limit_killed %d, killed %d, started %d, completed %d; want 1, 1, 2, 0", s.LimitKilled, s.Killed, s.Started, s.Completed)
	}
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, &s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"limit_killed": 1`) {
		t.Errorf("summary.json has no limit_killed: %s", buf.String())
	}
}

// TestParseStints reads stints_ms fields back, and refuses malformed ones
// with the word at fault.
func TestParseStints(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   []sim.Stint
		allocs [][]cluster.Range
		err    string
	}{
		{"", nil, nil, ""},
		{"0-20500:0:1! 30000-90000:0:x 90000-220000:1:0",
			[]sim.Stint{{FromMs: 0, ToMs: 20500, Queue: 0, Row: 1, Released: true}, {FromMs: 30000, ToMs: 90000, Queue: 0, Row: -1}, {FromMs: 90000, ToMs: 220000, Queue: 1, Row: 0}}, nil, ""},
		{"0-10:0", nil, nil, `stint "0-10:0": want FROM-TO:QUEUE:ROW`},
		{"10-5:0:0", nil, nil, `stint "10-5:0:0": end is not a number of milliseconds at or after the start`},
		{"0-10:a:0", nil, nil, `stint "0-10:a:0": queue is not a queue number`},
		{"0-10:0:y", nil, nil, `stint "0-10:0:y": row is neither x nor a row number`},
		{"0-10:0:0 5-20:0:1", nil, nil, `stint "5-20:0:1": starts before the stint before it ends`},
		{"0-5000:0:1@0-3,8! 5000-9000:1:x@2 9000-9500:1:0", []sim.Stint{{FromMs: 0, ToMs: 5000, Row: 1, Released: true}, {FromMs: 5000, ToMs: 9000, Queue: 1, Row: -1}, {FromMs: 9000, ToMs: 9500, Queue: 1, Row: 0}},
			[][]cluster.Range{{{Lo: 0, Hi: 4}, {Lo: 8, Hi: 9}}, {{Lo: 2, Hi: 3}}, nil}, ""},
		{"0-10:0:0@", nil, nil, `stint "0-10:0:0@": processors are not a list of numbers and ranges (0-3,8)`},
		{"0-10:0:0@3-1", nil, nil, `stint "0-10:0:0@3-1": processors are not a list of numbers and ranges (0-3,8)`},
	} {
		got, allocs, err := ParseStints(tc.in)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case !slices.Equal(got, tc.want) || !allocsEqual(allocs, tc.allocs):
			t.Errorf("%q: %v %v, want %v %v", tc.in, got, allocs, tc.want, tc.allocs)
		}
	}
}

// allocsEqual reports whether a and b are the same stints' processors.
func allocsEqual(a, b [][]cluster.Range) bool {
	return slices.EqualFunc(a, b, func(x, y []cluster.Range) bool { return slices.Equal(x, y) })
}

// FuzzParseStints: ParseStints never panics, and what it accepts
// AppendStints writes back to a field it reads the same.
func FuzzParseStints(f *testing.F) {
	for _, s := range []string{"", "0-20500:0:1! 30000-90000:0:x", "1-1:3:x!", "5-4:0:0", "0-1:0:0 0-2:0:0", "0-5:0:1@0-3,8!", "0-5:0:x@2 5-9:1:x@2", "0-5:0:0@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, field string) {
		st, allocs, err := ParseStints(field)
		if err != nil {
			return
		}
		again, allocs2, err := ParseStints(string(AppendStints(nil, st, allocs)))
		if err != nil || !slices.Equal(again, st) || !allocsEqual(allocs2, allocs) {
			t.Fatalf("%q: read %v %v, written and read again %v %v (%v)", field, st, allocs, again, allocs2, err)
		}
	})
}

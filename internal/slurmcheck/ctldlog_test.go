package slurmcheck

import (
	"slices"
	"strings"
	"testing"
)

// run6Extract is testdata/run6's slurmctld.log for jobs 1, 2, 3 and 7
// (workload lines "0 3 2 12", "14 2 2 22", "16 3 2 58", "46 19 1 38"),
// with lines of other messages between them as the log has them.
const run6Extract = `[2026-11-27T01:15:01.473] sched/backfill: _attempt_backfill: beginning
[2026-11-27T01:15:30.009] _slurm_rpc_submit_batch_job: JobId=1 InitPrio=4294901759 usec=440
[2026-11-27T01:15:30.476] sched/backfill: _attempt_backfill: beginning
[2026-11-27T01:15:30.476] sched/backfill: _start_job: Started JobId=1 in debug on n[01-03]
[2026-11-27T01:15:42.494] _job_complete: JobId=1 WEXITSTATUS 0
[2026-11-27T01:15:42.494] _job_complete: JobId=1 done
[2026-11-27T01:15:44.009] _slurm_rpc_submit_batch_job: JobId=2 InitPrio=4294901758 usec=349
[2026-11-27T01:15:44.479] sched/backfill: _start_job: Started JobId=2 in debug on n[01-02]
[2026-11-27T01:15:46.012] _slurm_rpc_submit_batch_job: JobId=3 InitPrio=4294901757 usec=603
[2026-11-27T01:15:46.480] sched/backfill: _start_job: Started JobId=3 in debug on n[03-05]
[2026-11-27T01:16:06.496] _job_complete: JobId=2 WEXITSTATUS 0
[2026-11-27T01:16:06.496] _job_complete: JobId=2 done
[2026-11-27T01:16:16.008] _slurm_rpc_submit_batch_job: JobId=7 InitPrio=4294901753 usec=285
[2026-11-27T01:16:16.485] sched/backfill: _dump_job_sched: JobId=7 to start at 2026-11-27T01:17:52, end at 2026-11-27T01:18:52 on nodes n[01-19] in partition debug
[2026-11-27T01:16:40.576] sched: Allocate JobId=7 NodeList=n[06-19,24-27,32] #CPUs=19 Partition=debug
[2026-11-27T01:16:44.497] _job_complete: JobId=3 WEXITSTATUS 0
[2026-11-27T01:16:44.498] _job_complete: JobId=3 done
[2026-11-27T01:17:18.597] _job_complete: JobId=7 WEXITSTATUS 0
[2026-11-27T01:17:18.597] _job_complete: JobId=7 done
`

// t6 is 2026-11-27T01:15:00.000 UTC in Unix milliseconds.
const t6 = 1795742100000

func TestParseCtldLog(t *testing.T) {
	tests := []struct {
		name, in string
		want     []CtldJob // nil: an error
		errHas   string
	}{
		{"run6 extract", run6Extract, []CtldJob{
			{ID: 1, Submit: t6 + 30009, Start: t6 + 30476, Done: t6 + 42494, By: "backfill", Line: 2},
			{ID: 2, Submit: t6 + 44009, Start: t6 + 44479, Done: t6 + 66496, By: "backfill", Line: 7},
			{ID: 3, Submit: t6 + 46012, Start: t6 + 46480, Done: t6 + 104498, By: "backfill", Line: 9},
			{ID: 7, Submit: t6 + 76008, Start: t6 + 100576, Done: t6 + 138597, By: "main", Line: 13},
		}, ""},
		{"submission order, not id order; a job without a submission last",
			"[2026-11-27T01:15:00.000] _job_complete: JobId=4 done\n" +
				"[2026-11-27T01:15:00.001] _slurm_rpc_submit_batch_job: JobId=9 InitPrio=1 usec=1\n" +
				"[2026-11-27T01:15:00.002] _slurm_rpc_submit_batch_job: JobId=8 InitPrio=1 usec=1\n",
			[]CtldJob{
				{ID: 9, Submit: t6 + 1, Start: -1, Done: -1, Line: 2},
				{ID: 8, Submit: t6 + 2, Start: -1, Done: -1, Line: 3},
				{ID: 4, Submit: -1, Start: -1, Done: t6, Line: 1},
			}, ""},
		{"no job", "[2026-11-27T01:15:01.473] sched/backfill: _attempt_backfill: no jobs to backfill\n", []CtldJob{}, ""},
		{"seconds only", "[2026-11-27T01:15:30] _slurm_rpc_submit_batch_job: JobId=1 InitPrio=1 usec=1\n", nil,
			`x.log:1: timestamp "2026-11-27T01:15:30": want YYYY-MM-DDTHH:MM:SS.mmm`},
		{"no timestamp", "_job_complete: JobId=1 done\n", nil, "x.log:1: no [timestamp]"},
		{"bad id", "[2026-11-27T01:15:30.000] sched: Allocate JobId=x NodeList=n01\n", nil, `x.log:1: JobId "x"`},
		{"started twice", "[2026-11-27T01:15:30.000] sched: Allocate JobId=3 NodeList=n01\n" +
			"[2026-11-27T01:15:31.000] sched/backfill: _start_job: Started JobId=3 in debug on n01\n", nil, "x.log:2: job 3 started twice (line 1 too)"},
		{"done twice", "[2026-11-27T01:15:30.000] _job_complete: JobId=3 done\n[2026-11-27T01:15:30.000] _job_complete: JobId=3 done\n", nil, "x.log:2: job 3 done twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCtldLog(strings.NewReader(tc.in), "x.log")
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want one with %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) || (len(got) > 0 && !slices.Equal(got, tc.want)) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestMeasureEndLatency(t *testing.T) {
	run6, err := ParseCtldLog(strings.NewReader(run6Extract), "run6")
	if err != nil {
		t.Fatal(err)
	}
	job := func(id, start, done int64) CtldJob {
		return CtldJob{ID: id, Submit: 0, Start: start, Done: done, By: "backfill"}
	}
	tests := []struct {
		name   string
		jobs   []CtldJob
		sleeps []int64
		want   EndLatency
		flag   string
		errHas string
	}{
		// 42.494-30.476-12 = 18 ms, 66.496-44.479-22 = 17 ms,
		// 104.498-46.480-58 = 18 ms, 138.597-100.576-38 = 21 ms (main):
		// sorted 17 18 18 21, median (18+18)/2.
		{"run6 extract", run6, []int64{12, 22, 58, 38}, EndLatency{Median: 18000, Min: 17, Max: 21, Jobs: 4, Backfill: 3}, "18000us", ""},
		// Three jobs: 17 18 18; an odd count takes the middle one.
		{"odd count", run6[:3], []int64{12, 22, 58}, EndLatency{Median: 18000, Min: 17, Max: 18, Jobs: 3, Backfill: 3}, "18000us", ""},
		// 94 ms (testdata/run2's job 2) and 101 ms: the median is half a
		// millisecond, kept in microseconds.
		{"half a millisecond", []CtldJob{job(2, 14636, 36730), job(3, 0, 10101)}, []int64{22, 10},
			EndLatency{Median: 97500, Min: 94, Max: 101, Jobs: 2, Backfill: 2}, "97500us", ""},
		// A late end (run2's 8.2 s) moves the median by one place only.
		{"an outlier", []CtldJob{job(1, 0, 10020), job(2, 0, 10022), job(3, 0, 18245)}, []int64{10, 10, 10},
			EndLatency{Median: 22000, Min: 20, Max: 8245, Jobs: 3, Backfill: 3}, "22000us", ""},
		// Jobs not both started and done are left out.
		{"a job never done", []CtldJob{job(1, 0, 10030), job(2, 5, -1)}, []int64{10, 10},
			EndLatency{Median: 30000, Min: 30, Max: 30, Jobs: 1, Backfill: 1}, "30000us", ""},
		// Whole milliseconds at zero: the flag's least value, 1 µs.
		{"no latency", []CtldJob{job(1, 0, 10000)}, []int64{10}, EndLatency{Jobs: 1, Backfill: 1}, "1us", ""},
		{"counts differ", run6, []int64{12, 22}, EndLatency{}, "", "the log has 4 jobs, the workload 2"},
		{"no submission", []CtldJob{{ID: 4, Submit: -1, Start: 0, Done: 10000}}, []int64{10}, EndLatency{}, "", "job 4: the log shows no submission"},
		{"nothing measured", []CtldJob{job(1, -1, -1)}, []int64{10}, EndLatency{}, "", "no job both started and done"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MeasureEndLatency(tc.jobs, tc.sleeps)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want one with %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || got.Flag() != tc.flag {
				t.Errorf("got %+v (%s), want %+v (%s)", got, got.Flag(), tc.want, tc.flag)
			}
		})
	}
}

func TestEndLatencyString(t *testing.T) {
	got := EndLatency{Median: 97500, Min: 94, Max: 101, Jobs: 2, Backfill: 1}.String()
	want := `end latency 97.5 ms: median over 2 jobs (1 started by backfill) of slurmctld.log's "_job_complete: JobId=N done" - its start - its sleep; min 94 ms, max 101 ms`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func FuzzParseCtldLog(f *testing.F) {
	f.Add(run6Extract)
	f.Add("[2026-11-27T01:15:30.000] sched: Allocate JobId=3 NodeList=n01\n")
	f.Add("[x] _job_complete: JobId=1 done")
	f.Fuzz(func(t *testing.T, in string) {
		jobs, err := ParseCtldLog(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		seen := map[int64]bool{}
		for _, j := range jobs {
			if j.ID < 1 || seen[j.ID] || (j.Start >= 0) != (j.By != "") {
				t.Fatalf("bad job %+v in %+v", j, jobs)
			}
			seen[j.ID] = true
		}
		sleeps := make([]int64, len(jobs))
		if l, err := MeasureEndLatency(jobs, sleeps); err == nil && (l.Jobs < 1 || l.Min > l.Max || l.Median < l.Min*1000 || l.Median > l.Max*1000) {
			t.Fatalf("bad latency %+v", l)
		}
	})
}

func TestReadWorkload(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Submission
		errHas   string
	}{
		{"two jobs", "0 3 2 12\n\n14 2 2 22\n", []Submission{{0, 3, 2, 12}, {14, 2, 2, 22}}, ""},
		{"empty", "\n", nil, "w.txt: no job"},
		{"three fields", "0 3 2\n", nil, "w.txt:1: want 4 fields"},
		{"no cpus", "0 0 2 12\n", nil, `w.txt:1: cpus: "0"`},
		{"negative offset", "0 1 2 12\n-1 1 2 12\n", nil, `w.txt:2: offset: "-1"`},
		{"not a number", "0 1 2 1.5\n", nil, `w.txt:1: sleep: "1.5"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadWorkload(strings.NewReader(tc.in), "w.txt")
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want one with %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	// What WriteWorkload writes reads back.
	w := Workload(28, 40, 150, 32)
	var b strings.Builder
	if err := WriteWorkload(&b, w); err != nil {
		t.Fatal(err)
	}
	got, err := ReadWorkload(strings.NewReader(b.String()), "w")
	if err != nil || !slices.Equal(got, w) {
		t.Errorf("round trip: %v, %+v", err, got)
	}
}

func FuzzReadWorkload(f *testing.F) {
	f.Add("0 3 2 12\n14 2 2 22\n")
	f.Add("0 0 2 12")
	f.Fuzz(func(t *testing.T, in string) {
		subs, err := ReadWorkload(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		for _, s := range subs {
			if s.Offset < 0 || s.CPUs < 1 || s.LimitMin < 1 || s.Sleep < 1 {
				t.Fatalf("accepted a bad job %+v", s)
			}
		}
	})
}

package infer

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// latencyLog is a log of jobs of one processor each, submitted 67 s apart
// (their starts spread over the seconds of the minute) on a machine of 64
// processors that is never full: for each group, n jobs of the queue
// whose waits cycle through waits (a negative wait: the job waits for the
// next whole minute, as under a scheduler cycle of 60 s).
func latencyLog(groups ...latencyGroup) *Log {
	l := &Log{Procs: 64, Name: "latency.swf", Zone: time.UTC, Epoch: synthEpoch, HasCalendar: true}
	at := workload.Time(0)
	for _, g := range groups {
		for k := range g.n {
			start := at + g.waits[k%len(g.waits)]
			if start < at {
				start = (at/60 + 1) * 60
			}
			procs, run := max(g.procs, 1), g.run
			if run == 0 {
				run = 300
			}
			l.Jobs = append(l.Jobs, Job{ID: int64(len(l.Jobs) + 1), Submit: at, Start: start, End: start + run, Procs: procs, ReqTime: run, User: 1, Queue: g.queue})
			at += 67
		}
	}
	return l
}

type latencyGroup struct {
	queue int
	n     int
	waits []workload.Time
	procs int           // 0: 1
	run   workload.Time // 0: 300 s
}

func TestInferLatency(t *testing.T) {
	// Queue 1: 150 prompt jobs waiting 2, 3 and 4 s (50 each); queue 2: 120
	// waiting 7, 8 and 9 s (40 each); queue 4: 50 waiting 20 s, too few for
	// a latency of its own; queue 5: 30 jobs waiting 2 h, not prompt. The
	// 320 prompt waits sorted: 50 × 2, 50 × 3, 50 × 4, 40 × 7, ...: the
	// median (the 160th) is 7 s; queue 1's is 3 s, queue 2's 8 s.
	mixed := []latencyGroup{{1, 150, []workload.Time{2, 3, 4}, 0, 0}, {2, 120, []workload.Time{7, 8, 9}, 0, 0}, {4, 50, []workload.Time{20}, 0, 0}, {5, 30, []workload.Time{7200}, 0, 0}}
	for _, tc := range []struct {
		name   string
		groups []latencyGroup
		wait   workload.Time
		want   string // submit_latency; "" for none
		note   string // a part of the note when none; "" for no note
	}{
		{"default and queues", mixed, 60, "7s,1=3s,2=8s", ""},
		{"one queue like all", []latencyGroup{{1, 100, []workload.Time{5, 5, 6}, 0, 0}, {2, 100, []workload.Time{5}, 0, 0}}, 60, "5s", ""},
		{"a shorter prompt bound", mixed, 5, "3s", ""}, // queue 2 has no prompt job
		{"too few prompt jobs", []latencyGroup{{1, 99, []workload.Time{3}, 0, 0}, {2, 50, []workload.Time{600}, 0, 0}}, 60, "", "99 jobs found their processors idle at their submission and started within 1m, fewer than 100"},
		{"no latency", []latencyGroup{{1, 200, []workload.Time{0, 0, 1}, 0, 0}}, 60, "", "0 s, the median wait of the 200 jobs"},
		{"a cycle", []latencyGroup{{1, 200, []workload.Time{-1}, 0, 0}}, 60, "", "200 started on second 0 of the minute: the scheduler ran on a cycle"},
		{"a third on one second", []latencyGroup{{1, 200, []workload.Time{-1, 5, 5}, 0, 0}}, 60, "5s", ""}, // no cycle: a third wait for the minute
		// Job 1 holds the whole machine for a day: the others, submitted while it runs, are not judged.
		{"a full machine", []latencyGroup{{9, 1, []workload.Time{0}, 64, 86400}, {1, 300, []workload.Time{3}, 0, 0}}, 60, "", "1 jobs found their processors idle"},
		{"not looked for", mixed, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := latencyLog(tc.groups...)
			r := &Result{Log: l, Procs: l.Procs}
			opt := Defaults()
			opt.LatencyWaitSec = tc.wait
			r.latency(l.Jobs, newTimeline(l.Jobs), opt)
			got := ""
			if len(r.Latency.Evidence) > 0 {
				got = r.Latency.String()
			}
			if got != tc.want {
				t.Errorf("latency %q, want %q (evidence %q)", got, tc.want, r.Latency.Evidence)
			}
			hasNote := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "submission latency") })
			if tc.note != "" && !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) || tc.note == "" && hasNote {
				t.Errorf("notes %q, want one containing %q", r.Notes, tc.note)
			}
		})
	}
	// Through Infer and the scenario file: the key, after its evidence.
	res, err := Infer(latencyLog(mixed...), Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.WriteTOML(&b, "latency.swf"); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	i := strings.Index(s, "submit_latency = \"7s,1=3s,2=8s\"\n")
	e := strings.Index(s, "# Submission latency: 320 of the 350 jobs")
	if i < 0 || e < 0 || e > i || !strings.Contains(s[e:i], "queue 2: 8 s, the median of its 120 such jobs (quartiles 7 s and 9 s)") {
		t.Errorf("scenario lacks the latency after its evidence:\n%s", s)
	}
}

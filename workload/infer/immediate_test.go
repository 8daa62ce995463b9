package infer

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// promptLog is a hand-made log of ten days on 64 processors (UTC, from
// Monday 1 January 2024). Queue 1's jobs of 32 processors (batchProcs when
// set) are submitted every 30 minutes from 08:00 to 16:00 (or all day with
// allDay) and each waits 2 hours; queue 3's jobs (promptProcs processors each, n of them, one
// every 20 minutes from promptFrom o'clock, wrapping to the next day after
// 10 hours) wait 0 s, except every slowEvery-th, which waits 5 minutes
// (slowEvery 0: none).
type promptLog struct {
	allDay      bool
	batchProcs  int
	n           int
	promptProcs int
	promptFrom  int64
	slowEvery   int
}

func (p promptLog) log() *Log {
	l := &Log{Procs: 64, Name: "prompt.swf", Zone: time.UTC, Epoch: synthEpoch, HasCalendar: true}
	id := int64(0)
	batch := 32
	if p.batchProcs > 0 {
		batch = p.batchProcs
	}
	for day := int64(0); day < 10; day++ {
		from, to := int64(8*3600), int64(16*3600)
		if p.allDay {
			from, to = 0, 86400
		}
		for s := from; s < to; s += 1800 {
			id++
			at := workload.Time(day*86400 + s)
			l.Jobs = append(l.Jobs, Job{ID: id, Submit: at, Start: at + 7200, End: at + 7200 + 3600, Procs: batch, ReqTime: 3600, User: 1, Queue: 1})
		}
	}
	for k := 0; k < p.n; k++ {
		id++
		day, slot := int64(k/30), int64(k%30)
		at := workload.Time(day*86400 + p.promptFrom*3600 + slot*1200)
		wait := workload.Time(0)
		if p.slowEvery > 0 && k%p.slowEvery == p.slowEvery-1 {
			wait = 300
		}
		l.Jobs = append(l.Jobs, Job{ID: id, Submit: at, Start: at + wait, End: at + wait + 600, Procs: p.promptProcs, ReqTime: workload.Unknown, User: 2, Queue: 3})
	}
	slices.SortFunc(l.Jobs, func(a, b Job) int { return int(a.Submit - b.Submit) })
	return l
}

// TestInferImmediate: a queue whose jobs start at once while earlier jobs
// of another queue, asking no more, wait for processors is written as
// immediate_queues; one prompt only while nothing else waits, or while the
// jobs that wait do so with processors idle for them (held, not queued),
// one under the share, one of too few jobs, one whose jobs are smaller
// than those waiting (backfilling explains it), and any queue with the
// rule off, are not.
func TestInferImmediate(t *testing.T) {
	off := Defaults()
	off.ImmediateShare = 0
	for _, tc := range []struct {
		name string
		l    promptLog
		opt  *Options
		want []int
		note string // in the notes when nothing is written
	}{
		{"at once past waiting jobs", promptLog{n: 240, promptProcs: 32, promptFrom: 9}, nil, []int{3}, ""},
		{"at once past waiting jobs, all day", promptLog{allDay: true, n: 240, promptProcs: 64, promptFrom: 0}, nil, []int{3}, ""},
		{"at once past jobs held with processors idle", promptLog{batchProcs: 4, n: 240, promptProcs: 32, promptFrom: 9}, nil, nil, "prompt, but not on a busy machine: queue 3 (240 of its 240 jobs started within 1m, but only 0 of them"},
		{"at once on an idle machine only", promptLog{n: 240, promptProcs: 32, promptFrom: 19}, nil, nil, "prompt, but not on a busy machine: queue 3 (240 of its 240 jobs"},
		{"under the share", promptLog{n: 240, promptProcs: 32, promptFrom: 9, slowEvery: 20}, nil, nil, "immediate queues: none (no queue of 100 jobs or more of which 99 % or more"},
		{"too few jobs", promptLog{n: 90, promptProcs: 32, promptFrom: 9}, nil, nil, "immediate queues: none"},
		{"smaller than the waiting jobs", promptLog{n: 240, promptProcs: 4, promptFrom: 9}, nil, nil, "prompt, but not on a busy machine: queue 3 (240 of its 240 jobs started within 1m, but only 0 of them"},
		{"rule off", promptLog{n: 240, promptProcs: 32, promptFrom: 9}, &off, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := Defaults()
			if tc.opt != nil {
				opt = *tc.opt
			}
			l := tc.l.log()
			r, err := Infer(l, opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, iq := range r.Immediate {
				got = append(got, iq.Queue)
			}
			var out bytes.Buffer
			if err := r.WriteTOML(&out, "synthetic.swf"); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("immediate queues %v, want %v:\n%s", got, tc.want, out.String())
			}
			notes := strings.Join(r.Notes, "\n")
			if tc.want != nil {
				iq := r.Immediate[0]
				if !strings.Contains(out.String(), "\nimmediate_queues = \"3\"\n") || iq.AtOnce != 240 || iq.Past < 150 || len(iq.Evidence) != 5 ||
					!strings.Contains(iq.Evidence[3], "of queue 1, submitted 2024-01-") {
					t.Errorf("%+v written as:\n%s", iq, out.String())
				}
				if strings.Contains(notes, "immediate queues") {
					t.Errorf("a note on immediate queues beside the key: %s", notes)
				}
			} else if strings.Contains(out.String(), "\nimmediate_queues =") {
				t.Errorf("immediate_queues written:\n%s", out.String())
			}
			if tc.note != "" && !strings.Contains(notes, tc.note) {
				t.Errorf("notes do not say %q:\n%s", tc.note, notes)
			}
			if tc.opt != nil && strings.Contains(notes, "immediate queues") {
				t.Errorf("a note with the rule off: %s", notes)
			}
			checkTOML(t, out.Bytes(), r)
		})
	}
}

// withPrompt adds to the planted log a queue 3 of jobs of 8 processors,
// one every 45 minutes, each starting at its submission and running 30
// minutes beside the machine (its processors are not the machine's).
func withPrompt(l *Log) *Log {
	out := *l
	out.Jobs = slices.Clone(l.Jobs)
	id := int64(1_000_000)
	for at := workload.Time(1000); at < synthDays*86400; at += 2700 {
		id++
		out.Jobs = append(out.Jobs, Job{ID: id, Submit: at, Start: at, End: at + 1800, Procs: 8, ReqTime: workload.Unknown, User: 30, Queue: 3})
	}
	return &out
}

// TestInferImmediatePriorities: on the planted machine (queue 1 ranked
// above queue 2) with an immediate queue 3 beside it, queue 3 is written
// as immediate and gets no priority tier, and every other rule reads the
// log as if queue 3 were not there; with the rule off, queue 3 ranks
// first, as its jobs overtake every waiting job. With --immediate-beside
// false, the rules that count busy processors see queue 3's jobs running
// in the planted outage, and no longer find it.
func TestInferImmediatePriorities(t *testing.T) {
	base := synthLog(t, planted, 1)
	l := withPrompt(base)
	r, err := Infer(l, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	want, err := Infer(base, Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Immediate) != 1 || r.Immediate[0].Queue != 3 {
		t.Fatalf("immediate %+v, want queue 3", r.Immediate)
	}
	var ranked []int
	for _, q := range r.Queues {
		ranked = append(ranked, q.Queue)
	}
	if !slices.Equal(ranked, []int{1, 2}) {
		t.Errorf("queues ranked %v, want [1 2] (no tier for the immediate queue 3)", ranked)
	}
	var out bytes.Buffer
	if err := r.WriteTOML(&out, "synthetic.swf"); err != nil {
		t.Fatal(err)
	}
	checkTOML(t, out.Bytes(), r)
	if strings.Contains(out.String(), "queue = 3\n") {
		t.Errorf("a tier or window for the immediate queue:\n%s", out.String())
	}
	// Beside the machine, queue 3 changes no other rule.
	same := func(what string, a, b any) {
		t.Helper()
		if ga, gb := fmt.Sprintf("%+v", a), fmt.Sprintf("%+v", b); ga != gb {
			t.Errorf("%s with the immediate queue:\n%s\nwithout it:\n%s", what, ga, gb)
		}
	}
	same("procs", r.Procs, want.Procs)
	same("queues", r.Queues, want.Queues)
	same("outages", r.Outages, want.Outages)
	same("drains", r.Drains, want.Drains)
	same("capacity", r.Capacity, want.Capacity)
	same("windows", r.Windows, want.Windows)
	same("limits", r.Limits, want.Limits)
	same("holds", r.Holds, want.Holds)

	off := Defaults()
	off.ImmediateShare = 0
	r0, err := Infer(l, off)
	if err != nil {
		t.Fatal(err)
	}
	if len(r0.Immediate) != 0 || len(r0.Queues) == 0 || r0.Queues[0].Queue != 3 {
		t.Errorf("with the rule off: immediate %+v, queues %+v; want none, and queue 3 ranked first", r0.Immediate, r0.Queues)
	}

	counted := Defaults()
	counted.ImmediateBeside = false
	rc, err := Infer(l, counted)
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Immediate) != 1 || len(rc.Outages) >= len(want.Outages) {
		t.Errorf("--immediate-beside=false: immediate %+v, %d outages; want queue 3, and fewer outages than the %d found without its jobs", rc.Immediate, len(rc.Outages), len(want.Outages))
	}
	same("queues (counted)", rc.Queues, want.Queues)
}

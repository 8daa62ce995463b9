package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// eventLog keeps every event but the samples as a line "T kind job
// [procs|at]".
type eventLog struct{ lines []string }

func (l *eventLog) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.AllKinds &^ sim.KindsOf(sim.EventSampled)}
}

func (l *eventLog) Observe(e *sim.Event) {
	s := fmt.Sprintf("%d %s %d", e.Time, e.Kind, e.Job.ID)
	switch e.Kind {
	case sim.EventStarted:
		s += fmt.Sprintf(" procs=%d", e.Procs)
	case sim.EventReserved:
		s += fmt.Sprintf(" at=%d", e.At)
	case sim.EventEnded, sim.EventRefused:
		s += " " + e.Record.State.String()
	}
	l.lines = append(l.lines, s)
}

// TestEvents: on a hand-worked EASY schedule (4 processors), the event
// stream says what happened to every job, in the engine's order.
//
//	job 1: 0 s, 3 procs, 100 s      starts at 0
//	job 2: 1 s, 2 procs, 50 s       waits: reserved at 100 (job 1's end)
//	job 3: 2 s, 1 proc, 10 s        backfills at 2, ends at 12 < 100
//	job 4: 3 s, 8 procs             larger than the machine: refused
func TestEvents(t *testing.T) {
	jobs := []workload.Job{job(1, 0, 3, 100, 100), job(2, 1, 2, 50, 50), job(3, 2, 1, 10, 10), job(4, 3, 8, 10, 10)}
	var log eventLog
	var rec simtest.Recorder
	eng, err := sim.New(sim.Config{Procs: 4, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(simtest.NewSource(jobs), simtest.Tee{&rec, &log}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(log.lines, "\n")
	for _, want := range []string{
		"0 submitted 1\n0 started 1 procs=3",
		"1 submitted 2\n1 reserved 2 at=100",
		"2 submitted 3\n2 reserved 2 at=100\n2 started 3 procs=1",
		"3 refused 4 rejected",
		"12 ended 3 completed",
		"100 ended 1 completed",
		"100 started 2 procs=2",
		"150 ended 2 completed",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("events lack\n%s\ngot:\n%s", want, got)
		}
	}
	// Every record came as an event too, and times never go back.
	ends := strings.Count(got, " ended ") + strings.Count(got, " refused ")
	if ends != len(rec.Records) {
		t.Errorf("%d ended or refused events, %d records", ends, len(rec.Records))
	}
	var last int
	for _, l := range log.lines {
		var tm int
		fmt.Sscan(l, &tm)
		if tm < last {
			t.Fatalf("event %q goes back in time", l)
		}
		last = tm
	}
}

// TestEventsDeferred: under deferred placement the events are the same,
// behind a Placer, as where the engine numbers the processors itself, and
// the records get the same processors.
func TestEventsDeferred(t *testing.T) {
	jobs := func() []workload.Job {
		return []workload.Job{job(1, 0, 3, 100, 100), job(2, 1, 2, 50, 50), job(3, 2, 1, 10, 10), job(4, 3, 8, 10, 10), job(5, 4, 1, 30, 40)}
	}
	run := func(deferred bool) (eventLog, simtest.Recorder) {
		var log eventLog
		var rec simtest.Recorder
		var obs sim.Observer = simtest.Tee{&rec, &log}
		if deferred {
			obs = sim.NewPlacer(4, &rec, &log)
		}
		eng, err := sim.New(sim.Config{Procs: 4, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, DeferPlacement: deferred})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Run(simtest.NewSource(jobs()), obs); err != nil {
			t.Fatal(err)
		}
		return log, rec
	}
	wantLog, wantRec := run(false)
	gotLog, gotRec := run(true)
	if got, want := strings.Join(gotLog.lines, "\n"), strings.Join(wantLog.lines, "\n"); got != want {
		t.Errorf("deferred events:\n%s\nwant:\n%s", got, want)
	}
	if got, want := simtest.Format(gotRec.Records), simtest.Format(wantRec.Records); got != want {
		t.Errorf("deferred records:\n%s\nwant:\n%s", got, want)
	}
}

// kindCount counts the events it is given, by kind, and wants only some.
type kindCount struct {
	wants sim.Kinds
	n     map[sim.EventKind]int
}

func (k *kindCount) Wants() sim.Wants { return sim.Wants{Kinds: k.wants} }

func (k *kindCount) Observe(e *sim.Event) {
	if !k.wants.Has(e.Kind) {
		panic(fmt.Sprintf("given a %s event, wants %b", e.Kind, k.wants))
	}
	k.n[e.Kind]++
}

// TestEventsWanted: an observer is given only the kinds it wants, and
// every one of them; the samples come once per instant.
func TestEventsWanted(t *testing.T) {
	jobs := func() []workload.Job {
		return []workload.Job{job(1, 0, 3, 100, 100), job(2, 1, 2, 50, 50), job(3, 2, 1, 10, 10), job(4, 3, 8, 10, 10)}
	}
	for _, tc := range []struct {
		name  string
		kinds sim.Kinds
		want  map[sim.EventKind]int
	}{
		{"none", 0, map[sim.EventKind]int{}},
		{"starts", sim.KindsOf(sim.EventStarted), map[sim.EventKind]int{sim.EventStarted: 3}},
		{"records", sim.RecordKinds, map[sim.EventKind]int{sim.EventEnded: 3, sim.EventRefused: 1}},
		// Instants 0, 1, 2, 3, 12, 100, 150.
		{"samples and reservations", sim.KindsOf(sim.EventSampled, sim.EventReserved), map[sim.EventKind]int{sim.EventSampled: 7, sim.EventReserved: 2}},
		{"all", sim.AllKinds, map[sim.EventKind]int{sim.EventSubmitted: 3, sim.EventStarted: 3, sim.EventReserved: 2, sim.EventEnded: 3, sim.EventRefused: 1, sim.EventSampled: 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &kindCount{wants: tc.kinds, n: map[sim.EventKind]int{}}
			eng, err := sim.New(sim.Config{Procs: 4, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := eng.Run(simtest.NewSource(jobs()), k); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(k.n) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", k.n, tc.want)
			}
		})
	}
}

// TestRequeuedEvent: a node failure that requeues a running job says so,
// and the job starts again later.
func TestRequeuedEvent(t *testing.T) {
	var log eventLog
	eng, err := sim.New(sim.Config{Procs: 4, OnNodeFail: sim.NodeFailRequeue,
		NodeEvents: []cluster.NodeEvent{nodeEvent(t, 20, cluster.NodeDown, "0", 4, "maintenance"), nodeEvent(t, 60, cluster.NodeResume, "0", 4, "")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(simtest.NewSource([]workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 2, 50, 50)}), &log); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(log.lines, "\n")
	if want := "20 requeued 1\n50 ended 2 completed\n50 started 1 procs=2"; !strings.Contains(got, want) {
		t.Errorf("events lack\n%s\ngot:\n%s", want, got)
	}
}

// TestScoreDEvents: SCore-D's events on a hand-worked preemption (4
// processors, two exclusive queues, preempt suspend).
//
//	job 1: 0 s, queue 1, 4 procs, 100 s    starts at 0, suspended at 10
//	job 2: 10 s, queue 0, 4 procs, 20 s    starts at 10, ends at 30
//	                                       job 1 resumes at 30, ends at 120
func TestScoreDEvents(t *testing.T) {
	j1, j2 := job(1, 0, 4, 100, 100), job(2, 10, 4, 20, 20)
	j1.Queue, j2.Queue = 1, 0
	jobs := []workload.Job{j1, j2}
	cfg := policy.NewScoreD(2, policy.Exclusive)
	e, err := sim.NewScoreD(4, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var log eventLog
	var rec simtest.Recorder
	if _, err := e.Run(simtest.NewSource(jobs), simtest.Tee{&rec, &log}); err != nil {
		t.Fatal(err)
	}
	want := "0 submitted 1\n0 started 1 procs=4\n10 submitted 2\n10 suspended 1\n10 started 2 procs=4\n30 ended 2 completed\n30 resumed 1\n120 ended 1 completed"
	if got := strings.Join(log.lines, "\n"); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
}

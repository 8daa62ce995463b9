package sim_test

import (
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
)

// TestVerifyScoreDExclusive plants violations of SCore-D's exclusive mode
// in a correct schedule and checks that VerifyScoreD names each: a job of
// an exclusive queue runs alone (in every row), and is cut before its end
// only by its queue stopping or by a higher-priority queue's job starting
// then.
func TestVerifyScoreDExclusive(t *testing.T) {
	// Four processors, one row, queues 0 and 1 exclusive, preempt
	// suspend. Job 1 (queue 1, 4 processors, 100 s) runs from 0; job 2
	// (queue 0, 4 processors, 20 s) arrives at 10 and suspends it; job 1
	// resumes at 30 and ends at 120.
	good := func() []sim.ScoreDOutcome {
		return []sim.ScoreDOutcome{
			{ID: 1, Submit: 0, Procs: 4, State: sim.Completed, End: 120, Queue: 1,
				Stints: []sim.Stint{{FromMs: 0, ToMs: 10000, Queue: 1, Row: -1}, {FromMs: 30000, ToMs: 120000, Queue: 1, Row: -1}}},
			{ID: 2, Submit: 10, Procs: 4, State: sim.Completed, End: 30, Queue: 0,
				Stints: []sim.Stint{{FromMs: 10000, ToMs: 30000, Queue: 0, Row: -1}}},
		}
	}
	lim := func() sim.ScoreDLimits {
		return sim.ScoreDLimits{MPL: 1, MemPercent: []int{0, 0}, DiskPercent: []int{0, 0},
			Modes: []policy.QueueMode{policy.Exclusive, policy.Exclusive}, Preempt: policy.PreemptSuspend}
	}
	cases := []struct {
		name  string
		plant func(o []sim.ScoreDOutcome, l *sim.ScoreDLimits)
		msg   string // "": no violation
	}{
		{"good", func([]sim.ScoreDOutcome, *sim.ScoreDLimits) {}, ""},
		{"unknown modes skip the check", func(o []sim.ScoreDOutcome, l *sim.ScoreDLimits) {
			l.Modes = nil
			o[1].Stints[0].FromMs = 11000
		}, ""},
		{"preempted by a job of its own queue", func(o []sim.ScoreDOutcome, l *sim.ScoreDLimits) {
			o[1].Queue, o[1].Stints[0].Queue = 1, 1
		}, "no job of a higher-priority queue started then"},
		{"cut with no preemptor starting", func(o []sim.ScoreDOutcome, l *sim.ScoreDLimits) {
			o[1].Stints[0].FromMs = 11000
		}, "no job of a higher-priority queue started then"},
		{"exclusive job in a row", func(o []sim.ScoreDOutcome, l *sim.ScoreDLimits) {
			o[0].Stints[0].Row, o[0].Stints[1].Row = 0, 0
		}, "ran in row 0 of the matrix"},
		{"gang job held every row", func(o []sim.ScoreDOutcome, l *sim.ScoreDLimits) {
			l.Modes[0] = policy.Gang
		}, "in gang queue 0 but held its processors in every row"},
		{"preemption off", func(o []sim.ScoreDOutcome, l *sim.ScoreDLimits) {
			l.Preempt = policy.PreemptOff
		}, "preemption is off"},
		{"queue stopped, preemption off", func(o []sim.ScoreDOutcome, l *sim.ScoreDLimits) {
			l.Preempt = policy.PreemptOff
			l.Holds = []sim.QueueHold{{Queue: 1, At: 10}}
		}, ""},
		{"cancelled by a higher queue's job", func(o []sim.ScoreDOutcome, l *sim.ScoreDLimits) {
			l.Preempt = policy.PreemptCancel
			o[0].State, o[0].End, o[0].Reason, o[0].Stints = sim.Killed, 10, "preempted by job 2 (queue 0)", o[0].Stints[:1]
		}, ""},
		{"cancelled by a lower queue's job", func(o []sim.ScoreDOutcome, l *sim.ScoreDLimits) {
			l.Preempt = policy.PreemptCancel
			o[1].Queue, o[1].Stints[0].Queue = 1, 1
			o[0].State, o[0].End, o[0].Reason, o[0].Stints = sim.Killed, 10, "preempted by job 2 (queue 1)", o[0].Stints[:1]
		}, "which is not a job of a higher-priority queue starting then"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, l := good(), lim()
			c.plant(o, &l)
			vs := sim.VerifyScoreD(4, o, l)
			if c.msg == "" {
				if len(vs) > 0 {
					t.Fatalf("violations in a correct schedule: %v", vs)
				}
				return
			}
			for _, v := range vs {
				if v.Rule == "exclusive" && strings.Contains(v.Msg, c.msg) {
					return
				}
			}
			t.Errorf("want an exclusive violation saying %q, got %v", c.msg, vs)
		})
	}
}

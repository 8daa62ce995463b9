package simtest

import (
	"fmt"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// DecisionKind says what a policy decided.
type DecisionKind uint8

// Values of DecisionKind, one for each method of policy.Decisions and of
// policy.Failer.
const (
	KindStart   DecisionKind = iota // the job starts now
	KindReserve                     // the job is promised a start no later than Decision.At
	KindWake                        // a pass is asked for at Decision.At
	KindFail                        // the job leaves the queue, failed, for Decision.Reason
)

// String returns the kind's name.
func (k DecisionKind) String() string {
	switch k {
	case KindStart:
		return "start"
	case KindReserve:
		return "reserve"
	case KindWake:
		return "wake"
	case KindFail:
		return "fail"
	}
	return fmt.Sprintf("DecisionKind(%d)", uint8(k))
}

// Decision is one decision a policy made during a pass.
type Decision struct {
	Now  workload.Time // the pass's instant
	Kind DecisionKind
	// Job is the ID of the job decided on (Start, Reserve, Fail).
	Job int64
	// At is the promised start (Reserve) or the asked-for pass (Wake).
	At workload.Time
	// Reason is why the job failed (Fail).
	Reason string
}

// String returns the decision in the form "10: reserve job 4 at 20".
func (d Decision) String() string {
	switch d.Kind {
	case KindReserve:
		return fmt.Sprintf("%d: reserve job %d at %d", d.Now, d.Job, d.At)
	case KindWake:
		return fmt.Sprintf("%d: wake at %d", d.Now, d.At)
	case KindFail:
		return fmt.Sprintf("%d: fail job %d: %s", d.Now, d.Job, d.Reason)
	}
	return fmt.Sprintf("%d: %v job %d", d.Now, d.Kind, d.Job)
}

// Spy is a Policy that keeps every decision of the Policy it wraps, in the
// order it made them, and hands each on to the engine.
//
// A Spy hides the optional interfaces of the policy it wraps (such as
// fastpath.Quieter), so the engine runs every pass instead of skipping those
// the policy proves idle: the schedule is the same, by those interfaces'
// contract, and a test may rely on it. The decisions it hands to the
// policy are a policy.Failer and a policy.Grower, as the engine's are.
type Spy struct {
	policy.Policy
	Log []Decision
}

// Schedule implements policy.Policy.
func (s *Spy) Schedule(v policy.View, d policy.Decisions) {
	s.Policy.Schedule(v, spyDecisions{d: d, v: v, s: s})
}

// Promised returns, for every job the policy reserved, the earliest start
// it was promised.
func (s *Spy) Promised() map[int64]workload.Time {
	out := make(map[int64]workload.Time)
	for _, d := range s.Log {
		if d.Kind != KindReserve {
			continue
		}
		if at, ok := out[d.Job]; !ok || d.At < at {
			out[d.Job] = d.At
		}
	}
	return out
}

// CheckPromises returns an error unless every job the policy reserved
// started no later than the earliest start it was promised.
func (s *Spy) CheckPromises(recs []sim.Record) error {
	promised := s.Promised()
	for _, r := range recs {
		if at, ok := promised[r.Job.ID]; ok && r.Start > at {
			return fmt.Errorf("job %d reserved at %d started at %d: a backfilled job delayed it", r.Job.ID, at, r.Start)
		}
	}
	return nil
}

// spyDecisions logs each decision into its Spy before the engine applies it.
type spyDecisions struct {
	d policy.Decisions
	v policy.View
	s *Spy
}

func (x spyDecisions) log(kind DecisionKind, i int, at workload.Time, reason string) {
	d := Decision{Now: x.v.Now(), Kind: kind, At: at, Reason: reason}
	if i >= 0 {
		d.Job = x.v.Job(i).ID
	}
	x.s.Log = append(x.s.Log, d)
}

func (x spyDecisions) Start(i int) {
	x.log(KindStart, i, 0, "")
	x.d.Start(i)
}

func (x spyDecisions) Reserve(i int, at workload.Time) {
	x.log(KindReserve, i, at, "")
	x.d.Reserve(i, at)
}

func (x spyDecisions) WakeAt(t workload.Time) {
	x.log(KindWake, -1, t, "")
	x.d.WakeAt(t)
}

// Fail implements policy.Failer. It panics if the engine's decisions are
// no Failer (the engine's always are).
func (x spyDecisions) Fail(i int, reason string) {
	x.log(KindFail, i, 0, reason)
	x.d.(policy.Failer).Fail(i, reason)
}

// GrowRunning implements policy.Grower: the engine's growth, or none.
func (x spyDecisions) GrowRunning(spare int) int {
	if g, ok := x.d.(policy.Grower); ok {
		return g.GrowRunning(spare)
	}
	return 0
}

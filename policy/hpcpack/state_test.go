package hpcpack

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// newStateModel returns a model with every built-in filter.
func newStateModel() *Model {
	return &Model{
		Submission: []SubmissionFilter{&RequireRuntime{Template: "Small"}, &MaxSize{Procs: 8}},
		Activation: []ActivationFilter{&LicensePool{Total: map[string]int{"a": 4, "b": 2}}, &Quota{Limit: 1000, Window: 100}},
		Templates:  map[string]*Template{"Small": {Name: "Small", DefaultRun: 50}},
	}
}

// drive runs copies of jobs through m's filters: submission, then
// activation at their submit time, and the ends of every other job that
// started.
func drive(t *testing.T, m *Model, jobs []workload.Job) {
	t.Helper()
	jobs = slices.Clone(jobs) // Admit changes them
	for i := range jobs {
		j := &jobs[i]
		if ok, _ := m.Admit(j); !ok {
			continue
		}
		a := &Activation{Job: j, Now: j.Submit, Pass: j.Seq, Resources: j.Procs}
		r, _ := ActivationChain(m.ActivationChain(j), a, nil)
		if r.Code == ActivateStart && j.Seq%2 == 0 {
			m.jobEnded(policy.Ended{Seq: j.Seq, User: j.User, End: j.Submit + 30})
		}
	}
}

// A model's state, saved after some jobs and restored into a model built
// from the same settings, goes on exactly as the model it was saved from:
// the same results, notes and state for the jobs that follow.
func TestModelStateRoundTrip(t *testing.T) {
	jobs := make([]workload.Job, 60)
	for i := range jobs {
		jobs[i] = workload.Job{ID: int64(i + 1), Seq: int64(i), Submit: workload.Time(7 * i), Procs: 1 + i%10, Estimate: workload.Time(10 * (i % 4)), User: i % 3}
		if i%3 == 0 {
			jobs[i].Licenses = "a:2,b:1"
		}
	}
	whole := newStateModel()
	drive(t, whole, jobs)
	want, err := whole.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}

	first := newStateModel()
	drive(t, first, jobs[:25])
	b, err := first.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	resumed := newStateModel()
	if err := resumed.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	drive(t, resumed, jobs[25:])
	got, err := resumed.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("the resumed model's state differs from the unbroken one's")
	}
	if len(whole.notes) == 0 || whole.Activation[0].(*LicensePool).Free("a") == 4 {
		t.Fatal("the filters kept no state: the test exercises nothing")
	}

	// A model of other settings refuses the state.
	other := newStateModel()
	other.Submission = other.Submission[:1]
	if err := other.UnmarshalBinary(b); err == nil {
		t.Error("a model with other filters took the state")
	}
}

// statelessFilter is a Go filter of a user's that does not save its state.
type statelessFilter struct{}

func (statelessFilter) Name() string                          { return "mine" }
func (statelessFilter) FilterSubmission(*workload.Job) Result { return Exit(SubmitAsIs, "") }
func (statelessFilter) RevertSubmission(*workload.Job)        {}

// A model with a filter that does not implement BinaryMarshaler cannot be
// checkpointed, and says which filter.
func TestModelCanCheckpoint(t *testing.T) {
	m := newStateModel()
	if err := m.CanCheckpoint(); err != nil {
		t.Fatal(err)
	}
	m.Submission = append(m.Submission, statelessFilter{})
	if err := m.CanCheckpoint(); err == nil || !strings.Contains(err.Error(), "mine") {
		t.Fatalf("error %v, want one naming the filter", err)
	}
	if _, err := m.MarshalBinary(); err == nil {
		t.Fatal("a model with a filter without state saved")
	}
}

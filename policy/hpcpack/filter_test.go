package hpcpack

import (
	"slices"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// SPEC §6's activation table, row by row.
func TestActivationAction(t *testing.T) {
	tests := []struct {
		r    Result
		want Action
	}{
		{Exit(0, ""), Start},
		{Exit(1, ""), BlockQueue},
		{Exit(2, ""), KeepResources},
		{Exit(3, ""), Hold},
		{Exit(4, ""), Fail},
		{Exit(5, ""), KeepResources},
		{Exit(-1, ""), KeepResources},
		{Exit(255, ""), KeepResources},
		{Result{Status: TimedOut}, KeepResources},
		{Result{Status: NotFound}, KeepResources},
	}
	for _, tt := range tests {
		if got := ActivationAction(tt.r); got != tt.want {
			t.Errorf("%v: %v, want %v", tt.r, got, tt.want)
		}
	}
}

// SPEC §6's submission table, row by row.
func TestSubmissionFailure(t *testing.T) {
	tests := []struct {
		r    Result
		want string
	}{
		{Exit(0, ""), ""},
		{Exit(1, ""), ""},
		{Exit(2, ""), MsgSubmissionFailed},
		{Exit(-1, ""), MsgSubmissionFailed},
		{Result{Status: TimedOut}, MsgSubmissionTimedOut},
		{Result{Status: NotFound}, MsgFilterNotFound},
	}
	for _, tt := range tests {
		if got := SubmissionFailure(tt.r); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.r, got, tt.want)
		}
	}
}

// fixed answers the same result to every call and logs calls and reverts.
type fixed struct {
	name string
	r    Result
	log  *[]string
}

func (f *fixed) Name() string { return f.name }
func (f *fixed) FilterSubmission(*workload.Job) Result {
	*f.log = append(*f.log, f.name)
	return f.r
}
func (f *fixed) RevertSubmission(*workload.Job) { *f.log = append(*f.log, "revert "+f.name) }
func (f *fixed) FilterActivation(*Activation) Result {
	*f.log = append(*f.log, f.name)
	return f.r
}
func (f *fixed) RevertActivation(*Activation) { *f.log = append(*f.log, "revert "+f.name) }

func TestChains(t *testing.T) {
	tests := []struct {
		name    string
		results []Result
		sub     []string // submission chain's calls
		act     []string // activation chain's calls
	}{
		{"all pass", []Result{Exit(0, ""), Exit(1, ""), Exit(0, "")},
			[]string{"a", "b", "c"},
			[]string{"a", "b", "revert a"}},
		{"last fails", []Result{Exit(0, ""), Exit(0, ""), Exit(2, "")},
			[]string{"a", "b", "c", "revert b", "revert a"},
			[]string{"a", "b", "c", "revert b", "revert a"}},
		{"first fails", []Result{Result{Status: NotFound}, Exit(0, ""), Exit(0, "")},
			[]string{"a"},
			[]string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			var subs []SubmissionFilter
			var acts []ActivationFilter
			for k, r := range tt.results {
				f := &fixed{name: string(rune('a' + k)), r: r, log: &log}
				subs, acts = append(subs, f), append(acts, f)
			}
			var seen []string
			SubmissionChain(subs, &workload.Job{}, func(name string, r Result) { seen = append(seen, name+"="+r.String()) })
			if !slices.Equal(log, tt.sub) {
				t.Errorf("submission chain: %v, want %v", log, tt.sub)
			}
			if len(seen) != len(tt.sub)-countReverts(tt.sub) {
				t.Errorf("seen %v", seen)
			}
			log = nil
			ActivationChain(acts, &Activation{Job: &workload.Job{}}, nil)
			if !slices.Equal(log, tt.act) {
				t.Errorf("activation chain: %v, want %v", log, tt.act)
			}
		})
	}
}

func countReverts(calls []string) int {
	n := 0
	for _, c := range calls {
		if len(c) > 7 && c[:7] == "revert " {
			n++
		}
	}
	return n
}

func TestHPCPackValidate(t *testing.T) {
	tests := []struct {
		name string
		h    Model
		ok   bool
	}{
		{"defaults", Model{}, true},
		{"hold 60", Model{DefaultHold: 60}, true},
		{"hold 604800", Model{DefaultHold: 604800}, true},
		{"hold 59", Model{DefaultHold: 59}, false},
		{"hold 604801", Model{DefaultHold: 604801}, false},
		{"rule to nowhere", Model{Rules: []TemplateRule{{Template: "x"}}}, false},
		{"default above max", Model{Templates: map[string]*Template{"t": {Name: "t", DefaultRun: 10, MaxRun: 5}}}, false},
	}
	for _, tt := range tests {
		if err := tt.h.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// Wrap puts the filters inside Ordered and refuses conservative backfilling.
func TestWrap(t *testing.T) {
	h := &Model{Activation: []ActivationFilter{&LicensePool{}}}
	p, err := policy.New(policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.LookaheadAll, Order: policy.OrderSJF})
	if err != nil {
		t.Fatal(err)
	}
	w, err := h.Wrap(p)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := w.(*policy.Ordered)
	if !ok {
		t.Fatalf("wrapped %T, want *policy.Ordered outside", w)
	}
	if _, ok := o.Inner.(*Filtered); !ok {
		t.Errorf("inner %T, want *Filtered", o.Inner)
	}
	if _, err := h.Wrap(&policy.Conservative{}); err == nil {
		t.Error("conservative backfilling wrapped without error")
	}
}

package hpcpack

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// TestJobXMLTicks: a job whose times are in ms is written in seconds, as
// HPC Pack's files say them (instants rounded down to the second,
// RuntimeSeconds rounded up), and what a filter changes is read back in
// ms; a property the filter leaves keeps its ticks.
func TestJobXMLTicks(t *testing.T) {
	epoch := time.Date(2010, 2, 4, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name                      string
		tick                      workload.Time
		submit, estimate, hold    workload.Time
		wantSubmit, wantRuntime   string
		wantHold                  string
		setRuntime, setHold       string
		gotEstimate, gotHoldUntil workload.Time
	}{
		{"seconds", 1, 3600, 7200, 5400, "2/4/2010 1:00:00 AM", "7200", "2/4/2010 1:30:00 AM", "60", "2/4/2010 2:00:00 AM", 60, 7200},
		{"ms whole", 1000, 3600_000, 7200_000, 5400_000, "2/4/2010 1:00:00 AM", "7200", "2/4/2010 1:30:00 AM", "60", "2/4/2010 2:00:00 AM", 60_000, 7200_000},
		{"ms fractions", 1000, 3600_999, 7200_001, 5400_500, "2/4/2010 1:00:00 AM", "7201", "2/4/2010 1:30:00 AM", "61", "2010-02-04T02:00:00.25Z", 61_000, 7200_250},
		{"us fractions", 1_000_000, 3600_000_001, 1, 5400_999_999, "2/4/2010 1:00:00 AM", "1", "2/4/2010 1:30:00 AM", "2", "2010-02-04T02:00:00.000001Z", 2_000_000, 7200_000_001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := workload.Job{ID: 42, Submit: tt.submit, Procs: 16, Estimate: tt.estimate, HoldUntil: tt.hold}
			buf := AppendJobXML(nil, &j, JobXMLStatus{State: XMLQueued, Tick: tt.tick}, epoch)
			x, err := ParseJobXML(bytes.NewReader(buf))
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range map[string]string{"SubmitTime": tt.wantSubmit, "RuntimeSeconds": tt.wantRuntime, "HoldUntil": tt.wantHold} {
				if g, _ := x.Get(k); g != w {
					t.Errorf("%s = %q, want %q", k, g, w)
				}
			}
			k := j
			if applied, err := ApplyJobXMLIn(&k, x, x, epoch, tt.tick); err != nil || len(applied) != 0 || k != j {
				t.Errorf("unchanged file: %v %v, job %+v", applied, err, k)
			}
			changed := &JobXML{Attrs: append(x.Attrs[:0:0], x.Attrs...)}
			for i := range changed.Attrs {
				switch changed.Attrs[i].Name.Local {
				case "RuntimeSeconds":
					changed.Attrs[i].Value = tt.setRuntime
				case "HoldUntil":
					changed.Attrs[i].Value = tt.setHold
				}
			}
			if _, err := ApplyJobXMLIn(&k, x, changed, epoch, tt.tick); err != nil {
				t.Fatal(err)
			}
			if k.Estimate != tt.gotEstimate || k.HoldUntil != tt.gotHoldUntil {
				t.Errorf("read back estimate %d, hold until %d; want %d and %d", k.Estimate, k.HoldUntil, tt.gotEstimate, tt.gotHoldUntil)
			}
		})
	}
	// A run time past schedsim's longest time in ticks is an error, not an
	// overflow.
	j := workload.Job{ID: 1, Procs: 1, Estimate: 1000}
	x, _ := ParseJobXML(bytes.NewReader(AppendJobXML(nil, &j, JobXMLStatus{State: XMLQueued, Tick: 1000}, epoch)))
	changed := &JobXML{Attrs: append(x.Attrs[:0:0], x.Attrs...)}
	for i := range changed.Attrs {
		if changed.Attrs[i].Name.Local == "RuntimeSeconds" {
			changed.Attrs[i].Value = "9000000000000000"
		}
	}
	if _, err := ApplyJobXMLIn(&j, x, changed, epoch, 1000); err == nil || !strings.Contains(err.Error(), "RuntimeSeconds") {
		t.Errorf("error %v, want one naming RuntimeSeconds", err)
	}
}

// TestModelTicks: the Model's settings in seconds meet the engine's times
// in ticks: a template's default and maximum run time, a rule's maximum
// estimate, the default hold period and the re-evaluation interval, the
// quota's window and limit, the run-time filter's run time; the notes'
// seconds carry the unit's decimals.
func TestModelTicks(t *testing.T) {
	for _, tick := range []workload.Time{1, 1000, 1_000_000} {
		h := &Model{DefaultHold: 120, Reevaluate: 30, Templates: map[string]*Template{
			"Small": {Name: "Small", DefaultRun: 60, MaxRun: 600},
			"Big":   {Name: "Big", MaxRun: 3600},
		}, Rules: []TemplateRule{{Template: "Small", MaxEstimate: 600}, {Template: "Big"}}}
		rr := &RequireRuntime{Runtime: 90}
		q := &Quota{Limit: 100, Window: 3600}
		h.Submission = []SubmissionFilter{rr}
		h.Activation = []ActivationFilter{q}
		h.SetTick(tick)
		if h.defaultHold() != 120*tick || h.reevaluate() != 30*tick {
			t.Errorf("tick %d: hold %d, re-evaluation %d", tick, h.defaultHold(), h.reevaluate())
		}
		for _, c := range []struct {
			est      workload.Time // in seconds × tick, or ≤ 0
			template string
			wantEst  workload.Time
			ok       bool
		}{
			{600 * tick, "Small", 600 * tick, true},      // the rule's bound is inclusive
			{600*tick + 1, "Big", 600*tick + 1, true},    // one tick more: the next rule
			{3600*tick + 1, "Big", 3600*tick + 1, false}, // over Big's maximum
			{-1, "Big", 90 * tick, true},                 // no estimate: Big's rule, then the run-time filter's 90 s
		} {
			j := workload.Job{Seq: int64(c.est), Procs: 1, Estimate: c.est}
			ok, why := h.Admit(&j)
			if ok != c.ok || j.Template != c.template || j.Estimate != c.wantEst {
				t.Errorf("tick %d, estimate %d: admitted %v (%s), template %q, estimate %d; want %v, %q, %d", tick, c.est, ok, why, j.Template, j.Estimate, c.ok, c.template, c.wantEst)
			}
			if !ok && !strings.Contains(why, "allows at most 3600 s of run time, the job asks for "+workload.FormatTicks(c.est, int64(tick))+" s") {
				t.Errorf("tick %d: reason %q", tick, why)
			}
		}
		// The quota: 100 processor-seconds per hour. A 10-processor job
		// running from 0 uses them up at 10 s; the next is held to the
		// next window, at 3600 s.
		a := &Activation{Job: &workload.Job{Seq: 1, User: 5}, Now: 0, Resources: 10}
		if r := q.FilterActivation(a); r.Code != ActivateStart {
			t.Fatalf("tick %d: %+v", tick, r)
		}
		j2 := workload.Job{Seq: 2, User: 5}
		if r := q.FilterActivation(&Activation{Job: &j2, Now: 10*tick - 1, Resources: 1}); r.Code != ActivateStart {
			t.Errorf("tick %d: a tick before the quota is used: %+v", tick, r)
		}
		j3 := workload.Job{Seq: 3, User: 5}
		r := q.FilterActivation(&Activation{Job: &j3, Now: 10 * tick, Resources: 1})
		if r.Code != ActivateHold || j3.HoldUntil != 3600*tick {
			t.Errorf("tick %d: at 10 s %+v, hold until %d", tick, r, j3.HoldUntil)
		}
		if used := q.Used(5, 10*tick); used < 100 || used > 101 {
			t.Errorf("tick %d: used %g processor-seconds, want 100 to 101", tick, used)
		}
		// The notes: seconds with the unit's decimals.
		h.setup()
		h.note(7).reserving = 180*tick + tick/4
		want := map[workload.Time]string{1: "reserving_sec=180", 1000: "reserving_sec=180.250", 1_000_000: "reserving_sec=180.250000"}[tick]
		if got := string(h.AppendNote(nil, &workload.Job{Seq: 7})); got != want {
			t.Errorf("tick %d: note %q, want %q", tick, got, want)
		}
	}
}

package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// The metadata words of a preempted job, as RanMetadata writes them and
// ParsePreemption reads them back.
func TestPreemptionMetadata(t *testing.T) {
	j := workload.Job{ID: 1, Partition: 1}
	r := &sim.Record{Job: &j, State: sim.Completed, HasTier: true, Tier: 2, LostRun: 10,
		Preemptions: []sim.PreemptMark{{At: 10, By: 7, Mode: policy.PreemptSuspend}, {At: 50, By: 9, Mode: policy.PreemptRequeue}},
		Runs: []sim.RunSpan{{From: 0, To: 10, Alloc: []cluster.Range{{Lo: 0, Hi: 4}, {Lo: 8, Hi: 9}}}, {From: 40, To: 50, Alloc: []cluster.Range{{Lo: 0, Hi: 4}, {Lo: 8, Hi: 9}}},
			{From: 60, To: 160, Alloc: []cluster.Range{{Lo: 2, Hi: 3}}}}}
	meta := RanMetadata(r)
	const want = "tier=2 preempted=10@7:suspend;50@9:requeue runs=0-10:0-3,8;40-50:0-3,8;60-160:2 lost=10"
	if meta != want {
		t.Fatalf("metadata %q, want %q", meta, want)
	}
	p, err := ParsePreemption("predicted_start=3 " + meta)
	if err != nil {
		t.Fatal(err)
	}
	if !p.HasTier || p.Tier != 2 || p.Lost != 10 || !reflect.DeepEqual(p.Preemptions, r.Preemptions) || !reflect.DeepEqual(p.Runs, r.Runs) {
		t.Errorf("read back %+v", p)
	}
	// In ms (--time-unit ms) the same words carry seconds with three
	// decimals, like the table's other times.
	ms := &sim.Record{Job: &j, State: sim.Completed, HasTier: true, Tier: 2, LostRun: 10500,
		Preemptions: []sim.PreemptMark{{At: 10500, By: 7, Mode: policy.PreemptRequeue}},
		Runs:        []sim.RunSpan{{From: 3, To: 10500, Alloc: []cluster.Range{{Lo: 0, Hi: 4}}}, {From: 40000, To: 140250, Alloc: []cluster.Range{{Lo: 0, Hi: 4}}}}}
	const wantMs = "tier=2 preempted=10.500@7:requeue runs=0.003-10.500:0-3;40.000-140.250:0-3 lost=10.500"
	if got := RanMetadataIn(ms, 1000); got != wantMs {
		t.Fatalf("metadata in ms %q, want %q", got, wantMs)
	}
	p, err = ParsePreemptionIn(wantMs, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if p.Lost != ms.LostRun || !reflect.DeepEqual(p.Preemptions, ms.Preemptions) || !reflect.DeepEqual(p.Runs, ms.Runs) {
		t.Errorf("read back in ms %+v", p)
	}
	if _, err := ParsePreemptionIn("lost=1.0005", 1000); err == nil || !strings.Contains(err.Error(), "lost") {
		t.Errorf("a time finer than the unit: error %v, want one naming lost", err)
	}
	for _, bad := range []string{"tier=x", "lost=-1", "lost=+1", "lost=1.5", "preempted=-1@7:suspend", "preempted=10@7", "preempted=10@7:off", "runs=5-4:1", "runs=0-1:x"} {
		if _, err := ParsePreemption(bad); err == nil || !strings.Contains(err.Error(), strings.SplitN(bad, "=", 2)[0]) {
			t.Errorf("%q: error %v, want one naming the word", bad, err)
		}
	}
}

// FuzzParsePreemption: ParsePreemptionIn never panics, in seconds or in
// ms, and what it accepts of a preempted job appendPreemption writes back
// to words it reads the same.
func FuzzParsePreemption(f *testing.F) {
	for _, s := range []string{"", "tier=1", "tier=2 preempted=10@7:suspend runs=0-10:0-3,8;40-50:0-3,8 lost=0", "runs=1-1:", "preempted=1@2:cancel;3@4:requeue"} {
		f.Add(s)
	}
	f.Add("runs=0.003-10.500:0-3 lost=1.5")
	f.Fuzz(func(t *testing.T, meta string) {
		for _, tick := range []int64{1, 1000} {
			roundTrip(t, meta, tick)
		}
	})
}

// roundTrip checks FuzzParsePreemption's property for a run in ticks of
// 1/tick second.
func roundTrip(t *testing.T, meta string, tick int64) {
	p, err := ParsePreemptionIn(meta, tick)
	if err != nil || !p.HasTier || len(p.Runs) == 0 {
		return
	}
	j := workload.Job{}
	r := &sim.Record{Job: &j, HasTier: true, Tier: p.Tier, Preemptions: p.Preemptions, Runs: p.Runs, LostRun: p.Lost}
	again, err := ParsePreemptionIn(strings.Join(appendPreemption(nil, r, tick), " "), tick)
	if err != nil || again.Tier != p.Tier || again.Lost != p.Lost || !reflect.DeepEqual(again.Preemptions, p.Preemptions) || len(again.Runs) != len(p.Runs) {
		t.Fatalf("%q in 1/%d s: read %+v, written and read again %+v (%v)", meta, tick, p, again, err)
	}
}

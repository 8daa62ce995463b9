package hpcpack

import (
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// A license pool asked to grow a running job takes only the licenses the
// growth adds, answers 1 when they are short, and a revert gives back only
// what the growth took.
func TestLicensePoolGrow(t *testing.T) {
	pool := &LicensePool{Total: map[string]int{"fs": 8, "mat": 2}}
	j := workload.Job{Seq: 1, Procs: 2, Licenses: "fs:*,mat:1"}
	start := &Activation{Job: &j, Resources: 2}
	if r := pool.FilterActivation(start); r.Code != ActivateStart {
		t.Fatalf("start: %+v", r)
	}
	if pool.Free("fs") != 6 || pool.Free("mat") != 1 {
		t.Fatalf("after the start: %d fs, %d mat free, want 6 and 1", pool.Free("fs"), pool.Free("mat"))
	}
	// Growing to 10 needs 8 more fs: short (6 free).
	if r := pool.FilterActivation(&Activation{Job: &j, Resources: 10, Grow: true, Index: -1}); r.Code != ActivateBlockQueue {
		t.Errorf("grow to 10: %+v, want 1", r)
	}
	// Growing to 6 takes 4 more; a revert gives them back.
	g := &Activation{Job: &j, Resources: 6, Grow: true, Index: -1}
	if r := pool.FilterActivation(g); r.Code != ActivateStart || pool.Free("fs") != 2 || pool.Free("mat") != 1 {
		t.Errorf("grow to 6: %+v, %d fs %d mat free, want 0, 2 and 1", r, pool.Free("fs"), pool.Free("mat"))
	}
	pool.RevertActivation(g)
	if pool.Free("fs") != 6 || pool.Free("mat") != 1 {
		t.Errorf("after the revert: %d fs, %d mat free, want 6 and 1", pool.Free("fs"), pool.Free("mat"))
	}
	// Grow to 8 for good; the job's end gives back all it holds.
	if r := pool.FilterActivation(&Activation{Job: &j, Resources: 8, Grow: true, Index: -1}); r.Code != ActivateStart || pool.Free("fs") != 0 {
		t.Errorf("grow to 8: %+v, %d fs free, want 0", r, pool.Free("fs"))
	}
	pool.JobEnded(policy.Ended{Seq: 1})
	if pool.Free("fs") != 8 || pool.Free("mat") != 2 {
		t.Errorf("after the end: %d fs, %d mat free, want 8 and 2", pool.Free("fs"), pool.Free("mat"))
	}
}

// A quota counts a growing job's run with the processors it held in each
// part: 2 from 0 to 100, 8 after; a refused growth (quota used up) answers
// 1 and leaves Hold Until alone; a reverted growth counts as before it.
func TestQuotaGrow(t *testing.T) {
	q := &Quota{Limit: 1000, Window: 10000}
	j := workload.Job{Seq: 1, User: 4}
	if r := q.FilterActivation(&Activation{Job: &j, Now: 0, Resources: 2}); r.Code != ActivateStart {
		t.Fatalf("start: %+v", r)
	}
	g := &Activation{Job: &j, Now: 100, Resources: 8, Grow: true, Index: -1}
	if r := q.FilterActivation(g); r.Code != ActivateStart {
		t.Fatalf("grow: %+v", r)
	}
	if got := q.Used(4, 150); got != 2*100+8*50 {
		t.Errorf("used at 150: %.0f, want %d", got, 2*100+8*50)
	}
	q.RevertActivation(g)
	if got := q.Used(4, 150); got != 2*150 {
		t.Errorf("used at 150 after the revert: %.0f, want %d", got, 2*150)
	}
	// At 500 the user has used 1000: growth is refused, no hold.
	if r := q.FilterActivation(&Activation{Job: &j, Now: 500, Resources: 8, Grow: true, Index: -1}); r.Code != ActivateBlockQueue || j.HoldUntil != 0 {
		t.Errorf("grow at 500: %+v, hold until %d; want 1 and no hold", r, j.HoldUntil)
	}
	q.JobEnded(policy.Ended{Seq: 1, User: 4, Start: 0, End: 600, Procs: 2})
	if got := q.Used(4, 600); got != 1200 {
		t.Errorf("used after the end: %.0f, want 1200", got)
	}
}

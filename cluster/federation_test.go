package cluster

import (
	"strings"
	"testing"
)

// TestFederation places jobs on a cluster of clusters: a member that can
// run the job, the least loaded relative to speed, the faster on equal
// loads; ids shifted per member; run times scaled by speed.
func TestFederation(t *testing.T) {
	slow := &Spec{Select: SelectLinear, Groups: []NodeGroup{{Name: "s", Count: 4, Cores: 1, Speed: 1}}}
	fast := &Spec{Select: SelectConsRes, Groups: []NodeGroup{{Name: "f", Count: 1, Cores: 4, Speed: 2, MemoryMB: 1}}}
	type step struct {
		req   Request
		where string  // allocation, "-" = does not fit now
		scale float64 // expected Scale of the allocation
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"equal load: the faster", []step{{Request{Procs: 1}, "4", 0.5}}},
		{"load relative to speed", []step{
			{Request{Procs: 2}, "4-5", 0.5}, // fast: 2/4 busy, load 0.25
			{Request{Procs: 1}, "0", 1},     // slow idle: load 0
			{Request{Procs: 1}, "6", 0.5},   // slow 1/4 = 0.25, fast 0.25: the faster
			{Request{Procs: 1}, "1", 1},     // slow 0.25 < fast 0.375
			{Request{Procs: 3}, "-", 0},     // neither has 3 free
			{Request{Procs: 2}, "2-3", 1},   // only slow has 2
		}},
		{"only one can satisfy it", []step{{Request{Procs: 1, MemKB: 2048}, "0", 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := MemberOf(slow)
			if err != nil {
				t.Fatal(err)
			}
			mf, err := MemberOf(fast)
			if err != nil {
				t.Fatal(err)
			}
			f := NewFederation([]FederationMember{ms, mf})
			if f.Capacity() != 8 {
				t.Fatalf("capacity %d", f.Capacity())
			}
			for k, s := range tc.steps {
				rs, ok := f.RunNow(s.req, nil)
				got := fmtRanges(rs)
				if !ok {
					got = "-"
				}
				if got != s.where || ok != f.Fits(s.req) {
					t.Fatalf("step %d: RunNow = %q, want %q", k, got, s.where)
				}
				if !ok {
					continue
				}
				if sc := f.Scale(rs); sc != s.scale {
					t.Errorf("step %d: scale %g, want %g", k, sc, s.scale)
				}
				f.Commit(s.req, rs)
			}
		})
	}
	t.Run("TEST_ONLY gives every member's reason", func(t *testing.T) {
		ms, _ := MemberOf(slow)
		mf, _ := MemberOf(fast)
		f := NewFederation([]FederationMember{ms, mf})
		ok, why := f.TestOnly(Request{Procs: 9})
		if ok || !strings.Contains(why, "cluster 1: needs 9") || !strings.Contains(why, "cluster 2: needs 9") ||
			!strings.Contains(why, "the clusters together can hold 8 of its processors") {
			t.Errorf("TestOnly = %v %q", ok, why)
		}
		rs, _ := f.RunNow(Request{Procs: 4}, nil)
		f.Commit(Request{Procs: 4}, rs)
		c := CloneInto(nil, f)
		if c.Free() != f.Free() || f.Release(Request{Procs: 4}, rs) != 4 || c.Free() == f.Free() {
			t.Errorf("clone not independent: %d / %d free", c.Free(), f.Free())
		}
	})
}

// TestFederationSpanning: a job no single cluster can hold is assigned a
// cluster of clusters (SPEC §5): 5 processors on a 4-node linear cluster
// (ids 0-3, speed 1) and a 4-core cons_res one (ids 4-7, speed 2) take the
// first's 4 nodes and 1 core of the second, run at the slower's pace, and
// come back whole; with AtStart such a job is refused.
func TestFederationSpanning(t *testing.T) {
	slow := &Spec{Select: SelectLinear, Groups: []NodeGroup{{Name: "s", Count: 4, Cores: 1, Speed: 1}}}
	fast := &Spec{Select: SelectConsRes, Groups: []NodeGroup{{Name: "f", Count: 1, Cores: 4, Speed: 2}}}
	ms, _ := MemberOf(slow)
	mf, _ := MemberOf(fast)
	f := NewFederation([]FederationMember{ms, mf})
	r := Request{Procs: 5}
	if ok, why := f.TestOnly(r); !ok {
		t.Fatalf("TestOnly = false %q", why)
	}
	if k := f.Assign(r); k != Spanning {
		t.Fatalf("Assign = %d, want Spanning", k)
	}
	r.Member = Spanning
	rs, ok := f.RunNow(r, nil)
	if got := string(FormatRanges(nil, rs)); !ok || got != "0-4" {
		t.Fatalf("RunNow = %q %v, want 0-4", got, ok)
	}
	if sc := f.Scale(rs); sc != 1 {
		t.Errorf("scale %g, want 1 (the slower cluster's)", sc)
	}
	if n := f.Commit(r, rs); n != 5 || f.Free() != 3 {
		t.Errorf("Commit = %d, %d free; want 5, 3", n, f.Free())
	}
	if f.Fits(r) {
		t.Error("a second spanning job of 5 fits 3 free processors")
	}
	if n := f.Release(r, rs); n != 5 || f.Free() != 8 {
		t.Errorf("Release = %d, %d free; want 5, 8", n, f.Free())
	}
	f.AtStart = true
	if ok, _ := f.TestOnly(Request{Procs: 5}); ok {
		t.Error("AtStart: a job no single cluster holds is let in")
	}
}

package cluster

import (
	"strings"
	"testing"
)

// TestPartitions routes requests to partitions: by SWF number (Partition.SWF,
// else the position from 1), else the default one; a job runs on its
// partition's nodes only and TEST_ONLY rejects it beyond the partition's
// cores or MaxTime.
func TestPartitions(t *testing.T) {
	spec := func(sel string) *Spec {
		return &Spec{Select: sel,
			Groups: []NodeGroup{{Name: "a", Count: 2, Cores: 4}, {Name: "b", Count: 2, Cores: 8}},
			Partitions: []Partition{
				{Name: "small", Groups: []string{"a"}, MaxTime: 100, Default: true},
				{Name: "big", Groups: []string{"b"}, SWF: 5},
				{Name: "all", Groups: []string{"b", "a", "a"}},
			}}
	}
	tests := []struct {
		name     string
		busy     string // linear: nodes; cons_res: cores (of a 1-processor job each range)
		req      Request
		reason   string // TEST_ONLY's reason; "" = ok
		linear   string // RunNow; "-" = does not fit now
		consRes  string
		busyCore string
	}{
		{"default partition", "", Request{Procs: 8}, "", "0-1", "0-7", ""},
		{"too big for the default partition", "", Request{Procs: 9}, "partition small has 8", "", "", ""},
		{"longer than MaxTime", "", Request{Procs: 1, TimeSec: 101}, "exceeds partition small's MaxTime of 100 s", "", "", ""},
		{"within MaxTime", "", Request{Procs: 1, TimeSec: 100}, "", "0", "0", ""},
		{"by SWF number", "", Request{Procs: 4, Partition: 5}, "", "2", "8-11", ""},
		{"by position", "", Request{Procs: 20, Partition: 3, TimeSec: 1000}, "", "0-3", "0-19", ""},
		{"unknown number: default", "", Request{Procs: 2, Partition: 2}, "", "0", "0-1", ""},
		{"partition full, others idle", "0-1", Request{Procs: 1}, "", "-", "-", "0-7"},
		{"the other partition's nodes are not used", "2", Request{Procs: 9, Partition: 5}, "", "-", "-", "8-15"},
	}
	for _, tc := range tests {
		for _, sel := range []string{SelectLinear, SelectConsRes} {
			t.Run(tc.name+"/"+sel, func(t *testing.T) {
				a, err := spec(sel).NewAllocator()
				if err != nil {
					t.Fatal(err)
				}
				busy, want := tc.busy, tc.linear
				if sel == SelectConsRes {
					busy, want = tc.busyCore, tc.consRes
				}
				if busy != "" {
					rs := mustRanges(t, busy)
					n := 0
					for _, r := range rs {
						n += r.Len()
					}
					if sel == SelectLinear {
						n = 1 // whole nodes hold at least one processor
					}
					a.Commit(Request{Procs: n}, rs)
				}
				ok, why := a.TestOnly(tc.req)
				if ok != (tc.reason == "") || !strings.Contains(why, tc.reason) {
					t.Fatalf("TestOnly = %v %q, want reason %q", ok, why, tc.reason)
				}
				if !ok {
					return
				}
				rs, fits := a.RunNow(tc.req, nil)
				got := fmtRanges(rs)
				if !fits {
					got = "-"
				}
				if got != want || fits != a.Fits(tc.req) {
					t.Errorf("RunNow = %q (Fits %v), want %q", got, a.Fits(tc.req), want)
				}
			})
		}
	}
}

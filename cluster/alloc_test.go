package cluster

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

func fmtRanges(rs []Range) string { return string(FormatRanges(nil, rs)) }

func mustRanges(t *testing.T, s string) []Range {
	t.Helper()
	rs, err := ParseRanges(s)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestLinearBestFit(t *testing.T) {
	tests := []struct {
		name   string
		spec   *Spec
		busy   string // nodes taken first
		procs  int
		want   string // nodes chosen; "" = does not fit
		wantCP int    // processors held
	}{
		{"empty machine takes the lowest nodes", SinglePool(10), "", 3, "0-2", 3},
		{"smallest sufficient set, ties to the lowest", SinglePool(10), "2-3 6", 2, "0-1", 2},
		{"smallest sufficient set over a larger one first", SinglePool(10), "2-3 6", 3, "7-9", 3},
		{"exact hole preferred to the first", SinglePool(12), "3 5-8", 1, "4", 1},
		{"no set suffices: largest first, then best fit", SinglePool(10), "2-3 6", 5, "0-1 7-9", 5},
		{"no set suffices: three sets", SinglePool(10), "2 5 8", 6, "0-1 3-4 6-7", 6},
		{"all free nodes", SinglePool(10), "2 5 8", 7, "0-1 3-4 6-7 9", 7},
		{"too big for the free nodes", SinglePool(10), "2-3 6", 8, "", 0},
		{"whole nodes of 4 cores", &Spec{Groups: []NodeGroup{{Name: "a", Count: 4, Cores: 4}}}, "", 5, "0-1", 8},
		{"heterogeneous: first nodes of the best set", &Spec{Groups: []NodeGroup{{Name: "small", Count: 2, Cores: 2}, {Name: "big", Count: 2, Cores: 8}}}, "0", 6, "1-2", 10},
		{"heterogeneous: smallest sufficient set by cores", &Spec{Groups: []NodeGroup{{Name: "small", Count: 2, Cores: 2}, {Name: "big", Count: 2, Cores: 8}}}, "2", 6, "3", 8},
		{"heterogeneous: small set suffices", &Spec{Groups: []NodeGroup{{Name: "small", Count: 2, Cores: 2}, {Name: "big", Count: 2, Cores: 8}}}, "2", 4, "0-1", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLinear(tc.spec)
			if tc.busy != "" {
				l.Commit(Request{Procs: 1}, mustRanges(t, tc.busy))
			}
			free := l.Free()
			rs, ok := l.RunNow(Request{Procs: tc.procs}, nil)
			if ok != (tc.want != "") || ok != l.Fits(Request{Procs: tc.procs}) {
				t.Fatalf("RunNow ok %v, Fits %v, want %v", ok, l.Fits(Request{Procs: tc.procs}), tc.want != "")
			}
			if !ok {
				return
			}
			if got := fmtRanges(rs); got != tc.want {
				t.Errorf("chose nodes %q, want %q", got, tc.want)
			}
			held := l.Commit(Request{Procs: tc.procs}, rs)
			if tc.wantCP > 0 && held != tc.wantCP {
				t.Errorf("holds %d processors, want %d", held, tc.wantCP)
			}
			if l.Free() != free-held {
				t.Errorf("free %d after taking %d of %d", l.Free(), held, free)
			}
			if back := l.Release(Request{Procs: tc.procs}, rs); back != held || l.Free() != free {
				t.Errorf("release gave back %d, free %d, want %d and %d", back, l.Free(), held, free)
			}
		})
	}
}

// TestLinearMatchesMachine checks the base case: on single-core nodes a job
// fits Linear exactly when it fits a Machine, whatever the history.
func TestLinearMatchesMachine(t *testing.T) {
	const size = 64
	l, m := NewLinear(SinglePool(size)), NewMachine(size)
	type held struct{ l, m []Range }
	var running []held
	seed := uint32(7)
	rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
	for step := 0; step < 5000; step++ {
		if len(running) > 0 && rnd(3) == 0 {
			k := rnd(len(running))
			h := running[k]
			l.Release(Request{}, h.l)
			m.Release(h.m)
			running = append(running[:k], running[k+1:]...)
			continue
		}
		n := 1 + rnd(size)
		r := Request{Procs: n}
		if l.Fits(r) != m.Fits(n) {
			t.Fatalf("step %d: %d procs: linear fits %v, machine %v", step, n, l.Fits(r), m.Fits(n))
		}
		if !m.Fits(n) {
			continue
		}
		rs, ok := l.RunNow(r, nil)
		if !ok || l.Commit(r, rs) != n {
			t.Fatalf("step %d: linear cannot place %d of %d free", step, n, l.Free()+n)
		}
		running = append(running, held{rs, m.Alloc(n, nil)})
		if l.Free() != m.Free() {
			t.Fatalf("step %d: free %d, machine %d", step, l.Free(), m.Free())
		}
	}
}

const gb = 1 << 20 // KB

func TestConsResSharingAndMemory(t *testing.T) {
	spec := &Spec{Select: SelectConsRes, Groups: []NodeGroup{{Name: "n", Count: 2, Cores: 4, MemoryMB: 8 * 1024}}}
	type step struct {
		req  Request
		want string // cores chosen; "" = does not fit now
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"jobs share a node", []step{
			{Request{Procs: 3}, "0-2"},
			{Request{Procs: 3}, "3-5"}, // core 3 of node 0, cores 4-5 of node 1
			{Request{Procs: 2}, "6-7"},
			{Request{Procs: 1}, ""},
		}},
		{"memory bounds the cores of a node", []step{
			{Request{Procs: 4, MemKB: 3 * gb}, "0-1 4-5"}, // 2 per node of 8 GB
			{Request{Procs: 1, MemKB: 3 * gb}, ""},        // cores free, memory not
			{Request{Procs: 4, MemKB: 1 * gb}, "2-3 6-7"}, // 2 GB left on each node
		}},
		{"memory full though cores idle", []step{
			{Request{Procs: 1, MemKB: 7 * gb}, "0"},
			{Request{Procs: 1, MemKB: 7 * gb}, "4"},
			{Request{Procs: 1, MemKB: 2 * gb}, ""},
			{Request{Procs: 2, MemKB: 1 * gb}, "1 5"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewConsRes(spec)
			type held struct {
				r  Request
				rs []Range
			}
			var hs []held
			for k, s := range tc.steps {
				rs, ok := c.RunNow(s.req, nil)
				if ok != (s.want != "") || ok != c.Fits(s.req) {
					t.Fatalf("step %d: RunNow ok %v, Fits %v, want %v", k, ok, c.Fits(s.req), s.want != "")
				}
				if !ok {
					continue
				}
				if got := fmtRanges(rs); got != s.want {
					t.Fatalf("step %d: cores %q, want %q", k, got, s.want)
				}
				if n := c.Commit(s.req, rs); n != s.req.Procs {
					t.Fatalf("step %d: holds %d, want %d", k, n, s.req.Procs)
				}
				hs = append(hs, held{s.req, rs})
			}
			for _, h := range hs {
				c.Release(h.r, h.rs)
			}
			if c.Free() != 8 {
				t.Errorf("free %d after releasing everything, want 8", c.Free())
			}
			for i, nd := range c.nodes {
				if nd.freeKB != nd.memKB {
					t.Errorf("node %d: %d KB free of %d after releasing everything", i, nd.freeKB, nd.memKB)
				}
			}
		})
	}
}

func TestTestOnly(t *testing.T) {
	cons := &Spec{Select: SelectConsRes, Groups: []NodeGroup{{Name: "n", Count: 2, Cores: 4, MemoryMB: 8 * 1024}, {Name: "nomem", Count: 1, Cores: 2}}}
	lin := &Spec{Groups: []NodeGroup{{Name: "n", Count: 2, Cores: 4, MemoryMB: 8 * 1024}}}
	tests := []struct {
		name   string
		spec   *Spec
		req    Request
		reason string // "" = can run
	}{
		{"cons_res fits", cons, Request{Procs: 10}, ""},
		{"cons_res too many processors", cons, Request{Procs: 11}, "needs 11 processors, cluster has 10"},
		{"cons_res memory fits on untracked nodes", cons, Request{Procs: 6, MemKB: 3 * gb}, ""},
		{"cons_res memory too much for all nodes", cons, Request{Procs: 7, MemKB: 3 * gb}, "the nodes' memory holds 6"},
		{"cons_res more per processor than any node", &Spec{Select: SelectConsRes, Groups: cons.Groups[:1]}, Request{Procs: 1, MemKB: 9 * gb}, "largest node has"},
		{"linear fits", lin, Request{Procs: 8, MemKB: 9 * gb}, ""},
		{"linear too many processors", lin, Request{Procs: 9}, "needs 9 processors, cluster has 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := tc.spec.NewAllocator()
			if err != nil {
				t.Fatal(err)
			}
			ok, reason := a.TestOnly(tc.req)
			if ok != (tc.reason == "") || !strings.Contains(reason, tc.reason) {
				t.Errorf("TestOnly = %v, %q; want reason containing %q", ok, reason, tc.reason)
			}
		})
	}
}

func TestSpecValidate(t *testing.T) {
	g := []NodeGroup{{Name: "a", Count: 2, Cores: 4}}
	tests := []struct {
		name string
		spec Spec
		want string // "" = valid
	}{
		{"valid", Spec{Groups: g, Partitions: []Partition{{Name: "p", Groups: []string{"a"}}}}, ""},
		{"no groups", Spec{}, "no node groups"},
		{"bad select", Spec{Select: "cons_tres", Groups: g}, "select"},
		{"zero count", Spec{Groups: []NodeGroup{{Name: "a", Cores: 1}}}, "count 0"},
		{"zero cores", Spec{Groups: []NodeGroup{{Name: "a", Count: 1}}}, "cores 0"},
		{"duplicate group", Spec{Groups: append(g, g[0])}, "twice"},
		{"unknown group in partition", Spec{Groups: g, Partitions: []Partition{{Name: "p", Groups: []string{"b"}}}}, "unknown node group"},
		{"default over max", Spec{Groups: g, Partitions: []Partition{{Name: "p", MaxTime: 10, DefaultTime: 20}}}, "exceeds"},
		{"bad oversubscribe", Spec{Groups: g, Partitions: []Partition{{Name: "p", OverSubscribe: "MAYBE"}}}, "oversubscribe"},
		{"cores overflowing int", Spec{Groups: []NodeGroup{{Name: "a", Count: 2, Cores: math.MaxInt}}}, "more than 67108864 cores"},
		{"one node of MaxInt cores", Spec{Groups: []NodeGroup{{Name: "a", Count: 1, Cores: math.MaxInt}}}, "more than 67108864 cores"},
		{"count × cores overflowing to a small number", Spec{Groups: []NodeGroup{{Name: "a", Count: 1 << 33, Cores: 1 << 31}}}, "more than 67108864 cores"},
		{"groups summing past the limit", Spec{Groups: []NodeGroup{{Name: "a", Count: 1 << 13, Cores: 1 << 13}, {Name: "b", Count: 1, Cores: 1}}}, `node group "b"`},
		{"at the limit", Spec{Groups: []NodeGroup{{Name: "a", Count: 1 << 13, Cores: 1 << 13}}}, ""},
		{"memory past the limit", Spec{Groups: []NodeGroup{{Name: "a", Count: 1, Cores: 1, MemoryMB: 1<<26 + 1}}}, "64 TiB"},
		{"speed NaN", Spec{Groups: []NodeGroup{{Name: "a", Count: 1, Cores: 1, Speed: math.NaN()}}}, "speed NaN"},
		{"speed +Inf", Spec{Groups: []NodeGroup{{Name: "a", Count: 1, Cores: 1, Speed: math.Inf(1)}}}, "speed +Inf"},
		{"speed negative", Spec{Groups: []NodeGroup{{Name: "a", Count: 1, Cores: 1, Speed: -1}}}, "speed -1"},
		{"speed 1e-15", Spec{Groups: []NodeGroup{{Name: "a", Count: 1, Cores: 1, Speed: 1e-15}}}, "from 0.001 to 1000"},
		{"speed 1e300", Spec{Groups: []NodeGroup{{Name: "a", Count: 1, Cores: 1, Speed: 1e300}}}, "from 0.001 to 1000"},
		{"speed at the bounds", Spec{Groups: []NodeGroup{{Name: "a", Count: 1, Cores: 1, Speed: MinSpeed}, {Name: "b", Count: 1, Cores: 1, Speed: MaxSpeed}}}, ""},
		{"partition max time past MaxTime", Spec{Groups: g, Partitions: []Partition{{Name: "p", MaxTime: workload.MaxTime + 1}}}, "workload.MaxTime"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.Validate()
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate() = %v, want %q", err, tc.want)
			}
			if err != nil && !errors.Is(err, ErrSpec) {
				t.Errorf("Validate() = %v does not wrap ErrSpec", err)
			}
		})
	}
}

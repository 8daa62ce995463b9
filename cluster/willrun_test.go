package cluster

import (
	"testing"

	"github.com/schedsim/schedsim/workload"
)

func TestWillRun(t *testing.T) {
	cons := &Spec{Select: SelectConsRes, Groups: []NodeGroup{{Name: "n", Count: 2, Cores: 4, MemoryMB: 8 * 1024}}}
	type hold struct {
		end   workload.Time
		req   Request
		alloc string
	}
	tests := []struct {
		name  string
		spec  *Spec
		held  []hold
		req   Request
		at    workload.Time
		where string
	}{
		{"fits now", SinglePool(4), []hold{{10, Request{Procs: 2}, "0-1"}}, Request{Procs: 2}, 1, "2-3"},
		{"after the later end", SinglePool(4), []hold{{10, Request{Procs: 2}, "0-1"}, {5, Request{Procs: 1}, "2"}}, Request{Procs: 3}, 10, "0-2"},
		{"after the earlier end", SinglePool(4), []hold{{10, Request{Procs: 2}, "0-1"}, {5, Request{Procs: 1}, "2"}}, Request{Procs: 2}, 5, "2-3"},
		{"never: too big", SinglePool(4), nil, Request{Procs: 5}, workload.Forever, ""},
		{"never: held forever", SinglePool(4), []hold{{workload.Forever, Request{Procs: 2}, "0-1"}}, Request{Procs: 3}, workload.Forever, ""},
		{"cons_res waits for memory, not cores", cons, []hold{{20, Request{Procs: 1, MemKB: 7 * gb}, "0"}, {30, Request{Procs: 1, MemKB: 7 * gb}, "4"}}, Request{Procs: 1, MemKB: 2 * gb}, 20, "0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := tc.spec.NewAllocator()
			if err != nil {
				t.Fatal(err)
			}
			var held []Held
			for _, h := range tc.held {
				rs := mustRanges(t, h.alloc)
				a.Commit(h.req, rs)
				held = append(held, Held{End: h.end, Req: h.req, Alloc: rs})
			}
			var scratch Allocator
			switch x := a.(type) {
			case *Linear:
				scratch = x.Clone()
			case *ConsRes:
				scratch = x.Clone()
			}
			free := a.Free()
			at, rs := WillRun(scratch, 1, tc.req, held, nil)
			if at != tc.at || fmtRanges(rs) != tc.where {
				t.Errorf("WillRun = %d on %q, want %d on %q", at, fmtRanges(rs), tc.at, tc.where)
			}
			if a.Free() != free {
				t.Errorf("WillRun on a clone changed the original: %d free, was %d", a.Free(), free)
			}
		})
	}
}

package policy

import (
	"testing"

	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/workload"
)

// TestPlanBounds: the proofs a pass keeps, and the bound each gives a job
// (the latest start of a proof of its class asking no more processors for
// no longer), after adds that keep, replace or are dropped.
func TestPlanBounds(t *testing.T) {
	a, b := fastpath.PlanClass{}, fastpath.PlanClass{Reservations: 1}
	type add struct {
		class fastpath.PlanClass
		procs int
		dur   workload.Time
		start workload.Time
	}
	type ask struct {
		class fastpath.PlanClass
		procs int
		dur   workload.Time
		want  workload.Time
	}
	cases := []struct {
		name string
		adds []add
		kept int
		asks []ask
	}{
		{"none", nil, 0, []ask{{a, 4, 100, 0}}},
		{"one", []add{{a, 4, 100, 50}}, 1, []ask{
			{a, 4, 100, 50}, {a, 8, 200, 50}, // asks as much or more
			{a, 3, 100, 0}, {a, 4, 99, 0}, // fewer processors, or shorter
			{b, 4, 100, 0}, // another class
		}},
		{"a later start for as much replaces", []add{{a, 4, 100, 50}, {a, 4, 100, 70}}, 1, []ask{{a, 4, 100, 70}}},
		{"an earlier start for more adds nothing", []add{{a, 4, 100, 50}, {a, 8, 100, 40}}, 1, []ask{{a, 8, 100, 50}}},
		{"a later start for less replaces", []add{{a, 8, 200, 50}, {a, 4, 100, 60}}, 1, []ask{{a, 8, 200, 60}, {a, 4, 100, 60}}},
		{"incomparable proofs both stay", []add{{a, 2, 300, 80}, {a, 8, 50, 90}}, 2, []ask{
			{a, 2, 300, 80}, {a, 8, 50, 90}, {a, 8, 300, 90}, {a, 4, 100, 0},
		}},
		{"classes apart", []add{{a, 4, 100, 50}, {b, 4, 100, 90}}, 2, []ask{{a, 4, 100, 50}, {b, 4, 100, 90}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var pb planBounds
			pb.reset(nil, false)
			for _, ad := range c.adds {
				pb.add(ad.class, ad.procs, ad.dur, ad.start)
			}
			if len(pb.e) != c.kept {
				t.Errorf("%d proofs kept, want %d: %+v", len(pb.e), c.kept, pb.e)
			}
			for _, q := range c.asks {
				if got := pb.from(q.class, q.procs, q.dur); got != q.want {
					t.Errorf("from(%v, %d, %d) = %d, want %d", q.class, q.procs, q.dur, got, q.want)
				}
			}
		})
	}
	// The oldest proof goes when too many are kept.
	var pb planBounds
	for k := 0; k < maxPlanBounds+5; k++ {
		pb.add(a, maxPlanBounds+5-k, workload.Time(k+1), workload.Time(10+k))
	}
	if len(pb.e) != maxPlanBounds || pb.e[0].start != 15 {
		t.Fatalf("%d proofs, the first from %d; want %d, from 15", len(pb.e), pb.e[0].start, maxPlanBounds)
	}
	pb.reset(nil, false)
	if len(pb.e) != 0 {
		t.Fatal("reset kept proofs")
	}
}

package cluster

import (
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// TestProfileSameFrom checks SameFrom, on which EASY's memo of its head's
// shadow rests: two profiles agree from the later one's start on exactly
// when their free processors are equal at every instant from there.
func TestProfileSameFrom(t *testing.T) {
	// running builds a profile from now of size 10 with jobs releasing
	// procs at their ends, as policy's runningProfile does.
	running := func(size int, now workload.Time, ends ...[2]int) *Profile {
		p := NewProfile(size, now)
		busy := 0
		for _, e := range ends {
			busy += e[1]
		}
		p.Add(now, workload.Forever, busy)
		for _, e := range ends {
			p.Release(workload.Time(e[0]), e[1])
		}
		return p
	}
	base := running(10, 0, [2]int{50, 4}, [2]int{80, 2})
	tests := []struct {
		name string
		p    *Profile
		want bool
	}{
		{"itself", running(10, 0, [2]int{50, 4}, [2]int{80, 2}), true},
		{"later start, same ends", running(10, 30, [2]int{50, 4}, [2]int{80, 2}), true},
		{"starting at a step", running(10, 50, [2]int{80, 2}), true},
		{"past every step", running(10, 90), true},
		{"an end moved", running(10, 30, [2]int{60, 4}, [2]int{80, 2}), false},
		{"a job ended", running(10, 30, [2]int{80, 2}), false},
		{"a job started", running(10, 30, [2]int{50, 4}, [2]int{80, 2}, [2]int{90, 1}), false},
		{"another size", running(12, 30, [2]int{50, 4}, [2]int{80, 2}), false},
		{"free differs at the start", running(10, 60), false},
		{"earlier start than the memo", running(10, -5, [2]int{50, 4}, [2]int{80, 2}), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.SameFrom(base); got != tc.want {
				t.Errorf("SameFrom = %v, want %v (steps %v, base %v)", got, tc.want, tc.p.steps, base.steps)
			}
			var c Profile
			c.CopyFrom(tc.p)
			if !c.SameFrom(tc.p) || !tc.p.SameFrom(&c) {
				t.Errorf("a copy differs: %v, want %v", c.steps, tc.p.steps)
			}
		})
	}
}

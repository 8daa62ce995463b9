package policy

import (
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// TestPhaseClock: the drift a cycle of bf_interval adds is its duration,
// at every cycle instant while jobs wait (counted at the next pass), none
// while the queue is empty; a job is seen ended once the drift passes its
// completion's offset.
func TestPhaseClock(t *testing.T) {
	s := &Slurm{}
	s.p = SlurmParams{Interval: 2, Phase: 1, MaxJobTest: 3}.withDefaults()
	cost := func(q int) int64 { return s.cycleCost(q) }
	tests := []struct {
		name   string
		passes []struct {
			now        workload.Time
			before, at int
		} // queue before the pass, tested by its cycle
		wantD    int64
		wantNext workload.Time
	}{
		// Cycles at 1, 3, 5, …: the pass at 1 runs one testing 2 jobs
		// (300 + 500); the pass at 7 counts those of 3 and 5 with the 2
		// jobs left, then its own with 1: 800 + 2·800 + 550.
		{"cycles between passes count with the queue they saw", []struct {
			now        workload.Time
			before, at int
		}{{1, 0, 2}, {7, 2, 1}}, 800 + 1600 + 550, 9},
		// No job waits from 1 to 7: those cycles take nothing.
		{"an empty queue adds nothing", []struct {
			now        workload.Time
			before, at int
		}{{1, 0, 2}, {7, 0, 1}}, 800 + 550, 9},
		// A pass at 4 is not a cycle instant: it counts the cycle of 3
		// only; bf_max_job_test=3 caps the jobs tested.
		{"between instants; bf_max_job_test caps the cost", []struct {
			now        workload.Time
			before, at int
		}{{1, 0, 9}, {4, 9, 9}}, 1050 + 1050, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := phaseClock{cost: cost}
			for _, p := range tc.passes {
				c.advance(p.now, s.p.Phase, s.p.Interval, p.before)
				c.ran(p.now, s.p.Interval, p.at)
			}
			if c.d != tc.wantD || c.next != tc.wantNext {
				t.Errorf("drift %d µs, next instant %d; want %d, %d", c.d, c.next, tc.wantD, tc.wantNext)
			}
		})
	}
	c := phaseClock{cost: cost}
	c.started(7, 1000)
	for _, tc := range []struct {
		d    int64
		seen bool
	}{{999, false}, {1000, false}, {1001, true}} {
		c.d = tc.d
		if got := c.seen(7); got != tc.seen {
			t.Errorf("drift %d, end at 1000: seen %v, want %v", tc.d, got, tc.seen)
		}
	}
	if c.seen(8) {
		t.Error("a job the clock does not know is seen ended")
	}
	if at, ok := c.ended(7); !ok || at != 1000 || c.seen(7) {
		t.Errorf("ended(7) = %d, %v; and it is forgotten", at, ok)
	}
}

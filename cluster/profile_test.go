package cluster

import (
	"math/rand/v2"
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

// TestEarliestBefore compares EarliestBefore with what conservative
// backfilling did before it: take the reservation out, find the earliest
// start (here by MinFree at every step's start, not by the walk Earliest
// shares with EarliestBefore), and keep it if it is before the
// reservation's start. The profiles
// are random plans, so the reservation's ends are often not step
// boundaries (its neighbours had the same free processors), runs and
// reservations may last forever, and the walk may start inside it.
func TestEarliestBefore(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		p, now, plans := randomPlans(r, 5+r.IntN(40), true)
		size := p.Size()
		dur := func() workload.Time { return randomDur(r, true) }
		for _, own := range plans {
			for range 8 {
				from := now + workload.Time(r.IntN(int(min(own.start-now+20, 400))))
				procs, d := 1+r.IntN(size), dur()
				if r.IntN(2) == 0 {
					procs = own.procs // the job itself, as replan asks
					d = own.end - own.start
					if own.end >= workload.Forever {
						d = workload.Forever
					}
				}
				var q Profile
				q.CopyFrom(p)
				q.Remove(own.start, own.end, own.procs)
				want := earliestByMinFree(&q, from, procs, d)
				if want >= own.start {
					want = workload.Forever
				}
				if got := p.EarliestBefore(from, procs, d, own.start, own.end, own.procs); got != want {
					t.Fatalf("seed %d: EarliestBefore(%d, %d, %d) without [%d, %d)×%d = %d, want %d (steps %v)",
						seed, from, procs, d, own.start, own.end, own.procs, got, want, p.steps)
				}
			}
		}
	}
}

// TestReader reads random profiles forward, in small steps and long
// jumps, and requires Reader.At to give what FreeAt and NextChange give;
// and NextChange to answer workload.Forever exactly from LastChange on.
func TestReader(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 13))
		p, now, _ := randomPlans(r, r.IntN(60), false)
		u := now + workload.Time(r.IntN(20))
		rd := p.ReaderFrom(u)
		for range 80 {
			free, next := rd.At(u)
			if free != p.FreeAt(u) || next != p.NextChange(u) {
				t.Fatalf("seed %d: At(%d) = %d, %d; want %d, %d (steps %v)", seed, u, free, next, p.FreeAt(u), p.NextChange(u), p.steps)
			}
			if (next >= workload.Forever) != (u >= p.LastChange()) {
				t.Fatalf("seed %d: NextChange(%d) = %d, LastChange %d", seed, u, next, p.LastChange())
			}
			switch r.IntN(3) {
			case 0: // to the next change, as the walks do
				if next < workload.Forever {
					u = next
				}
			case 1: // within the step, or not at all
				u += workload.Time(r.IntN(3))
			default: // a long jump
				u += workload.Time(r.IntN(150))
			}
		}
	}
}

// plan is a reservation a random plan placed in a profile.
type plan struct {
	start, end workload.Time
	procs      int
}

// randomPlans returns a profile of 1 to 32 processors from a random start
// now, with up to jobs reservations each placed at its earliest start from
// a random instant, and those reservations; with forever, one in twelve
// lasts forever.
func randomPlans(r *rand.Rand, jobs int, forever bool) (*Profile, workload.Time, []plan) {
	size := 1 + r.IntN(32)
	now := workload.Time(r.IntN(100))
	p := NewProfile(size, now)
	var plans []plan
	for range jobs {
		procs, d := 1+r.IntN(size), randomDur(r, forever)
		s := p.Earliest(now+workload.Time(r.IntN(80)), procs, d)
		if s >= workload.Forever {
			continue
		}
		end := workload.Forever
		if d < workload.Forever {
			end = s + d
		}
		p.Add(s, end, procs)
		plans = append(plans, plan{s, end, procs})
	}
	return p, now, plans
}

// randomDur returns a run of 1 to 60 s, or with forever one in twelve
// times workload.Forever.
func randomDur(r *rand.Rand, forever bool) workload.Time {
	if forever && r.IntN(12) == 0 {
		return workload.Forever
	}
	return 1 + workload.Time(r.IntN(60))
}

// earliestByMinFree is Earliest the slow way: the first of from and the
// steps' starts after it from which MinFree over the run is procs or more.
func earliestByMinFree(p *Profile, from workload.Time, procs int, dur workload.Time) workload.Time {
	from = max(from, p.Start())
	fits := func(t workload.Time) bool {
		end := workload.Forever
		if dur < workload.Forever-t {
			end = t + dur
		}
		return procs <= p.size && p.MinFree(t, end) >= procs
	}
	if fits(from) {
		return from
	}
	for _, st := range p.steps {
		if st.at > from && fits(st.at) {
			return st.at
		}
	}
	return workload.Forever
}

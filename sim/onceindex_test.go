package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// TestOnceIndexMatchesWalk is the oracle test of onceIndex: on seeded
// random one-off reservations — for maintenance or for users, some
// sharing boundaries, some nested, some holding the whole machine (no
// procs) or more than it — withheld and withheldCount answer, for jobs of
// users admitted or not and at every boundary and instants between, what
// the walk over every reservation (recurrence.at, as before the index)
// answers, with the index holding the reservations that admit some jobs
// and with it holding only the sums (its cap reached).
func TestOnceIndexMatchesWalk(t *testing.T) {
	const procs = 64
	for _, cap := range []int{1 << 22, 3} {
		for seed := range uint64(40) {
			t.Run(fmt.Sprintf("cap%d/seed%d", cap, seed), func(t *testing.T) {
				defer func(c int) { onceIndexCap = c }(onceIndexCap)
				onceIndexCap = cap
				rng := rand.New(rand.NewPCG(seed, 7))
				var rs []Reservation
				for k := range 1 + rng.IntN(60) {
					r := Reservation{Name: fmt.Sprint("r", k), Start: workload.Time(rng.IntN(200)) * 10, Duration: workload.Time(1+rng.IntN(30)) * 10, Until: workload.Forever, Recur: RecurOnce, Procs: rng.IntN(80)}
					if rng.IntN(3) == 0 {
						r.Maint = true
					} else {
						r.Users = []int{rng.IntN(4)}
					}
					rs = append(rs, r)
				}
				cs, err := newConstraints(&Constraints{Reservations: rs}, procs)
				if err != nil {
					t.Fatal(err)
				}
				if cs.once == nil {
					t.Fatal("no index of the one-off reservations")
				}
				if cap == 3 && len(cs.loop) == 0 && len(cs.once.ids) > 0 {
					t.Fatal("the cap left the reservations admitting some jobs in the index")
				}
				walk := func(j *workload.Job, at workload.Time) (int, workload.Time) {
					held, next := 0, workload.Forever
					for k, r := range cs.resv {
						active, n := r.at(at)
						next = min(next, n)
						if active && !rs[k].Admits(j) {
							held += cs.resvPr[k]
						}
					}
					return min(held, procs), next
				}
				for user := -1; user < 5; user++ {
					j := &workload.Job{ID: 1, User: user, Group: -1, Partition: -1, Procs: 1}
					// Forward, as walks go, then at random (the hint).
					var ats []workload.Time
					for at := workload.Time(-15); at < 2400; at += 5 {
						ats = append(ats, at)
					}
					for range 200 {
						ats = append(ats, workload.Time(rng.IntN(2500)-20))
					}
					for _, at := range ats {
						wh, wn := walk(j, at)
						if h, n := cs.withheld(j, at); h != wh || n != wn {
							t.Fatalf("user %d at %d: withheld %d, next %d; the walk %d, %d", user, at, h, n, wh, wn)
						}
						if h, n := cs.withheldCount(j, at); h != wh || n != wn {
							t.Fatalf("user %d at %d: withheldCount %d, next %d; the walk %d, %d", user, at, h, n, wh, wn)
						}
						if n := cs.nextBoundary(at); n != wn {
							t.Fatalf("at %d: next boundary %d, the walk's %d", at, n, wn)
						}
					}
				}
			})
		}
	}
}

package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// TestAdmitMemoMatchesWalk is the oracle test of the admission cache
// (admitCache): on seeded random submissions over two years, each
// answer of admitEarliest — a start, or Forever for a rejection — is the
// walk's from the submission (emptyEarliest up to admitHorizon) on
// constraints of its own, under daily, weekday and weekly reservations
// that hold all or part of the machine, for users or for maintenance,
// one-off and ending ones, start windows, a zone with daylight saving,
// and reservations on nodes on a cluster of nodes. It checks that the
// cache was used (rejections answered without a walk, fits at once from
// a span) and that both answers occurred.
func TestAdmitMemoMatchesWalk(t *testing.T) {
	sthlm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Skipf("no zone data: %v", err)
	}
	const day = 86400
	sets := []struct {
		name  string
		nodes bool
		// ending: every reservation ends, so every job fits in the end
		// (some after waiting for the last one).
		ending bool
		c      Constraints
	}{
		{"partial-daily", false, false, Constraints{
			Calendar: workload.Calendar{Loc: time.UTC},
			Reservations: []Reservation{
				{Name: "half", Start: 3600, Duration: 600, Recur: RecurDaily, Until: workload.Forever, Procs: 24, Maint: true},
			},
			Windows: []StartWindow{{Partition: -1, Queue: -1, Days: weekdays, From: 7 * 3600, To: 16 * 3600, MaxWall: 4 * 3600}},
		}},
		{"drains-dst", false, false, Constraints{
			Calendar: workload.Calendar{Loc: sthlm, Epoch: 1_000_000_000},
			Reservations: []Reservation{
				{Name: "morning", Start: 7 * 3600, Duration: 1800, Recur: RecurWeekdays, Until: workload.Forever, Maint: true},
				{Name: "weekly", Start: 2 * day, Duration: 4 * 3600, Recur: RecurWeekly, Until: 300 * day, Procs: 40, Users: []int{1}},
				{Name: "once", Start: 100 * day, Duration: 3 * day, Until: workload.Forever, Procs: 16, Maint: true},
			},
			Windows: []StartWindow{{Partition: 1, Queue: -1, Days: allDays, From: 16 * 3600, To: 7 * 3600, MaxWall: 15 * 3600}},
		}},
		{"users-ending", false, true, Constraints{
			Calendar: workload.Calendar{Loc: sthlm},
			Reservations: []Reservation{
				{Name: "u0", Start: 5 * 3600, Duration: 2 * 3600, Recur: RecurDaily, Until: 200 * day, Procs: 48, Users: []int{0}},
				{Name: "acct", Start: 10 * day, Duration: 12 * 3600, Recur: RecurWeekends, Until: 500 * day, Procs: 32, Accounts: []int{2}},
			},
		}},
		{"nodes", true, false, Constraints{
			Calendar: workload.Calendar{Loc: time.UTC},
			Reservations: []Reservation{
				{Name: "n23", Start: 3600, Duration: 3600, Recur: RecurDaily, Until: workload.Forever, Procs: 32, Nodes: []cluster.Range{{Lo: 2, Hi: 4}}, Maint: true},
				{Name: "n0", Start: 50 * day, Duration: day, Until: workload.Forever, Procs: 16, Nodes: []cluster.Range{{Lo: 0, Hi: 1}}, Users: []int{1}},
				{Name: "count", Start: 20 * 3600, Duration: 600, Recur: RecurDaily, Until: 400 * day, Procs: 8, Maint: true},
			},
		}},
	}
	limits := []workload.Time{-1, -1, 600, 3600, 5 * 3600, 20 * 3600, 30 * 3600, 3 * day, 9 * day}
	for _, set := range sets {
		for seed := range 3 {
			t.Run(fmt.Sprintf("%s/seed%d", set.name, seed), func(t *testing.T) {
				const procs = 64
				mk := func() *constraints {
					cs, err := newConstraints(&set.c, procs)
					if err != nil {
						t.Fatal(err)
					}
					if set.nodes {
						spec := &cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 4, Cores: 16}}}
						al, err := spec.NewAllocator()
						if err != nil {
							t.Fatal(err)
						}
						if err := cs.initPins(al); err != nil {
							t.Fatal(err)
						}
						if cs.pins == nil {
							t.Fatal("no node selector: the case tests no nodes")
						}
					}
					cs.initWindows(0)
					return cs
				}
				memo, walk := mk(), mk()
				r := rand.New(rand.NewPCG(uint64(seed), 0xad))
				now := workload.Time(0)
				admitted, rejected, walks, waited := 0, 0, 0, 0
				for n := 0; n < 1500; n++ {
					now += workload.Time(r.IntN(2 * 3600))
					if r.IntN(40) == 0 {
						now += workload.Time(r.IntN(20 * day))
					}
					j := workload.Job{ID: int64(n), Procs: 1 + r.IntN(procs), User: r.IntN(3), Group: r.IntN(3), Partition: r.IntN(2), Queue: -1}
					if r.IntN(3) == 0 {
						j.Procs = []int{24, 40, 41, 48, 63, 64}[r.IntN(6)]
					}
					limit := limits[r.IntN(len(limits))]
					dur := memo.plannedRun(limit)
					before := len(memo.admitMemo.refused)
					got := memo.admitEarliest(&j, limit, dur, now)
					want := walk.emptyEarliest(&j, limit, dur, now, walk.admitHorizon(now))
					if got != want {
						t.Fatalf("job %d (%d procs, limit %d, user %d, group %d, partition %d) at %d: cached %d, the walk %d", n, j.Procs, limit, j.User, j.Group, j.Partition, now, got, want)
					}
					if got >= workload.Forever {
						rejected++
						if len(memo.admitMemo.refused) > before {
							walks++
						}
					} else {
						admitted++
						if got > now {
							waited++
						}
					}
				}
				if set.ending {
					if rejected > 0 || waited < 20 {
						t.Fatalf("%d rejected, %d admitted to a later start: every reservation ends", rejected, waited)
					}
				} else if admitted < 100 || rejected < 20 {
					t.Fatalf("%d admitted, %d rejected: the case tests too little", admitted, rejected)
				}
				if rejected > 0 && walks >= rejected {
					t.Fatalf("every one of %d rejections walked: the cache was never used", rejected)
				}
				if len(memo.admitMemo.clear) == 0 {
					t.Fatal("no span was kept: no job fitted at once through the cache")
				}
			})
		}
	}
}

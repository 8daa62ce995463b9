package sim_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestLimitsFastMatchesSlow is the oracle test of the owners' index: on
// seeded random overloaded workloads, with every kind of limit (per user,
// per association, per account, the whole association, unknown users),
// holds, reservations and a scheduler cycle, under every policy, a run
// whose passes look at the owners a limit leaves room for gives the same
// records — starts, ends, reasons, and the pending reason each job
// recorded — and the same statistics as a run whose passes walk the whole
// queue.
func TestLimitsFastMatchesSlow(t *testing.T) {
	const procs = 64
	pols := simtest.Policies(t)
	limitSets := []struct {
		name   string
		limits []sim.Limit
	}{
		{"max-jobs-per-user", []sim.Limit{{AllUsers: true, MaxJobsPerUser: 2}}},
		{"cpus-per-user", []sim.Limit{{AllUsers: true, MaxCPUsPerUser: 40}}},
		{"association", []sim.Limit{{AllUsers: true, MaxJobs: 1, MaxCPUs: 48}}},
		{"mixed", []sim.Limit{
			{Users: []int{0, 1}, MaxJobsPerUser: 1, GrpCPUs: 60},
			{Accounts: []int{2}, MaxCPUsPerUser: 32, MaxJobs: 2},
			{AllUsers: true, GrpCPUs: 56, MaxWall: 9000},
		}},
	}
	// The odd seeds have reservations too (a daily drain and a one-off
	// reservation for an account).
	seeds := simtest.Cases(12, 1)
	for _, pc := range pols {
		for _, ls := range limitSets {
			for _, cycle := range []workload.Time{0, 90} {
				name := fmt.Sprintf("%s/%s/cycle%d", pc.Name, ls.name, cycle)
				t.Run(name, func(t *testing.T) {
					for seed := range seeds {
						jobs := ownerJobs(uint64(seed+1), 250, procs)
						c := ownerConstraints(ls.limits, seed%2 == 1)
						run := func(slow bool) (string, sim.Stats) {
							cfg := sim.Config{Procs: procs, Policy: pc.New(), Constraints: c, SchedInterval: cycle}
							if slow {
								sim.SlowLimits(&cfg)
							}
							rec, st := simtest.Run(t, cfg, jobs)
							var b strings.Builder
							b.WriteString(simtest.Format(rec.Records))
							for _, r := range rec.Records {
								fmt.Fprintf(&b, "%d:%s ", r.Job.ID, r.Pending)
							}
							return b.String(), st
						}
						fast, fs := run(false)
						slow, ss := run(true)
						if fast != slow {
							t.Fatalf("seed %d: the owners' index and the whole queue's walk differ:\n%s", seed, simtest.FirstDiff(fast, slow))
						}
						if fs != ss {
							t.Fatalf("seed %d: stats differ: %+v, want %+v", seed, fs, ss)
						}
						if !strings.Contains(fast, ":"+sim.PendingLimit.String()) {
							t.Fatalf("seed %d: no job was held by a limit: the case tests nothing", seed)
						}
					}
				})
			}
		}
	}
}

// ownerJobs returns a random overloaded workload whose jobs belong to 6
// users (one unknown, −1) under 3 accounts, some of them held until a
// later time.
func ownerJobs(seed uint64, n, procs int) []workload.Job {
	jobs := syntheticJobs(seed, n, procs)
	r := rand.New(rand.NewPCG(seed, 0x0e5))
	for i := range jobs {
		jobs[i].Seq = int64(i)
		jobs[i].User = r.IntN(6) - 1
		jobs[i].Group = r.IntN(3)
		if r.IntN(15) == 0 {
			jobs[i].HoldUntil = jobs[i].Submit + workload.Time(1+r.IntN(3000))
		}
	}
	return jobs
}

// ownerConstraints returns limits, with reservations too when resv.
func ownerConstraints(limits []sim.Limit, resv bool) *sim.Constraints {
	c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}, Limits: limits}
	if resv {
		c.Reservations = []sim.Reservation{
			{Name: "drain", Start: 3 * 3600, Duration: 1800, Recur: sim.RecurDaily, Until: workload.Forever, Procs: 40, Maint: true},
			{Name: "acct1", Start: 7000, Duration: 4000, Until: workload.Forever, Procs: 24, Accounts: []int{1}},
		}
	}
	return c
}

// TestVerifyAssociations: verify counts the per-association limits
// (MaxJobs, GrpTRES=cpu on a user association) per (user, account): a
// user may run up to the limit under each of its accounts at once.
func TestVerifyAssociations(t *testing.T) {
	c := &sim.Constraints{Limits: []sim.Limit{{AllUsers: true, MaxJobs: 1, MaxCPUs: 3}}}
	ran := func(id int64, user, acct int, start workload.Time, procs, lo int) sim.Outcome {
		j := job(id, 0, procs, 10, 10)
		j.User, j.Group, j.Seq = user, acct, id
		return sim.Outcome{Job: j, State: sim.Completed, Start: start, End: start + 10, Alloc: []cluster.Range{{Lo: lo, Hi: lo + procs}}}
	}
	tests := []struct {
		name string
		outs []sim.Outcome
		want string // a violation's text, "" for none
	}{
		{"one job in each of two accounts", []sim.Outcome{ran(1, 5, 1, 0, 3, 0), ran(2, 5, 2, 0, 3, 3)}, ""},
		{"one after the other in one account", []sim.Outcome{ran(1, 5, 1, 0, 3, 0), ran(2, 5, 1, 10, 3, 3)}, ""},
		{"two users in one account", []sim.Outcome{ran(1, 5, 1, 0, 3, 0), ran(2, 6, 1, 0, 3, 3)}, ""},
		{"two at once in one account", []sim.Outcome{ran(1, 5, 1, 0, 1, 0), ran(2, 5, 1, 5, 1, 3)}, "user 5 ran 2 jobs under account 1 at 5, MaxJobs 1"},
		{"over GrpTRES=cpu", []sim.Outcome{ran(1, 5, 1, 0, 4, 0)}, "user 5 held 4 processors under account 1 at 0, the association's GrpTRES=cpu=3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs := sim.Verify(8, tc.outs, sim.VerifyOptions{Constraints: c})
			var got []string
			for _, v := range vs {
				got = append(got, v.Error())
			}
			all := strings.Join(got, "\n")
			switch {
			case tc.want == "" && len(vs) > 0:
				t.Fatalf("violations on a valid schedule:\n%s", all)
			case tc.want != "" && !strings.Contains(all, tc.want):
				t.Fatalf("want a violation %q, got:\n%s", tc.want, all)
			}
		})
	}
}

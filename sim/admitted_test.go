package sim_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestAdmittedJobsKeepPlans: a job that a reservation admits may not be
// backfilled onto processors that an earlier job's plan counted on. On
// 10 processors with 4 reserved for account 1 over [100, 200), job 1 (6
// processors, account -1) runs until 150. Job 2 (5 processors, account
// 0) fits first at 150: over [150, 200) 10 are free and the reservation
// holds 4 of them from it, leaving 6. Job 3 (4 processors, 200 s,
// account 1) fits the 4 free now by its own rule, but running over
// [150, 200) it would leave 10 - 5 - 4 = 1 beside the reservation's 4,
// and job 2 could not start before 200. So every policy starts jobs 2
// and 3 at 150. (Before, a reservation depth, conservative backfilling
// and Slurm's backfill started job 3 at 0 and job 2 at 200, and the
// engine stopped the depth and Slurm's at the broken promise.)
func TestAdmittedJobsKeepPlans(t *testing.T) {
	for _, tc := range policiesAndSlurm1s(t) {
		t.Run(tc.Name, func(t *testing.T) {
			jobs := []workload.Job{
				simtest.Job(1, 0, 6, 150, 150),
				simtest.Job(2, 0, 5, 100, 100),
				simtest.Job(3, 0, 4, 200, 200),
			}
			for i := range jobs {
				jobs[i].Seq, jobs[i].Group = int64(i), i-1
			}
			c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}, Reservations: []sim.Reservation{
				{Name: "acct1", Start: 100, Duration: 100, Until: workload.Forever, Procs: 4, Accounts: []int{1}}}}
			wantStarts(t, sim.Config{Procs: 10, Policy: tc.New(), Constraints: c}, jobs, map[int64]workload.Time{1: 0, 2: 150, 3: 150})
		})
	}
}

// TestAdmittingReservationsRandom runs every policy on random deep
// queues (one job in 20 without a requested time) on a pool with a daily maintenance reservation of half the
// processors and one of a third of them for account 1: the engine checks
// every promise a policy makes of a head's start (it stops the run at one
// delayed), and verify that no job ran in a reservation it may not use.
// Jobs of account 1 backfilled beside the heads' plans broke the promises
// of a reservation depth and of Slurm's backfill in about one run of six.
func TestAdmittingReservationsRandom(t *testing.T) {
	n := simtest.Cases(300, 30)
	cases := simtest.Policies(t)
	for _, bf := range []workload.Time{30, 49} {
		cases = append(cases, simtest.NamedPolicy{Name: fmt.Sprintf("slurm-%ds", bf), New: func() policy.Policy {
			s, err := policy.NewSlurm(policy.SlurmParams{Interval: bf, MaxJobTest: policy.LookaheadAll})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}})
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			for seed := range uint64(n) {
				r := rand.New(rand.NewPCG(seed, 0xad))
				var cycle workload.Time
				if seed%2 == 1 {
					cycle = workload.Time(30 + r.IntN(600)) // a scheduler cycle
				}
				procs := 8 + r.IntN(56)
				jobs := randomJobs(r, 60+r.IntN(140), 300, procs, 7200, 7200, 20)
				for i := range jobs {
					jobs[i].Seq, jobs[i].Group = int64(i), i%3
				}
				c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}, Reservations: []sim.Reservation{
					{Name: "part", Start: 3600, Duration: 1800, Recur: sim.RecurDaily, Until: workload.Forever, Procs: procs / 2, Maint: true},
					{Name: "acct1", Start: 20000, Duration: 8000, Until: workload.Forever, Procs: procs / 3, Accounts: []int{1}}}}
				cfg := sim.Config{Procs: procs, Policy: tc.New(), Constraints: c, SchedInterval: cycle}
				var rec *simtest.Recorder
				if err := catch(func() { rec, _ = simtest.Run(t, cfg, jobs) }); err != nil {
					t.Fatalf("seed %d (%d jobs on %d processors, cycle %d): %v", seed, len(jobs), procs, cycle, err)
				}
				col := &sim.Collector{}
				for i := range rec.Records {
					col.JobDone(&rec.Records[i])
				}
				for _, v := range sim.Verify(procs, col.Outcomes, sim.VerifyOptions{Constraints: c}) {
					t.Fatalf("seed %d: verify: %v", seed, v)
				}
			}
		})
	}
}

// policiesAndSlurm1s are simtest.Policies and Slurm's backfill every
// second at a resolution of 1 s, which plans as finely as the small
// hand-computed schedules need.
func policiesAndSlurm1s(t *testing.T) []simtest.NamedPolicy {
	return append(simtest.Policies(t), simtest.NamedPolicy{Name: "slurm-1s", New: func() policy.Policy {
		s, err := policy.NewSlurm(policy.SlurmParams{Interval: 1, Resolution: 1})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}})
}

// wantStarts runs jobs under cfg and fails unless each job of want
// started at its time there (a panic of the run fails it too).
func wantStarts(t *testing.T, cfg sim.Config, jobs []workload.Job, want map[int64]workload.Time) {
	t.Helper()
	var rec *simtest.Recorder
	if err := catch(func() { rec, _ = simtest.Run(t, cfg, jobs) }); err != nil {
		t.Fatal(err)
	}
	got := map[int64]workload.Time{}
	for _, r := range rec.Records {
		got[r.Job.ID] = r.Start
	}
	for id, at := range want {
		if got[id] != at {
			t.Errorf("job %d started at %d, want %d (all: %v)", id, got[id], at, got)
		}
	}
}

// catch runs f and returns its panic, if any, as an error.
func catch(f func()) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("panic: %v", e)
		}
	}()
	f()
	return nil
}

// TestCreditChangeRenewsShadow: EASY's memo of the head's reservation
// (shadowMemo) holds only while the running jobs the reservations admit
// are what they were (fastpath.Credited), even when the running jobs'
// profile is the same. On 12 processors with
// 4 reserved for user 1 from 0 on, jobs 1 and 2 (user 2, 4 processors
// each, predicted to end at 50 and 200) start at 0. At 1 the head, job 3
// (6 processors), would fit only at 200, where both have ended: at 50
// the reservation still holds 4 of the 8 free from it. Job 4 (user 1, 4
// processors, ends at 200) is backfilled at 1, and runs inside the
// reservation. At 20 job 2 ends early and job 5 (user 2, 3 processors,
// 100 s) arrives: the profile is again 4 processors to 50 and 4 to 200,
// but job 4 now fills the reservation, so at 50 the 8 free are all the
// head's: it is reserved at 50 with 2 to spare, and job 5, which would
// run past 50 on 3, waits until the head ends at 150. A shadow kept from
// the pass at 1 would still say 200, start job 5 at 20 and delay the head
// to 120. A reservation depth and conservative backfilling give the same
// schedule (they keep plans only after a pass that started nothing, so
// here they plan anew).
func TestCreditChangeRenewsShadow(t *testing.T) {
	for _, tc := range simtest.Policies(t) {
		switch tc.Name {
		case "fcfs", "slurm":
			continue // no memo of a reservation between passes
		}
		t.Run(tc.Name, func(t *testing.T) {
			jobs := []workload.Job{
				simtest.Job(1, 0, 4, 50, 50),
				simtest.Job(2, 0, 4, 20, 200),
				simtest.Job(3, 1, 6, 100, 100),
				simtest.Job(4, 1, 4, 199, 199),
				simtest.Job(5, 20, 3, 100, 100),
			}
			for i := range jobs {
				jobs[i].Seq, jobs[i].User = int64(i), 2
			}
			jobs[3].User = 1
			c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}, Reservations: []sim.Reservation{
				{Name: "user1", Start: 0, Duration: 10000, Until: workload.Forever, Procs: 4, Users: []int{1}}}}
			wantStarts(t, sim.Config{Procs: 12, Policy: tc.New(), Constraints: c}, jobs, map[int64]workload.Time{1: 0, 2: 0, 3: 50, 4: 1, 5: 150})
		})
	}
}

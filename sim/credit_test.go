package sim_test

import (
	"testing"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestAdmittedJobsFillTheirReservation: a running job a reservation
// admits holds its processors inside it, so the reservation withholds
// from the other jobs only what the admitted jobs leave of it, not its
// whole size on top of them (the count rule counted those processors
// twice). Hand-computed schedules, under every policy; each run passes
// verify (the jobs a reservation does not admit hold at most the machine
// less the reservation at every instant of it).
func TestAdmittedJobsFillTheirReservation(t *testing.T) {
	acct := func(j workload.Job, a int) workload.Job { j.Group = a; return j }
	resv := func(name string, start, dur workload.Time, procs int) sim.Reservation {
		return sim.Reservation{Name: name, Start: start, Duration: dur, Until: workload.Forever, Procs: procs, Accounts: []int{1}}
	}
	cases := []struct {
		name  string
		procs int
		resv  []sim.Reservation
		jobs  []workload.Job
		want  map[int64]workload.Time
	}{
		{
			// Job 1 (account 1) fills the 4 reserved over [100, 1000); job
			// 2 (6 processors) fits the 6 others at 150 (the count rule
			// kept it to 1000).
			name: "inside", procs: 10, resv: []sim.Reservation{resv("r", 100, 900, 4)},
			jobs: []workload.Job{acct(simtest.Job(1, 0, 4, 2000, 2000), 1), acct(simtest.Job(2, 150, 6, 500, 500), 0)},
			want: map[int64]workload.Time{1: 0, 2: 150},
		},
		{
			// On a processor pool a reservation that names nodes holds a
			// count of processors all the same.
			name: "nodes-on-a-pool", procs: 10, resv: []sim.Reservation{func() sim.Reservation {
				r := resv("r", 100, 900, 4)
				r.Nodes = []cluster.Range{{Lo: 0, Hi: 4}}
				return r
			}()},
			jobs: []workload.Job{acct(simtest.Job(1, 0, 4, 2000, 2000), 1), acct(simtest.Job(2, 150, 6, 500, 500), 0)},
			want: map[int64]workload.Time{1: 0, 2: 150},
		},
		{
			// Job 1 holds 6: 4 inside the reservation, 2 beside it; job
			// 2's 4 fit the 4 idle.
			name: "overflow", procs: 10, resv: []sim.Reservation{resv("r", 100, 900, 4)},
			jobs: []workload.Job{acct(simtest.Job(1, 0, 6, 2000, 2000), 1), acct(simtest.Job(2, 150, 4, 500, 500), 0)},
			want: map[int64]workload.Time{1: 0, 2: 150},
		},
		{
			// 5 do not fit the 4 idle: job 2 waits for job 1's end.
			name: "overflow-waits", procs: 10, resv: []sim.Reservation{resv("r", 100, 900, 4)},
			jobs: []workload.Job{acct(simtest.Job(1, 0, 6, 2000, 2000), 1), acct(simtest.Job(2, 150, 5, 500, 500), 0)},
			want: map[int64]workload.Time{1: 0, 2: 2000},
		},
		{
			// Two reservations of 3 for account 1: job 1's 3 fill one of
			// them only, the other still holds 3, so of the 7 idle job 2
			// gets 4 and job 3 (1 processor) waits for job 2's end at 650.
			name: "two-reservations", procs: 10, resv: []sim.Reservation{resv("a", 100, 900, 3), resv("b", 100, 900, 3)},
			jobs: []workload.Job{acct(simtest.Job(1, 0, 3, 2000, 2000), 1), acct(simtest.Job(2, 150, 4, 500, 500), 0), acct(simtest.Job(3, 160, 1, 100, 100), 0)},
			want: map[int64]workload.Time{1: 0, 2: 150, 3: 650},
		},
		{
			// Job 1 ends (as predicted) at 300: from then the reservation
			// holds its 4 again, beside job 2's 6.
			name: "credit-ends", procs: 10, resv: []sim.Reservation{resv("r", 100, 900, 4)},
			jobs: []workload.Job{acct(simtest.Job(1, 0, 4, 300, 300), 1), acct(simtest.Job(2, 150, 6, 500, 500), 0)},
			want: map[int64]workload.Time{1: 0, 2: 150},
		},
		{
			// The reservation begins at 500 while job 1 runs: job 2 (8 of
			// 12, 1000 s) starts at 100 (the count rule kept it to 1000).
			name: "begins-while-running", procs: 12, resv: []sim.Reservation{resv("r", 500, 500, 4)},
			jobs: []workload.Job{acct(simtest.Job(1, 0, 4, 2000, 2000), 1), acct(simtest.Job(2, 100, 8, 1000, 1000), 0)},
			want: map[int64]workload.Time{1: 0, 2: 100},
		},
	}
	pols := policiesAndSlurm1s(t)
	for _, tc := range cases {
		for _, pol := range pols {
			t.Run(tc.name+"/"+pol.Name, func(t *testing.T) {
				jobs := append([]workload.Job(nil), tc.jobs...)
				for i := range jobs {
					jobs[i].Seq = int64(i)
				}
				c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}, Reservations: tc.resv}
				var rec *simtest.Recorder
				if err := catch(func() { rec, _ = simtest.Run(t, sim.Config{Procs: tc.procs, Policy: pol.New(), Constraints: c}, jobs) }); err != nil {
					t.Fatal(err)
				}
				got := map[int64]workload.Time{}
				col := &sim.Collector{}
				for i := range rec.Records {
					got[rec.Records[i].Job.ID] = rec.Records[i].Start
					col.JobDone(&rec.Records[i])
				}
				for id, at := range tc.want {
					if got[id] != at {
						t.Errorf("job %d started at %d, want %d (all: %v)", id, got[id], at, got)
					}
				}
				for _, v := range sim.Verify(tc.procs, col.Outcomes, sim.VerifyOptions{Constraints: c}) {
					t.Errorf("verify: %v", v)
				}
			})
		}
	}
}

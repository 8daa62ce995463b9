package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestVerifyCatchesConstraints: verify finds a job planted inside a
// maintenance reservation, past the processors a partial one leaves,
// inside a start window that forbids it, over each limit, and accepts
// the valid schedule and the rejections the constraints make.
func TestVerifyCatchesConstraints(t *testing.T) {
	c := &sim.Constraints{
		Reservations: []sim.Reservation{
			{Name: "maint", Start: 100, Duration: 50, Until: workload.Forever, Maint: true},
			{Name: "half", Start: 1000, Duration: 100, Until: workload.Forever, Procs: 2, Maint: true},
			{Name: "u1", Start: 2000, Duration: 100, Until: workload.Forever, Users: []int{1}},
		},
		// Thursday 1 January 1970 (UTC): no job asking over 100 s
		// starts between 07:00 and 16:00.
		Windows: []sim.StartWindow{{Partition: -1, Queue: -1, Days: 0b1111111, From: 7 * 3600, To: 16 * 3600, MaxWall: 100}},
		Limits: []sim.Limit{
			{AllUsers: true, MaxJobsPerUser: 1, MaxWall: 5000},
			{Users: []int{3}, MaxCPUsPerUser: 2},
			{Accounts: []int{9}, GrpCPUs: 3},
		},
	}
	ran := func(id int64, user, submit, start workload.Time, procs int, run, est workload.Time, lo int) sim.Outcome {
		j := job(id, submit, procs, run, est)
		j.User = int(user)
		return sim.Outcome{Job: j, State: sim.Completed, Start: start, End: start + run, Alloc: []cluster.Range{{Lo: lo, Hi: lo + procs}}}
	}
	base := func() []sim.Outcome {
		return []sim.Outcome{
			ran(1, 1, 0, 0, 2, 50, 100, 0),        // ends by the maintenance at 100
			ran(2, 2, 0, 150, 2, 50, 60, 0),       // after it
			ran(3, 1, 900, 1100, 4, 50, 50, 0),    // after the half reservation
			ran(4, 1, 1900, 1950, 4, 100, 100, 0), // user 1 inside u1's reservation
		}
	}
	tests := []struct {
		name   string
		mutate func([]sim.Outcome) []sim.Outcome
		rule   string
	}{
		{"valid", func(o []sim.Outcome) []sim.Outcome { return o }, ""},
		{"limit rejection is valid", func(o []sim.Outcome) []sim.Outcome {
			r := ran(9, 5, 10, 10, 1, 10, 9000, 3)
			r.State, r.Start, r.End, r.Alloc, r.Reason = sim.Rejected, 10, 10, nil, "limit 1: requested time 9000 s exceeds MaxWall 5000 s (QOSMaxWallDurationPerJobLimit)"
			return append(o, r)
		}, ""},
		{"in the maintenance", func(o []sim.Outcome) []sim.Outcome {
			o[1].Start, o[1].End = 120, 170
			return o
		}, "reservation"},
		{"past what a partial reservation leaves", func(o []sim.Outcome) []sim.Outcome {
			o[2].Start, o[2].End = 1000, 1050
			return o
		}, "reservation"},
		{"another user in a user reservation", func(o []sim.Outcome) []sim.Outcome {
			o[3].Job.User = 2
			return o
		}, "reservation"},
		{"inside a start window", func(o []sim.Outcome) []sim.Outcome {
			return append(o, ran(5, 4, 7*3600, 8*3600, 1, 50, 200, 0))
		}, "start-window"},
		{"over MaxJobsPerUser", func(o []sim.Outcome) []sim.Outcome {
			return append(o, ran(6, 1, 0, 10, 1, 10, 10, 3))
		}, "limit"},
		{"over MaxTRESPerUser", func(o []sim.Outcome) []sim.Outcome {
			a, b := ran(7, 3, 5000, 5000, 2, 10, 10, 0), ran(8, 3, 5000, 5000, 1, 10, 10, 2)
			b.Job.User = 3
			return append(o, a, b)
		}, "limit"},
		{"over GrpTRES", func(o []sim.Outcome) []sim.Outcome {
			a, b := ran(7, 10, 6000, 6000, 2, 10, 10, 0), ran(8, 11, 6000, 6000, 2, 10, 10, 2)
			a.Job.Group, b.Job.Group = 9, 9
			return append(o, a, b)
		}, "limit"},
		{"over MaxWall", func(o []sim.Outcome) []sim.Outcome {
			return append(o, ran(9, 6, 20000, 70000, 1, 10, 6000, 0))
		}, "limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			outs := tc.mutate(base())
			for i := range outs {
				outs[i].Job.Seq = int64(i)
			}
			vs := sim.Verify(4, outs, sim.VerifyOptions{Constraints: c})
			if tc.rule == "" {
				if len(vs) != 0 {
					t.Fatalf("violations on a valid schedule: %v", vs)
				}
				return
			}
			for _, v := range vs {
				if v.Rule == tc.rule && strings.Contains(v.Error(), "job") {
					return
				}
			}
			t.Fatalf("no %q violation among %v", tc.rule, vs)
		})
	}
}

// TestConstraintsEveryPolicy: under every policy, a run of a synthetic
// workload with reservations, start windows and limits (those of the
// checkpoint tests) passes verify, is deterministic, and a pass never
// starts a job into a reservation; the engine's own invariants (promises
// kept, no over-allocation) hold throughout.
func TestConstraintsEveryPolicy(t *testing.T) {
	const procs = 64
	cases := append(simtest.Policies(t), []simtest.NamedPolicy{
		{Name: "easy-wfp3", New: func() policy.Policy {
			p, err := policy.New(policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.LookaheadAll, Depth: 1, Order: "wfp3"})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}},
	}...)
	for _, tc := range cases {
		for _, v := range []struct {
			cycle  workload.Time
			limits bool
			est    string // runtime predictions (Config.Estimator), or none
		}{{0, true, ""}, {120, true, ""}, {0, false, ""}, {120, false, ""}, {0, false, "factor:0.5"}, {0, true, "predict"}} {
			cycle := v.cycle
			// Without limits (and without an Estimator) the engine checks
			// every reservation a policy promises: the head's start is
			// planned around the calendar (under a cycle, at its passes).
			name := tc.Name + "/cycle" + time.Duration(cycle*workload.Time(time.Second)).String()
			if !v.limits {
				name += "/no-limits"
			}
			if v.est != "" {
				// Predictions that jobs outlive: a reservation's
				// processors are still promised by the running jobs'
				// requested times, which verify checks.
				name += "/estimates-" + v.est
			}
			t.Run(name, func(t *testing.T) {
				var first string
				for run := 0; run < 2; run++ {
					jobs := syntheticJobs(3, 300, procs)
					for i := range jobs {
						jobs[i].Seq = int64(i)
						jobs[i].User = i % 5
					}
					c := calendarConstraints()
					if !v.limits {
						c.Limits = nil
					}
					cfg := sim.Config{Procs: procs, Policy: tc.New(), Constraints: c, SchedInterval: cycle}
					if v.est != "" {
						est, err := policy.ParseEstimator(v.est)
						if err != nil {
							t.Fatal(err)
						}
						cfg.Estimator = est
					}
					rec, _ := simtest.Run(t, cfg, jobs)
					checkCalendarRun(t, cfg, rec.Records, v.limits)
					got := simtest.Format(rec.Records)
					if run == 0 {
						first = got
					} else if got != first {
						t.Fatal("two runs of the same input differ")
					}
				}
			})
		}
	}
}

// FuzzParseDaysHours: ParseDays and ParseHours never panic, and what they
// accept is a valid start window's.
func FuzzParseDaysHours(f *testing.F) {
	for _, s := range [][2]string{{"Mon-Fri", "07:00-16:00"}, {"Sat,Sun", "16:00-07:00"}, {"*", "00:00-24:00"}, {"Fri-Mon", "24:00-01:00"}, {"", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, days, hours string) {
		d, err1 := sim.ParseDays(days)
		from, to, err2 := sim.ParseHours(hours)
		if err1 != nil || err2 != nil {
			return
		}
		c := sim.Constraints{Windows: []sim.StartWindow{{Partition: -1, Queue: -1, Days: d, From: from, To: to, MaxWall: 1}}}
		if err := c.Validate(); err != nil {
			t.Fatalf("%q %q: accepted, but %v", days, hours, err)
		}
	})
}

// TestConstraintPendingReasons: a job that waited for a reservation, a
// start window or a limit says so (Record.Pending), in the scenarios
// whose schedules were checked by hand.
func TestConstraintPendingReasons(t *testing.T) {
	tests := []struct {
		file string
		id   int64
		want sim.PendingReason
	}{
		{"resv-maint-fcfs.txt", 2, sim.PendingReservation},
		{"resv-maint-easy.txt", 2, sim.PendingReservation},
		{"window-fcfs.txt", 1, sim.PendingStartWindow},
		{"window-easy.txt", 1, sim.PendingStartWindow},
		{"limit-max-jobs.txt", 2, sim.PendingLimit},
		{"limit-cpus.txt", 4, sim.PendingLimit},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "scenarios", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := simtest.ParseScenario(path, data)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := s.Config()
			if err != nil {
				t.Fatal(err)
			}
			rec, _ := simtest.Run(t, cfg, s.Jobs)
			if got := rec.ByID(t, tc.id).Pending; got != tc.want {
				t.Errorf("job %d: pending %q, want %q", tc.id, got, tc.want)
			}
		})
	}
}

package sim_test

import (
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// after is job with a preceding job (SWF field 17) and a think time
// (field 18, -1 for unknown).
func after(j workload.Job, pred int64, think float64) workload.Job {
	j.PrecedingJob, j.ThinkTime = pred, think
	return j
}

// TestClosedLoop replays hand-worked closed-loop schedules under FCFS on 4
// processors: each job's submission, start and end, and the counts of
// delayed jobs and of unknown preceding jobs.
func TestClosedLoop(t *testing.T) {
	type want struct {
		id                 int64
		submit, start, end workload.Time
		state              sim.State
	}
	tests := []struct {
		name             string
		jobs             []workload.Job
		want             []want // in record order
		delayed, unknown int64
	}{
		{
			// Job 2 was recorded at 10, while job 1 runs: it is submitted
			// at 1's end (100) plus its think time (20); job 3, recorded
			// at 30 with no preceding job, starts first.
			name: "waits for its preceding job's end",
			jobs: []workload.Job{
				job(1, 0, 4, 100, none),
				after(job(2, 10, 2, 50, none), 1, 20),
				job(3, 30, 2, 10, none),
			},
			want:    []want{{1, 0, 0, 100, sim.Completed}, {3, 30, 100, 110, sim.Completed}, {2, 120, 120, 170, sim.Completed}},
			delayed: 1,
		},
		{
			// The preceding job ended at 10, think time 5: 15 is before
			// the recorded 50, which stands.
			name: "recorded time later than end plus think",
			jobs: []workload.Job{
				job(1, 0, 4, 10, none),
				after(job(2, 50, 4, 10, none), 1, 5),
			},
			want: []want{{1, 0, 0, 10, sim.Completed}, {2, 50, 50, 60, sim.Completed}},
		},
		{
			// Ended at 10, think time 20: recorded at 12, submitted at 30.
			name: "ended less than the think time before",
			jobs: []workload.Job{
				job(1, 0, 4, 10, none),
				after(job(2, 12, 4, 10, none), 1, 20),
			},
			want:    []want{{1, 0, 0, 10, sim.Completed}, {2, 30, 30, 40, sim.Completed}},
			delayed: 1,
		},
		{
			// Job 99 is not in the trace, job 3 comes after job 1 names
			// it, and job 4 names itself: all at their recorded times.
			name: "unknown preceding jobs",
			jobs: []workload.Job{
				after(job(1, 0, 2, 10, none), 3, 5),
				after(job(2, 0, 2, 10, none), 99, 5),
				job(3, 1, 4, 10, none),
				after(job(4, 2, 4, 10, none), 4, 5),
			},
			want:    []want{{1, 0, 0, 10, sim.Completed}, {2, 0, 0, 10, sim.Completed}, {3, 1, 10, 20, sim.Completed}, {4, 2, 20, 30, sim.Completed}},
			unknown: 3,
		},
		{
			// Job 1 is rejected at 5 (8 processors on 4): job 2 is
			// submitted at 5 + 10. An unknown think time counts as 0.
			name: "rejected preceding job, unknown think time",
			jobs: []workload.Job{
				job(1, 5, 8, 10, none),
				after(job(2, 6, 4, 10, none), 1, 10),
				after(job(3, 7, 4, 10, none), 1, -1),
			},
			want:    []want{{1, 5, 5, 5, sim.Rejected}, {3, 7, 7, 17, sim.Completed}, {2, 15, 17, 27, sim.Completed}},
			delayed: 1,
		},
		{
			// At 100, job 2 (delayed to 50 + 50) and job 3 (recorded at
			// 100) are submitted in trace order, so FCFS runs 2 first.
			name: "a delayed job keeps its trace order at its instant",
			jobs: []workload.Job{
				job(1, 0, 4, 50, none),
				after(job(2, 10, 4, 10, none), 1, 50),
				job(3, 100, 4, 10, none),
			},
			want:    []want{{1, 0, 0, 50, sim.Completed}, {2, 100, 100, 110, sim.Completed}, {3, 100, 110, 120, sim.Completed}},
			delayed: 1,
		},
		{
			// Job 2 waits for job 1's end at 100 with no think time: it is
			// submitted at 100, after job 3 (recorded at 100, submitted
			// before the ends of the instant), and both are in the
			// instant's one pass.
			name: "no think time: submitted after the end of its instant",
			jobs: []workload.Job{
				job(1, 0, 4, 100, none),
				after(job(2, 10, 4, 10, none), 1, 0),
				job(3, 100, 4, 10, none),
			},
			want:    []want{{1, 0, 0, 100, sim.Completed}, {3, 100, 100, 110, sim.Completed}, {2, 100, 110, 120, sim.Completed}},
			delayed: 1,
		},
		{
			// A chain: 1 ends at 10; 2 at 10 + 5 runs to 25; 3 at 25 + 5.
			name: "a chain of three",
			jobs: []workload.Job{
				job(1, 0, 4, 10, none),
				after(job(2, 1, 4, 10, none), 1, 5),
				after(job(3, 2, 4, 10, none), 2, 5.4),
			},
			want:    []want{{1, 0, 0, 10, sim.Completed}, {2, 15, 15, 25, sim.Completed}, {3, 30, 30, 40, sim.Completed}},
			delayed: 2,
		},
		{
			// Two jobs wait for the same job; a killed job ends at its
			// limit.
			name: "two successors of a killed job",
			jobs: []workload.Job{
				job(1, 0, 4, 100, 50),
				after(job(2, 1, 2, 10, none), 1, 3),
				after(job(3, 2, 2, 10, none), 1, 1),
			},
			want:    []want{{1, 0, 0, 50, sim.Killed}, {3, 51, 51, 61, sim.Completed}, {2, 53, 53, 63, sim.Completed}},
			delayed: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			simtest.NewSource(tc.jobs)
			rec, st := simtest.Run(t, sim.Config{Procs: 4, Policy: policy.FCFS{}, ClosedLoop: true}, tc.jobs)
			if len(rec.Records) != len(tc.want) {
				t.Fatalf("%d records, want %d:\n%s", len(rec.Records), len(tc.want), simtest.Format(rec.Records))
			}
			for i, w := range tc.want {
				r := rec.Records[i]
				if r.Job.ID != w.id || r.Job.Submit != w.submit || r.Start != w.start || r.End != w.end || r.State != w.state {
					t.Errorf("record %d: job %d submitted %d, %v %d–%d; want job %d submitted %d, %v %d–%d\n%s", i,
						r.Job.ID, r.Job.Submit, r.State, r.Start, r.End, w.id, w.submit, w.state, w.start, w.end, simtest.Format(rec.Records))
				}
			}
			if st.LoopDelayed != tc.delayed || st.LoopUnknown != tc.unknown {
				t.Errorf("%d delayed, %d unknown; want %d and %d", st.LoopDelayed, st.LoopUnknown, tc.delayed, tc.unknown)
			}
			var following int64
			for _, j := range tc.jobs {
				if j.PrecedingJob > 0 {
					following++
				}
			}
			if st.LoopFollowing != following {
				t.Errorf("%d jobs following another, want %d", st.LoopFollowing, following)
			}
			if st.Jobs != int64(len(tc.jobs)) {
				t.Errorf("%d jobs submitted, want %d", st.Jobs, len(tc.jobs))
			}
			// Without the loop, every job is submitted at its recorded
			// time.
			rec, st = simtest.Run(t, sim.Config{Procs: 4, Policy: policy.FCFS{}}, tc.jobs)
			for _, r := range rec.Records {
				for _, j := range tc.jobs {
					if j.ID == r.Job.ID && j.Submit != r.Job.Submit {
						t.Errorf("open loop: job %d submitted at %d, recorded %d", j.ID, r.Job.Submit, j.Submit)
					}
				}
			}
			if st.LoopDelayed != 0 || st.LoopUnknown != 0 {
				t.Errorf("open loop counts %d delayed, %d unknown", st.LoopDelayed, st.LoopUnknown)
			}
		})
	}
}

// TestClosedLoopRefused: the engine refuses a closed loop with checkpoints
// or node events.
func TestClosedLoopRefused(t *testing.T) {
	for _, cfg := range []sim.Config{
		{Procs: 4, ClosedLoop: true, CheckpointEvery: 100},
	} {
		if _, err := sim.New(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

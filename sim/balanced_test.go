package sim_test

import (
	"slices"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestBalancedMode checks HPC Pack's Balanced scheduling mode (issue 22
// item 2, sim.Grow.Balanced) against hand-computed schedules, next to
// Queued mode's on the same jobs. Linear speedup: a job's work is its
// trace run × its trace processors p0, and on p processors what is left
// runs ⌈left / p⌉ s.
func TestBalancedMode(t *testing.T) {
	type want struct {
		start, end workload.Time
		procs      int             // processors held at the end
		grows      []workload.Time // when it grew (steps after its start)
	}
	tests := []struct {
		name     string
		procs    int
		balanced bool
		jobs     []workload.Job
		want     []want // by job, in order
	}{
		{
			// Queued: job 1 starts at the head with all 8 (400/8 = 50 s);
			// job 2's minimum fits only at 50, where it takes all 8.
			name: "queued: the first takes all", procs: 8,
			jobs: []workload.Job{malleable(1, 0, 4, 100, 1000, 2, 8), malleable(2, 0, 4, 100, 1000, 2, 8)},
			want: []want{{0, 50, 8, []workload.Time{0}}, {50, 100, 8, []workload.Time{50}}},
		},
		{
			// Balanced: both start on their minimum 2 at 0; nothing
			// waits, so the 4 idle are shared 2 and 2: 400/4 = 100 s.
			name: "balanced: both start, the rest shared evenly", procs: 8, balanced: true,
			jobs: []workload.Job{malleable(1, 0, 4, 100, 1000, 2, 8), malleable(2, 0, 4, 100, 1000, 2, 8)},
			want: []want{{0, 100, 4, []workload.Time{0}}, {0, 100, 4, []workload.Time{0}}},
		},
		{
			// Balanced on 10: three jobs of work 200 start on 2 each; 4
			// idle: 1 each (job 1 then is at its maximum 3), the last one
			// to the first job that lacks some, job 2: 3, 4, 3
			// processors, ends ⌈200/3⌉ = 67, 200/4 = 50, 67. At 50 job
			// 2's 4 go to job 3 alone (job 1 is at its maximum): 7
			// processors for 200 − 150 = 50 left: ⌈50/7⌉ = 8, so 58.
			name: "balanced: shares capped at the maximum, remainder to the first", procs: 10, balanced: true,
			jobs: []workload.Job{malleable(1, 0, 2, 100, 1000, 2, 3), malleable(2, 0, 2, 100, 1000, 2, 8), malleable(3, 0, 2, 100, 1000, 2, 8)},
			want: []want{{0, 67, 3, []workload.Time{0}}, {0, 50, 4, []workload.Time{0}}, {0, 58, 7, []workload.Time{0, 50}}},
		},
		{
			// Queued on 10: job 1 (6, rigid) starts; job 2 at the head
			// takes the 4 idle (work 300: 75 s); job 3 (4) waits for them.
			name: "queued: the head takes what is idle", procs: 10,
			jobs: []workload.Job{job(1, 0, 6, 100, 1000), malleable(2, 0, 2, 150, 1000, 2, 8), job(3, 0, 4, 10, 1000)},
			want: []want{{0, 100, 6, nil}, {0, 75, 4, []workload.Time{0}}, {75, 85, 4, nil}},
		},
		{
			// Balanced: job 2 starts on 2; job 3 (4) waits for the 2
			// idle, so nothing is shared out. At 100 job 3 starts and
			// nothing waits: job 2 (200 of 300 done) gets the 4 idle: 6,
			// ⌈100/6⌉ = 17, end 117; at 110 job 3's 4 free, job 2 lacks
			// 2: 8 processors for 100 − 60 = 40 left: 5 s, end 115.
			name: "balanced: nothing is shared while a job waits", procs: 10, balanced: true,
			jobs: []workload.Job{job(1, 0, 6, 100, 1000), malleable(2, 0, 2, 150, 1000, 2, 8), job(3, 0, 4, 10, 1000)},
			want: []want{{0, 100, 6, nil}, {0, 115, 8, []workload.Time{100, 110}}, {100, 110, 4, nil}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, _ := growRun(t, tc.procs, policy.FCFS{}, &sim.Grow{Balanced: tc.balanced}, nil, tc.jobs)
			for k, w := range tc.want {
				r := rec.ByID(t, tc.jobs[k].ID)
				var grows []workload.Time
				for _, st := range r.Steps[min(1, len(r.Steps)):] {
					grows = append(grows, st.At)
				}
				if r.Start != w.start || r.End != w.end || held(r) != w.procs || !slices.Equal(grows, w.grows) {
					t.Errorf("job %d: %d–%d on %d, grew at %v; want %d–%d on %d, grew at %v\n%s", tc.jobs[k].ID,
						r.Start, r.End, held(r), grows, w.start, w.end, w.procs, w.grows, simtest.Format(rec.Records))
				}
				if r.State != sim.Completed {
					t.Errorf("job %d: state %v, want completed", tc.jobs[k].ID, r.State)
				}
			}
		})
	}
}

// TestResult2ReservesTheMinimumInBalancedMode: in Balanced mode a job is
// started on its minimum, so activation result 2 reserves its minimum
// (SPEC §6), where Queued mode reserves up to its maximum
// (TestResult2ReservesUpToTheMaximum). Machine of 8: job 1 ([2, 8], work
// 200) answers 2 at 0, holding 2; job 2 (4 processors) starts beside it at
// 0 and ends at 10 (in Queued mode it waited for the 8 job 1 reserved, to
// 85). At 60 job 1 answers 0, starts on 2, and nothing waiting, grows to 8
// in the same pass (a second assignment, so a second call, for 8): 25 s.
func TestResult2ReservesTheMinimumInBalancedMode(t *testing.T) {
	spy := &scripted{name: "spy", script: map[int64][]hpcpack.Result{1: {hpcpack.Exit(2, ""), hpcpack.Exit(0, "")}}}
	h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{spy}, Reevaluate: 60}
	jobs := []workload.Job{malleable(1, 0, 2, 100, 1000, 2, 8), job(2, 0, 4, 10, 10)}
	rec, _ := growRun(t, 8, policy.FCFS{}, &sim.Grow{Balanced: true}, h, jobs)
	type call struct {
		id        int64
		at        workload.Time
		resources int
	}
	var got []call
	for k, c := range spy.calls {
		got = append(got, call{spy.ids[k], c.Now, c.Resources})
	}
	if want := []call{{1, 0, 2}, {2, 0, 4}, {1, 60, 2}, {1, 60, 8}}; !slices.Equal(got, want) {
		t.Errorf("activation calls %+v, want %+v", got, want)
	}
	for id, w := range map[int64][2]workload.Time{1: {60, 85}, 2: {0, 10}} {
		if r := rec.ByID(t, id); r.Start != w[0] || r.End != w[1] {
			t.Errorf("job %d runs %d–%d, want %d–%d\n%s", id, r.Start, r.End, w[0], w[1], simtest.Format(rec.Records))
		}
	}
}

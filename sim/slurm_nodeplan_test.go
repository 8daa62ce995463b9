package sim_test

import (
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// oneCPUNodes is n one-core nodes under select/cons_tres, as the check
// against a real slurmctld runs them (.ci/slurm-backfill-check.sh).
func oneCPUNodes(n int) *cluster.Spec {
	return &cluster.Spec{Select: cluster.SelectConsRes, Groups: []cluster.NodeGroup{{Name: "n", Count: n, Cores: 1}}}
}

// TestSlurmPlanOnNodes checks each rule of Slurm's backfill plan on nodes
// and of its timing with plans computed by hand from slurm.conf(5) and
// the slurmctld log (DebugFlags=Backfill) of a real run. Node k is
// resource k. Every case has bf_interval=1 and bf_resolution=1 unless it
// says otherwise.
func TestSlurmPlanOnNodes(t *testing.T) {
	tests := []struct {
		name   string
		nodes  int
		params policy.SlurmParams
		jobs   []workload.Job
		start  map[int64]workload.Time
		alloc  map[int64]string
	}{
		{
			// At 0 the cycle starts 1 (n0), 2 (n1-3), 3 (n4): best fit in
			// the one free set n0-7. At 1, WILL_RUN takes job 2 off
			// (ends at 100, the first window) for job 4: free sets n1-3
			// and n5-7, none holds 5, so the larger (the lower on a tie)
			// n1-3, then the best fit of the rest, n5-6: job 4 reserves
			// n1-3,5-6 from 100. At 2 job 5 may use only n7, the idle
			// node no reservation holds (a plan in processor counts
			// starts it on the lowest idle node, n5). At 100 job 2 ends
			// and the main scheduler starts job 4 on n1-3,5-6. Job 6
			// waits for a node: at 300 job 4 ends, the cycle sees its
			// nodes completing, and the main scheduler starts job 6 on the
			// best fit of n1-3 and n5-6: n5.
			"a reservation is a node set; a backfill job gets the nodes no reservation holds",
			8, policy.SlurmParams{Interval: 1, Resolution: 1},
			[]workload.Job{
				job(1, 0, 1, 1000, 1000), job(2, 0, 3, 100, 100), job(3, 0, 1, 1000, 1000),
				job(4, 1, 5, 200, 200), job(5, 2, 1, 500, 500), job(6, 3, 1, 10, 500),
			},
			map[int64]workload.Time{1: 0, 2: 0, 3: 0, 4: 100, 5: 2, 6: 300},
			map[int64]string{1: "0", 2: "1-3", 3: "4", 4: "1-3 5-6", 5: "7", 6: "5"},
		},
		{
			// Jobs 1 (n0, limit 100) and 2 (n1, limit 125) end in the
			// first window (100 + 30): WILL_RUN takes both off at once and
			// plans job 4 at the group's last end, 125, on the best fit of
			// the free sets n0-1 and n4: n0-1. Job 5 (limit 110) then fits
			// n4 until 112, before any reservation, and starts at 2.
			// Without the window (job 1 alone at 100) job 4 would reserve
			// n0 and n4 from 100 and job 5 could not start. (Job 4 then
			// starts when it fits: at 112, job 5's end, on n0 and n4.)
			"WILL_RUN groups running jobs' ends in a 30 s window and plans at the last",
			5, policy.SlurmParams{Interval: 1, Resolution: 1},
			[]workload.Job{
				job(1, 0, 1, 100, 100), job(2, 0, 1, 125, 125), job(3, 0, 2, 1000, 1000),
				job(4, 1, 2, 50, 100), job(5, 2, 1, 110, 110),
			},
			map[int64]workload.Time{1: 0, 2: 0, 3: 0, 4: 112, 5: 2},
			map[int64]string{1: "0", 2: "1", 3: "2-3", 5: "4", 4: "0 4"},
		},
		{
			// select/cons_tres aligns WILL_RUN's groups on a barrier. At 1
			// jobs 1-3 hold n0-2 until 131, 142 and 172, n3 until 1000,
			// n4 is idle; job 5 needs 3 nodes. The first end, 131, gives
			// the barrier 150; the group goes on while the next end is
			// within 150 + 30: 131, 142 and 172 are taken off together,
			// and job 5 is planned at 172 on the best fit of n0-2 and n4:
			// n0-2. Job 6 (limit 200) then fits n4, which no reservation
			// holds, and starts at 2; job 5 starts at 172, when job 3
			// ends. This is testdata/run2 of internal/slurmcheck at
			// 20:13:24: "JobId=18 to start at 2026-11-26T20:14:52 ... on
			// nodes n[15-17]" (t = 172, the end of the job on n[20-23]),
			// with the ends 131, 142, 142 and 172 on its usable nodes.
			"WILL_RUN's groups are aligned on a barrier at a multiple of 30 s",
			5, policy.SlurmParams{Interval: 1, Resolution: 1},
			[]workload.Job{
				job(1, 0, 1, 131, 131), job(2, 0, 1, 142, 142), job(3, 0, 1, 172, 172), job(4, 0, 1, 1000, 1000),
				job(5, 1, 3, 60, 60), job(6, 2, 1, 200, 200),
			},
			map[int64]workload.Time{5: 172, 6: 2},
			map[int64]string{1: "0", 2: "1", 3: "2", 4: "3", 5: "0-2", 6: "4"},
		},
		{
			// --bf-groups first, schedsim's rule before: at 1 the first
			// group spans 131 to 161 (jobs 1 and 2), job 5 is planned at
			// 142 on n0-1 and n4, so job 6 (until 202) may not use n4; so
			// again at 131. At 132 job 1 has gone: the first group is now
			// 142 to 172 (jobs 2 and 3), job 5 is planned at 172 on n0-2,
			// and job 6 starts on n4. Job 5 starts at 172.
			"--bf-groups first: each group spans 30 s from its first end",
			5, policy.SlurmParams{Interval: 1, Resolution: 1, GroupsFromFirst: true, EndedRunning: true},
			[]workload.Job{
				job(1, 0, 1, 131, 131), job(2, 0, 1, 142, 142), job(3, 0, 1, 172, 172), job(4, 0, 1, 1000, 1000),
				job(5, 1, 3, 60, 60), job(6, 2, 1, 200, 200),
			},
			map[int64]workload.Time{5: 172, 6: 132},
			map[int64]string{5: "0-2", 6: "4"},
		},
		{
			// Job 1 (n0, limit 100) ends at 10. The cycle at 10 runs
			// before slurmctld takes the end in: it plans with job 1
			// running until its predicted end, 100. Job 5 (3 nodes):
			// the barrier is 30 (job 2's end, 20), the first group job 2
			// alone (n1 and the idle n3: 2 nodes), the next, once the
			// window has grown to 120, job 1: job 5 is planned at 100 on
			// n0-1 and n3. Job 6 (limit 15, submitted at 10) fits n3
			// until 25, before that reservation, and starts at 10; job 5
			// starts at 25, when job 6 ends. This is testdata/run2 at
			// 20:13:21-22: job 11 ended at 81.78 after the cycle of
			// 81.73, which still planned JobId=12 "to start at
			// 2026-11-26T20:14:11" (t = 131, job 7's predicted end).
			"--bf-ended running: the cycle in the second a job ended sees it running until its predicted end",
			4, policy.SlurmParams{Interval: 1, Resolution: 1, EndedRunning: true},
			[]workload.Job{
				job(1, 0, 1, 10, 100), job(2, 0, 1, 20, 20), job(3, 0, 1, 1000, 1000),
				job(5, 5, 3, 100, 100), job(6, 10, 1, 15, 15),
			},
			map[int64]workload.Time{1: 0, 2: 0, 3: 0, 5: 25, 6: 10},
			map[int64]string{1: "0", 2: "1", 3: "2", 5: "0-1 3", 6: "3"},
		},
		{
			// --bf-ended completing, schedsim's rule before: the cycle at
			// 10 sees n0 completing until 11, plans job 5 at 20 (the
			// group 11 and 20) on n0-1 and n3, so job 6 may not use n3;
			// job 5 starts at 20 (job 2's end) and job 6 when job 5 ends.
			"--bf-ended completing: the cycle holds the nodes until the end plus --bf-completing",
			4, policy.SlurmParams{Interval: 1, Resolution: 1, EndedCompleting: true},
			[]workload.Job{
				job(1, 0, 1, 10, 100), job(2, 0, 1, 20, 20), job(3, 0, 1, 1000, 1000),
				job(5, 5, 3, 100, 100), job(6, 10, 1, 15, 15),
			},
			map[int64]workload.Time{5: 20, 6: 120},
			map[int64]string{5: "0-1 3"},
		},
		{
			// --bf-ended phase. Jobs 1 (n0, run 30, limit 100) and 2
			// (n1-2) start at the cycle of 0, which tests 2 jobs and
			// takes 300 + 2·250 = 800 µs; every later cycle tests jobs 3
			// and 4: 800 µs each. The cycle of second t runs 800·t µs
			// later in its second than the first; job 1 completes 22 000
			// µs after its cycle's instant plus its run: 30 s later the
			// cycle has drifted 24 000 µs, past its end, and sees n0 free
			// (b6SIGd: job 18, started by the cycle of 109.579, ended at
			// 123.598; the cycle of 123.624 started job 27 on its nodes).
			// Job 3 (3 CPUs) is planned at 1000 on n0-2; job 4 (5 s)
			// fits n0 before that and starts at 30, where --bf-ended
			// running gives 31. The main scheduler at 30 stops at job 3.
			"--bf-ended phase: the cycle that drifted past a job's end sees its nodes free",
			3, policy.SlurmParams{Interval: 1, Resolution: 1},
			[]workload.Job{
				job(1, 0, 1, 30, 100), job(2, 0, 2, 1000, 1000),
				job(3, 1, 3, 10, 100), job(4, 1, 1, 5, 5),
			},
			map[int64]workload.Time{1: 0, 2: 0, 4: 30, 3: 1000},
			map[int64]string{1: "0", 2: "1-2", 4: "0"},
		},
		{
			// The same with job 1 running 20 s: the cycle of 20 has
			// drifted 16 000 µs, less than the 22 000 µs job 1 takes to
			// complete, so it still sees it running; job 4 waits for the
			// cycle of 21 (b6SIGd: job 9, 15 s from the cycle of 55.490,
			// ended at 70.510, after the cycle of 70.502).
			"--bf-ended phase: a cycle that has not drifted past the end sees the job running",
			3, policy.SlurmParams{Interval: 1, Resolution: 1},
			[]workload.Job{
				job(1, 0, 1, 20, 100), job(2, 0, 2, 1000, 1000),
				job(3, 1, 3, 10, 100), job(4, 1, 1, 5, 5),
			},
			map[int64]workload.Time{1: 0, 4: 21, 3: 1000},
			nil,
		},
		{
			"--bf-ended running: the same job 4 waits for the next cycle",
			3, policy.SlurmParams{Interval: 1, Resolution: 1, EndedRunning: true},
			[]workload.Job{
				job(1, 0, 1, 30, 100), job(2, 0, 2, 1000, 1000),
				job(3, 1, 3, 10, 100), job(4, 1, 1, 5, 5),
			},
			map[int64]workload.Time{4: 31, 3: 1000},
			nil,
		},
		{
			// The same with bf_window_linear=1 (windows of 30, 31, …):
			// unchanged here, the first window is still 30 s.
			"bf_window_linear keeps the first window",
			5, policy.SlurmParams{Interval: 1, Resolution: 1, WindowLinear: 1},
			[]workload.Job{
				job(1, 0, 1, 100, 100), job(2, 0, 1, 125, 125), job(3, 0, 2, 1000, 1000),
				job(4, 1, 2, 50, 100), job(5, 2, 1, 110, 110),
			},
			map[int64]workload.Time{4: 112, 5: 2},
			nil,
		},
		{
			// Job 1 ends at 10 on n0. The cycle at 10 sees n0 completing
			// (until 11): job 3, which only n0 could hold, is planned at
			// 11; the main scheduler at 10 stops at job 2 (3 CPUs). The
			// cycle at 11 starts job 3.
			"an ended job's nodes are completing for the cycle in the same second",
			3, policy.SlurmParams{Interval: 1, Resolution: 1},
			[]workload.Job{
				job(1, 0, 1, 10, 10), job(5, 0, 2, 1000, 1000),
				job(2, 1, 3, 10, 100), job(3, 1, 1, 5, 5),
			},
			map[int64]workload.Time{1: 0, 5: 0, 3: 11, 2: 1000},
			map[int64]string{1: "0", 5: "1-2", 3: "0"},
		},
		{
			"--bf-completing 0: the cycle in the same second uses them",
			3, policy.SlurmParams{Interval: 1, Resolution: 1, Completing: policy.CompletingNone},
			[]workload.Job{
				job(1, 0, 1, 10, 10), job(5, 0, 2, 1000, 1000),
				job(2, 1, 3, 10, 100), job(3, 1, 1, 5, 5),
			},
			map[int64]workload.Time{3: 10, 2: 1000},
			nil,
		},
		{
			// Only job ends run the main scheduler: a job submitted at 3
			// to an idle cluster waits for the backfill cycle at 10.
			"the main scheduler runs at job ends only: a new job waits for the cycle",
			2, policy.SlurmParams{Interval: 10, Resolution: 1},
			[]workload.Job{job(1, 3, 1, 5, 5)},
			map[int64]workload.Time{1: 10},
			nil,
		},
		{
			"--sched-main events: the main scheduler starts it at its submission",
			2, policy.SlurmParams{Interval: 10, Resolution: 1, MainAt: policy.MainAtEvents},
			[]workload.Job{job(1, 3, 1, 5, 5)},
			map[int64]workload.Time{1: 3},
			nil,
		},
		{
			// Cycles at 4, 14, …: the job submitted at 5 starts at 14.
			"--bf-phase 4: cycles at 4 past each multiple of bf_interval",
			2, policy.SlurmParams{Interval: 10, Resolution: 1, Phase: 4},
			[]workload.Job{job(1, 3, 1, 50, 50), job(2, 5, 1, 5, 5)},
			map[int64]workload.Time{1: 4, 2: 14},
			nil,
		},
		{
			// Job 2 (2 CPUs) can start at 100 only: beyond bf_window
			// (60 s) it gets no reservation, so job 3 (limit 500) takes
			// n1 and delays it to 600.
			"beyond bf_window a job gets no reservation",
			2, policy.SlurmParams{Interval: 1, Resolution: 1, Window: 60},
			[]workload.Job{job(1, 0, 1, 100, 100), job(2, 1, 2, 10, 10), job(3, 2, 1, 500, 500)},
			map[int64]workload.Time{1: 0, 2: 502, 3: 2},
			nil,
		},
		{
			"within bf_window the reservation holds the nodes",
			2, policy.SlurmParams{Interval: 1, Resolution: 1, Window: 3600},
			[]workload.Job{job(1, 0, 1, 100, 100), job(2, 1, 2, 10, 10), job(3, 2, 1, 500, 500)},
			map[int64]workload.Time{1: 0, 2: 100, 3: 110},
			nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pol, err := policy.NewSlurm(tc.params)
			if err != nil {
				t.Fatal(err)
			}
			rec, _, _ := simtest.RunNodes(t, oneCPUNodes(tc.nodes), sim.Config{Policy: pol}, tc.jobs)
			for id, start := range tc.start {
				r := rec.ByID(t, id)
				if r.State != sim.Completed || r.Start != start {
					t.Errorf("job %d: %v at %d, want completed at %d", id, r.State, r.Start, start)
				}
			}
			for id, w := range tc.alloc {
				if got := string(cluster.FormatRanges(nil, rec.ByID(t, id).Alloc)); got != w {
					t.Errorf("job %d: allocated %q, want %q", id, got, w)
				}
			}
		})
	}
}

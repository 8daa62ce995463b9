package sim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestScoreDDecisions records the decisions SCore-D's scheduler issues and
// the engine applies (start on a row, preempt, suspend, hold, reject), in
// the harness style of Nomad's scheduler tests: each scenario's decisions
// were worked out by hand (in the comments) and are compared as a table.
func TestScoreDDecisions(t *testing.T) {
	cases := []struct {
		name  string
		procs int
		cfg   func() policy.ScoreD
		jobs  []workload.Job
		want  []string
	}{
		{
			// Job 2 of queue 0 finds job 1 of queue 1 on the whole machine:
			// it preempts it (suspension, the default) and runs 20..30;
			// job 1 resumes at 30.
			name: "exclusive/preempt by a higher queue", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(2, policy.Exclusive, 1) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 20, 4, 10, none, 0)},
			want: []string{
				"0 ms start job 1 row -1",
				"20000 ms preempt job 1 by job 2",
				"20000 ms start job 2 row -1",
				"30000 ms start job 1 row -1",
			},
		},
		{
			// Job 2 of queue 0 opens row 1 (row 0 is full); row 0 then
			// holds no job of queue 0, the highest in the matrix, so job 1
			// is suspended; alone, job 2 runs at full speed, 20..30.
			name: "gang/priority between queues", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(2, policy.Gang, 2) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 20, 2, 10, none, 0)},
			want: []string{
				"0 ms start job 1 row 0",
				"20000 ms start job 2 row 1",
				"20000 ms suspend job 1",
				"30000 ms start job 1 row 0",
			},
		},
		{
			// A 100% memory limit admits one job at a time: job 2, which
			// does not wait for resources, is refused at its submission.
			name: "exclusive/resource shortage", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 1)
				c.MemKB, c.Queues[0].MemPercent = 100, 100
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 2, 100, none, 0), sdJob(2, 10, 2, 10, none, 0)},
			want: []string{
				"0 ms start job 1 row -1",
				"10000 ms reject job 2",
			},
		},
		{
			// Queue 0 deactivated from 10 to 20: job 1 is held, then
			// resumes.
			name: "exclusive/deactivated queue", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 1)
				c.Changes = []policy.QueueChange{{At: 10, Queue: 0, State: policy.Deactivated}, {At: 20, Queue: 0, State: policy.Activated}}
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0)},
			want: []string{
				"0 ms start job 1 row -1",
				"10000 ms hold job 1",
				"20000 ms start job 1 row -1",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eng, err := sim.NewScoreD(tc.procs, tc.cfg())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			sim.RecordDecisions(eng, &got)
			if _, err := eng.Run(simtest.NewSource(tc.jobs), &simtest.Recorder{}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("decisions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestHPCPackWindowOnNodes computes by hand HPC Pack's strict backfill
// window (--backfill hpcpack) on clusters of nodes whose free processors
// the blocked head cannot use. The window lasts until the head's start on
// the nodes (SPEC §3: "the window is those nodes × the time until the
// head's start"), not until the instant enough processors are free
// somewhere: counted in processors alone the head could start now, which
// closed the window and backfilled nothing.
func TestHPCPackWindowOnNodes(t *testing.T) {
	inPart := func(j workload.Job, p int) workload.Job { j.Partition = p; return j }
	twoParts := &cluster.Spec{Select: cluster.SelectLinear,
		Groups:     []cluster.NodeGroup{{Name: "a", Count: 1, Cores: 4}, {Name: "b", Count: 1, Cores: 4}},
		Partitions: []cluster.Partition{{Name: "pa", Groups: []string{"a"}, SWF: 1, Default: true}, {Name: "pb", Groups: []string{"b"}, SWF: 2}}}
	tests := []struct {
		name string
		spec *cluster.Spec
		jobs []workload.Job
		// The starts under HPC Pack's window and under EASY.
		strict, easy string
	}{
		// Jobs 1 and 2 take 5 of each node's 8 GB; head 3 needs 5 GB on
		// one core: 6 cores are idle, but it starts when job 1 ends, at
		// 100. Job 4 (2 cores, 50 s) ends at 52 ≤ 100: it backfills at 2.
		// Job 5 (2 cores, 120 s) would run past 100: HPC Pack's window
		// keeps it until 100; EASY starts it at 3 on cores the head does
		// not need.
		{"cons_res memory", twoNodes(cluster.SelectConsRes), []workload.Job{
			memJob(1, 0, 1, 100, 100, 5*gbKB),
			memJob(2, 0, 1, 100, 100, 5*gbKB),
			memJob(3, 1, 1, 10, 10, 5*gbKB),
			job(4, 2, 2, 50, 50),
			job(5, 3, 2, 120, 120),
		}, "1:0 2:0 3:100 4:2 5:100", "1:0 2:0 3:100 4:2 5:3"},
		// Job 1 fills partition pa's node until 100; head 2 (pa) waits for
		// it although pb's node is idle. Job 3 (pb, 50 s) ends at 52 ≤
		// 100: it backfills at 2. Job 4 (pb, 40 s), submitted at 60 once
		// job 3 ended, ends at 100, the head's start: it backfills too.
		// Job 5 (pb, 200 s, submitted at 101) starts at once. EASY, which
		// counts the head's shadow time in processors as pyss does, sees
		// 4 free for a head of 4 (shadow now, no extra processors) and
		// backfills nothing: 3 waits for the head, 4 for 3, 5 for 4.
		{"linear partitions", twoParts, []workload.Job{
			inPart(job(1, 0, 4, 100, 100), 1),
			inPart(job(2, 1, 4, 10, 10), 1),
			inPart(job(3, 2, 4, 50, 50), 2),
			inPart(job(4, 60, 4, 40, 40), 2),
			inPart(job(5, 101, 4, 200, 200), 2),
		}, "1:0 2:100 3:2 4:60 5:101", "1:0 2:100 3:100 4:150 5:190"},
		// Whole nodes: job 1 (1 core) holds node 0 until 100, job 2 (3
		// cores) node 1 until 30. Head 3 needs both nodes: at 100.
		// Job 4 (1 core, 60 s) fits node 1 at 30 and ends at 90 ≤ 100.
		{"linear whole nodes", twoNodes(cluster.SelectLinear), []workload.Job{
			job(1, 0, 1, 100, 100),
			job(2, 0, 3, 30, 30),
			job(3, 1, 5, 10, 10),
			job(4, 2, 1, 60, 60),
		}, "1:0 2:0 3:100 4:30", "1:0 2:0 3:100 4:30"},
	}
	for _, tc := range tests {
		for _, strict := range []bool{true, false} {
			pol := &policy.EASY{Lookahead: policy.LookaheadAll, Strict: strict}
			want := tc.easy
			if strict {
				want = tc.strict
			}
			t.Run(tc.name+"/"+pol.Name(), func(t *testing.T) {
				rec, _, _ := simtest.RunNodes(t, tc.spec, sim.Config{Policy: pol}, tc.jobs)
				var got []string
				for _, j := range tc.jobs {
					r := rec.ByID(t, j.ID)
					got = append(got, fmt.Sprintf("%d:%d", j.ID, r.Start))
				}
				if g := strings.Join(got, " "); g != want {
					t.Errorf("starts %s, want %s", g, want)
				}
			})
		}
	}
}

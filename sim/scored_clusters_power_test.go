package sim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// TestScoreDClustersSwitching switches nodes off under SCore-D's exclusive
// queue on twoClusters (cluster 1: processors 0-3, speed 1; cluster 2:
// 4-5, speed 2), nodes of one processor, idle timeout 10 s, switch-off
// 5 s, switch-on 10 s. Each job waits for its own cluster, so the manager
// wakes a cluster's nodes for the jobs assigned to it, and any node for a
// job several clusters hold. Worked out by hand: job 1 (2 processors) is
// assigned cluster 2 at 0 (equal loads: the faster wins) and cluster 1's
// four nodes, idle since 0, are switched off at 10 (asleep at 15).
func TestScoreDClustersSwitching(t *testing.T) {
	j := func(id int64, submit workload.Time, procs int, run workload.Time) workload.Job {
		return workload.Job{ID: id, Seq: id, Submit: submit, Procs: procs, Run: run, Estimate: 1000}
	}
	off := []string{"10:0:0", "15:0:1", "10:1:0", "15:1:1", "10:2:0", "15:2:1", "10:3:0", "15:3:1"}
	cases := []struct {
		name     string
		jobs     []workload.Job
		starts   []workload.Time
		switches []string
	}{
		{
			// Job 2 (2 processors) comes at 30: cluster 1's load is
			// 4/4/1 (its processors asleep are out of service), cluster
			// 2's 2/2/2, so it is assigned cluster 2 and waits for job 1
			// (end 100). Cluster 1's sleeping nodes would give it
			// nothing: none is woken (a count over the whole machine
			// would wake nodes 0 and 1).
			name:   "a job waiting for its own cluster wakes no other cluster's node",
			jobs:   []workload.Job{j(1, 0, 2, 100), j(2, 30, 2, 10)},
			starts: []workload.Time{0, 100}, switches: off,
		},
		{
			// Job 2 (3 processors) at 30: only cluster 1 holds it; its
			// shortfall of 3 wakes nodes 0-2 at 30 (on at 40), and it
			// starts at 40 there, ending at 90. Node 3 sleeps on. Nodes
			// 0-2, idle from 90, are switched off at 100, while job 1
			// (to 200) keeps cluster 2.
			name:   "a job assigned a sleeping cluster wakes that cluster's nodes",
			jobs:   []workload.Job{j(1, 0, 2, 200), j(2, 30, 3, 50)},
			starts: []workload.Time{0, 40},
			switches: append(slices.Clone(off), "30:0:2", "40:0:3", "30:1:2", "40:1:3", "30:2:2", "40:2:3",
				"100:0:0", "105:0:1", "100:1:0", "105:1:1", "100:2:0", "105:2:1"),
		},
		{
			// Job 2 (5 processors) at 30: no one cluster holds it, so
			// it is given both; the machine's shortfall of 5 wakes nodes
			// 0-3 (4 processors; 4 and 5 are on, held by job 1). They
			// are on at 40 and stay on although idle past 50: the job
			// needs them (5 > 4 free − 1). It starts at 100, when job 1
			// gives back processor 4, on 0-4; node 5, idle from 100, is
			// switched off at 110, as job 2 ends (the run's last
			// instant).
			name:   "a job several clusters hold wakes any cluster's nodes",
			jobs:   []workload.Job{j(1, 0, 2, 100), j(2, 30, 5, 10)},
			starts: []workload.Time{0, 100},
			switches: append(slices.Clone(off), "30:0:2", "40:0:3", "30:1:2", "40:1:3", "30:2:2", "40:2:3", "30:3:2", "40:3:3",
				"110:5:0", "115:5:1"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			c := sdConfig(1, policy.Exclusive, 2)
			checkSwitched(t, sim.Config{Procs: 6, ScoreD: &c, ScoreDClusters: twoClusters(false), NodeSize: 1,
				Power: &sim.Power{NodeSize: 1, IdleTimeout: 10, SwitchOff: 5, SwitchOn: 10, Log: powerLog(&log)}}, &log, tc.jobs, tc.starts, tc.switches)
		})
	}
}

// TestScoreDClustersSwitchingNodes refuses nodes that straddle two
// clusters: a cluster is a set of hosts.
func TestScoreDClustersSwitchingNodes(t *testing.T) {
	c := sdConfig(1, policy.Exclusive, 2)
	_, err := sim.New(sim.Config{Procs: 6, ScoreD: &c, ScoreDClusters: &sim.ScoreDClusters{Procs: []int{3, 3}, Speed: []float64{1, 1}}, NodeSize: 1,
		Power: &sim.Power{NodeSize: 2, IdleTimeout: 10}})
	if err == nil || !strings.Contains(err.Error(), "not whole nodes") {
		t.Errorf("clusters of 3 processors on nodes of 2: %v, want a refusal", err)
	}
}

package sim_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// twoClusters is the cluster of clusters of the tests below: cluster 1 of
// 4 processors (0-3) at speed 1, cluster 2 of 2 processors (4-5) at
// speed 2.
func twoClusters(scale bool) *sim.ScoreDClusters {
	return &sim.ScoreDClusters{Procs: []int{4, 2}, Speed: []float64{1, 2}, ScaleRuntime: scale}
}

// runScoreDClusters runs jobs on SCore-D's queues on clusters and checks
// the records with VerifyScoreD.
func runScoreDClusters(t *testing.T, cfg policy.ScoreD, cl *sim.ScoreDClusters, evs []cluster.NodeEvent, onFail sim.NodeFailAction, jobs []workload.Job) *simtest.Recorder {
	t.Helper()
	procs := 0
	for _, p := range cl.Procs {
		procs += p
	}
	eng, err := sim.New(sim.Config{Procs: procs, ScoreD: &cfg, ScoreDClusters: cl, NodeEvents: evs, NodeSize: 1, OnNodeFail: onFail})
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	if _, err := eng.Run(simtest.NewSource(jobs), rec); err != nil {
		t.Fatal(err)
	}
	var outs []sim.ScoreDOutcome
	for _, r := range rec.Records {
		outs = append(outs, sdOutcome(&r))
	}
	lim := sim.ScoreDLimits{MPL: cfg.MPL, Clusters: cl.Procs, NodeEvents: evs, NodeSize: 1, ClusterMemKB: cl.MemKB, ClusterDiskKB: cl.DiskKB}
	for i := range cl.MemKB {
		lim.MemKB += cl.MemKB[i]
	}
	for i := range cl.DiskKB {
		lim.DiskKB += cl.DiskKB[i]
	}
	for _, q := range cfg.Queues {
		lim.MemPercent = append(lim.MemPercent, q.MemPercent)
		lim.DiskPercent = append(lim.DiskPercent, q.DiskPercent)
	}
	for _, v := range sim.VerifyScoreD(procs, outs, lim) {
		t.Errorf("verify: %v", v)
	}
	return rec
}

// TestScoreDClusters checks SCore-D's queues on a cluster of clusters
// (SPEC §5) on schedules computed by hand (in the comments): cluster 1
// has processors 0-3 at speed 1, cluster 2 processors 4-5 at speed 2. A
// job's load on a cluster is (processors held or out of service + those
// of the jobs assigned to it still waiting) / its processors / its speed.
// Gang cases: quantum 100 ms, switch 0, so that two rows in use run every
// gang job at rate 1/2.
func TestScoreDClusters(t *testing.T) {
	excl := func() policy.ScoreD { return sdConfig(1, policy.Exclusive, 2) }
	gang := func() policy.ScoreD {
		c := sdConfig(1, policy.Gang, 2)
		c.SwitchMs = 0
		return c
	}
	prio := func() policy.ScoreD { return sdConfig(2, policy.Exclusive, 2) }
	cases := []struct {
		name string
		cfg  func() policy.ScoreD
		cl   *sim.ScoreDClusters
		evs  []cluster.NodeEvent
		fail sim.NodeFailAction
		jobs []workload.Job
		want []sdNodeWant
	}{
		{
			// All at 0. 1 (1 processor): both clusters at load 0, the
			// faster wins: cluster 2, processor 4, run 100/2 = 50. 2:
			// cluster 1 at 0, cluster 2 at 1/2/2 = 0.25: cluster 1,
			// processor 0, 100. 3 (2 processors): 1/4/1 = 0.25 against
			// 1/2/2 = 0.25, the faster wins: cluster 2, where only
			// processor 5 is free: it waits for its cluster's processors
			// (cluster 1 has 3 idle) and starts when 1 ends, at 50, on
			// 4-5, for 50. 4 (5 processors): no cluster has 5, so it gets
			// both, at the slowest's pace (100); it waits behind 3 (strict
			// FCFS) and for 5 free processors: at 100, on 0-4. 5 (7
			// processors) is more than both together: refused.
			name: "exclusive", cfg: excl, cl: twoClusters(true),
			jobs: []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 0, 1, 100, none, 0), sdJob(3, 0, 2, 100, none, 0),
				sdJob(4, 0, 5, 100, none, 0), sdJob(5, 0, 7, 100, none, 0)},
			want: []sdNodeWant{
				{id: 1, end: 50, cpu: 50, alloc: "4"},
				{id: 2, end: 100, cpu: 100, alloc: "0"},
				{id: 3, start: 50, end: 100, cpu: 50, alloc: "4-5"},
				{id: 4, start: 100, end: 200, cpu: 100, alloc: "0-4"},
				{id: 5, state: sim.Rejected, reason: "needs 7 processors, machine has 6"},
			},
		},
		{
			// As above with speed comparing loads only: 1 and 3 run 100
			// on cluster 2, so 3 starts at 100 and 4 at 200.
			name: "exclusive/loads only", cfg: excl, cl: twoClusters(false),
			jobs: []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 0, 1, 100, none, 0), sdJob(3, 0, 2, 100, none, 0),
				sdJob(4, 0, 5, 100, none, 0)},
			want: []sdNodeWant{
				{id: 1, end: 100, cpu: 100, alloc: "4"},
				{id: 2, end: 100, cpu: 100, alloc: "0"},
				{id: 3, start: 100, end: 200, cpu: 100, alloc: "4-5"},
				{id: 4, start: 200, end: 300, cpu: 100, alloc: "0-4"},
			},
		},
		{
			// At 0: 1 (2 processors) goes to the faster cluster 2 (both
			// at 0), row 0, run 50; 2 (2) to cluster 1 (0 against
			// 2/2/2 = 0.5), row 0, 100; 3 (1): 2/4 = 0.5 against 0.5,
			// the faster: cluster 2, whose row 0 is full: row 1, on 4,
			// run 50; 4 (1): 0.5 against 3/2/2 = 0.75: cluster 1, row 0,
			// on 2. Two rows in use: every job at rate 1/2 (the rows take
			// turns machine-wide). At 10, 5 (2): cluster 1 has 3 of 4
			// processors held (0.75), cluster 2 2 of 2 at speed 2 (0.5):
			// cluster 2, although it is full and cluster 1's row 1 is
			// empty; 6 (5) gets both; 7 (7) is refused. At 100 1 and 3
			// end (50 at rate 1/2); 5 starts in row 0 on 4-5 (run 50)
			// and 6 in row 1 on 0-4 (run 10): two rows again. 2 and 4
			// have 50 left, 6 ends at 120 (10 at rate 1/2); from then
			// on one row: 2, 4 and 5 had 10 of progress at 120, end at
			// 160.
			name: "gang", cfg: gang, cl: twoClusters(true),
			jobs: []workload.Job{sdJob(1, 0, 2, 100, none, 0), sdJob(2, 0, 2, 100, none, 0), sdJob(3, 0, 1, 100, none, 0),
				sdJob(4, 0, 1, 100, none, 0), sdJob(5, 10, 2, 100, none, 0), sdJob(6, 10, 5, 10, none, 0), sdJob(7, 10, 7, 10, none, 0)},
			want: []sdNodeWant{
				{id: 1, end: 100, cpu: 50, alloc: "4-5"},
				{id: 2, end: 160, cpu: 100, alloc: "0-1"},
				{id: 3, end: 100, cpu: 50, alloc: "4"},
				{id: 4, end: 160, cpu: 100, alloc: "2"},
				{id: 5, start: 100, end: 160, cpu: 50, alloc: "4-5"},
				{id: 6, start: 100, end: 120, cpu: 10, alloc: "0-4"},
				{id: 7, state: sim.Rejected, start: 10, end: 10, reason: "needs 7 processors, machine has 6"},
			},
		},
		{
			// Two exclusive queues, suspension. At 0, 1 (queue 1, 2
			// processors) goes to the faster cluster 2 (4-5) and 2 (queue
			// 1, 4) to cluster 1, the only one it fits (0-3). At 10, 3
			// (queue 0, 2) is assigned cluster 2 (2/2/2 = 0.5 against
			// 4/4 = 1): it preempts 1 only, not 2, which was started as
			// late and submitted later (first in Slurm's order) but holds
			// none of its cluster's processors. 3 runs 10-20; 1 resumes
			// at 20 on its cluster and ends at 110.
			name: "preemption stays on the cluster", cfg: prio, cl: twoClusters(false),
			jobs: []workload.Job{sdJob(1, 0, 2, 100, none, 1), sdJob(2, 0, 4, 100, none, 1), sdJob(3, 10, 2, 10, none, 0)},
			want: []sdNodeWant{
				{id: 1, end: 110, cpu: 100, susp: 1, alloc: "4-5"},
				{id: 2, end: 100, cpu: 100, alloc: "0-3"},
				{id: 3, start: 10, end: 20, cpu: 10, alloc: "4-5"},
			},
		},
		{
			// Node events name processors (nodes of 1). Processor 4 is
			// drained from 0 to 50: at 0, 1 (1 processor) goes to cluster
			// 2 (load 0, faster) and runs on 5; 2 (1) sees cluster 1 at 0
			// and cluster 2 at (1 out of service + 1 waiting)/2/2 = 0.5:
			// cluster 1, on 0. At 30 processor 0 goes down: 2 is
			// requeued and runs again from the start on its cluster, on 1,
			// 30-130, although processor 4 is back in service at 50.
			name: "node events", cfg: excl, cl: twoClusters(false), fail: sim.NodeFailRequeue,
			evs:  []cluster.NodeEvent{nev(0, cluster.NodeDrain, 4, 4), nev(30, cluster.NodeDown, 0, 0), nev(50, cluster.NodeResume, 4, 4)},
			jobs: []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 0, 1, 100, none, 0)},
			want: []sdNodeWant{
				{id: 1, end: 100, cpu: 100, alloc: "5"},
				{id: 2, end: 130, cpu: 130, requeues: 1, alloc: "1"},
			},
		},
	}
	// Memory: cluster 1's hosts have 1000 KB, cluster 2's 400 KB, and the
	// queue's limit is 50 %: 500 KB on cluster 1, 200 KB on cluster 2.
	memCfg := func() policy.ScoreD {
		c := sdConfig(1, policy.Exclusive, 2)
		c.Queues[0].MemPercent = 50
		return c
	}
	memCl := twoClusters(false)
	memCl.MemKB, memCl.PerHost = []int64{1000, 400}, []int{1, 1}
	waits := sdJob(6, 10, 1, 100, none, 0)
	waits.WaitResources = 1
	hog := sdJob(7, 300, 1, 100, none, 0)
	hog.UsedMemKB = 300
	cases = append(cases, struct {
		name string
		cfg  func() policy.ScoreD
		cl   *sim.ScoreDClusters
		evs  []cluster.NodeEvent
		fail sim.NodeFailAction
		jobs []workload.Job
		want []sdNodeWant
	}{
		// At 0: 1 goes to cluster 2 (tie, faster; 200 KB of its 400 held),
		// 2 to cluster 1 (0 against 0.25; 500 of 1000), 3 to cluster 2
		// (0.25 against 0.25, faster; 400 of 400), 4 to cluster 1 (0.25
		// against 0.5; 1000 of 1000): all start. At 10, 5: 0.5 against 0.5,
		// cluster 2, whose memory is all held: refused for the shortage
		// on its cluster. 6, which asked to wait: cluster 1 (0.5 against
		// (2 + 1 waiting)/2/2 = 0.75), short of memory too: it waits
		// until 2 and 4 end at 100 and give theirs back, and runs
		// 100-200. At 300, 7 (using 300 KB on its host) goes to cluster 2
		// (both idle: the faster), whose limit is 200 KB: killed when it
		// starts; on cluster 1 it would have run.
		name: "exclusive/memory per cluster", cfg: memCfg, cl: memCl,
		jobs: []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 0, 1, 100, none, 0), sdJob(3, 0, 1, 100, none, 0),
			sdJob(4, 0, 1, 100, none, 0), sdJob(5, 10, 1, 100, none, 0), waits, hog},
		want: []sdNodeWant{
			{id: 1, end: 100, cpu: 100, alloc: "4"},
			{id: 2, end: 100, cpu: 100, alloc: "0"},
			{id: 3, end: 100, cpu: 100, alloc: "5"},
			{id: 4, end: 100, cpu: 100, alloc: "1"},
			{id: 5, state: sim.Rejected, start: 10, end: 10, reason: "memory limit 200 KB, 400 KB of cluster 2's 400 KB held"},
			{id: 6, start: 100, end: 200, cpu: 100, alloc: "0"},
			{id: 7, state: sim.LimitKilled, start: 300, end: 300, alloc: "4", reason: "memory use 300 KB per host exceeds its limit 200 KB"},
		},
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg()
			rec := runScoreDClusters(t, cfg, c.cl, c.evs, c.fail, c.jobs)
			if len(rec.Records) != len(c.want) {
				t.Fatalf("%d records, want %d", len(rec.Records), len(c.want))
			}
			for _, w := range c.want {
				r := rec.ByID(t, w.id)
				got := sdNodeWant{id: w.id, state: r.State, start: r.Start, end: r.End, cpu: r.CPUTime, susp: r.Suspensions, requeues: r.Requeues,
					alloc: string(cluster.FormatRanges(nil, r.Alloc)), reason: w.reason}
				if got != w {
					t.Errorf("job %d: got %+v, want %+v (reason %q)", w.id, got, w, r.Reason)
				}
				if !strings.Contains(r.Reason, w.reason) || (w.reason == "") != (r.Reason == "") {
					t.Errorf("job %d: reason %q, want one containing %q", w.id, r.Reason, w.reason)
				}
			}
		})
	}
}

// TestScoreDClustersCheckpoint checks that a run on a cluster of clusters
// saved at every instant and resumed from each checkpoint writes the
// records of the run never interrupted, and that two runs are identical.
func TestScoreDClustersCheckpoint(t *testing.T) {
	var jobs []workload.Job
	for i := range 60 {
		jobs = append(jobs, sdJob(int64(i+1), workload.Time(i*7), 1+(i*5)%7, workload.Time(20+(i*37)%90), none, i%2))
	}
	cfg := sdConfig(2, policy.Gang, 2)
	cfg.Queues[1].Mode = policy.Exclusive
	cl := twoClusters(true)
	run := func(b []byte, save func(t workload.Time) error) string {
		c := sim.Config{Procs: 6, ScoreD: &cfg, ScoreDClusters: cl, CheckpointEvery: 25, OnCheckpoint: save}
		var eng *sim.Engine
		var err error
		if b != nil {
			eng, err = sim.Restore(c, b)
		} else {
			eng, err = sim.New(c)
		}
		if err != nil {
			t.Fatal(err)
		}
		rec := &simtest.Recorder{}
		if _, err := eng.Run(simtest.NewSource(jobs), rec); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		for _, r := range rec.Records {
			fmt.Fprintf(&out, "%d %v %d %d %v %v %d\n", r.Job.ID, r.State, r.Start, r.End, r.Alloc, r.Stints, r.CPUTime)
		}
		return out.String()
	}
	var states [][]byte
	var eng *sim.Engine
	save := func(workload.Time) error {
		b, err := eng.MarshalBinary()
		if err != nil {
			return err
		}
		states = append(states, b)
		return nil
	}
	c := sim.Config{Procs: 6, ScoreD: &cfg, ScoreDClusters: cl, CheckpointEvery: 25, OnCheckpoint: save}
	var err error
	if eng, err = sim.New(c); err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	if _, err := eng.Run(simtest.NewSource(jobs), rec); err != nil {
		t.Fatal(err)
	}
	whole := run(nil, nil)
	if again := run(nil, nil); again != whole {
		t.Fatal("two runs differ")
	}
	if len(states) < 3 {
		t.Fatalf("%d checkpoints, want several", len(states))
	}
	if !strings.Contains(whole, "[{4 6}]") || !strings.Contains(whole, "[{0 4}]") {
		t.Fatalf("the jobs do not use both clusters:\n%s", whole)
	}
	resumed := 0
	for i, b := range states {
		// The records before the checkpoint were written by the first
		// run; the resumed run writes the rest.
		got := run(b, func(workload.Time) error { return nil })
		if !strings.HasSuffix(whole, got) {
			t.Errorf("resumed from checkpoint %d: records\n%s\nare not the end of the uninterrupted run's\n%s", i, got, whole)
		}
		if got != "" {
			resumed++
		}
	}
	if resumed < len(states)/2 {
		t.Errorf("only %d of %d resumed runs wrote records", resumed, len(states))
	}
}

// TestVerifyScoreDClusters checks VerifyScoreD's rules for a cluster of
// clusters (4 processors with 1000 KB hosts, then 2 with 400 KB) on
// outcomes written by hand.
func TestVerifyScoreDClusters(t *testing.T) {
	out := func(id int64, procs int, mem int64, stints ...string) sim.ScoreDOutcome {
		o := sim.ScoreDOutcome{ID: id, Procs: procs, State: sim.Completed, End: 1000, MemLimitKB: mem}
		for _, s := range stints {
			from, rest, _ := strings.Cut(s, "-")
			to, procs, _ := strings.Cut(rest, "@")
			f, _ := strconv.ParseInt(from, 10, 64)
			e, _ := strconv.ParseInt(to, 10, 64)
			rs, err := cluster.ParseRanges(strings.ReplaceAll(procs, ",", " "))
			if err != nil {
				t.Fatal(err)
			}
			o.Stints = append(o.Stints, sim.Stint{FromMs: f, ToMs: e, Row: -1})
			o.StintAllocs = append(o.StintAllocs, rs)
		}
		return o
	}
	lim := sim.ScoreDLimits{MPL: 1, MemKB: 1400, MemPercent: []int{50}, DiskPercent: []int{0}, Clusters: []int{4, 2}, ClusterMemKB: []int64{1000, 400}}
	for _, tc := range []struct {
		name string
		outs []sim.ScoreDOutcome
		want string // a substring of the one violation, "" for none
	}{
		{"valid", []sim.ScoreDOutcome{out(1, 2, 200, "0-10000@4-5"), out(2, 4, 500, "0-10000@0-3"), out(3, 5, 100, "10000-20000@0-4")}, ""},
		{"across clusters", []sim.ScoreDOutcome{out(1, 2, 100, "0-10000@3-4")}, "not on one cluster"},
		{"moved", []sim.ScoreDOutcome{out(1, 2, 100, "0-10000@0-1", "20000-30000@4-5")}, "after running on cluster 1"},
		{"memory on a cluster", []sim.ScoreDOutcome{out(1, 1, 200, "0-10000@4"), out(2, 1, 250, "5000-10000@5"), out(3, 2, 600, "0-10000@0-1")}, "cluster 2: at 5 s the started jobs 1, 2 hold memory limits of 450 KB"},
		{"memory of a job on several", []sim.ScoreDOutcome{out(1, 1, 350, "0-10000@4"), out(2, 5, 100, "5000-10000@0-3,5")}, "cluster 2: at 5 s the started jobs 1, 2 hold memory limits of 450 KB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := sim.VerifyScoreD(6, tc.outs, lim)
			switch {
			case tc.want == "" && len(vs) > 0:
				t.Fatalf("violations %v", vs)
			case tc.want != "" && (len(vs) != 1 || !strings.Contains(vs[0].Error(), tc.want)):
				t.Fatalf("violations %v, want one with %q", vs, tc.want)
			}
		})
	}
}

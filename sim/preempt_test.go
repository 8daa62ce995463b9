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

// preemptSpec is a cluster of n single-core nodes (select sel) with two
// partitions on all of them: "low" (SWF partition 1, PriorityTier 0) and
// "high" (SWF partition 2, PriorityTier 1).
func preemptSpec(sel string, n int) *cluster.Spec {
	return &cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "n", Count: n, Cores: 1}},
		Partitions: []cluster.Partition{
			{Name: "low", Groups: []string{"n"}, SWF: 1},
			{Name: "high", Groups: []string{"n"}, SWF: 2, PriorityTier: 1},
		}}
}

// tierOf is preemptSpec's tiers: partition 2 is tier 1, the rest tier 0.
func tierOf(j *workload.Job) int {
	if j.Partition == 2 {
		return 1
	}
	return 0
}

// pjob is a job of SWF partition part with an exact estimate.
func pjob(id int64, submit workload.Time, procs int, run workload.Time, part int) workload.Job {
	j := job(id, submit, procs, run, run)
	j.Partition = part
	return j
}

// preemptWant is a job's hand-computed outcome under preemption: its
// final state, first start and end, the runs ("FROM-TO@NODES ...", empty
// for a job never preempted), its preemptions ("AT@BY ...") and the run
// time lost.
type preemptWant struct {
	state      sim.State
	start, end workload.Time
	runs       string
	marks      string
	lost       workload.Time
}

func runsString(r *sim.Record) (runs, marks string) {
	var a, b []string
	for _, x := range r.Runs {
		a = append(a, fmt.Sprintf("%d-%d@%s", x.From, x.To, cluster.FormatRanges(nil, x.Alloc)))
	}
	for _, m := range r.Preemptions {
		b = append(b, fmt.Sprintf("%d@%d", m.At, m.By))
	}
	return strings.Join(a, " "), strings.Join(b, " ")
}

// TestPreemptPartitionPrio checks Slurm's preemption by partition
// priority (preempt/partition_prio) on hand-computed schedules: which
// candidates go, and what SUSPEND, REQUEUE and CANCEL do to them.
func TestPreemptPartitionPrio(t *testing.T) {
	// Four nodes. Job 1 (low, 4 nodes, 100 s) runs from 0. Job 2 (high,
	// 2 nodes, 30 s) arrives at 10: it does not fit, job 1 is the only
	// candidate, and it goes.
	base := []workload.Job{pjob(1, 0, 4, 100, 1), pjob(2, 10, 2, 30, 2)}
	// Two low jobs of 2 nodes each (1 on 0-1 from 0, 3 on 2-3 from 5);
	// job 4 (high, 2 nodes) at 10: the candidates are 1 and 3, both of 2
	// nodes, so submission order: 1 goes first, and job 4 fits on its
	// nodes; 3 keeps running.
	pick := []workload.Job{pjob(1, 0, 2, 100, 1), pjob(3, 5, 2, 100, 1), pjob(4, 10, 2, 20, 2)}
	// Smaller first: job 1 holds 3 nodes, job 3 one node; job 4 (high, 1
	// node) at 10 takes job 3's node, the smaller candidate.
	small := []workload.Job{pjob(1, 0, 3, 100, 1), pjob(3, 0, 1, 100, 1), pjob(4, 10, 1, 20, 2)}
	// No preemption within a tier: job 2 of the low partition waits.
	same := []workload.Job{pjob(1, 0, 4, 100, 1), pjob(2, 10, 2, 30, 1)}
	// A high job larger than what the candidates free waits: job 2 (high,
	// 4 nodes) while job 1 (high, 2 nodes, 0-1) and job 3 (low, 2 nodes)
	// run; only job 3 is a candidate, and 2 + 0 free < 4.
	tooBig := []workload.Job{pjob(1, 0, 2, 50, 2), pjob(3, 0, 2, 100, 1), pjob(2, 10, 4, 30, 2)}
	cases := []struct {
		name     string
		mode     policy.PreemptMode
		youngest bool
		sel      string
		jobs     []workload.Job
		want     map[int64]preemptWant
	}{
		{"suspend", policy.PreemptSuspend, false, cluster.SelectLinear, base, map[int64]preemptWant{
			// Job 1 ran 10 s, is suspended 10-40, resumes on its nodes when
			// job 2 ends and runs its 90 s left: ends at 130.
			1: {sim.Completed, 0, 130, "0-10@0-3 40-130@0-3", "10@2", 0},
			2: {sim.Completed, 10, 40, "", "", 0},
		}},
		{"requeue", policy.PreemptRequeue, false, cluster.SelectLinear, base, map[int64]preemptWant{
			// Job 1 goes back to the queue at 10, its 10 s lost; it starts
			// over when job 2 ends and the 4 nodes are free: 40-140.
			1: {sim.Completed, 0, 140, "0-10@0-3 40-140@0-3", "10@2", 10},
			2: {sim.Completed, 10, 40, "", "", 0},
		}},
		{"cancel", policy.PreemptCancel, false, cluster.SelectLinear, base, map[int64]preemptWant{
			1: {sim.Preempted, 0, 10, "0-10@0-3", "10@2", 0},
			2: {sim.Completed, 10, 40, "", "", 0},
		}},
		{"cons_res suspend", policy.PreemptSuspend, false, cluster.SelectConsRes, base, map[int64]preemptWant{
			1: {sim.Completed, 0, 130, "0-10@0-3 40-130@0-3", "10@2", 0},
			2: {sim.Completed, 10, 40, "", "", 0},
		}},
		{"order by size then submission", policy.PreemptSuspend, false, cluster.SelectLinear, pick, map[int64]preemptWant{
			1: {sim.Completed, 0, 120, "0-10@0-1 30-120@0-1", "10@4", 0},
			3: {sim.Completed, 5, 105, "", "", 0},
			4: {sim.Completed, 10, 30, "", "", 0},
		}},
		{"youngest first", policy.PreemptSuspend, true, cluster.SelectLinear, pick, map[int64]preemptWant{
			// preempt_youngest_first: job 3 started last, it goes.
			1: {sim.Completed, 0, 100, "", "", 0},
			3: {sim.Completed, 5, 125, "5-10@2-3 30-125@2-3", "10@4", 0},
			4: {sim.Completed, 10, 30, "", "", 0},
		}},
		{"smaller candidate first", policy.PreemptRequeue, false, cluster.SelectLinear, small, map[int64]preemptWant{
			1: {sim.Completed, 0, 100, "", "", 0},
			// Job 3 ran on node 3 (after job 1's 0-2), is requeued at 10
			// and starts over at 30 when job 4 ends.
			3: {sim.Completed, 0, 130, "0-10@3 30-130@3", "10@4", 10},
			4: {sim.Completed, 10, 30, "", "", 0},
		}},
		{"same tier", policy.PreemptSuspend, false, cluster.SelectLinear, same, map[int64]preemptWant{
			1: {sim.Completed, 0, 100, "", "", 0},
			2: {sim.Completed, 100, 130, "", "", 0},
		}},
		{"too big", policy.PreemptCancel, false, cluster.SelectLinear, tooBig, map[int64]preemptWant{
			// At 50 job 1 ends: with job 3 cancelled, 4 nodes are free.
			1: {sim.Completed, 0, 50, "", "", 0},
			3: {sim.Preempted, 0, 50, "0-50@2-3", "50@2", 0},
			2: {sim.Completed, 50, 80, "", "", 0},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			al, err := preemptSpec(c.sel, 4).NewAllocator()
			if err != nil {
				t.Fatal(err)
			}
			pol := policy.WithTiers(&policy.PartitionPrio{Inner: policy.FCFS{}}, tierOf)
			eng, err := sim.New(sim.Config{Policy: pol, Allocator: al,
				Preempt: &sim.Preemption{Mode: c.mode, Tier: tierOf, YoungestFirst: c.youngest}})
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			if _, err := eng.Run(simtest.NewSource(c.jobs), rec); err != nil {
				t.Fatal(err)
			}
			if len(rec.Records) != len(c.want) {
				t.Fatalf("%d records, want %d", len(rec.Records), len(c.want))
			}
			var outs []sim.Outcome
			col := &sim.Collector{}
			for id, w := range c.want {
				r := rec.ByID(t, id)
				col.JobDone(&r)
				runs, marks := runsString(&r)
				if r.State != w.state || r.Start != w.start || r.End != w.end || runs != w.runs || marks != w.marks || r.LostRun != w.lost {
					t.Errorf("job %d: %v %d-%d runs %q preempted %q lost %d; want %v %d-%d runs %q preempted %q lost %d",
						id, r.State, r.Start, r.End, runs, marks, r.LostRun, w.state, w.start, w.end, w.runs, w.marks, w.lost)
				}
				if !r.HasTier || r.Tier != tierOf(r.Job) {
					t.Errorf("job %d: tier %d (%v), want %d", id, r.Tier, r.HasTier, tierOf(r.Job))
				}
			}
			outs = col.Outcomes
			spec := preemptSpec(c.sel, 4)
			if vs := sim.Verify(spec.Cores(), outs, sim.VerifyOptions{Cluster: spec}); len(vs) > 0 {
				t.Errorf("verify: %v", vs)
			}
		})
	}
}

// TestVerifyPreemption plants violations of the preemption rules in a
// correct schedule (the suspend case of TestPreemptPartitionPrio) and
// checks that Verify names each.
func TestVerifyPreemption(t *testing.T) {
	good := func() []sim.Outcome {
		j1, j2 := pjob(1, 0, 4, 100, 1), pjob(2, 10, 2, 30, 2)
		j1.Seq, j2.Seq = 0, 1
		all := []cluster.Range{{Lo: 0, Hi: 4}}
		return []sim.Outcome{
			{Job: j1, State: sim.Completed, Start: 0, End: 130, Alloc: all, HasTier: true, Tier: 0,
				Runs:        []sim.RunSpan{{From: 0, To: 10, Alloc: all}, {From: 40, To: 130, Alloc: all}},
				Preemptions: []sim.PreemptMark{{At: 10, By: 2, Mode: policy.PreemptSuspend}}},
			{Job: j2, State: sim.Completed, Start: 10, End: 40, Alloc: []cluster.Range{{Lo: 0, Hi: 2}}, HasTier: true, Tier: 1},
		}
	}
	spec := preemptSpec(cluster.SelectLinear, 4)
	cases := []struct {
		name  string
		plant func(o []sim.Outcome)
		rule  string // "" : no violation
		msg   string
	}{
		{"good", func([]sim.Outcome) {}, "", ""},
		{"preemptor of the same tier", func(o []sim.Outcome) { o[1].Tier = 0 }, "preemptor", "not above its own tier"},
		{"preemptor of a lower tier", func(o []sim.Outcome) { o[0].Tier, o[1].Tier = 2, 1 }, "preemptor", "not above its own tier"},
		{"preemptor did not start then", func(o []sim.Outcome) { o[0].Preemptions[0].By = 1 }, "preemptor", "did not start then"},
		{"suspended job held its nodes", func(o []sim.Outcome) {
			o[0].Runs[0].To, o[0].Preemptions[0].At = 20, 20
			o[0].Runs[1].From = 50
		}, "overlap", "processor 0 taken at 10 while job 1 holds it until 20"},
		{"run time not conserved", func(o []sim.Outcome) { o[0].Runs[1].To, o[0].End = 120, 120 }, "preemption", "add up to 90 s, its run time is 100 s"},
		{"resumed elsewhere", func(o []sim.Outcome) { o[0].Runs[1].Alloc = []cluster.Range{{Lo: 0, Hi: 3}} }, "preemption", "resumed at 40 on 0-2"},
		{"lost time of a requeue", func(o []sim.Outcome) {
			o[0].Preemptions[0].Mode = policy.PreemptRequeue
			o[0].Runs[1].To, o[0].End = 140, 140
		}, "preemption", "it records 0 s lost"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outs := good()
			c.plant(outs)
			vs := sim.Verify(spec.Cores(), outs, sim.VerifyOptions{Cluster: spec})
			if c.rule == "" {
				if len(vs) > 0 {
					t.Fatalf("violations in a correct schedule: %v", vs)
				}
				return
			}
			for _, v := range vs {
				if v.Rule == c.rule && strings.Contains(v.Msg, c.msg) {
					return
				}
			}
			t.Errorf("want a %s violation saying %q, got %v", c.rule, c.msg, vs)
		})
	}
}

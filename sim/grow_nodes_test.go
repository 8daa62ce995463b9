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

// growNodesRun runs jobs on the cluster spec under pol with growth g (a
// linear speedup if g has none), checks the schedule with sim.Verify on
// the cluster, and returns the records.
func growNodesRun(t *testing.T, spec *cluster.Spec, pol policy.Policy, g *sim.Grow, jobs []workload.Job) *simtest.Recorder {
	t.Helper()
	if g.Speedup == nil {
		g.Speedup = policy.Linear{}
	}
	rec, _, al := simtest.RunNodes(t, spec, sim.Config{Policy: pol, Grow: g}, jobs)
	if len(rec.Records) != len(jobs) {
		t.Fatalf("%d records for %d jobs", len(rec.Records), len(jobs))
	}
	if al.Free() != al.Capacity() {
		t.Errorf("%d of %d processors free at the end", al.Free(), al.Capacity())
	}
	if vs := sim.Verify(spec.Cores(), rec.Outcomes(), sim.VerifyOptions{Cluster: spec, Speedup: g.Speedup}); len(vs) > 0 {
		t.Fatalf("verify: %v\n%s", vs, simtest.Format(rec.Records))
	}
	return rec
}

// formatSteps writes a record's growth steps as "at:procs:alloc", the
// allocation of each step being what it added (nodes under linear, cores
// under cons_res; "-" for none).
func formatSteps(r sim.Record) string {
	var b strings.Builder
	for k, g := range r.Steps {
		if k > 0 {
			b.WriteByte(' ')
		}
		a := string(cluster.FormatRanges(nil, g.Alloc))
		if a == "" {
			a = "-"
		}
		fmt.Fprintf(&b, "%d:%d:%s", g.At, g.Procs, a)
	}
	return b.String()
}

// TestGrowOnNodes computes by hand growing jobs (HPC Pack's minimum and
// maximum resources, Queued mode) on two nodes of 4 cores and 8 GB: with
// cons_res a job grows core by core, with linear by whole nodes, after
// the cores of the nodes it holds. Job 2's trace run is 100 s on 4
// processors: 400 processor-seconds of work under the linear speedup.
func TestGrowOnNodes(t *testing.T) {
	memMalleable := func(j workload.Job, memKB float64) workload.Job { j.ReqMemKB = memKB; return j }
	tests := []struct {
		name string
		sel  string
		jobs []workload.Job
		// want: each job's start, end, growth steps and allocation.
		want []string
	}{
		// Job 1 (rigid, 6 cores) leaves cores 6-7: job 2 starts on its
		// minimum 2 there, 400/2 = 200 s. At 50 job 1 ends: 100 done, job
		// 2 grows to 8 on cores 0-5, 300/8 = 37.5, up to 38: ends at 88.
		{"cons_res grows core by core", cluster.SelectConsRes, []workload.Job{
			job(1, 0, 6, 50, 1000),
			malleable(2, 0, 4, 100, 1000, 2, 8),
		}, []string{
			"1: 0-50 [] 0-5",
			"2: 0-88 [0:2:6-7 50:8:0-5] 0-7",
		}},
		// Job 2 asks 3 GB a core: node 0 holds 2 of its cores, node 1 2
		// more. Alone, it starts on 2 and is offered 6 more at once; the
		// nodes' memory gives 2: on 4, 400/4 = 100 s.
		{"cons_res memory bounds the growth", cluster.SelectConsRes, []workload.Job{
			memMalleable(malleable(2, 0, 4, 100, 1000, 2, 8), 3*gbKB),
		}, []string{
			"2: 0-100 [0:2:0-1 0:4:4-5] 0-1 4-5",
		}},
		// A trace of 16 processors with range [4, 16] runs on the 8
		// cores: its maximum is cut to the cluster, its work 16·10 =
		// 160 spans 160/8 = 20 s.
		{"cons_res maximum cut to the cluster", cluster.SelectConsRes, []workload.Job{
			malleable(3, 0, 16, 10, 1000, 4, 16),
		}, []string{
			"3: 0-20 [0:4:0-3 0:8:4-7] 0-7",
		}},
		// Linear: job 1 (3 cores) holds node 0 until 50. Job 2 starts on
		// 2 cores of node 1, which it holds whole, and at once grows onto
		// its other 2 (no new node): 400/4 = 100. At 50 node 0 is free:
		// 200 done, it grows to 8, 200/8 = 25: ends at 75.
		{"linear grows onto its nodes, then by whole nodes", cluster.SelectLinear, []workload.Job{
			job(1, 0, 3, 50, 1000),
			malleable(2, 0, 4, 100, 1000, 2, 8),
		}, []string{
			"1: 0-50 [] 0",
			"2: 0-75 [0:2:1 0:4:- 50:8:0] 0-1",
		}},
		// With maximum 6 it takes node 0 whole at 50 but runs on 6:
		// 200/6 = 33.3, up to 34: ends at 84.
		{"linear holds a whole node beyond its maximum", cluster.SelectLinear, []workload.Job{
			job(1, 0, 3, 50, 1000),
			malleable(2, 0, 4, 100, 1000, 2, 6),
		}, []string{
			"1: 0-50 [] 0",
			"2: 0-84 [0:2:1 0:4:- 50:6:0] 0-1",
		}},
		// A minimum above the cluster is rejected at submission; a trace
		// count above it with a minimum that fits runs.
		{"minimum decides the submission", cluster.SelectLinear, []workload.Job{
			malleable(1, 0, 16, 10, 1000, 9, 16),
			malleable(2, 0, 16, 10, 1000, 4, 16),
		}, []string{
			"1: rejected",
			"2: 0-20 [0:4:0 0:8:1] 0-1",
		}},
	}
	for _, tc := range tests {
		for _, pol := range []policy.Policy{policy.FCFS{}, &policy.EASY{Lookahead: policy.LookaheadAll}, &policy.EASY{Lookahead: policy.LookaheadAll, Strict: true}} {
			t.Run(tc.name+"/"+pol.Name(), func(t *testing.T) {
				rec := growNodesRun(t, twoNodes(tc.sel), pol, &sim.Grow{}, tc.jobs)
				for k, j := range tc.jobs {
					r := rec.ByID(t, j.ID)
					got := fmt.Sprintf("%d: %d-%d [%s] %s", j.ID, r.Start, r.End, formatSteps(r), cluster.FormatRanges(nil, r.Alloc))
					if r.State == sim.Rejected {
						got = fmt.Sprintf("%d: rejected", j.ID)
					}
					if got != tc.want[k] {
						t.Errorf("got  %s\nwant %s", got, tc.want[k])
					}
				}
			})
		}
	}
}

// TestGrowOnNodesRealTrace runs HPC2N-2002's first 3,170 jobs (1,000
// without CI), every third one given a range of half to twice its
// processors as the other growth tests do, on 120 dual-core nodes (the
// log's 240 processors) with linear and cons_res, under FCFS, EASY and
// HPC Pack's window, in Queued and Balanced modes (Amdahl, 10 % serial):
// verify replays every growth on the nodes and finds nothing, jobs grew in
// every run, and with linear some grew onto cores of the nodes they held
// (a job of an odd count holds a core more than it runs on).
func TestGrowOnNodesRealTrace(t *testing.T) {
	jobs, procs := hpc2nRanges(t)
	if procs != 240 {
		t.Fatalf("HPC2N has %d processors, want 240", procs)
	}
	jobs = jobs[:simtest.Cases(len(jobs), 1000)]
	speedup := policy.Amdahl{Serial: 0.1}
	onHeld := map[string]int{} // by selector: growths onto held cores
	for _, sel := range []string{cluster.SelectLinear, cluster.SelectConsRes} {
		spec := &cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "n", Count: 120, Cores: 2}}}
		for _, pol := range []func() policy.Policy{
			func() policy.Policy { return policy.FCFS{} },
			func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} },
			func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll, Strict: true} },
		} {
			for _, balanced := range []bool{false, true} {
				name := sel + "/" + pol().Name()
				if balanced {
					name += "/balanced"
				}
				t.Run(name, func(t *testing.T) {
					rec := growNodesRun(t, spec, pol(), &sim.Grow{Speedup: speedup, Balanced: balanced}, jobs)
					grew := 0
					for _, r := range rec.Records {
						if len(r.Steps) > 1 {
							grew++
						}
						for _, g := range r.Steps[min(len(r.Steps), 1):] {
							if len(g.Alloc) == 0 {
								onHeld[sel]++
							}
						}
					}
					if grew == 0 {
						t.Error("no job grew")
					}
					t.Logf("%d jobs, %d grew", len(rec.Records), grew)
				})
			}
		}
	}
	if onHeld[cluster.SelectLinear] == 0 {
		t.Error("linear: no job grew onto the cores of the nodes it held")
	}
	if n := onHeld[cluster.SelectConsRes]; n > 0 {
		t.Errorf("cons_res: %d growths took no cores", n)
	}
}

// TestGrowOnNodesCheckpoint: growing jobs on a cluster of nodes (HPC2N as
// in TestGrowOnNodesRealTrace, EASY) stopped at every checkpoint and
// resumed from the saved state give the records and statistics of an
// uninterrupted run: the processors a grown job holds on the nodes, and
// its steps, are in the state.
func TestGrowOnNodesCheckpoint(t *testing.T) {
	jobs, _ := hpc2nRanges(t)
	jobs = jobs[:simtest.Cases(len(jobs), 600)]
	for i := range jobs {
		jobs[i].Seq = int64(i)
	}
	for _, sel := range []string{cluster.SelectLinear, cluster.SelectConsRes} {
		t.Run(sel, func(t *testing.T) {
			spec := &cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "n", Count: 120, Cores: 2}}}
			cfg := func() sim.Config {
				al, err := spec.NewAllocator()
				if err != nil {
					t.Fatal(err)
				}
				return sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Allocator: al, Grow: &sim.Grow{Speedup: policy.Amdahl{Serial: 0.1}}}
			}
			want, wantStats := simtest.Run(t, cfg(), jobs)
			got := &simtest.Recorder{}
			if resumes := simtest.RunResumed(t, jobs, got, wantStats, simtest.EngineResumer(cfg, 3600)); resumes < 5 {
				t.Fatalf("only %d resumes: the test does not exercise checkpoints", resumes)
			}
			grew := 0
			for _, r := range want.Records {
				if len(r.Steps) > 1 {
					grew++
				}
			}
			if grew < 10 {
				t.Fatalf("only %d jobs grew: the test does not exercise growth", grew)
			}
			simtest.SameRecords(t, got.Records, want.Records, "after resuming")
		})
	}
}

// TestGrowOnNodesNodeEvents: growing jobs on a cluster of nodes whose
// nodes fail and drain (HPC2N as in TestGrowOnNodesRealTrace, EASY, a
// quarter of the nodes down for a day, a sixth draining for another), the
// jobs on failed nodes requeued or killed: verify replays every growth,
// a killed job's up to its failure, and finds nothing.
func TestGrowOnNodesNodeEvents(t *testing.T) {
	jobs, _ := hpc2nRanges(t)
	events := []cluster.NodeEvent{
		{At: 20 * 86400, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 0, Hi: 30}}, Reason: "a quarter down"},
		{At: 21 * 86400, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 0, Hi: 30}}},
		{At: 30 * 86400, State: cluster.NodeDrain, Nodes: []cluster.Range{{Lo: 40, Hi: 60}}, Reason: "maintenance"},
		{At: 31 * 86400, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 40, Hi: 60}}},
	}
	speedup := policy.Amdahl{Serial: 0.1}
	for _, sel := range []string{cluster.SelectLinear, cluster.SelectConsRes} {
		for _, onFail := range []sim.NodeFailAction{sim.NodeFailRequeue, sim.NodeFailKill} {
			t.Run(fmt.Sprintf("%s/%v", sel, onFail), func(t *testing.T) {
				spec := &cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "n", Count: 120, Cores: 2}}}
				cfg := sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Grow: &sim.Grow{Speedup: speedup}, NodeEvents: events, OnNodeFail: onFail}
				rec, st, _ := simtest.RunNodes(t, spec, cfg, jobs)
				if st.Requeued+st.NodeKilled == 0 {
					t.Fatal("the failure hit no job: the test tests nothing")
				}
				grew := 0
				for _, r := range rec.Records {
					if len(r.Steps) > 1 {
						grew++
					}
				}
				if grew == 0 {
					t.Fatal("no job grew")
				}
				opts := sim.VerifyOptions{Cluster: spec, Speedup: speedup, NodeEvents: events, NodeSize: 2}
				outs := rec.Outcomes()
				if vs := sim.Verify(spec.Cores(), outs, opts); len(vs) > 0 {
					t.Fatalf("%d violations, the first: %v", len(vs), vs[0])
				}
				// A killed growing job said to outlive its work is caught.
				planted := false
				for i := range outs {
					if o := &outs[i]; o.State == sim.NodeFail && len(o.Steps) > 0 {
						o.End += 30 * 86400
						if vs := sim.Verify(spec.Cores(), outs, opts); len(vs) == 0 || vs[0].Rule != "end" {
							t.Errorf("job %d killed after its end: violations %v, want an end", o.Job.ID, vs)
						}
						planted = true
						break
					}
				}
				if onFail == sim.NodeFailKill && !planted {
					t.Error("no growing job killed by a node: nothing planted")
				}
				t.Logf("%d requeued, %d killed by a node, %d grew", st.Requeued, st.NodeKilled, grew)
			})
		}
	}
}

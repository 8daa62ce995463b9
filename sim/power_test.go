package sim_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// TestPowerIdleTimeout runs two nodes of two processors with an idle
// timeout of 10 s, switches of 5 s (off) and 20 s (on): both nodes sleep
// once idle, and a job that needs them waits for their switch-on.
func TestPowerIdleTimeout(t *testing.T) {
	var log []string
	cfg := sim.Config{Procs: 4, Power: &sim.Power{NodeSize: 2, IdleTimeout: 10, SwitchOff: 5, SwitchOn: 20,
		Log: func(at workload.Time, n int, c sim.PowerChange) { log = append(log, fmt.Sprintf("%d:%d:%d", at, n, c)) }}}
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 2, Run: 10, Estimate: 10},
		{Seq: 1, ID: 2, Submit: 100, Procs: 4, Run: 10, Estimate: 10},
		{Seq: 2, ID: 3, Submit: 101, Procs: 1, Run: 5, Estimate: 5},
	}
	rec := runJobs(t, cfg, jobs)
	for _, c := range []struct {
		id         int64
		start, end workload.Time
	}{{1, 0, 10}, {2, 120, 130}, {3, 130, 135}} {
		if r := rec.ByID(t, c.id); r.Start != c.start || r.End != c.end {
			t.Errorf("job %d ran %d–%d, want %d–%d", c.id, r.Start, r.End, c.start, c.end)
		}
	}
	// Node 1 idle from 0, off at 10 (asleep 15); node 0 idle from 10,
	// off at 20 (asleep 25); both switched on at 100 for job 2, on at 120.
	want := []string{"10:1:0", "15:1:1", "20:0:0", "25:0:1", "100:0:2", "120:0:3", "100:1:2", "120:1:3"}
	if !slices.Equal(log, want) {
		t.Errorf("power log %v, want %v", log, want)
	}
}

// TestPowerKeepsNeededNodes checks that an idle node the queue needs is
// not switched off: the head job waits for a running one, and the idle
// node stays on, so the head starts when the job ends.
func TestPowerKeepsNeededNodes(t *testing.T) {
	n := 0
	cfg := sim.Config{Procs: 4, Power: &sim.Power{NodeSize: 2, IdleTimeout: 1, SwitchOff: 5, SwitchOn: 20,
		Log: func(workload.Time, int, sim.PowerChange) { n++ }}}
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 2, Run: 100, Estimate: 100},
		{Seq: 1, ID: 2, Submit: 0, Procs: 4, Run: 10, Estimate: 10},
	}
	rec := runJobs(t, cfg, jobs)
	if r := rec.ByID(t, 2); r.Start != 100 {
		t.Errorf("job 2 started at %d, want 100 (the idle node kept on for it)", r.Start)
	}
	if n != 0 {
		t.Errorf("%d power changes, want none", n)
	}
}

// TestPowerPlan runs the planned switching: a node idle for the
// break-even time (10 s) sleeps; a head job that needs it wakes it at
// once, and starts when the running job ends.
func TestPowerPlan(t *testing.T) {
	var log []string
	cfg := sim.Config{Procs: 4, Power: &sim.Power{NodeSize: 2, Plan: true, BreakEven: 10, SwitchOff: 5, SwitchOn: 20,
		Log: func(at workload.Time, n int, c sim.PowerChange) { log = append(log, fmt.Sprintf("%d:%d:%d", at, n, c)) }}}
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 2, Run: 100, Estimate: 100},
		{Seq: 1, ID: 2, Submit: 50, Procs: 4, Run: 10, Estimate: 10},
	}
	rec := runJobs(t, cfg, jobs)
	if r := rec.ByID(t, 2); r.Start != 100 {
		t.Errorf("job 2 started at %d, want 100", r.Start)
	}
	want := []string{"10:1:0", "15:1:1", "50:1:2", "70:1:3"}
	if !slices.Equal(log, want) {
		t.Errorf("power log %v, want %v", log, want)
	}
}

// TestPowerGrow switches nodes off with growing jobs (two nodes of two
// processors, idle timeout 10 s, switches 5 s and 20 s, linear speedup):
// job 1 runs rigid on node 0 0–30; job 2 (2 processors in the trace, 1 to
// 4) starts on node 1 at 0 and grows onto node 0 when job 1 ends at 30,
// so node 0 is never idle for long: 60 of its 200 processor-seconds done
// on 2, 140 on 4 take 35 s, to 65. Both nodes then sleep at 75, and node 0
// is woken at 200 for job 3, which runs 220–225.
func TestPowerGrow(t *testing.T) {
	var log []string
	cfg := sim.Config{Procs: 4, Policy: policy.FCFS{}, Grow: &sim.Grow{Speedup: policy.Linear{}},
		Power: &sim.Power{NodeSize: 2, IdleTimeout: 10, SwitchOff: 5, SwitchOn: 20,
			Log: func(at workload.Time, n int, c sim.PowerChange) { log = append(log, fmt.Sprintf("%d:%d:%d", at, n, c)) }}}
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 2, Run: 30, Estimate: 30},
		{Seq: 1, ID: 2, Submit: 0, Procs: 2, Run: 100, Estimate: 1000, MinProcs: 1, MaxProcs: 4},
		{Seq: 2, ID: 3, Submit: 200, Procs: 1, Run: 5, Estimate: 5},
	}
	rec := runJobs(t, cfg, jobs)
	for _, c := range []struct {
		id         int64
		start, end workload.Time
	}{{1, 0, 30}, {2, 0, 65}, {3, 220, 225}} {
		if r := rec.ByID(t, c.id); r.Start != c.start || r.End != c.end {
			t.Errorf("job %d ran %d–%d, want %d–%d", c.id, r.Start, r.End, c.start, c.end)
		}
	}
	want := []string{"75:0:0", "80:0:1", "75:1:0", "80:1:1", "200:0:2", "220:0:3"}
	if !slices.Equal(log, want) {
		t.Errorf("power log %v, want %v", log, want)
	}
}

// TestPowerNodeEvents switches nodes off with node events (two nodes of
// two processors, idle timeout 10 s, switches 5 s and 20 s): node 1 sleeps
// from 15 and node 0 from 25; node 1 goes down at 30 while asleep, so at
// 35 only node 0 is woken for job 2 (4 processors); node 1's RESUME at 40
// puts it back in service but not on, so it is woken then, and job 2
// starts at 60, when both are on — not at 55 on a sleeping node.
func TestPowerNodeEvents(t *testing.T) {
	var log []string
	cfg := sim.Config{Procs: 4, NodeSize: 2,
		NodeEvents: []cluster.NodeEvent{{At: 30, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 1, Hi: 2}}}, {At: 40, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 1, Hi: 2}}}},
		Power: &sim.Power{NodeSize: 2, IdleTimeout: 10, SwitchOff: 5, SwitchOn: 20,
			Log: func(at workload.Time, n int, c sim.PowerChange) { log = append(log, fmt.Sprintf("%d:%d:%d", at, n, c)) }}}
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 2, Run: 10, Estimate: 10},
		{Seq: 1, ID: 2, Submit: 35, Procs: 4, Run: 10, Estimate: 10},
	}
	rec := runJobs(t, cfg, jobs)
	for _, c := range []struct {
		id         int64
		start, end workload.Time
	}{{1, 0, 10}, {2, 60, 70}} {
		if r := rec.ByID(t, c.id); r.Start != c.start || r.End != c.end {
			t.Errorf("job %d ran %d–%d, want %d–%d", c.id, r.Start, r.End, c.start, c.end)
		}
	}
	want := []string{"10:1:0", "15:1:1", "20:0:0", "25:0:1", "35:0:2", "55:0:3", "40:1:2", "60:1:3"}
	if !slices.Equal(log, want) {
		t.Errorf("power log %v, want %v", log, want)
	}
}

// TestPowerNodeFailure: a job killed by a node failure frees its node for
// switching (two nodes of two processors, idle timeout 10 s, switches 5 s
// and 20 s). Job 1 on node 0 is killed when it goes down at 10; node 0
// is back at 20, idle, and sleeps at 30; node 1 sleeps from 10. Job 3
// wakes node 0 at 200.
func TestPowerNodeFailure(t *testing.T) {
	var log []string
	cfg := sim.Config{Procs: 4, NodeSize: 2,
		NodeEvents: []cluster.NodeEvent{{At: 10, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 0, Hi: 1}}}, {At: 20, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 0, Hi: 1}}}},
		Power: &sim.Power{NodeSize: 2, IdleTimeout: 10, SwitchOff: 5, SwitchOn: 20,
			Log: func(at workload.Time, n int, c sim.PowerChange) { log = append(log, fmt.Sprintf("%d:%d:%d", at, n, c)) }}}
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 2, Run: 100, Estimate: 100},
		{Seq: 1, ID: 3, Submit: 200, Procs: 2, Run: 5, Estimate: 5},
	}
	rec := runJobs(t, cfg, jobs)
	if r := rec.ByID(t, 1); r.State != sim.NodeFail || r.End != 10 {
		t.Errorf("job 1: %v at %d, want killed at 10", r.State, r.End)
	}
	if r := rec.ByID(t, 3); r.Start != 220 {
		t.Errorf("job 3 started at %d, want 220", r.Start)
	}
	want := []string{"10:1:0", "15:1:1", "30:0:0", "35:0:1", "200:0:2", "220:0:3"}
	if !slices.Equal(log, want) {
		t.Errorf("power log %v, want %v", log, want)
	}
}

// TestPowerCluster switches a cluster's nodes (cons_res, node 0 in
// partition a, node 1 in partition b, two cores each; idle timeout 10 s,
// switches 5 s and 20 s): both sleep once idle, and job 2, of partition
// b, wakes node 1 — the node it may run on, not the lowest numbered.
func TestPowerCluster(t *testing.T) {
	spec := &cluster.Spec{Select: cluster.SelectConsRes,
		Groups:     []cluster.NodeGroup{{Name: "a", Count: 1, Cores: 2}, {Name: "b", Count: 1, Cores: 2}},
		Partitions: []cluster.Partition{{Name: "pa", Groups: []string{"a"}, SWF: 1, Default: true}, {Name: "pb", Groups: []string{"b"}, SWF: 2}}}
	al, err := spec.NewAllocator()
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	cfg := sim.Config{Procs: 4, Allocator: al, Policy: policy.FCFS{},
		Power: &sim.Power{NodeSize: 1, IdleTimeout: 10, SwitchOff: 5, SwitchOn: 20,
			Log: func(at workload.Time, n int, c sim.PowerChange) { log = append(log, fmt.Sprintf("%d:%d:%d", at, n, c)) }}}
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 2, Run: 10, Estimate: 10, Partition: 1},
		{Seq: 1, ID: 2, Submit: 100, Procs: 1, Run: 5, Estimate: 5, Partition: 2},
	}
	rec := runJobs(t, cfg, jobs)
	for _, c := range []struct {
		id         int64
		start, end workload.Time
	}{{1, 0, 10}, {2, 120, 125}} {
		if r := rec.ByID(t, c.id); r.Start != c.start || r.End != c.end {
			t.Errorf("job %d ran %d–%d, want %d–%d", c.id, r.Start, r.End, c.start, c.end)
		}
	}
	want := []string{"10:1:0", "15:1:1", "20:0:0", "25:0:1", "100:1:2", "120:1:3"}
	if !slices.Equal(log, want) {
		t.Errorf("power log %v, want %v", log, want)
	}
}

// TestPowerFederation switches the nodes of a cluster of clusters: two
// clusters of two 1-core nodes (nodes 0–1 and 2–3), an idle timeout of
// 10 s, switches of 5 s (off) and 20 s (on), FCFS. Every idle node of
// either cluster sleeps; a job is woken the nodes of its own cluster
// (job 2, assigned cluster 1 while all sleep, wakes nodes 0–1; job 4,
// assigned cluster 2 because job 3 already waits on cluster 1, wakes node
// 2 alone); a node off counts as busy in its cluster's load, as a node out
// of service does.
func TestPowerFederation(t *testing.T) {
	member := func() cluster.FederationMember {
		m, err := cluster.MemberOf(&cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var log []string
	cfg := sim.Config{Procs: 4, Policy: policy.FCFS{}, Allocator: cluster.NewFederation([]cluster.FederationMember{member(), member()}),
		Power: &sim.Power{NodeSize: 1, IdleTimeout: 10, SwitchOff: 5, SwitchOn: 20,
			Log: func(at workload.Time, n int, c sim.PowerChange) { log = append(log, fmt.Sprintf("%d:%d:%d", at, n, c)) }}}
	jobs := []workload.Job{
		{Seq: 0, ID: 1, Submit: 0, Procs: 1, Run: 10, Estimate: 10},
		{Seq: 1, ID: 2, Submit: 100, Procs: 2, Run: 10, Estimate: 10},
		{Seq: 2, ID: 3, Submit: 125, Procs: 1, Run: 10, Estimate: 10},
		{Seq: 3, ID: 4, Submit: 125, Procs: 1, Run: 10, Estimate: 10},
	}
	rec := runJobs(t, cfg, jobs)
	for _, c := range []struct {
		id         int64
		start, end workload.Time
		alloc      string
	}{{1, 0, 10, "[{0 1}]"}, {2, 120, 130, "[{0 2}]"}, {3, 130, 140, "[{0 1}]"}, {4, 145, 155, "[{2 3}]"}} {
		r := rec.ByID(t, c.id)
		if r.Start != c.start || r.End != c.end || fmt.Sprint(r.Alloc) != c.alloc {
			t.Errorf("job %d ran %d–%d on %v, want %d–%d on %s", c.id, r.Start, r.End, r.Alloc, c.start, c.end, c.alloc)
		}
	}
	// At 10 the idle nodes 1, 2 and 3 go off, node 0 (job 1's) at 20;
	// job 2 wakes cluster 1's nodes at 100, job 4 node 2 at 125; then
	// nodes 1 and 0 go off 10 s after their last job (the run ends with
	// job 4, before node 2's timeout).
	want := []string{"10:1:0", "15:1:1", "10:2:0", "15:2:1", "10:3:0", "15:3:1", "20:0:0", "25:0:1",
		"100:0:2", "120:0:3", "100:1:2", "120:1:3", "125:2:2", "145:2:3",
		"140:1:0", "145:1:1", "150:0:0", "155:0:1"}
	if !slices.Equal(log, want) {
		t.Errorf("power log %v,\nwant %v", log, want)
	}
}

package sim_test

import (
	"fmt"
	"slices"
	"testing"

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

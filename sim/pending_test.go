package sim_test

import (
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// pendingByID collects each job's pending reason.
type pendingByID map[int64]sim.PendingReason

func (p pendingByID) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds} }

func (p pendingByID) Observe(e *sim.Event) { p[e.Record.Job.ID] = e.Record.Pending }

// TestPendingReasons: a job that started at once has no reason; the head of
// the queue waiting for busy processors waits for resources; a job behind
// it waits for priority; a job held until a time on an idle machine waits
// for its hold.
func TestPendingReasons(t *testing.T) {
	job := func(id int64, submit workload.Time, procs int, run workload.Time) workload.Job {
		return workload.Job{Seq: id, ID: id, Submit: submit, Procs: procs, Run: run, Estimate: run}
	}
	jobs := []workload.Job{
		job(1, 0, 4, 100),  // starts at once
		job(2, 1, 3, 100),  // head, machine full: resources
		job(3, 2, 1, 10),   // behind job 2 under FCFS, starts beside it: priority
		job(4, 500, 2, 10), // held until 600 on an idle machine
	}
	jobs[3].HoldUntil = 600
	for _, tc := range []struct {
		name string
		cfg  policy.Config
		want map[int64]sim.PendingReason
	}{
		{"fcfs", policy.Config{Backfill: policy.BackfillOff},
			map[int64]sim.PendingReason{1: sim.PendingNone, 2: sim.PendingResources, 3: sim.PendingPriority, 4: sim.PendingHold}},
		// EASY backfills job 3 only where it ends before job 2's
		// reservation; it cannot here (the machine is full), so the same.
		{"easy", policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.DefaultLookahead, Depth: 1},
			map[int64]sim.PendingReason{1: sim.PendingNone, 2: sim.PendingResources, 3: sim.PendingPriority, 4: sim.PendingHold}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol, err := policy.New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := sim.New(sim.Config{Procs: 4, Policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			got := pendingByID{}
			if _, err := eng.Run(&simtest.Source{Jobs: append([]workload.Job(nil), jobs...)}, got); err != nil {
				t.Fatal(err)
			}
			for id, want := range tc.want {
				if got[id] != want {
					t.Errorf("job %d: pending %q, want %q", id, got[id], want)
				}
			}
		})
	}
	for r, want := range map[sim.PendingReason]string{sim.PendingNone: "", sim.PendingPriority: "priority", sim.PendingResources: "resources",
		sim.PendingPolicy: "held by the policy", sim.PendingHold: "hold until"} {
		if r.String() != want {
			t.Errorf("%d.String() = %q, want %q", r, r.String(), want)
		}
	}
}

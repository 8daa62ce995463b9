package sim_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// sharedJobs: 4 processors, queue 3 time-shared. Job 1 (4 processors,
// 100 s) runs 0-100. Job 2 (queue 3, 2 processors, 50 s) is submitted at
// 10 onto the full machine: it starts at once, sharing, and ends at 60.
// Job 3 (2 processors, 30 s), submitted at 20, waits for job 1. Job 4
// (queue 3, 3 processors, 40 s), submitted at 90, starts at once and
// holds 3 processors until 130: at 100, when job 1 ends, one processor is
// idle for the others, and job 3 waits until 130. Job 5 (1 processor, 10
// s), submitted at 105: FCFS keeps it behind job 3 (130); EASY, its
// kin and conservative backfilling (which plans anew at job 4's start)
// backfill it at 105 (it ends at 115, before job 3's reservation at
// 130, and fits the idle processor); Slurm's backfill cycle (every 60 s)
// backfills it at 120.
func sharedJobs() []workload.Job {
	js := []workload.Job{job(1, 0, 4, 100, 100), job(2, 10, 2, 50, 50), job(3, 20, 2, 30, 30), job(4, 90, 3, 40, 40), job(5, 105, 1, 10, 10)}
	for i, q := range []int{1, 3, 1, 3, 1} {
		js[i].Seq, js[i].Queue = int64(i), q
	}
	return js
}

// TestSharedQueues: a time-shared queue's jobs start at their submission
// whatever the idle processors, under every policy that shares; the other
// jobs start only where they fit beside them (conservative backfilling
// plans anew on each time-shared start); the time-shared jobs take only
// the processors idle at their start (none here), so the
// processor-seconds count the others' alone.
func TestSharedQueues(t *testing.T) {
	want := map[string]string{
		"fcfs":  "1:0 2:10 3:130 4:90 5:130",
		"slurm": "1:0 2:10 3:130 4:90 5:120",
	}
	for _, pc := range simtest.Policies(t) {
		t.Run(pc.Name, func(t *testing.T) {
			for _, deferred := range []bool{false, true} {
				cfg := sim.Config{Procs: 4, Policy: pc.New(), Shared: queue3, DeferPlacement: deferred}
				eng, err := sim.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				var obs sim.Observer
				col := &sim.Collector{}
				obs = col
				if deferred {
					obs = sim.NewPlacer(4, col)
				}
				st, err := eng.Run(simtest.NewSource(sharedJobs()), obs)
				if err != nil {
					t.Fatal(err)
				}
				w, ok := want[pc.Name]
				if !ok {
					w = "1:0 2:10 3:130 4:90 5:105"
				}
				if g := simtest.StartsOf(col.Outcomes, 5); g != w {
					t.Errorf("deferred %v: starts %s, want %s", deferred, g, w)
				}
				if st.ProcSeconds != 4*100+2*30+1*10 {
					t.Errorf("deferred %v: processor-seconds %v, want %v", deferred, st.ProcSeconds, 4*100+2*30+1*10)
				}
				for _, o := range col.Outcomes {
					if o.Job.Queue == 3 && len(o.Alloc) > 0 {
						t.Errorf("deferred %v: job %d took %v of a full machine", deferred, o.Job.ID, o.Alloc)
					}
				}
				opts := sim.VerifyOptions{Shared: queue3}
				if vs := sim.Verify(4, col.Outcomes, opts); len(vs) > 0 {
					t.Fatalf("deferred %v: verify: %v", deferred, vs)
				}
				// Job 3 moved to 100, beside job 4's 3 processors: verify
				// finds it. Told of no time-shared queue, verify finds
				// the run wrong (jobs holding fewer processors).
				outs := slices.Clone(col.Outcomes)
				for i := range outs {
					if outs[i].Job.ID == 3 {
						outs[i].Start, outs[i].End = 100, 130
					}
				}
				vs := sim.Verify(4, outs, opts)
				if !slices.ContainsFunc(vs, func(v sim.Violation) bool { return v.Rule == "shared" && v.JobID == 3 }) {
					t.Errorf("deferred %v: verify of job 3 at 100: %v, want a shared violation of job 3", deferred, vs)
				}
				if vs := sim.Verify(4, col.Outcomes, sim.VerifyOptions{}); len(vs) == 0 {
					t.Errorf("deferred %v: verify without the time-shared queue finds nothing", deferred)
				}
			}
		})
	}
}

// TestSharedQueuesCalendar: a time-shared job waits for a reservation
// holding the whole machine, not for one holding part of it, and not for
// the processors. 4 processors, queue 3 time-shared; an outage over
// 200-250 and a reservation of 2 processors over 300-400. Job 1 (queue 3,
// 1 processor, requested 20 s, run 10), submitted at 190, would run into
// the outage: it starts at 250. Job 2 (queue 3, 4 processors, 20 s),
// submitted at 310, starts then, sharing the 2 processors the reservation
// leaves. Job 3 (2 processors, 10 s), submitted at 320, fits the 2 left
// only once job 2 ends, at 330. Job 4 (queue 3, 1 processor, 10 s),
// submitted at 500 inside its start window (none of queue 3's jobs of
// more than 5 s start from 00:07:30 to 00:09:10 each day), starts at 550.
func TestSharedQueuesCalendar(t *testing.T) {
	js := []workload.Job{job(1, 190, 1, 10, 20), job(2, 310, 4, 20, 20), job(3, 320, 2, 10, 10), job(4, 500, 1, 10, 10)}
	for i, q := range []int{3, 3, 1, 3} {
		js[i].Seq, js[i].Queue = int64(i), q
	}
	cons := &sim.Constraints{
		Reservations: []sim.Reservation{
			{Name: "outage", Start: 200, Duration: 50, Until: workload.Forever, Maint: true},
			{Name: "part", Start: 300, Duration: 100, Until: workload.Forever, Procs: 2, Maint: true},
		},
		Windows: []sim.StartWindow{{Partition: -1, Queue: 3, Days: 0x7f, From: 450, To: 550, MaxWall: 5}},
	}
	for _, pc := range simtest.Policies(t) {
		t.Run(pc.Name, func(t *testing.T) {
			eng, err := sim.New(sim.Config{Procs: 4, Policy: pc.New(), Shared: queue3, Constraints: cons})
			if err != nil {
				t.Fatal(err)
			}
			col := &sim.Collector{}
			if _, err := eng.Run(simtest.NewSource(js), col); err != nil {
				t.Fatal(err)
			}
			if g, want := simtest.StartsOf(col.Outcomes, 4), "1:250 2:310 3:330 4:550"; g != want {
				t.Errorf("starts %s, want %s", g, want)
			}
		})
	}
}

// TestSharedQueuesClosedLoop: a time-shared job that a closed loop submits
// later than its recorded time starts at that instant, whatever the idle
// processors. sharedJobs, but job 4 (queue 3, 3 processors, 40 s) follows
// job 2 (ended at 60) with a think time of 35 s: the loop submits it at 95
// instead of 90, onto the full machine, and it runs 95-135. At 100, when
// job 1 ends, one processor is idle for the others, and job 3 waits until
// 135. Job 5 (1 processor, 10 s), submitted at 105: FCFS keeps it behind
// job 3 (135), EASY, its kin and conservative backfilling start it at 105,
// Slurm's backfill cycle at 120.
func TestSharedQueuesClosedLoop(t *testing.T) {
	want := map[string]string{
		"fcfs":  "1:0 2:10 3:135 4:95 5:135",
		"slurm": "1:0 2:10 3:135 4:95 5:120",
	}
	for _, pc := range simtest.Policies(t) {
		t.Run(pc.Name, func(t *testing.T) {
			js := sharedJobs()
			js[3].PrecedingJob, js[3].ThinkTime = 2, 35
			eng, err := sim.New(sim.Config{Procs: 4, Policy: pc.New(), Shared: queue3, ClosedLoop: true})
			if err != nil {
				t.Fatal(err)
			}
			col := &sim.Collector{}
			st, err := eng.Run(simtest.NewSource(js), col)
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[pc.Name]
			if !ok {
				w = "1:0 2:10 3:135 4:95 5:105"
			}
			if g := simtest.StartsOf(col.Outcomes, 5); g != w {
				t.Errorf("starts %s, want %s", g, w)
			}
			if st.LoopDelayed != 1 || st.ProcSeconds != 4*100+2*30+1*10 {
				t.Errorf("%d jobs delayed, processor-seconds %v; want 1 and %v", st.LoopDelayed, st.ProcSeconds, 4*100+2*30+1*10)
			}
			if vs := sim.Verify(4, col.Outcomes, sim.VerifyOptions{Shared: queue3}); len(vs) > 0 {
				t.Fatalf("verify: %v", vs)
			}
		})
	}
}

// TestSharedQueuesRefused: what cannot share processors beyond the idle
// ones refuses a time-shared queue.
func TestSharedQueuesRefused(t *testing.T) {
	for name, cfg := range map[string]sim.Config{
		"grow": {Procs: 4, Policy: policy.FCFS{}, Shared: queue3, Grow: &sim.Grow{}},
	} {
		if _, err := sim.New(cfg); err == nil || !errors.Is(err, sim.ErrSharedCombo) {
			t.Errorf("%s: error %v, want ErrSharedCombo", name, err)
		}
	}
}

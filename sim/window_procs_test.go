package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestStartWindowMaxProcs: a start window that bounds processors keeps
// the larger (MaxProcs) or smaller (MinProcs) jobs of its queue from
// starting inside it, under every policy, and lets the others start.
//
// 8 processors, UTC; every day 00:00-01:00 (0-3600) jobs of queue 1
// asking more than 2 processors may not start. Job 1 (queue 1, 4
// processors, 100 s) waits for the window's end: 3600. Job 2 (queue 1, 2
// processors) starts at 0. Job 3 (queue 2, 4 processors) is not of the
// window's queue: it starts at 0. Job 4 (queue 1, 8 processors, no
// requested time, 50 s), submitted at 10, also waits for 3600; it does
// not fit beside job 1 (4 of 8) until job 1 ends at 3700. Over the same
// hour jobs of queue 2 asking fewer than 4 processors may not start: job
// 5 (queue 2, 2 processors, 100 s), submitted at 20, starts at 3600,
// backfilled beside job 1 (it ends by 3700, job 4's reservation). Under
// FCFS job 1 holds the queue until 3600, and each job waits for the one
// before it.
func TestStartWindowMaxProcs(t *testing.T) {
	const u = workload.Unknown
	jobs := func() []workload.Job {
		js := []workload.Job{job(1, 0, 4, 100, 100), job(2, 0, 2, 100, 100), job(3, 0, 4, 100, 100), job(4, 10, 8, 50, u), job(5, 20, 2, 100, 100)}
		for i, q := range []int{1, 1, 2, 1, 2} {
			js[i].Seq, js[i].Queue = int64(i), q
		}
		return js
	}
	c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC},
		Windows: []sim.StartWindow{{Partition: -1, Queue: 1, Days: 0b1111111, From: 0, To: 3600, MaxProcs: 2},
			{Partition: -1, Queue: 2, Days: 0b1111111, From: 0, To: 3600, MinProcs: 4}}}
	for _, pc := range simtest.Policies(t) {
		t.Run(pc.Name, func(t *testing.T) {
			want := "1:3600 2:0 3:0 4:3700 5:3600"
			if strings.HasPrefix(pc.Name, "fcfs") {
				// Without backfilling job 1 holds the queue: 2 starts
				// beside it, 3 when job 1 ends, 4 when 3 does.
				want = "1:3600 2:3600 3:3700 4:3800 5:3850"
			}
			eng, err := sim.New(sim.Config{Procs: 8, Policy: pc.New(), Constraints: c})
			if err != nil {
				t.Fatal(err)
			}
			col := &sim.Collector{}
			if _, err := eng.Run(simtest.NewSource(jobs()), col); err != nil {
				t.Fatal(err)
			}
			if g := simtest.StartsOf(col.Outcomes, 5); g != want {
				t.Errorf("starts %s, want %s", g, want)
			}
			if vs := sim.Verify(8, col.Outcomes, sim.VerifyOptions{Constraints: c}); len(vs) > 0 {
				t.Errorf("verify: %v", vs)
			}
			// verify finds job 1 moved into the window.
			for i := range col.Outcomes {
				if o := &col.Outcomes[i]; o.Job.ID == 1 {
					o.Start, o.End = 1000, 1100
				}
			}
			vs := sim.Verify(8, col.Outcomes, sim.VerifyOptions{Constraints: c})
			if len(vs) == 0 || vs[0].Rule != "start-window" {
				t.Errorf("job 1 moved into the window: violations %v, want start-window", vs)
			}
		})
	}
}

// TestStartWindowValidate: a window needs max_wall, max_procs or
// min_procs, none negative.
func TestStartWindowValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    sim.StartWindow
		ok   bool
	}{
		{"wall", sim.StartWindow{Partition: -1, Queue: -1, Days: 1, MaxWall: 10}, true},
		{"procs", sim.StartWindow{Partition: -1, Queue: -1, Days: 1, MaxProcs: 10}, true},
		{"both", sim.StartWindow{Partition: -1, Queue: -1, Days: 1, MaxWall: 10, MaxProcs: 10}, true},
		{"neither", sim.StartWindow{Partition: -1, Queue: -1, Days: 1}, false},
		{"negative procs", sim.StartWindow{Partition: -1, Queue: -1, Days: 1, MaxWall: 10, MaxProcs: -1}, false},
		{"min procs", sim.StartWindow{Partition: -1, Queue: -1, Days: 1, MinProcs: 10}, true},
		{"negative min procs", sim.StartWindow{Partition: -1, Queue: -1, Days: 1, MaxWall: 10, MinProcs: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}, Windows: []sim.StartWindow{tc.w}}
			if err := c.Validate(); (err == nil) != tc.ok {
				t.Errorf("Validate: %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

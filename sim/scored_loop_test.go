package sim_test

import (
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// loopJob is sdJob following job pred after think seconds (SWF fields 17
// and 18).
func loopJob(id int64, submit workload.Time, procs int, run workload.Time, queue int, pred int64, think float64) workload.Job {
	j := sdJob(id, submit, procs, run, none, queue)
	j.PrecedingJob, j.ThinkTime = pred, think
	return j
}

func runScoreDLoop(t *testing.T, procs int, cfg policy.ScoreD, jobs []workload.Job) (*simtest.Recorder, sim.Stats) {
	t.Helper()
	eng, err := sim.NewScoreD(procs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	eng.SetClosedLoop(true)
	rec := &simtest.Recorder{}
	st, err := eng.Run(simtest.NewSource(jobs), rec)
	if err != nil {
		t.Fatal(err)
	}
	return rec, st
}

// TestScoreDClosedLoop checks SCore-D's queues under a closed loop on
// schedules computed by hand (quantum 100 ms, switch 10 ms: two rows run
// at rate 100/220 = 5/11).
func TestScoreDClosedLoop(t *testing.T) {
	t.Run("gang", func(t *testing.T) {
		// 1 and 2 share the machine at 5/11: 2 (1 s of work) ends at 2.2
		// s, recorded at 3. 3 follows 2 with no think time: submitted at
		// 3 (the recorded end), not at 2.2; it shares with 1 from 3 and
		// ends at 25. 4 follows 3 after 5 s: 30..52. 5 names a job that is
		// not in the trace: submitted at its recorded 40, it waits for a
		// row until 52 and ends at 54.2 (recorded 55). 1's work: 1 by 2.2,
		// 1.8 by 3, 11.8 by 25, 16.8 by 30, 26.8 by 52, 27.8 by 54.2, then
		// 72.2 s alone: 126.4, recorded 127.
		cfg := sdConfig(1, policy.Gang, 2)
		jobs := []workload.Job{
			loopJob(1, 0, 4, 100, 0, -1, -1), loopJob(2, 0, 4, 1, 0, -1, -1),
			loopJob(3, 1, 4, 10, 0, 2, 0), loopJob(4, 2, 4, 10, 0, 3, 5), loopJob(5, 40, 1, 1, 0, 99, 0),
		}
		rec, st := runScoreDLoop(t, 4, cfg, jobs)
		want := map[int64][3]workload.Time{1: {0, 0, 127}, 2: {0, 0, 3}, 3: {3, 3, 25}, 4: {30, 30, 52}, 5: {40, 52, 55}}
		for id, w := range want {
			r := rec.ByID(t, id)
			if got := [3]workload.Time{r.Job.Submit, r.Start, r.End}; got != w || r.State != sim.Completed {
				t.Errorf("job %d: submit, start, end %v (%v), want %v", id, got, r.State, w)
			}
		}
		if st.LoopFollowing != 3 || st.LoopDelayed != 2 || st.LoopUnknown != 1 || st.Jobs != 5 {
			t.Errorf("stats: %d following, %d delayed, %d unknown, %d jobs; want 3, 2, 1, 5", st.LoopFollowing, st.LoopDelayed, st.LoopUnknown, st.Jobs)
		}
	})
	t.Run("held to the end", func(t *testing.T) {
		// Queue 1 is deactivated for the whole run: 1 is held and
		// recorded as rejected at the end; 2, which follows it, and 3,
		// which follows 2, are never submitted. 4 (queue 0) runs 0..10.
		cfg := sdConfig(2, policy.Exclusive, 1)
		cfg.Queues[1].State = policy.Deactivated
		jobs := []workload.Job{loopJob(1, 0, 4, 10, 1, -1, -1), loopJob(2, 1, 4, 10, 0, 1, 0), loopJob(3, 2, 4, 10, 0, 2, 0), loopJob(4, 3, 4, 10, 0, -1, -1)}
		rec, st := runScoreDLoop(t, 4, cfg, jobs)
		if len(rec.Records) != 4 || st.Jobs != 4 || st.Rejected != 3 || st.LoopNeverSubmitted != 2 {
			t.Fatalf("%d records, %d jobs, %d rejected, %d never submitted; want 4, 4, 3, 2", len(rec.Records), st.Jobs, st.Rejected, st.LoopNeverSubmitted)
		}
		for id, reason := range map[int64]string{1: "queue 1 deactivated at the end of the run", 2: "never submitted: it follows job 1 (SWF field 17), which never ended",
			3: "never submitted: it follows job 2 (SWF field 17), which never ended"} {
			if r := rec.ByID(t, id); r.State != sim.Rejected || r.Reason != reason || r.Start != r.Job.Submit || r.Job.Submit != workload.Time(id-1) {
				t.Errorf("job %d: %v at %d-%d (submit %d), %q; want rejected at its submission, %q", id, r.State, r.Start, r.End, r.Job.Submit, r.Reason, reason)
			}
		}
		if r := rec.ByID(t, 4); r.State != sim.Completed || r.Start != 3 || r.End != 13 {
			t.Errorf("job 4: %v %d-%d, want completed 3-13", r.State, r.Start, r.End)
		}
	})
	t.Run("stranded by node events", func(t *testing.T) {
		// Processor 0 is down for the whole run: 1 (4 processors, queue 1)
		// never starts, 2 follows it and is never submitted; 3 (queue 0)
		// runs 0..10.
		eng, err := sim.NewScoreD(4, sdConfig(2, policy.Exclusive, 1))
		if err != nil {
			t.Fatal(err)
		}
		eng.SetClosedLoop(true)
		if err := eng.SetNodeEvents([]cluster.NodeEvent{nev(0, cluster.NodeDown, 0, 0)}, 1, sim.NodeFailKill); err != nil {
			t.Fatal(err)
		}
		rec := &simtest.Recorder{}
		st, err := eng.Run(simtest.NewSource([]workload.Job{loopJob(1, 0, 4, 10, 1, -1, -1), loopJob(2, 0, 2, 10, 1, 1, 0), loopJob(3, 0, 2, 10, 0, -1, -1)}), rec)
		if err != nil {
			t.Fatal(err)
		}
		if r := rec.ByID(t, 1); r.State != sim.Rejected || !strings.Contains(r.Reason, "3 processors in service") {
			t.Errorf("job 1: %v %q", r.State, r.Reason)
		}
		if r := rec.ByID(t, 2); r.State != sim.Rejected || r.Reason != "never submitted: it follows job 1 (SWF field 17), which never ended" {
			t.Errorf("job 2: %v %q", r.State, r.Reason)
		}
		if r := rec.ByID(t, 3); r.State != sim.Completed || r.End != 10 {
			t.Errorf("job 3: %v %d-%d", r.State, r.Start, r.End)
		}
		if st.Jobs != 3 || st.LoopNeverSubmitted != 1 {
			t.Errorf("%d jobs, %d never submitted; want 3, 1", st.Jobs, st.LoopNeverSubmitted)
		}
	})
}

// TestScoreDTicks checks SCore-D's queues on a trace in ms and in µs
// (SetTicks), by hand: quantum 100 ms, switch 10 ms.
func TestScoreDTicks(t *testing.T) {
	run := func(t *testing.T, tps int64, cfg policy.ScoreD, jobs []workload.Job) *simtest.Recorder {
		t.Helper()
		eng, err := sim.NewScoreD(4, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := eng.SetTicks(tps); err != nil {
			t.Fatal(err)
		}
		rec := &simtest.Recorder{}
		if _, err := eng.Run(simtest.NewSource(jobs), rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	t.Run("ms", func(t *testing.T) {
		// Two full-machine jobs of 1.5 s on MPL 2 share it at 100/220:
		// both end at 3.3 s, 3300 ms; a third, submitted at 1 ms, waits
		// for a row and runs 3300..3301 ms.
		rec := run(t, 1000, sdConfig(1, policy.Gang, 2), []workload.Job{sdJob(1, 0, 4, 1500, none, 0), sdJob(2, 0, 4, 1500, none, 0), sdJob(3, 1, 4, 1, none, 0)})
		want := map[int64][3]workload.Time{1: {0, 3300, 1500}, 2: {0, 3300, 1500}, 3: {3300, 3301, 1}}
		for id, w := range want {
			if r := rec.ByID(t, id); [3]workload.Time{r.Start, r.End, r.CPUTime} != w {
				t.Errorf("job %d: start, end, CPU time %d %d %d, want %v", id, r.Start, r.End, r.CPUTime, w)
			}
		}
	})
	t.Run("us", func(t *testing.T) {
		// Submitted at 1500 µs, a job is taken at the next whole ms, 2000
		// µs; alone, its 1 s ends at 1002000 µs. A requested time of
		// 500000 µs kills the second one (submitted at 2000 µs, taken
		// then, exclusive) after 0.5 s of CPU time.
		cfg := sdConfig(1, policy.Exclusive, 1)
		rec := run(t, 1_000_000, cfg, []workload.Job{sdJob(1, 1500, 2, 1_000_000, none, 0), sdJob(2, 2000, 2, 1_000_000, 500_000, 0)})
		if r := rec.ByID(t, 1); r.Start != 2000 || r.End != 1_002_000 || r.CPUTime != 1_000_000 || r.State != sim.Completed {
			t.Errorf("job 1: %v %d-%d, CPU %d", r.State, r.Start, r.End, r.CPUTime)
		}
		if r := rec.ByID(t, 2); r.Start != 2000 || r.End != 502_000 || r.State != sim.Killed || r.Reason != "reached its requested time 500000 us" {
			t.Errorf("job 2: %v %d-%d, %q", r.State, r.Start, r.End, r.Reason)
		}
	})
	eng, err := sim.NewScoreD(4, sdConfig(1, policy.Gang, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.SetTicks(60); err == nil {
		t.Error("60 ticks a second accepted")
	}
}

// TestScoreDHoldUntil: under SCore-D's queues a job held until later (a
// Parquet hold_until, a holds file, a submission latency) joins its queue
// at its release, in its submission-order place, as on the other
// policies' engine; a hold at or before its submission is no hold.
//
// Exclusive queue, 4 processors. Job 1 (4 processors, 10 s) runs 0–10.
// Job 2 (2 processors, 10 s), submitted at 1, is held until 20; job 3 (2
// processors) and job 4 (4 processors), submitted at 2 and 3, wait. At 10
// job 3 starts and job 4, the head, does not fit. At 20 job 3 ends and job
// 2 joins the queue ahead of job 4, its place by submission: it runs
// 20–30, and job 4 30–40 (appended behind job 4 it would run 30–40 and job
// 4 20–30). Without the hold, jobs 2 and 3 run 10–20 and job 4 20–30.
// Gang queue: job 2 alone, 4 processors, held until 20, runs 20–30.
func TestScoreDHoldUntil(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode policy.QueueMode
		jobs []workload.Job
		hold workload.Time // job 2's
		want []sdWant
	}{
		{"exclusive held", policy.Exclusive, []workload.Job{sdJob(1, 0, 4, 10, none, 0), sdJob(2, 1, 2, 10, none, 0), sdJob(3, 2, 2, 10, none, 0), sdJob(4, 3, 4, 10, none, 0)}, 20,
			[]sdWant{{id: 1, end: 10, cpu: 10}, {id: 2, start: 20, end: 30, cpu: 10}, {id: 3, start: 10, end: 20, cpu: 10}, {id: 4, start: 30, end: 40, cpu: 10}}},
		{"exclusive at submission", policy.Exclusive, []workload.Job{sdJob(1, 0, 4, 10, none, 0), sdJob(2, 1, 2, 10, none, 0), sdJob(3, 2, 2, 10, none, 0), sdJob(4, 3, 4, 10, none, 0)}, 1,
			[]sdWant{{id: 1, end: 10, cpu: 10}, {id: 2, start: 10, end: 20, cpu: 10}, {id: 3, start: 10, end: 20, cpu: 10}, {id: 4, start: 20, end: 30, cpu: 10}}},
		{"gang held", policy.Gang, []workload.Job{sdJob(1, 0, 4, 10, none, 0), sdJob(2, 1, 4, 10, none, 0)}, 20,
			[]sdWant{{id: 1, end: 10, cpu: 10}, {id: 2, start: 20, end: 30, cpu: 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.jobs[1].HoldUntil = tc.hold
			rec, st := runScoreD(t, 4, sdConfig(1, tc.mode, 2), tc.jobs)
			for _, w := range tc.want {
				r := rec.ByID(t, w.id)
				if got := (sdWant{id: w.id, state: r.State, start: r.Start, end: r.End, queue: r.Queue, demoted: r.Demotions, susp: r.Suspensions, cpu: r.CPUTime}); got != w {
					t.Errorf("job %d: got %+v, want %+v", w.id, got, w)
				}
			}
			if st.Jobs != int64(len(tc.jobs)) {
				t.Errorf("stats: %d jobs, want %d", st.Jobs, len(tc.jobs))
			}
		})
	}
}

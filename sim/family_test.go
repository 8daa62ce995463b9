package sim_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

func slurm(p policy.SlurmParams) policy.Policy {
	s, err := policy.NewSlurm(p)
	if err != nil {
		panic(err)
	}
	return s
}

// TestReservationDepth: a second reservation protects the second job from a
// backfill that EASY allows. EASY and depth 2 on these jobs are scenario
// files: testdata/scenarios/easy-backfill-delays-the-second-job.txt and
// depth-2-protects-the-second-job.txt.
func TestReservationDepth(t *testing.T) {
	// 1 runs 0–100 on 6 of 10; head 2 needs 8: shadow 100, extra 2. 3 needs
	// all 10. 4 (2 procs, 1000 s) crosses the shadow within the extra.
	// Depth 2: 3 is reserved at 110 (after 2, 100–110), 4 would overlap it
	// and waits: 3 runs 110–120, 4 at 120.
	jobs := func() []workload.Job {
		return []workload.Job{job(1, 0, 6, 100, 100), job(2, 0, 8, 10, 10), job(3, 0, 10, 10, 10), job(4, 0, 2, 1000, 1000)}
	}
	runScenarios(t, []scenario{
		{name: "depth 2 under slurm's exact knobs: the same", procs: 10, jobs: jobs(),
			pol:    slurm(policy.SlurmParams{Interval: 1, Resolution: 1, MaxJobTest: policy.LookaheadAll, QueueDepth: policy.LookaheadAll}),
			starts: map[int64]workload.Time{1: 0, 2: 100, 3: 110, 4: 120}},
	})
}

// TestSlurm checks each backfill knob on a hand-worked case.
func TestSlurm(t *testing.T) {
	exact := policy.SlurmParams{Interval: 1, Resolution: 1}
	with := func(f func(*policy.SlurmParams)) policy.Policy {
		p := exact
		f(&p)
		return slurm(p)
	}
	// 1 runs 0–100 on 2 of 4; head 2 (4 procs) is reserved at 100; 3 (1
	// proc, 10 s) arrives at 5 and fits before 100.
	interval := []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 4, 10, 10), job(3, 5, 1, 10, 10)}
	// 1 runs 0–1000 on 2 of 4; head 2 (4 procs) can start at 1000; 3 (2
	// procs, 2000 s) arrives at 2 and would delay 2 to 2002.
	window := []workload.Job{job(1, 0, 2, 1000, 1000), job(2, 1, 4, 10, 10), job(3, 2, 2, 2000, 2000)}
	// 1 runs 0–100 on 2 of 4; head 2 (4 procs) reserved at 100; 3 (2
	// procs, 65 s) arrives at 30: it ends at 95, before 100. With a 60 s
	// resolution 1's end counts as 120 and 3's estimate as 120 s: 30–150
	// overlaps the head, so 3 waits for 2 (100–110).
	resolution := []workload.Job{job(1, 0, 2, 100, 100), job(2, 0, 4, 10, 10), job(3, 30, 2, 65, 65)}
	// 1 runs 0–100 on 3 of 4; head 2 (4 procs) reserved at 100; 3 (1
	// proc, 500 s) would delay it; 4 (1 proc, 50 s) fits before 100.
	maxTest := []workload.Job{job(1, 0, 3, 100, 100), job(2, 0, 4, 10, 10), job(3, 0, 1, 500, 500), job(4, 0, 1, 50, 50)}
	// Two 1-proc jobs arrive at 5 on an idle machine.
	depth := []workload.Job{job(1, 5, 1, 100, 100), job(2, 5, 1, 100, 100)}
	runScenarios(t, []scenario{
		{name: "bf_interval 1: 3 backfills at its arrival", procs: 4, pol: slurm(exact), jobs: interval,
			starts: map[int64]workload.Time{1: 0, 2: 100, 3: 5}},
		{name: "bf_interval 30: the main scheduler at 5 stops at the blocked head; 3 waits for the cycle at 30",
			procs: 4, pol: with(func(p *policy.SlurmParams) { p.Interval = 30 }), jobs: interval,
			starts: map[int64]workload.Time{1: 0, 2: 100, 3: 30}},
		{name: "bf_interval 30 (default): same", procs: 4, pol: slurm(policy.SlurmParams{}), jobs: interval,
			starts: map[int64]workload.Time{1: 0, 2: 100, 3: 30}},
		{name: "bf_window 1 day: 2 is reserved at 1000, 3 waits for it", procs: 4, pol: slurm(exact), jobs: window,
			starts: map[int64]workload.Time{1: 0, 2: 1000, 3: 1010}},
		{name: "bf_window 100 s: 2 (start 1000) gets no reservation, 3 starts at 2 and delays it",
			procs: 4, pol: with(func(p *policy.SlurmParams) { p.Window = 100 }), jobs: window,
			starts: map[int64]workload.Time{1: 0, 2: 2002, 3: 2}},
		{name: "bf_resolution 1: 3 backfills at 30", procs: 4, pol: slurm(exact), jobs: resolution,
			starts: map[int64]workload.Time{1: 0, 2: 100, 3: 30}},
		{name: "bf_resolution 60: the coarser plan keeps 3 out", procs: 4,
			pol: with(func(p *policy.SlurmParams) { p.Resolution = 60 }), jobs: resolution,
			starts: map[int64]workload.Time{1: 0, 2: 100, 3: 110}},
		{name: "bf_max_job_test 3: 4 is examined and backfills", procs: 4,
			pol: with(func(p *policy.SlurmParams) { p.MaxJobTest = 3 }), jobs: maxTest,
			starts: map[int64]workload.Time{1: 0, 2: 100, 3: 110, 4: 0}},
		{name: "bf_max_job_test 2: only 2 and 3 are examined; 4 waits for the head", procs: 4,
			pol: with(func(p *policy.SlurmParams) { p.MaxJobTest = 2 }), jobs: maxTest,
			starts: map[int64]workload.Time{1: 0, 2: 100, 3: 110, 4: 110}},
		{name: "default_queue_depth 1: the main scheduler starts one job at 5, the cycle at 30 the other", procs: 4,
			pol: slurm(policy.SlurmParams{Interval: 30, QueueDepth: 1}), jobs: depth,
			starts: map[int64]workload.Time{1: 5, 2: 30}},
		{name: "default_queue_depth 100: both at 5", procs: 4, pol: slurm(policy.SlurmParams{Interval: 30}), jobs: depth,
			starts: map[int64]workload.Time{1: 5, 2: 5}},
	})
}

// TestSlurmInvariants runs Slurm's backfill on random tiny workloads: the
// schedule is valid, the head's reservation is kept, and a job that
// overtakes an earlier one starts only at a backfill cycle.
func TestSlurmInvariants(t *testing.T) {
	n := simtest.Cases(oracleCases/4, oracleCases/40)
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x51e))
		capacity, js := randomCase(r, 0.2)
		for _, p := range []policy.SlurmParams{
			{Interval: 1, Resolution: 1},
			{Interval: 3, Resolution: 4, Window: 10, MaxJobTest: 3, QueueDepth: 1},
			{Interval: 5, Resolution: 1, MaxJobTest: policy.LookaheadAll},
		} {
			spy := &simtest.Spy{Policy: slurm(p)}
			jobs := toJobs(js)
			rec, _ := simtest.Simulate(t, capacity, spy, jobs)
			if err := spy.CheckPromises(rec.Records); err != nil {
				t.Fatalf("seed %d, %s: %v\n%s%s", seed, spy.Name(), err, formatCase(capacity, js), simtest.Format(rec.Records))
			}
			for i := range js {
				ri := rec.ByID(t, int64(i+1))
				if ri.State == sim.Rejected {
					continue
				}
				for k := range i {
					rk := rec.ByID(t, int64(k+1))
					if rk.State != sim.Rejected && rk.Start > ri.Start && ri.Start%p.Interval != 0 {
						t.Fatalf("seed %d, %s: job %d overtook job %d at %d, between backfill cycles\n%s%s",
							seed, spy.Name(), i+1, k+1, ri.Start, formatCase(capacity, js), simtest.Format(rec.Records))
					}
				}
			}
		}
	}
}

// predictionSpy records, at every pass that begins with a job running, the
// predicted end of the first running job.
type predictionSpy struct {
	policy.Policy
	seen []string
}

func (s *predictionSpy) Schedule(v policy.View, d policy.Decisions) {
	if v.NumRunning() > 0 {
		end, _ := v.Running(0)
		s.seen = append(s.seen, fmt.Sprintf("%d:%d", v.Now(), end))
	}
	s.Policy.Schedule(v, d)
}

// TestPredictions works EASY++ by hand. User 7's jobs 1 and 2 run 100 and
// 300 s; job 3 (2 procs, run 500 s, requested 1000) is predicted (100 +
// 300)/2 = 200 s and starts at 400: predicted end 600. It outlives each
// prediction, which is corrected at that instant; it is never killed before
// its requested time and completes at 900. Job 4 (user 8, 2 procs) waits
// from 401 to 900.
func TestPredictions(t *testing.T) {
	jobs := func() []workload.Job {
		js := []workload.Job{job(1, 0, 1, 100, 1000), job(2, 0, 1, 300, 1000), job(3, 400, 2, 500, 1000), job(4, 401, 2, 10, 10)}
		js[0].User, js[1].User, js[2].User, js[3].User = 7, 7, 7, 8
		return js
	}
	for _, c := range []struct {
		est  string
		pol  policy.Policy
		want string // now:predicted end of the first running job, at each pass
	}{
		// 200 + 1 min = 260 (end 660), then 200 + 5 min = 500 (end 900 = its real end).
		// At 100 job 2 runs (requested 1000 from 0: no history yet).
		{"predict", easyAll, "[100:1000 401:600 600:660 660:900]"},
		{"predict:requested", easyAll, "[100:1000 401:600 600:1400]"},
		// 400 (end 800), then 800 (end 1200).
		{"predict:double", easyAll, "[100:1000 401:600 600:800 800:1200]"},
		{"predict", &policy.Conservative{}, "[100:1000 401:600 600:660 660:900]"},
		{"predict", slurm(policy.SlurmParams{Interval: 1, Resolution: 1}), "[100:1000 401:600 600:660 660:900]"},
		// Without predictions the requested time is the estimate.
		{"user", easyAll, "[100:1000 401:1400]"},
		{"perfect", easyAll, "[100:300 401:900]"},
	} {
		t.Run(c.est+"/"+c.pol.Name(), func(t *testing.T) {
			est, err := policy.ParseEstimator(c.est)
			if err != nil {
				t.Fatal(err)
			}
			spy := &predictionSpy{Policy: c.pol}
			eng, err := sim.New(sim.Config{Procs: 2, Policy: spy, Estimator: est})
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			js := jobs()
			if _, err := eng.Run(simtest.NewSource(js), rec); err != nil {
				t.Fatal(err)
			}
			if err := simtest.CheckSchedule(2, js, rec.Records); err != nil {
				t.Fatalf("%v\n%s", err, simtest.Format(rec.Records))
			}
			if got := fmt.Sprint(spy.seen); got != c.want {
				t.Errorf("predicted ends %s, want %s", got, c.want)
			}
			r3 := rec.ByID(t, 3)
			if r3.State != sim.Completed || r3.Start != 400 || r3.End != 900 || r3.Job.Estimate != 1000 {
				t.Errorf("job 3: %v %d–%d, estimate %d in its record; want completed 400–900 with its requested 1000", r3.State, r3.Start, r3.End, r3.Job.Estimate)
			}
			if r4 := rec.ByID(t, 4); r4.Start != 900 {
				t.Errorf("job 4 starts at %d, want 900", r4.Start)
			}
		})
	}
}

// TestPredictionsBackfill: a prediction shorter than the requested time
// lets a job backfill that its requested time would keep out, and a killed
// job is still killed at its requested time.
func TestPredictionsBackfill(t *testing.T) {
	// 1 (2 procs) runs 0–100, requested 100. Head 2 (4 procs) is reserved at
	// 100. User 5's jobs 3 and 4 ran 10 s each; 5 (2 procs, requested 500,
	// runs 20 s) arrives at 50: with its requested time it would end at 550
	// and waits for 2; predicted 10 s it backfills at 50 (and ends at 70,
	// after its prediction, corrected). 6 asks 5 s, runs 50: killed at 5.
	jobs := func() []workload.Job {
		js := []workload.Job{job(3, 0, 1, 10, 500), job(4, 0, 1, 10, 500), job(1, 20, 2, 100, 100), job(2, 20, 4, 10, 10), job(5, 50, 2, 20, 500), job(6, 200, 1, 50, 5)}
		js[0].User, js[1].User, js[4].User = 5, 5, 5
		return js
	}
	for _, c := range []struct {
		est  string
		want map[int64]workload.Time
	}{
		{"user", map[int64]workload.Time{3: 0, 4: 0, 1: 20, 2: 120, 5: 130, 6: 200}},
		{"predict", map[int64]workload.Time{3: 0, 4: 0, 1: 20, 2: 120, 5: 50, 6: 200}},
	} {
		est, _ := policy.ParseEstimator(c.est)
		eng, _ := sim.New(sim.Config{Procs: 4, Policy: easyAll, Estimator: est})
		rec := &simtest.Recorder{}
		js := jobs()
		st, err := eng.Run(simtest.NewSource(js), rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := simtest.CheckSchedule(4, js, rec.Records); err != nil {
			t.Fatalf("%s: %v\n%s", c.est, err, simtest.Format(rec.Records))
		}
		for id, w := range c.want {
			if got := rec.ByID(t, id).Start; got != w {
				t.Errorf("%s: job %d starts at %d, want %d", c.est, id, got, w)
			}
		}
		if r := rec.ByID(t, 6); r.State != sim.Killed || r.End != 205 || st.Killed != 1 {
			t.Errorf("%s: job 6 %v at %d (%d killed), want killed at 205", c.est, r.State, r.End, st.Killed)
		}
	}
}

// TestFamilyInvariants runs every ordering, backfill and estimator on
// synthetic workloads (bursts, jobs without estimates, killed jobs, jobs
// too large): the schedules are valid and the runs deterministic.
func TestFamilyInvariants(t *testing.T) {
	pols := func() []policy.Policy {
		var ps []policy.Policy
		for _, o := range policy.OrderNames {
			for _, b := range []policy.Config{
				{Backfill: policy.BackfillOff},
				{Backfill: policy.BackfillEASY, Lookahead: policy.LookaheadAll, SJBF: true},
				{Backfill: policy.BackfillEASY, Lookahead: 50, Depth: 3},
				{Backfill: policy.BackfillSlurm, Slurm: policy.SlurmParams{MaxJobTest: 20, Interval: 60}},
			} {
				b.Order = o
				prio := policy.DefaultPriorityParams()
				prio.CalcPeriod, prio.HalfLife = 600, 3600
				b.Priority = &prio
				p, err := policy.New(b)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, p)
			}
		}
		return append(ps, &policy.Conservative{})
	}
	ests := []string{"user", "perfect", "factor:0.5", "factor:3:requested", "predict", "predict:double"}
	n := simtest.Cases(600, 150)
	jobs := syntheticJobs(7, n, 64)
	for i := range jobs {
		jobs[i].User = int(jobs[i].ID % 9)
	}
	for k, p := range pols() {
		est := ests[k%len(ests)]
		t.Run(p.Name()+"/"+est, func(t *testing.T) {
			var first []sim.Record
			for range 2 {
				e, _ := policy.ParseEstimator(est)
				pol := pols()[k] // fresh state
				eng, err := sim.New(sim.Config{Procs: 64, Policy: pol, Estimator: e})
				if err != nil {
					t.Fatal(err)
				}
				rec := &simtest.Recorder{}
				js := append([]workload.Job(nil), jobs...)
				if _, err := eng.Run(simtest.NewSource(js), rec); err != nil {
					t.Fatal(err)
				}
				if err := simtest.CheckSchedule(64, js, rec.Records); err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = rec.Records
					continue
				}
				for i := range first {
					if first[i].Job.ID != rec.Records[i].Job.ID || first[i].Start != rec.Records[i].Start {
						t.Fatalf("second run differs at record %d: job %d at %d, then job %d at %d", i, first[i].Job.ID, first[i].Start, rec.Records[i].Job.ID, rec.Records[i].Start)
					}
				}
			}
		})
	}
}

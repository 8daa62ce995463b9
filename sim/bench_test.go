package sim_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// lanl is the LANL CM-5 trace, read once into memory for every benchmark.
var lanl struct {
	once  sync.Once
	jobs  []workload.Job
	procs int
}

func lanlJobs(b *testing.B) ([]workload.Job, int) {
	b.Helper()
	in := filepath.Join(sharedDir, "reference/inputs/norm/LANL-CM5-1994-4.1-cln.swf.gz")
	if !fileExists(in) {
		b.Skipf("skipping: %s not found", in)
	}
	lanl.once.Do(func() { lanl.jobs, lanl.procs = simtest.ReadTrace(b, in) })
	if len(lanl.jobs) == 0 {
		b.Fatal("LANL-CM5: no jobs read")
	}
	return lanl.jobs, lanl.procs
}

// BenchmarkLANL replays LANL-CM5 from memory (parsing is not timed) under
// FCFS and EASY with several lookaheads; it reports the time and the
// allocations per job.
func BenchmarkLANL(b *testing.B) {
	pols := []struct {
		name string
		pol  func() policy.Policy
	}{
		{"fcfs", func() policy.Policy { return policy.FCFS{} }},
		{"easy-10", func() policy.Policy { return &policy.EASY{Lookahead: 10} }},
		{"easy-100", func() policy.Policy { return &policy.EASY{Lookahead: 100} }},
		{"easy-1000", func() policy.Policy { return &policy.EASY{Lookahead: 1000} }},
		{"easy-all", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
	}
	for _, p := range pols {
		b.Run(p.name, func(b *testing.B) {
			jobs, procs := lanlJobs(b)
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for range b.N {
				eng, err := sim.New(sim.Config{Procs: procs, Policy: p.pol()})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := eng.Run(&simtest.Source{Jobs: jobs}, simtest.Discard{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			n := float64(b.N) * float64(len(jobs))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/job")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/job")
		})
	}
}

// generated holds generated workloads, made once per configuration.
var generated struct {
	sync.Mutex
	jobs map[float64][]workload.Job
}

// generatedJobs returns n jobs of the Lublin–Feitelson model at this
// offered load on 1024 processors (seed 1), generated once.
func generatedJobs(b *testing.B, n int, load float64) []workload.Job {
	b.Helper()
	generated.Lock()
	defer generated.Unlock()
	if generated.jobs == nil {
		generated.jobs = map[float64][]workload.Job{}
	}
	if jobs := generated.jobs[load]; len(jobs) == n {
		return jobs
	}
	var jobs []workload.Job
	err := workload.Generate(workload.GenConfig{Jobs: n, Procs: 1024, Seed: 1, Load: load}, func(j *workload.Job) error {
		jobs = append(jobs, *j)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	generated.jobs[load] = jobs
	return jobs
}

// BenchmarkOverload replays 200,000 generated jobs at about 85% and 110%
// offered load on 1024 processors under EASY, the engine alone (no
// observer): at 85% with lookahead 1000 and the whole queue, at 110%
// (the queue grows to thousands of jobs, which is where EASY's backfill
// index matters) with the whole queue; the cases of schedsim bench. It
// reports the time per job.
func BenchmarkOverload(b *testing.B) {
	cases := []struct {
		load      float64
		lookahead int
	}{{0.85, 1000}, {0.85, policy.LookaheadAll}, {1.10, policy.LookaheadAll}}
	for _, c := range cases {
		b.Run(fmt.Sprintf("load-%.2f/lookahead-%s", c.load, policy.FormatLookahead(c.lookahead)), func(b *testing.B) {
			jobs := generatedJobs(b, 200_000, c.load)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				eng, err := sim.New(sim.Config{Procs: 1024, Policy: &policy.EASY{Lookahead: c.lookahead}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := eng.Run(&simtest.Source{Jobs: jobs}, simtest.Discard{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(len(jobs))), "ns/job")
		})
	}
}

// BenchmarkConservativeOverload replays 20,000 generated jobs at about
// 110% offered load on 1024 processors under conservative backfilling,
// the engine alone. The queue grows to hundreds of jobs, and every end
// moves each waiting job to its earliest place in queue order: the cost of
// a pass is the queue times the plan's steps, which is what
// cluster.Profile.EarliestBefore keeps to one walk per job. It reports the
// time per job.
func BenchmarkConservativeOverload(b *testing.B) {
	jobs := generatedJobs(b, 20_000, 1.10)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		eng, err := sim.New(sim.Config{Procs: 1024, Policy: &policy.Conservative{}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := eng.Run(&simtest.Source{Jobs: jobs}, simtest.Discard{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(len(jobs))), "ns/job")
}

// BenchmarkCalendar replays 50,000 generated jobs at about 85% offered
// load on 1024 processors under a calendar an admin would try first: a
// half-hour drain of the whole machine every weekday at 07:00, and no job
// of more than 4 h starting on weekdays 07:00–16:00. Every pass then
// plans the head around the drains and checks each backfill candidate's
// run against them (the README's "Reservations, limits and calendars"
// quotes the cost on HPC2N). It reports the time per job.
func BenchmarkCalendar(b *testing.B) {
	days, err := sim.ParseDays("Mon-Fri")
	if err != nil {
		b.Fatal(err)
	}
	cons := func() *sim.Constraints {
		return &sim.Constraints{
			Calendar: workload.Calendar{Loc: time.UTC},
			Reservations: []sim.Reservation{{Name: "morning-drain", Start: 7 * 3600, Duration: 1800,
				Recur: sim.RecurWeekdays, Until: workload.Forever, Maint: true}},
			Windows: []sim.StartWindow{{Partition: -1, Queue: -1, Days: days, From: 7 * 3600, To: 16 * 3600, MaxWall: 4 * 3600}},
		}
	}
	pols := []struct {
		name string
		pol  func() policy.Policy
	}{
		{"easy-1000", func() policy.Policy { return &policy.EASY{Lookahead: 1000} }},
		{"easy-all", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
	}
	for _, p := range pols {
		b.Run(p.name, func(b *testing.B) {
			jobs := generatedJobs(b, 50_000, 0.85)
			runConstrained(b, jobs, p.pol, cons)
		})
	}
}

// BenchmarkManyReservations runs 50,000 generated jobs under a calendar
// of 3,000 one-off reservations of 30 minutes to 4 hours, half for
// maintenance and half for a few users, each holding part of the
// machine: a site's year of maintenance and project reservations. The
// engine and the policies ask what the reservations withhold at every
// instant of every plan, so this measures onceIndex (a walk over every
// reservation made such a run grow with their square).
func BenchmarkManyReservations(b *testing.B) {
	jobs := generatedJobs(b, 50_000, 0.85)
	cons := manyReservations(jobs, 3000)
	pols := []struct {
		name string
		pol  func() policy.Policy
	}{
		{"easy", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
		{"depth-3", func() policy.Policy { return &policy.Depth{Depth: 3} }},
	}
	for _, p := range pols {
		b.Run(p.name, func(b *testing.B) {
			runConstrained(b, jobs, p.pol, cons)
		})
	}
}

// BenchmarkConservativeReservations is BenchmarkManyReservations's
// calendar at the same density over a fifth of its jobs under
// conservative backfilling, which plans every queued job through the
// reservations at every pass: half of them admit some users' jobs, so the
// plans keep a floor for those jobs (policy's planFloor).
func BenchmarkConservativeReservations(b *testing.B) {
	jobs := generatedJobs(b, 10_000, 0.85)
	runConstrained(b, jobs, func() policy.Policy { return &policy.Conservative{} }, manyReservations(jobs, 600))
}

// manyReservations returns a constructor of n one-off reservations spread
// over the jobs' submissions, 30 min to 4 h long, of 16 to 128
// processors: every other one maintenance, the others each for one of 7
// users.
func manyReservations(jobs []workload.Job, n int) func() *sim.Constraints {
	span := jobs[len(jobs)-1].Submit - jobs[0].Submit
	return func() *sim.Constraints {
		c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}}
		for k := range n {
			// A fixed, spread pattern: no generator needed for it.
			r := sim.Reservation{Name: fmt.Sprint("r", k), Start: jobs[0].Submit + span*workload.Time(k*7919%n)/workload.Time(n),
				Duration: workload.Time(1800 * (1 + k%8)), Until: workload.Forever, Recur: sim.RecurOnce, Procs: 16 << (k % 4)}
			if k%2 == 0 {
				r.Maint = true
			} else {
				r.Users = []int{k % 7}
			}
			c.Reservations = append(c.Reservations, r)
		}
		return c
	}
}

// runConstrained runs jobs b.N times on 1024 processors under a new
// policy and new constraints each time, and reports the time per job.
func runConstrained(b *testing.B, jobs []workload.Job, pol func() policy.Policy, cons func() *sim.Constraints) {
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		eng, err := sim.New(sim.Config{Procs: 1024, Policy: pol(), Constraints: cons()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := eng.Run(&simtest.Source{Jobs: jobs}, simtest.Discard{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(len(jobs))), "ns/job")
}

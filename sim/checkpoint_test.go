package sim_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

var errStopHere = errors.New("stop here")

// checkpointCase makes a fresh configuration (new policy and estimator
// values) for each run.
type checkpointCase struct {
	name string
	cfg  func() sim.Config
}

func checkpointCases(procs int) []checkpointCase {
	slurm := func() policy.Policy {
		s, err := policy.NewSlurm(policy.SlurmParams{Interval: 60})
		if err != nil {
			panic(err)
		}
		return s
	}
	est := func(s string) policy.Estimator {
		e, err := policy.ParseEstimator(s)
		if err != nil {
			panic(err)
		}
		return e
	}
	ordered := func(order string, inner policy.Policy) policy.Policy {
		o, err := policy.ParseOrder(order, policy.DefaultPriorityParams())
		if err != nil {
			panic(err)
		}
		return &policy.Ordered{Order: o, Inner: inner}
	}
	nodes := func(sel string) cluster.Allocator {
		spec := &cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "a", Count: 8, Cores: 4, MemoryMB: 1024}, {Name: "b", Count: 4, Cores: 8, MemoryMB: 4096}}}
		al, err := spec.NewAllocator()
		if err != nil {
			panic(err)
		}
		return al
	}
	// Nodes go down, drain and come back while jobs run (the synthetic
	// workloads last a few days).
	events := []cluster.NodeEvent{
		{At: 20000, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 0, Hi: 3}}, Reason: "fan"},
		{At: 30000, State: cluster.NodeDrain, Nodes: []cluster.Range{{Lo: 5, Hi: 9}}},
		{At: 50000, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 0, Hi: 3}, {Lo: 5, Hi: 9}}},
		{At: 90000, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 2, Hi: 6}}},
		{At: 95000, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: 2, Hi: 6}}},
	}
	cal := calendarConstraints
	return []checkpointCase{
		// Reservations, start windows and limits (see
		// calendarConstraints), saved and restored.
		{"easy-calendar", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Constraints: cal()}
		}},
		{"hpcpack-calendar", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: 50, Strict: true}, Constraints: cal()}
		}},
		{"fcfs-cycle-calendar", func() sim.Config {
			return sim.Config{Procs: procs, Policy: policy.FCFS{}, Constraints: cal(), SchedInterval: 300}
		}},
		{"depth-calendar", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.Depth{Depth: 3, Lookahead: policy.LookaheadAll}, Constraints: cal()}
		}},
		{"conservative-calendar", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.Conservative{}, Constraints: cal()}
		}},
		{"conservative-cycle", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.Conservative{}, SchedInterval: 300}
		}},
		{"slurm-calendar", func() sim.Config { return sim.Config{Procs: procs, Policy: slurm(), Constraints: cal()} }},
		// A cycle whose ticks mostly miss the backfill's instants: the
		// first pass after one runs its cycle (Slurm.bfDue).
		{"slurm-cycle-calendar", func() sim.Config {
			return sim.Config{Procs: procs, Policy: slurm(), Constraints: cal(), SchedInterval: 77}
		}},
		{"slurm-linear-cycle", func() sim.Config {
			return sim.Config{Policy: slurm(), Allocator: nodes(cluster.SelectLinear), SchedInterval: 77}
		}},
		{"easy-sjf-calendar", func() sim.Config {
			return sim.Config{Procs: procs, Policy: ordered("sjf", &policy.EASY{Lookahead: policy.LookaheadAll}), Constraints: cal()}
		}},
		{"easy-linear-calendar", func() sim.Config {
			return sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Allocator: nodes(cluster.SelectLinear), Constraints: cal()}
		}},
		{"easy-nodes-kill", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, NodeEvents: events, NodeSize: 4}
		}},
		{"easy-nodes-requeue", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, NodeEvents: events, NodeSize: 4, OnNodeFail: sim.NodeFailRequeue}
		}},
		{"fcfs-linear-nodes-requeue", func() sim.Config {
			return sim.Config{Policy: policy.FCFS{}, Allocator: nodes(cluster.SelectLinear), NodeEvents: events, OnNodeFail: sim.NodeFailRequeue}
		}},
		{"easy-consres-nodes", func() sim.Config {
			return sim.Config{Policy: &policy.EASY{Lookahead: 10}, Allocator: nodes(cluster.SelectConsRes), NodeEvents: events}
		}},
		{"easy-sjf", func() sim.Config {
			return sim.Config{Procs: procs, Policy: ordered("sjf", &policy.EASY{Lookahead: policy.LookaheadAll})}
		}},
		{"easy-multifactor", func() sim.Config {
			return sim.Config{Procs: procs, Policy: ordered("multifactor", &policy.EASY{Lookahead: policy.LookaheadAll})}
		}},
		{"easy-linear", func() sim.Config {
			return sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Allocator: nodes(cluster.SelectLinear)}
		}},
		{"easy-federation-nodes-requeue", func() sim.Config {
			m := func(sel string, speed float64) cluster.FederationMember {
				mm, err := cluster.MemberOf(&cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "n", Count: 8, Cores: 4, Speed: speed}}})
				if err != nil {
					panic(err)
				}
				return mm
			}
			return sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Allocator: cluster.NewFederation([]cluster.FederationMember{m(cluster.SelectLinear, 0.5), m(cluster.SelectLinear, 2)}),
				NodeEvents: events, OnNodeFail: sim.NodeFailRequeue}
		}},
		{"easy-federation", func() sim.Config {
			m := func(sel string, speed float64) cluster.FederationMember {
				mm, err := cluster.MemberOf(&cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "n", Count: 8, Cores: 4, Speed: speed}}})
				if err != nil {
					panic(err)
				}
				return mm
			}
			return sim.Config{Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Allocator: cluster.NewFederation([]cluster.FederationMember{m(cluster.SelectLinear, 0.5), m(cluster.SelectLinear, 2)})}
		}},
		// A closed loop: the jobs waiting for their preceding job, and
		// those delayed to a later instant, saved and restored.
		{"easy-closedloop", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, ClosedLoop: true}
		}},
		// Time-shared queue 3's jobs, some of which the loop submits
		// late: the processors they share beyond those they took.
		{"easy-closedloop-shared", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, ClosedLoop: true, Shared: queue3}
		}},
		// With a submission latency: every job is held after its
		// submission, a delayed one after the instant the loop submits
		// it, across a resume as well.
		{"conservative-closedloop-latency", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.Conservative{}, ClosedLoop: true, SubmitLatency: func(j *workload.Job) { loopLatency.Hold(j, 1) }}
		}},
		// Switching idle nodes off and on: the nodes' power states, the
		// switches under way and the timers.
		{"easy-switching", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Power: &sim.Power{NodeSize: 4, IdleTimeout: 600, SwitchOff: 60, SwitchOn: 120}}
		}},
		{"easy-switching-plan", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Power: &sim.Power{NodeSize: 4, Plan: true, BreakEven: 900, SwitchOff: 60, SwitchOn: 120}}
		}},
		// HPC Pack's filters: license pools, quotas, submission
		// filters, the jobs' notes and the pass number.
		{"easy-filters", func() sim.Config {
			h := &hpcpack.Model{
				Submission: []hpcpack.SubmissionFilter{&hpcpack.MaxSize{Procs: 48}},
				Activation: []hpcpack.ActivationFilter{&hpcpack.LicensePool{Total: map[string]int{"lic": 12}, WhenShort: 2}, &hpcpack.Quota{Limit: 4e5, Window: 86400}},
				Reevaluate: 300,
			}
			p, err := h.Wrap(&policy.EASY{Lookahead: policy.LookaheadAll})
			if err != nil {
				panic(err)
			}
			return sim.Config{Procs: procs, Policy: p, Admission: h, Annotator: h}
		}},
		{"slurm-consres", func() sim.Config {
			return sim.Config{Policy: slurm(), Allocator: nodes(cluster.SelectConsRes)}
		}},
		{"easy-grow-amdahl", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Grow: &sim.Grow{Speedup: policy.Amdahl{Serial: 0.2}}}
		}},
		{"fcfs-grow", func() sim.Config { return sim.Config{Procs: procs, Policy: policy.FCFS{}, Grow: &sim.Grow{}} }},
		{"easy-grow-nodes-requeue", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Grow: &sim.Grow{}, NodeEvents: events, NodeSize: 4, OnNodeFail: sim.NodeFailRequeue}
		}},
		{"fcfs-grow-amdahl-nodes-kill", func() sim.Config {
			return sim.Config{Procs: procs, Policy: policy.FCFS{}, Grow: &sim.Grow{Speedup: policy.Amdahl{Serial: 0.1}}, NodeEvents: events, NodeSize: 4}
		}},
		{"fcfs", func() sim.Config { return sim.Config{Procs: procs, Policy: policy.FCFS{}} }},
		{"easy-all", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}}
		}},
		{"easy-10", func() sim.Config { return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: 10}} }},
		{"easy-40", func() sim.Config { return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: 40}} }},
		{"easy-sjbf", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll, SJBF: true}}
		}},
		{"depth-3", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.Depth{Depth: 3, Lookahead: policy.LookaheadAll}}
		}},
		{"conservative", func() sim.Config { return sim.Config{Procs: procs, Policy: &policy.Conservative{}} }},
		{"conservative-nodes-requeue", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.Conservative{}, NodeEvents: events, NodeSize: 4, OnNodeFail: sim.NodeFailRequeue}
		}},
		// Jobs held until their Hold Until (see TestCheckpointChain).
		{"easy-all-holds", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}}
		}},
		{"conservative-holds", func() sim.Config { return sim.Config{Procs: procs, Policy: &policy.Conservative{}} }},
		{"slurm", func() sim.Config { return sim.Config{Procs: procs, Policy: slurm()} }},
		// Immediate queues: a quarter of the jobs start at their
		// submission beside the machine, and a checkpoint keeps
		// nothing of them (see immediate.go).
		{"easy-all-immediate", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Immediate: queue3}
		}},
		{"conservative-immediate", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.Conservative{}, Immediate: queue3}
		}},
		{"slurm-consres-immediate", func() sim.Config {
			return sim.Config{Policy: slurm(), Allocator: nodes(cluster.SelectConsRes), Immediate: queue3}
		}},
		{"easy-perfect", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Estimator: est("perfect")}
		}},
		{"easy-factor", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, Estimator: est("factor:0.5")}
		}},
		{"conservative-predict", func() sim.Config {
			return sim.Config{Procs: procs, Policy: &policy.Conservative{}, Estimator: est("predict:double")}
		}},
	}
}

// loopLatency is the submission latency of the checkpoint case
// "conservative-closedloop-latency".
var loopLatency = workload.Latency{Default: 17, Queues: []workload.QueueLatency{{Queue: 2, Delay: 90}}}

// TestCheckpointChain runs each configuration once without interruption,
// then again as a chain of runs, each stopped at its first checkpoint and
// resumed from the saved state by a new engine with new policy values: the
// records (in order) and the statistics must be the same.
func TestCheckpointChain(t *testing.T) {
	const procs = 64
	seeds := uint64(simtest.Cases(3, 1))
	for _, tc := range checkpointCases(procs) {
		for seed := uint64(1); seed <= seeds; seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", tc.name, seed), func(t *testing.T) {
				jobs := syntheticJobs(seed, 400, procs)
				for i := range jobs {
					jobs[i].Seq = int64(i)
					jobs[i].User = i % 7
					jobs[i].Group = i / 7 % 2 // two accounts each: association limits
					if strings.HasSuffix(tc.name, "-holds") && i%5 == 0 {
						jobs[i].HoldUntil = jobs[i].Submit + workload.Time(i*37%7200)
					}
					if strings.Contains(tc.name, "-closedloop") && i >= 7 && i%2 == 0 {
						jobs[i].PrecedingJob, jobs[i].ThinkTime = jobs[i-7].ID, float64(i%5*600)
					}
					if strings.HasSuffix(tc.name, "-latency") {
						jobs[i].Queue = i % 3 // queue 2 has a latency of its own
					}
					if strings.HasSuffix(tc.name, "-immediate") || strings.HasSuffix(tc.name, "-shared") {
						jobs[i].Queue = i % 4
					}
					if strings.HasSuffix(tc.name, "-filters") && i%3 == 0 {
						jobs[i].Licenses = "lic:" + strconv.Itoa(1+i%4)
					}
					if tc.cfg().Grow != nil && i%3 != 0 && jobs[i].Procs <= procs {
						p := int64(jobs[i].Procs)
						jobs[i].MinProcs, jobs[i].MaxProcs = (p+1)/2, min(2*p, procs)
					}
				}
				want, wantStats := simtest.Run(t, tc.cfg(), jobs)
				got := &simtest.Recorder{}
				resumes := simtest.RunResumed(t, jobs, got, wantStats, simtest.EngineResumer(tc.cfg, 3600))
				if tc.cfg().Grow != nil {
					grown := 0
					for _, r := range want.Records {
						if len(r.Steps) > 1 {
							grown++
						}
					}
					if grown < 10 {
						t.Fatalf("only %d jobs grew: the test does not exercise growth", grown)
					}
				}
				if len(tc.cfg().NodeEvents) > 0 {
					hit := 0
					for _, r := range want.Records {
						if r.State == sim.NodeFail || r.Requeues > 0 {
							hit++
						}
					}
					if hit == 0 {
						t.Fatalf("no job was hit by a node failure: the test does not exercise them")
					}
				}
				if strings.HasSuffix(tc.name, "-holds") {
					late := 0
					for _, r := range want.Records {
						if r.State != sim.Rejected && r.Start < r.Job.HoldUntil {
							t.Fatalf("job %d starts at %d before its Hold Until %d", r.Job.ID, r.Start, r.Job.HoldUntil)
						}
						if r.Job.HoldUntil-r.Job.Submit >= 3600 {
							late++ // held across a checkpoint
						}
					}
					if late < 10 {
						t.Fatalf("only %d jobs held across a checkpoint: the test does not exercise holds", late)
					}
				}
				if strings.HasSuffix(tc.name, "-calendar") {
					checkCalendarRun(t, tc.cfg(), want.Records, true)
				}
				if strings.HasSuffix(tc.name, "-closedloop") && wantStats.LoopDelayed < 50 {
					t.Fatalf("only %d jobs delayed by the loop: the test does not exercise it", wantStats.LoopDelayed)
				}
				if strings.HasSuffix(tc.name, "-filters") {
					refused := 0
					for _, r := range want.Records {
						if strings.Contains(r.Note, ",2x") || strings.Contains(r.Note, ",3x") {
							refused++
						}
					}
					if refused < 20 {
						t.Fatalf("only %d jobs refused by a filter: the test does not exercise them", refused)
					}
				}
				if resumes < 5 {
					t.Fatalf("only %d resumes: the test does not exercise checkpoints", resumes)
				}
				simtest.SameRecords(t, got.Records, want.Records, "after resuming")
			})
		}
	}
}

// TestConservativeCorrection: a job outlives its prediction, and
// Conservative's plan must hear of the correction, or its plan keeps the
// job ending at the old prediction and the job's end frees processors the
// plan no longer holds (the profile panicked).
//
//   - empty queue: the correction comes while nothing waits; the engine
//     runs a pass at the instant.
//   - under a cycle: a correction runs no pass of its own. Job 1's
//     prediction (80: 0.4 of its run) passes between the passes at 0 and
//     200, and the job ends at 200, on a pass, whichever correction; the
//     plan is made anew there: job 2 starts at that pass, job 3 at the
//     next one.
func TestConservativeCorrection(t *testing.T) {
	type want struct {
		id         int64
		start, end workload.Time
	}
	type run struct {
		name  string
		est   string
		cycle workload.Time
		jobs  []workload.Job
		want  []want
	}
	cases := []run{
		{"empty queue", "factor:0.5", 0,
			[]workload.Job{job(1, 0, 2, 100, 200), job(2, 150, 4, 10, 20)},
			[]want{{1, 0, 100}, {2, 150, 160}}},
	}
	for _, spec := range []string{"factor:0.4", "factor:0.4:double", "factor:0.4:requested"} {
		cases = append(cases, run{"under a cycle/" + spec, spec, 100,
			[]workload.Job{job(1, 0, 2, 200, 300), job(2, 160, 4, 10, 20), job(3, 170, 1, 10, 20)},
			[]want{{1, 0, 200}, {2, 200, 210}, {3, 300, 310}}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			est, err := policy.ParseEstimator(tc.est)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := sim.New(sim.Config{Procs: 4, Policy: &policy.Conservative{}, Estimator: est, SchedInterval: tc.cycle})
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			if _, err := eng.Run(simtest.NewSource(tc.jobs), rec); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if r := rec.ByID(t, w.id); r.Start != w.start || r.End != w.end {
					t.Errorf("job %d: %d–%d, want %d–%d", w.id, r.Start, r.End, w.start, w.end)
				}
			}
		})
	}
}

// FuzzRestore: whatever the bytes, Restore returns an engine or an error,
// never panics. The seeds are real states of an EASY run.
func FuzzRestore(f *testing.F) {
	const procs = 16
	jobs := syntheticJobs(7, 60, procs)
	cfg := sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}, CheckpointEvery: 1800}
	var e *sim.Engine
	cfg.OnCheckpoint = func(workload.Time) error {
		b, err := e.MarshalBinary()
		if err != nil {
			return err
		}
		f.Add(b)
		return nil
	}
	e, err := sim.New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := e.Run(&simtest.Source{Jobs: jobs}, simtest.Discard{}); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg := sim.Config{Procs: procs, Policy: &policy.EASY{Lookahead: policy.LookaheadAll}}
		sim.Restore(cfg, b)
	})
}

// calendarConstraints are the reservations, start windows and limits of
// the "-calendar" checkpoint cases, on a Stockholm calendar from the Unix
// epoch (daylight saving in summer): a daily maintenance of the whole
// machine at 03:00 local time for 30 minutes, a one-off reservation of 32
// processors for users 1 and 2, a weekly maintenance of 16 processors, a
// weekday start window (08:00-17:00: at most 2 h), an evening one
// (20:00-23:00: at most 16 processors), a weekend one (10:00-14:00: at
// least 4 processors), and per-user limits.
func calendarConstraints() *sim.Constraints {
	loc, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		panic(err)
	}
	return &sim.Constraints{
		Calendar: workload.Calendar{Epoch: 0, Loc: loc},
		Reservations: []sim.Reservation{
			{Name: "nightly", Start: 2 * 3600, Duration: 1800, Recur: sim.RecurDaily, Until: workload.Forever, Maint: true},
			{Name: "users12", Start: 50000, Duration: 5000, Until: workload.Forever, Procs: 32, Users: []int{1, 2}, Nodes: []cluster.Range{{Lo: 0, Hi: 8}}}, // nodes: on a cluster of nodes (easy-linear-calendar)
			{Name: "weekly", Start: 100000, Duration: 3600, Recur: sim.RecurWeekly, Until: workload.Forever, Procs: 16, Maint: true},
		},
		Windows: []sim.StartWindow{{Partition: -1, Queue: -1, Days: 0b0111110, From: 8 * 3600, To: 17 * 3600, MaxWall: 7200},
			{Partition: -1, Queue: -1, Days: 0b1111111, From: 20 * 3600, To: 23 * 3600, MaxProcs: 16},
			{Partition: -1, Queue: -1, Days: 0b1000001, From: 10 * 3600, To: 14 * 3600, MinProcs: 4}},
		Limits: []sim.Limit{{AllUsers: true, MaxJobsPerUser: 6, MaxCPUsPerUser: 64}, {AllUsers: true, MaxJobs: 4, MaxCPUs: 48}},
	}
}

// checkCalendarRun checks a "-calendar" case's records: verify finds no
// job in a reservation it may not use, outside its start window or over
// a limit, and (mustHold) the constraints did hold jobs back.
func checkCalendarRun(t *testing.T, cfg sim.Config, recs []sim.Record, mustHold bool) {
	t.Helper()
	c := &sim.Collector{}
	held := map[sim.PendingReason]int{}
	for i := range recs {
		c.JobDone(&recs[i])
		held[recs[i].Pending]++
	}
	opts := sim.VerifyOptions{Constraints: cfg.Constraints}
	if cfg.Allocator != nil {
		return // verify's node checks need the cluster's spec; the engine checks the rest
	}
	for _, v := range sim.Verify(cfg.Procs, c.Outcomes, opts) {
		t.Errorf("verify: %v", v)
	}
	if mustHold && held[sim.PendingLimit]+held[sim.PendingReservation]+held[sim.PendingStartWindow] == 0 {
		t.Errorf("no job waited for a limit, a reservation or a start window (%v): the case does not exercise them", held)
	}
}

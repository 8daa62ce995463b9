package sim_test

import (
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

// unlimitedReason is the rejection of a job without a requested time
// that fits nowhere beside the reservations.
const unlimitedReason = "requested time unlimited never fits between the reservations and start windows it may not use"

// TestUnlimitedBesideReservationOnNodes: on a cluster of nodes, a job
// without a requested time is admitted when it fits off the nodes of a
// recurring reservation, and rejected when it needs them, under every
// policy (the reservations on nodes, pinnedNodes, are checked over the
// same 400 days as the counts).
//
// 4 nodes of 2 cores; a maintenance reservation holds nodes 2-3 every
// day over 01:00-01:10 UTC (3600-4200). Job 1 (4 cores, none asked, 100
// s) fits on nodes 0-1 for ever: it starts at 0 there. Job 2 (6 cores,
// none asked) needs a node of 2-3, which each occurrence holds: it never
// fits and is rejected at 0. Job 3 (4 cores, 1000 s) ends before the
// first occurrence: it starts at 0 on nodes 2-3. Job 4 (2 cores, none
// asked), submitted at 50, fits on node 0 or 1 only, held by job 1 until
// 100: it starts then.
func TestUnlimitedBesideReservationOnNodes(t *testing.T) {
	const u = workload.Unknown
	jobs := func() []workload.Job {
		js := []workload.Job{job(1, 0, 4, 100, u), job(2, 0, 6, 100, u), job(3, 0, 4, 1000, 1000), job(4, 50, 2, 100, u)}
		for i := range js {
			js[i].Seq = int64(i)
		}
		return js
	}
	want := "1:0 2:rejected 3:0 4:100"
	for _, sel := range []string{cluster.SelectLinear, cluster.SelectConsRes} {
		for _, pc := range simtest.Policies(t) {
			t.Run(sel+"/"+pc.Name, func(t *testing.T) {
				spec := pinnedSpec(sel)
				al, err := spec.NewAllocator()
				if err != nil {
					t.Fatal(err)
				}
				c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}, Reservations: []sim.Reservation{
					{Name: "n23", Start: 3600, Duration: 600, Recur: sim.RecurDaily, Until: workload.Forever, Procs: 4, Nodes: []cluster.Range{{Lo: 2, Hi: 4}}, Maint: true},
				}}
				eng, err := sim.New(sim.Config{Policy: pc.New(), Allocator: al, Constraints: c})
				if err != nil {
					t.Fatal(err)
				}
				col := &sim.Collector{}
				if _, err := eng.Run(simtest.NewSource(jobs()), col); err != nil {
					t.Fatal(err)
				}
				var got []string
				for id := int64(1); id <= 4; id++ {
					for _, o := range col.Outcomes {
						switch {
						case o.Job.ID != id:
						case o.State == sim.Rejected:
							if o.Reason != unlimitedReason {
								t.Errorf("job %d rejected for %q", id, o.Reason)
							}
							got = append(got, fmt.Sprintf("%d:rejected", id))
						default:
							got = append(got, fmt.Sprintf("%d:%d", id, o.Start))
						}
					}
				}
				if g := strings.Join(got, " "); g != want {
					t.Errorf("starts %s, want %s", g, want)
				}
				if vs := sim.Verify(8, col.Outcomes, sim.VerifyOptions{Cluster: spec, Constraints: c}); len(vs) > 0 {
					t.Errorf("verify: %v", vs)
				}
			})
		}
	}
}

// unlimitedConstraints hold part of a 64-processor machine every day and
// a weekday start window; a third of the jobs have no requested time.
func unlimitedConstraints() *sim.Constraints {
	return &sim.Constraints{
		Calendar: workload.Calendar{Loc: time.UTC},
		Reservations: []sim.Reservation{
			{Name: "half", Start: 3 * 3600, Duration: 1800, Recur: sim.RecurDaily, Until: workload.Forever, Procs: 24, Maint: true},
			{Name: "acct1", Start: 7000, Duration: 4000, Until: workload.Forever, Procs: 16, Accounts: []int{1}},
		},
		Windows: []sim.StartWindow{{Partition: -1, Queue: -1, Days: 0b0111110, From: 8 * 3600, To: 17 * 3600, MaxWall: 7200}},
	}
}

// sameAsWalk runs jobs under cfg twice, the second time walking the
// reservations at every check and running every pass (sim.SlowCalendar),
// and fails unless both give the same records, pending reasons (a fast run
// skips the passes its policy proves idle, which must leave each job the
// reason the slow run gives it) and statistics; what names the fast run's
// shortcut in the message.
func sameAsWalk(t *testing.T, what string, cfg func() sim.Config, jobs []workload.Job) {
	t.Helper()
	run := func(slow bool) (string, sim.Stats) {
		e, err := sim.New(cfg())
		if err != nil {
			t.Fatal(err)
		}
		if slow {
			sim.SlowCalendar(e)
		}
		rec := &simtest.Recorder{}
		st, err := e.Run(simtest.NewSource(jobs), rec)
		if err != nil {
			t.Fatal(err)
		}
		out := simtest.Format(rec.Records)
		for _, r := range rec.Records {
			out += fmt.Sprintf("job %d pending %v\n", r.Job.ID, r.Pending)
		}
		return out, st
	}
	fast, fs := run(false)
	slow, ss := run(true)
	if fast != slow {
		t.Fatalf("%s and the walk differ:\n%s", what, simtest.FirstDiff(fast, slow))
	}
	if fs != ss {
		t.Fatalf("stats differ: %+v, want %+v", fs, ss)
	}
}

// unlimitedJobs is syntheticJobs with a third of the jobs without a
// requested time (those run at most 2 h, so that the machine drains).
func unlimitedJobs(seed uint64, n, procs int) []workload.Job {
	jobs := syntheticJobs(seed, n, procs)
	for i := range jobs {
		jobs[i].Seq = int64(i)
		jobs[i].Group = i % 3
		if i%3 == 0 {
			jobs[i].Estimate = workload.Unknown
			jobs[i].Run = min(jobs[i].Run, 7200)
		}
	}
	return jobs
}

// TestUnlimitedResume: under every policy, a run whose jobs without a
// requested time are admitted beside a partial daily reservation (or
// rejected when they are too large for what it leaves) gives the same
// records and statistics when stopped at every checkpoint and resumed:
// the admission cache is not saved, a resumed engine starts it empty, and
// its answers do not depend on it. Both answers occur.
func TestUnlimitedResume(t *testing.T) {
	const procs = 64
	for _, pc := range simtest.Policies(t) {
		t.Run(pc.Name, func(t *testing.T) {
			jobs := unlimitedJobs(5, 300, procs)
			cfg := func() sim.Config {
				return sim.Config{Procs: procs, Policy: pc.New(), Constraints: unlimitedConstraints()}
			}
			want, wantStats := simtest.Run(t, cfg(), jobs)
			ran, rejected := 0, 0
			for _, r := range want.Records {
				if r.Job.Estimate != workload.Unknown {
					continue
				}
				switch {
				case r.State == sim.Rejected && r.Reason == unlimitedReason:
					rejected++
				case r.State == sim.Completed:
					ran++
				}
			}
			if ran < 20 || rejected < 5 {
				t.Fatalf("%d jobs without a requested time ran, %d were rejected: the case tests too little", ran, rejected)
			}
			got := &simtest.Recorder{}
			if resumes := simtest.RunResumed(t, jobs, got, wantStats, simtest.EngineResumer(cfg, 3600)); resumes < 3 {
				t.Fatalf("resumed %d times", resumes)
			}
			simtest.SameRecords(t, got.Records, want.Records, "after resuming")
		})
	}
}

// TestCalendarSpansMatchWalk is the oracle test of the spans
// (fastpath.Spans, constraints.firstOver and blockedFor) and the admission
// cache: under every policy, on workloads where a third of the jobs have
// no requested time, with a partial daily reservation and a start
// window, a full-machine daily drain, and the checkpoint tests'
// calendar (daylight saving, weekly, nodes counted as processors), a
// run gives the same records, pending reasons and statistics as one that
// walks the reservations at every check and runs every pass
// (sim.SlowCalendar): the fast run also keeps EASY's head shadow between
// passes and skips the passes EASY's rule proves idle.
func TestCalendarSpansMatchWalk(t *testing.T) {
	const procs = 64
	drain := func() *sim.Constraints {
		c := unlimitedConstraints()
		c.Reservations = append(c.Reservations, sim.Reservation{Name: "drain", Start: 20 * 3600, Duration: 600, Recur: sim.RecurWeekdays, Until: workload.Forever, Maint: true})
		return c
	}
	// Two partial reservations, each leaving room for a job that only
	// their weekly overlap blocks: a job without a requested time that
	// the jobs running without one leave that room finds no start once
	// the profile no longer changes while the weekly one recurs, which the
	// plans learn at the calendar's horizon (fastpath.Spans.Horizon), the
	// walk at its last step; with an end to the weekly one (until) it
	// starts after it, which a horizon short of that would miss.
	overlap := func(until workload.Time) func() *sim.Constraints {
		return func() *sim.Constraints {
			c := unlimitedConstraints()
			c.Windows = nil
			c.Reservations = []sim.Reservation{
				{Name: "daily", Start: 3 * 3600, Duration: 4 * 3600, Recur: sim.RecurDaily, Until: workload.Forever, Procs: 16, Maint: true},
				{Name: "weekly", Start: 5 * 3600, Duration: 3600, Recur: sim.RecurWeekly, Until: until, Procs: 16, Accounts: []int{1}},
			}
			return c
		}
	}
	// Reservations for account 1 (a third of the jobs) most of the time,
	// one-off and daily, overlapping, and one for user 2: the running
	// jobs they admit fill them first (credit.go), so what they withhold
	// moves with the running jobs, which the memos kept between passes
	// must follow (fastpath.Credited).
	admitted := func() *sim.Constraints {
		c := unlimitedConstraints()
		c.Windows = nil
		c.Reservations = []sim.Reservation{
			{Name: "long", Start: 3600, Duration: 20 * 86400, Until: workload.Forever, Procs: 24, Accounts: []int{1}},
			{Name: "daily", Start: 8 * 3600, Duration: 10 * 3600, Recur: sim.RecurDaily, Until: workload.Forever, Procs: 12, Accounts: []int{1}},
			{Name: "user2", Start: 2 * 86400, Duration: 5 * 86400, Until: workload.Forever, Procs: 8, Users: []int{2}},
		}
		return c
	}
	sets := []struct {
		name string
		c    func() *sim.Constraints
	}{
		{"partial", unlimitedConstraints}, {"drain", drain}, {"calendar", calendarConstraints},
		{"overlap", overlap(workload.Forever)}, {"overlap-until", overlap(10 * 86400)}, {"admitted", admitted},
	}
	pols := simtest.Policies(t)
	// HPC Pack's activation filters hand their inner policy a calendar
	// view of their own (which forwards fastpath.Spans).
	pols = append(pols, simtest.NamedPolicy{Name: "slurm-filters", New: func() policy.Policy {
		h := &hpcpack.Model{Activation: []hpcpack.ActivationFilter{&hpcpack.LicensePool{Total: map[string]int{"lic": 12}, WhenShort: 2}}, Reevaluate: 300}
		s, err := policy.NewSlurm(policy.SlurmParams{Interval: 60})
		if err != nil {
			t.Fatal(err)
		}
		p, err := h.Wrap(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}})
	// A priority order hands its inner policy a calendar view of its own,
	// in its order (which forwards policy.Admitter and policy.JobAdmitter).
	pols = append(pols, simtest.NamedPolicy{Name: "depth-4-wfp3", New: func() policy.Policy {
		return &policy.Ordered{Order: policy.WFP3{}, Inner: &policy.Depth{Depth: 4, Lookahead: policy.LookaheadAll}}
	}})
	n := simtest.Cases(150, 40) // the walks take seconds a run for conservative and Slurm's backfill
	for _, pc := range pols {
		for _, set := range sets {
			t.Run(pc.Name+"/"+set.name, func(t *testing.T) {
				jobs := unlimitedJobs(11, n, procs)
				for i := range jobs {
					jobs[i].User = i % 5
					if i%4 == 1 {
						jobs[i].Licenses = "lic:" + strconv.Itoa(1+i%5)
					}
				}
				sameAsWalk(t, "the spans", func() sim.Config {
					return sim.Config{Procs: procs, Policy: pc.New(), Constraints: set.c()}
				}, jobs)
			})
		}
	}
}

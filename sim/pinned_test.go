package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// pinnedSpec is 4 nodes of 2 cores (nodes 0-3).
func pinnedSpec(sel string) *cluster.Spec {
	return &cluster.Spec{Select: sel, Groups: []cluster.NodeGroup{{Name: "n", Count: 4, Cores: 2}}}
}

// TestReservationOnNodes: a reservation given as nodes holds exactly
// those nodes over its span on a cluster of nodes, under every policy.
//
// 4 nodes of 2 cores; a reservation holds nodes 2-3 over [100, 200), for
// user 7 or for maintenance. At 0 job 1 takes nodes 0-1 until 90. Job 2
// (2 cores, 150 s) fits only on nodes 2-3 and would run into the
// reservation: by the processor count alone (8 free at 100 less the
// reservation's 4) it could start, but not on those nodes, so it waits
// for 90 and starts on node 0.
//
// The policies plan with the reservation's nodes (policy.NodeCalendar):
// job 2 overlaps the reservation wherever it starts before 200, so it
// may use none of nodes 2-3 for its whole run, and its earliest start is
// 90 (job 1's end), on node 0, with one node (2 processors) to spare. So
// EASY and a reservation depth backfill job 3 (50 s, ends before the
// head's start, and before the reservation: node 2) at 0, and job 4 on
// the head's spare processors at 0 on node 3 if the reservation admits it
// (user 7), else at 90 on node 1 (it may not use nodes 2-3 until 200).
// HPC Pack's window is the free nodes × the time until the head's start,
// 90: job 3 completes inside it and starts at 0; job 4 runs past 90 and
// waits for it (node 1, or node 2 when admitted). (In processor counts,
// the plan before, the head could start at once: 8 processors free at
// 100 less the reservation's 4; EASY then gave job 3 the head's spare
// processors and kept job 4 waiting for job 3's end, and HPC Pack's
// window was empty.) FCFS starts job 2 and then job 3 at 90, and job 4
// then if admitted, else at job 3's end, 140. Slurm's backfill (a cycle
// every second) plans the head after job 1's end and backfills job 3,
// and job 4 too when the reservation admits it, at 0.
func TestReservationOnNodes(t *testing.T) {
	jobs := func() []workload.Job {
		js := []workload.Job{
			job(1, 0, 4, 90, 90),
			job(2, 0, 2, 150, 150),
			job(3, 0, 2, 50, 50),
			job(4, 0, 2, 150, 150),
		}
		for i := range js {
			js[i].Seq = int64(i)
		}
		js[3].User = 7
		return js
	}
	slurm := func() policy.Policy {
		s, err := policy.NewSlurm(policy.SlurmParams{Interval: 1})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	pols := []struct {
		name string
		pol  func() policy.Policy
		// want: the starts with a reservation for user 7, then with a
		// maintenance one.
		users, maint string
	}{
		{"fcfs", func() policy.Policy { return policy.FCFS{} }, "1:0 2:90 3:90 4:90", "1:0 2:90 3:90 4:140"},
		{"easy", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }, "1:0 2:90 3:0 4:0", "1:0 2:90 3:0 4:90"},
		{"hpcpack", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll, Strict: true} }, "1:0 2:90 3:0 4:90", "1:0 2:90 3:0 4:90"},
		{"depth-2", func() policy.Policy { return &policy.Depth{Depth: 2, Lookahead: policy.LookaheadAll} }, "1:0 2:90 3:0 4:0", "1:0 2:90 3:0 4:90"},
		{"slurm", slurm, "1:0 2:90 3:0 4:0", "1:0 2:90 3:0 4:90"},
	}
	for _, sel := range []string{cluster.SelectLinear, cluster.SelectConsRes} {
		for _, pc := range pols {
			for _, maint := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/users", sel, pc.name)
				want := pc.users
				if maint {
					name, want = fmt.Sprintf("%s/%s/maint", sel, pc.name), pc.maint
				}
				t.Run(name, func(t *testing.T) {
					spec := pinnedSpec(sel)
					al, err := spec.NewAllocator()
					if err != nil {
						t.Fatal(err)
					}
					r := sim.Reservation{Name: "r", Start: 100, Duration: 100, Until: workload.Forever, Procs: 4, Nodes: []cluster.Range{{Lo: 2, Hi: 4}}}
					if maint {
						r.Maint = true
					} else {
						r.Users = []int{7}
					}
					c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}, Reservations: []sim.Reservation{r}}
					eng, err := sim.New(sim.Config{Policy: pc.pol(), Allocator: al, Constraints: c})
					if err != nil {
						t.Fatal(err)
					}
					col := &sim.Collector{}
					if _, err := eng.Run(simtest.NewSource(jobs()), col); err != nil {
						t.Fatal(err)
					}
					if g := simtest.StartsOf(col.Outcomes, 4); g != want {
						t.Errorf("starts %s, want %s", g, want)
					}
					if vs := sim.Verify(8, col.Outcomes, sim.VerifyOptions{Cluster: spec, Constraints: c}); len(vs) > 0 {
						t.Errorf("verify: %v", vs)
					}
				})
			}
		}
	}
}

// TestVerifyReservationOnNodes: verify finds a job that ran on a node of
// a reservation it may not use during an occurrence, from its
// allocation (nodes under linear, cores under cons_res), and accepts one
// that ended before it, ran elsewhere, or is admitted.
func TestVerifyReservationOnNodes(t *testing.T) {
	c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}, Reservations: []sim.Reservation{
		{Name: "r", Start: 100, Duration: 100, Until: workload.Forever, Procs: 4, Nodes: []cluster.Range{{Lo: 2, Hi: 4}}, Users: []int{7}},
	}}
	out := func(user int, start, end workload.Time, alloc cluster.Range) sim.Outcome {
		j := job(1, 0, 2, end-start, end-start)
		j.User = user
		return sim.Outcome{Job: j, State: sim.Completed, Start: start, End: end, Alloc: []cluster.Range{alloc}}
	}
	tests := []struct {
		name string
		sel  string
		o    sim.Outcome
		bad  bool
	}{
		{"linear: on node 2 across the start", cluster.SelectLinear, out(1, 50, 150, cluster.Range{Lo: 2, Hi: 3}), true},
		{"linear: on node 3 inside", cluster.SelectLinear, out(1, 120, 130, cluster.Range{Lo: 3, Hi: 4}), true},
		{"linear: ends at its start", cluster.SelectLinear, out(1, 0, 100, cluster.Range{Lo: 2, Hi: 3}), false},
		{"linear: on node 1", cluster.SelectLinear, out(1, 50, 150, cluster.Range{Lo: 1, Hi: 2}), false},
		{"linear: admitted", cluster.SelectLinear, out(7, 50, 150, cluster.Range{Lo: 2, Hi: 3}), false},
		{"cons_res: cores 4-5 are node 2", cluster.SelectConsRes, out(1, 50, 150, cluster.Range{Lo: 4, Hi: 6}), true},
		{"cons_res: cores 2-3 are node 1", cluster.SelectConsRes, out(1, 50, 150, cluster.Range{Lo: 2, Hi: 4}), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs := sim.Verify(8, []sim.Outcome{tc.o}, sim.VerifyOptions{Cluster: pinnedSpec(tc.sel), Constraints: c})
			found := false
			for _, v := range vs {
				found = found || (v.Rule == "reservation" && strings.Contains(v.Msg, `reservation "r"`))
			}
			if found != tc.bad {
				t.Errorf("violations %v; want one on the reservation's nodes: %v", vs, tc.bad)
			}
		})
	}
}

// TestReservationOnNodesPlan: the policies plan a job against the nodes
// a reservation holds, not against a count of processors, in the two
// cases where the count is wrong. 4 nodes of 1 core; a reservation holds
// nodes 0-1 over [100, 200).
//
// "moves": maintenance. Jobs 1 (20 s) and 2 (50 s), 2 nodes each, start
// at 0 on nodes 0-1 and 2-3 (they end before the reservation). Job 3
// (2 nodes, 300 s) overlaps the reservation wherever it starts before
// 200, so it may not use nodes 0-1 at all: its earliest start is 50, on
// nodes 2-3. By the processor count it could start at 20 (2 free until
// 50, 4 from then, 4 less the reservation's 2 inside it), as if it could
// move from nodes 0-1 to 2-3 at 100: a promise the nodes make
// impossible, after which EASY kept job 4 (2 nodes, 30 s) from nodes
// 0-1 until 50. With the nodes, job 4 ends by the head's start and
// before the reservation: it starts at 20 on nodes 0-1 under every
// policy that backfills, and at 50 under FCFS.
//
// "admitted": the reservation is for user 7. Job 1 (user 7, 2 nodes,
// 200 s) starts at 0 on nodes 0-1, inside the reservation. Job 2 (2
// nodes, 300 s) may not use nodes 0-1, and needs not: nodes 2-3 are
// free. By the count it could not start before 200 (free 2 less the
// reservation's 2 over [100, 200), the reservation's processors counted
// once as held and once as busy with job 1). Job 3 (2 nodes, 100 s)
// starts when job 1 ends, at 200, after the reservation, on nodes 0-1.
func TestReservationOnNodesPlan(t *testing.T) {
	slurm := func() policy.Policy {
		s, err := policy.NewSlurm(policy.SlurmParams{Interval: 1})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	pols := []struct {
		name string
		pol  func() policy.Policy
		// want: the starts of each case.
		moves, admitted string
	}{
		{"fcfs", func() policy.Policy { return policy.FCFS{} }, "1:0 2:0 3:50 4:50", "1:0 2:0 3:200"},
		{"easy", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }, "1:0 2:0 3:50 4:20", "1:0 2:0 3:200"},
		{"hpcpack", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll, Strict: true} }, "1:0 2:0 3:50 4:20", "1:0 2:0 3:200"},
		{"depth-2", func() policy.Policy { return &policy.Depth{Depth: 2, Lookahead: policy.LookaheadAll} }, "1:0 2:0 3:50 4:20", "1:0 2:0 3:200"},
		{"conservative", func() policy.Policy { return &policy.Conservative{} }, "1:0 2:0 3:50 4:20", "1:0 2:0 3:200"},
		{"slurm", slurm, "1:0 2:0 3:50 4:20", "1:0 2:0 3:200"},
		{"easy+tiers", func() policy.Policy {
			return policy.WithTiers(&policy.EASY{Lookahead: policy.LookaheadAll}, func(*workload.Job) int { return 0 })
		}, "1:0 2:0 3:50 4:20", "1:0 2:0 3:200"},
	}
	cases := []struct {
		name  string
		maint bool
		jobs  []workload.Job
	}{
		{"moves", true, []workload.Job{job(1, 0, 2, 20, 20), job(2, 0, 2, 50, 50), job(3, 0, 2, 300, 300), job(4, 0, 2, 30, 30)}},
		{"admitted", false, []workload.Job{job(1, 0, 2, 200, 200), job(2, 0, 2, 300, 300), job(3, 0, 2, 100, 100)}},
	}
	spec := &cluster.Spec{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 4, Cores: 1}}}
	for _, pc := range pols {
		for _, tc := range cases {
			t.Run(pc.name+"/"+tc.name, func(t *testing.T) {
				want := pc.moves
				if !tc.maint {
					want = pc.admitted
				}
				jobs := slices.Clone(tc.jobs)
				for i := range jobs {
					jobs[i].Seq = int64(i)
				}
				r := sim.Reservation{Name: "r", Start: 100, Duration: 100, Until: workload.Forever, Procs: 2, Nodes: []cluster.Range{{Lo: 0, Hi: 2}}, Maint: tc.maint}
				if !tc.maint {
					r.Users = []int{7}
					jobs[0].User = 7
				}
				al, err := spec.NewAllocator()
				if err != nil {
					t.Fatal(err)
				}
				c := &sim.Constraints{Calendar: workload.Calendar{Loc: time.UTC}, Reservations: []sim.Reservation{r}}
				eng, err := sim.New(sim.Config{Policy: pc.pol(), Allocator: al, Constraints: c})
				if err != nil {
					t.Fatal(err)
				}
				col := &sim.Collector{}
				if _, err := eng.Run(simtest.NewSource(jobs), col); err != nil {
					t.Fatal(err)
				}
				if g := simtest.StartsOf(col.Outcomes, len(jobs)); g != want {
					t.Errorf("starts %s, want %s", g, want)
				}
				if vs := sim.Verify(4, col.Outcomes, sim.VerifyOptions{Cluster: spec, Constraints: c}); len(vs) > 0 {
					t.Errorf("verify: %v", vs)
				}
			})
		}
	}
}

package sim_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// gangOracle simulates one gang queue by brute force in exact rational
// time: at every event it recomputes every running job's end from its
// remaining work and the current rate, q/(r·(q+s)) with r non-empty rows
// (1 when r ≤ 1). It returns each job's end time in seconds (exact).
func gangOracle(procs, mpl int, q, s int64, jobs []workload.Job) map[int64]*big.Rat {
	type run struct {
		j    *workload.Job
		row  int
		left *big.Rat // seconds of work left
	}
	ends := map[int64]*big.Rat{}
	var queue []*workload.Job
	var running []*run
	rows := make([]int, mpl)
	now := new(big.Rat)
	next := 0
	rate := func() *big.Rat {
		r := 0
		for _, u := range rows {
			if u > 0 {
				r++
			}
		}
		if r <= 1 {
			return big.NewRat(1, 1)
		}
		return big.NewRat(q, int64(r)*(q+s))
	}
	for next < len(jobs) || len(running) > 0 || len(queue) > 0 {
		// Next event: an arrival or the earliest end.
		var t *big.Rat
		if next < len(jobs) {
			t = big.NewRat(int64(jobs[next].Submit), 1)
		}
		rt := rate()
		for _, r := range running {
			e := new(big.Rat).Quo(r.left, rt)
			e.Add(e, now)
			if t == nil || e.Cmp(t) < 0 {
				t = e
			}
		}
		dt := new(big.Rat).Sub(t, now)
		done := new(big.Rat).Mul(dt, rt)
		now = t
		for next < len(jobs) && big.NewRat(int64(jobs[next].Submit), 1).Cmp(now) == 0 {
			queue = append(queue, &jobs[next])
			next++
		}
		kept := running[:0]
		for _, r := range running {
			r.left.Sub(r.left, done)
			if r.left.Sign() <= 0 {
				ends[r.j.ID] = new(big.Rat).Set(now)
				rows[r.row] -= r.j.Procs
				continue
			}
			kept = append(kept, r)
		}
		running = kept
		for len(queue) > 0 {
			j := queue[0]
			row := -1
			for k := range rows {
				if rows[k]+j.Procs <= procs {
					row = k
					break
				}
			}
			if row < 0 {
				break
			}
			rows[row] += j.Procs
			running = append(running, &run{j: j, row: row, left: big.NewRat(int64(j.Run), 1)})
			queue = queue[1:]
		}
	}
	return ends
}

// TestScoreDGangOracle compares the gang engine (a virtual clock in integer
// µs, events in integer ms) with the brute-force exact oracle on small
// seeded workloads: every end is the oracle's rounded up to whole seconds,
// give or take the milliseconds by which the engine's ends are rounded up.
func TestScoreDGangOracle(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 3))
			procs := 4 + r.IntN(8)
			mpl := 1 + r.IntN(4)
			q, s := int64(50+r.IntN(200)), int64(r.IntN(20))
			var jobs []workload.Job
			tm := workload.Time(0)
			for i := range 12 + r.IntN(20) {
				tm += workload.Time(r.IntN(40))
				jobs = append(jobs, sdJob(int64(i+1), tm, 1+r.IntN(procs), workload.Time(1+r.IntN(200)), none, 0))
			}
			want := gangOracle(procs, mpl, q, s, append([]workload.Job(nil), jobs...))
			cfg := policy.NewScoreD(1, policy.Gang)
			cfg.MPL, cfg.QuantumMs, cfg.SwitchMs = mpl, q, s
			rec, _ := runScoreD(t, procs, cfg, jobs)
			for _, rc := range rec.Records {
				w, _ := want[rc.Job.ID].Float64()
				// Events happen on whole milliseconds: an end comes up to
				// 1 ms late, which slows the jobs sharing its time slices
				// for that long; records round up to whole seconds.
				if d := float64(rc.End) - w; d < -0.001 || d >= 1+0.001*float64(len(jobs)) {
					t.Errorf("job %d: end %d, oracle %.3f (procs %d, MPL %d, q %d, s %d)", rc.Job.ID, rc.End, w, procs, mpl, q, s)
				}
				if rc.CPUTime != rc.Job.Run {
					t.Errorf("job %d: CPU time %d, run %d", rc.Job.ID, rc.CPUTime, rc.Job.Run)
				}
			}
		})
	}
}

// TestScoreDDeterminism runs one multi-queue scenario with every mechanism
// three times and compares the records.
func TestScoreDDeterminism(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 5))
	var jobs []workload.Job
	tm := workload.Time(0)
	for i := range 400 {
		tm += workload.Time(r.IntN(30))
		j := sdJob(int64(i+1), tm, 1+r.IntN(16), workload.Time(1+r.IntN(600)), workload.Time(300+r.IntN(600)), r.IntN(4))
		j.ReqMemKB = float64(r.IntN(100))
		jobs = append(jobs, j)
	}
	cfg := sdConfig(3, policy.Gang, 3)
	cfg.Queues[0].Mode, cfg.Queues[0].ResidenceSec, cfg.Queues[0].MaxCPUSec = policy.Exclusive, 60, 500
	cfg.Queues[1].ResidenceSec = 120
	cfg.MemKB, cfg.Queues[1].MemPercent = 2000, 30
	ch, err := policy.ParseQueueChange("2=deactivated@1000-3000", policy.Activated)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Changes = ch
	var first []string
	for run := range 3 {
		rec, _ := runScoreD(t, 16, cfg, append([]workload.Job(nil), jobs...))
		var got []string
		for _, rc := range rec.Records {
			got = append(got, fmt.Sprintf("%d %v %d %d %d %d %d %d %s", rc.Job.ID, rc.State, rc.Start, rc.End, rc.Queue, rc.Demotions, rc.Suspensions, rc.CPUTime, rc.Reason))
		}
		if len(got) != len(jobs) {
			t.Fatalf("%d records for %d jobs", len(got), len(jobs))
		}
		if run == 0 {
			first = got
		} else if !reflect.DeepEqual(got, first) {
			t.Fatalf("run %d differs from run 0", run)
		}
	}
}

// TestScoreDQueuesInvariants replays seeded multi-queue workloads, gang and
// exclusive queues mixed, with memory and disk limits, residence times,
// queue state changes and every preemption mode. The engine panics when
// one of its invariants breaks: a row taking time slices without a job of
// the highest queue in the matrix (priority between queues in gang mode),
// the started jobs' limits summing beyond the cluster's, limits still held
// at the end, a row over-allocated, CPU time not conserved. Every job must
// also get exactly one record.
func TestScoreDQueuesInvariants(t *testing.T) {
	modes := []policy.PreemptMode{policy.PreemptSuspend, policy.PreemptRequeue, policy.PreemptCancel, policy.PreemptOff}
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 9))
			procs := 4 + r.IntN(12)
			nq := 2 + r.IntN(3)
			cfg := sdConfig(nq, policy.Gang, 1+r.IntN(4))
			cfg.Preempt = modes[r.IntN(len(modes))]
			cfg.MemKB, cfg.DiskKB, cfg.ProcsPerHost = 1000, 100, 1+r.IntN(4)
			for i := range cfg.Queues {
				q := &cfg.Queues[i]
				if r.IntN(3) == 0 {
					q.Mode = policy.Exclusive
				}
				q.MemPercent, q.DiskPercent = r.IntN(60), r.IntN(40)
				q.ResidenceSec = workload.Time(r.IntN(2) * (10 + r.IntN(50)))
				q.Wait = r.IntN(2) == 0
			}
			if r.IntN(2) == 0 {
				ch, err := policy.ParseQueueChange(fmt.Sprintf("%d=deactivated@%d-%d", r.IntN(nq), 50+r.IntN(100), 200+r.IntN(100)), policy.Activated)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Changes = ch
			}
			var jobs []workload.Job
			tm := workload.Time(0)
			for i := range 20 + r.IntN(40) {
				tm += workload.Time(r.IntN(20))
				j := sdJob(int64(i+1), tm, 1+r.IntN(procs), workload.Time(1+r.IntN(150)), none, r.IntN(nq))
				j.ReqMemKB, j.UsedMemKB = float64(r.IntN(200)), float64(r.IntN(150))
				j.WaitResources = int8(r.IntN(3) - 1)
				jobs = append(jobs, j)
			}
			rec, st := runScoreD(t, procs, cfg, jobs)
			if len(rec.Records) != len(jobs) || st.Jobs != int64(len(jobs)) {
				t.Fatalf("%d records, %d jobs in the stats, for %d jobs", len(rec.Records), st.Jobs, len(jobs))
			}
			seen := map[int64]bool{}
			for _, rc := range rec.Records {
				if seen[rc.Job.ID] {
					t.Errorf("job %d recorded twice", rc.Job.ID)
				}
				seen[rc.Job.ID] = true
			}
		})
	}
}

package sim_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// This file holds a brute-force reference scheduler for tiny workloads,
// written from SPEC §2–3 without looking at the engine's data structures: it
// steps the clock one second at a time and plans with a per-second array of
// free processors. It is slow and obviously correct; the engine must give
// every job the same start.

// ojob is a job as the oracle sees it. est ≤ 0: no estimate.
type ojob struct {
	submit, procs, run, est int
}

// actual is how long the job runs: its run time, cut at its estimate.
func (j ojob) actual() int {
	if j.est > 0 && j.run > j.est {
		return j.est
	}
	return j.run
}

// oracle settings: easy false is FCFS; lookahead < 0 is the whole queue;
// sjf orders the queue by estimate at every pass (no estimate last, ties in
// submission order); sjbf examines the backfill candidates by estimate;
// strict is HPC Pack's window: a candidate must end by the head's start.
type oracleConfig struct {
	capacity  int
	easy      bool
	lookahead int
	sjf, sjbf bool
	strict    bool
}

// oracleKey is a job's estimate for sjf and sjbf; no estimate sorts last.
func oracleKey(j ojob) int {
	if j.est <= 0 {
		return 1 << 40
	}
	return j.est
}

// oracleSchedule returns each job's start (-1: rejected, larger than the
// machine).
func oracleSchedule(cfg oracleConfig, jobs []ojob) []int {
	const never = 1 << 40
	n := len(jobs)
	start := make([]int, n)
	end := make([]int, n)    // actual end
	pred := make([]int, n)   // predicted end: start + estimate, never without one
	state := make([]byte, n) // 0 not submitted, 'q' queued, 'r' running, 'd' done / rejected
	var queue []int
	left := n
	// horizon bounds every estimate, so that a plan over [t, t+horizon) sees
	// every predicted end.
	horizon := 1
	for _, j := range jobs {
		horizon = max(horizon, j.est+1)
	}

	freeNow := func() int {
		f := cfg.capacity
		for i := range jobs {
			if state[i] == 'r' {
				f -= jobs[i].procs
			}
		}
		return f
	}
	run := func(i, t int) {
		state[i] = 'r'
		start[i] = t
		end[i] = t + jobs[i].actual()
		pred[i] = never
		if jobs[i].est > 0 {
			pred[i] = t + jobs[i].est
		}
	}
	// plan returns the predicted free processors at t+k for k in [0, horizon),
	// from the running jobs' estimates. A job without an estimate counts as
	// running forever, unless untilNow: then as if it ended at t.
	plan := func(t int, untilNow bool) []int {
		free := make([]int, horizon)
		for k := range free {
			free[k] = cfg.capacity
			for i := range jobs {
				if state[i] != 'r' {
					continue
				}
				if pred[i] == never && untilNow {
					continue
				}
				if t+k < pred[i] {
					free[k] -= jobs[i].procs
				}
			}
		}
		return free
	}

	for t := 0; left > 0; t++ {
		if t > 1<<20 {
			panic("oracle: no progress")
		}
		event := false
		// submissions at t, in trace order
		for i, j := range jobs {
			if j.submit != t {
				continue
			}
			event = true
			if j.procs > cfg.capacity {
				state[i] = 'd'
				start[i] = -1
				left--
				continue
			}
			state[i] = 'q'
			queue = append(queue, i)
		}
		// ends at t
		for i := range jobs {
			if state[i] == 'r' && end[i] == t {
				state[i] = 'd'
				left--
				event = true
			}
		}
		if !event || len(queue) == 0 {
			continue
		}
		// One scheduling pass, in the queue's order. Heads first, while they fit.
		if cfg.sjf {
			sort.SliceStable(queue, func(a, b int) bool { return oracleKey(jobs[queue[a]]) < oracleKey(jobs[queue[b]]) })
		}
		for len(queue) > 0 && jobs[queue[0]].procs <= freeNow() {
			run(queue[0], t)
			queue = queue[1:]
		}
		if !cfg.easy || len(queue) == 0 {
			continue
		}
		head := jobs[queue[0]]
		window := plan(t, false)
		shadow := -1
		for k, f := range window {
			if f >= head.procs {
				shadow = k
				break
			}
		}
		candidates := append([]int(nil), queue[1:]...)
		if cfg.lookahead >= 0 && len(candidates) > cfg.lookahead {
			candidates = candidates[:cfg.lookahead]
		}
		if cfg.sjbf {
			sort.SliceStable(candidates, func(a, b int) bool { return oracleKey(jobs[candidates[a]]) < oracleKey(jobs[candidates[b]]) })
		}
		var fits func(c ojob) bool
		var take func(c ojob)
		if shadow >= 0 {
			// The head holds its processors from the shadow time on (to the
			// horizon: past the shadow, predicted free processors only grow,
			// so holding them longer than its estimate changes nothing). A
			// candidate must fit, for the whole of its estimate, in what is
			// left of the window.
			for k := shadow; k < horizon; k++ {
				window[k] -= head.procs
			}
			fits = func(c ojob) bool {
				if cfg.strict && c.est > shadow {
					return false // HPC Pack: it must complete inside the window
				}
				for k := 0; k < c.est; k++ {
					if window[k] < c.procs {
						return false
					}
				}
				return true
			}
			take = func(c ojob) {
				for k := 0; k < c.est; k++ {
					window[k] -= c.procs
				}
			}
		} else {
			// The shadow time is unknown: the head waits for a job without
			// an estimate, which may end at any moment. The earliest it could
			// start (es) is when it would if those jobs ended now. A candidate
			// that ends by es is safe. One that runs longer may use only the
			// processors the head leaves then (the extra), and only when a
			// single running job lacks an estimate: with several, the head
			// could start when just some of them have ended, with less room.
			early := plan(t, true)
			es, extra := horizon, 0
			for k, f := range early {
				if f >= head.procs {
					es, extra = k, f-head.procs
					break
				}
			}
			unknown := 0
			for i := range jobs {
				if state[i] == 'r' && pred[i] == never {
					unknown++
				}
			}
			if unknown > 1 || cfg.strict {
				extra = 0
			}
			fits = func(c ojob) bool {
				if c.est > es && c.procs > extra {
					return false
				}
				for k := 0; k < c.est; k++ {
					if window[k] < c.procs {
						return false
					}
				}
				return true
			}
			take = func(c ojob) {
				if c.est > es {
					extra -= c.procs
				}
				for k := 0; k < c.est; k++ {
					window[k] -= c.procs
				}
			}
		}
		for _, c := range candidates {
			j := jobs[c]
			if j.est <= 0 || !fits(j) {
				continue
			}
			take(j)
			run(c, t)
			for k, q := range queue {
				if q == c {
					queue = append(queue[:k], queue[k+1:]...)
					break
				}
			}
		}
	}
	return start
}

// randomCase draws a tiny workload: up to 8 jobs on up to 8 processors,
// submissions bunched at few instants, estimates below (killed), at and
// above the run time. noEstimate is the probability of a job without one.
func randomCase(r *rand.Rand, noEstimate float64) (capacity int, jobs []ojob) {
	capacity = 1 + r.IntN(8)
	n := 1 + r.IntN(8)
	t := 0
	for range n {
		if r.IntN(3) == 0 {
			t += r.IntN(6)
		}
		j := ojob{submit: t, procs: 1 + r.IntN(capacity), run: 1 + r.IntN(12)}
		if r.IntN(25) == 0 {
			j.procs = capacity + 1 + r.IntN(2) // rejected
		}
		switch {
		case r.Float64() < noEstimate:
			j.est = workload.Unknown
		case r.IntN(5) == 0:
			j.est = max(1, j.run-1-r.IntN(4)) // killed (or exact when run is 1)
		case r.IntN(3) == 0:
			j.est = j.run
		default:
			j.est = j.run + 1 + r.IntN(8)
		}
		jobs = append(jobs, j)
	}
	return capacity, jobs
}

func toJobs(js []ojob) []workload.Job {
	out := make([]workload.Job, len(js))
	for i, j := range js {
		out[i] = job(int64(i+1), workload.Time(j.submit), j.procs, workload.Time(j.run), workload.Time(j.est))
	}
	return out
}

func formatCase(capacity int, js []ojob) string {
	var b strings.Builder
	fmt.Fprintf(&b, "machine of %d processors; jobs (id: submit procs run estimate):\n", capacity)
	for i, j := range js {
		fmt.Fprintf(&b, "  job(%d, %d, %d, %d, %d),\n", i+1, j.submit, j.procs, j.run, j.est)
	}
	return b.String()
}

var oraclePolicies = []struct {
	pol policy.Policy
	cfg oracleConfig
}{
	{fcfs, oracleConfig{easy: false}},
	{easy(0), oracleConfig{easy: true, lookahead: 0}},
	{easy(1), oracleConfig{easy: true, lookahead: 1}},
	{easy(2), oracleConfig{easy: true, lookahead: 2}},
	{easyAll, oracleConfig{easy: true, lookahead: -1}},
	// The profile-based reservation-depth policy at depth 1 is EASY.
	{&policy.Depth{Depth: 1, Lookahead: 2}, oracleConfig{easy: true, lookahead: 2}},
	{&policy.Depth{Depth: 1, Lookahead: policy.LookaheadAll}, oracleConfig{easy: true, lookahead: -1}},
	// Orders and shortest-first backfilling.
	{&policy.Ordered{Order: policy.Arrival{}, Inner: &policy.EASY{Lookahead: policy.LookaheadAll}}, oracleConfig{easy: true, lookahead: -1}},
	{&policy.Ordered{Order: policy.SJF{}, Inner: fcfs}, oracleConfig{sjf: true}},
	{&policy.Ordered{Order: policy.SJF{}, Inner: easy(2)}, oracleConfig{easy: true, lookahead: 2, sjf: true}},
	{&policy.Ordered{Order: policy.SJF{}, Inner: easyAll}, oracleConfig{easy: true, lookahead: -1, sjf: true}},
	{&policy.EASY{Lookahead: 2, SJBF: true}, oracleConfig{easy: true, lookahead: 2, sjbf: true}},
	{&policy.EASY{Lookahead: policy.LookaheadAll, SJBF: true}, oracleConfig{easy: true, lookahead: -1, sjbf: true}},
	{&policy.Ordered{Order: policy.SJF{}, Inner: &policy.EASY{Lookahead: policy.LookaheadAll, SJBF: true}}, oracleConfig{easy: true, lookahead: -1, sjf: true, sjbf: true}},
	// HPC Pack's backfill window.
	{&policy.EASY{Lookahead: 2, Strict: true}, oracleConfig{easy: true, lookahead: 2, strict: true}},
	{&policy.EASY{Lookahead: policy.LookaheadAll, Strict: true}, oracleConfig{easy: true, lookahead: -1, strict: true}},
	{&policy.Ordered{Order: policy.SJF{}, Inner: &policy.EASY{Lookahead: policy.LookaheadAll, Strict: true}}, oracleConfig{easy: true, lookahead: -1, sjf: true, strict: true}},
}

// compareOracle runs one case under every policy and reports the first
// difference from the oracle.
func compareOracle(t *testing.T, seed uint64, capacity int, js []ojob, only func(policy.Policy) bool) (promises int) {
	t.Helper()
	for _, p := range oraclePolicies {
		if only != nil && !only(p.pol) {
			continue
		}
		cfg := p.cfg
		cfg.capacity = capacity
		want := oracleSchedule(cfg, js)
		spy := &simtest.Spy{Policy: p.pol}
		rec, _ := simtest.Simulate(t, capacity, spy, toJobs(js))
		promises += len(spy.Promised())
		if err := spy.CheckPromises(rec.Records); err != nil {
			t.Fatalf("seed %d, %s: %v\n%s%s", seed, p.pol.Name(), err, formatCase(capacity, js), simtest.Format(rec.Records))
		}
		if !cfg.easy && !cfg.sjf {
			// FCFS: no job starts before one queued ahead of it.
			for i := range js {
				for k := range i {
					if js[i].procs <= capacity && js[k].procs <= capacity && rec.ByID(t, int64(k+1)).Start > rec.ByID(t, int64(i+1)).Start {
						t.Fatalf("seed %d, fcfs: job %d overtook job %d\n%s%s", seed, i+1, k+1, formatCase(capacity, js), simtest.Format(rec.Records))
					}
				}
			}
		}
		for i := range js {
			r := rec.ByID(t, int64(i+1))
			got := int(r.Start)
			if want[i] < 0 {
				got = -1
			}
			if got != want[i] {
				var ws []string
				for k, w := range want {
					ws = append(ws, fmt.Sprintf("%d:%d", k+1, w))
				}
				t.Fatalf("seed %d, %s: job %d starts at %d, oracle says %d\n%soracle starts (id:start, -1 rejected): %s\nengine records:\n%s",
					seed, p.pol.Name(), i+1, got, want[i], formatCase(capacity, js), strings.Join(ws, " "), simtest.Format(rec.Records))
			}
		}
	}
	return promises
}

// oracleCases is how many random cases each oracle test runs in full
// (simtest.Full); a tenth of them otherwise.
const oracleCases = 20000

// TestOracle compares the engine with the brute-force scheduler on random
// tiny workloads where every job has an estimate.
func TestOracle(t *testing.T) {
	n := simtest.Cases(oracleCases, oracleCases/10)
	promises := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		capacity, js := randomCase(r, 0)
		promises += compareOracle(t, seed, capacity, js, nil)
	}
	// The cases must exercise reservations, or the check above is idle.
	if promises < n {
		t.Errorf("only %d reservations in %d cases", promises, n)
	}
	t.Logf("%d cases, %d reservations checked", n, promises)
}

// TestOracleNoEstimate adds jobs without an estimate. FCFS ignores
// estimates and must match the oracle always; under EASY such a job must
// never overtake a job queued before it (it is never backfilled).
func TestOracleNoEstimate(t *testing.T) {
	n := simtest.Cases(oracleCases, oracleCases/10)
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x40e5))
		capacity, js := randomCase(r, 0.3)
		compareOracle(t, seed, capacity, js, func(p policy.Policy) bool { return p == fcfs })
		for _, p := range []policy.Policy{easy(1), easyAll} {
			rec, _ := simtest.Simulate(t, capacity, p, toJobs(js))
			for i, j := range js {
				if j.est > 0 || j.procs > capacity {
					continue
				}
				ri := rec.ByID(t, int64(i+1))
				for k := range i {
					if js[k].procs > capacity {
						continue
					}
					if rk := rec.ByID(t, int64(k+1)); rk.Start > ri.Start {
						t.Fatalf("seed %d, %s: job %d without estimate starts at %d before job %d queued ahead of it (starts %d)\n%s%s",
							seed, p.Name(), i+1, ri.Start, k+1, rk.Start, formatCase(capacity, js), simtest.Format(rec.Records))
					}
				}
			}
		}
	}
}

// TestOracleNoEstimateEASY compares EASY with the oracle when running jobs
// have no estimate, which makes the head's shadow time unknown.
func TestOracleNoEstimateEASY(t *testing.T) {
	n := simtest.Cases(oracleCases, oracleCases/10)
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x40e5))
		capacity, js := randomCase(r, 0.3)
		compareOracle(t, seed, capacity, js, func(p policy.Policy) bool { return p != fcfs })
	}
}

// TestOracleSelf pins the oracle itself on the hand-worked scenarios, so
// that a wrong oracle cannot pass silently with a wrong engine.
func TestOracleSelf(t *testing.T) {
	cases := []struct {
		name string
		cfg  oracleConfig
		jobs []ojob
		want []int
	}{
		{"fcfs no overtaking", oracleConfig{4, false, 0, false, false, false},
			[]ojob{{0, 3, 10, 10}, {0, 2, 5, 5}, {0, 1, 5, 5}}, []int{0, 10, 10}},
		{"easy ends at shadow", oracleConfig{4, true, -1, false, false, false},
			[]ojob{{0, 2, 10, 10}, {0, 4, 10, 10}, {0, 2, 10, 10}}, []int{0, 10, 0}},
		{"easy crossing uses extra", oracleConfig{10, true, -1, false, false, false},
			[]ojob{{0, 6, 10, 10}, {0, 8, 10, 10}, {0, 1, 100, 100}, {0, 2, 100, 100}, {0, 1, 100, 100}, {0, 2, 5, 5}},
			[]int{0, 10, 0, 20, 0, 0}},
		// HPC Pack's window: only job 6 (ends at 5) completes before the
		// head's start at 10; 3 starts beside the head at 10, 4 and 5 at 20.
		{"hpcpack window, no extra", oracleConfig{10, true, -1, false, false, true},
			[]ojob{{0, 6, 10, 10}, {0, 8, 10, 10}, {0, 1, 100, 100}, {0, 2, 100, 100}, {0, 1, 100, 100}, {0, 2, 5, 5}},
			[]int{0, 10, 10, 20, 20, 0}},
		{"lookahead 2", oracleConfig{8, true, 2, false, false, false},
			[]ojob{{0, 5, 10, 10}, {0, 8, 10, 10}, {0, 1, 5, 5}, {0, 1, 20, 20}, {0, 1, 5, 5}, {0, 1, 5, 5}},
			[]int{0, 10, 0, 20, 5, 20}},
		{"unknown shadow, extra held across passes", oracleConfig{10, true, -1, false, false, false},
			[]ojob{{0, 6, 100, -1}, {0, 8, 10, 10}, {0, 2, 1000, 1000}, {1, 2, 1000, 1000}}, []int{0, 100, 0, 110}},
		{"rejected", oracleConfig{2, false, 0, false, false, false}, []ojob{{0, 3, 1, 1}, {0, 2, 1, 1}}, []int{-1, 0}},
		{"killed", oracleConfig{2, false, 0, false, false, false}, []ojob{{0, 2, 100, 10}, {0, 2, 1, 1}}, []int{0, 10}},
		// sjf at 0: 3 (est 5) and 1 (est 10) fill the machine; 2 (est 50) waits.
		{"sjf", oracleConfig{4, false, 0, true, false, false},
			[]ojob{{0, 3, 10, 10}, {0, 2, 5, 50}, {0, 1, 5, 5}}, []int{0, 10, 0}},
		// Head 2 reserved at 10 with no extra; 3 and 4 both end by 10 but only
		// 2 processors are free: queue order takes 3, shortest first 4.
		{"easy queue order", oracleConfig{4, true, -1, false, false, false},
			[]ojob{{0, 2, 10, 10}, {0, 4, 10, 10}, {0, 2, 10, 10}, {0, 2, 5, 5}}, []int{0, 10, 0, 20}},
		{"easy sjbf", oracleConfig{4, true, -1, false, true, false},
			[]ojob{{0, 2, 10, 10}, {0, 4, 10, 10}, {0, 2, 10, 10}, {0, 2, 5, 5}}, []int{0, 10, 20, 0}},
	}
	for _, c := range cases {
		if got := oracleSchedule(c.cfg, c.jobs); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: oracle %v, want %v", c.name, got, c.want)
		}
	}
}

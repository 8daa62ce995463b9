package report

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// naiveDist is Dist the plain way: sort the class's values, sum them in
// that order, read the nearest ranks.
func naiveDist(vs []float64) Dist {
	if len(vs) == 0 {
		return Dist{}
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	n := int64(len(s))
	return Dist{Mean: sum / float64(n), Median: s[nearestRank(50, n)], P90: s[nearestRank(90, n)],
		P95: s[nearestRank(95, n)], P99: s[nearestRank(99, n)], Max: s[n-1]}
}

// naiveRun is what a naive summary of a run keeps: every class's waits and
// bounded slowdowns, by class index (see classesOf).
type naiveRun struct {
	waits, bslds map[int][]float64
}

// Floor modes of feedRandom: the share of jobs that did not wait, or no job
// at a floor at all (neither a wait of 0 nor a slowdown of 1).
const noFloor = -1.0

// randomRecords returns n records of jobs of seeded random sizes and runs,
// a share zeroShare of them without a wait (noFloor: every job waits at
// least 10 s, so that no slowdown is 1 either).
func randomRecords(rng *rand.Rand, n int, zeroShare float64) []*sim.Record {
	recs := make([]*sim.Record, n)
	for i := range recs {
		procs := 1 + rng.IntN(1<<rng.IntN(11))
		run := workload.Time(1 + rng.IntN(1<<rng.IntN(18)))
		var wait workload.Time
		switch {
		case zeroShare == noFloor:
			wait = workload.Time(10 + rng.IntN(1<<rng.IntN(20)))
		case rng.Float64() >= zeroShare:
			wait = workload.Time(rng.IntN(1 << rng.IntN(20)))
		}
		j := &workload.Job{ID: int64(i), Submit: 1000, Procs: procs, Run: run, Estimate: run}
		recs[i] = &sim.Record{Job: j, State: sim.Completed, Start: 1000 + wait, End: 1000 + wait + run}
	}
	return recs
}

// feedRandom gives m the records randomRecords makes and adds to into
// what a naive summary of them needs.
func feedRandom(m *Metrics, rng *rand.Rand, n int, zeroShare float64, into *naiveRun) {
	if into.waits == nil {
		into.waits, into.bslds = map[int][]float64{}, map[int][]float64{}
	}
	for _, r := range randomRecords(rng, n, zeroShare) {
		m.JobDone(r)
		wait, run := r.Start-r.Job.Submit, r.End-r.Start
		cell := uint8(SizeClass(r.Job.Procs)*NumRuntimeClasses + RuntimeClass(run))
		for _, c := range classesOf(cell) {
			into.waits[c] = append(into.waits[c], float64(wait))
			into.bslds[c] = append(into.bslds[c], BoundedSlowdown(wait, run))
		}
	}
}

// checkNaive checks every class's wait and bounded-slowdown distribution
// in m's summary against sorting each class on its own, then that Waits
// gives all the waits sorted, and that a second Summary and Waits give
// the same again.
func checkNaive(t *testing.T, label string, m *Metrics, want naiveRun) {
	t.Helper()
	s := m.Summary("t", "p", 64, sim.Stats{}, workload.CleanStats{})
	got := map[int]ClassStats{0: {Jobs: s.Started, Wait: s.Wait, BoundedSlowdown: s.BoundedSlowdown}}
	for i := range s.BySize {
		got[1+NumSizeClasses*NumRuntimeClasses+i] = s.BySize[i]
		for k := range s.BySizeRuntime[i] {
			got[1+i*NumRuntimeClasses+k] = s.BySizeRuntime[i][k]
		}
	}
	for k := range s.ByRuntime {
		got[1+NumSizeClasses*NumRuntimeClasses+NumSizeClasses+k] = s.ByRuntime[k]
	}
	for c := range numClasses {
		g := got[c]
		if g.Jobs != int64(len(want.waits[c])) {
			t.Fatalf("%s class %d: %d jobs, want %d", label, c, g.Jobs, len(want.waits[c]))
		}
		w, b := naiveDist(want.waits[c]), naiveDist(want.bslds[c])
		if c == 0 {
			// The mean over all jobs is summed in report order.
			w.Mean, b.Mean = g.Wait.Mean, g.BoundedSlowdown.Mean
		}
		if g.Wait != w || g.BoundedSlowdown != b {
			t.Fatalf("%s class %d:\nwait %+v\nwant %+v\nbsld %+v\nwant %+v", label, c, g.Wait, w, g.BoundedSlowdown, b)
		}
	}
	sorted := slices.Clone(want.waits[0])
	slices.Sort(sorted)
	checkWaits := func(when string, ws []int64) {
		t.Helper()
		if len(ws) != len(sorted) {
			t.Fatalf("%s: %s, %d waits, want %d", label, when, len(ws), len(sorted))
		}
		for i := range ws {
			if float64(ws[i]) != sorted[i] {
				t.Fatalf("%s: %s, Waits()[%d] = %d, want %v", label, when, i, ws[i], sorted[i])
			}
		}
	}
	checkWaits("after Summary", m.Waits())
	checkWaits("without Summary", m.Waits())
	if again := m.Summary("t", "p", 64, sim.Stats{}, workload.CleanStats{}); !reflect.DeepEqual(again, s) {
		t.Fatalf("%s: a second Summary differs:\n%+v\n%+v", label, again, s)
	}
	checkWaits("after a second Summary", m.Waits())
}

// TestClassDistsNaive checks every class's wait and bounded-slowdown
// distribution against sorting each class on its own, on seeded random
// runs where many jobs did not wait (the values Summary counts instead of
// sorting) and some did, in small and large classes.
func TestClassDistsNaive(t *testing.T) {
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 99))
		n := []int{1, 2, 3, 17, 200, 5000}[seed%6]
		zeroShare := []float64{0, 0.5, 0.95, 1}[seed%4]
		m := NewMetrics()
		var want naiveRun
		feedRandom(m, rng, n, zeroShare, &want)
		checkNaive(t, fmt.Sprintf("seed %d", seed), m, want)
	}
}

// TestClassDistsRuns checks the distributions and the sorted waits as
// TestClassDistsNaive does, around the boundaries of the runs Metrics
// sorts as jobs come (see column): with no run full, one just short of
// full, exactly full, one past it and several, with every job at the
// floor (no run at all), none and half of them, with the runs' real
// length and with runs of 7 keys.
func TestClassDistsRuns(t *testing.T) {
	for _, k := range []int{runLen, 7} {
		for _, n := range []int{0, 1, k - 1, k, k + 1, 3*k + 5} {
			if k == runLen && n == 3*k+5 && !simtest.Full() {
				continue // several runs of the real length in full runs only; runs of 7 cover several runs always
			}
			for _, zeroShare := range []float64{1, noFloor, 0.5} {
				label := fmt.Sprintf("runs of %d, %d jobs, floor share %v", k, n, zeroShare)
				m := NewMetrics()
				m.waits.runLen, m.bslds.runLen = k, k
				var want naiveRun
				feedRandom(m, rand.New(rand.NewPCG(uint64(n), uint64(k))), n, zeroShare, &want)
				if zeroShare == noFloor {
					// Every job's values are kept: the runs fill with the jobs.
					if got := len(m.waits.runs); got != n/k {
						t.Fatalf("%s: %d full runs, want %d", label, got, n/k)
					}
				}
				checkNaive(t, label, m, want)
				// More jobs after a summary: it left m as it was.
				feedRandom(m, rand.New(rand.NewPCG(uint64(n), 3)), k+2, 0.5, &want)
				checkNaive(t, label+", then more", m, want)
			}
		}
	}
}

// TestClassDistsWide checks a run where some jobs waited too long for their
// wait to be packed with its cell (see packLimit): they come after every
// other, in the classes and in Waits, with runs of 7 keys around them.
func TestClassDistsWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	m := NewMetrics()
	m.waits.runLen, m.bslds.runLen = 7, 7
	want := naiveRun{waits: map[int][]float64{}, bslds: map[int][]float64{}}
	for i, r := range randomRecords(rng, 300, 0.3) {
		if i%7 == 3 {
			wait := workload.Time(packLimit + rng.Int64N(1<<40))
			r.Start += wait
			r.End += wait
		}
		m.JobDone(r)
		wait, run := r.Start-r.Job.Submit, r.End-r.Start
		for _, c := range classesOf(uint8(SizeClass(r.Job.Procs)*NumRuntimeClasses + RuntimeClass(run))) {
			want.waits[c] = append(want.waits[c], float64(wait))
			want.bslds[c] = append(want.bslds[c], BoundedSlowdown(wait, run))
		}
	}
	if len(m.waits.wide.keys) == 0 {
		t.Fatal("no wait kept wide")
	}
	checkNaive(t, "wide waits", m, want)
}

// TestColumnWide: a column gives its keys sorted, with their cells, packed
// or kept wide, whatever its floor.
func TestColumnWide(t *testing.T) {
	for _, floor := range []uint64{waitFloor, bsldFloor} {
		rng := rand.New(rand.NewPCG(floor, 8))
		c := column{runLen: 5}
		type keyCell struct {
			k uint64
			c uint8
		}
		var want []keyCell
		for range 200 {
			k := floor + []uint64{0, rng.Uint64N(1 << 20), packLimit - 1, packLimit, packLimit + rng.Uint64N(1<<40)}[rng.IntN(5)]
			cell := uint8(rng.IntN(numCells))
			c.add(k, floor, cell)
			if k != floor {
				want = append(want, keyCell{k, cell})
			}
		}
		slices.SortFunc(want, func(a, b keyCell) int {
			if a.k != b.k {
				return cmp.Compare(a.k, b.k)
			}
			return cmp.Compare(a.c, b.c)
		})
		var got []keyCell
		wide := c.sorted(func(keys []uint64) {
			for _, k := range keys {
				got = append(got, keyCell{k>>tagBits + floor, uint8(k & tagMask)})
			}
		})
		for i, k := range wide.keys {
			got = append(got, keyCell{k, wide.tags[i]})
		}
		if !slices.IsSortedFunc(got, func(a, b keyCell) int { return cmp.Compare(a.k, b.k) }) {
			t.Fatalf("floor %#x: keys out of order: %v", floor, got)
		}
		// Equal keys come in no particular order of their cells.
		slices.SortFunc(got, func(a, b keyCell) int {
			if a.k != b.k {
				return cmp.Compare(a.k, b.k)
			}
			return cmp.Compare(a.c, b.c)
		})
		if !slices.Equal(got, want) {
			t.Fatalf("floor %#x: sorted %v\nwant %v", floor, got, want)
		}
	}
}

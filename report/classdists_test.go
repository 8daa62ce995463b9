package report

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedsim/schedsim/sim"
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
		waits := map[int][]float64{}
		bslds := map[int][]float64{}
		for i := range n {
			procs := 1 + rng.IntN(1<<rng.IntN(11))
			run := workload.Time(1 + rng.IntN(1<<rng.IntN(18)))
			var wait workload.Time
			if rng.Float64() >= zeroShare {
				wait = workload.Time(rng.IntN(1 << rng.IntN(20)))
			}
			j := &workload.Job{ID: int64(i), Submit: 1000, Procs: procs, Run: run, Estimate: run}
			m.JobDone(&sim.Record{Job: j, State: sim.Completed, Start: 1000 + wait, End: 1000 + wait + run})
			cell := uint8(SizeClass(procs)*NumRuntimeClasses + RuntimeClass(run))
			for _, c := range classesOf(cell) {
				waits[c] = append(waits[c], float64(wait))
				bslds[c] = append(bslds[c], BoundedSlowdown(wait, run))
			}
		}
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
			if g.Jobs != int64(len(waits[c])) {
				t.Fatalf("seed %d class %d: %d jobs, want %d", seed, c, g.Jobs, len(waits[c]))
			}
			w, b := naiveDist(waits[c]), naiveDist(bslds[c])
			if c == 0 {
				// The mean over all jobs is summed in report order.
				w.Mean, b.Mean = g.Wait.Mean, g.BoundedSlowdown.Mean
			}
			if g.Wait != w || g.BoundedSlowdown != b {
				t.Fatalf("seed %d class %d:\nwait %+v\nwant %+v\nbsld %+v\nwant %+v", seed, c, g.Wait, w, g.BoundedSlowdown, b)
			}
		}
		sorted := slices.Clone(waits[0])
		slices.Sort(sorted)
		ws := m.Waits()
		for i := range ws {
			if float64(ws[i]) != sorted[i] {
				t.Fatalf("seed %d: Waits()[%d] = %d, want %v", seed, i, ws[i], sorted[i])
			}
		}
	}
}

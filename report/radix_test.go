package report

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The radix sorts agree with slices.Sort on seeded random inputs of every
// shape: short (insertion sort), long, narrow and wide value ranges.
func TestRadixSorts(t *testing.T) {
	var scratch []uint64
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		n := r.IntN(3000)
		width := []int64{1, 300, 1 << 20, 1 << 62}[r.IntN(4)]
		ints := make([]int64, n)
		floats := make([]float64, n)
		for i := range ints {
			ints[i] = r.Int64N(width)
			floats[i] = 1 + r.Float64()*float64(width)
		}
		wantI, wantF := slices.Clone(ints), slices.Clone(floats)
		slices.Sort(wantI)
		slices.Sort(wantF)
		sortNonNegInt64(ints, &scratch)
		sortNonNegFloat64(floats, &scratch)
		if !slices.Equal(ints, wantI) {
			t.Fatalf("seed %d: ints not sorted like slices.Sort", seed)
		}
		if !slices.Equal(floats, wantF) {
			t.Fatalf("seed %d: floats not sorted like slices.Sort", seed)
		}
	}
}

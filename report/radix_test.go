package report

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// radixSortTagged agrees with a stable comparison sort on seeded random
// inputs of every shape: empty, short, long, narrow and wide key ranges,
// many equal keys (whose tags must keep their order).
func TestRadixSortTagged(t *testing.T) {
	type pair struct {
		k uint64
		t uint8
	}
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		n := r.IntN(3000)
		width := []uint64{1, 300, 1 << 20, 1 << 62}[r.IntN(4)]
		keys := make([]uint64, n)
		tags := make([]uint8, n)
		want := make([]pair, n)
		for i := range keys {
			keys[i], tags[i] = r.Uint64N(width), uint8(r.IntN(20))
			want[i] = pair{keys[i], tags[i]}
		}
		slices.SortStableFunc(want, func(a, b pair) int { return cmp.Compare(a.k, b.k) })
		radixSortTagged(keys, tags, make([]uint64, n), make([]uint8, n))
		for i := range want {
			if keys[i] != want[i].k || tags[i] != want[i].t {
				t.Fatalf("seed %d, n %d: position %d is (%d, %d), want (%d, %d)", seed, n, i, keys[i], tags[i], want[i].k, want[i].t)
			}
		}
	}
}

// radixSort agrees with a comparison sort on seeded random inputs of every
// shape: empty, short, long, narrow and wide key ranges, many equal keys.
func TestRadixSort(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 6))
		n := r.IntN(3000)
		width := []uint64{1, 300, 1 << 20, 1 << 62, math.MaxUint64}[r.IntN(5)]
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = r.Uint64N(width)
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		radixSort(keys, make([]uint64, n))
		if !slices.Equal(keys, want) {
			t.Fatalf("seed %d, n %d: %v, want %v", seed, n, keys, want)
		}
	}
}

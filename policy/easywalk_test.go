package policy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/internal/fastpath"
)

// mayBackfill is the test nextCandidate makes, on int64 values: a job that
// fits, has an estimate, and ends by the horizon or fits within lim.
func mayBackfill(q fastpath.Queued, free, lim int, horizon int64) bool {
	p, e := int64(q.Procs), int64(q.Est)
	return p <= int64(free) && e > 0 && (e <= horizon || p <= int64(lim))
}

// TestNextCandidate checks nextCandidate's 32-bit scan against the test on
// int64 values, at the edges of every field (estimates of 0, −1, the
// smallest and the largest int32; horizons of 0 and beyond 32 bits; lim
// below 0; free beyond 32 bits) and on random queues.
func TestNextCandidate(t *testing.T) {
	edgeEst := []int32{math.MinInt32, -1, 0, 1, 2, 99, 100, 101, math.MaxInt32 - 1, math.MaxInt32}
	edgeProcs := []int32{1, 2, 7, 8, 9, 1 << 20, math.MaxInt32}
	edgeFree := []int{0, 1, 8, 1 << 20, math.MaxInt32, math.MaxInt32 + 1, math.MaxInt}
	edgeLim := []int{-5, -1, 0, 1, 8, math.MaxInt32, math.MaxInt32 + 7}
	edgeHorizon := []int64{0, 1, 100, math.MaxInt32 - 1, math.MaxInt32, math.MaxInt32 + 1, math.MaxInt64 / 4}
	for _, est := range edgeEst {
		for _, procs := range edgeProcs {
			q := []fastpath.Queued{{Est: est, Procs: procs}}
			for _, free := range edgeFree {
				for _, lim := range edgeLim {
					for _, h := range edgeHorizon {
						want := 1
						if mayBackfill(q[0], free, lim, h) {
							want = 0
						}
						if got := nextCandidate(q, 0, free, lim, h); got != want {
							t.Fatalf("job %+v, free %d, lim %d, horizon %d: got %d, want %d", q[0], free, lim, h, got, want)
						}
					}
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 20000 {
		q := make([]fastpath.Queued, r.IntN(50))
		for k := range q {
			q[k] = fastpath.Queued{Est: edgeEst[r.IntN(len(edgeEst))], Procs: int32(1 + r.IntN(16))}
			if r.IntN(2) == 0 {
				q[k].Est = int32(r.IntN(300)) - 10
			}
		}
		free, lim, h := r.IntN(20), r.IntN(20)-2, int64(r.IntN(300))
		i := r.IntN(len(q) + 1)
		want := len(q)
		for k := i; k < len(q); k++ {
			if mayBackfill(q[k], free, lim, h) {
				want = k
				break
			}
		}
		if got := nextCandidate(q, i, free, lim, h); got != want {
			t.Fatalf("trial %d: queue %v from %d, free %d, lim %d, horizon %d: got %d, want %d", trial, q, i, free, lim, h, got, want)
		}
	}
}

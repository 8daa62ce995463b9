package sim

import (
	"math/rand/v2"
	"testing"
)

// roomIndex answers anyFits as a scan of the queued requests does, through
// random joins and departures, on machines whose sizes put requests on
// either side of a word of counts, with requests clamped at both ends.
func TestRoomIndexAnyFits(t *testing.T) {
	for _, size := range []int{1, 2, 63, 64, 65, 128, 1000} {
		r := rand.New(rand.NewPCG(uint64(size), 7))
		var x roomIndex
		x.reset(size)
		var queued []int
		for step := range 5000 {
			if len(queued) == 0 || r.IntN(3) > 0 {
				p := 1 + r.IntN(size)
				switch r.IntN(20) {
				case 0:
					p = 0 // counted as 1
				case 1:
					p = size + 5 // counted as size
				}
				queued = append(queued, p)
				x.add(p)
			} else {
				k := r.IntN(len(queued))
				x.remove(queued[k])
				queued = append(queued[:k], queued[k+1:]...)
			}
			for _, free := range []int{-1, 0, 1, r.IntN(size + 2), size, size + 10} {
				want := false
				for _, p := range queued {
					if min(max(p, 1), size) <= free {
						want = true
					}
				}
				if got := x.anyFits(free); got != want {
					t.Fatalf("size %d, step %d: anyFits(%d) = %v with requests %v, want %v", size, step, free, got, queued, want)
				}
			}
		}
	}
}

package policy

import (
	"math/rand/v2"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// firstAny and first over the whole index find the job a scan of every
// queued job finds: the first with procs ≤ free, and procs ≤ lim or
// estimate ≤ horizon. Jobs with small procs and long estimates next to
// jobs with large procs and short ones make nodes that pass without any
// job below them passing.
func TestFitIndexFirstAnyEqualsScan(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		var x fitIndex
		x.reset()
		n := 1 + r.IntN(3000)
		type q struct {
			procs int
			est   workload.Time
			live  bool
		}
		jobs := make([]q, n)
		for i := range jobs {
			jobs[i] = q{procs: 1 + r.IntN(64), est: workload.Time(r.IntN(1000)) - 50, live: true}
			x.add(&workload.Job{Seq: int64(i), Procs: jobs[i].procs, Estimate: jobs[i].est}, 0)
		}
		for range 200 {
			if k := r.IntN(n); jobs[k].live && r.IntN(3) == 0 {
				jobs[k].live = false
				x.remove(int64(k))
			}
			free := int32(r.IntN(70))
			lim := min(free, int32(r.IntN(70)))
			horizon := int64(r.IntN(1100)) - 50
			want := int64(-1)
			for i, j := range jobs {
				if j.live && j.est > 0 && int32(j.procs) <= free && (int32(j.procs) <= lim || int64(j.est) <= horizon) {
					want = int64(i)
					break
				}
			}
			if got := x.firstAny(free, lim, horizon); got != want {
				t.Fatalf("seed %d: firstAny(%d, %d, %d) = %d, want %d", seed, free, lim, horizon, got, want)
			}
			if got := x.first(0, int64(n-1), free, lim, horizon); got != want {
				t.Fatalf("seed %d: first(0, %d, %d, %d, %d) = %d, want %d", seed, n-1, free, lim, horizon, got, want)
			}
		}
	}
}

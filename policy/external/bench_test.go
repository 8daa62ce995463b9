package external_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/external"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// benchJobs are n jobs of 1 processor, one a second, each running 30 s,
// on a machine where all fit: every instant is a pass where the jobs
// submitted then start, and ends come with the later passes.
func benchJobs(n int) []workload.Job {
	jobs := make([]workload.Job, n)
	for i := range jobs {
		jobs[i] = workload.Job{Seq: int64(i), ID: int64(i + 1), Submit: workload.Time(i), Procs: 1, Run: 30, Estimate: 60}
	}
	return jobs
}

// BenchmarkProtocolPass measures the protocol's own cost per pass: a run
// whose program, a no-op scheduler, starts every job it is told of without
// decoding the message (fakePolicy's startall), against the same run under
// the built-in FCFS (its fastest of five runs). It reports ns/pass, the
// difference per pass: the encoding, the two pipes' round trip and the
// checks of the answer.
func BenchmarkProtocolPass(b *testing.B) {
	const n = 20000
	jobs := benchJobs(n)
	// The baseline is the fastest of a few runs: one run slowed by the
	// machine's other work would make the difference negative.
	base := time.Duration(1<<63 - 1)
	for range 5 {
		t0 := time.Now()
		builtin(b, policy.FCFS{}, jobs, 64)
		base = min(base, time.Since(t0))
	}
	b.ResetTimer()
	var passes int64
	for range b.N {
		_, p, err := runExternal(b, external.Config{Command: fakeCommand("startall")}, jobs, 64)
		if err != nil {
			b.Fatal(err)
		}
		passes += p.Passes()
	}
	el := b.Elapsed() - time.Duration(b.N)*base
	b.ReportMetric(float64(el.Nanoseconds())/float64(passes), "ns/pass")
	b.ReportMetric(float64(passes)/float64(b.N), "passes/run")
}

// BenchmarkPythonEASY replays LANL-CM5 (the reference input, norm) under
// the Python EASY example, end to end: the run's wall time is the
// benchmark's ns/op.
func BenchmarkPythonEASY(b *testing.B) {
	path := filepath.Join(sharedDir, "reference/inputs/norm/LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("skipping: %s not found (it sits beside the repository in CI)", path)
	}
	jobs, procs := simtest.ReadTrace(b, path)
	cmd := example(b, "easy")
	b.ResetTimer()
	for range b.N {
		_, p, err := runExternal(b, external.Config{Command: cmd}, jobs, procs)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(p.Passes()), "passes")
	}
}

package report

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// benchRec is what Metrics reads of a record, kept small so that a million
// of them fit in a benchmark's memory.
type benchRec struct {
	submit, start, end workload.Time
	procs              int32
	state              sim.State
}

// benchRecs holds the records of simulated runs, made once per size.
var benchRecs struct {
	sync.Mutex
	recs map[int][]benchRec
}

// recSink keeps the records of a run.
type recSink struct{ recs []benchRec }

func (s *recSink) JobDone(r *sim.Record) {
	s.recs = append(s.recs, benchRec{r.Job.Submit, r.Start, r.End, int32(r.Job.Procs), r.State})
}

func (s *recSink) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds} }

func (s *recSink) Observe(e *sim.Event) { s.JobDone(e.Record) }

// simulatedRecords returns the records, in report order, of n jobs of the
// Lublin–Feitelson model at 85 % offered load on 1024 processors run under
// EASY with a lookahead of 1000: realistic waits (about 40 % of them 0)
// and slowdowns, as a real run gives Metrics.
func simulatedRecords(b *testing.B, n int) []benchRec {
	b.Helper()
	benchRecs.Lock()
	defer benchRecs.Unlock()
	if r := benchRecs.recs[n]; r != nil {
		return r
	}
	sink := &recSink{recs: make([]benchRec, 0, n)}
	runLublin(b, n, sink)
	if benchRecs.recs == nil {
		benchRecs.recs = map[int][]benchRec{}
	}
	benchRecs.recs[n] = sink.recs
	return sink.recs
}

// BenchmarkMetrics feeds the records of a simulated run to a new Metrics,
// then takes its Summary and its Waits, as a run does at its end. It
// reports the wall time of each phase per run (jobdone-ms, summary-ms,
// waits-ms) and the CPU time the process spent in each (…-cpu-ms, where
// the platform tells): JobDone runs beside the engine, while Summary and
// Waits come after it, on the run's critical path.
func BenchmarkMetrics(b *testing.B) {
	for _, n := range []int{122_000, 1_000_000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			recs := simulatedRecords(b, n)
			var jobDone, summary, waits, jobDoneCPU, summaryCPU, waitsCPU time.Duration
			var job workload.Job
			r := sim.Record{Job: &job}
			b.ResetTimer()
			for range b.N {
				m := NewMetrics()
				t0, c0 := time.Now(), cpuTime()
				for i := range recs {
					x := &recs[i]
					job.Submit, job.Procs = x.submit, int(x.procs)
					r.State, r.Start, r.End = x.state, x.start, x.end
					m.JobDone(&r)
				}
				tj, cj := time.Now(), cpuTime()
				// As cmd/schedsim's run does before its summary of a large
				// run: collect the run's garbage, not the summary's.
				if n > 1<<18 {
					runtime.GC()
				}
				t1, c1 := time.Now(), cpuTime()
				m.Summary("t", "p", 1024, sim.Stats{}, workload.CleanStats{})
				t2, c2 := time.Now(), cpuTime()
				if w := m.Waits(); len(w) == 0 {
					b.Fatal("no waits")
				}
				t3, c3 := time.Now(), cpuTime()
				jobDone += tj.Sub(t0)
				summary += t2.Sub(t1)
				waits += t3.Sub(t2)
				jobDoneCPU += cj - c0
				summaryCPU += c2 - c1
				waitsCPU += c3 - c2
			}
			ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 / float64(b.N) }
			b.ReportMetric(ms(jobDone), "jobdone-ms")
			b.ReportMetric(ms(summary), "summary-ms")
			b.ReportMetric(ms(waits), "waits-ms")
			if cpuTime() > 0 {
				b.ReportMetric(ms(jobDoneCPU), "jobdone-cpu-ms")
				b.ReportMetric(ms(summaryCPU), "summary-cpu-ms")
				b.ReportMetric(ms(waitsCPU), "waits-cpu-ms")
			}
		})
	}
}

// runLublin runs n jobs of the Lublin–Feitelson model (seed 1) at 85 %
// offered load on 1024 processors under EASY with a lookahead of 1000, the
// run of issue #11 scaled down to n, and gives its records to obs.
func runLublin(b *testing.B, n int, obs sim.Observer) {
	b.Helper()
	var jobs []workload.Job
	err := workload.Generate(workload.GenConfig{Jobs: n, Procs: 1024, Seed: 1, Load: 0.85}, func(j *workload.Job) error {
		jobs = append(jobs, *j)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := sim.New(sim.Config{Procs: 1024, Policy: &policy.EASY{Lookahead: 1000}})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := eng.Run(&simtest.Source{Jobs: jobs}, obs); err != nil {
		b.Fatal(err)
	}
}

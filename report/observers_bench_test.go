package report

import (
	"io"
	"sync"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// runStream is what the engine gave its observer during a run: the
// records (each with its own copy of the job and the processors) and the
// samples, and in which order they came.
type runStream struct {
	isRec   []bool
	recs    []sim.Record
	samples []sim.Sample
}

// streamSink keeps a run's stream.
type streamSink struct {
	s      *runStream
	jobs   []workload.Job
	allocs []cluster.Range
}

func (k *streamSink) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.RecordKinds | sim.KindsOf(sim.EventSampled)}
}

func (k *streamSink) Observe(e *sim.Event) {
	if e.Kind == sim.EventSampled {
		k.Sample(e.Sample)
		return
	}
	k.JobDone(e.Record)
}

func (k *streamSink) JobDone(r *sim.Record) {
	k.jobs = append(k.jobs, *r.Job)
	c := *r
	c.Alloc = append(k.allocs[len(k.allocs):len(k.allocs)], r.Alloc...)
	k.allocs = k.allocs[:len(k.allocs)+len(r.Alloc)]
	k.s.recs = append(k.s.recs, c)
	k.s.isRec = append(k.s.isRec, true)
}

func (k *streamSink) Sample(s *sim.Sample) {
	k.s.samples = append(k.s.samples, *s)
	k.s.isRec = append(k.s.isRec, false)
}

// replay hands the stream to obs, in order, as the engine does: the
// events of the kinds it wants.
func (s *runStream) replay(obs sim.Observer) {
	r, m := 0, 0
	kinds := obs.Wants().Kinds
	var e sim.Event
	for _, isRec := range s.isRec {
		if isRec {
			sim.RecordEvent(&e, &s.recs[r])
			if kinds.Has(e.Kind) {
				obs.Observe(&e)
			}
			r++
		} else {
			if kinds.Has(sim.EventSampled) {
				x := &s.samples[m]
				e = sim.Event{Kind: sim.EventSampled, Time: x.Time, Sample: x, Samples: s.samples[m : m+1 : m+1]}
				obs.Observe(&e)
			}
			m++
		}
	}
}

var benchStreams struct {
	sync.Mutex
	m map[int]*runStream
}

// simulatedStream returns the stream of a run of n jobs of the
// Lublin–Feitelson model at 85 % offered load on 1024 processors under
// EASY with a lookahead of 1000, the run of issue #11 (scaled down to n).
func simulatedStream(b *testing.B, n int) *runStream {
	b.Helper()
	benchStreams.Lock()
	defer benchStreams.Unlock()
	if s := benchStreams.m[n]; s != nil {
		return s
	}
	s := &runStream{}
	sink := &streamSink{s: s, jobs: make([]workload.Job, 0, n), allocs: make([]cluster.Range, 0, 4*n)}
	runLublin(b, n, sink)
	if len(sink.jobs) != n || cap(sink.jobs) != n {
		b.Fatalf("%d records for %d jobs", len(sink.jobs), n)
	}
	for i := range s.recs {
		s.recs[i].Job = &sink.jobs[i]
	}
	if benchStreams.m == nil {
		benchStreams.m = map[int]*runStream{}
	}
	benchStreams.m[n] = s
	return s
}

// nopObserver takes records and samples and does nothing.
type nopObserver struct{}

func (nopObserver) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.RecordKinds | sim.KindsOf(sim.EventSampled)}
}
func (nopObserver) Observe(*sim.Event) {}

// BenchmarkRunObservers replays a simulated run to what `schedsim run`
// observes it with: a Metrics, a TimeSeries and a JobsCSV (to io.Discard),
// called directly ("direct", the observers' goroutine's work), then to an
// Async over an observer that does nothing ("handover", what Async costs
// the engine's goroutine, with the observers' goroutine's share of it).
// Each op is one run of 100,000 jobs.
func BenchmarkRunObservers(b *testing.B) {
	const n = 100_000
	s := simulatedStream(b, n)
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			m := NewMetrics()
			ts := NewTimeSeries(1024, DefaultSeriesPoints)
			c := NewJobsCSV(io.Discard, "l085.swf")
			s.replay(Observers{m, ts, c})
			if err := c.Flush(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/job")
	})
	for _, part := range []string{"jobscsv", "metrics", "timeseries"} {
		b.Run(part, func(b *testing.B) {
			for range b.N {
				switch part {
				case "jobscsv":
					c := NewJobsCSV(io.Discard, "l085.swf")
					s.replay(c)
					c.Flush()
				case "metrics":
					s.replay(NewMetrics())
				case "timeseries":
					ts := NewTimeSeries(1024, DefaultSeriesPoints)
					s.replay(ts)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/job")
		})
	}
	b.Run("handover", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			a := NewAsync(Observers{nopObserver{}})
			s.replay(a)
			a.Close()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/job")
	})
}

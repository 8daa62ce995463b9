package report

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// tinySamples are the engine's samples for tinyRun (8 processors), one per
// instant, including instants where nothing visible changed (the rejection
// at 20).
func tinySamples() []sim.Sample {
	return []sim.Sample{
		{Time: 0, Busy: 4, Running: 1},
		{Time: 5, Busy: 6, Running: 2},
		{Time: 10, Busy: 6, Running: 2, Queued: 1, QueuedProcs: 5},
		{Time: 20, Busy: 6, Running: 2, Queued: 1, QueuedProcs: 5},
		{Time: 30, Busy: 6, Running: 2, Queued: 2, QueuedProcs: 6},
		{Time: 50, Busy: 6, Running: 2, Queued: 3, QueuedProcs: 14},
		{Time: 100, Busy: 8, Running: 3, Queued: 1, QueuedProcs: 8},
		{Time: 105, Busy: 7, Running: 2, Queued: 1, QueuedProcs: 8},
		{Time: 460, Busy: 2, Running: 1, Queued: 1, QueuedProcs: 8},
		{Time: 1005, Busy: 8, Running: 1},
		{Time: 1015},
	}
}

func feed(ts *TimeSeries, samples []sim.Sample) {
	for i := range samples {
		ts.Sample(&samples[i])
	}
}

// TestTimeSeriesExact checks that a short run is recorded exactly, on
// change only, with its loss of capacity worked out by hand:
//
//	[10,30) 2 idle, 5–6 asked → 2·20; [30,50) 2·20; [50,100) 2·50;
//	[105,460) 1 idle → 1·355; [460,1005) 6 idle, 8 asked → 6·545.
//	Total 40+40+100+355+3270 = 3805 processor-seconds.
func TestTimeSeriesExact(t *testing.T) {
	ts := NewTimeSeries(tinyProcs, 64)
	feed(ts, tinySamples())
	if ts.Width() != 1 {
		t.Fatalf("width %d, want 1 (exact)", ts.Width())
	}
	if ts.Samples() != 11 || ts.Changes() != 10 {
		t.Errorf("samples %d, changes %d; want 11, 10 (the sample at 20 repeats)", ts.Samples(), ts.Changes())
	}
	pts := ts.Points(nil)
	if len(pts) != 10 {
		t.Fatalf("%d points, want 10", len(pts))
	}
	for i, s := range tinySamples() {
		if s.Time == 20 {
			continue
		}
		k := i
		if s.Time > 20 {
			k--
		}
		v := Values{int64(s.Busy), int64(s.Running), int64(s.Queued), s.QueuedProcs}
		p := pts[k]
		if p.T != s.Time || p.Last != v || p.Min != v || p.Max != v {
			t.Errorf("point %d = %+v, want time %d values %v", k, p, s.Time, v)
		}
		for q := range v {
			if p.Mean[q] != float64(v[q]) {
				t.Errorf("point %d mean %v, want %v", k, p.Mean, v)
			}
		}
	}
	if got := ts.LossProcSec(); got != 3805 {
		t.Errorf("loss of capacity %d processor-s, want 3805", got)
	}
	var s Summary
	s.Procs, s.MakespanSec = tinyProcs, 1015
	ts.AddTo(&s)
	if s.LossOfCapacityProcSec != 3805 || s.LossOfCapacity != 3805.0/(8*1015) {
		t.Errorf("AddTo: %d, %v", s.LossOfCapacityProcSec, s.LossOfCapacity)
	}
	// The segments are the exact step function: busy integrates to the
	// processor-seconds of tinyRun (4285).
	var area float64
	for _, g := range ts.Segments(nil) {
		area += g.Level[Busy] * float64(g.To-g.From)
	}
	if area != 4285 {
		t.Errorf("∫ busy = %v, want 4285", area)
	}
}

// randomSamples returns n samples of a random walk, some repeated, at
// random gaps (seeded).
func randomSamples(seed uint64, n int) []sim.Sample {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]sim.Sample, n)
	var s sim.Sample
	s.Time = 1000
	for i := range out {
		s.Time += workload.Time(1 + r.IntN(100)*r.IntN(3))
		if r.IntN(4) > 0 {
			s.Busy = r.IntN(65)
			s.Running = r.IntN(10)
			s.Queued = r.IntN(30)
			s.QueuedProcs = int64(r.IntN(500))
		}
		out[i] = s
	}
	return out
}

// valueAt returns the samples' step function at time t (the last sample at
// or before t).
func valueAt(samples []sim.Sample, t workload.Time) Values {
	i := sort.Search(len(samples), func(i int) bool { return samples[i].Time > t })
	if i == 0 {
		return Values{}
	}
	s := samples[i-1]
	return Values{int64(s.Busy), int64(s.Running), int64(s.Queued), s.QueuedProcs}
}

// TestTimeSeriesBounded is an oracle test: after many merges, the points
// stay under the bound, and each bucket's mean, min, max and last equal a
// brute-force computation over the raw samples on the final grid.
func TestTimeSeriesBounded(t *testing.T) {
	for _, tc := range []struct {
		name      string
		seed      uint64
		n, bound  int
		wantWider bool
	}{
		{"fits", 1, 30, 64, false},
		{"merges", 2, 3000, 64, true},
		{"odd bound", 3, 5000, 37, true},
		{"tiny bound", 4, 2000, 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			samples := randomSamples(tc.seed, tc.n)
			ts := NewTimeSeries(64, tc.bound)
			feed(ts, samples)
			pts := ts.Points(nil)
			if len(pts) > tc.bound {
				t.Fatalf("%d points, bound %d", len(pts), tc.bound)
			}
			if (ts.Width() > 1) != tc.wantWider {
				t.Fatalf("width %d", ts.Width())
			}
			w := ts.Width()
			origin := samples[0].Time
			end := samples[len(samples)-1].Time
			for i, p := range pts {
				if (p.T-origin)%w != 0 {
					t.Fatalf("point %d at %d off the grid (origin %d, width %d)", i, p.T, origin, w)
				}
				be := min(p.T+w, end)
				var sum [NumSeries]float64
				lo, hi := valueAt(samples, p.T), valueAt(samples, p.T)
				for x := p.T; x < be; x++ {
					v := valueAt(samples, x)
					for q := range v {
						sum[q] += float64(v[q])
						lo[q], hi[q] = min(lo[q], v[q]), max(hi[q], v[q])
					}
				}
				last := valueAt(samples, p.T+w-1)
				if i == len(pts)-1 {
					last = valueAt(samples, end)
					lo2, hi2 := lo, hi
					for q := range last {
						lo2[q], hi2[q] = min(lo[q], last[q]), max(hi[q], last[q])
					}
					lo, hi = lo2, hi2
				}
				if p.Last != last || p.Min != lo || p.Max != hi {
					t.Fatalf("point %d (T %d): last %v min %v max %v; brute force %v %v %v", i, p.T, p.Last, p.Min, p.Max, last, lo, hi)
				}
				if be > p.T {
					for q := range sum {
						want := sum[q] / float64(be-p.T)
						if i < len(pts)-1 {
							want = sum[q] / float64(w)
						}
						if math.Abs(p.Mean[q]-want) > 1e-9*max(1, want) {
							t.Fatalf("point %d (T %d) mean[%d] = %v, brute force %v", i, p.T, q, p.Mean[q], want)
						}
					}
				}
			}
			// The integral over the segments equals the exact one.
			var exact, got float64
			for i := 0; i+1 < len(samples); i++ {
				exact += float64(samples[i].Busy) * float64(samples[i+1].Time-samples[i].Time)
			}
			for _, g := range ts.Segments(nil) {
				got += g.Level[Busy] * float64(g.To-g.From)
			}
			if math.Abs(got-exact) > 1e-6*exact {
				t.Errorf("∫ busy over segments %v, exact %v", got, exact)
			}
		})
	}
}

// TestTimeSeriesLossOracle checks LossProcSec against a direct sum.
func TestTimeSeriesLossOracle(t *testing.T) {
	samples := randomSamples(9, 5000)
	ts := NewTimeSeries(64, 16)
	feed(ts, samples)
	var want int64
	for i := 0; i+1 < len(samples); i++ {
		s := samples[i]
		want += min(int64(64-s.Busy), s.QueuedProcs) * int64(samples[i+1].Time-s.Time)
	}
	if got := ts.LossProcSec(); got != want {
		t.Errorf("loss %d, want %d", got, want)
	}
}

// The sampler must not allocate once the bound is reached.
func TestTimeSeriesNoAllocs(t *testing.T) {
	samples := randomSamples(5, 20000)
	ts := NewTimeSeries(64, 256)
	feed(ts, samples[:10000])
	i := 10000
	allocs := testing.AllocsPerRun(5000, func() {
		ts.Sample(&samples[i])
		i++
	})
	if allocs != 0 {
		t.Errorf("Sample allocates %v times per call in steady state", allocs)
	}
}

func TestResample(t *testing.T) {
	ts := NewTimeSeries(tinyProcs, 64)
	feed(ts, tinySamples())
	for _, tc := range []struct {
		name     string
		from, to workload.Time
		n        int
		want     []float64
	}{
		// [0,5) 4, [5,100) 6, [100,105) 8, [105,460) 7, [460,1005) 2, [1005,1015) 8.
		{"one bin", 0, 1015, 1, []float64{4285.0 / 1015}},
		{"two bins", 0, 200, 2, []float64{(4*5 + 6*95) / 100.0, (8*5 + 7*95) / 100.0}},
		{"past the end holds the last value", 1005, 1025, 2, []float64{8, 0}},
		{"empty", 5, 5, 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ts.Resample(Busy, tc.from, tc.to, tc.n)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-12 {
					t.Errorf("bin %d: got %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// syntheticJobs returns n seeded random jobs for a machine of procs.
func syntheticJobs(seed uint64, n, procs int) []workload.Job {
	r := rand.New(rand.NewPCG(seed, 2))
	jobs := make([]workload.Job, n)
	var t workload.Time
	for i := range jobs {
		t += workload.Time(r.ExpFloat64() * 90)
		run := workload.Time(1 + r.IntN(5000))
		est := run + workload.Time(r.IntN(5000)) - 500
		if est < 1 {
			est = 1
		}
		p := 1 << r.IntN(7)
		if r.IntN(50) == 0 {
			p = procs + 1 // rejected
		}
		jobs[i] = workload.Job{Seq: int64(i), ID: int64(i + 1), Submit: t, Procs: p, Run: run, Estimate: est}
	}
	return jobs
}

// simulateTo runs the jobs under EASY on procs processors into obs.
func simulateTo(t *testing.T, jobs []workload.Job, procs int, obs sim.Observer) sim.Stats {
	t.Helper()
	pol, err := policy.New(policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.DefaultLookahead, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := sim.New(sim.Config{Procs: procs, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	st, err := eng.Run(&simtest.Source{Jobs: jobs}, obs)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSeriesFromJobsCSV checks that the series ReadRunDir rebuilds from
// jobs.csv equals the one the engine's samples gave, exact and bucketed.
func TestSeriesFromJobsCSV(t *testing.T) {
	const procs = 64
	for _, bound := range []int{100000, 128} {
		jobs := syntheticJobs(7, 3000, procs)
		var csv bytes.Buffer
		w := NewJobsCSV(&csv, "synthetic")
		m := NewMetrics()
		ts := NewTimeSeries(procs, bound)
		st := simulateTo(t, jobs, procs, Observers{m, ts, w})
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		s := m.Summary("synthetic", "easy", procs, st, workload.CleanStats{})
		ts.AddTo(&s)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "jobs.csv"), csv.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var js bytes.Buffer
		if err := WriteSummaryJSON(&js, &s); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "summary.json"), js.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadRunDir(dir, bound)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Summary, s) {
			t.Errorf("bound %d: summary.json round trip differs", bound)
		}
		if got, want := r.Series.Points(nil), ts.Points(nil); !equalPoints(got, want) {
			t.Errorf("bound %d: rebuilt series (%d points, width %d) differs from the engine's (%d points, width %d)",
				bound, len(got), r.Series.Width(), len(want), ts.Width())
		}
		if r.Series.LossProcSec() != ts.LossProcSec() {
			t.Errorf("bound %d: loss %d rebuilt, %d recorded", bound, r.Series.LossProcSec(), ts.LossProcSec())
		}
		if w := m.Waits(); !slicesEqual(r.Waits, w) {
			t.Errorf("bound %d: waits differ", bound)
		}
	}
}

func equalPoints(a, b []Point) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReadRunDirErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadRunDir(dir, 64); !errors.Is(err, ErrNotResultDir) {
		t.Errorf("empty dir: %v, want ErrNotResultDir", err)
	}
	os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"procs": 8}`), 0o644)
	os.WriteFile(filepath.Join(dir, "jobs.csv"), []byte("job_id,submission_time\n1,0\n"), 0o644)
	if _, err := ReadRunDir(dir, 64); err == nil || !strings.Contains(err.Error(), "no column") {
		t.Errorf("missing column: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "jobs.csv"), []byte(jobsCSVHeader+"1,w,delay,0,4,-1,1,COMPLETED_SUCCESSFULLY,5x,1,6,5,6,1,0-3,-1,\n"), 0o644)
	if _, err := ReadRunDir(dir, 64); err == nil || !strings.Contains(err.Error(), "jobs.csv:2") {
		t.Errorf("bad number: %v, want the line named", err)
	}
}

func BenchmarkTimeSeriesSample(b *testing.B) {
	samples := randomSamples(6, 1<<16)
	ts := NewTimeSeries(64, DefaultSeriesPoints)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := samples[i&(len(samples)-1)]
		s.Time += workload.Time(i>>16) * 10_000_000 // keep time moving forward
		ts.Sample(&s)
	}
}

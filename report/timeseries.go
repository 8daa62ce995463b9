package report

import (
	"slices"
	"sync"

	"gonum.org/v1/plot/plotter"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// Series names one quantity a TimeSeries records.
type Series int

// The quantities a TimeSeries records, from sim.Sample.
const (
	// Busy is the number of processors allocated.
	Busy Series = iota
	// Running is the number of running jobs.
	Running
	// Queued is the number of waiting jobs.
	Queued
	// QueuedProcs is the number of processors the waiting jobs ask for.
	QueuedProcs
	// Unavailable is the number of idle processors out of service, on down
	// or drained nodes (sim.Config.NodeEvents).
	Unavailable
	// NumSeries is the number of quantities.
	NumSeries
)

// DefaultSeriesPoints is the bound on a TimeSeries' points that the command
// line uses: enough for a plot several thousand pixels wide.
const DefaultSeriesPoints = 4096

// Values holds one value per Series.
type Values [NumSeries]int64

// Point is one bucket of a TimeSeries: the interval [T, T+Width) of
// simulated time, with Width the series' bucket width.
type Point struct {
	// T is the start of the bucket.
	T workload.Time
	// Mean is each quantity's time-weighted mean over the bucket. Over the
	// last bucket it is the mean up to the series' end.
	Mean [NumSeries]float64
	// Min and Max are each quantity's extremes within the bucket.
	Min, Max Values
	// Last is each quantity's value at the end of the bucket; it holds until
	// the next point's T.
	Last Values
}

// TimeSeries is a sim.Observer of samples that records, in bounded
// memory, how the machine and the queue evolved: the processors busy, the
// jobs running, the jobs queued and the processors they ask for.
//
// It records on change: a sample equal to the previous one is dropped. The
// samples are kept in buckets of a common width on a grid starting at the
// first sample. The width starts at one second, where each bucket holds at
// most one sample (the engine samples once per instant), so a run with fewer
// changes than the bound is recorded exactly. A bucket is stored only if a
// change happened in it; between stored buckets the values stay at the
// previous bucket's Last. When the stored buckets would exceed the bound, the
// width doubles and each pair of neighbouring buckets merges into one, which
// keeps each bucket's time-weighted mean (so the integral of every quantity is
// preserved), its minimum, maximum and last value. The merge depends only on
// the samples, so the result is deterministic, and it costs O(bound) once per
// doubling: O(1) amortised per sample, with no allocation once the bound is
// reached.
//
// Besides the buckets it integrates, exactly and over every sample, the loss
// of capacity (LossProcSec).
type TimeSeries struct {
	procs     int64
	maxPoints int

	started bool
	origin  workload.Time // time of the first sample
	width   workload.Time // bucket width, a power of two seconds
	shift   uint          // log2(width): a sample's bucket is its offset >> shift
	closed  []bucket      // stored buckets before the open one, by index
	open    bucket        // the bucket of the latest change
	cur     Values        // values since lastT
	lastT   workload.Time // time of the latest change
	end     workload.Time // time of the latest sample

	samples, changes int64
	loss             int64 // ∫ min(idle in service, queued procs) dt, processor-seconds
	unavail          int64 // ∫ unavailable dt, processor-seconds

	// journaled is how many closed buckets the journal holds (Journal),
	// at bucket width journalWidth.
	journaled    int
	journalWidth workload.Time

	// segs caches segments(false) and segments(true) once the run is over:
	// every plot and hover table of a run reads them. A sample clears it.
	segMu sync.Mutex
	segs  [2][]Segment
	// xys caches the step lines the figures draw of the segments
	// (cachedStepXYs), cleared with segs: the figures built for the SVG
	// files and those for the PNG files draw the same.
	xyMu sync.Mutex
	xys  map[stepKey]plotter.XYs
}

// bucket is a stored bucket: k is its index on the grid, sum each quantity's
// integral over the bucket (over [start, lastT) for the open bucket).
type bucket struct {
	k              int64
	sum            [NumSeries]float64
	min, max, last Values
}

var _ sim.Observer = (*TimeSeries)(nil)

// NewTimeSeries returns an empty TimeSeries for a machine of procs
// processors that stores at most maxPoints points. It panics if maxPoints is
// below 4 (two buckets to merge and one open) or procs below 1.
func NewTimeSeries(procs, maxPoints int) *TimeSeries {
	if maxPoints < 4 {
		panic("report: NewTimeSeries needs maxPoints ≥ 4")
	}
	if procs < 1 {
		panic("report: NewTimeSeries needs procs ≥ 1")
	}
	return &TimeSeries{procs: int64(procs), maxPoints: maxPoints, width: 1}
}

// Wants implements sim.Observer: the samples, in batches (a TimeSeries
// learns from samples only).
func (ts *TimeSeries) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.KindsOf(sim.EventSampled), JobHead: true, SampleBatches: true}
}

// Observe implements sim.Observer: SampleBatch with the event's samples.
func (ts *TimeSeries) Observe(e *sim.Event) { ts.SampleBatch(e.Samples) }

// Sample records the state after one instant. Samples must come in time
// order, as the engine gives them.
func (ts *TimeSeries) Sample(s *sim.Sample) { ts.SampleBatch([]sim.Sample{*s}) }

// SampleBatch records samples ss in turn, as Sample does each
// (Wants.SampleBatches): Async hands a TimeSeries a batch's samples in
// one event. While it runs, the open
// bucket's last value is ts.cur, set in the bucket when it closes and on
// return (rather than at every sample).
func (ts *TimeSeries) SampleBatch(ss []sim.Sample) {
	if ts.segs[0] != nil || ts.segs[1] != nil {
		ts.segMu.Lock()
		ts.segs = [2][]Segment{}
		ts.segMu.Unlock()
	}
	if ts.xys != nil {
		ts.xyMu.Lock()
		ts.xys = nil
		ts.xyMu.Unlock()
	}
	c := &ts.cur
	for i := range ss {
		s := &ss[i]
		// The values one by one, in registers rather than a Values.
		v0, v1, v2, v3, v4 := int64(s.Busy), int64(s.Running), int64(s.Queued), s.QueuedProcs, int64(s.Unavailable)
		t := s.Time
		ts.samples++
		if !ts.started {
			v := Values{v0, v1, v2, v3, v4}
			ts.started = true
			ts.origin, ts.lastT, ts.end, ts.cur = t, t, t, v
			ts.open = bucket{min: v, max: v, last: v}
			ts.changes++
			continue
		}
		if t < ts.end {
			panic("report: TimeSeries samples out of time order")
		}
		ts.end = t
		if v0 == c[0] && v1 == c[1] && v2 == c[2] && v3 == c[3] && v4 == c[4] {
			continue // v == ts.cur
		}
		ts.changes++
		dt := int64(t - ts.lastT)
		ts.loss += min(ts.procs-c[Busy]-c[Unavailable], c[QueuedProcs]) * dt
		ts.unavail += c[Unavailable] * dt
		// The width is a power of two and t ≥ origin: a shift divides.
		k := int64(t-ts.origin) >> (ts.shift & 63) // the mask spares the compiler's check
		if k == ts.open.k {
			// Most samples stay in the open bucket: each quantity written
			// out, with no loop.
			b, fdt := &ts.open, float64(dt)
			b.add(0, c[0], v0, fdt)
			b.add(1, c[1], v1, fdt)
			b.add(2, c[2], v2, fdt)
			b.add(3, c[3], v3, fdt)
			b.add(4, c[4], v4, fdt)
		} else {
			v := Values{v0, v1, v2, v3, v4}
			b := &ts.open
			b.last = *c
			end := ts.origin + workload.Time(b.k+1)*ts.width
			for i := range v {
				b.sum[i] += float64(c[i]) * float64(end-ts.lastT)
			}
			ts.closed = append(ts.closed, *b)
			start := ts.origin + workload.Time(k)*ts.width
			*b = bucket{k: k, min: v, max: v, last: v}
			if t > start { // the previous values held from the bucket's start
				for i := range v {
					b.sum[i] = float64(c[i]) * float64(t-start)
					b.min[i] = min(v[i], c[i])
					b.max[i] = max(v[i], c[i])
				}
			}
			if len(ts.closed)+1 > ts.maxPoints {
				ts.double()
			}
		}
		c[0], c[1], c[2], c[3], c[4] = v0, v1, v2, v3, v4
		ts.lastT = t
	}
	ts.open.last = *c
}

// Sample writes out each of the NumSeries = 5 quantities: these fail to
// compile if that changes.
var (
	_ [NumSeries - 5]struct{}
	_ [5 - NumSeries]struct{}
)

// add adds to b quantity i's integral over dt seconds at value prev, and
// its new value x to its extremes.
func (b *bucket) add(i int, prev, x int64, dt float64) {
	b.sum[i] += float64(prev) * dt
	b.min[i] = min(b.min[i], x)
	b.max[i] = max(b.max[i], x)
}

// double doubles the bucket width, merging neighbouring buckets in place,
// until the stored buckets fit in half the bound.
func (ts *TimeSeries) double() {
	for {
		ts.merge()
		if len(ts.closed)+1 <= ts.maxPoints/2 {
			return
		}
	}
}

// merge doubles the bucket width once.
func (ts *TimeSeries) merge() {
	w := float64(ts.width)
	implicit := func(v Values) bucket {
		b := bucket{min: v, max: v, last: v}
		for i := range v {
			b.sum[i] = float64(v[i]) * w
		}
		return b
	}
	join := func(a, b bucket) bucket {
		m := bucket{last: b.last}
		for i := range m.sum {
			m.sum[i] = a.sum[i] + b.sum[i]
			m.min[i] = min(a.min[i], b.min[i])
			m.max[i] = max(a.max[i], b.max[i])
		}
		return m
	}
	out := ts.closed[:0]
	var prev Values // Last of the previous old bucket
	openDone := false
	for i := 0; i < len(ts.closed); {
		a := ts.closed[i]
		j := a.k / 2
		var m bucket
		switch {
		case a.k%2 == 1:
			m = join(implicit(prev), a)
			i++
		case i+1 < len(ts.closed) && ts.closed[i+1].k == a.k+1:
			m = join(a, ts.closed[i+1])
			i += 2
		case ts.open.k == a.k+1:
			// The partner is the open bucket: the merged bucket stays open.
			ts.open = join(a, ts.open)
			ts.open.k = j
			openDone = true
			i++
			continue
		default:
			m = join(a, implicit(a.last))
			i++
		}
		m.k = j
		prev = m.last
		out = append(out, m)
	}
	if !openDone {
		j := ts.open.k / 2
		if ts.open.k%2 == 1 {
			ts.open = join(implicit(prev), ts.open)
		}
		ts.open.k = j
	}
	ts.closed = out
	ts.width *= 2
	ts.shift++
}

// Width returns the current bucket width, in seconds.
func (ts *TimeSeries) Width() workload.Time { return ts.width }

// Start returns the time of the first sample.
func (ts *TimeSeries) Start() workload.Time { return ts.origin }

// End returns the time of the last sample.
func (ts *TimeSeries) End() workload.Time { return ts.end }

// Procs returns the machine size the series was made for.
func (ts *TimeSeries) Procs() int { return int(ts.procs) }

// Samples returns the number of samples received.
func (ts *TimeSeries) Samples() int64 { return ts.samples }

// Changes returns the number of samples that differed from the previous one.
func (ts *TimeSeries) Changes() int64 { return ts.changes }

// LossProcSec returns the loss of capacity in processor-seconds: the
// integral over the run of min(P − busy(t), queued(t)), where P is the
// machine size, busy(t) the processors allocated and queued(t) the
// processors the waiting jobs ask for, in all. At each instant it counts the
// idle processors that the waiting jobs could have occupied: all idle
// processors while the queue asks for more than are idle (the common case of
// a blocked head, where this is Zhang et al.'s loss of capacity), and only as
// many as the queue asks for otherwise. The engine's state after each
// instant's scheduling pass holds until the next instant.
func (ts *TimeSeries) LossProcSec() int64 { return ts.loss }

// UnavailableProcSec returns the integral of the Unavailable quantity over
// the series: the processor-seconds that idle processors spent out of
// service (0 without node events).
func (ts *TimeSeries) UnavailableProcSec() int64 { return ts.unavail }

// AddTo sets the loss of capacity in s, which must be the summary of the
// same run (for its Procs and MakespanSec).
func (ts *TimeSeries) AddTo(s *Summary) {
	s.LossOfCapacityProcSec = ts.loss
	if s.MakespanSec > 0 && s.Procs > 0 {
		s.LossOfCapacity = float64(ts.loss) / (float64(s.Procs) * float64(s.MakespanSec))
	}
}

// Points appends the stored buckets to dst, in time order, and returns it.
// Between a point's bucket end (T + Width) and the next point's T the
// quantities stay at the point's Last. The series ends at End.
func (ts *TimeSeries) Points(dst []Point) []Point {
	if !ts.started {
		return dst
	}
	w := float64(ts.width)
	dst = slices.Grow(dst, len(ts.closed)+1)
	for _, b := range ts.closed {
		p := Point{T: ts.origin + workload.Time(b.k)*ts.width, Min: b.min, Max: b.max, Last: b.last}
		for i := range p.Mean {
			p.Mean[i] = b.sum[i] / w
		}
		dst = append(dst, p)
	}
	b := ts.open
	p := Point{T: ts.origin + workload.Time(b.k)*ts.width, Min: b.min, Max: b.max, Last: b.last}
	span := float64(ts.end - p.T)
	for i := range p.Mean {
		if span > 0 {
			p.Mean[i] = (b.sum[i] + float64(b.last[i])*float64(ts.end-ts.lastT)) / span
		} else {
			p.Mean[i] = float64(b.last[i])
		}
	}
	return append(dst, p)
}

// Segment is a stretch [From, To) of simulated time over which the series
// is drawn at a constant level: a bucket's Mean, or the Last value carried
// between stored buckets.
type Segment struct {
	From, To workload.Time
	Level    [NumSeries]float64
}

// Segments appends the series as constant segments covering [Start, End) to
// dst and returns it. A run recorded exactly (Width 1) yields its exact step
// function, one or two segments per change.
func (ts *TimeSeries) Segments(dst []Segment) []Segment {
	return append(dst, ts.cachedSegments(false)...)
}

// MaxSegments is like Segments with each bucket drawn at its Max instead of
// its Mean: the envelope of the peaks that bucketing averages away.
func (ts *TimeSeries) MaxSegments(dst []Segment) []Segment {
	return append(dst, ts.cachedSegments(true)...)
}

// cachedSegments returns segments(nil, peak), computed once per series
// state; the caller must not modify it. It is safe to call from several
// goroutines once sampling is over.
func (ts *TimeSeries) cachedSegments(peak bool) []Segment {
	i := 0
	if peak {
		i = 1
	}
	ts.segMu.Lock()
	defer ts.segMu.Unlock()
	if ts.segs[i] == nil {
		ts.segs[i] = ts.segments(make([]Segment, 0, 2*(len(ts.closed)+1)), peak)
	}
	return ts.segs[i]
}

func (ts *TimeSeries) segments(dst []Segment, peak bool) []Segment {
	pts := ts.Points(nil)
	for i, p := range pts {
		next := ts.end
		if i+1 < len(pts) {
			next = pts[i+1].T
		}
		bend := min(p.T+ts.width, next)
		if bend > p.T {
			level := p.Mean
			if peak {
				for k := range level {
					level[k] = float64(p.Max[k])
				}
			}
			dst = append(dst, Segment{From: p.T, To: bend, Level: level})
		}
		if next > bend {
			var l [NumSeries]float64
			for k := range l {
				l[k] = float64(p.Last[k])
			}
			dst = append(dst, Segment{From: bend, To: next, Level: l})
		}
	}
	return dst
}

// Resample returns the time-weighted mean of quantity s over n equal bins
// covering [from, to), computed from the segments. A bin outside [Start, End)
// has the value the series has at its nearest end. It returns nil if n < 1 or
// to ≤ from.
func (ts *TimeSeries) Resample(s Series, from, to workload.Time, n int) []float64 {
	if n < 1 || to <= from || !ts.started {
		return nil
	}
	out := make([]float64, n)
	width := float64(to-from) / float64(n)
	segs := ts.cachedSegments(false)
	if len(segs) == 0 {
		pts := ts.Points(nil)
		for i := range out {
			out[i] = float64(pts[len(pts)-1].Last[s])
		}
		return out
	}
	// Extend the first segment back to from, and hold the final values from
	// End to to.
	first := segs[0]
	first.From = min(first.From, from)
	segs = segs[1:]
	var last []Segment
	if to > ts.end {
		var l [NumSeries]float64
		for k := range l {
			l[k] = float64(ts.cur[k])
		}
		last = []Segment{{From: ts.end, To: to, Level: l}}
	}
	ms := [][]Segment{{first}, segs, last}
	for _, part := range ms {
		for _, g := range part {
			a, b := float64(g.From-from), float64(g.To-from)
			lo := max(int(a/width), 0)
			for i := lo; i < n; i++ {
				bs, be := float64(i)*width, float64(i+1)*width
				if bs >= b {
					break
				}
				if ov := min(be, b) - max(bs, a); ov > 0 {
					out[i] += g.Level[s] * ov
				}
			}
		}
	}
	for i := range out {
		out[i] /= width
	}
	return out
}

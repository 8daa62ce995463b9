package report

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// TestCheckpointObserversNodeFailures: metrics and a time series saved in
// the middle of a run with node failures and restored into new values give
// the same node-failure figures as values never saved: the jobs killed by
// a node (1 before the save, 1 after) and the processor-seconds out of
// service (4 processors for 50 s, then 2 for 100 s, the save in between:
// 400).
func TestCheckpointObserversNodeFailures(t *testing.T) {
	job := func(id int64, st sim.State, start, end workload.Time) *sim.Record {
		return &sim.Record{Job: &workload.Job{ID: id, Submit: 0, Procs: 2, Run: end - start + 10, Estimate: 1000},
			State: st, Start: start, End: end}
	}
	first := []*sim.Record{job(1, sim.NodeFail, 0, 100), job(2, sim.Completed, 0, 120)}
	second := []*sim.Record{job(3, sim.NodeFail, 150, 200)}
	samples1 := []sim.Sample{{Time: 0, Busy: 4}, {Time: 100, Busy: 2, Unavailable: 4}, {Time: 150, Busy: 2, Unavailable: 2}}
	samples2 := []sim.Sample{{Time: 200, Busy: 0, Unavailable: 2}, {Time: 250, Busy: 0}}

	whole, wholeTS := NewMetrics(), NewTimeSeries(16, 10)
	for _, r := range append(append([]*sim.Record{}, first...), second...) {
		whole.JobDone(r)
	}
	for _, s := range append(append([]sim.Sample{}, samples1...), samples2...) {
		wholeTS.Sample(&s)
	}

	m, ts := NewMetrics(), NewTimeSeries(16, 10)
	for _, r := range first {
		m.JobDone(r)
	}
	for _, s := range samples1 {
		ts.Sample(&s)
	}
	mb, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	tb, err := ts.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	m, ts = NewMetrics(), NewTimeSeries(16, 10)
	if err := m.UnmarshalBinary(mb); err != nil {
		t.Fatal(err)
	}
	if err := ts.UnmarshalBinary(tb); err != nil {
		t.Fatal(err)
	}
	for _, r := range second {
		m.JobDone(r)
	}
	for _, s := range samples2 {
		ts.Sample(&s)
	}

	got := m.Summary("t", "p", 16, sim.Stats{}, workload.CleanStats{})
	want := whole.Summary("t", "p", 16, sim.Stats{}, workload.CleanStats{})
	if got.NodeFail != 2 || want.NodeFail != 2 {
		t.Errorf("node_fail: restored %d, uninterrupted %d, want 2", got.NodeFail, want.NodeFail)
	}
	if g, w := ts.UnavailableProcSec(), wholeTS.UnavailableProcSec(); g != 400 || w != 400 {
		t.Errorf("unavailable processor-seconds: restored %d, uninterrupted %d, want 400", g, w)
	}
}

// TestCheckpointMetricsRuns: metrics saved in the middle of a run, with
// some runs of values sorted and some not, and restored into a new value
// give the same summary and sorted waits as metrics never saved, once the
// rest of the run is added; so does a state in the form earlier versions
// wrote (one wait, slowdown and cell per job, in report order).
func TestCheckpointMetricsRuns(t *testing.T) {
	for _, n := range []int{0, 1, 40, 1000} {
		whole, m := NewMetrics(), NewMetrics()
		whole.waits.runLen, whole.bslds.runLen = 7, 7
		m.waits.runLen, m.bslds.runLen = 7, 7
		var want, ignored naiveRun
		feedRandom(whole, rand.New(rand.NewPCG(uint64(n), 1)), n, 0.4, &want)
		feedRandom(m, rand.New(rand.NewPCG(uint64(n), 1)), n, 0.4, &ignored)
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		restored := NewMetrics()
		restored.waits.runLen, restored.bslds.runLen = 7, 7
		if err := restored.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		feedRandom(whole, rand.New(rand.NewPCG(uint64(n), 2)), 30, 0.4, &want)
		feedRandom(restored, rand.New(rand.NewPCG(uint64(n), 2)), 30, 0.4, &ignored)
		checkNaive(t, fmt.Sprintf("%d jobs, restored", n), restored, want)
		if got, w := restored.Summary("t", "p", 64, sim.Stats{}, workload.CleanStats{}), whole.Summary("t", "p", 64, sim.Stats{}, workload.CleanStats{}); !reflect.DeepEqual(got, w) {
			t.Fatalf("%d jobs: restored summary\n%+v\nwant\n%+v", n, got, w)
		}
	}

	// The earlier form: the jobs' values side by side, in report order.
	m := NewMetrics()
	var want naiveRun
	feedRandom(m, rand.New(rand.NewPCG(9, 9)), 500, 0.5, &want)
	old := metricsState{Jobs: m.jobs, Completed: m.completed, KilledIn: make([]int64, numCells),
		WaitSum: m.waitSum, RespSum: m.respSum, BsldSum: m.bsldSum, ProcSec: m.procSec,
		FirstSubmit: m.firstSubmit, LastEnd: m.lastEnd}
	for _, r := range randomRecords(rand.New(rand.NewPCG(9, 9)), 500, 0.5) {
		wait, run := r.Start-r.Job.Submit, r.End-r.Start
		old.Waits = append(old.Waits, int64(wait))
		old.Bslds = append(old.Bslds, BoundedSlowdown(wait, run))
		old.Cells = append(old.Cells, uint8(SizeClass(r.Job.Procs)*NumRuntimeClasses+RuntimeClass(run)))
	}
	b, err := encodeState(old)
	if err != nil {
		t.Fatal(err)
	}
	restored := NewMetrics()
	if err := restored.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	checkNaive(t, "earlier form", restored, want)

	old.Cells[3] = numCells
	if b, err = encodeState(old); err != nil {
		t.Fatal(err)
	}
	if err := NewMetrics().UnmarshalBinary(b); err == nil {
		t.Error("a state with a cell out of range was restored")
	}
}

// TestTimeSeriesStateWidth checks that a time series state is restored
// only with a bucket width that is a power of two, as Sample needs.
func TestTimeSeriesStateWidth(t *testing.T) {
	ts := NewTimeSeries(64, 16)
	for _, s := range randomSamples(3, 200) {
		ts.Sample(&s)
	}
	b, err := ts.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var st seriesState
	if err := decodeState("time series", b, &st); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		width workload.Time
		ok    bool
	}{{1, true}, {2, true}, {64, true}, {0, false}, {-4, false}, {3, false}, {96, false}} {
		st.Width = tc.width
		b, err := encodeState(st)
		if err != nil {
			t.Fatal(err)
		}
		if err := NewTimeSeries(64, 16).UnmarshalBinary(b); (err == nil) != tc.ok {
			t.Errorf("width %d: restore error %v, want ok = %v", tc.width, err, tc.ok)
		}
	}
}

package report

import (
	"slices"
	"testing"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// Waits gives the sorted waits before a Summary, after it (from the order
// the Summary sorted), and after more jobs were added since.
func TestWaitsAroundSummary(t *testing.T) {
	m := NewMetrics()
	add := func(w workload.Time) {
		j := &workload.Job{ID: int64(w), Submit: 100, Procs: 1, Run: 1, Estimate: workload.Unknown}
		m.JobDone(&sim.Record{Job: j, State: sim.Completed, Start: 100 + w, End: 101 + w})
	}
	for _, w := range []workload.Time{30, 0, 7, 300, 7} {
		add(w)
	}
	want := []int64{0, 7, 7, 30, 300}
	if got := m.Waits(); !slices.Equal(got, want) {
		t.Fatalf("before Summary: Waits() = %v, want %v", got, want)
	}
	m.Summary("", "", 1, sim.Stats{}, workload.CleanStats{})
	got := m.Waits()
	if !slices.Equal(got, want) {
		t.Fatalf("after Summary: Waits() = %v, want %v", got, want)
	}
	got[0] = 99 // the caller's own slice
	if got := m.Waits(); !slices.Equal(got, want) {
		t.Fatalf("Waits() again = %v, want %v", got, want)
	}
	add(5)
	if got, want := m.Waits(), []int64{0, 5, 7, 7, 30, 300}; !slices.Equal(got, want) {
		t.Fatalf("after another job: Waits() = %v, want %v", got, want)
	}
}

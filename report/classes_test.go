package report

import (
	"math"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// TestSizeClassBounds checks SizeClass against sizeClassMax, the class
// bounds, on every count from below 1 to past the last bound, and on
// huge counts.
func TestSizeClassBounds(t *testing.T) {
	want := func(procs int) int {
		for i, m := range sizeClassMax {
			if procs <= m {
				return i
			}
		}
		return NumSizeClasses - 1
	}
	for procs := -3; procs <= 1<<12; procs++ {
		if got := SizeClass(procs); got != want(procs) {
			t.Fatalf("SizeClass(%d) = %d, want %d", procs, got, want(procs))
		}
	}
	for _, procs := range []int{math.MinInt, 1 << 20, 1 << 40, math.MaxInt} {
		if got := SizeClass(procs); got != want(procs) {
			t.Errorf("SizeClass(%d) = %d, want %d", procs, got, want(procs))
		}
	}
}

// TestRuntimeClassBounds checks RuntimeClass against runtimeClassEnd on
// both sides of every bound, and at the extremes.
func TestRuntimeClassBounds(t *testing.T) {
	want := func(run workload.Time) int {
		for i, end := range runtimeClassEnd {
			if run < end {
				return i
			}
		}
		return NumRuntimeClasses - 1
	}
	runs := []workload.Time{math.MinInt64, -1, 0, 1, math.MaxInt64}
	for _, end := range runtimeClassEnd {
		runs = append(runs, end-1, end, end+1)
	}
	for _, run := range runs {
		if got := RuntimeClass(run); got != want(run) {
			t.Errorf("RuntimeClass(%d) = %d, want %d", run, got, want(run))
		}
	}
}

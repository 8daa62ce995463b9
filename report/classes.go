package report

import (
	"math/bits"

	"github.com/schedsim/schedsim/workload"
)

// Job classes (SPEC §7): metrics are also given per job size class and per
// runtime class, and per cell of the two crossed.
const (
	// NumSizeClasses is the number of job size classes: 1, 2–4, 5–16, 17–64
	// and more than 64 processors.
	NumSizeClasses = 5
	// NumRuntimeClasses is the number of runtime classes: under 10 minutes,
	// 10 minutes to 1 hour, 1 to 10 hours, and 10 hours or more.
	NumRuntimeClasses = 4
)

// SizeClassNames are the labels of the size classes, in class order, as
// they appear in summary.json, the tables and the plots.
var SizeClassNames = [NumSizeClasses]string{"1", "2-4", "5-16", "17-64", ">64"}

// RuntimeClassNames are the labels of the runtime classes, in class order.
var RuntimeClassNames = [NumRuntimeClasses]string{"<10m", "10m-1h", "1h-10h", ">=10h"}

// sizeClassMax are the largest processor counts of the size classes but the last.
var sizeClassMax = [NumSizeClasses - 1]int{1, 4, 16, 64}

// runtimeClassEnd are the exclusive upper bounds, in seconds, of the runtime
// classes but the last.
var runtimeClassEnd = [NumRuntimeClasses - 1]workload.Time{10 * 60, 60 * 60, 10 * 60 * 60}

// SizeClass returns the size class (0 to NumSizeClasses−1) of a job on procs
// processors. Counts below 1 fall in class 0.
//
// The class bounds (sizeClassMax) are powers of four: procs − 1 has at
// most 0, 2, 4, 6 bits in classes 0 to 3, so the class is half that bit
// length, rounded up (Metrics.JobDone classes every job: this spares a
// loop; TestSizeClassBounds checks it against the bounds).
func SizeClass(procs int) int {
	if procs <= 1 {
		return 0
	}
	return min((bits.Len(uint(procs-1))+1)/2, NumSizeClasses-1)
}

// RuntimeClass returns the runtime class (0 to NumRuntimeClasses−1) of a job
// that ran for run seconds (its actual execution time, end − start).
func RuntimeClass(run workload.Time) int {
	// The number of bounds run reaches, counted without a loop or a
	// branch.
	return b2i(run >= runtimeClassEnd[0]) + b2i(run >= runtimeClassEnd[1]) + b2i(run >= runtimeClassEnd[2])
}

// RuntimeClass counts NumRuntimeClasses − 1 = 3 bounds: these fail to
// compile if that changes.
var (
	_ [NumRuntimeClasses - 4]struct{}
	_ [4 - NumRuntimeClasses]struct{}
)

// b2i is 1 for true and 0 for false (the compiler makes it a SETcc).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

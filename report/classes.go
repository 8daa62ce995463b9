package report

import "github.com/schedsim/schedsim/workload"

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
func SizeClass(procs int) int {
	for i, m := range sizeClassMax {
		if procs <= m {
			return i
		}
	}
	return NumSizeClasses - 1
}

// RuntimeClass returns the runtime class (0 to NumRuntimeClasses−1) of a job
// that ran for run seconds (its actual execution time, end − start).
func RuntimeClass(run workload.Time) int {
	for i, end := range runtimeClassEnd {
		if run < end {
			return i
		}
	}
	return NumRuntimeClasses - 1
}

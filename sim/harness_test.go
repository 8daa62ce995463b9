package sim_test

import (
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// The harness of these tests is package simtest: its job source,
// recorders, schedule checks and scenario files serve every package.

// none is the estimate of a job without one.
const none = workload.Unknown

// job is simtest.Job, short for the tables of hand-worked cases: id,
// submit time, processors, run time and estimate (none: no estimate).
func job(id int64, submit workload.Time, procs int, run, estimate workload.Time) workload.Job {
	return simtest.Job(id, submit, procs, run, estimate)
}

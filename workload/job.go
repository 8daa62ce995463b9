// Package workload holds the job records schedsim replays and the readers and
// writers that produce and store them: the Standard Workload Format (SWF,
// plain or gzip) and Parquet (schedsim's own job schema, or a dataset's
// schema through a column mapping), plus the Lublin–Feitelson generator.
//
// A Job is an immutable trace record. Readers stream jobs in submission order;
// the cleaning rules of Rules turn a raw record into what the simulator runs
// (processors, run time, runtime estimate) and count every job each rule touched.
// Open is the front door: it detects the format and checks what a run needs
// (job records present, job numbers unique); see Reader.
package workload

import (
	"math"
	"strconv"
)

// Time is simulated time in whole seconds since the start of the trace.
// schedsim never uses floating-point time: fractional SWF times are rounded
// once, when a record is read (see Rules).
type Time int64

// Forever is a time later than any event: the predicted end of a job that has
// no runtime estimate.
const Forever Time = math.MaxInt64 / 4

// Unknown is the SWF value for a missing field.
const Unknown = -1

// Job is one job of a trace, as read and cleaned.
//
// The Raw* fields keep the record's values as the trace gave them (SWF's -1 for
// unknown); Procs, Run and Estimate are what the simulator uses after the
// cleaning rules.
type Job struct {
	// Seq is the job's position in the trace (0-based, counting every record read,
	// kept or not). It breaks ties between jobs submitted at the same instant.
	Seq int64
	// ID is the job number (SWF field 1).
	ID int64
	// Submit is the submission time (SWF field 2), in seconds.
	Submit Time

	// Procs is the number of processors the simulator allocates.
	Procs int
	// Run is the simulated run time in seconds (≥ 1 after cleaning): the time the
	// job would run if nothing stopped it.
	Run Time
	// Estimate is the user's runtime estimate (wall-clock limit) in seconds, or
	// Unknown when the job has none (such a job is never backfilled).
	Estimate Time

	// Fields as recorded in the trace (SWF fields 3–18), -1 when unknown.
	RawWait      float64 // field 3: wait time the real system gave the job
	RawRun       float64 // field 4: run time
	AllocProcs   int     // field 5: allocated processors
	AvgCPUSec    float64 // field 6: average CPU time per processor
	UsedMemKB    float64 // field 7: used memory per processor, KB
	ReqProcs     int     // field 8: requested processors
	ReqTime      float64 // field 9: requested time, s
	ReqMemKB     float64 // field 10: requested memory per processor, KB
	Status       int     // field 11: 1 completed, 0 failed, 5 cancelled, 2/3/4 partial
	User         int     // field 12
	Group        int     // field 13
	Executable   int     // field 14
	Queue        int     // field 15
	Partition    int     // field 16
	PrecedingJob int64   // field 17
	ThinkTime    float64 // field 18

	// Fields SWF lacks, read from Parquet (see ParquetSchema); each is 0 (or
	// "") when the trace does not give it, and SWF never does.
	MinProcs     int64  // min_procs: fewest processors the job can run on
	MaxProcs     int64  // max_procs: most processors the job can use
	ReqNodes     int64  // requested_nodes: nodes requested
	MemPerNodeKB int64  // memory_per_node: memory requested per node, KB
	Licenses     string // licenses: "name:count,…", as in the trace
	Template     string // job_template: the job template's name
	Priority     int64  // priority: the job's priority as the trace gives it (any sign)
	HoldUntil    Time   // hold_until: the job may not start before this time, s from the trace start
	// WaitResources is the job's own choice when resources are short at its
	// submission (SCore-D), from the Parquet column wait_resources: 1 (the
	// column says 1) wait, -1 (it says 0) be refused, 0 (absent, null or
	// another value) its queue decides.
	WaitResources int8
}

// HasEstimate reports whether the job carries a runtime estimate.
func (j *Job) HasEstimate() bool { return j.Estimate > 0 }

// Limit is the time after which the job is killed: its estimate, or Forever
// when it has none.
func (j *Job) Limit() Time {
	if j.Estimate > 0 {
		return j.Estimate
	}
	return Forever
}

// ActualRun is how long the job really occupies its processors: its run time,
// cut at its limit.
func (j *Job) ActualRun() Time {
	if l := j.Limit(); j.Run > l {
		return l
	}
	return j.Run
}

// Killed reports whether the job outruns its limit and is killed at it.
func (j *Job) Killed() bool { return j.Run > j.Limit() }

// ParseSeconds parses a time in seconds: a whole number ≥ 0, optionally
// followed by a unit s, m, h or d ("3600", "90m", "2d"), at most limit
// seconds. It reports false if s is not such a time.
func ParseSeconds(s string, limit Time) (Time, bool) {
	mult := Time(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 's':
			s = s[:n-1]
		case 'm':
			mult, s = 60, s[:n-1]
		case 'h':
			mult, s = 3600, s[:n-1]
		case 'd':
			mult, s = 86400, s[:n-1]
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || Time(v) > limit/mult {
		return 0, false
	}
	return Time(v) * mult, true
}

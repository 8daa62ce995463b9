package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// Real logs are dirty and simulators disagree on how to read them (SPEC §1).
// Every choice schedsim makes is one of the named rules below; the zero value
// of Rules is the documented default, and CleanStats counts the jobs each rule
// touched so that a run can report them.

// ProcsSource says which SWF field gives a job's processor count.
type ProcsSource string

// Values of ProcsSource.
const (
	// ProcsRequested uses requested processors (field 8), or allocated (field 5)
	// when the request is missing. This is the default and the reference
	// normalisation's choice.
	ProcsRequested ProcsSource = "requested"
	// ProcsAllocated uses allocated processors (field 5), or requested (field 8)
	// when the allocation is missing.
	ProcsAllocated ProcsSource = "allocated"
)

// RunRule says what happens to a job whose run time is zero or negative
// (SWF: 0 means under half a second; -1 unknown).
type RunRule string

// Values of RunRule.
const (
	// RunDrop drops the job (default; the reference normalisation's choice).
	RunDrop RunRule = "drop"
	// RunOneSecond runs the job for one second.
	RunOneSecond RunRule = "one"
)

// EstimateRule says what happens to a job without a requested time (field 9).
type EstimateRule string

// Values of EstimateRule.
const (
	// EstimateNone leaves the job without an estimate (default): it can start as
	// the queue's head but is never backfilled, and it never reaches a limit.
	EstimateNone EstimateRule = "none"
	// EstimateRun gives the job its own run time as estimate (a perfect estimate).
	EstimateRun EstimateRule = "runtime"
)

// OverrunRule says what happens to a job whose run time exceeds its requested time.
type OverrunRule string

// Values of OverrunRule.
const (
	// OverrunKill kills the job when it reaches its requested time (default; what
	// a real scheduler does with a wall-clock limit).
	OverrunKill OverrunRule = "kill"
	// OverrunExtend raises the estimate to the run time, so the job runs in full
	// (the reference normalisation's choice).
	OverrunExtend OverrunRule = "extend"
)

// PartialRule says what happens to SWF partial records (status 2, 3, 4), which
// describe pieces of checkpointed or preempted jobs.
type PartialRule string

// Values of PartialRule.
const (
	// PartialAuto drops partial records when the header says "Preemption:
	// Double" (the log then also holds one summary line per job, which is kept)
	// and keeps them otherwise (default).
	PartialAuto PartialRule = "auto"
	// PartialDrop always drops partial records.
	PartialDrop PartialRule = "drop"
	// PartialKeep always keeps them, each as a job of its own.
	PartialKeep PartialRule = "keep"
)

// DuplicateRule says what happens to a job whose job number (SWF field 1,
// Parquet job_id) an earlier kept job already has. Partial records (status
// 2, 3, 4) are exempt: SWF gives the pieces of a checkpointed job the job's
// number by design. The readers Open returns apply it; the SWFReader and
// ParquetReader types alone do not.
type DuplicateRule string

// Values of DuplicateRule.
const (
	// DuplicateError stops the read with a *ParseError naming the record
	// (default): per-job outputs keyed by job number would be ambiguous.
	DuplicateError DuplicateRule = "error"
	// DuplicateKeep keeps the job and counts it (CleanStats.DuplicateIDs).
	DuplicateKeep DuplicateRule = "keep"
	// DuplicateDrop drops the later job and counts it
	// (CleanStats.DroppedDuplicate).
	DuplicateDrop DuplicateRule = "drop"
)

// ExtraFieldsRule says what happens to an SWF job line with more than 18
// fields, as the extended SWF of some simulators has.
type ExtraFieldsRule string

// Values of ExtraFieldsRule.
const (
	// ExtraFieldsError stops the read with a *ParseError naming the line
	// (default): a line with more fields may be no SWF at all.
	ExtraFieldsError ExtraFieldsRule = "error"
	// ExtraFieldsIgnore reads the first 18 fields of such a line and ignores
	// the rest, which need not be numbers; the lines are counted
	// (CleanStats.ExtraFields).
	ExtraFieldsIgnore ExtraFieldsRule = "ignore"
)

// Rules are the cleaning rules applied while reading a trace. The zero value
// means the defaults.
type Rules struct {
	Procs     ProcsSource   // default ProcsRequested
	ZeroRun   RunRule       // default RunDrop
	Estimate  EstimateRule  // default EstimateNone
	Overrun   OverrunRule   // default OverrunKill
	Partial   PartialRule   // default PartialAuto
	Duplicate DuplicateRule // "" means DuplicateError (applied by Open's readers)
	// ExtraFields says what an SWF line with more than 18 fields is;
	// "" means ExtraFieldsError. It applies to raw records (Raw) too.
	ExtraFields ExtraFieldsRule
	// Statuses, when not empty, keeps only jobs whose status (field 11) is listed.
	Statuses []int

	// Selection: which part of the trace to replay. Each rule drops the
	// jobs it does not select and counts them (CleanStats.DroppedBeforeFrom
	// and so on); none applies to raw records (Raw). Jobs keep their
	// submit times: a window is not moved to time 0.

	// From and Until select the jobs submitted in [From, Until): each is
	// empty (no bound), seconds from the log's start (time 0 of its submit
	// times) with an optional unit s, m, h or d ("3600", "90m", "2d"), or
	// a date ("2002-08-01") or date-time ("2002-08-01T12:00:00", a space
	// for the T, an optional "Z" or "+02:00") when the header gives
	// UnixStartTime. A date-time without a zone is in the header's
	// TimeZoneString, else its TimeZone (seconds east of UTC), else UTC.
	From, Until string
	// MaxJobs, when positive, keeps the first MaxJobs jobs that every
	// other rule keeps (in submission order) and drops the rest.
	MaxJobs int64
	// Users, Queues and Partitions, when not empty, keep only the jobs
	// whose user id (field 12), queue (field 15) or partition (field 16)
	// is listed: each entry is a number, or a name that the header's
	// "User:", "Queue:" or "Partition:" lines give a number ("; Queue: 2
	// production", as the Parallel Workloads Archive writes them, and as
	// the sacct reader writes its QOS and partition names).
	Users, Queues, Partitions []string
}

// WithDefaults returns r with every empty rule set to its default.
func (r Rules) WithDefaults() Rules {
	if r.Procs == "" {
		r.Procs = ProcsRequested
	}
	if r.ZeroRun == "" {
		r.ZeroRun = RunDrop
	}
	if r.Estimate == "" {
		r.Estimate = EstimateNone
	}
	if r.Overrun == "" {
		r.Overrun = OverrunKill
	}
	if r.Partial == "" {
		r.Partial = PartialAuto
	}
	return r
}

// Validate reports the first rule that has an unknown value.
func (r Rules) Validate() error {
	r = r.WithDefaults()
	check := func(name, got string, ok ...string) error {
		for _, o := range ok {
			if got == o {
				return nil
			}
		}
		return fmt.Errorf("workload: unknown %s rule %q (want one of %s)", name, got, strings.Join(ok, ", "))
	}
	if err := check("procs", string(r.Procs), string(ProcsRequested), string(ProcsAllocated)); err != nil {
		return err
	}
	if err := check("zero-run", string(r.ZeroRun), string(RunDrop), string(RunOneSecond)); err != nil {
		return err
	}
	if err := check("estimate", string(r.Estimate), string(EstimateNone), string(EstimateRun)); err != nil {
		return err
	}
	if err := check("overrun", string(r.Overrun), string(OverrunKill), string(OverrunExtend)); err != nil {
		return err
	}
	if r.Duplicate != "" {
		if err := check("duplicate-id", string(r.Duplicate), string(DuplicateError), string(DuplicateKeep), string(DuplicateDrop)); err != nil {
			return err
		}
	}
	if r.ExtraFields != "" {
		if err := check("extra-fields", string(r.ExtraFields), string(ExtraFieldsError), string(ExtraFieldsIgnore)); err != nil {
			return err
		}
	}
	if err := check("partial", string(r.Partial), string(PartialAuto), string(PartialDrop), string(PartialKeep)); err != nil {
		return err
	}
	return r.validateSelection()
}

// ParseStatuses parses a comma-separated list of SWF status codes such as "0,1,5".
func ParseStatuses(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("workload: bad status %q in %q: want integers such as 0,1,5", f, s)
		}
		out = append(out, v)
	}
	return out, nil
}

// CleanStats counts the records read and the jobs each cleaning rule touched.
// Field names are the keys of summary.json's "cleaning" object.
type CleanStats struct {
	Records            int64 `json:"records"`              // job lines read
	Kept               int64 `json:"kept"`                 // jobs passed to the simulator
	ProcsFromOther     int64 `json:"procs_from_fallback"`  // processor count taken from the fallback field
	DroppedProcs       int64 `json:"dropped_procs_le_0"`   // dropped: no positive processor count
	DroppedRun         int64 `json:"dropped_run_le_0"`     // dropped: run time ≤ 0 (rule drop)
	RunSetToOne        int64 `json:"run_set_to_1"`         // run time ≤ 0 raised to 1 s (rule one)
	NoEstimate         int64 `json:"no_estimate"`          // kept without an estimate (rule none)
	EstimateFromRun    int64 `json:"estimate_from_run"`    // estimate set to the run time (rule runtime)
	Overrun            int64 `json:"overrun_killed"`       // run > estimate, to be killed at the limit (rule kill)
	OverrunExtended    int64 `json:"overrun_extended"`     // run > estimate, estimate raised (rule extend)
	DroppedStatus      int64 `json:"dropped_status"`       // dropped by the status filter
	DroppedPartial     int64 `json:"dropped_partial"`      // dropped partial records (status 2/3/4)
	RoundedFractional  int64 `json:"rounded_fractional"`   // submit, run or requested time rounded to whole seconds
	DroppedSubmitUnset int64 `json:"dropped_submit_unset"` // dropped: submit time -1
	// Counted by the readers Open returns (rule Duplicate); left out of JSON
	// when zero.
	DuplicateIDs     int64 `json:"duplicate_ids,omitempty"`        // kept although an earlier job has its number (rule keep)
	DroppedDuplicate int64 `json:"dropped_duplicate_id,omitempty"` // dropped: an earlier job has its number (rule drop)

	// The counts below are left out of JSON when zero, and out of a sweep's
	// table unless a point has one (tag sweep:"ifused"), so that the
	// outputs of a trace none of them touches are what they were before
	// they existed.

	StatusUnknown int64 `json:"status_unknown,omitempty" sweep:"ifused"`       // read with a status SWF does not define (below -1, or above 5; -4 in some archive logs), and cleaned as any other job
	ExtraFields   int64 `json:"extra_fields_ignored,omitempty" sweep:"ifused"` // SWF lines with more than 18 fields, read up to the 18th (rule ExtraFields ignore)
	// Selection rules (Rules.From, Until, MaxJobs, Users, Queues,
	// Partitions).
	DroppedBeforeFrom int64 `json:"dropped_before_from,omitempty" sweep:"ifused"` // dropped: submitted before From
	DroppedAfterUntil int64 `json:"dropped_after_until,omitempty" sweep:"ifused"` // dropped: submitted at or after Until
	DroppedUser       int64 `json:"dropped_user,omitempty" sweep:"ifused"`        // dropped: user not among Users
	DroppedQueue      int64 `json:"dropped_queue,omitempty" sweep:"ifused"`       // dropped: queue not among Queues
	DroppedPartition  int64 `json:"dropped_partition,omitempty" sweep:"ifused"`   // dropped: partition not among Partitions
	DroppedMaxJobs    int64 `json:"dropped_max_jobs,omitempty" sweep:"ifused"`    // dropped: MaxJobs jobs were kept before it
	// Slurm accounting (sacct) input.
	DroppedUnfinished int64 `json:"dropped_unfinished,omitempty" sweep:"ifused"` // dropped: not finished when sacct ran (PENDING, RUNNING, SUSPENDED, …), or revoked
	StepsFolded       int64 `json:"sacct_steps_folded,omitempty" sweep:"ifused"` // job step lines (123.batch, 123.0) folded into their job
	HetFolded         int64 `json:"sacct_het_folded,omitempty" sweep:"ifused"`   // heterogeneous job components (123+1, …) folded into their job's first
}

package hpcpack

import (
	"fmt"
	"strconv"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// This file holds HPC Pack's submission and activation filters (SPEC §6) as
// small extension-point interfaces, in the manner of HPC Pack's own
// ISubmissionFilter and IActivationFilter (Microsoft.Hpc.Scheduler.AddInFilter)
// and of Kubernetes' scheduler framework: a filter answers with a Result, a
// code and a message, never with a Go error. A filter that cannot run (a
// program that is missing or hangs) is a Result too: SPEC §6 says what the
// scheduler does then.

// Status says how a filter call ended.
type Status uint8

// Values of Status.
const (
	// Exited: the filter ran to its end and Result.Code is its answer.
	Exited Status = iota
	// TimedOut: the filter did not answer within its timeout.
	TimedOut
	// NotFound: the filter does not exist (no such program).
	NotFound
)

// String returns the status's name.
func (s Status) String() string {
	switch s {
	case Exited:
		return "exited"
	case TimedOut:
		return "timeout"
	case NotFound:
		return "not-found"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// Result is a filter's answer: an exit code, how the call ended, and a
// message for the job's record.
type Result struct {
	// Code is the filter's exit code; it means something only when Status
	// is Exited.
	Code int
	// Status says whether the filter answered, timed out or was not found.
	Status Status
	// Message says why, in the filter's words (may be empty).
	Message string
}

// Exit returns the Result of a filter that exited with code and message.
func Exit(code int, message string) Result { return Result{Code: code, Message: message} }

// String formats r as its code, "timeout" or "not-found".
func (r Result) String() string {
	if r.Status != Exited {
		return r.Status.String()
	}
	return strconv.Itoa(r.Code)
}

// Submission filter exit codes (HPC Pack's SubmissionFilterResponse).
const (
	// SubmitAsIs: the job enters the queue (or the next filter) unchanged.
	SubmitAsIs = 0
	// SubmitChanged: the filter changed the job; the changed job goes on.
	SubmitChanged = 1
	// SubmitFail is the code HPC Pack's FailJob response has; any code but
	// 0 and 1 fails the job.
	SubmitFail = -1
)

// Activation filter exit codes (HPC Pack's ActivationFilterResponse).
const (
	// ActivateStart starts the queued job on the candidate resources (or
	// adds them to a running job).
	ActivateStart = 0
	// ActivateBlockQueue does not start the job, and no job of equal or
	// lower priority starts until it starts or is cancelled
	// (DoNotRunHoldQueue).
	ActivateBlockQueue = 1
	// ActivateKeepResources does not start the job but reserves the
	// candidate resources for it while other jobs start on other resources
	// (DoNotRunKeepResourcesAllowOtherJobsToSchedule).
	ActivateKeepResources = 2
	// ActivateHold holds the job until its Hold Until time (or for the
	// default hold period) and releases the resources
	// (HoldJobReleaseResourcesAllowOtherJobsToSchedule).
	ActivateHold = 3
	// ActivateFail fails the job (FailJob).
	ActivateFail = 4
)

// The messages of SPEC §6 for a job a filter failed. A failed job's reason
// starts with one of them.
const (
	MsgSubmissionFailed   = "submission filter failed the job"
	MsgSubmissionTimedOut = "submission filter timed out"
	MsgFilterNotFound     = "filter not found"
	MsgActivationFailed   = "activation filter failed the job"
)

// MsgStillQueued starts the reason of a job still queued when the run
// ended (sim.Pending): its activation filters kept it (or the jobs ahead
// of it) waiting, with nothing left in the trace or the machine that could
// change their answer.
const MsgStillQueued = "still queued when nothing was left to change the activation filters' answer"

// SubmissionFilter checks a job once, when it is submitted, before its job
// template is applied (HPC Pack's ISubmissionFilter). FilterSubmission may
// change the job and then answers SubmitChanged. When a later filter of the
// chain fails the job, RevertSubmission is called on every filter that
// already ran, in reverse order, so it can undo what it did.
type SubmissionFilter interface {
	// Name names the filter in records and configuration files.
	Name() string
	// FilterSubmission checks (and may change) j.
	FilterSubmission(j *workload.Job) Result
	// RevertSubmission undoes what FilterSubmission did for j.
	RevertSubmission(j *workload.Job)
}

// Activation is what an activation filter is told, besides the job: the
// arguments of HPC Pack's IActivationFilter.FilterActivation.
type Activation struct {
	// Job is the job about to get resources. The filter may set its
	// HoldUntil (for ActivateHold); other changes are not allowed.
	Job *workload.Job
	// Now is the simulated instant.
	Now workload.Time
	// Pass is the scheduler pass number (1 for the first pass of a run).
	Pass int64
	// Index is the job's index in the queue (0 = head).
	Index int
	// Backfill reports whether the job would start by backfilling: some
	// job ahead of it in the queue is still waiting.
	Backfill bool
	// Resources is the number of candidate resources (processors). When
	// Grow, it is the processor count the running job would grow to.
	Resources int
	// Grow reports that Job is running and the call asks whether it may
	// grow (SPEC §6, "running job (grow)"); Index is then -1 and Backfill
	// false.
	Grow bool
	// Start is when the running job started (with Grow only): its job
	// file's StartTime.
	Start workload.Time
}

// ActivationFilter runs each time candidate resources are about to be given
// to a queued job (HPC Pack's IActivationFilter), so possibly many times for
// one job. In a chain, when a filter answers anything but ActivateStart,
// RevertActivation is called on every filter that already answered
// ActivateStart for this call, in reverse order (e.g. to give back a
// license it took).
type ActivationFilter interface {
	// Name names the filter in records and configuration files.
	Name() string
	// FilterActivation decides whether a.Job may start on a.Resources
	// processors now.
	FilterActivation(a *Activation) Result
	// RevertActivation undoes what FilterActivation did for a.
	RevertActivation(a *Activation)
}

// JobEnder is implemented by activation filters that keep something for a
// job while it runs (a license pool, a usage quota): JobEnded is called
// once for each job that ends, at the pass of the instant it ended, before
// any activation of that pass.
type JobEnder interface {
	JobEnded(e policy.Ended)
}

// SubmissionChain runs filters in order: each gets the job as the one
// before left it. It returns the Result to act on: the last filter's when
// every filter answered SubmitAsIs or SubmitChanged (changed reports
// whether any changed the job), otherwise the failing filter's, with
// failedBy its name. When a filter fails the job, the filters that ran
// before it are reverted in reverse order. seen, if not nil, receives every
// filter's result in order.
func SubmissionChain(filters []SubmissionFilter, j *workload.Job, seen func(name string, r Result)) (r Result, changed bool, failedBy string) {
	for k, f := range filters {
		r = f.FilterSubmission(j)
		if seen != nil {
			seen(f.Name(), r)
		}
		if r.Status == Exited && (r.Code == SubmitAsIs || r.Code == SubmitChanged) {
			changed = changed || r.Code == SubmitChanged
			continue
		}
		for b := k - 1; b >= 0; b-- {
			filters[b].RevertSubmission(j)
		}
		return r, changed, f.Name()
	}
	return Result{Code: SubmitAsIs}, changed, ""
}

// SubmissionFailure returns the reason a job fails with for a submission
// filter's result r (SPEC §6), or "" when r lets the job in.
func SubmissionFailure(r Result) string {
	switch {
	case r.Status == TimedOut:
		return MsgSubmissionTimedOut
	case r.Status == NotFound:
		return MsgFilterNotFound
	case r.Code == SubmitAsIs || r.Code == SubmitChanged:
		return ""
	}
	return MsgSubmissionFailed
}

// ActivationChain runs filters in order while they answer ActivateStart. It
// returns ActivateStart's Result when all did; otherwise the first other
// result, with failedBy naming its filter, after reverting the filters that
// answered ActivateStart before it, in reverse order. seen, if not nil,
// receives every filter's result in order.
func ActivationChain(filters []ActivationFilter, a *Activation, seen func(name string, r Result)) (r Result, failedBy string) {
	for k, f := range filters {
		r = f.FilterActivation(a)
		if seen != nil {
			seen(f.Name(), r)
		}
		if r.Status == Exited && r.Code == ActivateStart {
			continue
		}
		for b := k - 1; b >= 0; b-- {
			filters[b].RevertActivation(a)
		}
		return r, f.Name()
	}
	return Result{Code: ActivateStart}, ""
}

// Action is what the scheduler does with a queued job after its activation
// filters answered (SPEC §6's table).
type Action uint8

// Values of Action.
const (
	// Start the job on the candidate resources.
	Start Action = iota
	// BlockQueue: no job of equal or lower priority starts until this one
	// does; re-evaluated periodically.
	BlockQueue
	// KeepResources: the candidate resources stay reserved for the job
	// while others start elsewhere; re-evaluated periodically.
	KeepResources
	// Hold the job until its Hold Until time, releasing the resources.
	Hold
	// Fail the job.
	Fail
)

// String returns the action's name.
func (a Action) String() string {
	switch a {
	case Start:
		return "start"
	case BlockQueue:
		return "block-queue"
	case KeepResources:
		return "keep-resources"
	case Hold:
		return "hold"
	case Fail:
		return "fail"
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// ActivationAction maps an activation result for a queued job to its action:
// 0 start, 1 block the queue, 2 keep the resources, 3 hold, 4 fail; any other
// code, a timeout or a missing filter keep the resources (SPEC §6).
func ActivationAction(r Result) Action {
	if r.Status != Exited {
		return KeepResources
	}
	switch r.Code {
	case ActivateStart:
		return Start
	case ActivateBlockQueue:
		return BlockQueue
	case ActivateHold:
		return Hold
	case ActivateFail:
		return Fail
	}
	return KeepResources
}

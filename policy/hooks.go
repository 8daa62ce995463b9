package policy

import "github.com/schedsim/schedsim/workload"

// This file holds the engine's hooks that a job model around a policy (HPC
// Pack's filters and templates, package policy/hpcpack) plugs into: they
// know nothing of that model.

// Failer is implemented by Decisions that can fail a queued job: the job
// leaves the queue, never runs, and is recorded with reason. The engine
// implements it (as sim.Failed); a policy wrapper that renumbers the queue
// passes it on.
type Failer interface {
	Fail(i int, reason string)
}

// Admission decides at submission whether a job enters the queue; it may
// change the job first (a submission filter's result, a job template's
// defaults). The engine calls Admit before any other check. A job refused
// is recorded as failed with the reason.
type Admission interface {
	Admit(j *workload.Job) (ok bool, reason string)
}

// Annotator is implemented by policies (and admissions) that keep notes
// about jobs, such as the filter results a job saw. The engine appends the
// note of every job it records to the record (sim.Record.Note).
type Annotator interface {
	// AppendNote appends the note about job j (empty when there is none)
	// to dst and returns it.
	AppendNote(dst []byte, j *workload.Job) []byte
}

// Settler is an optional interface of a Policy that can keep queued jobs
// waiting on its own answers alone, however long nothing else happens: HPC
// Pack's activation filters re-evaluate a job they refused with result 1
// or 2 periodically, with no limit (SPEC §6). When the engine has nothing
// left to do but wake the policy (no job to submit or release from its
// hold, none running, no node event to come), it asks Settled after each
// pass; once that reports true, it records every job still queued as never
// started (sim.Pending), with the reason Strand gives, and the run ends.
type Settler interface {
	Policy
	// Settled reports whether every job the policy keeps waiting was
	// refused again (or could not be asked again) at a pass after since,
	// the last instant at which anything but a wake-up happened, and
	// nothing of its own but such re-evaluations is to come (the end of a
	// hold would be).
	Settled(since workload.Time) bool
	// Strand is called once for each job still queued when the run ends
	// so, in queue order; it returns why the job never started.
	Strand(j *workload.Job) string
}

// Fallible is an optional interface of a Policy that can fail during a run:
// one whose decisions come from outside the process (package
// policy/external), where a decision the engine would refuse, a malformed
// answer or a program that stops answering is a user's error, not a bug.
// Such a policy checks every decision before it passes it on, makes none
// once it has failed, and reports the failure through Err; the engine
// stops the run after the pass and returns that error.
type Fallible interface {
	Policy
	// Err returns the error that stopped the policy, or nil.
	Err() error
	// Stranded returns the error for a run that would end with queued
	// jobs that nothing will ever start: no job is running, none is to be
	// submitted, and the policy asked for no wake-up.
	Stranded(queued int) error
}

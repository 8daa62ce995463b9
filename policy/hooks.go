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

// Package report turns a simulation's per-job records into outputs: Batsim's
// jobs.csv, run metrics and their summary (JSON or a terminal table), written
// atomically so that a failed run leaves no half-written file.
//
// Observers here receive sim.Records as the engine emits them; they keep only
// what their output needs and never retain a Record past JobDone.
package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// jobsCSVHeader is Batsim's jobs.csv column order.
const jobsCSVHeader = "job_id,workload_name,profile,submission_time,requested_number_of_resources," +
	"requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time," +
	"turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n"

// jobsCSVBuffer is how many bytes of rows JobsCSV gathers before it
// writes them.
const jobsCSVBuffer = 256 << 10

// jobsCSVSlack is room in JobsCSV's buffer beyond jobsCSVBuffer, for the
// row that crosses it.
const jobsCSVSlack = 4 << 10

// Batsim's final_state values.
const (
	finalCompleted = "COMPLETED_SUCCESSFULLY"
	finalWalltime  = "COMPLETED_WALLTIME_REACHED"
	finalRejected  = "REJECTED"
	// finalFailed is a job a submission or activation filter failed
	// (sim.Failed): it never ran, like REJECTED, but was failed by a
	// filter (HPC Pack's Failed state), not refused for its size.
	finalFailed = "COMPLETED_FAILED"
)

// JobsCSV is a sim.Observer that streams Batsim's jobs.csv, one row per job in
// the order the engine reports them.
//
// Columns, in Batsim's order: job_id, workload_name, profile ("delay"),
// submission_time, requested_number_of_resources, requested_time (the job's
// estimate, -1 when it has none), success (1 for a completed job, 0
// otherwise), final_state (COMPLETED_SUCCESSFULLY, COMPLETED_WALLTIME_REACHED
// for a killed job, REJECTED), starting_time, execution_time (end − start),
// finish_time, waiting_time, turnaround_time (end − submit), stretch
// (turnaround / execution, shortest 'g' representation, -1 when the execution
// time is 0), allocated_resources (Batsim's interval set, "0-3 8"),
// consumed_energy (-1: not modelled) and metadata (empty, or why a rejected job
// was rejected). A rejected job has -1 in every time column from starting_time
// to stretch and no allocated resources. Times are whole seconds.
//
// A job killed by a node failure (sim.NodeFail) has final_state
// COMPLETED_KILLED, success 0, its times up to the failure and its reason
// in the metadata (see RanMetadata); a job requeued by node failures has
// "requeues=N" there.
//
// A job failed by a filter (sim.Failed) is written like a rejected one, with
// final_state COMPLETED_FAILED and metadata "REASON failed_at=T NOTE" (the
// filter's message, the instant it failed, the record's Note). A job that
// ran has RanMetadata as metadata: with a node selector, the start WILL_RUN
// predicted at its submission ("predicted_start=T"), then its record's
// Note, if any (the filter results it saw, see policy.HPCPack.AppendNote).
//
// Lines end in "\n"; a field is quoted (RFC 4180) only when it holds a comma,
// a double quote, CR or LF. Writing a row allocates nothing (but the
// metadata of a run with a node selector). Write errors are
// kept and returned by Flush, which must be called at the end of the run.
type JobsCSV struct {
	w io.Writer
	// buf holds the rows not yet written: each row is built in place at
	// its end, and buf is written once it holds jobsCSVBuffer bytes.
	buf      []byte
	err      error  // the first write error; nothing is written after it
	workload []byte // workload_name, already quoted if needed
	scored   bool   // SCore-D columns after Batsim's (NewScoreDJobsCSV)
}

var _ sim.Observer = (*JobsCSV)(nil)

// NewJobsCSV returns a JobsCSV writing to w, with workloadName in every row's
// workload_name column. It writes the header line at once, into its buffer.
func NewJobsCSV(w io.Writer, workloadName string) *JobsCSV {
	c := newJobsCSV(w, workloadName)
	c.buf = append(c.buf, jobsCSVHeader...)
	return c
}

// newJobsCSV returns a JobsCSV writing to w that has written nothing.
func newJobsCSV(w io.Writer, workloadName string) *JobsCSV {
	return &JobsCSV{
		w:        w,
		buf:      make([]byte, 0, jobsCSVBuffer+jobsCSVSlack),
		workload: appendField(nil, workloadName),
	}
}

// endRow keeps b, c's buffer with one more row at its end, and writes it
// once it is full.
func (c *JobsCSV) endRow(b []byte) {
	c.buf = b
	if len(b) >= jobsCSVBuffer {
		c.write()
	}
}

// write writes the buffered rows, unless a write failed before, and
// empties the buffer.
func (c *JobsCSV) write() {
	if c.err == nil && len(c.buf) > 0 {
		n, err := c.w.Write(c.buf)
		if err == nil && n < len(c.buf) {
			err = io.ErrShortWrite
		}
		c.err = err
	}
	c.buf = c.buf[:0]
}

// JobDone appends r's row. It panics if r.State is not a known sim.State.
func (c *JobsCSV) JobDone(r *sim.Record) {
	j := r.Job
	b := c.buf
	b = appendInt(b, j.ID)
	b = append(b, ',')
	b = append(b, c.workload...)
	b = append(b, ",delay,"...)
	b = appendInt(b, int64(j.Submit))
	b = append(b, ',')
	b = appendInt(b, int64(j.Procs))
	b = append(b, ',')
	if j.HasEstimate() {
		b = appendInt(b, int64(j.Estimate))
	} else {
		b = append(b, "-1"...)
	}
	switch r.State {
	case sim.Completed:
		b = append(b, ",1,"+finalCompleted+","...)
	case sim.Killed:
		b = append(b, ",0,"+finalWalltime+","...)
	case sim.NodeFail:
		b = append(b, ",0,"+finalNodeFail+","...)
	case sim.Rejected:
		b = append(b, ",0,"+finalRejected+",-1,-1,-1,-1,-1,-1,,-1,"...)
		b = appendField(b, r.Reason)
		if c.scored {
			b = c.appendScoreD(b, r)
		}
		c.endRow(append(b, '\n'))
		return
	case sim.Failed:
		b = append(b, ",0,"+finalFailed+",-1,-1,-1,-1,-1,-1,,-1,"...)
		b = appendField(b, FailedMetadata(r))
		if c.scored {
			b = c.appendScoreD(b, r)
		}
		c.endRow(append(b, '\n'))
		return
	default:
		panic(fmt.Sprintf("report: job %d has unknown state %v", j.ID, r.State))
	}
	exec := int64(r.End - r.Start)
	turnaround := int64(r.End - j.Submit)
	b = appendInt(b, int64(r.Start))
	b = append(b, ',')
	b = appendInt(b, exec)
	b = append(b, ',')
	b = appendInt(b, int64(r.End))
	b = append(b, ',')
	b = appendInt(b, int64(r.Start-j.Submit))
	b = append(b, ',')
	b = appendInt(b, turnaround)
	b = append(b, ',')
	if exec > 0 {
		b = appendStretch(b, turnaround, exec)
	} else {
		b = append(b, "-1"...)
	}
	b = append(b, ',')
	b = cluster.FormatRanges(b, r.Alloc)
	b = append(b, ",-1,"...)
	if r.HasPrediction || r.Requeues > 0 || r.State == sim.NodeFail {
		b = appendField(b, RanMetadata(r))
	} else if r.Note != "" {
		b = appendField(b, r.Note)
	}
	if c.scored {
		b = c.appendScoreD(b, r)
	}
	c.endRow(append(b, '\n'))
}

// RanMetadata is the metadata of the row of a job that ran: with a
// prediction (sim.Record.HasPrediction), "predicted_start=T" (T the start
// WILL_RUN predicted at submission, -1 for never), then its Note, if any,
// after a space.
//
// With node events (sim.Config.NodeEvents), a job requeued by node
// failures has "requeues=N" after the prediction, and a job a node failure
// killed (sim.NodeFail, final_state COMPLETED_KILLED) has its reason
// ("node 17 down: maintenance") before the Note.
func RanMetadata(r *sim.Record) string {
	if !r.HasPrediction && r.Requeues == 0 && r.State != sim.NodeFail {
		return r.Note
	}
	var parts []string
	if r.HasPrediction {
		p := int64(r.Predicted)
		if r.Predicted >= workload.Forever {
			p = -1
		}
		parts = append(parts, "predicted_start="+strconv.FormatInt(p, 10))
	}
	if r.Requeues > 0 {
		parts = append(parts, "requeues="+strconv.Itoa(r.Requeues))
	}
	if r.State == sim.NodeFail {
		parts = append(parts, r.Reason)
	}
	if r.Note != "" {
		parts = append(parts, r.Note)
	}
	return strings.Join(parts, " ")
}

// FailedMetadata is the metadata of a failed job's row: its reason, the
// instant it failed and its note.
func FailedMetadata(r *sim.Record) string {
	s := r.Reason + " failed_at=" + strconv.FormatInt(int64(r.End), 10)
	if r.Note != "" {
		s += " " + r.Note
	}
	return s
}

// Flush writes any buffered rows and returns the first write error, if any.
func (c *JobsCSV) Flush() error {
	c.write()
	return c.err
}

// appendField appends s to b as one CSV field, quoted only when RFC 4180
// requires it (s holds a comma, a double quote, CR or LF).
func appendField(b []byte, s string) []byte {
	quote := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ',' || c == '"' || c == '\r' || c == '\n' {
			quote = true
			break
		}
	}
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// Package report turns a simulation's per-job records into outputs: Batsim's
// jobs.csv, run metrics and their summary (JSON or a terminal table), written
// atomically so that a failed run leaves no half-written file.
//
// Observers here receive sim.Records as the engine emits them; they keep only
// what their output needs and never retain a Record past JobDone.
package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
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
	// finalPending is a job still queued when the run ended (sim.Pending):
	// Batsim's state of a job submitted that has not started.
	finalPending = "SUBMITTED"
)

// JobsCSV is a sim.Observer that streams Batsim's jobs.csv, one row per job in
// the order the engine reports them.
//
// Columns, in Batsim's order: job_id, workload_name, profile ("delay"),
// submission_time, requested_number_of_resources, requested_time (the job's
// estimate, empty when it has none), success (1 for a completed job, 0
// otherwise), final_state (COMPLETED_SUCCESSFULLY, COMPLETED_WALLTIME_REACHED
// for a killed job, REJECTED), starting_time, execution_time (end − start),
// finish_time, waiting_time, turnaround_time (end − submit), stretch
// (turnaround / execution, shortest 'g' representation, empty when the
// execution time is 0; a SCore-D job's is turnaround / the CPU time it
// received, which its bounded slowdown uses too), allocated_resources
// (Batsim's interval set, "0-3 8"), consumed_energy (joules, with a power
// model; empty without one)
// and metadata (empty, or why a rejected job was rejected). A rejected job
// has every time column from starting_time to stretch empty and no
// allocated resources. Times are whole seconds.
//
// An unknown value is an empty field, as Batsim writes it, never -1: a
// reader's missing value (NaN in pandas, NULL in DuckDB), so that a mean
// of waiting_time is the mean over the jobs that started.
//
// A job killed by a node failure (sim.NodeFail) has final_state
// COMPLETED_KILLED, success 0, its times up to the failure and its reason
// in the metadata (see RanMetadata); a job requeued by node failures has
// "requeues=N" there.
//
// A job failed by a filter (sim.Failed) is written like a rejected one, with
// final_state COMPLETED_FAILED and metadata "REASON failed_at=T NOTE" (the
// filter's message, the instant it failed, the record's Note). A job still
// queued when the run ended (sim.Pending, kept waiting by its activation
// filters, or a SCore-D job held by its deactivated queue) is written so
// too, with final_state SUBMITTED (Batsim's state of a job not yet
// started) and metadata "REASON pending_at=T NOTE". A job that
// ran has RanMetadata as metadata: with a node selector, the start WILL_RUN
// predicted at its submission ("predicted_start=T"), then its record's
// Note, if any (the filter results it saw, see hpcpack.Model.AppendNote).
//
// Lines end in "\n"; a field is quoted (RFC 4180) only when it holds a comma,
// a double quote, CR or LF. Writing a row allocates nothing (but the
// metadata of a run with a node selector). Write errors are
// kept and returned by Flush, which must be called at the end of the run.
type JobsCSV struct {
	w io.Writer
	// buf holds the rows not yet written: each row is built in place at
	// its end, and buf is written once it holds jobsCSVBuffer bytes.
	buf []byte
	err error // the first write error; nothing is written after it
	// middle is the fields between job_id and submission_time, with the
	// commas around them: workload_name (quoted if needed) and profile.
	middle string
	// middle32 is middle padded to 32 bytes when it fits (short32): a
	// row copies it with two moves of 16 bytes instead of a call to
	// memmove, and the bytes beyond middle are overwritten next.
	middle32 [32]byte
	short32  bool
	scored   bool // SCore-D columns after Batsim's (NewScoreDJobsCSV)
	// tick is the run's ticks a second (SetTick); 1 writes whole seconds.
	tick int64
}

// SetTick makes c write the times of a run whose time unit is 1/tick
// second as seconds with the unit's decimals (AppendTicks).
func (c *JobsCSV) SetTick(tick int64) { c.tick = tick }

// tickColumns are the fields, counted from submission_time, that hold
// times.
var tickColumns = [...]bool{0: true, 2: true, 5: true, 6: true, 7: true, 8: true, 9: true}

// retime rewrites the times of the row that starts at buf[from:] from
// ticks to seconds.
func (c *JobsCSV) retime(from int) {
	row := c.buf[from:]
	i := bytes.IndexByte(row, ',') + len(c.middle) // after job_id and the middle
	out := append([]byte(nil), row[:i]...)
	rest := row[i:]
	for f := 0; f < len(tickColumns); f++ {
		j := bytes.IndexByte(rest, ',')
		if j < 0 {
			break
		}
		field := rest[:j]
		if v, err := strconv.ParseInt(string(field), 10, 64); tickColumns[f] && err == nil {
			out = AppendTicks(out, v, c.tick)
		} else {
			out = append(out, field...)
		}
		out = append(out, ',')
		rest = rest[j+1:]
	}
	out = append(out, rest...)
	c.buf = append(c.buf[:from], out...)
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
	c := &JobsCSV{
		w:      w,
		buf:    make([]byte, 0, jobsCSVBuffer+jobsCSVSlack),
		middle: "," + string(appendField(nil, workloadName)) + ",delay,",
	}
	c.short32 = copy(c.middle32[:], c.middle) == len(c.middle)
	return c
}

// endRow keeps b, c's buffer with one more row at its end, and writes it
// once it is full.
func (c *JobsCSV) endRow(b []byte) {
	c.buf = b
	if len(b) >= jobsCSVBuffer && c.tick <= 1 {
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

// rowRoom bounds the bytes of a row of a job that ran up to its
// allocated_resources, but for its workload_name and profile (JobsCSV's
// middle, of which it holds 32 bytes): nine numbers of at most intRoom
// bytes and a stretch of stretchRoom, the final_state field, the other
// constant fields. A row reserves it, with rangeRoom per range of
// processors, once (see JobDone).
const rowRoom = 9*intRoom + stretchRoom + 32 + len(",0,"+finalWalltime+",") + 16

// rangeRoom bounds the bytes of one range of allocated_resources: two
// processor numbers, a space and a dash.
const rangeRoom = 2*intRoom + 2

// notRunFields are the fields of a job that never ran from the comma
// after final_state to the one before metadata: starting_time to stretch,
// allocated_resources and consumed_energy, all empty (unknown).
const notRunFields = ",,,,,,,,,"

// The final_state fields of the jobs that ran, with the success field
// before them and the commas around both.
const (
	completedField = ",1," + finalCompleted + ","
	walltimeField  = ",0," + finalWalltime + ","
	nodeFailField  = ",0," + finalNodeFail + ","
)

// completed32 is completedField padded to 32 bytes, which a row's room
// holds where the field goes (rowRoom).
var completed32 = func() (a [32]byte) {
	copy(a[:], completedField)
	return a
}()

// The padding of completed32 needs the field to fit.
var _ [32 - len(completedField)]struct{}

// Wants implements sim.Observer: the records; a JobsCSV reads only the head of
// a record's job.
func (c *JobsCSV) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds, JobHead: true} }

// Observe implements sim.Observer: JobDone with the event's record.
func (c *JobsCSV) Observe(e *sim.Event) { c.JobDone(e.Record) }

// JobDone appends r's row. It panics if r.State is not a known sim.State.
//
// The row of a job that ran is written in place, in room reserved once
// for all its fields but the metadata (rowRoom and rangeRoom): each
// number, constant and range is written at an index with no check of
// room of its own (see putInt). The fields of a rejected or failed job,
// and every metadata, are appended as usual.
func (c *JobsCSV) JobDone(r *sim.Record) {
	if c.tick > 1 {
		from := len(c.buf)
		c.jobDone(r)
		c.retime(from)
		if len(c.buf) >= jobsCSVBuffer {
			c.write()
		}
		return
	}
	c.jobDone(r)
}

func (c *JobsCSV) jobDone(r *sim.Record) {
	j := r.Job
	b := c.buf
	if need := rowRoom + len(c.middle) + rangeRoom*len(r.Alloc); cap(b)-len(b) < need {
		b = slices.Grow(b, need)
	}
	n := len(b)
	b = b[:cap(b)]
	n = putInt(b, n, j.ID)
	if c.short32 {
		*(*[32]byte)(b[n:]) = c.middle32
		n += len(c.middle)
	} else {
		n = put(b, n, c.middle)
	}
	n = putInt(b, n, int64(j.Submit))
	b[n] = ','
	n = putInt(b, n+1, int64(j.Procs))
	b[n] = ','
	n++
	if j.HasEstimate() {
		n = putInt(b, n, int64(j.Estimate))
	}
	switch r.State {
	case sim.Completed:
		// One 32-byte store, as the middle: put's copies of a constant
		// of 26 bytes are calls of memmove.
		*(*[32]byte)(b[n:]) = completed32
		n += len(completedField)
	case sim.Killed:
		n = put(b, n, walltimeField)
	case sim.NodeFail, sim.LimitKilled, sim.Preempted:
		n = put(b, n, nodeFailField)
	case sim.Rejected:
		b = append(b[:n], ",0,"+finalRejected+notRunFields...)
		b = appendField(b, r.Reason)
		if c.scored {
			b = c.appendScoreD(b, r)
		}
		c.endRow(append(b, '\n'))
		return
	case sim.Failed, sim.Pending:
		final := finalFailed
		if r.State == sim.Pending {
			final = finalPending
		}
		b = append(append(append(b[:n], ",0,"...), final...), notRunFields...)
		b = appendField(b, FailedMetadataIn(r, c.tick))
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
	n = putInt(b, n, int64(r.Start))
	b[n] = ','
	n = putInt(b, n+1, exec)
	b[n] = ','
	n = putInt(b, n+1, int64(r.End))
	b[n] = ','
	n = putInt(b, n+1, int64(r.Start-j.Submit))
	b[n] = ','
	n = putInt(b, n+1, turnaround)
	b[n] = ','
	n++
	if r.ScoreD && r.CPUTime > 0 {
		// A SCore-D job's execution spans its gang time sharing and
		// suspensions: its stretch is relative to the time it ran, as its
		// bounded slowdown is (Metrics).
		n = putStretch(b, n, turnaround, int64(r.CPUTime))
	} else if exec > 0 {
		n = putStretch(b, n, turnaround, exec)
	}
	b[n] = ','
	n = putRanges(b, n+1, r.Alloc)
	if r.HasEnergy {
		b = append(b[:n], ',')
		b = append(strconv.AppendFloat(b, r.Energy, 'f', 6, 64), ',')
		b = slices.Grow(b, 1)
		n = len(b)
		b = b[:cap(b)]
	} else {
		b[n], b[n+1] = ',', ','
		n += 2
	}
	if r.HasPrediction || r.Requeues > 0 || r.State == sim.NodeFail || r.State == sim.LimitKilled || r.Who || r.HasTier || r.Immediate || r.Job.HoldUntil > r.Job.Submit {
		b = appendField(b[:n], RanMetadataIn(r, c.tick))
	} else if r.Note != "" {
		b = appendField(b[:n], r.Note)
	} else if !c.scored {
		b[n] = '\n' // the common row: no metadata, no SCore-D columns
		c.endRow(b[:n+1])
		return
	} else {
		b = b[:n]
	}
	if c.scored {
		b = c.appendScoreD(b, r)
	}
	c.endRow(append(b, '\n'))
}

// put writes s at b[n:] and returns the index after it. Inlined with a
// constant s, it stores s's bytes with a few moves (the compiler calls
// memmove for a copy of more than 16 constant bytes, which the split
// avoids).
func put(b []byte, n int, s string) int {
	if len(s) > 16 {
		n += copy(b[n:n+16], s[:16])
		s = s[16:]
	}
	return n + copy(b[n:n+len(s)], s)
}

// putRanges writes rs at b[n:] as cluster.FormatRanges appends them
// (Batsim's interval set, "0-3 8 10-11") and returns the index after
// them; b has rangeRoom bytes from n per range.
func putRanges(b []byte, n int, rs []cluster.Range) int {
	for i, r := range rs {
		if i > 0 {
			b[n] = ' '
			n++
		}
		n = putInt(b, n, int64(r.Lo))
		if r.Hi-1 > r.Lo {
			b[n] = '-'
			n = putInt(b, n+1, int64(r.Hi-1))
		}
	}
	return n
}

// RanMetadata is the metadata of the row of a job that ran: for a job of
// an immediate queue, which ran beside the machine (sim.Record.Immediate),
// first "immediate=1"; under reservations, start windows or limits
// (sim.Record.Who), and for such a job, then
// "user=U account=G partition=P queue=Q" (SWF fields 12, 13, 16, 15); for a
// job held out of the queue after its submission (workload.Job.HoldUntil),
// "hold_until=T", the instant it entered the queue; with a
// prediction (sim.Record.HasPrediction), "predicted_start=T" (T the start
// WILL_RUN predicted at submission, -1 for never) and, when T is a time,
// "predicted_resources=R" (where WILL_RUN would start it: the resource ids
// of allocated_resources, intervals joined by commas, "0-3,8"), then its
// Note, if any, after a space.
//
// With node events (sim.Config.NodeEvents), a job requeued by node
// failures has "requeues=N" after the prediction, and a job a node failure
// killed (sim.NodeFail, final_state COMPLETED_KILLED) has its reason
// ("node 17 down: maintenance") before the Note. So does a SCore-D job
// killed for its memory or disk limit (sim.LimitKilled, final_state
// COMPLETED_KILLED too): "memory use 800 KB per host exceeds its limit
// 600 KB".
func RanMetadata(r *sim.Record) string { return RanMetadataIn(r, 1) }

// RanMetadataIn is RanMetadata for a run in ticks of 1/tick second: its
// predicted start is written in seconds with the unit's decimals.
func RanMetadataIn(r *sim.Record, tick int64) string {
	held := r.Job.HoldUntil > r.Job.Submit && !r.Immediate // an immediate queue's job starts at its submission
	if !r.HasPrediction && r.Requeues == 0 && r.State != sim.NodeFail && r.State != sim.LimitKilled && !r.Who && !r.HasTier && !r.Immediate && !held {
		return r.Note
	}
	var parts []string
	if r.Immediate {
		parts = append(parts, "immediate=1")
	}
	if r.Who || r.Immediate {
		j := r.Job
		parts = append(parts, "user="+strconv.Itoa(j.User), "account="+strconv.Itoa(j.Group), "partition="+strconv.Itoa(j.Partition), "queue="+strconv.Itoa(j.Queue))
	}
	if held {
		parts = append(parts, "hold_until="+workload.FormatTicks(r.Job.HoldUntil, tick))
	}
	if r.HasPrediction {
		p := int64(r.Predicted)
		ps := workload.FormatTicks(r.Predicted, tick)
		if r.Predicted >= workload.Forever {
			p, ps = -1, "-1"
		}
		parts = append(parts, "predicted_start="+ps)
		if p >= 0 && len(r.PredictedAlloc) > 0 {
			parts = append(parts, "predicted_resources="+formatRangesComma(r.PredictedAlloc))
		}
	}
	if r.Requeues > 0 {
		parts = append(parts, "requeues="+strconv.Itoa(r.Requeues))
	}
	if r.HasTier {
		parts = appendPreemption(parts, r, tick)
	}
	if r.State == sim.NodeFail || r.State == sim.LimitKilled || r.State == sim.Preempted {
		parts = append(parts, r.Reason)
	}
	if r.Note != "" {
		parts = append(parts, r.Note)
	}
	return strings.Join(parts, " ")
}

// FailedMetadata is the metadata of a failed job's row: its reason, the
// instant it failed ("failed_at=T") and its note; for a job still queued at
// the end of the run (sim.Pending), "pending_at=T" with that instant.
func FailedMetadata(r *sim.Record) string { return FailedMetadataIn(r, 1) }

// FailedMetadataIn is FailedMetadata for a run in ticks of 1/tick second:
// the instant is written in seconds with the unit's decimals.
func FailedMetadataIn(r *sim.Record, tick int64) string {
	at := " failed_at="
	if r.State == sim.Pending {
		at = " pending_at="
	}
	s := r.Reason + at + workload.FormatTicks(r.End, tick)
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

// formatRangesComma formats rs as Batsim's interval set with commas between
// the intervals ("0-3,8,10-11"), which keeps a metadata key's value free of
// blanks.
func formatRangesComma(rs []cluster.Range) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.Lo))
		if r.Hi-1 > r.Lo {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(r.Hi - 1))
		}
	}
	return b.String()
}

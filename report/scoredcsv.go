package report

import (
	"io"
	"strconv"

	"github.com/schedsim/schedsim/sim"
)

// scoredCSVColumns are the columns NewScoreDJobsCSV adds after Batsim's.
const scoredCSVColumns = ",queue,demotions,suspensions,cpu_time,end_reason\n"

// NewScoreDJobsCSV returns a JobsCSV for a SCore-D run (sim.ScoreD): Batsim's
// columns, then queue (the queue the job ended in), demotions (moves to a
// lower queue at its residence time), suspensions (preemptions, and holds
// by a deactivated queue), cpu_time (CPU time received, whole seconds) and
// end_reason (why a job was killed or rejected; empty for a completed job).
// Runs without SCore-D queues write NewJobsCSV's columns only.
func NewScoreDJobsCSV(w io.Writer, workloadName string) *JobsCSV {
	c := newJobsCSV(w, workloadName)
	c.scored = true
	c.buf = append(c.buf, jobsCSVHeader[:len(jobsCSVHeader)-1]+scoredCSVColumns...)
	return c
}

// appendScoreD appends the SCore-D columns of r's row (for a c that has
// them).
func (c *JobsCSV) appendScoreD(b []byte, r *sim.Record) []byte {
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Queue), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Demotions), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Suspensions), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.CPUTime), 10)
	b = append(b, ',')
	if r.State != sim.Completed {
		b = appendField(b, r.Reason)
	}
	return b
}

// ResumeScoreDJobsCSV is ResumeJobsCSV for a run of SCore-D's queues: it
// goes on writing the rows of NewScoreDJobsCSV, without a header, after the
// part of a jobs.csv a checkpointed run had written.
func ResumeScoreDJobsCSV(w io.Writer, workloadName string) *JobsCSV {
	c := newJobsCSV(w, workloadName)
	c.scored = true
	return c
}

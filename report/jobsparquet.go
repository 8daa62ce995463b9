package report

import (
	"fmt"
	"io"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// jobsParquetColumns are jobs.parquet's columns: jobs.csv's, in Batsim's
// order, typed; the values jobs.csv leaves empty (unknown) are nulls.
var jobsParquetColumns = []workload.ParquetColumn{
	{Name: "job_id", Type: workload.ParquetInt64},
	{Name: "workload_name", Type: workload.ParquetString},
	{Name: "profile", Type: workload.ParquetString},
	{Name: "submission_time", Type: workload.ParquetInt64},
	{Name: "requested_number_of_resources", Type: workload.ParquetInt64},
	{Name: "requested_time", Type: workload.ParquetInt64, Optional: true},
	{Name: "success", Type: workload.ParquetInt64},
	{Name: "final_state", Type: workload.ParquetString},
	{Name: "starting_time", Type: workload.ParquetInt64, Optional: true},
	{Name: "execution_time", Type: workload.ParquetInt64, Optional: true},
	{Name: "finish_time", Type: workload.ParquetInt64, Optional: true},
	{Name: "waiting_time", Type: workload.ParquetInt64, Optional: true},
	{Name: "turnaround_time", Type: workload.ParquetInt64, Optional: true},
	{Name: "stretch", Type: workload.ParquetDouble, Optional: true},
	{Name: "allocated_resources", Type: workload.ParquetString},
	{Name: "consumed_energy", Type: workload.ParquetDouble, Optional: true},
	{Name: "metadata", Type: workload.ParquetString},
}

// jobsParquetTimes are the columns jobs.parquet has after jobsParquetColumns
// when the trace's start is known: the submission, start and end as UTC
// timestamps.
var jobsParquetTimes = []workload.ParquetColumn{
	{Name: "submit_time_ts", Type: workload.ParquetTimestamp},
	{Name: "start_time_ts", Type: workload.ParquetTimestamp, Optional: true},
	{Name: "end_time_ts", Type: workload.ParquetTimestamp, Optional: true},
}

// Key/value metadata of jobs.parquet, beside workload.MetaVersion (the
// schedsim build) and workload.MetaSWFHeader (the trace's header).
const (
	// MetaTable names the table: "jobs".
	MetaTable = "schedsim.table"
	// MetaPolicy is the run's policy, as summary.json's policy names it.
	MetaPolicy = "schedsim.policy"
	// MetaScenario is the run's scenario as canonical JSON
	// (schedsim.Scenario.Canonical).
	MetaScenario = "schedsim.scenario"
)

// JobsParquet is a sim.Observer that streams jobs.parquet: the rows of
// jobs.csv (see JobsCSV), same columns and values, typed — integers as
// INT64, stretch and consumed_energy as DOUBLE, the rest as strings — for
// pandas, polars and DuckDB. What jobs.csv leaves empty is null: the
// requested time of a job without one, the times and stretch of a job that
// never ran, a stretch over an execution time of 0, consumed_energy.
//
// With a header that gives the trace's start (SetHeader,
// workload.Header.UnixStart), the rows also have submit_time_ts,
// start_time_ts and end_time_ts after metadata: the instants as Parquet
// TIMESTAMP(MILLIS, isAdjustedToUTC=true), null for a job that never ran.
// The file's key/value metadata holds the table's name (MetaTable), the
// schedsim build (workload.MetaVersion), the trace's header as SWF text
// (workload.MetaSWFHeader), and what SetMetadata adds (MetaPolicy,
// MetaScenario). Write errors are kept and returned by Close, which must
// be called at the end of the run.
type JobsParquet struct {
	w     io.Writer
	t     *workload.ParquetTable
	name  string
	alloc []byte
	err   error
	// Set by SetHeader, before the table starts.
	header       string
	epochMs      int64
	stamp        bool
	meta         [][2]string // metadata given before the table starts
	started, eof bool
}

var _ sim.Observer = (*JobsParquet)(nil)

// NewJobsParquet returns a JobsParquet writing to w, with workloadName in
// every row's workload_name column.
func NewJobsParquet(w io.Writer, workloadName string) *JobsParquet {
	return &JobsParquet{w: w, name: workloadName}
}

// SetHeader gives the trace's header: its text goes into the metadata and,
// when it gives the trace's start, the rows get timestamps. It must be
// called before the first row, if at all; it does nothing after.
func (p *JobsParquet) SetHeader(h *workload.Header) {
	if p.started || h == nil {
		return
	}
	var err error
	if p.header, err = workload.HeaderText(h); err != nil {
		p.err = err
	}
	var sec int64
	if sec, p.stamp = h.UnixStart(); p.stamp {
		p.epochMs = sec * 1000
	}
}

// SetMetadata sets the key/value metadata key to value (MetaPolicy,
// MetaScenario, …); it may be called at any time before Close.
func (p *JobsParquet) SetMetadata(key, value string) {
	if p.t != nil {
		p.t.SetMetadata(key, value)
		return
	}
	p.meta = append(p.meta, [2]string{key, value})
}

// start creates the table, at the first row or at Close.
func (p *JobsParquet) start() {
	p.started = true
	if p.err != nil {
		return
	}
	cols := jobsParquetColumns
	if p.stamp {
		cols = append(cols[:len(cols):len(cols)], jobsParquetTimes...)
	}
	meta := [][2]string{{MetaTable, "jobs"}}
	if p.header != "" {
		meta = append(meta, [2]string{workload.MetaSWFHeader, p.header})
	}
	p.t, p.err = workload.NewParquetTable(p.w, cols, append(meta, p.meta...)...)
	p.meta = nil
}

// JobDone appends r's row. It panics if r.State is not a known sim.State.
func (p *JobsParquet) JobDone(r *sim.Record) {
	if !p.started {
		p.start()
	}
	if p.err != nil {
		return
	}
	j := r.Job
	t := p.t
	t.Int64(j.ID)
	t.String(p.name)
	t.String("delay")
	t.Int64(int64(j.Submit))
	t.Int64(int64(j.Procs))
	if j.HasEstimate() {
		t.Int64(int64(j.Estimate))
	} else {
		t.Null()
	}
	switch r.State {
	case sim.Completed:
		t.Int64(1)
		t.String(finalCompleted)
	case sim.Killed:
		t.Int64(0)
		t.String(finalWalltime)
	case sim.NodeFail, sim.LimitKilled:
		t.Int64(0)
		t.String(finalNodeFail)
	case sim.Rejected, sim.Failed, sim.Pending:
		t.Int64(0)
		meta := r.Reason
		switch r.State {
		case sim.Failed:
			t.String(finalFailed)
			meta = FailedMetadata(r)
		case sim.Pending:
			t.String(finalPending)
			meta = FailedMetadata(r)
		default:
			t.String(finalRejected)
		}
		for range 6 { // starting_time to stretch
			t.Null()
		}
		t.String("")
		t.Null()
		t.String(meta)
		if p.stamp {
			t.Millis(p.epochMs + int64(j.Submit)*1000)
			t.Null()
			t.Null()
		}
		p.err = t.EndRow()
		return
	default:
		panic(fmt.Sprintf("report: job %d has unknown state %v", j.ID, r.State))
	}
	exec := int64(r.End - r.Start)
	turnaround := int64(r.End - j.Submit)
	t.Int64(int64(r.Start))
	t.Int64(exec)
	t.Int64(int64(r.End))
	t.Int64(int64(r.Start - j.Submit))
	t.Int64(turnaround)
	if exec > 0 {
		t.Double(float64(turnaround) / float64(exec))
	} else {
		t.Null()
	}
	p.alloc = cluster.FormatRanges(p.alloc[:0], r.Alloc)
	t.String(string(p.alloc))
	if r.HasEnergy {
		t.Double(r.Energy)
	} else {
		t.Null()
	}
	t.String(RanMetadata(r))
	if p.stamp {
		t.Millis(p.epochMs + int64(j.Submit)*1000)
		t.Millis(p.epochMs + int64(r.Start)*1000)
		t.Millis(p.epochMs + int64(r.End)*1000)
	}
	p.err = t.EndRow()
}

// Close writes the remaining rows and the file's footer, and returns the
// first error, if any. It does not close the underlying writer.
func (p *JobsParquet) Close() error {
	if !p.started {
		p.start()
	}
	if p.err != nil {
		return p.err
	}
	if p.eof {
		return nil
	}
	p.eof = true
	return p.t.Close()
}

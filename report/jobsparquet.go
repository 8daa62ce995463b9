package report

import (
	"fmt"
	"io"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// jobsParquetColumns are jobs.parquet's columns: jobs.csv's, in Batsim's
// order, typed.
var jobsParquetColumns = []workload.ParquetColumn{
	{Name: "job_id", Type: workload.ParquetInt64},
	{Name: "workload_name", Type: workload.ParquetString},
	{Name: "profile", Type: workload.ParquetString},
	{Name: "submission_time", Type: workload.ParquetInt64},
	{Name: "requested_number_of_resources", Type: workload.ParquetInt64},
	{Name: "requested_time", Type: workload.ParquetInt64},
	{Name: "success", Type: workload.ParquetInt64},
	{Name: "final_state", Type: workload.ParquetString},
	{Name: "starting_time", Type: workload.ParquetInt64},
	{Name: "execution_time", Type: workload.ParquetInt64},
	{Name: "finish_time", Type: workload.ParquetInt64},
	{Name: "waiting_time", Type: workload.ParquetInt64},
	{Name: "turnaround_time", Type: workload.ParquetInt64},
	{Name: "stretch", Type: workload.ParquetDouble},
	{Name: "allocated_resources", Type: workload.ParquetString},
	{Name: "consumed_energy", Type: workload.ParquetDouble},
	{Name: "metadata", Type: workload.ParquetString},
}

// JobsParquet is a sim.Observer that streams jobs.parquet: the rows of
// jobs.csv (see JobsCSV), same columns and values, typed — integers as
// INT64, stretch and consumed_energy as DOUBLE, the rest as strings — for
// pandas, polars and DuckDB. Write errors are kept and returned by Close,
// which must be called at the end of the run.
type JobsParquet struct {
	t     *workload.ParquetTable
	name  string
	alloc []byte
	err   error
}

var _ sim.Observer = (*JobsParquet)(nil)

// NewJobsParquet returns a JobsParquet writing to w, with workloadName in
// every row's workload_name column.
func NewJobsParquet(w io.Writer, workloadName string) *JobsParquet {
	t, err := workload.NewParquetTable(w, jobsParquetColumns, [2]string{"schedsim.table", "jobs"})
	return &JobsParquet{t: t, name: workloadName, err: err}
}

// JobDone appends r's row. It panics if r.State is not a known sim.State.
func (p *JobsParquet) JobDone(r *sim.Record) {
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
		t.Int64(-1)
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
		for range 5 {
			t.Int64(-1)
		}
		t.Double(-1)
		t.String("")
		t.Double(-1)
		t.String(meta)
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
		t.Double(-1)
	}
	p.alloc = cluster.FormatRanges(p.alloc[:0], r.Alloc)
	t.String(string(p.alloc))
	t.Double(-1)
	t.String(RanMetadata(r))
	p.err = t.EndRow()
}

// Close writes the remaining rows and the file's footer, and returns the
// first error, if any. It does not close the underlying writer.
func (p *JobsParquet) Close() error {
	if p.err != nil {
		return p.err
	}
	return p.t.Close()
}

package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/schedsim/schedsim/workload"
)

// JobTableNames are the per-job tables a run writes (schedsim run
// --format), in the order readers of a result directory look for them.
var JobTableNames = []string{"jobs.csv", "jobs.parquet"}

// JobRow is one row of a per-job table a run wrote (jobs.csv or
// jobs.parquet), with what the readers of result directories need (verify,
// compare --dirs, a finished checkpointed run's results).
type JobRow struct {
	ID       int64
	Submit   workload.Time
	Procs    int64
	Estimate workload.Time // the requested time; workload.Unknown for none
	State    string        // final_state, one of Batsim's (see JobsCSV)
	// Ran says that the job started: Start, Exec and End are its times.
	// A job rejected, failed by a filter or still queued at the end
	// (REJECTED, COMPLETED_FAILED, SUBMITTED) did not, and its times are
	// 0.
	Ran              bool
	Start, Exec, End workload.Time
	Alloc            string // allocated_resources
	Metadata         string // "" when the table has no metadata column
}

// jobRowColumns are the columns of a per-job table ReadJobTable reads,
// found by name (other columns may be there too); metadata may be
// missing.
var jobRowColumns = []string{"job_id", "submission_time", "requested_number_of_resources", "requested_time",
	"starting_time", "execution_time", "finish_time", "final_state", "allocated_resources", "metadata"}

// FindJobTable returns the path of the per-job table in a result
// directory: DIR/jobs.csv, else DIR/jobs.parquet (a run with --format
// parquet). A directory with neither is ErrNotResultDir.
func FindJobTable(dir string) (string, error) {
	for _, name := range JobTableNames {
		p := filepath.Join(dir, name)
		switch _, err := os.Stat(p); {
		case err == nil:
			return p, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
	}
	return "", fmt.Errorf("%s: %w", dir, ErrNotResultDir)
}

// ReadJobTable reads the per-job table at path — jobs.parquet when the
// name ends in .parquet, else jobs.csv — and calls fn with each row, in
// file order, and where, the row's place for messages ("jobs.csv:12",
// "jobs.parquet: row 11"); it stops at fn's first error, which it returns.
// The row is reused for the next one.
//
// It reads what schedsim writes now, unknowns empty (CSV) or null
// (Parquet), and what it wrote before, unknowns as -1: in requested_time,
// an empty value, -1 or any value ≤ 0 is no estimate; the times of a job
// that did not run are not read. A job that ran must have its starting,
// execution and finish times. A value that is not a number within ±2^62,
// a final_state Batsim does not define or a missing column is an error
// naming path, the row and the column.
func ReadJobTable(path string, fn func(where string, r *JobRow) error) error {
	var row JobRow
	if filepath.Ext(path) == ".parquet" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		optional := make([]bool, len(jobRowColumns))
		optional[len(jobRowColumns)-1] = true // metadata
		n := 0
		return workload.ScanParquetTable(f, fi.Size(), path, jobRowColumns, optional, func(vals []string) error {
			n++
			where := fmt.Sprintf("%s: row %d", path, n)
			if err := row.parse(vals, where); err != nil {
				return err
			}
			return fn(where, &row)
		})
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: reading the header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	idx := make([]int, len(jobRowColumns))
	for k, name := range jobRowColumns {
		i, ok := col[name]
		switch {
		case !ok && name == "metadata":
			i = -1
		case !ok:
			return fmt.Errorf("%s: no column %q", path, name)
		}
		idx[k] = i
	}
	vals := make([]string, len(jobRowColumns))
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for k, i := range idx {
			vals[k] = ""
			if i >= 0 {
				vals[k] = rec[i]
			}
		}
		where := fmt.Sprintf("%s:%d", path, line)
		if err := row.parse(vals, where); err != nil {
			return err
		}
		if err := fn(where, &row); err != nil {
			return err
		}
	}
}

// parse sets r from vals, the values of jobRowColumns in that order.
func (r *JobRow) parse(vals []string, where string) error {
	num := func(k int, optional bool) (int64, bool, error) {
		s := vals[k]
		if optional && (s == "" || s == "-1") {
			return 0, false, nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(math.Abs(v) <= 1<<62) {
			return 0, false, fmt.Errorf("%s: %s: %q is not a number within ±2^62", where, jobRowColumns[k], s)
		}
		return int64(v), true, nil
	}
	*r = JobRow{State: vals[7], Alloc: vals[8], Metadata: vals[9]}
	var err error
	if r.ID, _, err = num(0, false); err != nil {
		return err
	}
	var v int64
	if v, _, err = num(1, false); err != nil {
		return err
	}
	r.Submit = workload.Time(v)
	if r.Procs, _, err = num(2, false); err != nil {
		return err
	}
	r.Estimate = workload.Unknown
	if v, ok, err := num(3, true); err != nil {
		return err
	} else if ok && v > 0 {
		r.Estimate = workload.Time(v)
	}
	switch r.State {
	case finalCompleted, finalWalltime, finalNodeFail:
		r.Ran = true
	case finalRejected, finalFailed, finalPending:
		return nil
	default:
		return fmt.Errorf("%s: final_state: unknown state %q", where, r.State)
	}
	var t [3]workload.Time
	for i := range t {
		v, ok, err := num(4+i, true)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s: %s: empty, but the job ran (%s)", where, jobRowColumns[4+i], r.State)
		}
		t[i] = workload.Time(v)
	}
	r.Start, r.Exec, r.End = t[0], t[1], t[2]
	return nil
}

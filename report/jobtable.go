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
	"strings"

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
	return ReadJobTableIn(path, 1, fn)
}

// ReadJobTableIn is ReadJobTable for a run whose time unit is 1/tick
// second (summary.json's time_unit; 1: seconds): the rows' times are in
// ticks. jobs.csv's times are seconds with the unit's decimals (88.510),
// read exactly; a value with more decimals than the unit has is an error.
// jobs.parquet's integer times are in the unit its MetaTimeUnit names
// (seconds without it), which must be tick's.
func ReadJobTableIn(path string, tick int64, fn func(where string, r *JobRow) error) error {
	tick = max(tick, 1)
	var row JobRow
	optional := make([]bool, len(jobRowColumns))
	optional[len(jobRowColumns)-1] = true // metadata
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
		unit, _, err := workload.ParquetMetadata(f, fi.Size(), path, MetaTimeUnit)
		if err != nil {
			return err
		}
		if u := TimeUnitName(tick); unit != u {
			return fmt.Errorf("%s: times in %s (%s), but the run's unit is %s", path, orSeconds(unit), MetaTimeUnit, orSeconds(u))
		}
		n := 0
		return workload.ScanParquetTable(f, fi.Size(), path, jobRowColumns, optional, func(vals []string) error {
			n++
			where := fmt.Sprintf("%s: row %d", path, n)
			// Integers, already in the run's ticks.
			if err := row.parse(vals, where, 1); err != nil {
				return err
			}
			return fn(where, &row)
		})
	}
	return ScanCSVTable(path, jobRowColumns, optional, func(where string, vals []string) error {
		if err := row.parse(vals, where, tick); err != nil {
			return err
		}
		return fn(where, &row)
	})
}

// ErrNoColumn is the error (wrapped, naming the file and the column) of a
// table that lacks a column its reader needs.
var ErrNoColumn = errors.New("no column")

// ScanCSVTable reads the CSV file at path, whose first line names its
// columns, and calls fn with the values of columns (in that order) of each
// line, and where, the line's place for messages ("jobs.csv:12"); it stops
// at fn's first error, which it returns. A column missing from the file is
// an error unless optional says so ([k] for columns[k]; nil: none), when
// its values are "". vals is reused for the next line. It is the CSV
// counterpart of workload.ScanParquetTable: the one reader of schedsim's
// per-job tables.
func ScanCSVTable(path string, columns []string, optional []bool, fn func(where string, vals []string) error) error {
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
	idx := make([]int, len(columns))
	for k, name := range columns {
		i, ok := col[name]
		if !ok {
			if k >= len(optional) || !optional[k] {
				return fmt.Errorf("%s: %w %q", path, ErrNoColumn, name)
			}
			i = -1
		}
		idx[k] = i
	}
	vals := make([]string, len(columns))
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
		if err := fn(fmt.Sprintf("%s:%d", path, line), vals); err != nil {
			return err
		}
	}
}

// parse sets r from vals, the values of jobRowColumns in that order, its
// times in ticks of 1/tick second (ParseTicks) when tick > 1.
func (r *JobRow) parse(vals []string, where string, tick int64) error {
	num := func(k int, optional bool) (int64, bool, error) {
		s := vals[k]
		if optional && (s == "" || s == "-1") {
			return 0, false, nil
		}
		if tick > 1 && k != 0 && k != 2 {
			v, err := ParseTicks(s, tick)
			if err != nil {
				return 0, false, fmt.Errorf("%s: %s: %v", where, jobRowColumns[k], err)
			}
			return v, true, nil
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

// MetaTimeUnit is the key/value metadata of a jobs.parquet written by a
// run in a time unit finer than the second: "ms" or "us", the unit of its
// integer times (submission_time to turnaround_time). Without it they are
// whole seconds.
const MetaTimeUnit = "schedsim.time_unit"

// TimeUnitName returns the name of the time unit of tick ticks a second:
// "" for seconds (1), "ms", "us", or "1/N s" for another.
func TimeUnitName(tick int64) string {
	switch tick {
	case 0, 1:
		return ""
	case 1000:
		return "ms"
	case 1_000_000:
		return "us"
	}
	return "1/" + strconv.FormatInt(tick, 10) + " s"
}

// orSeconds names a unit for messages: "seconds" for "".
func orSeconds(unit string) string {
	if unit == "" {
		return "seconds"
	}
	return unit
}

// ParseTicks reads s, a time in seconds with at most the decimals of a
// tick of 1/tick second (tick a power of ten: 88, 88.5, 88.510 in ms), as
// a whole number of ticks, exactly. More decimals than the unit has, or
// a value beyond ±2^62 ticks, is an error.
func ParseTicks(s string, tick int64) (int64, error) {
	bad := func() (int64, error) {
		return 0, fmt.Errorf("%q is not a time in seconds with at most %d decimals (the run's unit is 1/%d s)", s, decimals(tick), tick)
	}
	neg := false
	t := s
	if strings.HasPrefix(t, "-") {
		neg, t = true, t[1:]
	}
	whole, frac, _ := strings.Cut(t, ".")
	if whole == "" || len(frac) > decimals(tick) {
		return bad()
	}
	w, err := strconv.ParseUint(whole, 10, 63)
	if err != nil || w > (1<<62)/uint64(tick) {
		return bad()
	}
	v := int64(w) * tick
	scale := tick
	for i := 0; i < len(frac); i++ {
		c := frac[i]
		if c < '0' || c > '9' {
			return bad()
		}
		scale /= 10
		v += int64(c-'0') * scale
	}
	if neg {
		v = -v
	}
	return v, nil
}

// decimals returns the decimals of a tick of 1/tick second: 3 for 1000.
func decimals(tick int64) int {
	n := 0
	for d := tick; d >= 10; d /= 10 {
		n++
	}
	return n
}

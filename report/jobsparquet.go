package report

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

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
// In a run whose time unit is finer than the second (SetTick), the integer
// times are in that unit's ticks and the key/value metadata MetaTimeUnit
// names it ("ms", "us"); the metadata column's instants are in seconds
// with the unit's decimals, as in jobs.csv; the timestamps are
// TIMESTAMP(MILLIS) in ms and TIMESTAMP(MICROS) in µs, so no tick is lost.
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
	// Set by Journal and Replay (checkpoints): the rows written since
	// the last TakeRows, and the rows to write first.
	journal bool
	rows    []byte
	replay  []byte
	// tick is the run's ticks a second (SetTick; 0 or 1: seconds).
	tick int64
}

// SetTick tells p the run's times are ticks of 1/tick second. It must be
// called before the first row, if at all.
func (p *JobsParquet) SetTick(tick int64) {
	if !p.started {
		p.tick = tick
	}
}

// stampUnit returns the timestamps' ticks a second: 1000 (MILLIS), or
// 10^6 (MICROS) for a run finer than the millisecond.
func (p *JobsParquet) stampUnit() int64 {
	if p.tick > 1000 {
		return 1_000_000
	}
	return 1000
}

// writeStamp writes the timestamp of t, in the run's ticks.
func (p *JobsParquet) writeStamp(t workload.Time) {
	u := p.stampUnit()
	v := p.epochMs/1000*u + int64(t)*(u/max(p.tick, 1))
	if u == 1000 {
		p.ms(v)
	} else {
		p.us(v)
	}
}

var _ sim.Observer = (*JobsParquet)(nil)

// Wants implements sim.Observer: the records.
func (p *JobsParquet) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds, JobHead: false} }

// Observe implements sim.Observer: JobDone with the event's record.
func (p *JobsParquet) Observe(e *sim.Event) { p.JobDone(e.Record) }

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
		if p.stampUnit() != 1000 {
			cols = slices.Clone(cols)
			for i := len(jobsParquetColumns); i < len(cols); i++ {
				cols[i].Type = workload.ParquetTimestampMicros
			}
		}
	}
	meta := [][2]string{{MetaTable, "jobs"}}
	if u := TimeUnitName(p.tick); u != "" {
		meta = append(meta, [2]string{MetaTimeUnit, u})
	}
	if p.header != "" {
		meta = append(meta, [2]string{workload.MetaSWFHeader, p.header})
	}
	p.t, p.err = workload.NewParquetTable(p.w, cols, append(meta, p.meta...)...)
	p.meta = nil
	if p.err == nil && len(p.replay) > 0 {
		p.err = p.replayRows(p.replay)
	}
	p.replay = nil
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
	p.i64(j.ID)
	p.str(p.name)
	p.str("delay")
	p.i64(int64(j.Submit))
	p.i64(int64(j.Procs))
	if j.HasEstimate() {
		p.i64(int64(j.Estimate))
	} else {
		p.null()
	}
	switch r.State {
	case sim.Completed:
		p.i64(1)
		p.str(finalCompleted)
	case sim.Killed:
		p.i64(0)
		p.str(finalWalltime)
	case sim.NodeFail, sim.LimitKilled, sim.Preempted:
		p.i64(0)
		p.str(finalNodeFail)
	case sim.Rejected, sim.Failed, sim.Pending:
		p.i64(0)
		meta := r.Reason
		switch r.State {
		case sim.Failed:
			p.str(finalFailed)
			meta = FailedMetadataIn(r, p.tick)
		case sim.Pending:
			p.str(finalPending)
			meta = FailedMetadataIn(r, p.tick)
		default:
			p.str(finalRejected)
		}
		for range 6 { // starting_time to stretch
			p.null()
		}
		p.str("")
		p.null()
		p.str(meta)
		if p.stamp {
			p.writeStamp(j.Submit)
			p.null()
			p.null()
		}
		p.err = p.endRow()
		return
	default:
		panic(fmt.Sprintf("report: job %d has unknown state %v", j.ID, r.State))
	}
	exec := int64(r.End - r.Start)
	turnaround := int64(r.End - j.Submit)
	p.i64(int64(r.Start))
	p.i64(exec)
	p.i64(int64(r.End))
	p.i64(int64(r.Start - j.Submit))
	p.i64(turnaround)
	if exec > 0 {
		p.f64(float64(turnaround) / float64(exec))
	} else {
		p.null()
	}
	p.alloc = cluster.FormatRanges(p.alloc[:0], r.Alloc)
	p.str(string(p.alloc))
	if r.HasEnergy {
		p.f64(r.Energy)
	} else {
		p.null()
	}
	p.str(RanMetadataIn(r, p.tick))
	if p.stamp {
		p.writeStamp(j.Submit)
		p.writeStamp(r.Start)
		p.writeStamp(r.End)
	}
	p.err = p.endRow()
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

// Checkpoints. jobs.parquet is written whole at the end of a run (its
// footer describes every row group), so a checkpoint cannot keep a part of
// the file. It keeps the rows instead: with Journal on, every row's values
// are also encoded, as they are given to the table, and TakeRows hands
// over those since the last call; a resumed run gives all of them back to
// Replay, which writes them first, so that the resumed run's file is the
// uninterrupted run's, byte for byte.
//
// The encoding is a kind byte per value, then its payload: 'i' and 'm'
// (a timestamp) a signed varint, 'd' the float64's 8 bits little-endian,
// 's' an unsigned varint length and the bytes, 'n' a null; 'e' ends a row.

// Journal makes the writer keep the rows it writes for TakeRows.
func (p *JobsParquet) Journal() { p.journal = true }

// TakeRows returns the rows written since the previous call (see Journal),
// encoded; the writer forgets them.
func (p *JobsParquet) TakeRows() []byte {
	b := p.rows
	p.rows = nil
	return b
}

// Replay gives the rows a checkpointed run had written (the chunks
// TakeRows returned, end to end): they are written before the next row.
// It must be called before the first row.
func (p *JobsParquet) Replay(rows []byte) error {
	if p.started {
		return errors.New("report: jobs.parquet: rows replayed after the first row")
	}
	if err := checkRows(rows); err != nil {
		return err
	}
	p.replay = rows
	return nil
}

func (p *JobsParquet) i64(v int64) {
	p.t.Int64(v)
	if p.journal {
		p.rows = binary.AppendVarint(append(p.rows, 'i'), v)
	}
}

func (p *JobsParquet) ms(v int64) {
	p.t.Millis(v)
	if p.journal {
		p.rows = binary.AppendVarint(append(p.rows, 'm'), v)
	}
}

func (p *JobsParquet) us(v int64) {
	p.t.Micros(v)
	if p.journal {
		p.rows = binary.AppendVarint(append(p.rows, 'u'), v)
	}
}

func (p *JobsParquet) f64(v float64) {
	p.t.Double(v)
	if p.journal {
		p.rows = binary.LittleEndian.AppendUint64(append(p.rows, 'd'), math.Float64bits(v))
	}
}

func (p *JobsParquet) str(v string) {
	p.t.String(v)
	if p.journal {
		p.rows = append(binary.AppendUvarint(append(p.rows, 's'), uint64(len(v))), v...)
	}
}

func (p *JobsParquet) null() {
	p.t.Null()
	if p.journal {
		p.rows = append(p.rows, 'n')
	}
}

func (p *JobsParquet) endRow() error {
	if p.journal {
		p.rows = append(p.rows, 'e')
	}
	return p.t.EndRow()
}

// errRows is returned for rows that do not decode.
var errRows = errors.New("report: jobs.parquet: the checkpoint's rows do not decode")

// walkRows decodes rows, giving each value to t (nil t: only checks them).
// The rows must end with a whole row.
func walkRows(rows []byte, t *workload.ParquetTable) error {
	whole := true
	for len(rows) > 0 {
		kind := rows[0]
		rows = rows[1:]
		whole = kind == 'e'
		switch kind {
		case 'i', 'm', 'u':
			v, n := binary.Varint(rows)
			if n <= 0 {
				return errRows
			}
			rows = rows[n:]
			switch {
			case t == nil:
			case kind == 'i':
				t.Int64(v)
			case kind == 'm':
				t.Millis(v)
			default:
				t.Micros(v)
			}
		case 'd':
			if len(rows) < 8 {
				return errRows
			}
			if t != nil {
				t.Double(math.Float64frombits(binary.LittleEndian.Uint64(rows)))
			}
			rows = rows[8:]
		case 's':
			l, n := binary.Uvarint(rows)
			if n <= 0 || l > uint64(len(rows)-n) {
				return errRows
			}
			if t != nil {
				t.String(string(rows[n : n+int(l)]))
			}
			rows = rows[n+int(l):]
		case 'n':
			if t != nil {
				t.Null()
			}
		case 'e':
			if t != nil {
				if err := t.EndRow(); err != nil {
					return err
				}
			}
		default:
			return errRows
		}
	}
	if !whole {
		return errRows
	}
	return nil
}

// checkRows checks that rows decode, and end with a whole row.
func checkRows(rows []byte) error { return walkRows(rows, nil) }

// replayRows writes rows into the table (they are not journaled again:
// the checkpoint has them).
func (p *JobsParquet) replayRows(rows []byte) error { return walkRows(rows, p.t) }

package workload

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// ParquetType is the type of a ParquetTable column.
type ParquetType uint8

// Values of ParquetType.
const (
	// ParquetInt64 is a 64-bit integer column (Parquet INT64).
	ParquetInt64 ParquetType = iota
	// ParquetDouble is a float64 column (Parquet DOUBLE).
	ParquetDouble
	// ParquetString is a UTF-8 text column (Parquet BYTE_ARRAY, STRING).
	ParquetString
	// ParquetTimestamp is an instant column: Parquet INT64 with the
	// logical type TIMESTAMP(isAdjustedToUTC=true, unit=MILLIS), which
	// pandas, polars and DuckDB read as a UTC date-time. Its values are
	// milliseconds since the Unix epoch (see ParquetTable.Millis).
	ParquetTimestamp
	// ParquetTimestampMicros is ParquetTimestamp in microseconds
	// (unit=MICROS; see ParquetTable.Micros).
	ParquetTimestampMicros
)

// ParquetColumn describes one column of a ParquetTable.
type ParquetColumn struct {
	Name string
	Type ParquetType
	// Optional columns may hold nulls (see ParquetTable.Null).
	Optional bool
	// Delta stores an integer column with delta encoding, which suits
	// sorted or slowly changing values (submit times, job numbers).
	Delta bool
}

// parquetRowGroupRows is the number of rows per row group of the files
// schedsim writes: a reader needs about one row group's pages in memory at
// a time, whatever the file's length.
const parquetRowGroupRows = 128 << 10

// parquetBatch is the number of rows a ParquetTable buffers before it hands
// them to the Parquet writer.
const parquetBatch = 1024

// ParquetTable writes a flat Parquet file one row at a time, streaming: it
// holds at most one row group (128 Ki rows) in memory, compressed with
// Snappy. Each row is its columns' values in column order, one call per
// column (Int64, Double, String or Null), then EndRow. Close writes the
// footer; it does not close the underlying writer.
//
// It is the Parquet writer of packages that may not import parquet-go (only
// workload may): report writes jobs.parquet with it.
type ParquetTable struct {
	w    *parquet.Writer
	cols []ParquetColumn
	rows []parquet.Row
	n    int // rows buffered
	col  int // next column of the current row
	err  error
}

// NewParquetTable returns a table writing to w with the given columns and
// key/value metadata (written in the footer; keys in the order given). The
// file's created_by and its MetaVersion metadata name the schedsim build
// (Version).
func NewParquetTable(w io.Writer, cols []ParquetColumn, metadata ...[2]string) (*ParquetTable, error) {
	if len(cols) == 0 {
		return nil, fmt.Errorf("workload: Parquet table without columns")
	}
	g := orderedGroup{Group: parquet.Group{}}
	for _, c := range cols {
		if c.Name == "" || g.Group[c.Name] != nil {
			return nil, fmt.Errorf("workload: Parquet table: column name %q empty or repeated", c.Name)
		}
		var n parquet.Node
		switch c.Type {
		case ParquetInt64:
			n = parquet.Leaf(parquet.Int64Type)
			if c.Delta {
				n = parquet.Encoded(n, &parquet.DeltaBinaryPacked)
			}
		case ParquetDouble:
			n = parquet.Leaf(parquet.DoubleType)
		case ParquetString:
			n = parquet.Encoded(parquet.String(), &parquet.RLEDictionary)
		case ParquetTimestamp, ParquetTimestampMicros:
			n = parquet.Timestamp(parquet.Millisecond)
			if c.Type == ParquetTimestampMicros {
				n = parquet.Timestamp(parquet.Microsecond)
			}
			if c.Delta {
				n = parquet.Encoded(n, &parquet.DeltaBinaryPacked)
			}
		default:
			return nil, fmt.Errorf("workload: Parquet table: column %q has unknown type %d", c.Name, c.Type)
		}
		if c.Optional {
			n = parquet.Optional(n)
		}
		g.Group[c.Name] = n
		g.order = append(g.order, c.Name)
	}
	opts := []parquet.WriterOption{
		parquet.NewSchema("schedsim", g),
		parquet.Compression(&parquet.Snappy),
		parquet.MaxRowsPerRowGroup(parquetRowGroupRows),
	}
	opts = append(opts, versionOptions()...)
	for _, kv := range metadata {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	t := &ParquetTable{w: parquet.NewWriter(w, opts...), cols: cols, rows: make([]parquet.Row, parquetBatch)}
	for i := range t.rows {
		t.rows[i] = make(parquet.Row, len(cols))
	}
	return t, nil
}

// versionOptions are the writer options that record the schedsim build in
// a Parquet file: created_by (Build.CreatedBy) and MetaVersion.
func versionOptions() []parquet.WriterOption {
	b := thisBuild()
	return []parquet.WriterOption{
		&parquet.WriterConfig{CreatedBy: b.CreatedBy()},
		parquet.KeyValueMetadata(MetaVersion, b.Version()),
	}
}

// orderedGroup is a parquet.Group whose fields keep the order given
// (parquet.Group sorts them by name).
type orderedGroup struct {
	parquet.Group
	order []string
}

// Fields returns the group's fields in the order given.
func (g orderedGroup) Fields() []parquet.Field {
	sorted := g.Group.Fields()
	out := make([]parquet.Field, 0, len(sorted))
	for _, name := range g.order {
		for _, f := range sorted {
			if f.Name() == name {
				out = append(out, f)
			}
		}
	}
	return out
}

// value stores v as the current row's next column.
func (t *ParquetTable) value(v parquet.Value, null bool, want ParquetType) {
	if t.err != nil {
		return
	}
	if t.col >= len(t.cols) {
		t.err = fmt.Errorf("workload: Parquet table: more than %d values in a row", len(t.cols))
		return
	}
	c := t.cols[t.col]
	switch {
	case null && !c.Optional:
		t.err = fmt.Errorf("workload: Parquet table: null in required column %q", c.Name)
		return
	case !null && c.Type != want:
		t.err = fmt.Errorf("workload: Parquet table: column %q: wrong value type", c.Name)
		return
	}
	def := 0
	if c.Optional && !null {
		def = 1
	}
	t.rows[t.n][t.col] = v.Level(0, def, t.col)
	t.col++
}

// Int64 sets the current row's next column, an int64 column, to v.
func (t *ParquetTable) Int64(v int64) { t.value(parquet.Int64Value(v), false, ParquetInt64) }

// Double sets the current row's next column, a float64 column, to v.
func (t *ParquetTable) Double(v float64) { t.value(parquet.DoubleValue(v), false, ParquetDouble) }

// String sets the current row's next column, a string column, to s.
func (t *ParquetTable) String(s string) {
	t.value(parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s))), false, ParquetString)
}

// Millis sets the current row's next column, a timestamp column
// (ParquetTimestamp), to ms milliseconds since the Unix epoch.
func (t *ParquetTable) Millis(ms int64) {
	t.value(parquet.Int64Value(ms), false, ParquetTimestamp)
}

// Micros sets the current row's next column, a timestamp column in
// microseconds (ParquetTimestampMicros), to us microseconds since the Unix
// epoch.
func (t *ParquetTable) Micros(us int64) {
	t.value(parquet.Int64Value(us), false, ParquetTimestampMicros)
}

// SetMetadata sets the key/value metadata key to value, replacing a value
// given before (to NewParquetTable or SetMetadata). It may be called at
// any time before Close: the metadata is written in the footer.
func (t *ParquetTable) SetMetadata(key, value string) {
	t.w.SetKeyValueMetadata(key, value)
}

// Null sets the current row's next column, an optional column, to null.
func (t *ParquetTable) Null() { t.value(parquet.NullValue(), true, 0) }

// EndRow ends the current row, which must have a value for every column. It
// returns the first error of the row or of writing.
func (t *ParquetTable) EndRow() error {
	if t.err != nil {
		return t.err
	}
	if t.col != len(t.cols) {
		t.err = fmt.Errorf("workload: Parquet table: row with %d values, want %d", t.col, len(t.cols))
		return t.err
	}
	t.col = 0
	t.n++
	if t.n == len(t.rows) {
		return t.flush()
	}
	return nil
}

func (t *ParquetTable) flush() error {
	if t.n > 0 && t.err == nil {
		if _, err := t.w.WriteRows(t.rows[:t.n]); err != nil {
			t.err = err
		}
		// Drop references to the caller's strings.
		for i := range t.rows[:t.n] {
			clear(t.rows[i])
		}
		t.n = 0
	}
	return t.err
}

// Close writes the buffered rows and the file's footer.
func (t *ParquetTable) Close() error {
	if t.col != 0 && t.err == nil {
		t.err = fmt.Errorf("workload: Parquet table: closed in the middle of a row")
	}
	if err := t.flush(); err != nil {
		return err
	}
	if err := t.w.Close(); err != nil {
		t.err = err
		return err
	}
	t.err = errClosed
	return nil
}

var errClosed = fmt.Errorf("workload: Parquet table already closed")

// Metadata keys of the Parquet files ParquetWriter writes.
const (
	// MetaSWFHeader holds the trace's SWF header comment block, one ";"
	// line each, as an SWF file would start.
	MetaSWFHeader = "schedsim.swf_header"
	// MetaSchema names the schema version: "schedsim.job/1".
	MetaSchema = "schedsim.schema"
	// MetaVersion holds the version of schedsim that wrote the file
	// (Version). Every Parquet file schedsim writes has it, traces and
	// result tables alike.
	MetaVersion = "schedsim.version"
)

// parquetSchemaVersion is the value of MetaSchema.
const parquetSchemaVersion = "schedsim.job/1"

// ParquetSchema documents schedsim's Parquet job schema: the columns
// ParquetWriter writes and a reader without column mapping reads, in this
// order. Names are SWF's fields in snake_case, then what SWF lacks. Times
// are seconds (submit_time and hold_until since the trace's start),
// memory is KB. Every column but job_id is optional, and a null (or -1,
// SWF's "unknown") means unknown (a job with an unknown submit time is
// dropped by readers, as an SWF line with -1 there is); the extension
// columns, from min_procs on, are 0 (or empty) when unknown. A reader needs
// job_id, submit_time, run_time and one of requested_procs and
// allocated_procs; it accepts the columns in any order, any integer or
// floating type for numbers, and ignores columns it does not know. Rows
// need not be sorted by submit_time (a reader sorts them, see Open). The
// SWF header is kept in the key/value metadata (MetaSWFHeader).
//
// When the trace's start is known (the header's UnixStartTime),
// ParquetWriter adds ParquetTimeColumns after these.
var ParquetSchema = []ParquetColumn{
	{Name: "job_id", Type: ParquetInt64, Delta: true},                      // SWF 1: job number
	{Name: "submit_time", Type: ParquetInt64, Optional: true, Delta: true}, // SWF 2: s since the trace start
	{Name: "wait_time", Type: ParquetDouble, Optional: true},               // SWF 3: s
	{Name: "run_time", Type: ParquetDouble, Optional: true},                // SWF 4: s
	{Name: "allocated_procs", Type: ParquetInt64, Optional: true},          // SWF 5
	{Name: "avg_cpu_time", Type: ParquetDouble, Optional: true},            // SWF 6: s per processor
	{Name: "used_memory", Type: ParquetDouble, Optional: true},             // SWF 7: KB per processor
	{Name: "requested_procs", Type: ParquetInt64, Optional: true},          // SWF 8
	{Name: "requested_time", Type: ParquetDouble, Optional: true},          // SWF 9: s (the wall-clock limit)
	{Name: "requested_memory", Type: ParquetDouble, Optional: true},        // SWF 10: KB per processor
	{Name: "status", Type: ParquetInt64, Optional: true},                   // SWF 11: 1 completed, 0 failed, 5 cancelled, 2–4 partial
	{Name: "user_id", Type: ParquetInt64, Optional: true},                  // SWF 12
	{Name: "group_id", Type: ParquetInt64, Optional: true},                 // SWF 13
	{Name: "executable", Type: ParquetInt64, Optional: true},               // SWF 14
	{Name: "queue", Type: ParquetInt64, Optional: true},                    // SWF 15
	{Name: "partition", Type: ParquetInt64, Optional: true},                // SWF 16
	{Name: "preceding_job", Type: ParquetInt64, Optional: true},            // SWF 17
	{Name: "think_time", Type: ParquetDouble, Optional: true},              // SWF 18: s
	{Name: "min_procs", Type: ParquetInt64, Optional: true},                // fewest processors the job runs on
	{Name: "max_procs", Type: ParquetInt64, Optional: true},                // most processors the job can use
	{Name: "requested_nodes", Type: ParquetInt64, Optional: true},          // nodes requested
	{Name: "memory_per_node", Type: ParquetInt64, Optional: true},          // KB per node
	{Name: "licenses", Type: ParquetString, Optional: true},                // "name:count,…"
	{Name: "job_template", Type: ParquetString, Optional: true},            // the job template's name
	{Name: "priority", Type: ParquetInt64, Optional: true},                 // any sign
	{Name: "hold_until", Type: ParquetInt64, Optional: true, Delta: true},  // s since the trace start
}

// ParquetTimeColumns are the columns ParquetWriter adds to ParquetSchema's
// when the trace's start is known (Header.UnixStart): the recorded submit,
// start (submit + wait) and end (start + run) instants as UTC timestamps
// (ParquetTimestamp), null where a time they need is unknown. Readers of
// the native schema ignore them: the seconds columns are the data.
var ParquetTimeColumns = []ParquetColumn{
	{Name: "submit_time_ts", Type: ParquetTimestamp, Optional: true},
	{Name: "start_time_ts", Type: ParquetTimestamp, Optional: true},
	{Name: "end_time_ts", Type: ParquetTimestamp, Optional: true},
}

// HeaderText returns h as the comment lines an SWF file written with it
// starts with (see SWFWriter), "" for an empty header: what MetaSWFHeader
// holds.
func HeaderText(h *Header) (string, error) {
	var b strings.Builder
	sw, err := NewSWFWriter(&b, h)
	if err != nil {
		return "", err
	}
	if err := sw.Flush(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// ParquetWriter writes jobs as a Parquet file of schedsim's job schema
// (ParquetSchema), streaming, with the header in the file's metadata.
// Reading the file back with Open and the rules the jobs were read with
// gives the same jobs (but for Seq, which counts the records written), as
// SWFWriter's output does.
//
// As SWFWriter, it writes a job's raw fields (RawRun, AllocProcs, ReqProcs,
// ReqTime, …) and Submit, not the cleaned Procs, Run and Estimate; -1 (SWF's
// "unknown") is written as null, submit time included, and so are the
// extension fields when 0 or empty. With a header that gives the trace's
// start, the rows carry ParquetTimeColumns too.
type ParquetWriter struct {
	t     *ParquetTable
	last  Time
	epoch int64 // the trace's start in Unix seconds, when stamps is set
	stamp bool  // write ParquetTimeColumns
}

// NewParquetWriter returns a writer to w; h (nil for none) is stored in the
// metadata as SWF header text (see SWFWriter for how a header is written).
func NewParquetWriter(w io.Writer, h *Header) (*ParquetWriter, error) {
	meta := [][2]string{{MetaSchema, parquetSchemaVersion}}
	if h != nil {
		text, err := HeaderText(h)
		if err != nil {
			return nil, err
		}
		if text != "" {
			meta = append(meta, [2]string{MetaSWFHeader, text})
		}
	}
	pw := &ParquetWriter{last: math.MinInt64}
	cols := ParquetSchema
	if h != nil {
		pw.epoch, pw.stamp = h.UnixStart()
	}
	if pw.stamp {
		cols = append(slices.Clip(cols), ParquetTimeColumns...)
	}
	t, err := NewParquetTable(w, cols, meta...)
	if err != nil {
		return nil, err
	}
	pw.t = t
	return pw, nil
}

// Write writes one job. As SWFWriter.Write, it returns an error, and writes
// nothing, for a job a reader would reject: a value that is NaN, infinite or
// beyond ±1e15, or a submit time earlier than the previous job's (jobs with
// a negative submit time, which readers drop, are exempt).
func (pw *ParquetWriter) Write(j *Job) error {
	if j.Submit >= 0 && j.Submit < pw.last {
		return fmt.Errorf("workload: Parquet writer: job %d: submit time %d is earlier than the previous job's %d", j.ID, j.Submit, pw.last)
	}
	for k, v := range [...]float64{
		float64(j.ID), float64(j.Submit), j.RawWait, j.RawRun, float64(j.AllocProcs), j.AvgCPUSec, j.UsedMemKB, float64(j.ReqProcs),
		j.ReqTime, j.ReqMemKB, float64(j.Status), float64(j.User), float64(j.Group),
		float64(j.Executable), float64(j.Queue), float64(j.Partition), float64(j.PrecedingJob), j.ThinkTime,
		float64(j.MinProcs), float64(j.MaxProcs), float64(j.ReqNodes), float64(j.MemPerNodeKB), float64(j.Priority), float64(j.HoldUntil),
	} {
		if !(math.Abs(v) <= maxSWFValue) {
			name := "extension field"
			if k < len(SWFFieldNames) {
				name = SWFFieldNames[k]
			}
			return fmt.Errorf("workload: Parquet writer: job %d: %s = %v is out of range", j.ID, name, v)
		}
	}
	t := pw.t
	t.Int64(j.ID)
	optInt(t, int64(j.Submit))
	optDouble(t, j.RawWait)
	optDouble(t, j.RawRun)
	optInt(t, int64(j.AllocProcs))
	optDouble(t, j.AvgCPUSec)
	optDouble(t, j.UsedMemKB)
	optInt(t, int64(j.ReqProcs))
	optDouble(t, j.ReqTime)
	optDouble(t, j.ReqMemKB)
	optInt(t, int64(j.Status))
	optInt(t, int64(j.User))
	optInt(t, int64(j.Group))
	optInt(t, int64(j.Executable))
	optInt(t, int64(j.Queue))
	optInt(t, int64(j.Partition))
	optInt(t, j.PrecedingJob)
	optDouble(t, j.ThinkTime)
	for _, v := range [...]int64{j.MinProcs, j.MaxProcs, j.ReqNodes, j.MemPerNodeKB} {
		if v == 0 {
			t.Null()
		} else {
			t.Int64(v)
		}
	}
	for _, s := range [...]string{j.Licenses, j.Template} {
		if s == "" {
			t.Null()
		} else {
			t.String(s)
		}
	}
	for _, v := range [...]int64{j.Priority, int64(j.HoldUntil)} {
		if v == 0 {
			t.Null()
		} else {
			t.Int64(v)
		}
	}
	if pw.stamp {
		pw.stamps(j)
	}
	if err := t.EndRow(); err != nil {
		return err
	}
	if j.Submit >= 0 {
		pw.last = j.Submit
	}
	return nil
}

// Close writes the buffered jobs and the file's footer; it does not close
// the underlying writer.
func (pw *ParquetWriter) Close() error { return pw.t.Close() }

// stamps writes j's ParquetTimeColumns: its recorded submit, start and
// end instants in milliseconds since the Unix epoch, each null when a time
// it is made of is unknown (negative). Fractional seconds are kept to the
// millisecond.
func (pw *ParquetWriter) stamps(j *Job) {
	t := pw.t
	if j.Submit < 0 {
		t.Null()
		t.Null()
		t.Null()
		return
	}
	base := pw.epoch*1000 + int64(j.Submit)*1000
	t.Millis(base)
	if j.RawWait < 0 {
		t.Null()
		t.Null()
		return
	}
	start := base + int64(math.Round(j.RawWait*1000))
	t.Millis(start)
	if j.RawRun < 0 {
		t.Null()
		return
	}
	t.Millis(start + int64(math.Round(j.RawRun*1000)))
}

// optDouble writes v, or null for SWF's unknown (-1).
func optDouble(t *ParquetTable, v float64) {
	if v == Unknown {
		t.Null()
	} else {
		t.Double(v)
	}
}

// optInt writes v, or null for SWF's unknown (-1).
func optInt(t *ParquetTable, v int64) {
	if v == Unknown {
		t.Null()
	} else {
		t.Int64(v)
	}
}

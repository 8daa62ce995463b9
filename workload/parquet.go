package workload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// ParquetReader streams the jobs of a Parquet trace, applying the cleaning
// rules as SWFReader does. It reads schedsim's job schema (ParquetSchema) or,
// through a ColumnMap, a dataset's own. Only the mapped columns are read, one
// page of each at a time, row group after row group, so memory does not grow
// with the trace.
//
// Values are checked as an SWF reader checks them, and more strictly: a
// value below -1 in a count, time or memory field, a fraction in an integer
// field, a magnitude beyond 1e15, NaN or infinity is a *ParseError naming
// the row (1-based) and the column. Null means unknown (-1 in SWF's fields,
// 0 in the extension fields).
type ParquetReader struct {
	path   string
	closer io.Closer
	ra     io.ReaderAt
	file   *parquet.File
	cols   []*pqColumn
	binds  []*pqBinding
	by     [numTargets]*pqBinding
	hdr    Header
	cl     cleaner
	groups []parquet.RowGroup
	group  int   // index of the next row group
	left   int64 // rows left in the current row group
	row    int64 // 1-based number of the last row read
	// Absolute instants: origin is the first submit time, in Unix seconds.
	absolute bool
	origin   int64
	// unsorted says that a row's submit time comes before an earlier
	// row's (see scanSubmits and sortedSource); collect makes Next
	// return each row uncleaned (see records).
	unsorted, collect bool
	// pages[g] is the sum over the columns read of their largest page in
	// row group g (uncompressed): what reading the row group a page of
	// each column at a time may hold at once. A row group whose sum
	// passes pageBudget is read in windows of rows (see pqWindow), with
	// windowBudget bytes of values.
	pages                    []int64
	pageBudget, windowBudget int64
	scratch                  pqScratch // the buffers of the windows' pqDirects
}

var _ Reader = (*ParquetReader)(nil)

// pqColumn is one file column being read.
type pqColumn struct {
	name   string
	index  int
	typ    parquet.Type
	pages  parquet.Pages
	values parquet.ValueReader
	buf    []parquet.Value
	i, n   int
	cur    parquet.Value
	win    *pqWindow // the values of a row group read in windows, else nil
	maxDef int       // the column's maximum definition level
	// How the column's values read as instants.
	perSec int64 // ticks per second of a TIMESTAMP column, 0 if not one
	int96  bool
	date   bool
	// unsigned marks an INT32 or INT64 column of an unsigned logical type
	// (INT(32, false), UINT_64, …): its values are the bits read as
	// unsigned, 4294967295 in INT32 and not -1.
	unsigned bool
}

// pqBinding is a target read from a column.
type pqBinding struct {
	t    target
	kind kind
	col  *pqColumn
	unit unitInfo
	ids  map[string]int64 // string ids numbered in order of first appearance
	last string           // last string value, reused while it repeats
}

// NewParquetReader reads the Parquet trace in ra (size bytes); path names it
// in errors. m maps the file's columns to job fields; nil means schedsim's
// schema (NativeColumns).
func NewParquetReader(ra io.ReaderAt, size int64, path string, rules Rules, m *ColumnMap) (*ParquetReader, error) {
	return newParquetReader(ra, size, path, rules, m, false)
}

// newParquetReader is NewParquetReader with Raw (raw).
func newParquetReader(ra io.ReaderAt, size int64, path string, rules Rules, m *ColumnMap, raw bool) (r *ParquetReader, err error) {
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	if m == nil {
		m = NativeColumns()
	}
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, &ParseError{Path: path, Err: fmt.Errorf("corrupt Parquet file: %v", p)}
		}
	}()
	if err := checkFooter(ra, size); err != nil {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: not a readable Parquet file: %v", ErrNotTrace, err)}
	}
	f, err := parquet.OpenFile(ra, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true), parquet.ReadBufferSize(64<<10))
	if err != nil {
		return nil, &ParseError{Path: path, Err: fmt.Errorf("%w: not a readable Parquet file: %v", ErrNotTrace, err)}
	}
	r = &ParquetReader{path: path, ra: ra, file: f, groups: f.RowGroups(), pageBudget: pqPageBudget, windowBudget: pqWindowBudget}
	r.cl = newCleaner(rules, &r.hdr, "Parquet rows")
	r.cl.raw = raw
	if err := r.bind(m); err != nil {
		return nil, err
	}
	if err := r.checkChunks(size); err != nil {
		return nil, err
	}
	if text, ok := f.Lookup(MetaSWFHeader); ok {
		for _, line := range strings.Split(text, "\n") {
			if t := strings.TrimSpace(line); strings.HasPrefix(t, ";") {
				r.hdr.addComment(t[1:], path, 0)
			}
		}
	}
	r.absolute = m.b[tSubmit].unitOf(kInstant).absolute
	if f.NumRows() > 0 {
		if err := r.scanSubmits(); err != nil {
			return nil, err
		}
	}
	if r.absolute && f.NumRows() > 0 {
		if r.hdr.Get("UnixStartTime") == "" {
			r.hdr.Fields = append(r.hdr.Fields, HeaderField{Key: "UnixStartTime", Value: strconv.FormatInt(r.origin, 10)})
		}
	}
	if err := r.cl.prepare(); err != nil {
		return nil, &ParseError{Path: path, Err: err}
	}
	return r, nil
}

// bind finds the mapped columns in the file and checks their types.
func (r *ParquetReader) bind(m *ColumnMap) error {
	root := r.file.Root()
	byName := make(map[string]*pqColumn)
	for t := range numTargets {
		b := m.b[t]
		if b.source == "" {
			continue
		}
		info := targetInfo[t]
		c := byName[b.source]
		if c == nil {
			col := root.Column(b.source)
			if col == nil {
				if b.optional {
					continue
				}
				return &ParseError{Path: r.path, Field: info.field, Column: b.source,
					Err: fmt.Errorf("required column is missing (it gives %s; the file has %s)", info.name, columnList(root))}
			}
			if !col.Leaf() || col.MaxRepetitionLevel() > 0 {
				return &ParseError{Path: r.path, Field: info.field, Column: b.source, Err: fmt.Errorf("is a group or a list, want one value per row for %s", info.name)}
			}
			c = &pqColumn{name: b.source, index: col.Index(), typ: col.Type(), buf: make([]parquet.Value, 512), maxDef: col.MaxDefinitionLevel()}
			c.describe()
			byName[b.source] = c
			r.cols = append(r.cols, c)
		}
		pb := &pqBinding{t: t, kind: info.kind, col: c, unit: b.unitOf(info.kind)}
		if err := pb.checkType(); err != nil {
			return &ParseError{Path: r.path, Field: info.field, Column: b.source, Err: err}
		}
		r.binds = append(r.binds, pb)
		r.by[t] = pb
	}
	if r.by[tReqProcs] == nil && r.by[tAllocProcs] == nil {
		return &ParseError{Path: r.path, Field: 8, Column: m.b[tReqProcs].source,
			Err: fmt.Errorf("required column is missing: the file needs requested_procs or allocated_procs (the file has %s)", columnList(root))}
	}
	if r.by[tRun] == nil && (r.by[tEnd] == nil || r.by[tStart] == nil) {
		return &ParseError{Path: r.path, Field: 4, Column: m.b[tRun].source,
			Err: fmt.Errorf("required column is missing: the file needs run_time, or start_time and end_time (the file has %s)", columnList(root))}
	}
	return nil
}

// checkFooter checks the file's ends before parquet-go reads it: the magic
// bytes, and a footer length that fits in the file (a corrupt length would
// have the footer buffer allocated at that size).
func checkFooter(ra io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("%d bytes, too short for Parquet", size)
	}
	var tail [8]byte
	if _, err := ra.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return fmt.Errorf("the file does not end with Parquet's magic bytes (truncated?)")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n+12 > size {
		return fmt.Errorf("footer of %d bytes in a file of %d (truncated?)", n, size)
	}
	footer := make([]byte, n)
	if _, err := ra.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	if _, _, err := checkThrift(footer); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	return nil
}

// checkPages walks the page headers of the column chunk at [start, end) and
// checks each (see checkThrift) and its sizes, before parquet-go allocates
// buffers of those sizes. It returns the largest uncompressed page size.
func checkPages(ra io.ReaderAt, start, end, maxUncompressed, maxValues int64) (largest int64, err error) {
	err = walkPages(ra, start, end, maxUncompressed, maxValues, func(_ int64, fields map[int32]int64) {
		largest = max(largest, fields[2])
	})
	return largest, err
}

// walkPages is checkPages calling visit with each page's checked header:
// the offset of its data and its fields (see checkThrift).
func walkPages(ra io.ReaderAt, start, end, maxUncompressed, maxValues int64, visit func(data int64, fields map[int32]int64)) error {
	var buf []byte
	for pos := start; pos < end; {
		for want := min(end-pos, 1024); ; want = min(end-pos, 4*want) {
			buf = append(buf[:0], make([]byte, want)...)
			if _, err := ra.ReadAt(buf, pos); err != nil && err != io.EOF {
				return err
			}
			n, fields, err := checkThrift(buf)
			if err != nil {
				if errors.Is(err, errThrift) && strings.Contains(err.Error(), "truncated") && want < end-pos {
					continue // a header longer than what was read
				}
				return fmt.Errorf("page header at byte %d: %w", pos, err)
			}
			unc, comp := fields[2], fields[3]
			if comp < 0 || comp > end-pos-int64(n) || unc < 0 || unc > maxUncompressed {
				return fmt.Errorf("page header at byte %d: %w: page sizes %d (compressed) and %d", pos, errThrift, comp, unc)
			}
			// num_values of a data page (v1: field 5.1, v2: 8.1, with
			// num_nulls 8.2 and num_rows 8.3) and of a dictionary page (7.1).
			for _, k := range [...]int32{5<<16 | 1, 8<<16 | 1, 8<<16 | 2, 8<<16 | 3} {
				if v := fields[k]; v < 0 || v > maxValues {
					return fmt.Errorf("page header at byte %d: %w: %d values in a chunk of %d", pos, errThrift, v, maxValues)
				}
			}
			if v := fields[7<<16|1]; v < 0 || v > unc {
				return fmt.Errorf("page header at byte %d: %w: a dictionary of %d values in %d bytes", pos, errThrift, v, unc)
			}
			visit(pos+int64(n), fields)
			pos += int64(n) + comp
			break
		}
	}
	return nil
}

// maxChunkBytes bounds a column chunk's uncompressed size: legitimate
// chunks of schedsim's row groups are a few MB, and a corrupt size would be
// allocated as given.
const maxChunkBytes = 1 << 30

// checkChunks checks the metadata of the column chunks to be read: within
// the file, of a sane size, one value per row. It sets r.pages.
func (r *ParquetReader) checkChunks(size int64) error {
	var rows int64
	pages := make([]int64, len(r.file.Metadata().RowGroups))
	r.pages = pages
	for i, g := range r.file.Metadata().RowGroups {
		if g.NumRows < 0 || len(g.Columns) != len(r.file.Schema().Columns()) {
			return &ParseError{Path: r.path, Err: fmt.Errorf("%w: row group %d is corrupt", ErrNotTrace, i)}
		}
		rows += g.NumRows
		for _, c := range r.cols {
			md := &g.Columns[c.index].MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
				start = md.DictionaryPageOffset
			}
			if start < 4 || md.TotalCompressedSize < 0 || start+md.TotalCompressedSize > size ||
				md.TotalUncompressedSize < 0 || md.TotalUncompressedSize > maxChunkBytes || md.NumValues != g.NumRows {
				return &ParseError{Path: r.path, Column: c.name, Err: fmt.Errorf("%w: the metadata of row group %d is corrupt", ErrNotTrace, i)}
			}
			largest, err := checkPages(r.ra, start, start+md.TotalCompressedSize, md.TotalUncompressedSize, md.NumValues)
			if err != nil {
				return &ParseError{Path: r.path, Column: c.name, Err: fmt.Errorf("%w: row group %d: %v", ErrNotTrace, i, err)}
			}
			pages[i] += largest
		}
	}
	if rows != r.file.NumRows() {
		return &ParseError{Path: r.path, Err: fmt.Errorf("%w: the row groups hold %d rows, the footer says %d", ErrNotTrace, rows, r.file.NumRows())}
	}
	return nil
}

// columnList names the file's top-level columns, for error messages.
func columnList(root *parquet.Column) string {
	var names []string
	for _, c := range root.Columns() {
		names = append(names, strconv.Quote(c.Name()))
	}
	if len(names) > 30 {
		names = append(names[:30], "…")
	}
	if len(names) == 0 {
		return "no columns"
	}
	return strings.Join(names, ", ")
}

// describe reads the column's logical type.
func (c *pqColumn) describe() {
	if lt := c.typ.LogicalType(); lt != nil {
		switch v := lt.Value.(type) {
		case *format.TimestampType:
			c.perSec = int64(time.Second / v.Unit.Value.Duration())
		case *format.DateType:
			c.date = true
		}
	}
	c.unsigned = isUnsigned(c.typ)
	if ct := c.typ.ConvertedType(); ct != nil && c.perSec == 0 {
		switch *ct {
		case deprecated.TimestampMillis:
			c.perSec = 1e3
		case deprecated.TimestampMicros:
			c.perSec = 1e6
		case deprecated.Date:
			c.date = true
		}
	}
	c.int96 = c.typ.Kind() == parquet.Int96
}

// isUnsigned reports whether t is an integer type that holds unsigned
// values (INT(n, false), or the converted types UINT_8 to UINT_64): its
// INT32 or INT64 bits are to be read as unsigned.
func isUnsigned(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		if it, ok := lt.Value.(*format.IntType); ok {
			return !it.IsSigned
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
			return true
		}
	}
	return false
}

// typeName describes the column's type for messages: "INT64", "BYTE_ARRAY
// (STRING)".
func (c *pqColumn) typeName() string {
	s := c.typ.Kind().String()
	if lt := c.typ.LogicalType(); lt != nil && lt.Value != nil {
		s += " (" + lt.Value.String() + ")"
	}
	return s
}

func (c *pqColumn) isNumber() bool {
	switch c.typ.Kind() {
	case parquet.Int32, parquet.Int64, parquet.Float, parquet.Double:
	default:
		return false
	}
	if c.perSec > 0 || c.date {
		return false
	}
	if lt := c.typ.LogicalType(); lt != nil {
		switch lt.Value.(type) {
		case *format.DecimalType, *format.TimeType:
			return false
		}
	}
	if ct := c.typ.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Decimal, deprecated.TimeMillis, deprecated.TimeMicros:
			return false
		}
	}
	return true
}

func (c *pqColumn) isString() bool { return c.typ.Kind() == parquet.ByteArray }

// checkType reports a column whose type cannot give the target.
func (b *pqBinding) checkType() error {
	c := b.col
	name := targetInfo[b.t].name
	bad := func(want string) error {
		hint := ""
		if c.perSec > 0 || c.int96 || c.date {
			hint = " (for a timestamp column, map it with :timestamp)"
		}
		return fmt.Errorf("has type %s, but %s wants %s%s", c.typeName(), name, want, hint)
	}
	switch b.kind {
	case kString:
		if !c.isString() {
			return bad("text (BYTE_ARRAY)")
		}
	case kJobID, kID:
		if !c.isNumber() && !c.isString() {
			return bad("an integer (INT32, INT64, or FLOAT/DOUBLE holding integers) or text")
		}
	case kCount, kSigned:
		if !c.isNumber() {
			return bad("an integer (INT32, INT64, or FLOAT/DOUBLE holding integers)")
		}
	case kDuration, kMemory:
		if !c.isNumber() {
			return bad("a number (INT32, INT64, FLOAT or DOUBLE)")
		}
	case kStatus:
		if b.unit.name == "slurm" {
			if !c.isString() {
				return bad("text (Slurm state names) with unit slurm")
			}
		} else if !c.isNumber() {
			return bad("an integer SWF status code (or text with unit slurm)")
		}
	case kInstant:
		switch {
		case b.unit.name == "timestamp":
			if !(c.isNumber() || c.isString() || c.perSec > 0 || c.int96 || c.date) {
				return bad("a timestamp (TIMESTAMP, INT96, DATE, a date-time string or Unix seconds)")
			}
		default:
			if !c.isNumber() {
				return bad("a number of seconds (or another unit)")
			}
		}
	}
	return nil
}

// scanSubmits reads the submit column once, before the rows: it sets the
// origin of absolute instants, the earliest non-null submit time rounded
// down to a second, and unsorted when a non-negative submit time comes
// before an earlier row's (negative ones, dropped as unknown, are not
// ordered). It holds about one page of the column at a time.
func (r *ParquetReader) scanSubmits() error {
	b := r.by[tSubmit]
	c := &pqColumn{name: b.col.name, index: b.col.index, typ: b.col.typ, buf: make([]parquet.Value, 512),
		perSec: b.col.perSec, int96: b.col.int96, date: b.col.date, unsigned: b.col.unsigned}
	pb := *b
	pb.col = c
	defer c.close()
	var row int64
	found := false
	last := math.Inf(-1)
	for _, g := range r.groups {
		c.close()
		c.pages = g.ColumnChunks()[c.index].Pages()
		for range g.NumRows() {
			row++
			v, err := c.next()
			if err != nil {
				return r.colError(row, &pb, err)
			}
			if v.IsNull() {
				continue
			}
			var x float64
			if r.absolute {
				sec, frac, err := pb.absolute(v)
				if err != nil {
					return r.colError(row, &pb, err)
				}
				if !found || sec < r.origin {
					r.origin = sec
				}
				found = true
				x = float64(sec) + frac
			} else {
				if x, err = pb.number(v); err != nil {
					return r.colError(row, &pb, err)
				}
				if x < 0 {
					continue
				}
			}
			if x < last {
				r.unsorted = true
			}
			last = x
		}
	}
	return nil
}

// close releases the column's pages.
func (c *pqColumn) close() {
	if c.pages != nil {
		c.pages.Close()
	}
	c.pages, c.values, c.i, c.n, c.win = nil, nil, 0, 0, nil
}

// next returns the column's next value.
func (c *pqColumn) next() (parquet.Value, error) {
	if c.win != nil {
		return c.win.next(c.buf)
	}
	for c.i == c.n {
		if c.values != nil {
			n, err := c.values.ReadValues(c.buf)
			if n > 0 {
				c.i, c.n = 0, n
				break
			}
			if err != nil && err != io.EOF {
				return parquet.Value{}, err
			}
			c.values = nil
		}
		if c.pages == nil {
			return parquet.Value{}, errors.New("no more values")
		}
		p, err := c.pages.ReadPage()
		if err == io.EOF {
			return parquet.Value{}, errors.New("the column has fewer values than the row group has rows (corrupt file)")
		}
		if err != nil {
			return parquet.Value{}, err
		}
		c.values = p.Values()
	}
	v := c.buf[c.i]
	c.i++
	return v, nil
}

// Header returns the header stored in the file's metadata (MetaSWFHeader),
// if any, plus UnixStartTime for absolute times.
func (r *ParquetReader) Header() *Header { return &r.hdr }

// Stats returns the counts of records read and rules applied so far.
func (r *ParquetReader) Stats() CleanStats { return r.cl.stats }

// Path returns the name of the input, as given.
func (r *ParquetReader) Path() string { return r.path }

// Close releases the pages being read and the underlying file, if Open
// opened it.
func (r *ParquetReader) Close() error {
	for _, c := range r.cols {
		c.close()
	}
	if r.closer != nil {
		err := r.closer.Close()
		r.closer = nil
		return err
	}
	return nil
}

func (r *ParquetReader) empty() bool { return r.file.NumRows() == 0 }

// errorAt returns a *ParseError about SWF field field of the last row read.
func (r *ParquetReader) errorAt(field int, err error) *ParseError {
	e := &ParseError{Path: r.path, Row: r.row, Field: field, Err: err}
	if field > 0 {
		if b := r.by[target(field-1)]; b != nil {
			e.Column = b.col.name
		}
	}
	return e
}

func (r *ParquetReader) colError(row int64, b *pqBinding, err error) *ParseError {
	return &ParseError{Path: r.path, Row: row, Field: targetInfo[b.t].field, Column: b.col.name, Err: err}
}

// Next reads the next kept job into j. It returns io.EOF after the last job,
// and a *ParseError for a bad row.
func (r *ParquetReader) Next(j *Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ParseError{Path: r.path, Row: r.row, Err: fmt.Errorf("corrupt Parquet data: %v", p)}
		}
	}()
	for {
		for r.left == 0 {
			if r.group == len(r.groups) {
				return io.EOF
			}
			g := r.groups[r.group]
			r.group++
			chunks := g.ColumnChunks()
			// Pages too large to hold one of each column at once are
			// read in windows of rows, one column at a time.
			var rows int
			if r.pages[r.group-1] > r.pageBudget {
				rows = max(int(float64(r.windowBudget)/(pqWindowValueBytes*float64(len(r.cols)))), 1)
			}
			for _, c := range r.cols {
				c.close()
				if rows > 0 {
					c.win = newPQWindow(chunks[c.index], c.typ.Kind(), g.NumRows(), rows)
					md := &r.file.Metadata().RowGroups[r.group-1].Columns[c.index].MetaData
					start := md.DataPageOffset
					if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
						start = md.DictionaryPageOffset
					}
					c.win.direct = newPQDirect(r.ra, start, start+md.TotalCompressedSize, md.TotalUncompressedSize, md.Codec, c.typ.Kind(), c.maxDef, g.NumRows(), &r.scratch)
				} else {
					c.pages = chunks[c.index].Pages()
				}
			}
			r.left = g.NumRows()
		}
		r.left--
		r.row++
		for _, c := range r.cols {
			v, err := c.next()
			if err != nil {
				return &ParseError{Path: r.path, Row: r.row, Column: c.name, Err: err}
			}
			c.cur = v
		}
		submit, err := r.decode(j)
		if err != nil {
			return err
		}
		if r.collect {
			return errRow{submit}
		}
		kept, err := r.cl.clean(j, submit)
		if err != nil {
			return r.errorAt(errField(err), err)
		}
		if kept {
			return nil
		}
	}
}

// decode fills j's raw fields from the current row and returns the raw
// submit time.
func (r *ParquetReader) decode(j *Job) (float64, error) {
	*j = Job{
		ID: r.row, RawWait: Unknown, RawRun: Unknown, AllocProcs: Unknown, AvgCPUSec: Unknown, UsedMemKB: Unknown,
		ReqProcs: Unknown, ReqTime: Unknown, ReqMemKB: Unknown, Status: Unknown, User: Unknown, Group: Unknown,
		Executable: Unknown, Queue: Unknown, Partition: Unknown, PrecedingJob: Unknown, ThinkTime: Unknown,
	}
	submit, start, end := float64(Unknown), float64(Unknown), float64(Unknown)
	for _, b := range r.binds {
		v := b.col.cur
		if v.IsNull() {
			if b.t == tJobID {
				return 0, r.colError(r.row, b, errors.New("job_id is null"))
			}
			continue
		}
		switch b.kind {
		case kString:
			s := b.text(v.ByteArray())
			if b.t == tLicenses {
				j.Licenses = s
			} else {
				j.Template = s
			}
			continue
		case kInstant:
			x, err := r.instant(b, v)
			if err != nil {
				return 0, r.colError(r.row, b, err)
			}
			switch b.t {
			case tSubmit:
				submit = x
			case tStart:
				start = x
			case tEnd:
				end = x
			case tHoldUntil:
				if x > float64(MaxTime) {
					return 0, r.colError(r.row, b, limitf("%v s exceeds %d s (about 3,170 years), the longest time schedsim simulates", x, MaxTime))
				}
				if x > 0 {
					j.HoldUntil = Time(math.Round(x))
				}
			}
			continue
		}
		x, err := b.number(v)
		if err != nil {
			return 0, r.colError(r.row, b, err)
		}
		switch b.t {
		case tJobID:
			j.ID = int64(x)
		case tWait:
			j.RawWait = x
		case tRun:
			j.RawRun = x
		case tAllocProcs:
			j.AllocProcs = int(x)
		case tAvgCPU:
			j.AvgCPUSec = x
		case tUsedMem:
			j.UsedMemKB = x
		case tReqProcs:
			j.ReqProcs = int(x)
		case tReqTime:
			j.ReqTime = x
		case tReqMem:
			j.ReqMemKB = x
		case tStatus:
			j.Status = int(x)
		case tUser:
			j.User = int(x)
		case tGroup:
			j.Group = int(x)
		case tExecutable:
			j.Executable = int(x)
		case tQueue:
			j.Queue = int(x)
		case tPartition:
			j.Partition = int(x)
		case tPreceding:
			j.PrecedingJob = int64(x)
		case tThink:
			j.ThinkTime = x
		case tWaitResources:
			switch x {
			case 1:
				j.WaitResources = 1
			case 0:
				j.WaitResources = -1
			}
		case tMinProcs, tMaxProcs, tReqNodes, tMemPerNode, tPriority:
			if x == Unknown && b.t != tPriority {
				x = 0
			}
			n := int64(math.Round(x))
			switch b.t {
			case tMinProcs:
				j.MinProcs = n
			case tMaxProcs:
				j.MaxProcs = n
			case tReqNodes:
				j.ReqNodes = n
			case tMemPerNode:
				j.MemPerNodeKB = n
			case tPriority:
				j.Priority = n
			}
		}
	}
	if b := r.by[tStart]; b != nil && start != Unknown && submit >= 0 {
		if r.by[tWait] == nil {
			if start < submit {
				return 0, r.colError(r.row, b, fmt.Errorf("start time %v s is before the submit time %v s", start, submit))
			}
			j.RawWait = start - submit
		}
	}
	if b := r.by[tEnd]; b != nil && r.by[tRun] == nil && end != Unknown && start != Unknown {
		if end < start {
			return 0, r.colError(r.row, b, fmt.Errorf("end time %v s is before the start time %v s", end, start))
		}
		j.RawRun = end - start
	}
	return submit, nil
}

// text returns v as a string, reusing the last one while values repeat.
func (b *pqBinding) text(v []byte) string {
	if string(v) != b.last {
		b.last = string(v)
	}
	return b.last
}

// number returns a numeric value in the target's base unit, checked: -1
// stays -1 (unknown), other negative values are errors but for signed
// targets, integer targets must get integers, and magnitudes stay within
// 1e15.
func (b *pqBinding) number(v parquet.Value) (float64, error) {
	var x float64
	switch k := v.Kind(); {
	case k == parquet.Int32 && b.col.unsigned:
		x = float64(uint32(v.Int32()))
	case k == parquet.Int32:
		x = float64(v.Int32())
	case k == parquet.Int64 && b.col.unsigned:
		u := uint64(v.Int64())
		if u > maxSWFValue {
			return 0, fmt.Errorf("%d is out of range", u)
		}
		x = float64(u)
	case k == parquet.Int64:
		i := v.Int64()
		if i > maxSWFValue || i < -maxSWFValue {
			return 0, fmt.Errorf("%d is out of range", i)
		}
		x = float64(i)
	case k == parquet.Float:
		x = float64(v.Float())
	case k == parquet.Double:
		x = v.Double()
	case k == parquet.ByteArray:
		return b.fromText(v.ByteArray())
	default:
		return 0, fmt.Errorf("unexpected %s value", v.Kind())
	}
	if !(math.Abs(x) <= maxSWFValue) {
		return 0, fmt.Errorf("%v is out of range", x)
	}
	if x < 0 && x != Unknown && b.kind != kSigned && b.kind != kStatus {
		return 0, fmt.Errorf("%v is negative (null or -1 means unknown)", x)
	}
	switch b.kind {
	case kJobID, kID, kCount, kSigned, kStatus:
		if x != math.Trunc(x) {
			return 0, fmt.Errorf("%v is not an integer", x)
		}
	}
	if x == Unknown || b.unit.scale == 1 {
		return x, nil
	}
	return x * b.unit.scale, nil
}

// fromText reads a number from a string value: an integer job number, a
// numbered id, or a Slurm state.
func (b *pqBinding) fromText(s []byte) (float64, error) {
	switch b.kind {
	case kJobID:
		n, err := strconv.ParseInt(strings.TrimSpace(string(s)), 10, 64)
		if err != nil || n > maxSWFValue || n < -1 {
			return 0, fmt.Errorf("%q is not a job number (a non-negative integer)", truncate(s, 40))
		}
		return float64(n), nil
	case kID:
		if b.ids == nil {
			b.ids = make(map[string]int64)
		}
		id, ok := b.ids[string(s)]
		if !ok {
			id = int64(len(b.ids)) + 1
			b.ids[string(s)] = id
		}
		return float64(id), nil
	case kStatus:
		return slurmStatus(string(s)), nil
	}
	return 0, fmt.Errorf("text %q where a number was expected", truncate(s, 40))
}

// slurmStatus maps a Slurm job state name to SWF's status code.
func slurmStatus(s string) float64 {
	s = strings.ToUpper(strings.TrimSpace(s))
	if f, _, _ := strings.Cut(s, " "); f != "" {
		s = f // "CANCELLED by 1234"
	}
	switch s {
	case "COMPLETED", "CD":
		return 1
	case "CANCELLED", "CA":
		return 5
	case "FAILED", "F", "TIMEOUT", "TO", "NODE_FAIL", "NF", "OUT_OF_MEMORY", "OOM", "BOOT_FAIL", "BF", "DEADLINE", "DL":
		return 0
	}
	return Unknown
}

// maxAbsSeconds bounds absolute instants: year 300,000 or so.
const maxAbsSeconds = 10_000_000_000_000

// absolute returns an absolute instant as whole Unix seconds and a fraction
// in [0, 1).
func (b *pqBinding) absolute(v parquet.Value) (int64, float64, error) {
	c := b.col
	ticks := func(t, perSec int64) (int64, float64, error) {
		sec, rem := t/perSec, t%perSec
		if rem < 0 {
			sec, rem = sec-1, rem+perSec
		}
		if sec > maxAbsSeconds || sec < -maxAbsSeconds {
			return 0, 0, fmt.Errorf("timestamp %d (%d per second) is out of range", t, perSec)
		}
		return sec, float64(rem) / float64(perSec), nil
	}
	switch {
	case c.perSec > 0 && c.unsigned && v.Int64() < 0:
		return 0, 0, fmt.Errorf("timestamp %d (%d per second) is out of range", uint64(v.Int64()), c.perSec)
	case c.perSec > 0:
		return ticks(v.Int64(), c.perSec)
	case c.int96:
		i := v.Int96()
		nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
		day := int64(int32(i[2])) - 2440588 // Julian day of 1970-01-01
		if day > maxAbsSeconds/86400 || day < -maxAbsSeconds/86400 || nanos < 0 || nanos >= 86400e9 {
			return 0, 0, fmt.Errorf("INT96 timestamp (day %d, %d ns) is out of range", i[2], nanos)
		}
		sec, frac, _ := ticks(nanos, 1e9)
		return day*86400 + sec, frac, nil
	case c.date:
		d := int64(v.Int32())
		return ticks(d*86400, 1)
	case c.isString():
		t, err := parseTime(string(v.ByteArray()))
		if err != nil {
			return 0, 0, err
		}
		return ticks(t.Unix(), 1)
	}
	// A plain number: Unix seconds or the unit's ticks.
	switch k := v.Kind(); {
	case k == parquet.Int32 && c.unsigned:
		return ticks(int64(uint32(v.Int32())), b.unit.perSec)
	case k == parquet.Int32:
		return ticks(int64(v.Int32()), b.unit.perSec)
	case k == parquet.Int64 && c.unsigned && v.Int64() < 0:
		return 0, 0, fmt.Errorf("%d is out of range", uint64(v.Int64()))
	case k == parquet.Int64:
		return ticks(v.Int64(), b.unit.perSec)
	}
	var x float64
	switch v.Kind() {
	case parquet.Float:
		x = float64(v.Float())
	case parquet.Double:
		x = v.Double()
	default:
		return 0, 0, fmt.Errorf("unexpected %s value", v.Kind())
	}
	x *= b.unit.scale
	if !(math.Abs(x) <= maxAbsSeconds) {
		return 0, 0, fmt.Errorf("%v is out of range", x)
	}
	fl := math.Floor(x)
	return int64(fl), x - fl, nil
}

// timeLayouts are the date-time forms a text timestamp may take; without a
// zone, UTC.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02",
}

func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date-time (want e.g. 2023-05-01T10:00:00Z or 2023-05-01 10:00:00)", truncate([]byte(s), 40))
}

// instant returns an instant in seconds since the trace's start.
func (r *ParquetReader) instant(b *pqBinding, v parquet.Value) (float64, error) {
	if !r.absolute {
		return b.number(v)
	}
	sec, frac, err := b.absolute(v)
	if err != nil {
		return 0, err
	}
	x := float64(sec-r.origin) + frac
	return x, nil
}

// errRow is what Next returns, instead of cleaning the row, while
// ParquetReader.records collects the rows of an unsorted file: the row's
// raw submit time.
type errRow struct{ submit float64 }

func (errRow) Error() string { return "workload: a raw Parquet row" }

// records reads every row of the file, uncleaned, for a memSource: the
// rows of a file not sorted by submit time.
func (r *ParquetReader) records() ([]memRecord, error) {
	r.collect = true
	defer func() { r.collect = false }()
	var recs []memRecord
	for {
		var j Job
		err := r.Next(&j)
		if err == io.EOF {
			return recs, nil
		}
		row, ok := err.(errRow)
		if !ok {
			return nil, err
		}
		recs = append(recs, memRecord{job: j, submit: row.submit, line: r.row})
	}
}

// sortedSource returns r itself when its rows are sorted by submit time,
// and otherwise a memSource holding every row, sorted (file order
// breaking ties), which cleans them as r would: an unsorted Parquet file
// is read whole into memory (about 250 bytes a row).
func (r *ParquetReader) sortedSource(raw bool) (source, error) {
	if !r.unsorted {
		return r, nil
	}
	recs, err := r.records()
	if err != nil {
		return nil, err
	}
	for _, c := range r.cols {
		c.close()
	}
	s, err := newMemSource(r.path, r.hdr, recs, r.cl.rules, raw, "Parquet rows", func(f int) string {
		if f > 0 {
			if b := r.by[target(f-1)]; b != nil {
				return b.col.name
			}
		}
		return ""
	}, 1)
	if err != nil {
		return nil, err
	}
	s.rows = true
	s.closer = r.closer
	return s, nil
}

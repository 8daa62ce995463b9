package workload

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// maxTableRows bounds ReadParquetTable: it is for small tables (schedules,
// not traces), read whole into memory.
const maxTableRows = 1 << 20

// ReadParquetTable reads the named columns of a small flat Parquet table
// (one value per row in each column) as text, for callers outside this
// package (which alone imports parquet-go): integers in decimal, floating
// point in Go's shortest form, byte arrays as they are, nulls as "". It
// returns one []string per row, the values in the order of columns. A
// column whose optional[i] is true may be missing from the file: its
// values are then "". A missing, nested or ill-typed column, a corrupt
// file or a table of more than a million rows is a *ParseError naming
// path and the column or row.
func ReadParquetTable(ra io.ReaderAt, size int64, path string, columns []string, optional []bool) (rows [][]string, err error) {
	err = scanParquetTable(ra, size, path, columns, optional, maxTableRows, func(row []string) error {
		rows = append(rows, slices.Clone(row))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// ScanParquetTable reads the named columns of a flat Parquet table of any
// length as ReadParquetTable does, streaming: it calls fn with each row's
// values in the order of columns, in a slice it reuses for the next row,
// and stops at fn's first error, which it returns. It holds about one page
// of each column in memory, whatever the table's length.
func ScanParquetTable(ra io.ReaderAt, size int64, path string, columns []string, optional []bool, fn func(row []string) error) error {
	return scanParquetTable(ra, size, path, columns, optional, -1, fn)
}

// scanParquetTable is ScanParquetTable, refusing a table of more than
// maxRows rows (none when maxRows < 0).
func scanParquetTable(ra io.ReaderAt, size int64, path string, columns []string, optional []bool, maxRows int64, fn func(row []string) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ParseError{Path: path, Err: fmt.Errorf("corrupt Parquet file: %v", p)}
		}
	}()
	if err := checkFooter(ra, size); err != nil {
		return &ParseError{Path: path, Err: fmt.Errorf("not a readable Parquet file: %v", err)}
	}
	f, err := parquet.OpenFile(ra, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return &ParseError{Path: path, Err: fmt.Errorf("not a readable Parquet file: %v", err)}
	}
	if err := checkTableChunks(f, ra, size); err != nil {
		return &ParseError{Path: path, Err: fmt.Errorf("not a readable Parquet file: %v", err)}
	}
	if maxRows >= 0 && f.NumRows() > maxRows {
		return &ParseError{Path: path, Err: fmt.Errorf("%d rows: too many for a schedule (at most %d)", f.NumRows(), maxRows)}
	}
	pos := map[int]int{}       // leaf column index → position in columns
	unsigned := map[int]bool{} // leaf column index → holds unsigned integers
	for i, name := range columns {
		c := f.Root().Column(name)
		switch {
		case c == nil && i < len(optional) && optional[i]:
			continue
		case c == nil:
			return &ParseError{Path: path, Column: name, Err: fmt.Errorf("no such column (the file has %s)", columnList(f.Root()))}
		case !c.Leaf() || c.Repeated():
			return &ParseError{Path: path, Column: name, Err: errors.New("is a group or a list, want one value per row")}
		}
		switch c.Type().Kind() {
		case parquet.Int32, parquet.Int64, parquet.Float, parquet.Double, parquet.ByteArray:
		default:
			return &ParseError{Path: path, Column: name, Err: fmt.Errorf("has type %v, want an integer or a string", c.Type())}
		}
		pos[c.Index()] = i
		unsigned[c.Index()] = isUnsigned(c.Type())
	}
	buf := make([]parquet.Row, 64)
	out := make([]string, len(columns))
	var rows int64
	for _, rg := range f.RowGroups() {
		r := parquet.NewRowGroupReader(rg)
		for {
			n, err := r.ReadRows(buf)
			for _, row := range buf[:n] {
				clear(out)
				for _, v := range row {
					i, ok := pos[v.Column()]
					if !ok || v.IsNull() {
						continue
					}
					switch k := v.Kind(); {
					case k == parquet.Int32 && unsigned[v.Column()]:
						out[i] = strconv.FormatUint(uint64(uint32(v.Int32())), 10)
					case k == parquet.Int32:
						out[i] = strconv.FormatInt(int64(v.Int32()), 10)
					case k == parquet.Int64 && unsigned[v.Column()]:
						out[i] = strconv.FormatUint(uint64(v.Int64()), 10)
					case k == parquet.Int64:
						out[i] = strconv.FormatInt(v.Int64(), 10)
					case k == parquet.Float:
						out[i] = strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
					case k == parquet.Double:
						out[i] = strconv.FormatFloat(v.Double(), 'g', -1, 64)
					default:
						out[i] = string(v.ByteArray())
					}
				}
				rows++
				if err := fn(out); err != nil {
					return err
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return &ParseError{Path: path, Row: rows + 1, Err: err}
			}
		}
	}
	return nil
}

// WriteParquetTable writes rows as a flat Parquet table of string columns
// named columns, the inverse of ReadParquetTable for text tables (a node
// event schedule, for example). Every row must hold one value per column.
// The file records the schedsim build as NewParquetTable's do.
func WriteParquetTable(w io.Writer, columns []string, rows [][]string) error {
	g := parquet.Group{}
	for _, c := range columns {
		g[c] = parquet.String()
	}
	schema := parquet.NewSchema("table", g)
	idx := make([]int, len(columns))
	for i, c := range columns {
		leaf, ok := schema.Lookup(c)
		if !ok {
			return fmt.Errorf("workload: column %q not in the schema", c)
		}
		idx[i] = leaf.ColumnIndex
	}
	pw := parquet.NewWriter(w, append([]parquet.WriterOption{schema}, versionOptions()...)...)
	row := make(parquet.Row, len(columns))
	for _, r := range rows {
		if len(r) != len(columns) {
			return fmt.Errorf("workload: a row of %d values for %d columns", len(r), len(columns))
		}
		for i, v := range r {
			row[idx[i]] = parquet.ByteArrayValue([]byte(v)).Level(0, 0, idx[i])
		}
		if _, err := pw.WriteRows([]parquet.Row{row}); err != nil {
			return err
		}
	}
	return pw.Close()
}

// checkTableChunks checks the metadata and page headers of every column
// chunk of f, as ParquetReader.checkChunks does for a trace's columns, so
// that a corrupt size is an error, not an allocation of that size.
func checkTableChunks(f *parquet.File, ra io.ReaderAt, size int64) error {
	var rows int64
	ncols := len(f.Schema().Columns())
	for i, g := range f.Metadata().RowGroups {
		if g.NumRows < 0 || len(g.Columns) != ncols {
			return fmt.Errorf("row group %d is corrupt", i)
		}
		rows += g.NumRows
		for k := range g.Columns {
			md := &g.Columns[k].MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
				start = md.DictionaryPageOffset
			}
			if start < 4 || md.TotalCompressedSize < 0 || start+md.TotalCompressedSize > size ||
				md.TotalUncompressedSize < 0 || md.TotalUncompressedSize > maxChunkBytes || md.NumValues != g.NumRows {
				return fmt.Errorf("the metadata of row group %d, column %d is corrupt", i, k)
			}
			if _, err := checkPages(ra, start, start+md.TotalCompressedSize, md.TotalUncompressedSize, md.NumValues); err != nil {
				return fmt.Errorf("row group %d, column %d: %v", i, k, err)
			}
		}
	}
	if rows != f.NumRows() {
		return fmt.Errorf("the row groups hold %d rows, the footer says %d", rows, f.NumRows())
	}
	return nil
}

// ParquetMetadata returns the value of the key/value metadata key of the
// Parquet file ra of size bytes, and whether the file has it. A file that
// is not readable Parquet is a *ParseError naming path.
func ParquetMetadata(ra io.ReaderAt, size int64, path, key string) (value string, ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ParseError{Path: path, Err: fmt.Errorf("corrupt Parquet file: %v", p)}
		}
	}()
	if err := checkFooter(ra, size); err != nil {
		return "", false, &ParseError{Path: path, Err: fmt.Errorf("not a readable Parquet file: %v", err)}
	}
	f, err := parquet.OpenFile(ra, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return "", false, &ParseError{Path: path, Err: fmt.Errorf("not a readable Parquet file: %v", err)}
	}
	value, ok = f.Lookup(key)
	return value, ok, nil
}

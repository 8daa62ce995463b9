package workload

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/parquet-go/parquet-go"
)

// A page is Parquet's unit of compression and encoding: a reader holds the
// whole of it, decompressed and decoded, while it reads its values. Reading
// rows, a ParquetReader holds one page of each column it reads, which costs
// little with the pages most writers write (about 1 MB, or less), but
// DuckDB writes one page per column chunk (up to 100 MB): a row group of 2
// million rows is then 16 MB per INT64 column, and all of them at once.
//
// A row group whose largest pages sum to more than pqPageBudget is read in
// windows of rows instead: each column in turn reads the values of the
// next window into a compact copy, of at most pqWindowBudget bytes for all
// the columns. A numeric column's pages are read by a pqDirect, into
// buffers the columns share; other columns' through parquet-go, their
// pages opened at the window's first row and released before the next
// column's are opened. Memory is then one page and the windows, whatever
// the row group's size, at the cost of decompressing each page once per
// window it spans. (For 2 million rows of 18 INT64 columns in one row
// group of one page per column, reading peaks at about 90 MB resident
// instead of 340 MB, against 70 MB for the same rows in 16 row groups, and
// takes about 1.5 times the CPU time of the latter: see
// BenchmarkParquetRowGroups.)
const (
	pqPageBudget   = 32 << 20
	pqWindowBudget = 32 << 20
	// pqWindowValueBytes is the most a window holds per value: 8 bytes
	// and a bit of the null mask. Most values take 4 bytes (see pqLane).
	pqWindowValueBytes = 8.125
)

// pqWindow holds the values of one column for a window of rows of a row
// group read in windows. Fixed-size values are kept in a pqLane, byte
// arrays in one buffer, other kinds (INT96, FIXED_LEN_BYTE_ARRAY) as
// copied parquet.Values.
type pqWindow struct {
	chunk parquet.ColumnChunk
	kind  parquet.Kind
	rows  int64 // rows in the row group
	from  int64 // the row group's first row not read into the window yet
	size  int   // rows per window

	n     int      // values in the window
	null  []uint64 // bit k: value k is null
	lane  pqLane
	bytes []byte
	ends  []uint32 // end of byte array k in bytes
	vals  []parquet.Value
	i     int // next value to return

	direct *pqDirect // reads the chunk's pages itself, or nil (parquet-go does)
}

func newPQWindow(chunk parquet.ColumnChunk, kind parquet.Kind, rows int64, size int) *pqWindow {
	return &pqWindow{chunk: chunk, kind: kind, rows: rows, size: size}
}

// pqLane holds fixed-size values as 32 bits while each fits (an INT32, a
// FLOAT or BOOLEAN, an INT64 within int32's range, a DOUBLE that a float32
// holds exactly: the small integers and times of most traces), and as 64
// bits, all of them, once one does not.
type pqLane struct {
	narrow []uint32
	wide   []uint64
	isWide bool
}

func (l *pqLane) reset() { l.narrow, l.wide, l.isWide = l.narrow[:0], l.wide[:0], false }

// add appends a value: its 32-bit form, if fits, else its 64 bits.
func (l *pqLane) add(v32 uint32, fits bool, v64 uint64) {
	if !l.isWide && !fits {
		l.isWide = true
		for _, x := range l.narrow {
			l.wide = append(l.wide, uint64(x))
		}
		l.narrow = l.narrow[:0]
	}
	if l.isWide {
		l.wide = append(l.wide, v64)
	} else {
		l.narrow = append(l.narrow, v32)
	}
}

// next returns the window's next value, reading the next window when the
// window is done; buf is scratch space. A byte array value is valid until
// the next window is read.
func (w *pqWindow) next(buf []parquet.Value) (parquet.Value, error) {
	if w.i == w.n {
		if err := w.fill(buf); err != nil {
			return parquet.Value{}, err
		}
	}
	i := w.i
	w.i++
	if w.null[i>>6]&(1<<(i&63)) != 0 {
		return parquet.NullValue(), nil
	}
	switch w.kind {
	case parquet.ByteArray:
		from := uint32(0)
		if i > 0 {
			from = w.ends[i-1]
		}
		return parquet.ByteArrayValue(w.bytes[from:w.ends[i]]), nil
	case parquet.Boolean, parquet.Int32, parquet.Int64, parquet.Float, parquet.Double:
	default:
		return w.vals[i], nil
	}
	// A fixed-size value: its 64 bits, or its 32-bit form.
	if w.lane.isWide {
		x := w.lane.wide[i]
		switch w.kind {
		case parquet.Int64:
			return parquet.Int64Value(int64(x)), nil
		case parquet.Double:
			return parquet.DoubleValue(math.Float64frombits(x)), nil
		}
		return fixedValue(w.kind, uint32(x)), nil
	}
	x := w.lane.narrow[i]
	switch w.kind {
	case parquet.Int64:
		return parquet.Int64Value(int64(int32(x))), nil
	case parquet.Double:
		return parquet.DoubleValue(float64(math.Float32frombits(x))), nil
	}
	return fixedValue(w.kind, x), nil
}

// fixedValue returns the BOOLEAN, INT32 or FLOAT value of 32 bits x.
func fixedValue(kind parquet.Kind, x uint32) parquet.Value {
	switch kind {
	case parquet.Boolean:
		return parquet.BooleanValue(x != 0)
	case parquet.Int32:
		return parquet.Int32Value(int32(x))
	}
	return parquet.FloatValue(math.Float32frombits(x))
}

// fill reads the next window's values: the column chunk's pages, from the
// window's first row, released when read.
func (w *pqWindow) fill(buf []parquet.Value) (err error) {
	want := int(min(int64(w.size), w.rows-w.from))
	if want <= 0 {
		return errors.New("the column has more values than the row group has rows (corrupt file)")
	}
	w.n, w.i = 0, 0
	w.null = append(w.null[:0], make([]uint64, (want+63)/64)...)
	w.lane.reset()
	w.bytes, w.ends, w.vals = w.bytes[:0], w.ends[:0], w.vals[:0]
	if w.direct != nil {
		if err := w.direct.read(w, w.from, want); err != nil {
			return err
		}
		if w.n != want {
			return fmt.Errorf("%d values for a window of %d rows (corrupt file)", w.n, want)
		}
		w.from += int64(want)
		return nil
	}
	pages := w.chunk.Pages()
	defer func() {
		if cerr := pages.Close(); err == nil {
			err = cerr
		}
	}()
	if err := pages.SeekToRow(w.from); err != nil {
		return err
	}
	for w.n < want {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return errors.New("the column has fewer values than the row group has rows (corrupt file)")
		}
		if err != nil {
			return err
		}
		err = w.add(p.Values(), want, buf)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
	w.from += int64(want)
	return nil
}

// add appends the values of one page, up to want in the window.
func (w *pqWindow) add(vr parquet.ValueReader, want int, buf []parquet.Value) error {
	for w.n < want {
		n, err := vr.ReadValues(buf[:min(len(buf), want-w.n)])
		for _, v := range buf[:n] {
			if v.IsNull() {
				w.pushNull()
				continue
			}
			switch w.kind {
			case parquet.ByteArray:
				w.pushBytes(v.ByteArray())
			case parquet.Int32:
				w.pushInt32(v.Int32())
			case parquet.Int64:
				w.pushInt64(v.Int64())
			case parquet.Float:
				w.pushFloat(v.Float())
			case parquet.Double:
				w.pushDouble(v.Double())
			case parquet.Boolean:
				var x uint32
				if v.Boolean() {
					x = 1
				}
				w.pushFixed(x)
			default:
				w.vals = append(w.vals, v.Clone())
				w.n++
			}
			if len(w.bytes) > math.MaxUint32 {
				return errors.New("byte array values of more than 4 GiB in one window")
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("a page returned no values (corrupt file)")
		}
	}
	return nil
}

// pushNull appends a null value.
func (w *pqWindow) pushNull() {
	w.null[w.n>>6] |= 1 << (w.n & 63)
	switch w.kind {
	case parquet.ByteArray:
		w.ends = append(w.ends, uint32(len(w.bytes)))
	case parquet.Boolean, parquet.Int32, parquet.Int64, parquet.Float, parquet.Double:
		w.lane.add(0, true, 0)
	default:
		w.vals = append(w.vals, parquet.NullValue())
	}
	w.n++
}

// pushFixed appends a BOOLEAN, INT32 or FLOAT value, its 32 bits.
func (w *pqWindow) pushFixed(x uint32) {
	w.lane.add(x, true, uint64(x))
	w.n++
}

func (w *pqWindow) pushInt32(x int32)   { w.pushFixed(uint32(x)) }
func (w *pqWindow) pushFloat(x float32) { w.pushFixed(math.Float32bits(x)) }

// pushInt64 appends an INT64 value, in 32 bits if it fits.
func (w *pqWindow) pushInt64(x int64) {
	w.lane.add(uint32(x), x == int64(int32(x)), uint64(x))
	w.n++
}

// pushDouble appends a DOUBLE value, as a float32 if one holds it exactly
// (never a NaN, whose payload must survive).
func (w *pqWindow) pushDouble(x float64) {
	f := float32(x)
	w.lane.add(math.Float32bits(f), float64(f) == x, math.Float64bits(x))
	w.n++
}

// pushBytes appends a BYTE_ARRAY value, copied.
func (w *pqWindow) pushBytes(b []byte) {
	w.bytes = append(w.bytes, b...)
	w.ends = append(w.ends, uint32(len(w.bytes)))
	w.n++
}

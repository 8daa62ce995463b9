package workload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/format"
)

// pqDirect reads the values of a numeric column chunk (INT32, INT64, FLOAT,
// DOUBLE; required or optional, not nested) into a pqWindow itself, page by
// page, into buffers it reuses: reading a window of a page costs its
// decompression, into the same buffer each time, and the decoding of what
// the window needs, so that a row group read in windows makes no garbage of
// the pages' size (parquet-go decodes a whole page into new memory each
// time). The page headers come from walkPages; the decoders of the
// encodings are parquet-go's, given the bytes of a page. A chunk it cannot
// read (another encoding or level layout) is read through parquet-go.
type pqDirect struct {
	ra     io.ReaderAt
	codec  compress.Codec // nil: uncompressed
	kind   parquet.Kind
	maxDef int
	pages  []pqPage
	dict   *pqPage // the dictionary page, if any
	s      *pqScratch
	// The dictionary's values, decoded once.
	dictVals pqValues
	haveDict bool
}

// pqScratch holds the buffers a pqDirect reuses, which the columns of a
// reader share (they read their windows one after the other): a page as
// stored, decompressed, its levels, its values decoded (other encodings
// than PLAIN) or its dictionary indexes.
type pqScratch struct {
	raw, unc, levels []byte
	dec              pqValues
	idx              []int32
}

// pqPage is a page of a column chunk, as its header describes it.
type pqPage struct {
	at, comp, unc int64 // its data's offset and sizes
	v2, dict      bool  // a data page v2; a dictionary page
	first, rows   int64 // its rows, in the row group (a dictionary: its values)
	enc           format.Encoding
	defLen        int64 // v2: bytes of definition levels (uncompressed)
	compressed    bool  // v2: whether the values are compressed
}

// pqValues holds decoded values of one kind.
type pqValues struct {
	i32 []int32
	i64 []int64
	f32 []float32
	f64 []float64
}

// len returns the number of values of kind k.
func (v *pqValues) len(k parquet.Kind) int {
	switch k {
	case parquet.Int32:
		return len(v.i32)
	case parquet.Int64:
		return len(v.i64)
	case parquet.Float:
		return len(v.f32)
	}
	return len(v.f64)
}

// push appends value i of v to w.
func (v *pqValues) push(w *pqWindow, i int) {
	switch w.kind {
	case parquet.Int32:
		w.pushInt32(v.i32[i])
	case parquet.Int64:
		w.pushInt64(v.i64[i])
	case parquet.Float:
		w.pushFloat(v.f32[i])
	default:
		w.pushDouble(v.f64[i])
	}
}

// levels1 decodes definition levels of bit width 1 (a flat optional column).
var levels1 = &rle.Encoding{BitWidth: 1}

// newPQDirect returns a pqDirect for the column chunk of kind kind at
// [start, end) of ra, of rows rows and unc bytes uncompressed, compressed
// with codec, or nil if it cannot read it.
// maxDef is the column's maximum definition level; s, the buffers to use.
func newPQDirect(ra io.ReaderAt, start, end, unc int64, codec format.CompressionCodec, kind parquet.Kind, maxDef int, rows int64, s *pqScratch) *pqDirect {
	switch kind {
	case parquet.Int32, parquet.Int64, parquet.Float, parquet.Double:
	default:
		return nil
	}
	if maxDef > 1 {
		return nil
	}
	d := &pqDirect{ra: ra, kind: kind, maxDef: maxDef, s: s}
	if codec != format.Uncompressed {
		d.codec = parquet.LookupCompressionCodec(codec)
	}
	ok := true
	var first int64
	err := walkPages(ra, start, end, unc, rows, func(at int64, f map[int32]int64) {
		p := pqPage{at: at, unc: f[2], comp: f[3], first: first}
		switch f[1] {
		case int64(format.DataPage):
			p.rows, p.enc = f[5<<16|1], format.Encoding(f[5<<16|2])
			if maxDef == 1 && f[5<<16|3] != int64(format.RLE) {
				ok = false // BIT_PACKED levels
			}
		case int64(format.DataPageV2):
			p.v2, p.rows, p.enc, p.defLen = true, f[8<<16|3], format.Encoding(f[8<<16|4]), f[8<<16|5]
			c, set := f[8<<16|7]
			p.compressed = !set || c == 1
			if f[8<<16|6] != 0 || p.defLen < 0 || p.defLen > p.comp || p.defLen > p.unc || (maxDef == 0 && p.defLen != 0) {
				ok = false // repetition levels, or sizes that do not add up
			}
		case int64(format.DictionaryPage):
			if d.dict != nil || (f[7<<16|2] != int64(format.Plain) && f[7<<16|2] != int64(format.PlainDictionary)) {
				ok = false
			}
			p.dict, p.rows = true, f[7<<16|1]
			d.dict = &p
			return
		default:
			return // index pages and others: nothing to read
		}
		switch p.enc {
		case format.Plain, format.PlainDictionary, format.RLEDictionary, format.ByteStreamSplit:
		case format.DeltaBinaryPacked:
			ok = ok && (kind == parquet.Int32 || kind == parquet.Int64)
		default:
			ok = false
		}
		first += p.rows
		d.pages = append(d.pages, p)
	})
	if err != nil || !ok || first != rows {
		return nil // read through parquet-go, which reports what is wrong
	}
	return d
}

// read appends the values of rows [from, from+want) of the chunk to w.
func (d *pqDirect) read(w *pqWindow, from int64, want int) error {
	to := from + int64(want)
	for i := range d.pages {
		p := &d.pages[i]
		if p.first+p.rows <= from || p.first >= to {
			continue
		}
		levels, data, err := d.page(p)
		if err != nil {
			return err
		}
		lo, hi := max(from, p.first)-p.first, min(to, p.first+p.rows)-p.first
		if err := d.values(w, p, levels, data, lo, hi); err != nil {
			return err
		}
	}
	return nil
}

// grow returns b resized to n bytes, reallocated only when too small.
func grow(b []byte, n int64) []byte {
	if int64(cap(b)) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// page reads and decompresses page p: its definition levels (nil for a
// required column) and the bytes of its values.
func (d *pqDirect) page(p *pqPage) (levels []byte, data []byte, err error) {
	d.s.raw = grow(d.s.raw, p.comp)
	if n, err := d.ra.ReadAt(d.s.raw, p.at); n < len(d.s.raw) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, nil, err
	}
	body := d.s.raw
	if p.v2 {
		lv := d.s.raw[:p.defLen]
		body = d.s.raw[p.defLen:]
		if d.maxDef == 1 {
			if err := checkHybrid(lv, 1, p.rows); err != nil {
				return nil, nil, fmt.Errorf("definition levels: %w", err)
			}
			if d.s.levels, err = levels1.DecodeLevels(d.s.levels[:0], lv); err != nil {
				return nil, nil, err
			}
			levels = d.s.levels
		}
		if !p.compressed {
			return levels, body, nil
		}
	}
	if d.codec != nil {
		size := p.unc
		if p.v2 {
			size -= p.defLen
		}
		d.s.unc = grow(d.s.unc, size)
		out, err := d.codec.Decode(d.s.unc, body)
		if err != nil {
			return nil, nil, err
		}
		if int64(len(out)) != size {
			return nil, nil, fmt.Errorf("a page decompresses to %d bytes, its header says %d", len(out), size)
		}
		if cap(out) > cap(d.s.unc) {
			d.s.unc = out // the codec's own buffer, bigger: keep it
		}
		body = out
	}
	if p.v2 || p.dict || d.maxDef == 0 {
		return levels, body, nil
	}
	// Data page v1: the levels' length, then the levels, then the values.
	if len(body) < 4 {
		return nil, nil, errors.New("a data page too short for its definition levels")
	}
	n := int64(binary.LittleEndian.Uint32(body))
	if n > int64(len(body))-4 {
		return nil, nil, fmt.Errorf("definition levels of %d bytes in a page of %d", n, len(body))
	}
	if err := checkHybrid(body[4:4+n], 1, p.rows); err != nil {
		return nil, nil, fmt.Errorf("definition levels: %w", err)
	}
	if d.s.levels, err = levels1.DecodeLevels(d.s.levels[:0], body[4:4+n]); err != nil {
		return nil, nil, err
	}
	return d.s.levels, body[4+n:], nil
}

// values appends rows [lo, hi) of page p (counted from its first row) to
// w, given its levels and the bytes of its values.
func (d *pqDirect) values(w *pqWindow, p *pqPage, levels, data []byte, lo, hi int64) error {
	if levels != nil && int64(len(levels)) < p.rows {
		return fmt.Errorf("%d definition levels in a page of %d rows", len(levels), p.rows)
	}
	// The page's values before row lo, and in all.
	skip, total := lo, p.rows
	if levels != nil {
		skip, total = 0, 0
		for r, l := range levels[:p.rows] {
			if l > 1 {
				return fmt.Errorf("definition level %d in a column of at most 1", l)
			}
			if int64(r) < lo {
				skip += int64(l)
			}
			total += int64(l)
		}
	}
	var src *pqValues
	var idx []int32
	switch p.enc {
	case format.Plain:
		width := int64(4)
		if d.kind == parquet.Int64 || d.kind == parquet.Double {
			width = 8
		}
		if int64(len(data)) < total*width {
			return fmt.Errorf("%d bytes of PLAIN values for %d values", len(data), total)
		}
		k := skip
		for r := lo; r < hi; r++ {
			if levels != nil && levels[r] == 0 {
				w.pushNull()
				continue
			}
			w.pushPlain(data[k*width:])
			k++
		}
		return nil
	case format.PlainDictionary, format.RLEDictionary:
		if err := d.loadDict(); err != nil {
			return err
		}
		if len(data) > 0 {
			if err := checkHybrid(data[1:], int(data[0]), total); err != nil {
				return fmt.Errorf("dictionary indexes: %w", err)
			}
		}
		var err error
		if d.s.idx, err = parquet.RLEDictionary.DecodeInt32(d.s.idx[:0], data); err != nil {
			return err
		}
		idx, src = d.s.idx, &d.dictVals
	default:
		if p.enc == format.DeltaBinaryPacked {
			if err := checkDelta(data, total); err != nil {
				return err
			}
		}
		if err := decodeInto(&d.s.dec, d.kind, p.enc, data); err != nil {
			return err
		}
		src = &d.s.dec
	}
	n := int64(src.len(d.kind))
	if idx != nil {
		n = int64(len(idx))
	}
	if n < total {
		return fmt.Errorf("%d values in a page that holds %d", n, total)
	}
	k := skip
	for r := lo; r < hi; r++ {
		if levels != nil && levels[r] == 0 {
			w.pushNull()
			continue
		}
		i := int(k)
		if idx != nil {
			i = int(idx[k])
			if i < 0 || i >= src.len(d.kind) {
				return fmt.Errorf("dictionary index %d of a dictionary of %d values", i, src.len(d.kind))
			}
		}
		src.push(w, i)
		k++
	}
	return nil
}

// loadDict reads and decodes the chunk's dictionary page, once.
func (d *pqDirect) loadDict() error {
	if d.haveDict {
		return nil
	}
	if d.dict == nil {
		return errors.New("a dictionary-encoded page without a dictionary page")
	}
	_, data, err := d.page(d.dict)
	if err != nil {
		return err
	}
	if err := decodeInto(&d.dictVals, d.kind, format.Plain, data); err != nil {
		return err
	}
	if int64(d.dictVals.len(d.kind)) < d.dict.rows {
		return fmt.Errorf("a dictionary of %d values holds %d", d.dict.rows, d.dictVals.len(d.kind))
	}
	d.haveDict = true // decoded into buffers of its own, not the page's
	return nil
}

// decodeInto decodes data, values of kind k in encoding enc, into v,
// reusing its buffers.
func decodeInto(v *pqValues, k parquet.Kind, enc format.Encoding, data []byte) (err error) {
	e := parquet.LookupEncoding(enc)
	switch k {
	case parquet.Int32:
		v.i32, err = e.DecodeInt32(v.i32[:0], data)
	case parquet.Int64:
		v.i64, err = e.DecodeInt64(v.i64[:0], data)
	case parquet.Float:
		v.f32, err = e.DecodeFloat(v.f32[:0], data)
	default:
		v.f64, err = e.DecodeDouble(v.f64[:0], data)
	}
	return err
}

// pushPlain appends the PLAIN value at the start of b (4 or 8 bytes, little
// endian) to w.
func (w *pqWindow) pushPlain(b []byte) {
	switch w.kind {
	case parquet.Int32:
		w.pushInt32(int32(binary.LittleEndian.Uint32(b)))
	case parquet.Int64:
		w.pushInt64(int64(binary.LittleEndian.Uint64(b)))
	case parquet.Float:
		w.pushFloat(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	default:
		w.pushDouble(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
}

// checkHybrid checks that the RLE/bit-packed hybrid stream src, of values of
// bw bits, declares at most max values (rounded up to a group of 8), so
// that decoding it allocates no more than that: a run's header may declare
// two billion values in five bytes.
func checkHybrid(src []byte, bw int, max int64) error {
	if bw < 0 || bw > 32 {
		return fmt.Errorf("bit width %d", bw)
	}
	var n int64
	for i := 0; i < len(src); {
		u, k := binary.Uvarint(src[i:])
		if k <= 0 {
			return errors.New("a corrupt run header")
		}
		i += k
		count := int64(u >> 1)
		if count > max+8 {
			return fmt.Errorf("a run of %d values in a page of %d", count, max)
		}
		if u&1 != 0 { // bit-packed: count groups of 8
			count *= 8
			i += int(count) * bw / 8
		} else {
			i += (bw + 7) / 8
		}
		if n += count; n > max+8 {
			return fmt.Errorf("%d values in a page of %d", n, max)
		}
	}
	return nil
}

// checkDelta checks that the DELTA_BINARY_PACKED stream src declares at
// most max values.
func checkDelta(src []byte, max int64) error {
	var hdr [3]uint64 // block size, miniblocks per block, values
	for k := range hdr {
		u, n := binary.Uvarint(src)
		if n <= 0 {
			return errors.New("a corrupt DELTA_BINARY_PACKED header")
		}
		hdr[k], src = u, src[n:]
	}
	if hdr[2] > uint64(max) {
		return fmt.Errorf("DELTA_BINARY_PACKED values: %d in a page of %d", hdr[2], max)
	}
	return nil
}

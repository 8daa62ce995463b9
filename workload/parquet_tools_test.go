package workload

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	lz4codec "github.com/parquet-go/parquet-go/compress/lz4"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// TestParquetUnsigned reads the unsigned integer columns other tools write
// (DuckDB's UINTEGER and UBIGINT, Arrow's uint32 and uint64): their bits
// are unsigned values, so that 4294967295 processors is a job too large
// for the machine, not -1 (unknown) processors.
func TestParquetUnsigned(t *testing.T) {
	cols := []pqCol{
		{"job_id", parquet.Optional(parquet.Uint(64))},
		{"submit_time", parquet.Optional(parquet.Uint(32))},
		{"run_time", parquet.Optional(parquet.Uint(32))},
		{"requested_procs", parquet.Optional(parquet.Uint(32))},
		{"user_id", parquet.Optional(parquet.Uint(16))},
		{"other", parquet.Optional(parquet.Uint(64))}, // not a job field
	}
	data := writePQ(t, cols, [][]any{
		{int64(1), int32(0), int32(10), int32(4), int32(7), int64(-1)},
		{int64(2), int32(-2), int32(-2), int32(-1), int32(65535), nil}, // 4294967294 s and 4294967295 processors
		{int64(3), int32(-2), int32(30), nil, nil, nil},                // no processors: dropped
	}, 0)
	jobs, _, err := readPQ(t, data, Rules{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("%d jobs, want 2", len(jobs))
	}
	j := jobs[1]
	if j.ReqProcs != 4294967295 || j.Procs != 4294967295 || j.Submit != 4294967294 || j.Run != 4294967294 || j.User != 65535 {
		t.Errorf("job 2 = procs %d (requested %d), submit %d, run %d, user %d; want 4294967295 processors, 4294967294 s, user 65535",
			j.Procs, j.ReqProcs, j.Submit, j.Run, j.User)
	}

	// ReadParquetTable (node events, schedules) reads them the same way.
	rows, err := ReadParquetTable(bytes.NewReader(data), int64(len(data)), "t.parquet", []string{"requested_procs", "other"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rows[1][0] != "4294967295" || rows[0][1] != "18446744073709551615" {
		t.Errorf("table rows %q, want 4294967295 processors in row 2 and 18446744073709551615 in row 1", rows)
	}
}

// genRows returns the jobs of a generated trace as rows of lz4Cols.
func genRows(t testing.TB, n int) ([]Job, [][]any) {
	t.Helper()
	var jobs []Job
	cfg := GenConfig{Jobs: n, Procs: 128, Seed: 9, Load: 0.8}
	if err := Generate(cfg, func(j *Job) error { jobs = append(jobs, *j); return nil }); err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, len(jobs))
	for i, j := range jobs {
		var est any
		if j.Estimate > 0 {
			est = int64(j.Estimate)
		}
		rows[i] = []any{j.ID, int64(j.Submit), float64(j.Run), int32(j.Procs), est, int32(j.User)}
	}
	return jobs, rows
}

// lz4Cols are the columns of genRows.
var lz4Cols = []pqCol{
	{"job_id", optInt64()}, {"submit_time", optInt64()}, {"run_time", optF64()},
	{"requested_procs", optInt32()}, {"requested_time", optInt64()}, {"user_id", optInt32()},
}

// TestLZ4RawCodec reads files compressed with LZ4_RAW, DuckDB's "lz4", in
// data pages of both versions, with and without dictionary pages: the
// same jobs as from the same file compressed with Snappy. Corrupt LZ4
// data is an error, quickly, never a hang or a huge allocation.
func TestLZ4RawCodec(t *testing.T) {
	if _, ok := parquet.LookupCompressionCodec(format.Lz4Raw).(lz4Raw); !ok {
		t.Fatalf("parquet-go's LZ4_RAW codec is %T, not workload's lz4Raw: the workaround of lz4raw.go no longer applies", parquet.LookupCompressionCodec(format.Lz4Raw))
	}
	want, rows := genRows(t, 20000)
	for _, tc := range []struct {
		name string
		opts []parquet.WriterOption
	}{
		{"v1 pages", []parquet.WriterOption{parquet.DataPageVersion(1)}},
		{"v2 pages", []parquet.WriterOption{parquet.DataPageVersion(2)}},
		{"small pages in row groups", []parquet.WriterOption{parquet.PageBufferSize(4 << 10), parquet.MaxRowsPerRowGroup(3000)}},
		{"one page per column", []parquet.WriterOption{parquet.PageBufferSize(64 << 20)}},
		{"fastest level", []parquet.WriterOption{parquet.DataPageVersion(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			codec := &parquet.Lz4Raw
			if tc.name == "fastest level" {
				codec = &lz4codec.Codec{Level: lz4codec.Fastest}
			}
			lz := writePQWith(t, lz4Cols, rows, append(tc.opts, parquet.Compression(codec))...)
			sn := writePQWith(t, lz4Cols, rows, append(tc.opts, parquet.Compression(&parquet.Snappy))...)
			if !bytes.Contains(lz, []byte("PAR1")) || bytes.Equal(lz, sn) {
				t.Fatal("the files do not differ")
			}
			got, _, err := readPQ(t, lz, Rules{})
			if err != nil {
				t.Fatalf("LZ4_RAW: %v", err)
			}
			ref, _, err := readPQ(t, sn, Rules{})
			if err != nil {
				t.Fatalf("Snappy: %v", err)
			}
			if !reflect.DeepEqual(got, ref) {
				t.Fatalf("LZ4_RAW gives %d jobs, Snappy %d, not the same", len(got), len(ref))
			}
			if len(got) != len(want) || got[len(got)-1].ID != want[len(want)-1].ID || got[100].Run != want[100].Run {
				t.Fatalf("%d jobs, want %d, the generated ones", len(got), len(want))
			}
		})
	}

	// Corrupt blocks: every byte of a page's data changed in turn, in a
	// small file, reads to jobs or a *ParseError.
	data := writePQWith(t, lz4Cols[:4], [][]any{{int64(1), int64(0), 10.0, int32(4)}, {int64(2), int64(5), 20.0, int32(8)}}, parquet.Compression(&parquet.Lz4Raw))
	for i := 4; i < len(data)-8; i++ {
		for _, b := range []byte{0x00, 0xff, data[i] ^ 0x10} {
			d := append([]byte(nil), data...)
			d[i] = b
			_, _, err := readPQ(t, d, Rules{Duplicate: DuplicateKeep})
			var pe *ParseError
			if err != nil && !errors.As(err, &pe) {
				t.Fatalf("byte %d set to %#x: error %v (%T) is not a *ParseError", i, b, err, err)
			}
		}
	}
	if _, err := (lz4Raw{}).Decode(make([]byte, 8), []byte{0xf0, 0xff, 0xff, 0xff, 0x0f}); err == nil {
		t.Error("a block longer than the page's size decoded without an error")
	}
	if out, err := (lz4Raw{}).Decode(nil, []byte{0x00}); err != nil || len(out) != 0 {
		t.Errorf("the empty block: %q, %v", out, err)
	}
}

// readAllPQ reads every job of a Parquet file with a ParquetReader whose
// row groups are read in windows of rows when their largest pages sum to
// more than pageBudget bytes (0: always), the windows holding about
// windowBudget bytes; pageBudget < 0 keeps the reader's defaults.
func readAllPQ(t testing.TB, data []byte, m *ColumnMap, pageBudget, windowBudget int64) ([]Job, error) {
	t.Helper()
	r, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Rules{}, m)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if pageBudget >= 0 {
		r.pageBudget, r.windowBudget = pageBudget, windowBudget
	}
	var jobs []Job
	for {
		var j Job
		err := r.Next(&j)
		if err == io.EOF {
			return jobs, nil
		}
		if err != nil {
			return jobs, err
		}
		jobs = append(jobs, j)
	}
}

// TestParquetWindows reads files of every column kind — integers, unsigned
// ones, doubles, strings plain and dictionary-encoded, INT96 and TIMESTAMP
// instants, nulls — in row groups of one page per column and of many
// pages, in windows of rows of several sizes (within a page, across
// pages, one row), and gets the jobs it gets a page at a time.
func TestParquetWindows(t *testing.T) {
	gen, _ := genRows(t, 3000)
	var native bytes.Buffer
	w, err := NewParquetWriter(&native, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range gen {
		j := gen[i]
		if i%3 == 0 {
			j.Licenses, j.Template, j.HoldUntil = "matlab:"+strconv.Itoa(i%5), "t"+strconv.Itoa(i%4), j.Submit+60
		}
		// Values a window cannot keep in 32 bits, now and then: the
		// window's values go to 64 bits from there on.
		if i%1000 == 999 {
			j.ID += 1 << 33
			j.ReqMemKB, j.ThinkTime = 0.1, -1
		}
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A dataset's columns through a mapping: INT96 submit instants,
	// TIMESTAMP starts, unsigned processors, Slurm states as text.
	base := time.Date(2021, 3, 1, 0, 0, 0, 0, time.UTC)
	cols := []pqCol{
		{"id", optInt64()}, {"sub", parquet.Optional(parquet.Leaf(parquet.Int96Type))}, {"start", optTimestamp(parquet.Millisecond)},
		{"rt", parquet.Optional(parquet.Leaf(parquet.FloatType))}, {"cores", parquet.Optional(parquet.Uint(32))}, {"state", optString()},
	}
	var rows [][]any
	for i, j := range gen {
		sub := base.Add(time.Duration(j.Submit) * time.Second)
		var start any
		if i%7 != 0 {
			start = sub.Add(time.Duration(i%50) * time.Second).UnixMilli()
		}
		state := any([]string{"COMPLETED", "FAILED", "CANCELLED by 7"}[i%3])
		if i%11 == 0 {
			state = nil
		}
		rows = append(rows, []any{j.ID, int96Time(sub), start, float32(j.Run), int32(j.Procs), state})
	}
	m, err := ParseColumns("job_id=id,submit_time=sub:timestamp,start_time=start:timestamp,run_time=rt,requested_procs=cores,status=state:slurm")
	if err != nil {
		t.Fatal(err)
	}
	files := []struct {
		name string
		data []byte
		m    *ColumnMap
	}{
		{"native, small pages", native.Bytes(), nil},
		{"mapped, one page per column", writePQWith(t, cols, rows, parquet.PageBufferSize(64<<20)), m},
		{"mapped, pages of 2 KB in row groups of 4000", writePQWith(t, cols, rows, parquet.PageBufferSize(2<<10), parquet.MaxRowsPerRowGroup(4000)), m},
		{"mapped, v1 pages, dictionaries", writePQWith(t, cols, rows, parquet.DataPageVersion(1), parquet.PageBufferSize(8<<10)), m},
	}
	for _, f := range files {
		want, err := readAllPQ(t, f.data, f.m, -1, 0)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if len(want) < 2500 {
			t.Fatalf("%s: only %d jobs", f.name, len(want))
		}
		// The numeric columns' pages are read by a pqDirect, the others
		// through parquet-go.
		r, err := NewParquetReader(bytes.NewReader(f.data), int64(len(f.data)), "t.parquet", Rules{}, f.m)
		if err != nil {
			t.Fatal(err)
		}
		r.pageBudget = 0
		if err := r.Next(&Job{}); err != nil {
			t.Fatal(err)
		}
		direct, other := 0, 0
		for _, c := range r.cols {
			switch k := c.typ.Kind(); {
			case c.win == nil:
				t.Fatalf("%s: column %s not read in windows", f.name, c.name)
			case c.win.direct != nil:
				direct++
			case k == parquet.Int32 || k == parquet.Int64 || k == parquet.Float || k == parquet.Double:
				t.Errorf("%s: numeric column %s read through parquet-go", f.name, c.name)
			default:
				other++
			}
		}
		if direct < 4 || other < 1 {
			t.Errorf("%s: %d columns read directly, %d through parquet-go; want at least 4 and 1", f.name, direct, other)
		}
		r.Close()
		for _, window := range []int64{97, 1000, 1 << 20} {
			ncols := int64(6)
			if f.m == nil {
				ncols = int64(len(ParquetSchema))
			}
			got, err := readAllPQ(t, f.data, f.m, 0, int64(float64(window*ncols)*pqWindowValueBytes)+1)
			if err != nil {
				t.Fatalf("%s, windows of %d rows: %v", f.name, window, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, windows of %d rows: %d jobs, not the %d read a page at a time", f.name, window, len(got), len(want))
			}
		}
	}
}

// peakLive reads a Parquet file with the given budgets and returns the
// most heap in use, after a collection, at any of the rows it samples: what
// the reader holds, less the garbage it leaves.
func peakLive(t testing.TB, data []byte, pageBudget, windowBudget int64) uint64 {
	t.Helper()
	r, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Rules{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if pageBudget >= 0 {
		r.pageBudget, r.windowBudget = pageBudget, windowBudget
	}
	runtime.GC()
	runtime.GC() // the pools' victims too
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, uint64(0)
	var j Job
	for n := 1; ; n++ {
		err := r.Next(&j)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n%10007 == 1 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc-min(ms.HeapAlloc, base))
		}
	}
	return peak
}

// wideFile returns a Parquet file of n rows of 18 optional INT64 columns,
// named as schedsim's schema names its first 18, of distinct values (so
// that neither compression nor dictionaries make the pages small), written
// with the options given. It writes row by row, holding no rows.
func wideFile(t testing.TB, n int, options ...parquet.WriterOption) []byte {
	t.Helper()
	g := orderedGroup{Group: parquet.Group{}}
	for _, c := range ParquetSchema[:18] {
		g.Group[c.Name] = optInt64()
		g.order = append(g.order, c.Name)
	}
	var b bytes.Buffer
	w := parquet.NewWriter(&b, append([]parquet.WriterOption{parquet.NewSchema("wide", g)}, options...)...)
	row := make(parquet.Row, 18)
	for i := range n {
		for k := range row {
			v := int64(i*31+k) % 100003
			switch k {
			case 0:
				v = int64(i + 1) // job_id
			case 1:
				v = int64(i) // submit_time
			case 3:
				v = int64(i%1000 + 1) // run_time
			case 7:
				v = int64(i%64 + 1) // requested_procs
			case 10:
				v = 1 // status
			}
			row[k] = parquet.Int64Value(v).Level(0, 1, k)
		}
		if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestParquetRowGroupMemory reads one row group of one page per column, as
// DuckDB writes them, and the same rows in 16 row groups: the first may
// hold no more than 3 times the memory of the second. (Budgets scaled down
// with the file: 200,000 rows instead of millions.)
func TestParquetRowGroupMemory(t *testing.T) {
	const n = 200_000
	one := wideFile(t, n, parquet.PageBufferSize(64<<20), parquet.MaxRowsPerRowGroup(n))
	sixteen := wideFile(t, n, parquet.PageBufferSize(64<<20), parquet.MaxRowsPerRowGroup(n/16))
	// One page per column of 16 row groups is about 1/16 of 18 × 8 bytes ×
	// 200,000 rows: 1.8 MB; budgets of that size keep them as they are.
	const budget = 2 << 20
	p16 := peakLive(t, sixteen, budget, budget)
	p1 := peakLive(t, one, budget, budget)
	t.Logf("peak live heap: %d KB in one row group, %d KB in 16", p1>>10, p16>>10)
	if p1 > 3*p16 {
		t.Errorf("one row group holds %d KB, more than 3 times the %d KB of 16", p1>>10, p16>>10)
	}
}

// BenchmarkParquetRowGroups reads 2 million rows of 18 columns written as
// DuckDB writes them (one page per column chunk) in one row group and in
// 16, with the reader's budgets, and reports the peak live heap (MB) and
// the peak resident set (MB, Linux).
func BenchmarkParquetRowGroups(b *testing.B) {
	const n = 2_000_000
	files := map[string][]byte{}
	for _, groups := range []int{1, 16} {
		files[strconv.Itoa(groups)] = wideFile(b, n, parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(100<<20), parquet.MaxRowsPerRowGroup(int64(n/groups)))
	}
	for _, groups := range []string{"1", "16"} {
		b.Run("groups="+groups, func(b *testing.B) {
			var peak uint64
			for range b.N {
				peak = max(peak, peakLive(b, files[groups], -1, 0))
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-live-MB")
		})
	}
}

// int96Time returns t as an INT96 timestamp: nanoseconds of the day, then
// the Julian day.
func int96Time(t time.Time) deprecated.Int96 {
	sec := t.Unix()
	nanos := uint64(sec%86400)*1e9 + uint64(t.Nanosecond())
	return deprecated.Int96{uint32(nanos), uint32(nanos >> 32), uint32(sec/86400 + 2440588)}
}

// readDirect reads every numeric column of every row group of a Parquet
// file with a pqDirect, in windows of window rows, without the recover of
// ParquetReader.Next: a panic of pqDirect fails the test. It returns the
// first error.
func readDirect(t testing.TB, data []byte, m *ColumnMap, window int) error {
	t.Helper()
	r, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "t.parquet", Rules{}, m)
	if err != nil {
		return err
	}
	defer r.Close()
	for g, rg := range r.file.Metadata().RowGroups {
		for _, c := range r.cols {
			md := &rg.Columns[c.index].MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
				start = md.DictionaryPageOffset
			}
			d := newPQDirect(r.ra, start, start+md.TotalCompressedSize, md.TotalUncompressedSize, md.Codec, c.typ.Kind(), c.maxDef, rg.NumRows, &r.scratch)
			if d == nil {
				continue
			}
			w := newPQWindow(r.groups[g].ColumnChunks()[c.index], c.typ.Kind(), rg.NumRows, window)
			w.direct = d
			for w.from < rg.NumRows {
				if err := w.fill(c.buf); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// directSeeds are small files whose numeric columns a pqDirect reads: PLAIN,
// dictionary and DELTA_BINARY_PACKED encodings, v1 and v2 pages, required
// and optional columns, Snappy and LZ4_RAW.
func directSeeds(t testing.TB) [][]byte {
	_, rows := genRows(t, 300)
	var b bytes.Buffer
	w, _ := NewParquetWriter(&b, nil)
	gen, _ := genRows(t, 300)
	for i := range gen {
		w.Write(&gen[i])
	}
	w.Close()
	return [][]byte{
		b.Bytes(),
		writePQWith(t, lz4Cols, rows, parquet.DataPageVersion(1), parquet.PageBufferSize(1<<10)),
		writePQWith(t, lz4Cols, rows, parquet.DataPageVersion(2), parquet.Compression(&parquet.Lz4Raw)),
	}
}

// TestParquetWindowsCorrupt reads seeded random corruptions of files read
// in windows, through ParquetReader (jobs or a *ParseError) and through
// pqDirect alone (no panic, bounded time and memory).
func TestParquetWindowsCorrupt(t *testing.T) {
	seeds := directSeeds(t)
	rng := rand.New(rand.NewPCG(5, 6))
	n := 1500
	if testing.Short() {
		n = 150
	}
	for it := range n {
		d := append([]byte(nil), seeds[it%len(seeds)]...)
		for range 1 + rng.IntN(4) {
			i := rng.IntN(len(d))
			switch rng.IntN(3) {
			case 0:
				d[i] = byte(rng.IntN(256))
			case 1:
				d[i] ^= 1 << rng.IntN(8)
			case 2:
				if i+5 < len(d) {
					d[i], d[i+1], d[i+2], d[i+3], d[i+4] = 0xff, 0xff, 0xff, 0xff, 0x0f
				}
			}
		}
		_ = readDirect(t, d, nil, 1+rng.IntN(200))
		jobs, err := readAllPQ(t, d, nil, 0, int64(rng.IntN(20000)))
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("mutation %d: error %v (%T) is not a *ParseError", it, err, err)
		}
		for _, j := range jobs {
			if j.Procs <= 0 || j.Run <= 0 {
				t.Fatalf("mutation %d: bad job %+v", it, j)
			}
		}
	}
}

// FuzzParquetDirect reads any input as a Parquet file in windows with
// pqDirect: it must never panic, nor allocate beyond what the file holds.
func FuzzParquetDirect(f *testing.F) {
	for _, s := range directSeeds(f) {
		f.Add(s, uint16(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, window uint16) {
		_ = readDirect(t, data, nil, 1+int(window))
	})
}

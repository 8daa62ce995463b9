package workload

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
	lz4codec "github.com/parquet-go/parquet-go/compress/lz4"
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

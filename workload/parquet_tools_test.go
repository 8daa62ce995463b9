package workload

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"
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

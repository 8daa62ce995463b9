package workload

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
)

// pqCol is a column of a test Parquet file.
type pqCol struct {
	name string
	node parquet.Node
}

// Column node shorthands: optional columns of the common types.
func optInt64() parquet.Node  { return parquet.Optional(parquet.Leaf(parquet.Int64Type)) }
func optInt32() parquet.Node  { return parquet.Optional(parquet.Leaf(parquet.Int32Type)) }
func optF64() parquet.Node    { return parquet.Optional(parquet.Leaf(parquet.DoubleType)) }
func optString() parquet.Node { return parquet.Optional(parquet.String()) }
func optTimestamp(u parquet.TimeUnit) parquet.Node {
	return parquet.Optional(parquet.Timestamp(u))
}

// writePQ returns a Parquet file with the columns cols, in that order, and
// the rows: one value per column in its physical form (int64, int32,
// float64, float32, string, deprecated.Int96, bool) or nil for null.
// rowsPerGroup > 0 splits the rows into row groups of that size.
func writePQ(t testing.TB, cols []pqCol, rows [][]any, rowsPerGroup int, meta ...[2]string) []byte {
	t.Helper()
	var opts []parquet.WriterOption
	if rowsPerGroup > 0 {
		opts = append(opts, parquet.MaxRowsPerRowGroup(int64(rowsPerGroup)))
	}
	for _, kv := range meta {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	return writePQWith(t, cols, rows, opts...)
}

// writePQWith is writePQ with the writer's options (compression, page
// sizes, row groups) given as they are.
func writePQWith(t testing.TB, cols []pqCol, rows [][]any, options ...parquet.WriterOption) []byte {
	t.Helper()
	g := orderedGroup{Group: parquet.Group{}}
	for _, c := range cols {
		g.Group[c.name] = c.node
		g.order = append(g.order, c.name)
	}
	opts := append([]parquet.WriterOption{parquet.NewSchema("test", g)}, options...)
	var b bytes.Buffer
	w := parquet.NewWriter(&b, opts...)
	for _, r := range rows {
		if len(r) != len(cols) {
			t.Fatalf("row %v has %d values for %d columns", r, len(r), len(cols))
		}
		row := make(parquet.Row, len(cols))
		for i, v := range r {
			var pv parquet.Value
			switch x := v.(type) {
			case nil:
				pv = parquet.NullValue()
			case int64:
				pv = parquet.Int64Value(x)
			case int32:
				pv = parquet.Int32Value(x)
			case float64:
				pv = parquet.DoubleValue(x)
			case float32:
				pv = parquet.FloatValue(x)
			case string:
				pv = parquet.ByteArrayValue([]byte(x))
			case deprecated.Int96:
				pv = parquet.Int96Value(x)
			case bool:
				pv = parquet.BooleanValue(x)
			default:
				t.Fatalf("value %v (%T) of column %s", v, v, cols[i].name)
			}
			def := 0
			if cols[i].node.Optional() && v != nil {
				def = 1
			}
			row[i] = pv.Level(0, def, i)
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

// readPQ reads every job of a Parquet file with Open's checks.
func readPQ(t testing.TB, data []byte, rules Rules, opts ...Option) ([]Job, Reader, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), "t.parquet", rules, opts...)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var jobs []Job
	for {
		var j Job
		err := r.Next(&j)
		if err == io.EOF {
			return jobs, r, nil
		}
		if err != nil {
			return jobs, r, err
		}
		jobs = append(jobs, j)
	}
}

// rawJob is a job with every SWF field unknown but those set by the test.
func rawJob() Job {
	return Job{RawWait: -1, RawRun: -1, AllocProcs: -1, AvgCPUSec: -1, UsedMemKB: -1, ReqProcs: -1, ReqTime: -1, ReqMemKB: -1,
		Status: -1, User: -1, Group: -1, Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
}

// TestParquetRoundtrip writes jobs with every field set, unknown, fractional
// or at an extreme, reads them back and gets the same jobs; the SWF header
// survives in the metadata.
func TestParquetRoundtrip(t *testing.T) {
	text := "; Version: 2.2\n; MaxProcs: 64 (whole machine)\n; Preemption: Double\n;   a free comment\n" +
		"1 0 3.5 99.5 8 45.25 1024 16 3600 2048 1 12 13 14 15 16 6 17.5\n" +
		"2 0 -1 -1 -1 -1 -1 4 -1 -1 0 -1 -1 -1 -1 -1 -1 -1\n" +
		"3 5 0 1e-7 1 -0 0.001 1 3599.9 0 5 0 0 0 0 0 0 123456.789012345678\n" +
		"4 7 -1 100 4 -1 -1 4 200 -1 2 1 1 -1 -1 -1 -1 -1\n" +
		"5 100000000000 -1 100000000000 1 -1 -1 1 1 -1 1 -1 -1 -1 -1 -1 -1 -1\n" // MaxTime
	for _, rules := range []Rules{{}, {Partial: PartialKeep, ZeroRun: RunOneSecond, Estimate: EstimateRun}} {
		swfJobs, h, err := readAllJobs([]byte(text), rules)
		if err != nil {
			t.Fatal(err)
		}
		// Give the jobs the extension fields SWF lacks.
		for i := range swfJobs {
			j := &swfJobs[i]
			j.MinProcs, j.MaxProcs, j.ReqNodes, j.MemPerNodeKB = int64(i+1), int64(2*i+2), int64(i), 1<<20
			j.Licenses, j.Template, j.Priority, j.HoldUntil = "matlab:2,abaqus:1", "", int64(-i), Time(10*i)
		}
		swfJobs[0].Template = "Default"
		var b bytes.Buffer
		w, err := NewParquetWriter(&b, h)
		if err != nil {
			t.Fatal(err)
		}
		for i := range swfJobs {
			if err := w.Write(&swfJobs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		back, r, err := readPQ(t, b.Bytes(), rules)
		if err != nil {
			t.Fatal(err)
		}
		if len(back) != len(swfJobs) {
			t.Fatalf("read %d jobs back, wrote %d", len(back), len(swfJobs))
		}
		for i := range back {
			want := swfJobs[i]
			want.Seq = int64(i)
			if !reflect.DeepEqual(back[i], want) {
				t.Errorf("job %d read back as\n%+v\nwant\n%+v", i, back[i], want)
			}
		}
		if got := r.Header(); !reflect.DeepEqual(got, h) {
			t.Errorf("header read back as %+v, want %+v", got, h)
		}
	}
}

// TestParquetNative reads files in schedsim's schema as other tools write
// them: columns in any order, optional ones absent, nulls, narrower and
// wider types, several row groups.
func TestParquetNative(t *testing.T) {
	cols := []pqCol{
		{"status", optInt32()},
		{"run_time", optInt64()},
		{"extra_column", optString()},
		{"requested_procs", optInt32()},
		{"submit_time", optF64()},
		{"job_id", optInt64()},
		{"requested_time", optF64()},
		{"licenses", optString()},
		{"priority", optInt64()},
		{"hold_until", optF64()},
	}
	rows := [][]any{
		{int32(1), int64(100), "x", int32(4), 0.0, int64(10), 200.0, "fluent:4", int64(-5), nil},
		{nil, int64(50), nil, int32(2), 1.4, int64(11), nil, nil, nil, 30.0},
		{int32(0), nil, "y", int32(8), 3.0, int64(12), 60.0, "", int64(7), -1.0}, // run unknown: dropped
		{int32(5), int64(-1), "z", nil, 4.0, int64(13), -1.0, nil, nil, nil},     // procs unknown: dropped
		{int32(1), int64(10), "w", int32(1), 4.0, int64(14), 5.0, "a:1,b:2", nil, nil},
	}
	data := writePQ(t, cols, rows, 2)
	jobs, r, err := readPQ(t, data, Rules{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{rawJob(), rawJob(), rawJob()}
	want[0].Seq, want[0].ID, want[0].Submit, want[0].Procs, want[0].Run, want[0].Estimate = 0, 10, 0, 4, 100, 200
	want[0].RawRun, want[0].ReqProcs, want[0].ReqTime, want[0].Status, want[0].Licenses, want[0].Priority = 100, 4, 200, 1, "fluent:4", -5
	want[1].Seq, want[1].ID, want[1].Submit, want[1].Procs, want[1].Run, want[1].Estimate = 1, 11, 1, 2, 50, Unknown
	want[1].RawRun, want[1].ReqProcs, want[1].HoldUntil = 50, 2, 30
	want[2].Seq, want[2].ID, want[2].Submit, want[2].Procs, want[2].Run, want[2].Estimate = 4, 14, 4, 1, 10, 5
	want[2].RawRun, want[2].ReqProcs, want[2].ReqTime, want[2].Status, want[2].Licenses = 10, 1, 5, 1, "a:1,b:2"
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("jobs\n%+v\nwant\n%+v", jobs, want)
	}
	st := r.Stats()
	wantStats := CleanStats{Records: 5, Kept: 3, DroppedRun: 1, DroppedProcs: 1, NoEstimate: 1, Overrun: 1, RoundedFractional: 1}
	if st != wantStats {
		t.Errorf("stats %+v\nwant  %+v", st, wantStats)
	}
}

// pm100Cols are the columns of PM100's job table that the pm100 preset
// reads, with the types pandas writes (timestamps in ns), plus two it
// ignores.
func pm100Cols(unit parquet.TimeUnit) []pqCol {
	return []pqCol{
		{"job_id", optInt64()},
		{"user_id", optInt64()},
		{"job_state", optString()},
		{"submit_time", optTimestamp(unit)},
		{"start_time", optTimestamp(unit)},
		{"end_time", optTimestamp(unit)},
		{"time_limit", optInt64()},
		{"run_time", optInt64()},
		{"num_cores_req", optInt64()},
		{"num_cores_alloc", optInt64()},
		{"num_nodes_req", optInt64()},
		{"priority", optInt64()},
		{"qos", optString()},
		{"nodes", parquet.Repeated(parquet.String())},
	}
}

// TestParquetPresets reads small files with the exact column names and
// types of PM100 and F-DATA through their presets.
func TestParquetPresets(t *testing.T) {
	base := time.Date(2020, 5, 1, 8, 30, 0, 250e6, time.UTC)
	at := func(sec int, u parquet.TimeUnit) int64 {
		return base.Add(time.Duration(sec)*time.Second).UnixNano() / int64(u.Duration())
	}
	for _, u := range []parquet.TimeUnit{parquet.Nanosecond, parquet.Microsecond, parquet.Millisecond} {
		t.Run("pm100/"+u.Duration().String(), func(t *testing.T) {
			cols := pm100Cols(u)
			rows := [][]any{
				// job_id user state submit start end limit(min) run cores alloc nodes prio qos nodes
				{int64(501), int64(7), "COMPLETED", at(0, u), at(60, u), at(3660, u), int64(120), int64(3600), int64(32), int64(32), int64(1), int64(1000), "normal", "n1"},
				{int64(502), int64(8), "TIMEOUT", at(30, u), at(90, u), at(7290, u), int64(120), int64(7200), int64(64), int64(64), int64(2), int64(900), "normal", "n2"},
				{int64(503), int64(7), "CANCELLED by 7", at(45, u), at(45, u), at(45, u), int64(10), int64(0), int64(4), nil, int64(1), nil, "debug", "n3"},
				{int64(504), int64(9), "FAILED", at(45, u), nil, nil, int64(30), int64(12), int64(8), int64(8), int64(1), int64(5), "normal", "n4"},
			}
			data := writePQ(t, cols, rows, 0)
			m, err := ParseColumns("pm100")
			if err != nil {
				t.Fatal(err)
			}
			jobs, r, err := readPQ(t, data, Rules{}, WithColumns(m))
			if err != nil {
				t.Fatal(err)
			}
			if h := r.Header().Get("UnixStartTime"); h != "1588321800" {
				t.Errorf("UnixStartTime = %q, want 1588321800 (the first submit, rounded down)", h)
			}
			type got struct {
				ID                  int64
				Submit, Run, Est    Time
				Procs, Status, User int
				Wait                float64
				Nodes, Prio         int64
			}
			var g []got
			for _, j := range jobs {
				g = append(g, got{j.ID, j.Submit, j.Run, j.Estimate, j.Procs, j.Status, j.User, j.RawWait, j.ReqNodes, j.Priority})
			}
			want := []got{
				{501, 0, 3600, 7200, 32, 1, 7, 60, 1, 1000}, // submit at .25 s rounds to 0
				{502, 30, 7200, 7200, 64, 0, 8, 60, 2, 900}, // TIMEOUT is a failure
				{504, 45, 12, 1800, 8, 0, 9, -1, 1, 5},      // no start: wait unknown
			}
			if !reflect.DeepEqual(g, want) {
				t.Errorf("jobs\n%+v\nwant\n%+v", g, want)
			}
			if st := r.Stats(); st.Records != 4 || st.DroppedRun != 1 || st.RoundedFractional != 3 {
				t.Errorf("stats %+v: want 4 records, the cancelled job dropped (run 0), 3 fractional submits", st)
			}
		})
	}

	// F-DATA: accepted/started/ended timestamps (microseconds, and as text),
	// durations in seconds, cores and nodes requested as INT32.
	for _, variant := range []string{"timestamp", "text"} {
		t.Run("fdata/"+variant, func(t *testing.T) {
			tsNode := optTimestamp(parquet.Microsecond)
			ts := func(sec int) any { return base.Add(time.Duration(sec) * time.Second).UnixMicro() }
			if variant == "text" {
				tsNode = optString()
				ts = func(sec int) any { return base.Add(time.Duration(sec) * time.Second).Format("2006-01-02 15:04:05.000") }
			}
			cols := []pqCol{
				{"jid", optInt64()}, {"usr", optString()}, {"adt", tsNode}, {"sdt", tsNode}, {"edt", tsNode},
				{"duration", optF64()}, {"elpl", optInt64()}, {"cnumr", optInt32()}, {"nnumr", optInt32()}, {"pri", optInt64()},
			}
			rows := [][]any{
				{int64(1), "u-aa", ts(0), ts(10), ts(110), 100.0, int64(3600), int32(48), int32(1), int64(127)},
				{int64(2), "u-bb", ts(5), ts(20), ts(4020), 4000.0, int64(3600), int32(96), int32(2), int64(127)},
				{int64(3), "u-aa", ts(5), nil, nil, nil, int64(600), int32(48), int32(1), nil},
			}
			data := writePQ(t, cols, rows, 0)
			m, err := ParseColumns("fdata")
			if err != nil {
				t.Fatal(err)
			}
			jobs, r, err := readPQ(t, data, Rules{}, WithColumns(m))
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != 2 || r.Stats().DroppedRun != 1 {
				t.Fatalf("%d jobs, stats %+v; want 2, the job without duration dropped", len(jobs), r.Stats())
			}
			a, b := jobs[0], jobs[1]
			if a.ID != 1 || a.Submit != 0 || a.Run != 100 || a.Estimate != 3600 || a.Procs != 48 || a.ReqNodes != 1 || a.RawWait != 10 || a.User != 1 || a.Priority != 127 {
				t.Errorf("job 1: %+v", a)
			}
			if b.ID != 2 || b.Submit != 5 || b.Run != 4000 || !b.Killed() || b.Procs != 96 || b.ReqNodes != 2 || b.RawWait != 15 || b.User != 2 {
				t.Errorf("job 2: %+v", b)
			}
		})
	}
}

// TestParquetColumnUnits checks the unit conversions of a custom mapping,
// and derived run and wait times.
func TestParquetColumnUnits(t *testing.T) {
	cols := []pqCol{
		{"id", optInt64()}, {"sub_ms", optInt64()}, {"start_s", optF64()}, {"end_s", optF64()},
		{"limit_h", optF64()}, {"cores", optInt64()}, {"mem_mb", optInt64()}, {"user", optString()}, {"q", optString()},
	}
	rows := [][]any{
		{int64(1), int64(1_600_000_000_000), 1_600_000_010.0, 1_600_000_070.5, 0.5, int64(4), int64(2), "alice", "7"},
		{int64(2), int64(1_600_000_001_500), 1_600_000_002.0, 1_600_000_003.0, 2.0, int64(2), nil, "bob", "9"},
	}
	data := writePQ(t, cols, rows, 0)
	m, err := ParseColumns("job_id=id,submit_time=sub_ms:unix_ms,start_time=start_s:unix,end_time=end_s:unix," +
		"requested_time=limit_h:h,requested_procs=cores,requested_memory=mem_mb:mb,user_id=user,queue=q")
	if err != nil {
		t.Fatal(err)
	}
	jobs, _, err := readPQ(t, data, Rules{}, WithColumns(m))
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("%d jobs", len(jobs))
	}
	a, b := jobs[0], jobs[1]
	if a.Submit != 0 || a.RawWait != 10 || a.RawRun != 60.5 || a.Run != 61 || a.ReqTime != 1800 || a.ReqMemKB != 2048 || a.User != 1 || a.Queue != 1 {
		t.Errorf("job 1: %+v", a)
	}
	if b.Submit != 2 || b.RawWait != 0.5 || b.RawRun != 1 || b.ReqTime != 7200 || b.ReqMemKB != -1 || b.User != 2 || b.Queue != 2 {
		t.Errorf("job 2: %+v", b)
	}
}

// TestParquetErrors checks that bad Parquet input gives a *ParseError
// naming the file, the row and the column.
func TestParquetErrors(t *testing.T) {
	good := []pqCol{{"job_id", optInt64()}, {"submit_time", optInt64()}, {"run_time", optF64()}, {"requested_procs", optInt64()}}
	goodRow := func(set map[int]any) []any {
		r := []any{int64(1), int64(0), 10.0, int64(4)}
		for k, v := range set {
			r[k] = v
		}
		return r
	}
	file := func(cols []pqCol, rows ...[]any) []byte { return writePQ(t, cols, rows, 0) }
	with := func(i int, c pqCol) []pqCol {
		cs := append([]pqCol(nil), good...)
		cs[i] = c
		return cs
	}
	valid := file(good, goodRow(nil), goodRow(map[int]any{0: int64(2)}))
	tests := []struct {
		name   string
		data   []byte
		m      string // column mapping, "" for the native schema
		rules  Rules
		row    int64
		column string
		msg    string
		is     error
	}{
		{name: "missing required column", data: file(good[1:], []any{int64(0), 10.0, int64(4)}), column: "job_id", msg: "required column is missing"},
		{name: "no processor column", data: file(good[:3], []any{int64(1), int64(0), 10.0}), column: "requested_procs", msg: "requested_procs or allocated_procs"},
		{name: "wrong column type", data: file(with(2, pqCol{"run_time", optString()}), goodRow(map[int]any{2: "10"})), column: "run_time", msg: "BYTE_ARRAY"},
		{name: "boolean procs", data: file(with(3, pqCol{"requested_procs", parquet.Optional(parquet.Leaf(parquet.BooleanType))}), goodRow(map[int]any{3: true})), column: "requested_procs"},
		{name: "timestamp without unit", data: file(with(1, pqCol{"submit_time", optTimestamp(parquet.Millisecond)}), goodRow(nil)), column: "submit_time", msg: ":timestamp"},
		{name: "list column", data: file(with(3, pqCol{"requested_procs", parquet.Repeated(parquet.Leaf(parquet.Int64Type))}), goodRow(nil)), column: "requested_procs", msg: "list"},
		{name: "negative run time", data: file(good, goodRow(nil), goodRow(map[int]any{0: int64(2), 2: -5.0})), row: 2, column: "run_time", msg: "-5 is negative"},
		{name: "fractional processors", data: file(with(3, pqCol{"requested_procs", optF64()}), goodRow(map[int]any{3: 2.5})), row: 1, column: "requested_procs", msg: "not an integer"},
		{name: "2^62 processors", data: file(good, goodRow(map[int]any{3: int64(1) << 62})), row: 1, column: "requested_procs", msg: "out of range"},
		{name: "NaN run time", data: file(good, goodRow(map[int]any{2: math.NaN()})), row: 1, column: "run_time", msg: "out of range"},
		{name: "null job_id", data: file(good, goodRow(nil), goodRow(map[int]any{0: nil})), row: 2, column: "job_id", msg: "null"},
		{name: "unsorted, bad run time", data: file(good, goodRow(map[int]any{1: int64(50)}), goodRow(map[int]any{0: int64(2), 1: int64(40)}), goodRow(map[int]any{0: int64(3), 2: math.Inf(1)})),
			row: 3, column: "run_time", msg: "out of range"},
		{name: "unsorted, duplicate job ids", data: file(good, goodRow(map[int]any{1: int64(50)}), goodRow(map[int]any{1: int64(40)})), row: 1, column: "job_id", msg: "already used"},
		{name: "duplicate job ids", data: file(good, goodRow(nil), goodRow(nil)), row: 2, column: "job_id", msg: "already used"},
		{name: "no rows", data: file(good), is: ErrNoJobs},
		{name: "not Parquet", data: []byte("PAR1 but not really a Parquet file at all"), is: ErrNotTrace},
		{name: "truncated", data: valid[:len(valid)-10], is: ErrNotTrace},
		{name: "text job number", data: file(with(0, pqCol{"job_id", optString()}), goodRow(map[int]any{0: "j-17"})), row: 1, column: "job_id", msg: "not a job number"},
		{name: "bad date-time", m: "job_id=job_id,submit_time=when:timestamp,run_time=run_time,requested_procs=requested_procs",
			data: file(with(1, pqCol{"when", optString()}), goodRow(map[int]any{1: "yesterday"})), row: 1, column: "when", msg: "not a date-time"},
		{name: "submit time beyond MaxTime", data: file(good, goodRow(nil), goodRow(map[int]any{0: int64(2), 1: int64(1e13)})), row: 2, column: "submit_time", msg: "longest time", is: ErrLimit},
		{name: "run time beyond MaxTime", data: file(good, goodRow(map[int]any{2: 1e14})), row: 1, column: "run_time", msg: "longest time", is: ErrLimit},
		{name: "UINT64 run time 2^64-1", data: file(with(2, pqCol{"run_time", parquet.Optional(parquet.Uint(64))}), goodRow(map[int]any{2: int64(-1)})), row: 1, column: "run_time", msg: "18446744073709551615 is out of range"},
		{name: "UINT64 submit time 2^63", data: file(with(1, pqCol{"submit_time", parquet.Optional(parquet.Uint(64))}), goodRow(map[int]any{1: int64(math.MinInt64)})), row: 1, column: "submit_time", msg: "9223372036854775808 is out of range"},
		{name: "UINT64 timestamp 2^64-1", m: "job_id=job_id,submit_time=submit_time:timestamp,run_time=run_time,requested_procs=requested_procs",
			data: file(with(1, pqCol{"submit_time", parquet.Optional(parquet.Uint(64))}), goodRow(map[int]any{1: int64(-1)})), row: 1, column: "submit_time", msg: "18446744073709551615 is out of range"},
		{name: "hold_until beyond MaxTime", data: file(append(good[:4:4], pqCol{"hold_until", optInt64()}), []any{int64(1), int64(0), 10.0, int64(4), int64(2e11)}), row: 1, column: "hold_until", is: ErrLimit},
		{name: "end before start", m: "job_id=job_id,submit_time=s,start_time=a,end_time=b,requested_procs=requested_procs",
			data: file([]pqCol{{"job_id", optInt64()}, {"s", optInt64()}, {"a", optInt64()}, {"b", optInt64()}, {"requested_procs", optInt64()}},
				[]any{int64(1), int64(0), int64(10), int64(5), int64(1)}), row: 1, column: "b", msg: "before the start"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.m != "" {
				m, err := ParseColumns(tc.m)
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, WithColumns(m))
			}
			_, _, err := readPQ(t, tc.data, tc.rules, opts...)
			if err == nil {
				t.Fatal("no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			msg := err.Error()
			if pe.Path != "t.parquet" || !strings.HasPrefix(msg, "t.parquet") {
				t.Errorf("error %q does not name the file", msg)
			}
			if pe.Row != tc.row {
				t.Errorf("Row = %d, want %d (%s)", pe.Row, tc.row, msg)
			}
			if pe.Column != tc.column {
				t.Errorf("Column = %q, want %q (%s)", pe.Column, tc.column, msg)
			}
			if tc.column != "" && !strings.Contains(msg, `column "`+tc.column+`"`) {
				t.Errorf("message %q does not name the column", msg)
			}
			if !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q lacks %q", msg, tc.msg)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
		})
	}
}

// TestParquetUnsorted reads files whose rows are not sorted by submit
// time, in seconds and as timestamps, in one row group and in many, cleaned
// and raw: the jobs come out as from the same rows sorted (ties in row
// order), and a null submit time is a job dropped as unknown.
func TestParquetUnsorted(t *testing.T) {
	cols := []pqCol{{"job_id", optInt64()}, {"submit_time", optInt64()}, {"run_time", optF64()}, {"requested_procs", optInt64()}}
	tsCols := []pqCol{{"job_id", optInt64()}, {"submit_time", optTimestamp(parquet.Millisecond)}, {"run_time", optF64()}, {"requested_procs", optInt64()}}
	rng := rand.New(rand.NewPCG(7, 23))
	var sorted [][]any
	for i := range 300 {
		sorted = append(sorted, []any{int64(i + 1), int64(i / 3 * 10), float64(1 + rng.IntN(100)), int64(1 + rng.IntN(8))})
	}
	shuffled := slices.Clone(sorted)
	rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
	// Ties must keep row order: sort the shuffled rows stably by submit
	// time to get the order a reader must give.
	want := slices.Clone(shuffled)
	slices.SortStableFunc(want, func(a, b []any) int { return cmp.Compare(a[1].(int64), b[1].(int64)) })
	stamps := func(rows [][]any) [][]any {
		out := make([][]any, len(rows))
		for i, r := range rows {
			out[i] = []any{r[0], 1_600_000_000_000 + r[1].(int64)*1000, r[2], r[3]}
		}
		return out
	}
	tsMap := "job_id=job_id,submit_time=submit_time:timestamp,run_time=run_time,requested_procs=requested_procs"
	for _, tc := range []struct {
		name    string
		cols    []pqCol
		rows    [][]any
		mapping string
		group   int
		raw     bool
	}{
		{"seconds, one row group", cols, shuffled, "", 0, false},
		{"seconds, row groups of 7", cols, shuffled, "", 7, false},
		{"seconds, raw", cols, shuffled, "", 16, true},
		{"timestamps", tsCols, stamps(shuffled), tsMap, 0, false},
		{"timestamps, row groups of 7", tsCols, stamps(shuffled), tsMap, 7, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.mapping != "" {
				m, err := ParseColumns(tc.mapping)
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, WithColumns(m))
			}
			if tc.raw {
				opts = append(opts, Raw())
			}
			jobs, r, err := readPQ(t, writePQ(t, tc.cols, tc.rows, tc.group), Rules{}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != len(want) {
				t.Fatalf("%d jobs, want %d", len(jobs), len(want))
			}
			for i, j := range jobs {
				w := want[i]
				if j.ID != w[0].(int64) || int64(j.Submit) != w[1].(int64) || float64(j.Run) != w[2].(float64) || int64(j.Procs) != w[3].(int64) {
					t.Fatalf("job %d is %d submitted at %d (run %d, %d procs), want %v", i, j.ID, j.Submit, j.Run, j.Procs, w)
				}
				if j.Seq != int64(i) {
					t.Fatalf("job %d has Seq %d", i, j.Seq)
				}
			}
			if tc.mapping != "" {
				if got := r.Header().Get("UnixStartTime"); got != "1600000000" {
					t.Errorf("UnixStartTime %q, want the earliest submission, 1600000000", got)
				}
			}
		})
	}
	// A null submit time is unknown: the job is dropped and counted.
	rows := [][]any{{int64(1), int64(50), 5.0, int64(1)}, {int64(2), nil, 5.0, int64(1)}, {int64(3), int64(20), 5.0, int64(1)}}
	jobs, r, err := readPQ(t, writePQ(t, cols, rows, 0), Rules{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].ID != 3 || jobs[1].ID != 1 || r.Stats().DroppedSubmitUnset != 1 {
		t.Errorf("jobs %v, stats %+v: want jobs 3 then 1, one dropped for its unknown submit time", jobs, r.Stats())
	}
}

// TestParquetRowGroups reads a file of many small row groups and checks
// that it streams: the jobs come out in order, one row group at a time.
func TestParquetRowGroups(t *testing.T) {
	cfg := GenConfig{Jobs: 3000, Procs: 64, Seed: 3, Load: 0.7}
	var want []Job
	if err := Generate(cfg, func(j *Job) error { want = append(want, *j); return nil }); err != nil {
		t.Fatal(err)
	}
	cols := []pqCol{{"submit_time", optInt64()}, {"job_id", optInt64()}, {"run_time", optInt64()}, {"requested_procs", optInt32()}, {"requested_time", optInt64()}, {"status", optInt32()}}
	var rows [][]any
	for _, j := range want {
		rows = append(rows, []any{int64(j.Submit), j.ID, int64(j.Run), int32(j.Procs), int64(j.Estimate), int32(1)})
	}
	data := writePQ(t, cols, rows, 100)
	got, _, err := readPQ(t, data, Rules{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d jobs, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Submit != w.Submit || g.Run != w.Run || g.Procs != w.Procs || g.Estimate != w.Estimate {
			t.Fatalf("job %d: %+v, want %+v", i, g, w)
		}
	}
}

// TestParquetCorrupt reads seeded random corruptions of small Parquet files
// (bytes changed, inserted, deleted, copied; sizes set huge): each read must
// end, quickly, in jobs or a *ParseError — never a panic, a hang or a huge
// allocation from a size the file declares.
func TestParquetCorrupt(t *testing.T) {
	cfg := GenConfig{Jobs: 40, Procs: 16, Seed: 2, Load: 0.9}
	var b bytes.Buffer
	w, _ := NewParquetWriter(&b, cfg.Header())
	Generate(cfg, w.Write)
	w.Close()
	pm := writePQ(t, pm100Cols(parquet.Microsecond), [][]any{
		{int64(1), int64(7), "COMPLETED", int64(1e12), int64(1e12 + 5e6), int64(1e12 + 9e6), int64(10), int64(4), int64(2), int64(2), int64(1), int64(3), "q", "n1"},
		{int64(2), nil, "FAILED", int64(2e12), nil, nil, nil, nil, int64(2), nil, int64(1), nil, nil, "n2"},
	}, 1)
	pmMap, _ := ParseColumns("pm100")
	rng := rand.New(rand.NewPCG(3, 4))
	n := 3000
	if !full() {
		n = 300
	}
	for it := range n {
		seed, opts := b.Bytes(), []Option(nil)
		if it%2 == 1 {
			seed, opts = pm, []Option{WithColumns(pmMap)}
		}
		d := append([]byte(nil), seed...)
		for range 1 + rng.IntN(6) {
			i := rng.IntN(len(d))
			switch rng.IntN(6) {
			case 0:
				d[i] = byte(rng.IntN(256))
			case 1:
				d[i] ^= 0x80
			case 2:
				if i+4 < len(d) {
					d[i], d[i+1], d[i+2], d[i+3] = 0xff, 0xff, 0xff, byte(rng.IntN(128))
				}
			case 3:
				d = append(d[:i], append([]byte{byte(rng.IntN(256))}, d[i:]...)...)
			case 4:
				d = append(d[:i], d[i+1:]...)
			case 5:
				j, k := rng.IntN(len(d)), rng.IntN(16)
				if i+k < len(d) && j+k < len(d) {
					copy(d[i:i+k], d[j:j+k])
				}
			}
		}
		jobs, _, err := readPQ(t, d, Rules{Duplicate: DuplicateKeep}, opts...)
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

// TestParquetTable writes a table of every column type, with nulls, and
// reads it back with parquet-go: same columns in the same order, same
// values.
func TestParquetTable(t *testing.T) {
	cols := []ParquetColumn{{Name: "id", Type: ParquetInt64, Delta: true}, {Name: "name", Type: ParquetString},
		{Name: "x", Type: ParquetDouble, Optional: true}, {Name: "tag", Type: ParquetString, Optional: true}}
	var b bytes.Buffer
	tb, err := NewParquetTable(&b, cols, [2]string{"k", "v"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000 // several batches
	for i := range n {
		tb.Int64(int64(i))
		tb.String("job-" + strconv.Itoa(i%7))
		if i%3 == 0 {
			tb.Null()
		} else {
			tb.Double(float64(i) / 4)
		}
		if i%5 == 0 {
			tb.String("")
		} else {
			tb.Null()
		}
		if err := tb.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range f.Root().Columns() {
		names = append(names, c.Name())
	}
	if strings.Join(names, ",") != "id,name,x,tag" || f.NumRows() != n {
		t.Fatalf("columns %v, %d rows", names, f.NumRows())
	}
	if v, ok := f.Lookup("k"); !ok || v != "v" {
		t.Errorf("metadata k = %q", v)
	}
	rows := make([]parquet.Row, n)
	rd := parquet.NewReader(f)
	if got, err := rd.ReadRows(rows); got != n && err != nil {
		t.Fatalf("read %d rows: %v", got, err)
	}
	for i, r := range rows {
		if r[0].Int64() != int64(i) || string(r[1].ByteArray()) != "job-"+strconv.Itoa(i%7) ||
			r[2].IsNull() != (i%3 == 0) || (!r[2].IsNull() && r[2].Double() != float64(i)/4) || r[3].IsNull() != (i%5 != 0) {
			t.Fatalf("row %d: %v", i, r)
		}
	}
	// Misuse is reported, not written.
	tb2, _ := NewParquetTable(io.Discard, cols)
	tb2.Null()
	if err := tb2.EndRow(); err == nil || !strings.Contains(err.Error(), "null in required column") {
		t.Errorf("null in a required column: %v", err)
	}
	tb3, _ := NewParquetTable(io.Discard, cols)
	tb3.Int64(1)
	if err := tb3.EndRow(); err == nil {
		t.Error("a short row was accepted")
	}
}

// TestParquetWriterStamps writes jobs with a header that gives the trace's
// start: the file has submit_time_ts, start_time_ts and end_time_ts as
// TIMESTAMP(MILLIS, isAdjustedToUTC=true), null where a time they need is
// unknown; -1 is null in every optional column, submit_time included; a
// later SetMetadata replaces a key; and the file reads back as the same
// jobs (the time columns ignored). Without a start, there are no time
// columns.
func TestParquetWriterStamps(t *testing.T) {
	h := &Header{Fields: []HeaderField{{Key: "UnixStartTime", Value: "1000000000"}, {Key: "MaxProcs", Value: "8"}}}
	jobs := []Job{rawJob(), rawJob(), rawJob()}
	jobs[0].ID, jobs[0].Submit, jobs[0].RawWait, jobs[0].RawRun, jobs[0].ReqProcs = 1, 0, 5, 100.25, 4
	jobs[1].ID, jobs[1].Submit, jobs[1].RawRun, jobs[1].ReqProcs = 2, 10, 50, 2
	jobs[2].ID, jobs[2].Submit, jobs[2].RawRun, jobs[2].ReqProcs = 3, -1, 10, 1
	write := func(h *Header) []byte {
		var b bytes.Buffer
		w, err := NewParquetWriter(&b, h)
		if err != nil {
			t.Fatal(err)
		}
		for i := range jobs {
			if err := w.Write(&jobs[i]); err != nil {
				t.Fatal(err)
			}
		}
		w.t.SetMetadata(MetaSchema, "replaced")
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	data := write(h)
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"submit_time_ts", "start_time_ts", "end_time_ts"} {
		c := f.Root().Column(name)
		if c == nil {
			t.Fatalf("no column %s", name)
		}
		if lt := c.Type().LogicalType(); lt == nil || lt.String() != "TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS)" {
			t.Errorf("%s has logical type %v, want TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS)", name, lt)
		}
	}
	if v, _ := f.Lookup(MetaSchema); v != "replaced" {
		t.Errorf("metadata %s = %q after SetMetadata", MetaSchema, v)
	}
	rows, err := ReadParquetTable(bytes.NewReader(data), int64(len(data)), "t.parquet",
		[]string{"job_id", "submit_time", "wait_time", "submit_time_ts", "start_time_ts", "end_time_ts"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"1", "0", "5", "1000000000000", "1000000005000", "1000000105250"},
		{"2", "10", "", "1000000010000", "", ""},
		{"3", "", "", "", "", ""},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows %q, want %q", rows, want)
	}
	got, _, err := readPQ(t, data, Rules{}, Raw())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].RawRun != 100.25 || got[1].RawWait != Unknown || got[2].Submit != Unknown {
		t.Errorf("read back %+v", got)
	}
	data = write(&Header{Fields: []HeaderField{{Key: "MaxProcs", Value: "8"}}})
	if f, err = parquet.OpenFile(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if f.Root().Column("submit_time_ts") != nil || len(f.Root().Columns()) != len(ParquetSchema) {
		t.Errorf("a trace without a start has %d columns", len(f.Root().Columns()))
	}
}

package workload

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// openAll opens path with Open and reads every job.
func openAll(t testing.TB, path string, rules Rules, opts ...Option) ([]Job, Reader, error) {
	t.Helper()
	r, err := Open(path, rules, opts...)
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

// TestOpenBadInput checks every kind of bad input Open's readers reject:
// each is a *ParseError naming the file, the line or row and the field.
func TestOpenBadInput(t *testing.T) {
	ok := rec(nil)
	var lines strings.Builder
	for i := 1; i <= 3000; i++ {
		lines.WriteString(rec(map[int]string{1: strconv.Itoa(i), 2: strconv.Itoa(i)}) + "\n")
	}
	full := gz(t, []byte("; MaxProcs: 4\n"+lines.String()))
	binary := make([]byte, 2000)
	for i := range binary {
		binary[i] = byte(i * 7)
	}
	tests := []struct {
		name  string
		file  string // file name; the format is detected from the content
		data  []byte
		rules Rules
		line  int64
		field int
		msg   string
		is    error
	}{
		{name: "empty file", data: nil, msg: "no job record", is: ErrNoJobs},
		{name: "blank lines only", data: []byte("\n  \n\t\n"), is: ErrNoJobs},
		{name: "header only", data: []byte("; Version: 2.2\n; MaxProcs: 128\n"), msg: "only header comments", is: ErrNoJobs},
		{name: "header only gzip", data: gz(t, []byte("; MaxProcs: 128\n")), is: ErrNoJobs},
		{name: "truncated gzip", data: full[:len(full)/2], msg: "unexpected EOF", is: io.ErrUnexpectedEOF},
		{name: "binary file", data: binary, msg: "binary data"},
		{name: "binary in a job line", data: []byte(ok + "\n" + "2 \x01\x02\x03 5\n"), line: 2, field: 2, msg: "binary data"},
		{name: "zstd file", data: []byte{0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3}, msg: "zstd", is: ErrNotTrace},
		{name: "zip file", data: []byte("PK\x03\x04rest"), msg: "zip", is: ErrNotTrace},
		{name: "Parquet name, SWF content", file: "t.parquet", data: []byte(ok + "\n"), msg: "PAR1", is: ErrNotTrace},
		{name: "negative run time", data: []byte(ok + "\n" + rec(map[int]string{1: "2", 4: "-5"}) + "\n"), line: 2, field: 4, msg: "-5 is negative"},
		{name: "negative processors", data: []byte(rec(map[int]string{8: "-4"})), line: 1, field: 8, msg: "negative"},
		{name: "negative fraction", data: []byte(rec(map[int]string{3: "-0.5"})), line: 1, field: 3, msg: "negative"},
		{name: "non-numeric field", data: []byte(rec(map[int]string{9: "1h"})), line: 1, field: 9, msg: `"1h" is not a number`},
		{name: "17 fields", data: []byte(strings.Join(baseFields[:17], " ") + "\n"), line: 1, msg: "17 fields, want 18"},
		{name: "19 fields", data: []byte(ok + " 1\n"), line: 1, msg: "more than 18 fields"},
		{name: "unsorted submit times", data: []byte(rec(map[int]string{2: "100"}) + "\n" + rec(map[int]string{1: "2", 2: "50"}) + "\n"), line: 2, field: 2, msg: "sorted"},
		{name: "duplicate job ids", data: []byte(ok + "\n" + ok + "\n"), line: 2, field: 1, msg: "job number 1 is already used"},
		{name: "duplicate after other ids", data: []byte(strings.Repeat("", 0) + lines.String() + rec(map[int]string{1: "70", 2: "3000"}) + "\n"), line: 3001, field: 1},
		{name: "2^62 processors", data: []byte(rec(map[int]string{8: "4611686018427387904"})), line: 1, field: 8, msg: "out of range"},
		{name: "overlong line", data: []byte(strings.Repeat("1 ", 700000)), line: 1, msg: "longer than"},
		{name: "submit time beyond MaxTime", data: []byte(ok + "\n" + rec(map[int]string{1: "2", 2: "10000000000000"}) + "\n"), line: 2, field: 2, msg: "10000000000000 s exceeds 100000000000 s", is: ErrLimit},
		{name: "run time beyond MaxTime", data: []byte(rec(map[int]string{4: "1e13"})), line: 1, field: 4, msg: "longest time schedsim simulates", is: ErrLimit},
		{name: "run time of 1e14 s", data: []byte(rec(map[int]string{4: "100000000000000"})), line: 1, field: 4, is: ErrLimit},
		{name: "requested time beyond MaxTime", data: []byte(rec(map[int]string{9: "100000000001"})), line: 1, field: 9, is: ErrLimit},
		{name: "fractional time beyond MaxTime", data: []byte(rec(map[int]string{2: "100000000000.7"})), line: 1, field: 2, is: ErrLimit},
		{name: "used memory beyond MaxMemKB", data: []byte(rec(map[int]string{7: "1e15"})), line: 1, field: 7, msg: "64 TiB", is: ErrLimit},
		{name: "requested memory beyond MaxMemKB", data: []byte(rec(map[int]string{10: "68719476737"})), line: 1, field: 10, is: ErrLimit},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := tc.file
			if name == "" {
				name = "t" + strconv.Itoa(i) + ".swf"
			}
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := openAll(t, p, tc.rules)
			if err == nil {
				t.Fatal("no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			msg := err.Error()
			if pe.Path != p || !strings.HasPrefix(msg, p) {
				t.Errorf("error %q does not name the file", msg)
			}
			if tc.line > 0 && pe.Line != tc.line {
				t.Errorf("Line = %d, want %d (%s)", pe.Line, tc.line, msg)
			}
			if pe.Field != tc.field {
				t.Errorf("Field = %d, want %d (%s)", pe.Field, tc.field, msg)
			}
			if tc.field > 0 && !strings.Contains(msg, "field "+strconv.Itoa(tc.field)+" (") {
				t.Errorf("message %q does not name field %d", msg, tc.field)
			}
			if !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q lacks %q", msg, tc.msg)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
		})
	}
	if _, err := Open(dir, Rules{}); !errors.Is(err, ErrNotTrace) {
		t.Errorf("Open(a directory) = %v, want ErrNotTrace", err)
	}
	if _, err := Open(filepath.Join(dir, "absent.swf"), Rules{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(a missing file) = %v, want os.ErrNotExist", err)
	}
}

// TestOpenDuplicateRule checks the three values of Rules.Duplicate, and that
// partial records may share their job's number.
func TestOpenDuplicateRule(t *testing.T) {
	text := "; Preemption: Yes\n" +
		rec(map[int]string{1: "1"}) + "\n" +
		rec(map[int]string{1: "2", 11: "2"}) + "\n" + // partial records of job 2
		rec(map[int]string{1: "2", 11: "3"}) + "\n" +
		rec(map[int]string{1: "1", 2: "5"}) + "\n" + // a duplicate
		rec(map[int]string{1: "3", 2: "6"}) + "\n"
	p := filepath.Join(t.TempDir(), "d.swf")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule        DuplicateRule
		ids         []int64
		kept, dupes int64
		dropped     int64
		err         bool
	}{
		{rule: "", err: true},
		{rule: DuplicateError, err: true},
		{rule: DuplicateKeep, ids: []int64{1, 2, 2, 1, 3}, kept: 5, dupes: 1},
		{rule: DuplicateDrop, ids: []int64{1, 2, 2, 3}, kept: 4, dropped: 1},
	}
	for _, tc := range tests {
		t.Run(string(tc.rule), func(t *testing.T) {
			jobs, r, err := openAll(t, p, Rules{Duplicate: tc.rule})
			if tc.err {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Line != 5 || pe.Field != 1 {
					t.Fatalf("error %v, want one at line 5, field 1", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, j := range jobs {
				ids = append(ids, j.ID)
			}
			st := r.Stats()
			if !reflect.DeepEqual(ids, tc.ids) || st.Kept != tc.kept || st.DuplicateIDs != tc.dupes || st.DroppedDuplicate != tc.dropped || st.Records != 5 {
				t.Errorf("ids %v, stats %+v; want ids %v, kept %d, duplicates %d, dropped %d", ids, st, tc.ids, tc.kept, tc.dupes, tc.dropped)
			}
		})
	}
	if err := (Rules{Duplicate: "ignore"}).Validate(); err == nil || !strings.Contains(err.Error(), "duplicate-id") {
		t.Errorf("Validate of a bad duplicate rule: %v", err)
	}
}

// TestIDSet checks the job-number set against a map, on consecutive,
// scattered and negative numbers.
func TestIDSet(t *testing.T) {
	var s idSet
	seen := map[int64]bool{}
	ids := []int64{1, 2, 3, 64, 63, 1 << 40, -1, -64, -65, 2, 1 << 40, 1<<62 + 5, -1 << 62, 127, 128, 3, -1}
	for i := int64(0); i < 500; i++ {
		ids = append(ids, i*37%300)
	}
	for _, id := range ids {
		if got := s.add(id); got != seen[id] {
			t.Fatalf("add(%d) = %v, want %v", id, got, seen[id])
		}
		seen[id] = true
	}
}

// TestOpenDetects checks that Open reads SWF, gzip SWF and Parquet whatever
// the files are named, and that the three give the same jobs.
func TestOpenDetects(t *testing.T) {
	cfg := GenConfig{Jobs: 300, Procs: 32, Seed: 9, Load: 0.8}
	var swf bytes.Buffer
	sw, _ := NewSWFWriter(&swf, cfg.Header())
	if err := Generate(cfg, sw.Write); err != nil {
		t.Fatal(err)
	}
	sw.Flush()
	var pq bytes.Buffer
	pw, err := NewParquetWriter(&pq, cfg.Header())
	if err != nil {
		t.Fatal(err)
	}
	if err := Generate(cfg, pw.Write); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string][]byte{"plain.txt": swf.Bytes(), "zipped.swf": gz(t, swf.Bytes()), "columns.swf": pq.Bytes(), "columns": pq.Bytes()}
	var first []Job
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		jobs, r, err := openAll(t, p, Rules{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Header().MachineSize() != 32 || len(jobs) != 300 {
			t.Errorf("%s: machine %d, %d jobs", name, r.Header().MachineSize(), len(jobs))
		}
		if first == nil {
			first = jobs
		} else if !reflect.DeepEqual(jobs, first) {
			t.Errorf("%s: jobs differ from another form's", name)
		}
	}
	// A non-seekable Parquet input is read into memory.
	jobs, _, err := readAllFrom(t, io.MultiReader(bytes.NewReader(pq.Bytes())), "pipe")
	if err != nil || !reflect.DeepEqual(jobs, first) {
		t.Errorf("Parquet through a plain io.Reader: %v", err)
	}
	// A mapping on SWF is an error.
	if _, err := Open(filepath.Join(dir, "plain.txt"), Rules{}, WithColumns(NativeColumns())); err == nil {
		t.Error("Open(SWF, WithColumns) succeeded")
	}
	// WithFormat overrides detection.
	if _, err := Open(filepath.Join(dir, "plain.txt"), Rules{}, WithFormat(FormatParquet)); !errors.Is(err, ErrNotTrace) {
		t.Errorf("Open(SWF, WithFormat(parquet)) = %v, want ErrNotTrace", err)
	}
}

func readAllFrom(t *testing.T, in io.Reader, name string) ([]Job, Reader, error) {
	t.Helper()
	r, err := NewReader(in, name, Rules{})
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var jobs []Job
	for {
		var j Job
		if err := r.Next(&j); err == io.EOF {
			return jobs, r, nil
		} else if err != nil {
			return nil, r, err
		}
		jobs = append(jobs, j)
	}
}

// TestRaw checks that Raw keeps every record, dropped ones included, and
// still checks the order.
func TestRaw(t *testing.T) {
	text := rec(map[int]string{2: "-1"}) + "\n" + rec(map[int]string{1: "2", 4: "0", 8: "-1", 5: "-1"}) + "\n" + rec(map[int]string{1: "2", 2: "3"}) + "\n"
	p := filepath.Join(t.TempDir(), "r.swf")
	os.WriteFile(p, []byte(text), 0o644)
	jobs, r, err := openAll(t, p, Rules{}, Raw())
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 || jobs[0].Submit != -1 || jobs[1].Procs != -1 || jobs[1].Run != 0 || r.Stats() != (CleanStats{Records: 3, Kept: 3}) {
		t.Errorf("raw read: %+v, stats %+v", jobs, r.Stats())
	}
	os.WriteFile(p, []byte(rec(map[int]string{2: "9"})+"\n"+rec(map[int]string{2: "8"})+"\n"), 0o644)
	if _, _, err := openAll(t, p, Rules{}, Raw()); err == nil {
		t.Error("raw read of unsorted records succeeded")
	}
}

// TestSharedTracesParquet converts every trace of ../shared/traces to
// Parquet and back, record by record (Raw), and checks that the jobs are
// identical in all three forms, read raw and read with the default rules.
// The big traces in full runs only (skipBig).
func TestSharedTracesParquet(t *testing.T) {
	dir := sharedPath(t, "traces")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, e := range ents {
		name := e.Name()
		if !strings.Contains(name, ".swf") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(dir, name)
			skipBig(t, src)
			raw, r, err := openAll(t, src, Rules{}, Raw())
			if err != nil {
				t.Fatal(err)
			}
			pqPath := filepath.Join(tmp, name+".parquet")
			writeJobs(t, pqPath, r.Header(), raw, true)
			back, rp, err := openAll(t, pqPath, Rules{}, Raw())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, raw) || !reflect.DeepEqual(rp.Header(), r.Header()) {
				t.Fatalf("Parquet form differs from the SWF trace (%d vs %d jobs)", len(back), len(raw))
			}
			swfPath := filepath.Join(tmp, name+".swf")
			writeJobs(t, swfPath, rp.Header(), back, false)
			again, rs, err := openAll(t, swfPath, Rules{}, Raw())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, raw) || !reflect.DeepEqual(rs.Header(), r.Header()) {
				t.Fatalf("SWF → Parquet → SWF differs from the SWF trace")
			}
			// Cleaned, the forms give the same jobs and counts.
			a, ra, errA := openAll(t, src, Rules{Duplicate: DuplicateKeep})
			b, rb, errB := openAll(t, pqPath, Rules{Duplicate: DuplicateKeep})
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if !reflect.DeepEqual(a, b) || ra.Stats() != rb.Stats() {
				t.Errorf("cleaned jobs or stats differ: %+v vs %+v", ra.Stats(), rb.Stats())
			}
		})
	}
}

// writeJobs writes jobs to path as Parquet or SWF.
func writeJobs(t *testing.T, path string, h *Header, jobs []Job, parquet bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if parquet {
		w, err := NewParquetWriter(f, h)
		if err != nil {
			t.Fatal(err)
		}
		for i := range jobs {
			if err := w.Write(&jobs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := WriteSWF(f, h, jobs); err != nil {
		t.Fatal(err)
	}
}

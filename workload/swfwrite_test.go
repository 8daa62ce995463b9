package workload

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestSWFWriterLine(t *testing.T) {
	tests := []struct {
		name string
		job  Job
		want string
	}{
		{
			name: "every field",
			job: Job{ID: 7, Submit: 11, Procs: 99, Run: 99, Estimate: 99, RawWait: 3.5, RawRun: 99.5, AllocProcs: 8, AvgCPUSec: 45.25,
				UsedMemKB: 1024, ReqProcs: 16, ReqTime: 3600, ReqMemKB: 2048, Status: 1, User: 12, Group: 13,
				Executable: 14, Queue: 15, Partition: 16, PrecedingJob: 6, ThinkTime: 17.5},
			want: "7 11 3.5 99.5 8 45.25 1024 16 3600 2048 1 12 13 14 15 16 6 17.5\n",
		},
		{
			name: "unknowns",
			job: Job{ID: 1, RawWait: -1, RawRun: 10, AllocProcs: -1, AvgCPUSec: -1, UsedMemKB: -1, ReqProcs: 4, ReqTime: -1,
				ReqMemKB: -1, Status: -1, User: -1, Group: -1, Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1},
			want: "1 0 -1 10 -1 -1 -1 4 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n",
		},
		{
			name: "shortest float that reads back",
			job:  Job{ID: 2, Submit: 1e15, RawWait: 0.1, RawRun: 1.0 / 3, AvgCPUSec: 1e-7, UsedMemKB: 123456789.125, ReqTime: math.Copysign(0, -1), ThinkTime: 1e15},
			want: "2 1000000000000000 0.1 0.3333333333333333 0 0.0000001 123456789.125 0 -0 0 0 0 0 0 0 0 0 1000000000000000\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteSWF(&b, nil, []Job{tc.job}); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("wrote %q\nwant  %q", b.String(), tc.want)
			}
		})
	}
}

func TestSWFWriterHeader(t *testing.T) {
	real := "; Version: 2.2\n; Computer: Thinking Machines CM-5\n; Information: http://www.lanl.gov/\n" +
		";              http://www.cs.huji.ac.il/labs/parallel/workload/\n;\n; MaxProcs: 1024 (all of them)\n" +
		"; Preemption: Double\n; Queue:  0  interactive\n"
	rh := readHeader(t, real)
	tests := []struct {
		name    string
		h       *Header
		want    string // the header text written, "" to skip the check
		wantErr string
	}{
		{name: "none", h: nil, want: ""},
		{name: "empty", h: &Header{}, want: ""},
		{name: "comments verbatim", h: rh, want: real},
		{name: "fields", h: &Header{Fields: []HeaderField{{"Version", "2.2"}, {"MaxNodes", "64"}}, MaxNodes: 64},
			want: "; Version: 2.2\n; MaxNodes: 64\n"},
		{name: "sizes and preemption not among the fields", h: &Header{Fields: []HeaderField{{"Version", "2.2"}}, MaxProcs: 32, MaxNodes: 8, Preemption: "Double"},
			want: "; Version: 2.2\n; MaxProcs: 32\n; MaxNodes: 8\n; Preemption: Double\n"},
		{name: "fields trimmed", h: &Header{Fields: []HeaderField{{" Note ", "  a note "}}}, want: "; Note: a note\n"},
		{name: "line break in a comment", h: &Header{Comments: []string{" Note: a\nb"}}, wantErr: "line break"},
		{name: "blank in a key", h: &Header{Fields: []HeaderField{{"Max Procs", "4"}}}, wantErr: "would not read back"},
		{name: "colon in a key", h: &Header{Fields: []HeaderField{{"a:b", "4"}}}, wantErr: "would not read back"},
		{name: "empty key", h: &Header{Fields: []HeaderField{{"", "4"}}}, wantErr: "would not read back"},
		{name: "line break in a value", h: &Header{Fields: []HeaderField{{"Note", "a\nb"}}}, wantErr: "would not read back"},
		{name: "value read as a URL", h: &Header{Fields: []HeaderField{{"http", "//example.org"}}}, wantErr: "would not read back"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			w, err := NewSWFWriter(&b, tc.h)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "workload: ") {
					t.Fatalf("NewSWFWriter = %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("header written:\n%s\nwant:\n%s", b.String(), tc.want)
			}
			if tc.h == nil {
				return
			}
			// Read back, the header says the same.
			back := readHeader(t, b.String())
			if back.MaxProcs != tc.h.MaxProcs || back.MaxNodes != tc.h.MaxNodes || back.Preemption != tc.h.Preemption {
				t.Errorf("read back MaxProcs %d MaxNodes %d Preemption %q; wrote %d %d %q",
					back.MaxProcs, back.MaxNodes, back.Preemption, tc.h.MaxProcs, tc.h.MaxNodes, tc.h.Preemption)
			}
			if len(tc.h.Comments) > 0 && !reflect.DeepEqual(back, tc.h) {
				t.Errorf("read back %+v\nwrote     %+v", back, tc.h)
			}
			for _, f := range tc.h.Fields {
				if got := back.Get(strings.TrimSpace(f.Key)); got != strings.TrimSpace(f.Value) {
					t.Errorf("read back %s = %q, wrote %q", f.Key, got, f.Value)
				}
			}
		})
	}
}

func readHeader(t *testing.T, text string) *Header {
	t.Helper()
	r, err := NewSWFReader(strings.NewReader(text), "h.swf", Rules{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Header()
}

func TestSWFWriterErrors(t *testing.T) {
	base := Job{ID: 1, Submit: 10, RawRun: 5, ReqProcs: 1}
	with := func(f func(j *Job)) Job { j := base; f(&j); return j }
	tests := []struct {
		name string
		jobs []Job
		want string // "" for no error
	}{
		{"in order", []Job{base, base, with(func(j *Job) { j.Submit = 11 })}, ""},
		{"earlier submit", []Job{base, with(func(j *Job) { j.Submit = 9 })}, "earlier than the previous job's 10"},
		{"unset submit is exempt", []Job{base, with(func(j *Job) { j.Submit = -1 }), with(func(j *Job) { j.Submit = 10 })}, ""},
		{"NaN", []Job{with(func(j *Job) { j.RawRun = math.NaN() })}, "field 4 (run time) = NaN is out of range"},
		{"Inf", []Job{with(func(j *Job) { j.ThinkTime = math.Inf(-1) })}, "field 18 (think time)"},
		{"too large", []Job{with(func(j *Job) { j.ReqMemKB = 2e15 })}, "field 10 (requested memory)"},
		{"too large an id", []Job{with(func(j *Job) { j.ID = 1 << 60 })}, "job number or submit time"},
		{"too late a submit", []Job{with(func(j *Job) { j.Submit = 1 << 60 })}, "job number or submit time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			w, _ := NewSWFWriter(&b, nil)
			var err error
			written := 0
			for i := range tc.jobs {
				if err = w.Write(&tc.jobs[i]); err != nil {
					break
				}
				written++
			}
			w.Flush()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "workload: SWF writer: job ") {
				t.Fatalf("Write = %v, want an error with %q", err, tc.want)
			}
			// Nothing half-written: the output holds the jobs written and reads back.
			if n := strings.Count(b.String(), "\n"); n != written {
				t.Errorf("%d lines written for %d jobs", n, written)
			}
			if _, _, _, err := readSWF(t, b.String(), Rules{}); err != nil {
				t.Errorf("output does not read back: %v", err)
			}
		})
	}
}

type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestSWFWriterIOError(t *testing.T) {
	w, err := NewSWFWriter(failWriter{}, &Header{Fields: []HeaderField{{"Version", "2.2"}}})
	if err != nil {
		t.Fatal(err)
	}
	j := Job{ID: 1}
	for range 10000 {
		if err = w.Write(&j); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if !errors.Is(err, errDiskFull) {
		t.Errorf("error %v, want the writer's", err)
	}
	if err := WriteSWF(failWriter{}, nil, []Job{j}); !errors.Is(err, errDiskFull) {
		t.Errorf("WriteSWF: %v, want the writer's error", err)
	}
}

func TestSWFWriterNoAllocs(t *testing.T) {
	w, _ := NewSWFWriter(io.Discard, nil)
	j := Job{ID: 1, Submit: 5, RawWait: 3.25, RawRun: 100, AllocProcs: 4, AvgCPUSec: 98.5, UsedMemKB: -1, ReqProcs: 4,
		ReqTime: 200, ReqMemKB: -1, Status: 1, User: 3, Group: 2, Executable: -1, Queue: 1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
	if a := testing.AllocsPerRun(1000, func() { j.ID++; w.Write(&j) }); a != 0 {
		t.Errorf("%v allocations per job written, want 0", a)
	}
}

// TestSWFReaderNoAllocs checks that Next does not allocate per job.
func TestSWFReaderNoAllocs(t *testing.T) {
	data := syntheticSWF(5000)
	r, err := NewSWFReader(bytes.NewReader(data), "s.swf", Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var j Job
	if a := testing.AllocsPerRun(2000, func() {
		if err := r.Next(&j); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per job read, want 0", a)
	}
}

// FuzzRoundtrip reads arbitrary SWF text, writes the jobs it kept and reads
// them back: the jobs must be the same (but for Seq, which counts records
// read), and writing them again must give the same bytes.
func FuzzRoundtrip(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(0))
	}
	f.Add([]byte("; MaxProcs: 8\n1 0.4 1e-7 99.5 8 0.1 1024 -1 3599.9 2048 2 12 13 14 15 16 6 17.5\n"+
		"2 3 -0 7 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 123456.789012345678\n"), uint8(0x3f))
	var b bytes.Buffer
	w, _ := NewSWFWriter(&b, GenConfig{Jobs: 20, Procs: 16, Seed: 1}.Header())
	Generate(GenConfig{Jobs: 20, Procs: 16, Seed: 1, Load: 0.9}, w.Write)
	w.Flush()
	f.Add(b.Bytes(), uint8(0))

	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		rules := Rules{}
		if mode&1 != 0 {
			rules.Procs = ProcsAllocated
		}
		if mode&2 != 0 {
			rules.ZeroRun = RunOneSecond
		}
		if mode&4 != 0 {
			rules.Estimate = EstimateRun
		}
		if mode&8 != 0 {
			rules.Overrun = OverrunExtend
		}
		if mode&16 != 0 {
			rules.Partial = PartialDrop
		}
		jobs, h, err := readAllJobs(data, rules)
		if err != nil {
			return // not valid SWF: FuzzSWFReader checks the errors
		}
		var out bytes.Buffer
		if err := WriteSWF(&out, h, jobs); err != nil {
			t.Fatalf("writing the jobs read: %v", err)
		}
		back, h2, err := readAllJobs(out.Bytes(), rules)
		if err != nil {
			t.Fatalf("reading back:\n%s\n%v", out.Bytes(), err)
		}
		if len(back) != len(jobs) {
			t.Fatalf("read %d jobs, wrote them, read back %d\n%s", len(jobs), len(back), out.Bytes())
		}
		for i := range jobs {
			want := jobs[i]
			want.Seq = int64(i)
			if back[i] != want {
				t.Fatalf("job %d read back as\n%+v\nwant\n%+v", i, back[i], want)
			}
		}
		if h2.MachineSize() != h.MachineSize() || h2.Preemption != h.Preemption || !reflect.DeepEqual(h2.Fields, h.Fields) {
			t.Fatalf("header read back as %+v, want %+v", h2, h)
		}
		var again bytes.Buffer
		if err := WriteSWF(&again, h2, back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), again.Bytes()) {
			t.Fatalf("writing twice differs:\n%s\n%s", out.Bytes(), again.Bytes())
		}
	})
}

func readAllJobs(data []byte, rules Rules) ([]Job, *Header, error) {
	r, err := NewSWFReader(bytes.NewReader(data), "rt.swf", rules)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var jobs []Job
	for {
		var j Job
		err := r.Next(&j)
		if err == io.EOF {
			return jobs, r.Header(), nil
		}
		if err != nil {
			return nil, nil, err
		}
		jobs = append(jobs, j)
	}
}

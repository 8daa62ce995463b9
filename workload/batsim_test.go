package workload

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// batsimDoc is a workload in the shape of Batsim's documentation
// ("Workload"): jobs with id, subtime, res, profile and walltime, in no
// particular order, with fractional times, string and number ids;
// profiles of several types; nb_res; and fields Batsim ignores.
const batsimDoc = `{
  "description": "a test workload",
  "command": "written by hand",
  "nb_res": 16,
  "jobs": [
    {"id": 3, "subtime": 30.5, "res": 4, "profile": "d100", "walltime": 200},
    {"id": "1", "subtime": 0, "res": 2, "profile": "d10.4", "walltime": -1, "extra_data": "{}"},
    {"id": 2, "subtime": 10.25, "walltime": 12.5, "res": 1, "profile": "fail"},
    {"id": 4, "subtime": 30.5, "res": 8, "profile": "seq"},
    {"id": 5, "subtime": 40, "res": 4, "profile": "ph"},
    {"id": 6, "subtime": 41, "res": 4, "profile": "total"},
    {"id": 7, "subtime": 42, "res": 2, "profile": "new"}
  ],
  "profiles": {
    "d100": {"type": "delay", "delay": 100},
    "d10.4": {"type": "delay", "delay": 10.4},
    "fail": {"type": "delay", "delay": 5, "ret": 1},
    "seq": {"type": "composed", "repeat": 2, "seq": ["d100", "d10.4"]},
    "ph": {"type": "parallel_homogeneous", "cpu": 3e10, "com": 0, "runtime": 77},
    "total": {"type": "parallel_homogeneous_total", "cpu": 4e10, "com": 0},
    "new": {"type": "DelayProfile", "delay": 60}
  }
}
`

// batsimNoSpeed is batsimDoc without the job whose profile has no run
// time unless the hosts' speed is known.
var batsimNoSpeed = strings.Replace(batsimDoc, `    {"id": 6, "subtime": 41, "res": 4, "profile": "total"},`+"\n", "", 1)

// batsimGot is what a test checks of a job read from a Batsim workload.
type batsimGot struct {
	ID       int64
	Submit   Time
	Procs    int
	Run      Time
	Estimate Time
	RawRun   float64
	Status   int
}

func batsimJobs(jobs []Job) []batsimGot {
	var out []batsimGot
	for _, j := range jobs {
		out = append(out, batsimGot{j.ID, j.Submit, j.Procs, j.Run, j.Estimate, j.RawRun, j.Status})
	}
	return out
}

// TestBatsimRead reads the documented shape: jobs in submission order
// (ties in file order), times rounded as SWF's are, run times from each
// profile type, nb_res as the machine size.
func TestBatsimRead(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want []batsimGot
	}{
		{"runtime fields", nil, []batsimGot{
			{1, 0, 2, 10, Unknown, 10.4, 1},
			{2, 10, 1, 5, 13, 5, 0},            // ret 1: failed; walltime 12.5 rounds to 13
			{3, 31, 4, 100, 200, 100, 1},       // subtime 30.5 rounds half away from zero
			{4, 31, 8, 221, Unknown, 220.8, 1}, // 2 × (100 + 10.4)
			{5, 40, 4, 77, Unknown, 77, 1},     // no speed: the profile's runtime
			{7, 42, 2, 60, Unknown, 60, 1},
		}},
		{"hosts' speed", []Option{WithBatsimSpeed(1e9)}, []batsimGot{
			{1, 0, 2, 10, Unknown, 10.4, 1},
			{2, 10, 1, 5, 13, 5, 0},
			{3, 31, 4, 100, 200, 100, 1},
			{4, 31, 8, 221, Unknown, 220.8, 1},
			{5, 40, 4, 30, Unknown, 30, 1}, // 3e10 flops at 1e9 flop/s
			{6, 41, 4, 10, Unknown, 10, 1}, // 4e10 spread over 4 hosts
			{7, 42, 2, 60, Unknown, 60, 1},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := batsimDoc
			if tc.opts == nil {
				doc = batsimNoSpeed
			}
			jobs, r, err := readText(t, doc, "w.json", Rules{}, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := batsimJobs(jobs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("jobs\n got %+v\nwant %+v", got, tc.want)
			}
			if r.Header().MachineSize() != 16 {
				t.Errorf("machine size %d, want nb_res 16", r.Header().MachineSize())
			}
			st := r.Stats()
			if st.Records != int64(len(tc.want)) || st.RoundedFractional != 4 || st.NoEstimate != int64(len(tc.want)-2) {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// TestBatsimPartition: a job's extra "partition" field (which Batsim
// passes on to the scheduler) is its SWF partition number; without it, or
// null or -1, the partition is unknown.
func TestBatsimPartition(t *testing.T) {
	doc := "{\"nb_res\": 4, \"jobs\": [\n" +
		"{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"p\", \"partition\": 4},\n" +
		"{\"id\": 2, \"subtime\": 1, \"res\": 1, \"profile\": \"p\"},\n" +
		"{\"id\": 3, \"subtime\": 2, \"res\": 1, \"profile\": \"p\", \"partition\": null},\n" +
		"{\"id\": 4, \"subtime\": 3, \"res\": 1, \"profile\": \"p\", \"partition\": -1}\n" +
		"], \"profiles\": {\"p\": {\"type\": \"delay\", \"delay\": 5}}}\n"
	jobs, _, err := readText(t, doc, "w.json", Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, j := range jobs {
		got = append(got, j.Partition)
	}
	if want := []int{4, Unknown, Unknown, Unknown}; !reflect.DeepEqual(got, want) {
		t.Errorf("partitions %v, want %v", got, want)
	}
}

// TestBatsimErrors checks that a bad workload is a *ParseError naming the
// line and the key.
func TestBatsimErrors(t *testing.T) {
	job := func(fields string) string {
		return "{\n\"jobs\": [\n{\"id\": 1, \"subtime\": 0, \"res\": 1, \"profile\": \"p\"},\n" + fields + "\n],\n\"profiles\": {\"p\": {\"type\": \"delay\", \"delay\": 5}}\n}\n"
	}
	prof := func(p string) string {
		return "{\"nb_res\": 4,\n\"jobs\": [{\"id\": 1, \"subtime\": 0, \"res\": 2, \"profile\": \"x\"}],\n\"profiles\": {\n\"y\": {\"type\": \"delay\", \"delay\": 1},\n\"x\": " + p + "\n}}\n"
	}
	tests := []struct {
		name string
		text string
		line int64
		key  string
		msg  string
	}{
		{"syntax", "{\n\"jobs\": [\n{\"id\": 1,,}\n]}", 3, "", "not a Batsim JSON workload"},
		{"ends early", "{\"jobs\": [", 1, "", "ends early"},
		{"no jobs", "{\"profiles\": {}}", 0, "", "no \"jobs\" array"},
		{"jobs not an array", "{\"jobs\": 3}", 1, "jobs", "want an array"},
		{"twice", "{\"jobs\": [],\n\"jobs\": []}", 2, "jobs", "given twice"},
		{"after the object", "{\"jobs\": []} {}", 1, "", "text after"},
		{"job not an object", job("7"), 4, "jobs[1]", "JSON object"},
		{"missing profile", job("{\"id\": 2, \"subtime\": 1, \"res\": 1}"), 4, "jobs[1].profile", "missing"},
		{"unknown profile", job("{\"id\": 2, \"subtime\": 1, \"res\": 1, \"profile\": \"q\"}"), 4, "jobs[1].profile", "no profile is named \"q\""},
		{"subtime", job("{\"id\": 2, \"subtime\": -1, \"res\": 1, \"profile\": \"p\"}"), 4, "jobs[1].subtime", "submission time"},
		{"subtime text", job("{\"id\": 2, \"subtime\": \"1\", \"res\": 1, \"profile\": \"p\"}"), 4, "jobs[1].subtime", "submission time"},
		{"res", job("{\"id\": 2, \"subtime\": 1, \"res\": 1.5, \"profile\": \"p\"}"), 4, "jobs[1].res", "number of resources"},
		{"walltime", job("{\"id\": 2, \"subtime\": 1, \"res\": 1, \"profile\": \"p\", \"walltime\": -3}"), 4, "jobs[1].walltime", "walltime"},
		{"partition", job("{\"id\": 2, \"subtime\": 1, \"res\": 1, \"profile\": \"p\", \"partition\": 0}"), 4, "jobs[1].partition", "partition number"},
		{"partition text", job("{\"id\": 2, \"subtime\": 1, \"res\": 1, \"profile\": \"p\", \"partition\": \"batch\"}"), 4, "jobs[1].partition", "partition number"},
		{"id", job("{\"id\": \"abc\", \"subtime\": 1, \"res\": 1, \"profile\": \"p\"}"), 4, "jobs[1].id", "not a job number"},
		{"duplicate id", job("{\"id\": 1, \"subtime\": 1, \"res\": 1, \"profile\": \"p\"}"), 4, "id", "already used"},
		{"nb_res", "{\"nb_res\": 0, \"jobs\": []}", 1, "nb_res", "positive integer"},
		{"type", prof("{\"type\": \"smpi\", \"trace\": \"t\"}"), 5, "profiles.x.type", "no run time schedsim can know"},
		{"no type", prof("{\"delay\": 3}"), 5, "profiles.x.type", "missing"},
		{"delay", prof("{\"type\": \"delay\"}"), 5, "profiles.x.delay", "needs a delay"},
		{"negative delay", prof("{\"type\": \"delay\", \"delay\": -2}"), 5, "profiles.x.delay", "seconds ≥ 0"},
		{"platform", prof("{\"type\": \"parallel_homogeneous\", \"cpu\": 1e9, \"com\": 0}"), 5, "profiles.x", "speed"},
		{"communication", prof("{\"type\": \"parallel_homogeneous\", \"cpu\": 1e9, \"com\": 5}"), 5, "profiles.x", "communication"},
		{"cycle", prof("{\"type\": \"composed\", \"seq\": [\"y\", \"x\"]}"), 5, "profiles.x", "contains itself"},
		{"seq", prof("{\"type\": \"composed\", \"seq\": [\"z\"]}"), 5, "profiles.x.seq", "no profile is named \"z\""},
		{"repeat", prof("{\"type\": \"composed\", \"repeat\": 0, \"seq\": [\"y\"]}"), 5, "profiles.x.repeat", "positive integer"},
		{"ret", prof("{\"type\": \"delay\", \"delay\": 1, \"ret\": 0.5}"), 5, "profiles.x.ret", "return code"},
		{"profile twice", "{\"jobs\": [],\n\"profiles\": {\"a\": {\"type\": \"delay\", \"delay\": 1},\n\"a\": {}}}", 3, "profiles.a", "twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readText(t, tc.text, "bad.json", Rules{})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *ParseError", err)
			}
			if pe.Path != "bad.json" || pe.Line != tc.line || pe.Key != tc.key || !strings.Contains(pe.Error(), tc.msg) {
				t.Errorf("error %q (line %d, key %q), want line %d, key %q, mentioning %q", pe.Error(), pe.Line, pe.Key, tc.line, tc.key, tc.msg)
			}
		})
	}
}

// batsimSWF is a small SWF trace for the writer: a fractional run time,
// jobs without requested time, a partial record sharing its job's
// number, and records Batsim has no place for.
const batsimSWF = `; Version: 2.2
; Computer: test machine
; MaxProcs: 64
1 0 5 100 4 -1 -1 4 200 -1 1 3 -1 -1 -1 -1 -1 -1
2 10 0 99.5 8 -1 -1 -1 -1 -1 1 3 -1 -1 -1 -1 -1 -1
3 20 0 50 -1 -1 -1 2 60 -1 0 4 -1 -1 -1 -1 -1 -1
3 25 0 10 -1 -1 -1 2 60 -1 2 4 -1 -1 -1 -1 -1 -1
4 30 -1 -1 4 -1 -1 4 100 -1 5 5 -1 -1 -1 -1 -1 -1
5 40 -1 100 -1 -1 -1 -1 100 -1 5 5 -1 -1 -1 -1 -1 -1
6 -1 -1 100 4 -1 -1 4 100 -1 1 5 -1 -1 -1 -1 -1 -1
7 50 -1 0 1 -1 -1 1 100 -1 1 5 -1 -1 -1 -1 -1 -1
8 50 -1 100 1 -1 -1 1 100 -1 1 5 -1 -1 -1 -1 -1 -1
`

// writeBatsim converts an SWF text to a Batsim workload, record by record.
func writeBatsim(t *testing.T, swf string) ([]byte, *BatsimWriter) {
	t.Helper()
	r, err := NewReader(strings.NewReader(swf), "t.swf", Rules{}, Raw())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	bw, err := NewBatsimWriter(&out, r.Header())
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := readEvery(r)
	if err != io.EOF {
		t.Fatal(err)
	}
	for i := range jobs {
		if err := bw.Write(&jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), bw
}

// TestBatsimWriter writes the trace as a Batsim workload (compared with
// testdata/batsim.json; -update rewrites it): records without a submit
// time, processors or run time and the partial record are left out, the
// header travels in swf_header, and reading the workload back gives the
// SWF trace's jobs.
func TestBatsimWriter(t *testing.T) {
	out, bw := writeBatsim(t, batsimSWF)
	golden := filepath.Join("testdata", "batsim.json")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("workload differs from %s:\n%s", golden, out)
	}
	if bw.Skipped() != 4 {
		t.Errorf("skipped %d records, want 4 (partial record, no run time, no processors, no submit time)", bw.Skipped())
	}

	back, rb, err := readText(t, string(out), "back.json", Rules{})
	if err != nil {
		t.Fatal(err)
	}
	orig, ro, err := readText(t, batsimSWF, "t.swf", Rules{Partial: PartialDrop})
	if err != nil {
		t.Fatal(err)
	}
	type sched struct {
		ID       int64
		Submit   Time
		Procs    int
		Run      Time
		Estimate Time
	}
	var a, b []sched
	for _, j := range back {
		a = append(a, sched{j.ID, j.Submit, j.Procs, j.Run, j.Estimate})
	}
	for _, j := range orig {
		b = append(b, sched{j.ID, j.Submit, j.Procs, j.Run, j.Estimate})
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("read back: %+v\nfrom SWF: %+v", a, b)
	}
	if rb.Header().Get("Computer") != "test machine" || rb.Header().MachineSize() != ro.Header().MachineSize() {
		t.Errorf("header read back: %+v", rb.Header().Fields)
	}
}

// TestBatsimWriterRoundTrip writes generated traces as Batsim workloads
// and reads them back: every job is the same as read from the SWF form,
// and nb_res is the machine size (else the largest job).
func TestBatsimWriterRoundTrip(t *testing.T) {
	for _, h := range []bool{true, false} {
		cfg := GenConfig{Jobs: 500, Procs: 64, Seed: 3, Load: 0.9}
		var swf bytes.Buffer
		hdr := cfg.Header()
		if !h {
			hdr = nil
		}
		sw, _ := NewSWFWriter(&swf, hdr)
		if err := Generate(cfg, sw.Write); err != nil {
			t.Fatal(err)
		}
		sw.Flush()
		out, bw := writeBatsim(t, swf.String())
		if bw.Skipped() != 0 {
			t.Errorf("skipped %d generated jobs", bw.Skipped())
		}
		want, _, err := readText(t, swf.String(), "t.swf", Rules{})
		if err != nil {
			t.Fatal(err)
		}
		got, r, err := readText(t, string(out), "t.json", Rules{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			// Batsim keeps the fields a schedule depends on.
			w, g := want[i], got[i]
			if g.ID != w.ID || g.Submit != w.Submit || g.Procs != w.Procs || g.Run != w.Run || g.Estimate != w.Estimate || g.RawRun != w.RawRun {
				t.Fatalf("job %d: %+v, from SWF %+v", i, g, w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%d jobs read back, %d written", len(got), len(want))
		}
		if h && r.Header().MachineSize() != 64 {
			t.Errorf("nb_res %d, want the machine's 64", r.Header().MachineSize())
		}
		if !h {
			largest := 0
			for _, j := range want {
				largest = max(largest, j.Procs)
			}
			if r.Header().MachineSize() != largest {
				t.Errorf("nb_res %d without a header, want the largest job's %d", r.Header().MachineSize(), largest)
			}
		}
	}
}

// TestBatsimWriterOrder checks that the writer refuses jobs out of
// submission order, and writes after Close.
func TestBatsimWriterOrder(t *testing.T) {
	var out bytes.Buffer
	bw, _ := NewBatsimWriter(&out, nil)
	j := Job{ID: 1, Submit: 10, Procs: 1, RawRun: 5}
	if err := bw.Write(&j); err != nil {
		t.Fatal(err)
	}
	j.ID, j.Submit = 2, 9
	if err := bw.Write(&j); err == nil {
		t.Error("a job submitted before the previous one was written")
	}
	bw.Close()
	j.Submit = 20
	if err := bw.Write(&j); err == nil {
		t.Error("Write after Close succeeded")
	}
}

// TestBatsimMediumLate reads the Batsim workload of the evalys examples
// (../shared/reference/batsim-energy): 801 delay jobs on 32 hosts,
// fractional submit times, one job listed first but submitted last.
func TestBatsimMediumLate(t *testing.T) {
	p := sharedPath(t, "reference/batsim-energy/medium_late.json")
	jobs, r, err := openAll(t, p, Rules{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 801 || r.Header().MachineSize() != 32 {
		t.Fatalf("%d jobs on %d resources, want 801 on 32", len(jobs), r.Header().MachineSize())
	}
	if first, last := jobs[0], jobs[len(jobs)-1]; first.ID != 0 || first.Submit != 0 || last.ID != 424242 || last.Submit != 16000 {
		t.Errorf("first job %d at %d, last %d at %d", first.ID, first.Submit, last.ID, last.Submit)
	}
	for i := 1; i < len(jobs); i++ {
		if jobs[i].Submit < jobs[i-1].Submit {
			t.Fatalf("job %d submitted at %d after one at %d", jobs[i].ID, jobs[i].Submit, jobs[i-1].Submit)
		}
	}
	if st := r.Stats(); st.Kept != 801 || st.RoundedFractional == 0 {
		t.Errorf("stats %+v", st)
	}
}

// batsimFuzzSeeds are workloads, valid and not, for the fuzz corpus.
var batsimFuzzSeeds = []string{
	batsimDoc,
	"{\"jobs\": [], \"profiles\": {}}",
	"{\"nb_res\": 2, \"jobs\": [{\"id\": 1, \"subtime\": 0.5, \"res\": 2, \"profile\": \"c\"}], \"profiles\": {\"c\": {\"type\": \"composed\", \"seq\": [\"c\"]}}}",
	"{\"jobs\": [{\"id\": \"9\", \"subtime\": 1e3, \"res\": 1, \"walltime\": 1e2, \"profile\": \"p\"}], \"profiles\": {\"p\": {\"type\": \"parallel_homogeneous\", \"cpu\": 1, \"com\": 0}}}",
	"{\"swf_header\": [\"; MaxProcs: 8\", \"; Note: x\"], \"jobs\": [{\"id\": 1, \"subtime\": 0, \"res\": 9, \"profile\": \"p\"}], \"profiles\": {\"p\": {\"type\": \"delay\", \"delay\": 0}}}",
}

// FuzzBatsimReader feeds arbitrary bytes to the Batsim reader, raw and
// with the default rules: it must never panic, must return either a job
// stream in submission order or a *ParseError, and every job it keeps
// must be runnable.
func FuzzBatsimReader(f *testing.F) {
	for _, s := range batsimFuzzSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, raw bool) {
		opts := []Option{WithFormat(FormatBatsim), WithBatsimSpeed(1e3)}
		if raw {
			opts = append(opts, Raw())
		}
		r, err := NewReader(bytes.NewReader(data), "fuzz.json", Rules{Duplicate: DuplicateKeep}, opts...)
		if err != nil {
			checkTextFuzzError(t, err, "fuzz.json")
			return
		}
		defer r.Close()
		checkTextFuzzJobs(t, r, raw)
	})
}

// TestBatsimTicks reads Batsim workloads in milliseconds (WithTicks):
// fractional times survive to the tick, rounded to the nearest; an SWF
// trace refuses a finer unit.
func TestBatsimTicks(t *testing.T) {
	doc := `{"nb_res": 4, "jobs": [
 {"id": 1, "subtime": 4.7091645, "walltime": 399, "res": 2, "profile": "d"},
 {"id": 2, "subtime": 16.0039, "res": 1, "profile": "e"}],
 "profiles": {"d": {"type": "delay", "delay": 265.8}, "e": {"type": "delay", "delay": 1.0125}}}`
	for _, c := range []struct {
		ticks                   int64
		submit, run, est, small Time
	}{
		{1, 5, 266, 399, 1},
		{1000, 4709, 265800, 399000, 1013},
		{1_000_000, 4709165, 265800000, 399000000, 1012500},
	} {
		r, err := NewReader(strings.NewReader(doc), "w.json", Rules{}, WithFormat(FormatBatsim), WithTicks(c.ticks))
		if err != nil {
			t.Fatal(err)
		}
		var a, b Job
		if err := r.Next(&a); err != nil {
			t.Fatal(err)
		}
		if err := r.Next(&b); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if a.Submit != c.submit || a.Run != c.run || a.Estimate != c.est || b.Run != c.small {
			t.Errorf("ticks %d: job 1 at %d, run %d, estimate %d; job 2 run %d; want %d, %d, %d, %d", c.ticks, a.Submit, a.Run, a.Estimate, b.Run, c.submit, c.run, c.est, c.small)
		}
	}
	_, err := NewReader(strings.NewReader("1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n"), "t.swf", Rules{}, WithTicks(1000))
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "Batsim workloads only") {
		t.Errorf("SWF with ticks: %v", err)
	}
}

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// readJobs reads every job of a trace with the default rules (duplicate
// job numbers kept).
func readJobs(t *testing.T, path string, opts ...workload.Option) ([]workload.Job, workload.Reader) {
	t.Helper()
	r, err := workload.Open(path, workload.Rules{Duplicate: workload.DuplicateKeep}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var jobs []workload.Job
	for {
		var j workload.Job
		err := r.Next(&j)
		if err == io.EOF {
			return jobs, r
		}
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
}

// TestConvertSharedTraces converts every trace of ../shared/traces SWF →
// Parquet → SWF: the job fields are identical in the three forms, and
// "schedsim run" gives a byte-identical jobs.csv on the SWF and the Parquet
// form (both named "trace", so that workload_name matches: the format is
// detected from the content). The big traces in full runs only
// (skipBigTrace).
func TestConvertSharedTraces(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "traces")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", dir)
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.Contains(name, ".swf") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			src := filepath.Join(dir, name)
			skipBigTrace(t, src)
			pq := filepath.Join(tmp, "t.parquet")
			back := filepath.Join(tmp, "back.swf.gz")
			for _, args := range [][]string{{"convert", src, pq}, {"convert", pq, back}} {
				if code, _, stderr := run(t, args...); code != exitOK {
					t.Fatalf("%v: exit %d: %s", args, code, stderr)
				}
			}
			want, rw := readJobs(t, src)
			for _, p := range []string{pq, back} {
				got, r := readJobs(t, p)
				if !reflect.DeepEqual(got, want) || r.Stats() != rw.Stats() || !reflect.DeepEqual(r.Header(), rw.Header()) {
					t.Fatalf("%s: jobs, counts or header differ from the original's", filepath.Base(p))
				}
			}

			// Run both forms under the same name.
			var csv [2][]byte
			for i, data := range []string{src, pq} {
				d := filepath.Join(tmp, []string{"swf", "pq"}[i])
				os.Mkdir(d, 0o755)
				trace := filepath.Join(d, "trace")
				b, err := os.ReadFile(data)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(trace, b, 0o644); err != nil {
					t.Fatal(err)
				}
				args := []string{"run", "--trace", trace, "--out", filepath.Join(d, "out"), "-q", "--plots=false", "--duplicate-id", "keep"}
				if rw.Header().MachineSize() == 0 {
					args = append(args, "--procs", "240")
				}
				if code, _, stderr := run(t, args...); code != exitOK {
					t.Fatalf("run: exit %d: %s", code, stderr)
				}
				if csv[i], err = os.ReadFile(filepath.Join(d, "out", "jobs.csv")); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(csv[0], csv[1]) || len(csv[0]) == 0 {
				t.Errorf("jobs.csv of the Parquet form differs from the SWF form's")
			}
		})
	}
}

// TestConvertErrors checks that bad conversions exit with status 2, name
// the problem and leave no output file.
func TestConvertErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.swf", smallTrace)
	bad := writeFile(t, dir, "bad.swf", smallTrace+"5 7 -1 10 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1\n")
	empty := writeFile(t, dir, "empty.swf", "; MaxProcs: 8\n")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no arguments", []string{"convert"}, exitUsage, "want two arguments"},
		{"one argument", []string{"convert", good}, exitUsage, "want two arguments"},
		{"unknown output format", []string{"convert", good, filepath.Join(dir, "out.csv")}, exitUsage, ".parquet"},
		{"missing input", []string{"convert", filepath.Join(dir, "absent.swf"), filepath.Join(dir, "out.parquet")}, exitUsage, "absent.swf"},
		{"bad line", []string{"convert", bad, filepath.Join(dir, "out.parquet")}, exitUsage, "bad.swf:7: 17 fields"},
		{"header only", []string{"convert", empty, filepath.Join(dir, "out.parquet")}, exitUsage, "no job record"},
		{"mapping on SWF", []string{"convert", "--columns", "pm100", good, filepath.Join(dir, "out.parquet")}, exitUsage, "Parquet traces only"},
		{"bad mapping", []string{"convert", "--columns", "pm99", good, filepath.Join(dir, "out.parquet")}, exitUsage, "unknown column preset"},
		{"help", []string{"convert", "--help"}, exitOK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.msg) {
				t.Errorf("stderr %q lacks %q", stderr, tc.msg)
			}
			if tc.code == exitOK && !strings.Contains(stdout, "lossless") {
				t.Errorf("help: %q", stdout)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 3 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("the directory holds %v: a failed conversion left a file", names)
			}
		})
	}
}

// TestRunParquet runs Parquet traces: schedsim's schema with
// --format csv,parquet, a PM100-like table with --columns, and bad Parquet
// input that must exit with status 2 and write nothing.
func TestRunParquet(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.swf", smallTrace)
	pq := filepath.Join(dir, "good.parquet")
	if code, _, stderr := run(t, "convert", good, pq); code != exitOK {
		t.Fatal(stderr)
	}
	out := filepath.Join(dir, "res")
	code, _, stderr := run(t, "run", "--trace", pq, "--out", out, "-q", "--plots=false", "--format", "csv,parquet")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "jobs.parquet") {
		t.Errorf("stderr %q does not mention jobs.parquet", stderr)
	}
	for _, f := range []string{"jobs.csv", "jobs.parquet", "summary.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// jobs.parquet holds jobs.csv's rows.
	b, err := os.ReadFile(filepath.Join(out, "jobs.parquet"))
	if err != nil || !bytes.HasPrefix(b, []byte("PAR1")) || !bytes.HasSuffix(b, []byte("PAR1")) || !bytes.Contains(b, []byte("final_state")) {
		t.Errorf("jobs.parquet is not a Parquet file with jobs.csv's columns (%v)", err)
	}

	out2 := filepath.Join(dir, "res2")
	if code, _, stderr := run(t, "run", "--trace", pq, "--out", out2, "-q", "--plots=false", "--format", "parquet"); code != exitOK {
		t.Fatal(stderr)
	}
	if ents, _ := os.ReadDir(out2); len(ents) != 2 {
		t.Errorf("--format parquet wrote %d files, want jobs.parquet and summary.json", len(ents))
	}

	bad := []struct {
		name, data, msg string
		args            []string
	}{
		{"bad format", "", "--format", []string{"--trace", pq, "--format", "xml"}},
		{"bad mapping", "", "--columns", []string{"--trace", pq, "--columns", "submit_time=x"}},
		{"mapping missing columns", "", `column "adt"`, []string{"--trace", pq, "--columns", "fdata"}},
		{"truncated Parquet", "trunc.parquet", "not a readable Parquet file", nil},
		{"empty file", "empty.swf", "no job record", nil},
		{"duplicate ids", "dup.swf", "already used", nil},
	}
	pqBytes, _ := os.ReadFile(pq)
	contents := map[string][]byte{
		"trunc.parquet": pqBytes[:len(pqBytes)-20],
		"empty.swf":     nil,
		"dup.swf":       []byte("; MaxProcs: 8\n1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n1 5 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n"),
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.data != "" {
				p := filepath.Join(dir, tc.data)
				os.WriteFile(p, contents[tc.data], 0o644)
				args = []string{"--trace", p}
			}
			o := filepath.Join(dir, "bad-"+strings.ReplaceAll(tc.name, " ", "-"))
			code, _, stderr := run(t, append(append([]string{"run"}, args...), "--out", o, "-q", "--plots=false")...)
			if code != exitUsage {
				t.Fatalf("exit %d, want 2: %s", code, stderr)
			}
			if !strings.Contains(stderr, tc.msg) {
				t.Errorf("stderr %q lacks %q", stderr, tc.msg)
			}
			if ents, _ := os.ReadDir(o); len(ents) > 0 {
				t.Errorf("a failed run left %d files", len(ents))
			}
		})
	}
}

// TestConvertBatsim converts SWF to a Batsim workload (plain and gzip) and
// back: the jobs a run keeps are the same, the header travels with them,
// and "schedsim run" reads the workload and the SWF form alike.
func TestConvertBatsim(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "t.swf", smallTrace+"5 7 -1 -1 4 -1 -1 4 60 -1 5 1 1 -1 -1 -1 -1 -1\n")
	for _, name := range []string{"t.json", "t.json.gz"} {
		js := filepath.Join(dir, name)
		back := filepath.Join(dir, "back-"+name+".swf")
		code, _, stderr := run(t, "convert", src, js)
		if code != exitOK || !strings.Contains(stderr, "left out 1 records") {
			t.Fatalf("convert to %s: exit %d: %s", name, code, stderr)
		}
		if code, _, stderr := run(t, "convert", js, back); code != exitOK {
			t.Fatalf("convert back: exit %d: %s", code, stderr)
		}
		b, _ := os.ReadFile(js)
		if gzipped := bytes.HasPrefix(b, []byte{0x1f, 0x8b}); gzipped != strings.HasSuffix(name, ".gz") {
			t.Errorf("%s: gzip %v", name, gzipped)
		}
		want, rw := readJobs(t, src)
		for _, p := range []string{js, back} {
			got, r := readJobs(t, p)
			if len(got) != len(want) || r.Header().MachineSize() != 8 || r.Header().Get("Version") != "2.2" {
				t.Fatalf("%s: %d jobs, header %+v", filepath.Base(p), len(got), r.Header().Fields)
			}
			for i := range want {
				w, g := want[i], got[i]
				if g.ID != w.ID || g.Submit != w.Submit || g.Procs != w.Procs || g.Run != w.Run || g.Estimate != w.Estimate {
					t.Errorf("%s: job %d: %+v, from SWF %+v", filepath.Base(p), i, g, w)
				}
			}
			if r.Stats().Kept != rw.Stats().Kept {
				t.Errorf("%s: kept %d, SWF %d", filepath.Base(p), r.Stats().Kept, rw.Stats().Kept)
			}
		}
		out := filepath.Join(dir, "res-"+name)
		if code, _, stderr := run(t, "run", "--trace", js, "--out", out, "-q", "--plots=false"); code != exitOK {
			t.Fatalf("run on %s: exit %d: %s", name, code, stderr)
		}
	}
}

// sacctSmall is smallTrace's jobs as "sacct --allusers --parsable2"
// prints them, with the batch step of each and a job still pending.
const sacctSmall = `JobID|JobIDRaw|User|Partition|Submit|Start|End|Elapsed|Timelimit|State|ExitCode|NCPUS|ReqCPUS
1|1|u1|batch|2024-05-01T12:00:00|2024-05-01T12:00:00|2024-05-01T12:01:40|00:01:40|00:01:40|COMPLETED|0:0|4|4
1.batch|1.batch|||2024-05-01T12:00:00|2024-05-01T12:00:00|2024-05-01T12:01:40|00:01:40||COMPLETED|0:0|4|4
2|2|u1|batch|2024-05-01T12:00:00|2024-05-01T12:01:40|2024-05-01T12:03:20|00:01:40|00:03:20|COMPLETED|0:0|8|8
3|3|u1|batch|2024-05-01T12:00:05|2024-05-01T12:03:20|2024-05-01T12:04:10|00:00:50|00:01:00|COMPLETED|0:0|4|4
4|4|u1|batch|2024-05-01T12:00:06|2024-05-01T12:03:20|2024-05-01T12:03:30|00:00:10|00:01:00|COMPLETED|0:0|16|16
5|5|u2|batch|2024-05-01T12:00:07|Unknown|Unknown|00:00:00|00:01:00|PENDING|0:0|4|4
`

// TestConvertSacct converts sacct output to SWF and to a Batsim workload:
// the jobs are smallTrace's, the recorded starts kept as waits, and a run
// of the sacct file itself gives the SWF form's jobs.csv.
func TestConvertSacct(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "jobs.txt", sacctSmall)
	swf := filepath.Join(dir, "jobs.swf")
	if code, _, stderr := run(t, "convert", "--timezone", "Europe/Paris", src, swf); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, "convert", src, filepath.Join(dir, "jobs.json")); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, r := readJobs(t, swf, workload.Raw())
	waits := []float64{0, 100, 195, 194, -1}
	if len(got) != 5 || r.Header().Get("TimeZoneString") != "Europe/Paris" {
		t.Fatalf("%d records, header %+v", len(got), r.Header().Fields)
	}
	small := writeFile(t, dir, "small.swf", smallTrace)
	want, _ := readJobs(t, small)
	for i, j := range got {
		if j.RawWait != waits[i] {
			t.Errorf("job %d: wait %v, want %v", j.ID, j.RawWait, waits[i])
		}
		if i < len(want) && (j.ID != want[i].ID || j.Submit != want[i].Submit || j.Procs != want[i].Procs || j.Run != want[i].Run || j.Estimate != want[i].Estimate) {
			t.Errorf("job %d: %+v, want smallTrace's %+v", j.ID, j, want[i])
		}
	}

	// Run the sacct file and smallTrace, both named "trace": the same
	// schedule.
	var starts [2]string
	for i, data := range []string{sacctSmall, smallTrace} {
		d := filepath.Join(dir, fmt.Sprint("run", i))
		os.Mkdir(d, 0o755)
		trace := writeFile(t, d, "trace", data)
		code, _, stderr := run(t, "run", "--trace", trace, "--procs", "8", "--out", filepath.Join(d, "out"), "-q", "--plots=false")
		if code != exitOK {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(d, "out", "jobs.csv"))
		if err != nil {
			t.Fatal(err)
		}
		// job_id, submission_time, starting_time, finish_time.
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
			f := strings.Split(line, ",")
			starts[i] += strings.Join([]string{f[0], f[3], f[8], f[10]}, " ") + "\n"
		}
	}
	if starts[0] != starts[1] || starts[0] == "" {
		t.Errorf("schedules differ:\nsacct:\n%sSWF:\n%s", starts[0], starts[1])
	}
}

// TestConvertTextErrors checks that bad sacct and Batsim input, and bad
// options, exit with status 2 and a message naming the line and the
// column or key, leaving no file behind.
func TestConvertTextErrors(t *testing.T) {
	dir := t.TempDir()
	badSacct := writeFile(t, dir, "bad.sacct", strings.Replace(sacctSmall, "00:00:50", "00:0x:50", 1))
	badJSON := writeFile(t, dir, "bad.json", `{"jobs": [{"id": 1, "subtime": 0, "res": 2, "profile": "p"}], "profiles": {"p": {"type": "smpi"}}}`)
	extra := writeFile(t, dir, "extra.swf", "; MaxProcs: 8\n1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1 3 4\n")
	out := filepath.Join(dir, "out.swf")
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"sacct field", []string{"convert", badSacct, out}, `bad.sacct:5: column "Elapsed": "00:0x:50" is not a duration`},
		{"Batsim profile", []string{"convert", badJSON, out}, `bad.json:1: key "profiles.p.type"`},
		{"extra fields", []string{"convert", extra, out}, "--extra-fields ignore"},
		{"time zone", []string{"convert", "--timezone", "Mars/Olympus", badSacct, out}, "--timezone"},
		{"speed", []string{"convert", "--batsim-speed", "-1", badJSON, out}, "--batsim-speed"},
		{"extra-fields value", []string{"convert", "--extra-fields", "maybe", extra, out}, "--extra-fields"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a failed conversion left its output")
			}
		})
	}
	// The rule reads the first 18 fields.
	if code, _, stderr := run(t, "convert", "--extra-fields", "ignore", extra, out); code != exitOK {
		t.Errorf("--extra-fields ignore: exit %d: %s", code, stderr)
	}
}

package main

import (
	"bytes"
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

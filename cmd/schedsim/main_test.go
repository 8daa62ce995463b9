package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// run runs the command line and returns its status, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := mainWith(args, &out, &errb)
	return code, out.String(), errb.String()
}

// sharedTrace returns the path of the trace name in ../shared/traces,
// beside the repository, or skips t without it.
func sharedTrace(t *testing.T, name string) string {
	t.Helper()
	trace := filepath.Join("..", "..", "..", "shared", "traces", name)
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", trace)
	}
	return trace
}

// skipBigTrace skips a whole-trace test of the shared trace at path when
// it is big (more than 1 MB compressed: LANL-CM5, CTC-SP2, the whole
// HPC2N-2002 log) and the run is not full (simtest.Full): CI runs them.
func skipBigTrace(t *testing.T, path string) {
	t.Helper()
	if fi, err := os.Stat(path); err == nil && fi.Size() > 1<<20 && !simtest.Full() {
		t.Skipf("skipping %s, a big trace: CI=true go test runs it", filepath.Base(path))
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const smallTrace = `; Version: 2.2
; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1
2 0 -1 100 8 -1 -1 8 200 -1 1 1 1 -1 -1 -1 -1 -1
3 5 -1 50 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1 -1
4 6 -1 10 16 -1 -1 16 60 -1 1 1 1 -1 -1 -1 -1 -1
`

func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.swf", smallTrace)
	bad := writeFile(t, dir, "bad.swf", "; MaxProcs: 8\n1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n2 0 -1 1x0 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n")
	noSize := writeFile(t, dir, "nosize.swf", "1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n")
	// Traces that differ from smallTrace in their header or in one field
	// (issue 21, items 4 and 5).
	header := func(name, line string) string {
		return writeFile(t, dir, name, strings.Replace(smallTrace, "; MaxProcs: 8\n", line, 1))
	}
	jobLine := func(name, from, to string) string {
		return writeFile(t, dir, name, strings.Replace(smallTrace, from, to, 1))
	}
	sizeExp := header("exp.swf", "; MaxProcs: 1e3\n")
	sizeHuge := header("huge.swf", "; MaxProcs: 1000000000000\n")
	sizeInf := header("inf.swf", "; MaxProcs: 1e400\n")
	sizeNeg := header("neg.swf", "; MaxProcs: -5\n")
	sizeZero := header("zero.swf", "; MaxProcs: 0\n")
	sizeBig := header("big.swf", "; MaxProcs: 99999999999999999999\n")
	sizeNaN := header("nan.swf", "; MaxNodes: NaN\n")
	bom := writeFile(t, dir, "bom.swf", "\ufeff"+smallTrace)
	submitFar := jobLine("submit.swf", "3 5 -1 50", "3 10000000000000 -1 50")
	runFar := jobLine("runfar.swf", "1 0 -1 100 4", "1 0 -1 1e13 4")
	reqFar := jobLine("reqfar.swf", "-1 4 100 -1", "-1 4 100000000000000 -1")
	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
		inStdout string
	}{
		{"no command", nil, exitUsage, "Commands:", ""},
		{"help", []string{"help"}, exitOK, "", "Commands:"},
		{"run help", []string{"run", "--help"}, exitOK, "", "--lookahead"},
		{"help run", []string{"help", "run"}, exitOK, "", "--backfill"},
		{"unknown command", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`, ""},
		{"unknown flag", []string{"run", "--nope"}, exitUsage, "unknown flag: --nope", ""},
		{"stray argument", []string{"run", "extra"}, exitUsage, `scenario file: open extra: no such file`, ""},
		{"bad backfill", []string{"run", "--trace", good, "--backfill", "sometimes"}, exitUsage, `unknown backfill "sometimes"`, ""},
		{"bad lookahead", []string{"run", "--trace", good, "--lookahead", "-3"}, exitUsage, "lookahead", ""},
		{"bad depth", []string{"run", "--trace", good, "--reservation-depth", "0"}, exitUsage, "--reservation-depth", ""},
		{"bad rule", []string{"run", "--trace", good, "--overrun", "maybe"}, exitUsage, `unknown overrun rule "maybe"`, ""},
		{"bad status", []string{"run", "--trace", good, "--status", "1,x"}, exitUsage, "bad status", ""},
		{"missing trace", []string{"run", "--trace", filepath.Join(dir, "absent.swf")}, exitUsage, "absent.swf", ""},
		{"bad line", []string{"run", "--trace", bad}, exitUsage, "bad.swf:3: field 4 (run time)", ""},
		{"no machine size", []string{"run", "--trace", noSize}, exitUsage, "--procs", ""},
		{"negative procs", []string{"run", "--trace", good, "--procs", "-1"}, exitUsage, "--procs", ""},
		{"no machine size given", []string{"run", "--trace", noSize, "--procs", "4"}, exitOK, "", "jobs"},
		{"good", []string{"run", "--trace", good}, exitOK, "", "rejected"},
		{"default trace", []string{"run"}, exitOK, "", "sample"},
		{"procs 10^14", []string{"run", "--trace", good, "--procs", "100000000000000"}, exitUsage, "--procs 100000000000000: more than 67108864 processors", ""},
		{"procs one past the limit", []string{"run", "--trace", good, "--procs", "67108865"}, exitUsage, "largest machine", ""},
		{"procs 10^14 SCore-D", []string{"run", "--trace", good, "--procs", "100000000000000", "--mode", "gang"}, exitUsage, "--procs 100000000000000", ""},
		{"MaxProcs 1e3", []string{"run", "--trace", sizeExp}, exitOK, "", "processors                           1000\n"},
		{"MaxProcs beyond the limit", []string{"run", "--trace", sizeHuge}, exitUsage, `huge.swf:2: header MaxProcs "1000000000000": more than 67108864 processors`, ""},
		{"MaxProcs 1e400", []string{"run", "--trace", sizeInf}, exitUsage, `inf.swf:2: header MaxProcs "1e400"`, ""},
		{"MaxProcs -5", []string{"run", "--trace", sizeNeg}, exitUsage, `neg.swf:2: header MaxProcs "-5": -5 processors`, ""},
		{"MaxProcs 0", []string{"run", "--trace", sizeZero}, exitUsage, `zero.swf:2: header MaxProcs "0"`, ""},
		{"MaxProcs beyond int64", []string{"run", "--trace", sizeBig}, exitUsage, `big.swf:2: header MaxProcs "99999999999999999999"`, ""},
		{"MaxNodes NaN", []string{"run", "--trace", sizeNaN}, exitUsage, `nan.swf:2: header MaxNodes "NaN": no number of processors`, ""},
		{"bad MaxProcs with --procs", []string{"run", "--trace", sizeNaN, "--procs", "16"}, exitOK, "", "processors                           16\n"},
		{"header after a byte order mark", []string{"run", "--trace", bom}, exitOK, "", "processors                           8\n"},
		{"submit time 10^13 s", []string{"run", "--trace", submitFar}, exitUsage, "submit.swf:5: field 2 (submit time): 10000000000000 s exceeds", ""},
		{"submit time 10^13 s exclusive", []string{"run", "--trace", submitFar, "--mode", "exclusive"}, exitUsage, "submit.swf:5: field 2", ""},
		{"run time 10^13 s gang", []string{"run", "--trace", runFar, "--mode", "gang"}, exitUsage, "runfar.swf:3: field 4 (run time)", ""},
		{"requested time 10^14 s", []string{"run", "--trace", reqFar, "--mode", "exclusive"}, exitUsage, "reqfar.swf:3: field 9 (requested time)", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.inStderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.inStderr)
			}
			if !strings.Contains(stdout, tc.inStdout) {
				t.Errorf("stdout %q does not contain %q", stdout, tc.inStdout)
			}
		})
	}
}

func TestRunOut(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "small.swf", smallTrace)
	out := filepath.Join(dir, "res")
	code, _, stderr := run(t, "run", "--trace", trace, "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	csv, err := os.ReadFile(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 5 {
		t.Fatalf("jobs.csv has %d lines, want header + 4:\n%s", len(lines), csv)
	}
	if !strings.HasPrefix(lines[0], "job_id,workload_name,profile,submission_time,") {
		t.Errorf("header %q", lines[0])
	}
	var sum struct {
		Jobs     int64 `json:"jobs"`
		Rejected int64 `json:"rejected"`
		Started  int64 `json:"started"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Jobs != 4 || sum.Rejected != 1 || sum.Started != 3 {
		t.Errorf("summary jobs=%d rejected=%d started=%d, want 4, 1, 3", sum.Jobs, sum.Rejected, sum.Started)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "gantt.png gantt.svg jobs.csv queue.png queue.svg report.html slowdown_by_class.png slowdown_by_class.svg " +
		"summary.json utilisation.png utilisation.svg wait_cdf.png wait_cdf.svg"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("out dir holds %s\nwant %s", got, want)
	}
}

// A run that fails on bad input leaves no output behind, and an earlier
// result in the same directory untouched.
func TestRunBadInputWritesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "res")
	good := writeFile(t, dir, "good.swf", smallTrace)
	if code, _, stderr := run(t, "run", "--trace", good, "--out", out, "-q"); code != 0 {
		t.Fatal(stderr)
	}
	before, _ := os.ReadFile(filepath.Join(out, "jobs.csv"))
	entriesBefore, _ := os.ReadDir(out)
	bad := writeFile(t, dir, "bad.swf", smallTrace+"5 7 -1 10 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1\n")
	code, _, stderr := run(t, "run", "--trace", bad, "--out", out, "-q")
	if code != exitUsage {
		t.Fatalf("exit %d, want 2: %s", code, stderr)
	}
	if !strings.Contains(stderr, "bad.swf:7") || !strings.Contains(stderr, "17 fields") {
		t.Errorf("message %q should name the file, the line and the field count", stderr)
	}
	after, _ := os.ReadFile(filepath.Join(out, "jobs.csv"))
	if !bytes.Equal(before, after) {
		t.Error("a failed run changed the earlier jobs.csv")
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != len(entriesBefore) {
		t.Errorf("out dir holds %d entries after a failed run, want %d (no temp files)", len(entries), len(entriesBefore))
	}
}

// The same input twice gives byte-identical outputs.
func TestRunDeterministic(t *testing.T) {
	dir := t.TempDir()
	var prev [2][]byte
	for i := 0; i < 3; i++ {
		out := filepath.Join(dir, "r", string(rune('a'+i)))
		if code, _, stderr := run(t, "run", "--out", out, "-q", "--lookahead", "all"); code != 0 {
			t.Fatal(stderr)
		}
		for k, name := range []string{"jobs.csv", "summary.json"} {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && !bytes.Equal(b, prev[k]) {
				t.Fatalf("run %d: %s differs from the previous run", i, name)
			}
			prev[k] = b
		}
	}
}

// Every raw trace of ../shared/traces runs end to end with the default
// cleaning rules, reports what they changed and passes verify; the trace
// without a header asks for --procs and runs once it has it. A trace the
// table does not list fails the test, so that a log added to
// ../shared/traces is covered. The big traces in full runs only
// (skipBigTrace).
func TestRawTraces(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "traces")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", dir)
	}
	tests := []struct {
		file      string
		extra     []string
		code      int
		wantInOut string // a cleaning count or message the run must report
	}{
		{"NASA-iPSC-1993-3.1-cln.swf.gz", nil, exitOK, "no_estimate"},
		{"LANL-CM5-1994-4.1-cln.swf.gz", nil, exitOK, "overrun_killed"},
		{"HPC2N-2002-first3170.swf.gz", nil, exitOK, "records read"},
		{"HPC2N-2002-2.2-cln.swf.gz", nil, exitOK, "records read"},
		{"CTC-SP2-1996-3.1-cln.swf.gz", nil, exitOK, "records read"},
		{"CEA-Curie-2011-sample30k.swf.gz", nil, exitOK, "records read"},
		{"lublin-256-synthetic.swf.gz", nil, exitOK, "no_estimate"},
		{"hpc2n-like-25jobs-noheader.swf", nil, exitUsage, "declares no machine size"},
		{"hpc2n-like-25jobs-noheader.swf", []string{"--procs", "240"}, exitOK, "25 records read, 25 kept"},
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		listed := false
		for _, tc := range tests {
			listed = listed || tc.file == e.Name()
		}
		if !listed && !e.IsDir() {
			t.Errorf("%s in %s is not in TestRawTraces' table: add it", e.Name(), dir)
		}
	}
	for _, tc := range tests {
		t.Run(tc.file+strings.Join(tc.extra, ""), func(t *testing.T) {
			skipBigTrace(t, filepath.Join(dir, tc.file))
			out := filepath.Join(t.TempDir(), "res")
			args := append([]string{"run", "--trace", filepath.Join(dir, tc.file), "--out", out}, tc.extra...)
			code, stdout, stderr := run(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			if !strings.Contains(stdout+stderr, tc.wantInOut) {
				t.Errorf("output does not mention %q:\n%s%s", tc.wantInOut, stdout, stderr)
			}
			if code != exitOK {
				if _, err := os.Stat(out); err == nil {
					entries, _ := os.ReadDir(out)
					if len(entries) > 0 {
						t.Errorf("a failed run left %d files in %s", len(entries), out)
					}
				}
				return
			}
			var sum struct {
				Jobs     int64 `json:"jobs"`
				Started  int64 `json:"started"`
				Rejected int64 `json:"rejected"`
				Cleaning struct {
					Records int64 `json:"records"`
					Kept    int64 `json:"kept"`
				} `json:"cleaning"`
			}
			b, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			if sum.Jobs != sum.Cleaning.Kept || sum.Started+sum.Rejected != sum.Jobs || sum.Jobs == 0 {
				t.Errorf("jobs %d, started %d, rejected %d, kept %d of %d records: inconsistent",
					sum.Jobs, sum.Started, sum.Rejected, sum.Cleaning.Kept, sum.Cleaning.Records)
			}
			t.Logf("%s: %d records, %d kept, %d started, %d rejected", tc.file, sum.Cleaning.Records, sum.Cleaning.Kept, sum.Started, sum.Rejected)
			if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
				t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

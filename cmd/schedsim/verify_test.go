package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim"
)

func TestVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "small.swf", smallTrace)
	for _, bf := range []string{"off", "easy", "conservative"} {
		out := filepath.Join(dir, bf)
		if code, _, stderr := run(t, "run", "--trace", trace, "--backfill", bf, "--out", out, "-q"); code != 0 {
			t.Fatal(stderr)
		}
		code, stdout, stderr := run(t, "verify", out)
		if code != exitOK || !strings.Contains(stdout, "all invariants hold") {
			t.Fatalf("%s: verify exit %d:\n%s%s", bf, code, stdout, stderr)
		}
	}
	// Break the schedule: job 3 starts 5 s before its submission.
	out := filepath.Join(dir, "easy")
	p := filepath.Join(out, "jobs.csv")
	b, _ := os.ReadFile(p)
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		f := strings.Split(l, ",")
		if len(f) > 10 && f[0] == "3" {
			f[8] = "0" // starting_time
			lines[i] = strings.Join(f, ",")
		}
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, "verify", out)
	if code != exitError || !strings.Contains(stdout, "job 3: start-before-submit") {
		t.Fatalf("verify of a broken schedule: exit %d:\n%s", code, stdout)
	}
	if code, _, stderr := run(t, "verify", filepath.Join(dir, "nothing")); code != exitUsage || !strings.Contains(stderr, "summary.json") {
		t.Fatalf("verify of a missing directory: exit %d: %s", code, stderr)
	}
}

// TestVerifyCluster runs small traces on clusters of nodes and verifies
// them on their nodes (linear) or cores (cons_res): summary.json records
// the cluster, a memory rejection is valid, every job has a predicted
// start, and a node allocation too small for the job is caught.
func TestVerifyCluster(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.swf", `; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 100 3145728 1 1 1 -1 -1 -1 -1 -1
2 0 -1 100 1 -1 -1 1 100 9437184 1 1 1 -1 -1 -1 -1 -1
3 1 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1
4 2 -1 10 1 -1 -1 1 10 3145728 1 1 1 -1 -1 -1 -1 -1
5 3 -1 30 8 -1 -1 8 40 -1 1 1 1 -1 -1 -1 -1 -1
6 4 -1 20 3 -1 -1 3 20 -1 1 1 1 -1 -1 -1 -1 -1
`)
	tests := []struct {
		name, sel string
		cores     int
		backfill  string
		ran       int // jobs that ran: linear ignores memory
	}{
		{"linear off", "linear", 2, "off", 6},
		{"linear easy", "linear", 2, "easy", 6},
		{"linear slurm", "linear", 2, "slurm", 6},
		{"cons_res off", "cons_res", 4, "off", 5},
		{"cons_res easy", "cons_res", 4, "easy", 5},
		{"cons_res slurm", "cons_res", 4, "slurm", 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conf := writeFile(t, dir, tc.name+".toml", fmt.Sprintf(`
[cluster]
select = %q
[[cluster.groups]]
name = "n"
count = %d
cores = %d
memory_mb = 8192
`, tc.sel, 8/tc.cores, tc.cores))
			out := filepath.Join(dir, tc.name)
			args := []string{"run", "--trace", trace, "--config", conf, "--backfill", tc.backfill, "--out", out, "-q"}
			if tc.backfill == "slurm" {
				args = append(args, "--bf-interval", "5")
			}
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("run: status %d: %s", code, stderr)
			}
			b, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"cluster": {`) || !strings.Contains(string(b), fmt.Sprintf(`"predicted_starts": %d,`, tc.ran)) {
				t.Errorf("summary.json lacks the cluster or the predictions:\n%s", b)
			}
			jobs, _ := os.ReadFile(filepath.Join(out, "jobs.csv"))
			if n := strings.Count(string(jobs), "predicted_start="); n != tc.ran {
				t.Errorf("jobs.csv has %d predicted starts, want %d:\n%s", n, tc.ran, jobs)
			}
			code, stdout, stderr := run(t, "verify", out)
			if code != exitOK || !strings.Contains(stdout, "all invariants hold") {
				t.Fatalf("verify exit %d:\n%s%s", code, stdout, stderr)
			}
			// Shrink job 5's allocation (8 processors) to one unit.
			lines := strings.Split(string(jobs), "\n")
			for i, l := range lines {
				if f := strings.Split(l, ","); len(f) > 15 && f[0] == "5" {
					f[14] = "0"
					lines[i] = strings.Join(f, ",")
				}
			}
			if err := os.WriteFile(filepath.Join(out, "jobs.csv"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, _ = run(t, "verify", out)
			if code != exitError || !strings.Contains(stdout, "job 5: alloc-size") {
				t.Fatalf("verify of a broken schedule: exit %d:\n%s", code, stdout)
			}
		})
	}
}

// Queue orders and runtime predictions make no FCFS or head-reservation
// promise; verify checks the other invariants of such runs and must not
// report the overtaking they are designed to do.
func TestVerifyOrdersAndPredictions(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--order", "wfp3"}, {"--order", "multifactor"}, {"--order", "sjf"},
		{"--estimates", "predict:double"}, {"--backfill", "slurm"}, {"--order", "fcfs"},
	} {
		out := filepath.Join(dir, strings.Join(args, ""))
		if code, _, stderr := run(t, append([]string{"run", "--out", out, "-q", "--plots=false"}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
		if code, stdout, _ := run(t, "verify", out); code != exitOK {
			t.Errorf("%v: verify exit %d:\n%s", args, code, stdout)
		}
	}
}

// TestVerifySummary: verify cross-checks summary.json against the per-job
// table (jobs.csv, jobs.parquet, or both): a table cut short, a job whose
// state changed, or a summary whose counts, times or means were edited
// fail with the key, the summary's value and the table's.
func TestVerifySummary(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	if code, _, stderr := run(t, "generate", "--jobs", "2000", "--procs", "64", "--load", "0.9", "--seed", "3", "--out", trace); code != exitOK {
		t.Fatalf("generate: %s", stderr)
	}
	// Three jobs that outrun their requested time (killed), after the rest.
	lines := strings.Split(strings.TrimSpace(string(readFile(t, trace))), "\n")
	last, err := strconv.Atoi(strings.Fields(lines[len(lines)-1])[1])
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		lines = append(lines, fmt.Sprintf("%d %d -1 500 8 -1 -1 8 100 -1 1 1 1 -1 -1 -1 -1 -1", 2001+k, last+10+k))
	}
	writeFile(t, dir, "t.swf", strings.Join(lines, "\n")+"\n")
	base := map[string]string{}
	for _, format := range []string{"csv", "parquet", "csv,parquet"} {
		out := filepath.Join(dir, "base-"+format)
		if code, _, stderr := run(t, "run", "--trace", trace, "--out", out, "-q", "--plots=false", "--format", format); code != exitOK {
			t.Fatalf("run --format %s: %s", format, stderr)
		}
		base[format] = out
	}
	var sum struct {
		Jobs, Started, Completed, Killed int64
		MakespanSec                      int64 `json:"makespan_sec"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(base["csv"], "summary.json")), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Jobs != 2003 || sum.Killed < 3 {
		t.Fatalf("the run has %d jobs, %d killed: want 2003 and at least 3 killed", sum.Jobs, sum.Killed)
	}
	// cutCSV keeps the header and the first n rows of jobs.csv.
	cutCSV := func(n int) func(t *testing.T, out string) {
		return func(t *testing.T, out string) {
			p := filepath.Join(out, "jobs.csv")
			lines := strings.SplitAfter(string(readFile(t, p)), "\n")
			writeFile(t, out, "jobs.csv", strings.Join(lines[:n+1], ""))
		}
	}
	// editSummary sets summary.json's key (a top-level key, or
	// "wait.mean") to v.
	editSummary := func(key string, v any) func(t *testing.T, out string) {
		return func(t *testing.T, out string) {
			var m map[string]any
			if err := json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &m); err != nil {
				t.Fatal(err)
			}
			if k, sub, ok := strings.Cut(key, "."); ok {
				m[k].(map[string]any)[sub] = v
			} else {
				m[key] = v
			}
			b, err := json.MarshalIndent(m, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, out, "summary.json", string(b))
		}
	}
	// killedToCompleted records the first killed job as completed.
	killedToCompleted := func(t *testing.T, out string) {
		p := filepath.Join(out, "jobs.csv")
		s := string(readFile(t, p))
		writeFile(t, out, "jobs.csv", strings.Replace(s, ",COMPLETED_WALLTIME_REACHED,", ",COMPLETED_SUCCESSFULLY,", 1))
	}
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	tests := []struct {
		name   string
		format string
		edit   func(t *testing.T, out string)
		want   []string // in stdout; none: all invariants hold
	}{
		{"whole csv", "csv", nil, nil},
		{"whole parquet", "parquet", nil, nil},
		{"whole csv and parquet", "csv,parquet", nil, nil},
		{"jobs.csv cut to 999 rows", "csv", cutCSV(999), []string{
			"summary.json says jobs = 2003, jobs.csv gives 999",
			"summary.json says started = " + n(sum.Started) + ", jobs.csv gives ",
			"summary.json says makespan_sec = " + n(sum.MakespanSec) + ", jobs.csv gives "}},
		{"jobs.csv without its last row", "csv", cutCSV(2002), []string{"summary.json says jobs = 2003, jobs.csv gives 2002"}},
		{"a killed job recorded as completed", "csv", killedToCompleted, []string{
			"summary.json says completed = " + n(sum.Completed) + ", jobs.csv gives " + n(sum.Completed+1),
			"summary.json says killed = " + n(sum.Killed) + ", jobs.csv gives " + n(sum.Killed-1)}},
		{"summary jobs edited", "csv", editSummary("jobs", 2004), []string{"summary.json says jobs = 2004, jobs.csv gives 2003"}},
		{"summary rejected edited", "parquet", editSummary("rejected", 77), []string{"summary.json says rejected = 77, jobs.parquet gives "}},
		{"summary wait mean edited", "csv", editSummary("wait.mean", 1.5), []string{"summary.json says wait.mean = 1.5, jobs.csv gives "}},
		{"summary utilisation edited", "parquet", editSummary("utilisation", 0.5), []string{"summary.json says utilisation = 0.5, jobs.parquet gives "}},
		{"summary makespan edited", "csv,parquet", editSummary("makespan_sec", 12), []string{
			"summary.json says makespan_sec = 12, jobs.csv gives " + n(sum.MakespanSec),
			"summary.json says makespan_sec = 12, jobs.parquet gives " + n(sum.MakespanSec)}},
		{"summary null utilisation", "csv", editSummary("utilisation", nil), []string{"summary.json says utilisation = 0, jobs.csv gives "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			if err := os.CopyFS(out, os.DirFS(base[tt.format])); err != nil {
				t.Fatal(err)
			}
			if tt.edit != nil {
				tt.edit(t, out)
			}
			code, stdout, stderr := run(t, "verify", "--max", "0", out)
			if len(tt.want) == 0 {
				if code != exitOK || !strings.Contains(stdout, "2003 jobs, all invariants hold") {
					t.Errorf("verify: exit %d:\n%s%s", code, stdout, stderr)
				}
				return
			}
			if code != exitError {
				t.Errorf("verify: exit %d, want %d:\n%s%s", code, exitError, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
	// A directory with no per-job table is bad input.
	empty := filepath.Join(dir, "no-table")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, empty, "summary.json", string(readFile(t, filepath.Join(base["csv"], "summary.json"))))
	if code, _, stderr := run(t, "verify", empty); code != exitUsage || !strings.Contains(stderr, "jobs.csv") || !strings.Contains(stderr, "jobs.parquet") {
		t.Errorf("verify without a table: exit %d: %s", code, stderr)
	}
}

// FuzzVerifyJobsCSV: verify reads any jobs.csv beside a valid summary.json
// without panicking; what it cannot read is bad input (exit 2), and a
// table it reads is checked.
func FuzzVerifyJobsCSV(f *testing.F) {
	header := "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n"
	f.Add(header + "1,w,delay,0,4,100,1,COMPLETED_SUCCESSFULLY,0,100,100,0,100,1,0-3,-1,\n")
	f.Add(header + "1,w,delay,0,4,100,0,COMPLETED_WALLTIME_REACHED,5,100,105,5,105,1.05,4-7,-1,\n2,w,delay,1,16,-1,0,REJECTED,-1,-1,-1,-1,-1,-1,,-1,too large\n")
	f.Add(header + "1,w,delay,0,4,100,1,COMPLETED_KILLED,0,10,10,0,10,1,0-3,-1,requeues=2\n")
	// Unknowns empty, as schedsim writes them now.
	f.Add(header + "1,w,delay,0,4,,1,COMPLETED_SUCCESSFULLY,0,100,100,0,100,1,0-3,,\n2,w,delay,1,16,60,0,REJECTED,,,,,,,,,too large\n")
	f.Add(header + "1,w,delay,0,4,100,1,COMPLETED_SUCCESSFULLY,,100,,0,100,,0-3,,\n")
	f.Add(header + "x,w,delay,NaN,1e300,100,1,SUBMITTED,0,100,100,0,100,1,0-3 9-8,-1,\n")
	// A job of an immediate queue, beside the machine (no processors).
	f.Add(header + "1,w,delay,0,4,,1,COMPLETED_SUCCESSFULLY,0,100,100,0,100,1,,,immediate=1 user=2 account=-1 partition=-1 queue=6\n")
	f.Add("job_id\n1\n")
	summary := `{"trace": "t", "policy": "easy(lookahead=1000)", "procs": 8, "jobs": 1, "started": 1, "completed": 1}`
	f.Fuzz(func(t *testing.T, jobs string) {
		dir := t.TempDir()
		writeFile(t, dir, "summary.json", summary)
		writeFile(t, dir, "jobs.csv", jobs)
		var out bytes.Buffer
		_, err := schedsim.VerifyDir(dir, 0, &out)
		var ie *schedsim.InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("error %v is not bad input", err)
		}
	})
}

// TestVerifyHolds: jobs held after their submission (--holds; Hold Until)
// join the queue at their submission's place when their holds end, so
// under FCFS and the policies that promise the head a start, later jobs
// may pass them while they are held. jobs.csv records each held job's
// hold ("hold_until=T"), verify follows the queue with it, finds every
// run valid, and finds a start before the recorded hold's end.
func TestVerifyHolds(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "held.swf")
	holds := filepath.Join(dir, "held.holds")
	swf := "; MaxProcs: 4\n" +
		"1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n" +
		"2 10 -1 50 4 -1 -1 4 50 -1 1 2 1 -1 1 -1 -1 -1\n" +
		"3 20 -1 30 2 -1 -1 2 40 -1 1 3 1 -1 1 -1 -1 -1\n" +
		"4 30 -1 60 4 -1 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1\n" +
		"5 40 -1 10 1 -1 -1 1 20 -1 1 2 1 -1 1 -1 -1 -1\n" +
		"6 50 -1 20 2 -1 -1 2 30 -1 1 3 1 -1 1 -1 -1 -1\n"
	if err := os.WriteFile(trace, []byte(swf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(holds, []byte("# job, held until\n2 300\n5 150\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pol := range [][]string{{"--backfill", "off"}, {"--backfill", "easy"}, {"--reservation-depth", "2"}, {"--backfill", "conservative"}} {
		t.Run(strings.Join(pol, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "res")
			args := append([]string{"run", "--trace", trace, "--holds", holds, "--out", out, "-q", "--plots=false"}, pol...)
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			jobs, err := os.ReadFile(filepath.Join(out, "jobs.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(jobs), ",hold_until=300\n") || !strings.Contains(string(jobs), ",hold_until=150\n") {
				t.Fatalf("jobs.csv does not record the holds:\n%s", jobs)
			}
			if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "6 jobs, all invariants hold") {
				t.Fatalf("verify: exit %d:\n%s%s", code, stdout, stderr)
			}
			// jobs.parquet's metadata carries the holds too.
			pq := filepath.Join(t.TempDir(), "pq")
			if code, _, stderr := run(t, append(args[:len(args):len(args)], "--format", "parquet", "--out", pq)...); code != 0 {
				t.Fatalf("run --format parquet: exit %d: %s", code, stderr)
			}
			if code, stdout, stderr := run(t, "verify", pq); code != exitOK || !strings.Contains(stdout, "6 jobs, all invariants hold") {
				t.Fatalf("verify of jobs.parquet: exit %d:\n%s%s", code, stdout, stderr)
			}
			broken := strings.Replace(string(jobs), ",hold_until=300\n", ",hold_until=900\n", 1)
			if err := os.WriteFile(filepath.Join(out, "jobs.csv"), []byte(broken), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, stdout, _ := run(t, "verify", out); code != exitError || !strings.Contains(stdout, "job 2: start-before-hold: started at 300, held until 900") {
				t.Fatalf("verify of a start before its hold: exit %d:\n%s", code, stdout)
			}
		})
	}
}

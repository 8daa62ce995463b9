package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/workload"
)

// unknownsTrace has a start time, a job without a requested time (2), two
// jobs too large for the machine (4 and 6, rejected) and waits: a mean of
// waiting_time over every row, -1 included, would be wrong.
const unknownsTrace = `; Version: 2.2
; UnixStartTime: 1000000000
; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1
2 0 -1 100 8 -1 -1 8 -1 -1 1 1 1 -1 -1 -1 -1 -1
3 5 -1 50 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1 -1
4 6 -1 10 16 -1 -1 16 60 -1 1 1 1 -1 -1 -1 -1 -1
5 7 -1 30 2 -1 -1 2 40 -1 1 1 1 -1 -1 -1 -1 -1
6 8 -1 10 9 -1 -1 9 60 -1 1 1 1 -1 -1 -1 -1 -1
`

// TestOutputsUnknownsEmpty runs a trace with rejected jobs and a job
// without a requested time into jobs.csv and jobs.parquet: no unknown is
// -1, the mean of the waiting_time cells that are there is summary.json's
// wait.mean, jobs.parquet has nulls and timestamps where it should, and
// verify and compare --dirs read a run written as Parquet only, and the
// -1 form of earlier runs.
func TestOutputsUnknownsEmpty(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "u.swf", unknownsTrace)
	both := filepath.Join(dir, "both")
	if code, _, stderr := run(t, "run", "--trace", trace, "--format", "csv,parquet", "--out", both, "-q", "--plots=false"); code != 0 {
		t.Fatal(stderr)
	}
	var sum report.Summary
	b, err := os.ReadFile(filepath.Join(both, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Rejected != 2 {
		t.Fatalf("%d jobs rejected, want 2", sum.Rejected)
	}

	f, err := os.Open(filepath.Join(both, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	var waitSum float64
	var waits int
	for _, r := range rows[1:] {
		for i, v := range r[:col("metadata")] {
			if v == "-1" {
				t.Errorf("job %s: %s is -1", r[0], head[i])
			}
		}
		rejected := r[col("final_state")] == "REJECTED"
		for _, c := range []string{"starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time", "stretch"} {
			if empty := r[col(c)] == ""; empty != rejected {
				t.Errorf("job %s (%s): %s = %q", r[0], r[col("final_state")], c, r[col(c)])
			}
		}
		if r[col("consumed_energy")] != "" {
			t.Errorf("job %s: consumed_energy = %q, want empty", r[0], r[col("consumed_energy")])
		}
		if (r[0] == "2") != (r[col("requested_time")] == "") {
			t.Errorf("job %s: requested_time = %q", r[0], r[col("requested_time")])
		}
		if w := r[col("waiting_time")]; w != "" {
			x, _ := strconv.ParseFloat(w, 64)
			waitSum += x
			waits++
		}
	}
	if mean := waitSum / float64(waits); mean != sum.Wait.Mean {
		t.Errorf("mean of waiting_time %v, summary.json's wait.mean %v", mean, sum.Wait.Mean)
	}

	// jobs.parquet: the same rows, nulls for the unknowns, timestamps from
	// the header's UnixStartTime.
	pq, err := os.ReadFile(filepath.Join(both, "jobs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"job_id", "final_state", "waiting_time", "requested_time", "consumed_energy", "submit_time_ts", "start_time_ts", "end_time_ts", "starting_time", "finish_time"}
	prs, err := workload.ReadParquetTable(strings.NewReader(string(pq)), int64(len(pq)), "jobs.parquet", cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(prs) != len(rows)-1 {
		t.Fatalf("jobs.parquet has %d rows, jobs.csv %d", len(prs), len(rows)-1)
	}
	for i, r := range prs {
		c := rows[i+1]
		if r[0] != c[0] || r[2] != c[col("waiting_time")] || r[3] != c[col("requested_time")] || r[4] != "" {
			t.Errorf("jobs.parquet row %v, jobs.csv row %v", r, c)
		}
		submit, _ := strconv.ParseInt(c[col("submission_time")], 10, 64)
		if r[5] != strconv.FormatInt((1_000_000_000+submit)*1000, 10) {
			t.Errorf("job %s: submit_time_ts %s, want (UnixStartTime + %d s) in ms", r[0], r[5], submit)
		}
		for k, v := range map[int]string{6: r[8], 7: r[9]} {
			want := ""
			if v != "" {
				s, _ := strconv.ParseInt(v, 10, 64)
				want = strconv.FormatInt((1_000_000_000+s)*1000, 10)
			}
			if r[k] != want {
				t.Errorf("job %s: %s = %q, want %q", r[0], cols[k], r[k], want)
			}
		}
	}

	// A run written as Parquet only: verify checks it, compare --dirs
	// reads it as it reads the CSV run.
	pqOnly := filepath.Join(dir, "pq")
	if code, _, stderr := run(t, "run", "--trace", trace, "--format", "parquet", "--out", pqOnly, "-q", "--plots=false"); code != 0 {
		t.Fatal(stderr)
	}
	if _, err := os.Stat(filepath.Join(pqOnly, "jobs.csv")); err == nil {
		t.Fatal("a run with --format parquet wrote jobs.csv")
	}
	for _, d := range []string{both, pqOnly} {
		if code, stdout, stderr := run(t, "verify", d); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
			t.Fatalf("verify %s: exit %d\n%s%s", d, code, stdout, stderr)
		}
	}
	code, fromPQ, stderr := run(t, "compare", "--dirs", pqOnly)
	if code != exitOK {
		t.Fatalf("compare --dirs of a Parquet run: exit %d: %s", code, stderr)
	}
	code, fromCSV, stderr := run(t, "compare", "--dirs", both)
	if code != exitOK {
		t.Fatalf("compare --dirs: exit %d: %s", code, stderr)
	}
	if strings.ReplaceAll(fromPQ, pqOnly, "D") != strings.ReplaceAll(fromCSV, both, "D") {
		t.Errorf("compare --dirs of the Parquet run:\n%s\nof the CSV run:\n%s", fromPQ, fromCSV)
	}

	// jobs.csv as schedsim wrote it before, unknowns as -1: verify and
	// compare --dirs still read it.
	old := filepath.Join(dir, "old")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(old, "summary.json"), b, 0o644)
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	for i, r := range rows {
		r = append([]string(nil), r...)
		if i > 0 {
			for k := range r[:col("metadata")] {
				if r[k] == "" && head[k] != "allocated_resources" {
					r[k] = "-1"
				}
			}
		}
		w.Write(r)
	}
	w.Flush()
	if !strings.Contains(sb.String(), "REJECTED,-1,-1,-1,-1,-1,-1,,-1,") {
		t.Fatalf("the -1 form is not as schedsim wrote it:\n%s", sb.String())
	}
	os.WriteFile(filepath.Join(old, "jobs.csv"), []byte(sb.String()), 0o644)
	if code, stdout, stderr := run(t, "verify", old); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
		t.Fatalf("verify of the -1 form: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, fromOld, stderr := run(t, "compare", "--dirs", old); code != exitOK || strings.ReplaceAll(fromOld, old, "D") != strings.ReplaceAll(fromCSV, both, "D") {
		t.Errorf("compare --dirs of the -1 form: exit %d %s\n%s", code, stderr, fromOld)
	}
}

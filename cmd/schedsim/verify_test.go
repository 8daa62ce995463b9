package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

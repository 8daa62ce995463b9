package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenFile compares got with testdata/name, or rewrites it with -update.
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -run %s -update rewrites it):\n got:\n%s\nwant:\n%s", name, t.Name(), got, want)
	}
}

// TestFidelityGolden checks the table and fidelity.json of a small
// made-up trace with recorded waits against golden files, and that the
// plots are written.
func TestFidelityGolden(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := run(t, "fidelity", "--trace", filepath.Join("testdata", "fidelity.swf"), "--backfill", "easy", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	goldenFile(t, "fidelity.txt", []byte(stdout))
	js, err := os.ReadFile(filepath.Join(out, "fidelity.json"))
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "fidelity.json", js)
	for _, f := range []string{"fidelity_waits.svg", "fidelity_waits.png", "fidelity_weekly.svg", "fidelity_weekly.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var f struct {
		UnknownWait int `json:"skipped_unknown_wait"`
		Overall     struct {
			Jobs int `json:"jobs"`
		} `json:"overall"`
	}
	if err := json.Unmarshal(js, &f); err != nil {
		t.Fatal(err)
	}
	// The trace has 60 jobs, every 11th without a recorded wait.
	if f.UnknownWait != 5 || f.Overall.Jobs != 55 {
		t.Errorf("skipped %d, compared %d; want 5 and 55", f.UnknownWait, f.Overall.Jobs)
	}
}

// TestFidelityDirMatchesRun checks that reading a result directory gives
// the comparison simulating does.
func TestFidelityDirMatchesRun(t *testing.T) {
	trace := filepath.Join("testdata", "fidelity.swf")
	res := filepath.Join(t.TempDir(), "res")
	if code, _, stderr := run(t, "run", "--trace", trace, "--backfill", "easy", "--out", res, "--plots=false", "-q", "--progress", "never"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	_, direct, _ := run(t, "fidelity", "--trace", trace, "--backfill", "easy")
	code, fromDir, stderr := run(t, "fidelity", "--dir", res, "--trace", trace)
	if code != 0 {
		t.Fatalf("fidelity --dir: exit %d: %s", code, stderr)
	}
	if direct != fromDir {
		t.Errorf("fidelity --dir differs from the simulation:\n%s\nvs\n%s", fromDir, direct)
	}
}

// TestFidelityErrors checks that bad input exits 2 with a message naming
// what to fix.
func TestFidelityErrors(t *testing.T) {
	trace := filepath.Join("testdata", "fidelity.swf")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad tolerance", []string{"--trace", trace, "--tolerance-abs", "ten"}, "--tolerance-abs"},
		{"negative rel", []string{"--trace", trace, "--tolerance-rel", "-1"}, "--tolerance-rel"},
		{"no tolerance", []string{"--trace", trace, "--tolerance-abs", "0", "--tolerance-rel", "0"}, "tolerance of nothing"},
		{"dir without trace", []string{"--dir", t.TempDir()}, "--dir needs"},
		{"not a result dir", []string{"--dir", t.TempDir(), "--trace", trace}, "not a result directory"},
		{"missing trace", []string{"--trace", filepath.Join(t.TempDir(), "none.swf")}, "none.swf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, append([]string{"fidelity"}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// TestFidelityRealLogs checks the numbers the README quotes for textbook
// EASY on the logs of ../shared/traces that record waits: the jobs
// compared, the mean wait ratio and the Spearman correlation. The whole
// logs run in full runs only (skipBigTrace).
func TestFidelityRealLogs(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "traces")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", dir)
	}
	for _, tc := range []struct {
		file     string
		jobs     int
		ratio    string
		spearman string
	}{
		{"HPC2N-2002-first3170.swf.gz", 3145, "0.20", "0.329"},
		{"CTC-SP2-1996-3.1-cln.swf.gz", 77205, "0.55", "0.411"},
		{"HPC2N-2002-2.2-cln.swf.gz", 202870, "0.20", "0.373"},
		{"LANL-CM5-1994-4.1-cln.swf.gz", 122055, "0.90", "-0.015"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			skipBigTrace(t, path)
			code, table, stderr := run(t, "fidelity", "--trace", path, "--backfill", "easy")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var all []string
			for _, line := range strings.Split(table, "\n") {
				if f := strings.Fields(line); len(f) > 2 && f[0] == "all" {
					all = f
				}
			}
			// all JOBS MEAN UNIT MEAN UNIT RATIO MEDIAN UNIT MEDIAN UNIT BSLD BSLD SPEARMAN WITHIN %
			if len(all) < 15 || all[1] != strconv.Itoa(tc.jobs) || all[6] != tc.ratio || all[13] != tc.spearman {
				t.Errorf("row all %q: want %d jobs, mean wait ratio %s, Spearman %s", all, tc.jobs, tc.ratio, tc.spearman)
			}
		})
	}
}

// TestFidelityInferred checks the numbers the README quotes for the
// scenario schedsim infer writes, and with --holds for all jobs, the held
// ones and the others (jobs, mean wait ratio, Spearman). The whole logs
// run in full runs only (skipBigTrace).
func TestFidelityInferred(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "traces")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", dir)
	}
	type row struct {
		jobs            int
		ratio, spearman string
	}
	for _, tc := range []struct {
		file                 string
		holds                bool
		all, notHeld, isHeld row
	}{
		{"HPC2N-2002-first3170.swf.gz", false, row{3145, "0.42", "0.456"}, row{}, row{}},
		{"HPC2N-2002-first3170.swf.gz", true, row{3145, "0.45", "0.472"}, row{3043, "0.42", "0.457"}, row{102, "1.14", "0.942"}},
		{"CTC-SP2-1996-3.1-cln.swf.gz", false, row{77193, "0.94", "0.487"}, row{}, row{}},
		{"CTC-SP2-1996-3.1-cln.swf.gz", true, row{77193, "1.04", "0.536"}, row{72176, "1.00", "0.494"}, row{5017, "1.39", "0.802"}},
		{"HPC2N-2002-2.2-cln.swf.gz", false, row{202870, "0.87", "0.515"}, row{}, row{}},
		{"HPC2N-2002-2.2-cln.swf.gz", true, row{202870, "0.90", "0.547"}, row{196748, "0.90", "0.532"}, row{6122, "1.05", "0.939"}},
		{"LANL-CM5-1994-4.1-cln.swf.gz", false, row{122055, "0.99", "0.561"}, row{}, row{}},
	} {
		t.Run(fmt.Sprintf("%s/holds=%v", tc.file, tc.holds), func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			skipBigTrace(t, path)
			out := t.TempDir()
			scenario, holds := filepath.Join(out, "log.toml"), filepath.Join(out, "log.holds")
			args := []string{"infer", path, "--out", scenario}
			if tc.holds {
				args = append(args, "--holds", holds)
			}
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("infer: exit %d: %s", code, stderr)
			}
			code, table, stderr := run(t, "fidelity", scenario)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got := map[string][]string{}
			for _, line := range strings.Split(table, "\n") {
				f := strings.Fields(line)
				switch {
				case len(f) > 2 && f[0] == "all":
					got["all"] = f
				case len(f) > 3 && f[0] == "hold" && f[1] == "held":
					got["held"] = f[1:]
				case len(f) > 3 && f[0] == "hold" && f[1] == "not":
					got["not held"] = f[2:]
				}
			}
			want := map[string]row{"all": tc.all}
			if tc.holds {
				want["not held"], want["held"] = tc.notHeld, tc.isHeld
			} else if got["held"] != nil || got["not held"] != nil {
				t.Errorf("held rows without holds: %q, %q", got["held"], got["not held"])
			}
			for name, w := range want {
				// NAME JOBS MEAN UNIT MEAN UNIT RATIO MEDIAN UNIT MEDIAN UNIT BSLD BSLD SPEARMAN WITHIN %
				f := got[name]
				if len(f) < 15 || f[1] != strconv.Itoa(w.jobs) || f[6] != w.ratio || f[13] != w.spearman {
					t.Errorf("row %s %q: want %d jobs, mean wait ratio %s, Spearman %s", name, f, w.jobs, w.ratio, w.spearman)
				}
			}
		})
	}
}

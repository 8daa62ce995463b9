package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestSplitRunSpec(t *testing.T) {
	for _, tc := range []struct {
		text, name string
		opts       []string
	}{
		{"easy: --backfill easy --lookahead 1", "easy", []string{"--backfill", "easy", "--lookahead", "1"}},
		{"  la 10 :--lookahead=10 ", "la 10", []string{"--lookahead=10"}},
		{"--backfill off", "", []string{"--backfill", "off"}},
		{"--status 1:2", "", []string{"--status", "1:2"}},
		{"plain:", "plain", nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			name, opts := splitRunSpec(tc.text)
			if name != tc.name || !slices.Equal(opts, tc.opts) {
				t.Errorf("splitRunSpec(%q) = %q %q, want %q %q", tc.text, name, opts, tc.name, tc.opts)
			}
		})
	}
}

func TestCompareUsage(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.swf", smallTrace)
	for _, tc := range []struct {
		name     string
		args     []string
		inStderr string
	}{
		{"nothing to compare", []string{"--trace", good}, "nothing to compare"},
		{"both", []string{"--dirs", dir, "--run", "a: --backfill off"}, "not both"},
		{"dirs without arguments", []string{"--dirs"}, "at least one result directory"},
		{"not a result dir", []string{"--dirs", dir}, "not a result directory"},
		{"argument without --dirs", []string{"--run", "a:", dir}, "directories need --dirs"},
		{"same name twice", []string{"--trace", good, "--run", "a: --lookahead 1", "--run", "a: --lookahead 2"}, `two runs are named "a"`},
		{"bad option in a run", []string{"--trace", good, "--run", "a: --nope"}, `--run "a: --nope": unknown flag: --nope`},
		{"bad value in a run", []string{"--trace", good, "--run", "a: --backfill sometimes"}, `run "a"`},
		{"bad progress", []string{"--trace", good, "--run", "a:", "--progress", "loud"}, "--progress"},
		{"bad jobs", []string{"--trace", good, "--run", "a:", "--jobs", "0"}, "--jobs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, append([]string{"compare"}, tc.args...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitUsage, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.inStderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.inStderr)
			}
		})
	}
	if code, stdout, _ := run(t, "compare", "--help"); code != exitOK || !strings.Contains(stdout, "--run 'NAME: OPTIONS'") || !strings.Contains(stdout, "--dirs") {
		t.Errorf("compare --help: exit %d\n%s", code, stdout)
	}
}

// TestCompareRuns compares option sets on the sample trace: the table lists
// the runs in the order given whatever the parallelism, options outside
// --run apply to every run, and --out gets the overlaid plots and the page.
func TestCompareRuns(t *testing.T) {
	dir := t.TempDir()
	var outputs []string
	var pages [][]byte
	var machine []string
	for _, jobs := range []string{"1", "3"} {
		out := filepath.Join(dir, "cmp"+jobs)
		code, stdout, stderr := run(t, "compare", "--jobs", jobs, "--backfill", "off", "--out", out,
			"--run", "fcfs:", "--run", "easy1: --backfill easy --lookahead 1", "--run", "--backfill easy --lookahead all")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		outputs = append(outputs, stdout)
		page, err := os.ReadFile(filepath.Join(out, "compare.html"))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page)
		for _, f := range []string{"compare.csv", "compare.json"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			machine = append(machine, string(b))
		}
		for _, f := range []string{"compare_wait_cdf", "compare_utilisation", "compare_queue"} {
			for _, ext := range []string{".svg", ".png"} {
				if st, err := os.Stat(filepath.Join(out, f+ext)); err != nil || st.Size() == 0 {
					t.Errorf("%s%s: %v", f, ext, err)
				}
			}
		}
	}
	if outputs[0] != outputs[1] || !bytes.Equal(pages[0], pages[1]) || machine[0] != machine[2] || machine[1] != machine[3] {
		t.Errorf("the output depends on --jobs:\n%s\n%s", outputs[0], outputs[1])
	}
	checkCompareFiles(t, outputs[0], machine[0], machine[1])
	lines := strings.Split(outputs[0], "\n")
	if !strings.HasPrefix(lines[0], "metric") || !strings.Contains(lines[0], "fcfs") ||
		strings.Index(lines[0], "fcfs") > strings.Index(lines[0], "easy1") ||
		!strings.Contains(lines[0], "--backfill easy --lookahead all") {
		t.Errorf("header %q: want the runs in the order given, the unnamed one named by its options", lines[0])
	}
	if f := strings.Fields(lines[1]); len(f) != 4 || f[1] != "fcfs" || f[2] != "easy(lookahead=1)" || f[3] != "easy(lookahead=all)" {
		t.Errorf("policy row %q: the common --backfill off applies to fcfs only", lines[1])
	}
	if !strings.Contains(outputs[0], "wait mean (s)") || !strings.Contains(outputs[0], "%)") {
		t.Errorf("table has no wait row or no relative change:\n%s", outputs[0])
	}
}

// TestCompareDirs checks that comparing result directories gives the same
// table as comparing the same option sets directly.
func TestCompareDirs(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, r := range []struct {
		out  string
		opts []string
	}{{a, []string{"--backfill", "off"}}, {b, []string{"--lookahead", "all"}}} {
		args := append([]string{"run", "--out", r.out, "-q", "--plots=false"}, r.opts...)
		if code, _, stderr := run(t, args...); code != exitOK {
			t.Fatal(stderr)
		}
	}
	out := filepath.Join(dir, "cmp")
	code, fromDirs, stderr := run(t, "compare", "--dirs", a, b, "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, fromRuns, stderr := run(t, "compare", "--run", a+": --backfill off", "--run", b+": --lookahead all")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fromDirs != fromRuns {
		t.Errorf("--dirs table differs from --run table:\n%s\n%s", fromDirs, fromRuns)
	}
	if _, err := os.Stat(filepath.Join(out, "compare_utilisation.png")); err != nil {
		t.Error(err)
	}
}

// checkCompareFiles checks compare.csv and compare.json against each other
// and against the table printed: a row per run and metric, the same values,
// and relative changes that are (value − first) / |first|.
func checkCompareFiles(t *testing.T, table, csvText, jsonText string) {
	t.Helper()
	var doc struct {
		Baseline string
		Runs     []struct{ Name, Policy string }
		Metrics  []struct {
			Key            string
			Label          string
			Better         string
			Values         []*float64
			RelativeChange []*float64 `json:"relative_change"`
			Verdict        []string
		}
	}
	if err := json.Unmarshal([]byte(jsonText), &doc); err != nil {
		t.Fatalf("compare.json: %v", err)
	}
	rows, err := csv.NewReader(strings.NewReader(csvText)).ReadAll()
	if err != nil {
		t.Fatalf("compare.csv: %v", err)
	}
	if len(doc.Runs) != 3 || doc.Baseline != doc.Runs[0].Name || len(doc.Metrics) < 10 {
		t.Fatalf("compare.json: %d runs, baseline %q, %d metrics", len(doc.Runs), doc.Baseline, len(doc.Metrics))
	}
	if len(rows) != 1+len(doc.Runs)*len(doc.Metrics) || strings.Join(rows[0], ",") != "run,policy,metric,better,value,relative_change,verdict" {
		t.Fatalf("compare.csv: %d rows, header %q", len(rows), rows[0])
	}
	for i, run := range doc.Runs {
		if !strings.Contains(strings.Split(table, "\n")[1], run.Policy) {
			t.Errorf("run %q: policy %q not in the table", run.Name, run.Policy)
		}
		for k, m := range doc.Metrics {
			row := rows[1+i*len(doc.Metrics)+k]
			v := *m.Values[i]
			if row[0] != run.Name || row[1] != run.Policy || row[2] != m.Key || row[3] != m.Better {
				t.Errorf("csv row %v, want run %q metric %q", row, run.Name, m.Key)
			}
			if got, err := strconv.ParseFloat(row[4], 64); err != nil || got != v {
				t.Errorf("%s of %s: csv %q, json %v", m.Key, run.Name, row[4], v)
			}
			base := *m.Values[0]
			switch {
			case i == 0:
				if m.RelativeChange[0] != nil || row[5] != "" {
					t.Errorf("%s: the baseline has a relative change", m.Key)
				}
			case base != 0:
				want := (v - base) / math.Abs(base)
				if m.RelativeChange[i] == nil || math.Abs(*m.RelativeChange[i]-want) > 1e-12 {
					t.Errorf("%s of %s: relative change %v, want %v", m.Key, run.Name, m.RelativeChange[i], want)
				}
				if (m.Better == "lower" && v < base || m.Better == "higher" && v > base) != (m.Verdict[i] == "better") {
					t.Errorf("%s of %s: %v against %v is %q", m.Key, run.Name, v, base, m.Verdict[i])
				}
			}
		}
	}
}

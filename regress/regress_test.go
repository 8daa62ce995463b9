package regress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim/simtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestParseTolerances(t *testing.T) {
	for _, tc := range []struct {
		name  string
		texts []string
		want  Tolerances
		err   string
	}{
		{"defaults", nil, DefaultTolerances(), ""},
		{"override and add", []string{"wait_mean=10%", "wait_p95=600,utilisation=off"}, Tolerances{
			"wait_mean":             {"wait_mean", 10, true},
			"bounded_slowdown_mean": {"bounded_slowdown_mean", 5, true},
			"wait_p95":              {"wait_p95", 600, false},
		}, ""},
		{"unknown metric", []string{"speed=5%"}, nil, `unknown metric "speed"`},
		{"negative", []string{"wait_mean=-5%"}, nil, "not a number ≥ 0"},
		{"not a number", []string{"wait_mean=lots"}, nil, "not a number"},
		{"infinite", []string{"wait_mean=inf"}, nil, "not a number"},
		{"no value", []string{"wait_mean"}, nil, "want METRIC=T%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseTolerances(tc.texts)
			if tc.err != "" {
				var ie *schedsim.InputError
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ie) {
					t.Fatalf("error %v, want an InputError containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s: got %+v, want %+v", k, got[k], v)
				}
			}
		})
	}
}

func TestCheckRegression(t *testing.T) {
	base := report.Summary{Trace: "t", Procs: 8, Jobs: 10, Wait: report.Dist{Mean: 1000, P95: 5000}, MeanBoundedSlowdown: 10, Utilisation: 0.80, MaxQueue: 10}
	tols, err := ParseTolerances([]string{"wait_p95=100"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		change  func(s *report.Summary)
		metric  string
		verdict string
	}{
		{"same", func(s *report.Summary) {}, "wait_mean", "="},
		{"wait within 5%", func(s *report.Summary) { s.Wait.Mean = 1049 }, "wait_mean", "worse, within tolerance"},
		{"wait at exactly 5%", func(s *report.Summary) { s.Wait.Mean = 1050 }, "wait_mean", "worse, within tolerance"},
		{"wait beyond 5%", func(s *report.Summary) { s.Wait.Mean = 1051 }, "wait_mean", "REGRESSION"},
		{"wait better", func(s *report.Summary) { s.Wait.Mean = 500 }, "wait_mean", "better"},
		{"slowdown beyond 5%", func(s *report.Summary) { s.MeanBoundedSlowdown = 10.6 }, "bounded_slowdown_mean", "REGRESSION"},
		{"utilisation down 0.9 pt", func(s *report.Summary) { s.Utilisation = 0.791 }, "utilisation", "worse, within tolerance"},
		{"utilisation down 1.1 pt", func(s *report.Summary) { s.Utilisation = 0.789 }, "utilisation", "REGRESSION"},
		{"utilisation up", func(s *report.Summary) { s.Utilisation = 0.9 }, "utilisation", "better"},
		{"absolute tolerance", func(s *report.Summary) { s.Wait.P95 = 5101 }, "wait_p95", "REGRESSION"},
		{"unchecked metric worse", func(s *report.Summary) { s.MaxQueue = 100 }, "max_queue", "worse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base
			tc.change(&cur)
			c, err := CheckRegression(&Baseline{Summary: base}, &Baseline{Summary: cur}, tols)
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, r := range c.Rows {
				if r.Metric.Name != tc.metric {
					continue
				}
				found = true
				if r.Verdict != tc.verdict || r.Regressed != (tc.verdict == "REGRESSION") {
					t.Errorf("%s: verdict %q (regressed %v), want %q", tc.metric, r.Verdict, r.Regressed, tc.verdict)
				}
			}
			if !found {
				t.Fatalf("no row for %s", tc.metric)
			}
			if want := map[bool]int{true: 1, false: 0}[tc.verdict == "REGRESSION"]; len(c.Regressions()) != want {
				t.Errorf("%d regressions, want %d", len(c.Regressions()), want)
			}
		})
	}
	other := base
	other.Jobs = 11
	var ie *schedsim.InputError
	if _, err := CheckRegression(&Baseline{Summary: base}, &Baseline{Summary: other}, tols); !errors.As(err, &ie) || !strings.Contains(err.Error(), "same trace") {
		t.Errorf("runs of other job counts: %v", err)
	}
}

// summaryJSON returns a summary.json of s without the given keys (a key
// "a.b" is b inside a), or with them set to null when null is set.
func summaryJSON(t *testing.T, s *report.Summary, null bool, keys ...string) string {
	t.Helper()
	b, _ := json.Marshal(s)
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range keys {
		obj := m
		if outer, inner, ok := strings.Cut(k, "."); ok {
			obj, k = m[outer].(map[string]any), inner
		}
		if null {
			obj[k] = nil
		} else {
			delete(obj, k)
		}
	}
	b, _ = json.Marshal(m)
	return string(b)
}

// TestBaselineMissingMetric reads baselines that lack a metric or hold it
// as null: a checked one is refused, an unchecked one is shown as missing,
// never as 0.
func TestBaselineMissingMetric(t *testing.T) {
	dir := t.TempDir()
	s := report.Summary{Trace: "t", Procs: 8, Jobs: 10, Wait: report.Dist{Mean: 100, P99: 400}, MeanBoundedSlowdown: 2, Utilisation: 0.5}
	cur := &Baseline{Summary: s}
	for _, tc := range []struct {
		name   string
		file   string
		tols   []string
		err    string // "" when the check passes
		row    string // a row of the table that must be there
		noRows int    // rows that are shown missing
	}{
		{"whole", summaryJSON(t, &s, false), nil, "", "50.00", 0},
		{"utilisation absent", summaryJSON(t, &s, false, "utilisation"), nil, "has no utilisation (absent or null)", "", 0},
		{"utilisation null", summaryJSON(t, &s, true, "utilisation"), nil, "has no utilisation (absent or null)", "", 0},
		{"utilisation null, unchecked", summaryJSON(t, &s, true, "utilisation"), []string{"utilisation=off"}, "", "not in the baseline", 1},
		{"wait_p99 absent, unchecked", summaryJSON(t, &s, false, "wait.p99"), nil, "", "not in the baseline", 1},
		{"wait_p99 absent, checked", summaryJSON(t, &s, false, "wait.p99"), []string{"wait_p99=10%"}, "has no wait_p99", "", 0},
		{"jobs absent", summaryJSON(t, &s, false, "jobs"), nil, "has no jobs", "", 0},
		{"in a baseline file", `{"format":"schedsim-baseline/2","summary":` + summaryJSON(t, &s, true, "utilisation") + `}`, nil, "has no utilisation", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := simtest.WriteFile(t, dir, "b.json", tc.file)
			base, err := ReadBaseline(path)
			if err != nil {
				t.Fatal(err)
			}
			tols, _ := ParseTolerances(tc.tols)
			c, err := CheckRegression(base, cur, tols)
			if tc.err != "" {
				var ie *schedsim.InputError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path) {
					t.Fatalf("error %v, want an InputError naming %s and containing %q", err, path, tc.err)
				}
				// Nor can such a file become a baseline.
				if err := base.Write(filepath.Join(dir, "out.json")); err == nil {
					t.Errorf("a baseline lacking a metric was written")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var table bytes.Buffer
			c.WriteTable(&table)
			if !strings.Contains(table.String(), tc.row) {
				t.Errorf("table lacks %q:\n%s", tc.row, table.String())
			}
			missing := 0
			for _, r := range c.Rows {
				if r.Missing {
					missing++
				}
				if r.Regressed {
					t.Errorf("%s regressed", r.Metric.Name)
				}
			}
			if missing != tc.noRows {
				t.Errorf("%d rows missing, want %d", missing, tc.noRows)
			}
		})
	}
}

// TestCheckScenario writes baselines of runs and checks others against
// them: the check says whether the scenario is the baseline's, which keys
// differ, or that only the input files changed. The table is a golden
// file (go test -run TestCheckScenario -update rewrites it).
func TestCheckScenario(t *testing.T) {
	dir := t.TempDir()
	trace := simtest.WriteTrace(t, dir, "t.swf", 500, 8)
	run := func(edit func(*schedsim.Scenario)) *Baseline {
		t.Helper()
		sc := schedsim.Default()
		sc.Trace = trace
		edit(&sc)
		res, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewBaseline(&sc, &res.Summary)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	path := filepath.Join(dir, "baseline.json")
	if err := run(func(*schedsim.Scenario) {}).Write(path); err != nil {
		t.Fatal(err)
	}
	base, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	old := simtest.WriteFile(t, dir, "old.json", `{"format":"schedsim-baseline/1","options":["--lookahead=all"],"summary":`+summaryJSON(t, &base.Summary, false)+`}`)
	oldBase, err := ReadBaseline(old)
	if err != nil {
		t.Fatal(err)
	}
	var golden bytes.Buffer
	for _, tc := range []struct {
		name string
		base *Baseline
		edit func(*schedsim.Scenario)
		want string
	}{
		{"same", base, func(*schedsim.Scenario) {}, "scenario: the baseline's, with the same input files"},
		{"other lookahead", base, func(sc *schedsim.Scenario) { sc.Lookahead = "all"; sc.Order = "sjf" }, `scenario: DIFFERS from the baseline's: lookahead: saved "1000", now "all"; order: saved "fcfs", now "sjf"`},
		{"first format", oldBase, func(*schedsim.Scenario) {}, "scenario: not compared (the baseline records none)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CheckRegression(tc.base, run(tc.edit), DefaultTolerances())
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := c.WriteTable(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want+"\n") {
				t.Errorf("table lacks %q:\n%s", tc.want, b.String())
			}
			golden.WriteString("== " + tc.name + "\n" + strings.ReplaceAll(b.String(), trace, "t.swf"))
		})
	}
	// The same options, the trace edited (a comment: the same jobs).
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, append(data, "; edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := CheckRegression(base, run(func(*schedsim.Scenario) {}), DefaultTolerances()); err != nil || !strings.Contains(c.Scenario, "input files") {
		t.Errorf("after the trace changed: %+v, %v", c, err)
	}
	goldenPath := filepath.Join("testdata", "check_tables.golden")
	if *update {
		if err := os.WriteFile(goldenPath, golden.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(goldenPath); err != nil || !bytes.Equal(want, golden.Bytes()) {
		t.Errorf("the check tables differ from %s (%v); run with -update to see the change:\n%s", goldenPath, err, golden.String())
	}
}

// FuzzDecodeSummary checks that any JSON object decodes into a summary
// whose present metrics are those the data holds: a metric reported
// present reads the same from the data whatever it is decoded over.
func FuzzDecodeSummary(f *testing.F) {
	f.Add([]byte(`{"trace":"t","procs":8,"jobs":3,"utilisation":0.5,"wait":{"mean":1}}`))
	f.Add([]byte(`{"utilisation":null,"wait":null}`))
	f.Add([]byte(`{"jobs":"x"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s report.Summary
		missing, err := decodeSummary(data, &s)
		if err != nil {
			return
		}
		var zero report.Summary
		json.Unmarshal(data, &zero)
		for i := range report.SweepMetrics {
			m := &report.SweepMetrics[i]
			if !missing[m.Name] && m.Value(&s) != m.Value(&zero) {
				t.Fatalf("%s present but reads %v and %v", m.Name, m.Value(&s), m.Value(&zero))
			}
		}
	})
}

// FuzzParseTolerances checks that any text gives tolerances ≥ 0 of known
// metrics, or an schedsim.InputError.
func FuzzParseTolerances(f *testing.F) {
	for _, s := range []string{"wait_mean=10%", "wait_p95=600,utilisation=off", "x=1", "wait_mean=-1", "=", "wait_mean=1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tols, err := ParseTolerances([]string{text})
		if err != nil {
			var ie *schedsim.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("%q: %v is no InputError", text, err)
			}
			return
		}
		for name, tol := range tols {
			if _, ok := report.LookupSweepMetric(name); !ok || tol.Metric != name || !(tol.Value >= 0) {
				t.Fatalf("%q: tolerance %+v", text, tol)
			}
		}
	})
}

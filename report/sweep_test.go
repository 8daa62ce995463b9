package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func sweepTestTable() *SweepTable {
	t := &SweepTable{Params: []string{"lookahead", "trace"}}
	for i, v := range [][]string{{"1", "a/x.swf"}, {"all", "a/x.swf"}, {"1", "b/y.swf"}, {"all", "b/y.swf"}} {
		s := Summary{Trace: v[1][2:], Policy: "easy", Procs: 64, Jobs: 10, Started: 10, Completed: 10,
			Wait: Dist{Mean: 100.25 * float64(i+1)}, MeanBoundedSlowdown: 1.5 + float64(i), Utilisation: 0.5 + 0.1*float64(i)}
		s.Cleaning.Records, s.Cleaning.Kept = 12, 10
		t.Points = append(t.Points, SweepPoint{Key: "k" + v[0], Values: v, Summary: s})
	}
	return t
}

func TestWriteSweepCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweepCSV(&b, sweepTestTable()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), b.String())
	}
	head := strings.Split(lines[0], ",")
	row := strings.Split(lines[2], ",")
	if len(head) != len(row) {
		t.Fatalf("%d columns in the header, %d in a row", len(head), len(row))
	}
	want := map[string]string{"point": "1", "key": "kall", "lookahead": "all", "trace": "a/x.swf", "trace_name": "x.swf", "policy_name": "easy",
		"machine_procs": "64", "jobs": "10", "wait_mean": "200.5", "bounded_slowdown_mean": "2.5", "utilisation": "0.6", "cleaning_records": "12", "cleaning_kept": "10"}
	for i, h := range head {
		if w, ok := want[h]; ok && row[i] != w {
			t.Errorf("column %s = %q, want %q", h, row[i], w)
		}
		delete(want, h)
	}
	if len(want) > 0 {
		t.Errorf("columns missing: %v", want)
	}
	var pq bytes.Buffer
	if err := WriteSweepParquet(&pq, sweepTestTable()); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pq.Bytes(), []byte("PAR1")) || !bytes.HasSuffix(pq.Bytes(), []byte("PAR1")) {
		t.Errorf("sweep.parquet is not a Parquet file")
	}
}

func TestSweepTableErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(t *SweepTable)
		err  string
	}{
		{"column taken", func(t *SweepTable) { t.Params[0] = "wait_mean" }, `two columns are named "wait_mean"`},
		{"short row", func(t *SweepTable) { t.Points[1].Values = t.Points[1].Values[:1] }, "point 1 has 1 parameter values, want 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := sweepTestTable()
			tc.edit(tb)
			var b bytes.Buffer
			if err := WriteSweepCSV(&b, tb); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("CSV error %v, want %q", err, tc.err)
			}
			if err := WriteSweepParquet(&b, tb); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parquet error %v, want %q", err, tc.err)
			}
		})
	}
}

func TestSweepFigures(t *testing.T) {
	tb := sweepTestTable()
	figs, err := SweepFigures(tb, "lookahead", []string{"wait_mean", "utilisation"})
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2 || figs[0].Name != "sweep_wait_mean" || figs[1].Name != "sweep_utilisation" {
		t.Fatalf("figures %v", figs)
	}
	svg, err := figs[0].SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"x.swf", "y.swf", "Mean wait against lookahead", ">all<"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	again, _ := figs[0].SVG()
	if !bytes.Equal(svg, again) {
		t.Errorf("the same figure renders differently")
	}
	for _, tc := range []struct {
		x       string
		metrics []string
		err     string
	}{
		{"order", []string{"wait_mean"}, `"order" is not a parameter`},
		{"lookahead", []string{"speed"}, `unknown metric "speed"`},
	} {
		if _, err := SweepFigures(tb, tc.x, tc.metrics); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("SweepFigures(%s, %v): %v, want %q", tc.x, tc.metrics, err, tc.err)
		}
	}
}

// TestSweepCleaningColumnsIfUsed: a count tagged sweep:"ifused" is a column
// only when some point has it, so older sweeps keep their columns.
func TestSweepCleaningColumnsIfUsed(t *testing.T) {
	tests := []struct {
		name    string
		dropped int64
		want    bool
	}{{"unused", 0, false}, {"used", 3, true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := &SweepTable{Params: []string{"lookahead"}, Points: []SweepPoint{{Key: "a", Values: []string{"1"}}, {Key: "b", Values: []string{"2"}}}}
			tbl.Points[1].Summary.Cleaning.DroppedUser = tt.dropped
			cols, err := tbl.Columns()
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(cols, "cleaning_dropped_user"); got != tt.want {
				t.Errorf("column cleaning_dropped_user present %v, want %v", got, tt.want)
			}
			if !slices.Contains(cols, "cleaning_dropped_duplicate_id") {
				t.Error("an always-present column is missing")
			}
			var buf bytes.Buffer
			if err := WriteSweepCSV(&buf, tbl); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if n := strings.Count(lines[0], ","); n != strings.Count(lines[2], ",") {
				t.Errorf("header has %d commas, rows %d", n, strings.Count(lines[2], ","))
			}
		})
	}
}

// TestSweepOrdered: numbers, durations and "all" are ordered x values, joined
// by lines; names of policies, traces or modes are categories.
func TestSweepOrdered(t *testing.T) {
	for _, tc := range []struct {
		xs   []string
		want bool
	}{
		{[]string{"1", "10", "100", "all"}, true},
		{[]string{"0.5", "1", "2"}, true},
		{[]string{"30m", "2h", "unlimited"}, true},
		{[]string{"fcfs", "sjf", "wfp3"}, false},
		{[]string{"off", "easy", "conservative"}, false},
		{[]string{"a/x.swf", "b/y.swf"}, false},
		{[]string{"1", "fast"}, false},
	} {
		if got := sweepOrdered(tc.xs); got != tc.want {
			t.Errorf("sweepOrdered(%q) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

// TestSweepPlotGolden: an ordered x axis joins each line's points; a
// categorical one (the traces here) draws markers only, set side by side.
func TestSweepPlotGolden(t *testing.T) {
	tb := sweepTestTable()
	for _, x := range []string{"lookahead", "trace"} {
		figs, err := SweepFigures(tb, x, []string{"wait_mean"})
		if err != nil {
			t.Fatal(err)
		}
		svg, err := figs[0].SVG()
		if err != nil {
			t.Fatal(err)
		}
		goldenSVG(t, "plots/sweep_against_"+x+".svg", svg)
	}
}

package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/sim/simtest"
)

func TestParseAxis(t *testing.T) {
	for _, tc := range []struct {
		text   string
		key    string
		values []string
		err    string
	}{
		{"lookahead=1,10,all", "lookahead", []string{"1", "10", "all"}, ""},
		{" --order = fcfs , sjf ", "order", []string{"fcfs", "sjf"}, ""},
		{"status=1|0,1,5", "status", []string{"1", "0,1,5"}, ""},
		{"reservation_depth=1,all", "reservation_depth", []string{"1", "all"}, ""},
		{"trace=a.swf", "trace", []string{"a.swf"}, ""},
		{"lookahead", "", nil, "want NAME=V1"},
		{"=1,2", "", nil, "want NAME=V1"},
		{"lookahead=1,,2", "", nil, "empty value"},
		{"lookahead=1,1", "", nil, "given twice"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			a, err := ParseAxis(tc.text)
			if tc.err != "" {
				var ie *schedsim.InputError
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ie) {
					t.Fatalf("error %v, want an InputError containing %q", err, tc.err)
				}
				return
			}
			if err != nil || a.Key != tc.key || !slices.Equal(a.Values, tc.values) {
				t.Errorf("ParseAxis(%q) = %+v, %v; want %s %q", tc.text, a, err, tc.key, tc.values)
			}
		})
	}
}

func TestReadAxes(t *testing.T) {
	dir := t.TempDir()
	good := simtest.WriteFile(t, dir, "good.sweep", "# a grid\nlookahead = 1, 10\n\nstatus = 1 | 0,1,5\n")
	bad := simtest.WriteFile(t, dir, "bad.sweep", "lookahead = 1, 2\nnonsense\n")
	axes, err := ReadAxes(good)
	if err != nil || len(axes) != 2 || axes[1].Key != "status" || !slices.Equal(axes[1].Values, []string{"1", "0,1,5"}) {
		t.Errorf("ReadAxes = %+v, %v", axes, err)
	}
	for _, path := range []string{bad, filepath.Join(dir, "absent.sweep")} {
		var ie *schedsim.InputError
		if _, err := ReadAxes(path); !errors.As(err, &ie) || !strings.Contains(err.Error(), filepath.Base(path)) {
			t.Errorf("ReadAxes(%s): %v, want an InputError naming the file", path, err)
		}
	}
	if _, err := ReadAxes(bad); err == nil || !strings.Contains(err.Error(), "bad.sweep:2") {
		t.Errorf("bad line: %v, want the line number", err)
	}
}

// TestGridPoints lays out grids: the order of points, the table's columns,
// settings over the base, and keys equal to those of the first point format
// (the key column of sweep.csv must not change).
func TestGridPoints(t *testing.T) {
	base := schedsim.Default()
	base.Overrun = "extend" // from a scenario file: in every point, no column
	g := &Grid{Base: base,
		Fixed: []schedsim.Setting{{Key: "procs", Value: "64"}, {Key: "backfill", Value: "easy"}, {Key: "estimates", Value: "perfect"}, {Key: "trace", Value: "a.swf"}, {Key: "order", Value: "largest"}},
		Axes:  []Axis{{"lookahead", []string{"1", "10", "all"}}, {"order", []string{"fcfs", "sjf"}}}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	cols, err := g.Columns()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"lookahead", "order", "backfill", "estimates", "procs", "trace"}; !slices.Equal(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	if len(pts) != 6 {
		t.Fatalf("%d points, want 6", len(pts))
	}
	// Keys of schedsim before scenarios: the same grid's sweep.csv.
	if pts[0].Key != "cac1f1af7a2e534c" || pts[1].Key != "4bb4f541ce3e19bf" {
		t.Errorf("keys %s %s, want those of the first format", pts[0].Key, pts[1].Key)
	}
	p := pts[5]
	if want := []string{"all", "sjf", "easy", "perfect", "64", "a.swf"}; !slices.Equal(p.Values, want) {
		t.Errorf("point 5 values %q, want %q", p.Values, want)
	}
	if p.Label != "lookahead=all order=sjf" {
		t.Errorf("label %q", p.Label)
	}
	sc := p.Scenario
	if sc.Lookahead != "all" || sc.Order != "sjf" || sc.Procs != 64 || sc.Estimates != "perfect" || sc.Overrun != "extend" || sc.Trace != "a.swf" {
		t.Errorf("point 5 scenario %+v", sc)
	}
	// TOML keys name the same settings as the options do.
	g2 := &Grid{Base: schedsim.Default(), Fixed: []schedsim.Setting{{Key: "sjbf", Value: "false"}, {Key: "trace", Value: "a.swf"}},
		Axes: []Axis{{"reservation_depth", []string{"1", "2", "all"}}, {"status", []string{"1", "0,1,5"}}}}
	pts2, err := g2.Points()
	if err != nil {
		t.Fatal(err)
	}
	if cols, _ := g2.Columns(); cols[0] != "reservation-depth" || pts2[0].Key != "ffbc43254998020e" || pts2[5].Scenario.ReservationDepth != "all" {
		t.Errorf("columns %q, key %s, depth %q", cols, pts2[0].Key, pts2[5].Scenario.ReservationDepth)
	}
	// Relative paths are taken from the work directory.
	g.Workdir = "/shared/sweep"
	if pts, _ := g.Points(); pts[0].Scenario.Trace != "/shared/sweep/a.swf" {
		t.Errorf("trace %q, want it under the work directory", pts[0].Scenario.Trace)
	}
	// A base that writes outputs gives points that do not.
	b := schedsim.Default()
	b.Out, b.Plots = "res", false
	pts3, err := (&Grid{Base: b, Axes: []Axis{{"lookahead", []string{"1"}}}}).Points()
	if err != nil || pts3[0].Scenario.Out != "" || !pts3[0].Scenario.Plots {
		t.Errorf("point of a base with outputs: %+v, %v", pts3[0].Scenario, err)
	}
}

func TestGridErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    Grid
		err  string
	}{
		{"nothing", Grid{}, "nothing to sweep"},
		{"unknown key", Grid{Axes: []Axis{{"frobs", []string{"1"}}}}, "no option --frobs"},
		{"output key", Grid{Axes: []Axis{{"plots", []string{"true", "false"}}}}, "writes no run outputs"},
		{"twice", Grid{Axes: []Axis{{"lookahead", []string{"1"}}, {"lookahead", []string{"2"}}}}, "given twice"},
		{"twice in two forms", Grid{Axes: []Axis{{"reservation-depth", []string{"1"}}, {"reservation_depth", []string{"2"}}}}, "given twice"},
		{"no values", Grid{Axes: []Axis{{"lookahead", nil}}}, "no values"},
		{"not a number", Grid{Axes: []Axis{{"procs", []string{"64", "many"}}}}, "procs=many: want a whole number"},
		{"fixed twice", Grid{Fixed: []schedsim.Setting{{Key: "procs", Value: "1"}, {Key: "procs", Value: "2"}}, Axes: []Axis{{"lookahead", []string{"1"}}}}, "set twice"},
		{"too big", Grid{Axes: []Axis{{"lookahead", make([]string, 1001)}, {"order", make([]string, 1001)}}}, "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.g.Base = schedsim.Default()
			_, err := tc.g.Points()
			var ie *schedsim.InputError
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ie) {
				t.Errorf("error %v, want an InputError containing %q", err, tc.err)
			}
		})
	}
}

// runSweep runs a sweep of trace over lookahead and order in dir, with a
// Done that counts, and returns the result and the warnings.
func runSweep(t *testing.T, ctx context.Context, trace, dir string, jobs int, done func(*Point, bool)) (*Result, string, error) {
	t.Helper()
	var warn bytes.Buffer
	sw := &Sweep{Grid: Grid{Base: schedsim.Default(), Fixed: []schedsim.Setting{{Key: "trace", Value: trace}},
		Axes: []Axis{{"lookahead", []string{"0", "1", "10", "100", "all"}}, {"order", []string{"fcfs", "sjf"}}}},
		Dir: dir, Jobs: jobs, NoPlots: true, Warn: &warn}
	if done != nil {
		sw.Done = func(p *Point, reused bool, _ time.Duration) { done(p, reused) }
	}
	res, err := sw.Run(ctx)
	return res, warn.String(), err
}

// TestSweepResumeAfterCancel cancels a sweep after two points and runs it
// again: only the missing points are simulated, and the table equals that
// of a sweep never interrupted.
func TestSweepResumeAfterCancel(t *testing.T) {
	dir := t.TempDir()
	trace := simtest.WriteTrace(t, dir, "t.swf", 1500, 3)
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, _, err := runSweep(t, ctx, trace, out, 1, func(*Point, bool) {
		if n++; n == 2 {
			cancel()
		}
	})
	if !errors.Is(err, schedsim.ErrInterrupted) || !strings.Contains(err.Error(), "interrupted: 2 of 10 points are done") {
		t.Fatalf("cancelled sweep: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "points", "*.json")); len(m) != 2 {
		t.Fatalf("%d points kept after the cancel, want 2", len(m))
	}
	if _, err := os.Stat(filepath.Join(out, "sweep.csv")); err == nil {
		t.Errorf("an interrupted sweep wrote sweep.csv")
	}
	res, _, err := runSweep(t, context.Background(), trace, out, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Computed != 8 || res.Reused != 2 || res.Stale != 0 {
		t.Errorf("resumed sweep: %+v, want 8 simulated and 2 reused", res.Counts)
	}
	fresh := filepath.Join(dir, "fresh")
	if _, _, err := runSweep(t, context.Background(), trace, fresh, 2, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, "sweep.csv")), readFile(t, filepath.Join(fresh, "sweep.csv"))) {
		t.Errorf("the resumed sweep's table differs from an uninterrupted one")
	}
	// Once complete, a rerun simulates nothing.
	if res, _, err := runSweep(t, context.Background(), trace, out, 2, nil); err != nil || res.Computed != 0 || res.Reused != 10 {
		t.Errorf("complete rerun: %+v, %v", res, err)
	}
}

// TestSweepKeptPoints edits kept points and their inputs: a point whose file
// is corrupt (an edited digit), of the first format, of another scenario, or
// of a trace that changed since is simulated again, never read.
func TestSweepKeptPoints(t *testing.T) {
	dir := t.TempDir()
	trace := simtest.WriteTrace(t, dir, "t.swf", 800, 5)
	out := filepath.Join(dir, "out")
	if _, _, err := runSweep(t, context.Background(), trace, out, 2, nil); err != nil {
		t.Fatal(err)
	}
	want := readFile(t, filepath.Join(out, "sweep.csv"))
	files, _ := filepath.Glob(filepath.Join(out, "points", "*.json"))
	slices.Sort(files)
	if len(files) != 10 {
		t.Fatalf("%d point files", len(files))
	}
	edits := []struct {
		name     string
		edit     func(t *testing.T)
		stale    int
		warnings int
	}{
		{"a digit of a metric", func(t *testing.T) {
			b := readFile(t, files[0])
			i := bytes.Index(b, []byte(`"wait": {`))
			j := i + bytes.IndexAny(b[i:], "123456789")
			b[j] = '0' + (b[j]-'0')%9 + 1 // another digit
			os.WriteFile(files[0], b, 0o644)
		}, 1, 1},
		{"a deleted metric", func(t *testing.T) {
			b := readFile(t, files[1])
			os.WriteFile(files[1], bytes.Replace(b, []byte(`"utilisation": `), []byte(`"utilisation_": `), 1), 0o644)
		}, 1, 1},
		{"not JSON", func(t *testing.T) { os.WriteFile(files[2], []byte("{\"format\": "), 0o644) }, 1, 1},
		{"white space only", func(t *testing.T) {
			b := readFile(t, files[3])
			os.WriteFile(files[3], bytes.ReplaceAll(b, []byte("\n  "), []byte("\n    ")), 0o644)
		}, 0, 0},
		{"the first format", func(t *testing.T) {
			os.WriteFile(files[4], []byte(`{"format":"schedsim-sweep-point/1","key":"x","options":[],"summary":{}}`), 0o644)
		}, 1, 0},
		{"another scenario", func(t *testing.T) {
			b := readFile(t, files[5])
			body, err := decodePoint(b)
			if err != nil {
				t.Fatal(err)
			}
			var sc bytes.Buffer
			json.Compact(&sc, body.Scenario)
			body.Scenario = bytes.Replace(sc.Bytes(), []byte(`"overrun":"kill"`), []byte(`"overrun":"extend"`), 1)
			nb, _ := encodePoint(body) // with a valid checksum
			os.WriteFile(files[5], nb, 0o644)
		}, 1, 0},
		{"the trace changed", func(t *testing.T) {
			f, _ := os.OpenFile(trace, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("; a comment changes the content, not the jobs\n")
			f.Close()
		}, 10, 0},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			e.edit(t)
			res, warn, err := runSweep(t, context.Background(), trace, out, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stale != e.stale || res.Computed != e.stale || res.Reused != 10-e.stale {
				t.Errorf("%+v, want %d stale and simulated again", res.Counts, e.stale)
			}
			if n := strings.Count(warn, "simulated again"); n != e.warnings || (n > 0 && !strings.Contains(warn, "corrupt")) {
				t.Errorf("warnings %q, want %d saying corrupt", warn, e.warnings)
			}
			if got := readFile(t, filepath.Join(out, "sweep.csv")); !bytes.Equal(got, want) {
				t.Errorf("sweep.csv differs from the first run's")
			}
		})
	}
}

// TestSlurmSweep emits a Slurm sweep, runs its tasks as Slurm would, and
// merges: the table equals a local sweep's, and a part that is corrupt or
// of input files that changed is named as missing.
func TestSlurmSweep(t *testing.T) {
	dir := t.TempDir()
	trace := simtest.WriteTrace(t, dir, "t.swf", 600, 6)
	base := schedsim.Default()
	base.Trace = trace
	sw := &Sweep{Grid: Grid{Base: base, Axes: []Axis{{"lookahead", []string{"1", "10", "all"}}, {"backfill", []string{"easy", "off"}}}}, NoPlots: true}
	em := filepath.Join(dir, "em")
	e, err := sw.EmitSlurm(SlurmArray{Dir: em, Chunk: 4, Limit: 2, CPUs: 1, Binary: "/bin/schedsim"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Tasks != 2 || e.Points != 6 {
		t.Fatalf("emitted %+v", e)
	}
	ss, err := OpenSlurmSweep(e.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	ss.NoPlots = true
	var missing *MissingPartsError
	if _, err := ss.Merge(); !errors.As(err, &missing) || len(missing.Tasks) != 2 || !strings.Contains(missing.Reasons[0], "no part") {
		t.Fatalf("merge before the tasks: %v", err)
	}
	for k := 0; k < 2; k++ {
		if _, err := ss.RunTask(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ss.RunTask(context.Background(), 2); err == nil {
		t.Errorf("task 2 of 2 ran")
	}
	if _, err := ss.Merge(); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "local")
	sw.Dir = local
	if _, err := sw.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(em, "sweep.csv")), readFile(t, filepath.Join(local, "sweep.csv"))) {
		t.Errorf("the merged table differs from the local sweep's")
	}
	// An edited digit in a part.
	part := filepath.Join(em, "parts", "part-1.json")
	good := readFile(t, part)
	i := bytes.Index(good, []byte(`"mean_response": `)) + len(`"mean_response": `)
	bad := slices.Clone(good)
	bad[i] = '0' + (bad[i]-'0')%9 + 1
	os.WriteFile(part, bad, 0o644)
	if _, err := ss.Merge(); !errors.As(err, &missing) || missing.Tasks[0] != 1 || !strings.Contains(missing.Reasons[0], "checksum") {
		t.Errorf("merge of a corrupt part: %v", err)
	} else if r := missing.Rerun(); r != "sbatch --array=1 "+filepath.Join(em, "sweep.sbatch") {
		t.Errorf("rerun %q", r)
	}
	os.WriteFile(part, good, 0o644)
	// The trace changed since the tasks ran.
	os.WriteFile(trace, append(readFile(t, trace), "; edited\n"...), 0o644)
	if _, err := ss.Merge(); !errors.As(err, &missing) || len(missing.Tasks) != 2 || !strings.Contains(missing.Reasons[1], "input files") {
		t.Errorf("merge after the trace changed: %v", err)
	}
	// A manifest of the first format is refused.
	old := simtest.WriteFile(t, dir, "manifest.json", `{"format":"schedsim-sweep-manifest/1"}`)
	var ie *schedsim.InputError
	if _, err := OpenSlurmSweep(old); !errors.As(err, &ie) || !strings.Contains(err.Error(), "format") {
		t.Errorf("first-format manifest: %v", err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzParseAxis checks that any text either parses into an axis of
// distinct, non-empty values or is an schedsim.InputError.
func FuzzParseAxis(f *testing.F) {
	for _, s := range []string{"lookahead=1,10,all", "status=1|0,1,5", "=", "a=,", "--order = fcfs , sjf", "x=1,1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := ParseAxis(text)
		if err != nil {
			var ie *schedsim.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("%q: %v is no InputError", text, err)
			}
			return
		}
		if a.Key == "" || len(a.Values) == 0 {
			t.Fatalf("%q: %+v", text, a)
		}
		for i, v := range a.Values {
			if v == "" || slices.Contains(a.Values[:i], v) {
				t.Fatalf("%q: values %q", text, a.Values)
			}
		}
	})
}

// FuzzDecodePoint checks that a point file decodes only when its checksum
// holds, and that what decodes encodes back to a file that decodes the same.
func FuzzDecodePoint(f *testing.F) {
	good, _ := encodePoint(&pointBody{Key: "0123456789abcdef", Scenario: []byte(`{"trace":"t.swf"}`), Inputs: "ab"})
	f.Add(good)
	f.Add([]byte(`{"format":"schedsim-sweep-point/2","sha256":"00","point":{}}`))
	f.Add([]byte(`{"format":"schedsim-sweep-point/1"}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, b []byte) {
		body, err := decodePoint(b)
		if err != nil {
			if !errors.Is(err, errPointCorrupt) && !errors.Is(err, errPointStale) {
				t.Fatalf("error %v is neither corrupt nor stale", err)
			}
			return
		}
		again, err := encodePoint(body)
		if err != nil {
			return // a scenario that is not JSON cannot be encoded again
		}
		if _, err := decodePoint(again); err != nil {
			t.Fatalf("re-encoded point does not decode: %v", err)
		}
	})
}

package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHumanCount(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {9_999, "9999"}, {10_000, "10k"}, {123_456, "123k"},
		{1_000_000, "1.00M"}, {2_345_678, "2.35M"}, {10_000_000, "10M"},
	} {
		if got := HumanCount(c.n); got != c.want {
			t.Errorf("HumanCount(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestGenerateTrace checks that a generated trace holds the jobs asked
// for, and that the same seed gives the same bytes.
func TestGenerateTrace(t *testing.T) {
	dir := t.TempDir()
	var files [][]byte
	for i, name := range []string{"a.swf", "b.swf"} {
		path := filepath.Join(dir, name)
		if err := GenerateTrace(path, 500, 64, 0.9, 3); err != nil {
			t.Fatal(err)
		}
		n, err := CountJobs(path)
		if err != nil {
			t.Fatal(err)
		}
		if n != 500 {
			t.Errorf("run %d: CountJobs = %d, want 500", i, n)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two traces generated with the same seed differ")
	}
	if _, err := CountJobs(filepath.Join(dir, "missing.swf")); err == nil {
		t.Error("CountJobs of a missing file: no error")
	}
}

func TestPrintTable(t *testing.T) {
	cases := []Case{{Name: "c1", Jobs: 1000, Args: []string{"--backfill", "easy"}}, {Name: "empty"}}
	results := []Result{{
		Wall:   []time.Duration{3 * time.Second, time.Second, 2 * time.Second},
		CPU:    []time.Duration{4 * time.Second, 2 * time.Second, 3 * time.Second},
		MaxRSS: []int64{1024, 4096, 2048},
	}, {}}
	var b strings.Builder
	if err := PrintTable(&b, cases, results, "(footer)"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"2.000 s", "1.000 s", "3.000 s", "500", "3.000 s", "4 MiB", "--backfill easy", "(footer)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "empty") {
		t.Errorf("a case without runs is printed:\n%s", out)
	}
}

// TestGeneratedCases checks the default cases: one trace per load, the
// lookahead by load, and a user's trace named by its base name with its
// jobs counted.
func TestGeneratedCases(t *testing.T) {
	dir := t.TempDir()
	var said strings.Builder
	cases, err := Generated(dir, 200, 32, []float64{0.85, 1.1}, 7, &said)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ name, lookahead string }{
		{"lublin 200 jobs, load 0.85", "1000"},
		{"lublin 200 jobs, load 1.10", "all"},
	} {
		c := cases[i]
		if c.Name != want.name || c.Jobs != 200 || c.Args[len(c.Args)-1] != want.lookahead {
			t.Errorf("case %d = %+v, want %s with lookahead %s", i, c, want.name, want.lookahead)
		}
		if _, err := os.Stat(c.Trace); err != nil {
			t.Errorf("case %d: %v", i, err)
		}
	}
	if n := strings.Count(said.String(), "generating "); n != 2 {
		t.Errorf("progress said %q, want two lines", said.String())
	}
	tc, err := TraceCase(cases[0].Trace, []string{"--backfill", "off"})
	if err != nil {
		t.Fatal(err)
	}
	if tc.Name != filepath.Base(cases[0].Trace) || tc.Jobs != 200 || tc.Args[1] != "off" {
		t.Errorf("TraceCase = %+v", tc)
	}
	if _, err := TraceCase(filepath.Join(dir, "missing.swf"), nil); err == nil {
		t.Error("TraceCase of a missing file: no error")
	}
}

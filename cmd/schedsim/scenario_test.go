package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim"
)

// TestFlagsAreScenarioKeys holds the flags and the scenario file's keys
// together: every scenario flag is a key (with '_' for '-') and every key
// a flag, so an option is defined once.
func TestFlagsAreScenarioKeys(t *testing.T) {
	sc := schedsim.Default()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	registerScenario(fs, &sc)
	registerOutputs(fs, &sc)
	var flags []string
	fs.VisitAll(func(f *pflag.Flag) { flags = append(flags, strings.ReplaceAll(f.Name, "-", "_")) })
	slices.Sort(flags)
	if keys := schedsim.Keys(); !slices.Equal(flags, keys) {
		t.Errorf("flags %v\nkeys  %v", flags, keys)
	}
}

// TestRunScenarioFile runs a scenario file, and the same with a flag that
// overrides one of its values; each equals the run given by flags alone.
func TestRunScenarioFile(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "s.toml", "backfill = \"easy\"\nlookahead = 10\nout = \"res\"\nplots = false\n")
	byFlags := filepath.Join(dir, "flags")
	tests := []struct {
		name      string
		file      []string
		flags     []string
		fileOut   string
		equalFlag []string
	}{
		{"file alone", []string{"run", file, "--quiet"}, nil, filepath.Join(dir, "res"), []string{"--lookahead", "10"}},
		{"flag over file", []string{"run", file, "--quiet", "--lookahead", "all", "--out", filepath.Join(dir, "res2")}, nil, filepath.Join(dir, "res2"), []string{"--lookahead", "all"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, _, stderr := run(t, tt.file...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			args := append([]string{"run", "--quiet", "--plots=false", "--out", byFlags}, tt.equalFlag...)
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, f := range []string{"jobs.csv", "summary.json"} {
				a, _ := os.ReadFile(filepath.Join(tt.fileOut, f))
				b, _ := os.ReadFile(filepath.Join(byFlags, f))
				if len(a) == 0 || string(a) != string(b) {
					t.Errorf("%s differs between the scenario file and the flags", f)
				}
			}
		})
	}
	if code, _, stderr := run(t, "run", file, "other.toml"); code != 2 || !strings.Contains(stderr, "at most one scenario file") {
		t.Errorf("two files: exit %d, %q", code, stderr)
	}
	bad := writeFile(t, dir, "bad.toml", "lookahed = 3\n")
	if code, _, stderr := run(t, "run", bad); code != 2 || !strings.Contains(stderr, "unknown key lookahed") {
		t.Errorf("bad key: exit %d, %q", code, stderr)
	}
}

// TestRunSelection replays windows and subsets of the embedded sample: the
// summary counts the jobs each selection rule dropped.
func TestRunSelection(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // a line of summary.json
	}{
		{"max jobs", []string{"--max-jobs", "100"}, `"dropped_max_jobs": 1900`},
		{"until", []string{"--until", "1d"}, `"dropped_after_until": `},
		{"users", []string{"--users", "999999"}, `"dropped_user": 2000`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o")
			args := append([]string{"run", "-q", "--plots=false", "--out", out}, tt.args...)
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tt.want) {
				t.Errorf("summary.json lacks %q", tt.want)
			}
		})
	}
	if code, _, stderr := run(t, "run", "--max-jobs", "-3"); code != 2 || !strings.Contains(stderr, "max") {
		t.Errorf("--max-jobs -3: exit %d, %q", code, stderr)
	}
}

// TestOutputDirectoryWhole: a run's --out is one run's results, whole, or
// what it was before (issue: an output directory could end up mixed).
func TestOutputDirectoryWhole(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "res")
	bad := writeFile(t, dir, "bad.swf", "; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 1 1 1 -1 -1\n2 5 -1 1x 1 -1 -1 1 20 -1 1 1 1 1 1 1 -1 -1\n")
	// Bad input: no directory at all.
	if code, _, _ := run(t, "run", "--trace", bad, "--out", out, "-q"); code != exitUsage {
		t.Fatalf("bad trace: exit %d", code)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a run stopped by bad input left %s (%v)", out, err)
	}
	// A good run, then a bad one into the same directory: the first
	// one's results stay as they were.
	if code, _, stderr := run(t, "run", "--out", out, "-q", "--plots=false"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	before, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if code, _, _ := run(t, "run", "--trace", bad, "--out", out, "-q"); code != exitUsage {
		t.Fatalf("bad trace: exit %d", code)
	}
	after, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if len(before) == 0 || string(before) != string(after) {
		t.Error("a failed run changed the previous results")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("staging directories left beside the results: %d entries", len(ents))
	}
	// A second good run with plots replaces the first whole.
	if code, _, stderr := run(t, "run", "--out", out, "-q", "--lookahead", "all"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Error(err)
	}
	// A directory holding other files is refused, untouched.
	mine := filepath.Join(dir, "mine")
	os.Mkdir(mine, 0o755)
	writeFile(t, mine, "notes.md", "keep me")
	if code, _, stderr := run(t, "run", "--out", mine, "-q"); code != exitUsage || !strings.Contains(stderr, "notes.md") {
		t.Errorf("foreign files: exit %d, %q", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(mine, "notes.md")); string(b) != "keep me" {
		t.Error("notes.md was touched")
	}
}

// TestWarnings: what a user needs to know about the input or the options
// is said once on stderr and listed in summary.json's warnings.
func TestWarnings(t *testing.T) {
	dir := t.TempDir()
	noEst := writeFile(t, dir, "noest.swf", "; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 -1 -1 1 1 1 1 1 1 -1 -1\n2 1 -1 10 4 -1 -1 4 -1 -1 1 1 1 1 1 1 -1 -1\n3 2 -1 5 1 -1 -1 1 20 -1 1 1 1 1 1 1 -1 -1\n")
	tests := []struct {
		name string
		args []string
		want string // in stderr and summary.json; "" for no warning
	}{
		{"no requested times", []string{"--trace", noEst}, "2 of 3 jobs (67 %) have no requested time"},
		{"lookahead under slurm", []string{"--backfill", "slurm", "--lookahead", "10"}, "--lookahead 10 applies to --backfill easy and hpcpack, not slurm"},
		{"depth under off", []string{"--backfill", "off", "--reservation-depth", "3"}, "--reservation-depth 3 applies to --backfill easy"},
		{"sjf without estimates", []string{"--trace", noEst, "--order", "sjf", "--estimates", "user"}, "--order sjf ranks jobs by their requested time, and 2 jobs have none"},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o")
			code, _, stderr := run(t, append([]string{"run", "-q", "--plots=false", "--out", out}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
			if tt.want == "" {
				if strings.Contains(stderr, "warning") || strings.Contains(string(b), `"warnings"`) {
					t.Errorf("a warning without cause: %s", stderr)
				}
				return
			}
			if strings.Count(stderr, tt.want) != 1 {
				t.Errorf("stderr says %q %d times, want once:\n%s", tt.want, strings.Count(stderr, tt.want), stderr)
			}
			if !strings.Contains(string(b), `"warnings"`) || !strings.Contains(string(b), strings.ReplaceAll(tt.want, "%", "%")) {
				t.Errorf("summary.json lacks the warning %q", tt.want)
			}
		})
	}
}

// TestNoMachineSizeHint: a trace without a machine size is refused with the
// size its largest job needs.
func TestNoMachineSizeHint(t *testing.T) {
	trace := writeFile(t, t.TempDir(), "t.swf", "1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 1 1 1 -1 -1\n2 1 -1 10 12 -1 -1 7 20 -1 1 1 1 1 1 1 -1 -1\n")
	code, _, stderr := run(t, "run", "--trace", trace)
	if code != exitUsage || !strings.Contains(stderr, "declares no machine size") || !strings.Contains(stderr, "--procs 12 runs them all") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

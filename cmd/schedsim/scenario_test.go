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

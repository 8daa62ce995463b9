package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/traces"
	"github.com/schedsim/schedsim/workload"
)

// TestGenerateSample regenerates the embedded sample trace with the
// command: the jobs are the sample's, in every output format.
func TestGenerateSample(t *testing.T) {
	r, err := workload.NewReader(traces.Sample(), traces.SampleName, workload.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var want []workload.Job
	for {
		var j workload.Job
		if err := r.Next(&j); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		want = append(want, j)
	}
	dir := t.TempDir()
	for _, name := range []string{"s.swf", "s.swf.gz", "s.parquet"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name)
			code, _, stderr := run(t, "generate", "--jobs", "2000", "--procs", "128", "--load", "0.9", "--seed", "2003",
				"--estimate-round", "60", "--out", out)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, r := readJobs(t, out)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %d jobs differ from the embedded sample's %d", name, len(got), len(want))
			}
			if r.Header().MachineSize() != 128 || !strings.Contains(r.Header().Get("Note"), "Lublin-Feitelson") {
				t.Errorf("header %+v", r.Header())
			}
		})
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("%d files in the output directory, want 3 (no temporary files)", len(ents))
	}
}

func TestGenerateErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "g.swf")
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"no out", []string{"--jobs", "10", "--procs", "8"}, "--out"},
		{"no jobs", []string{"--procs", "8", "--out", out}, "--jobs"},
		{"no procs", []string{"--jobs", "8", "--out", out}, "--procs"},
		{"bad model", []string{"--jobs", "8", "--procs", "8", "--model", "gpu", "--out", out}, "--model"},
		{"bad load", []string{"--jobs", "8", "--procs", "8", "--load", "-1", "--out", out}, "--load"},
		{"bad estimate factor", []string{"--jobs", "8", "--procs", "8", "--estimate-factor", "0.5", "--out", out}, "EstimateFactorMax"},
		{"bad format", []string{"--jobs", "8", "--procs", "8", "--out", filepath.Join(dir, "g.json")}, ".swf"},
		{"missing directory", []string{"--jobs", "8", "--procs", "8", "--out", filepath.Join(dir, "no", "g.swf")}, "no/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, append([]string{"generate"}, tc.args...)...)
			if code == exitOK {
				t.Fatal("exit 0")
			}
			if !strings.Contains(stderr, tc.msg) {
				t.Errorf("stderr %q lacks %q", stderr, tc.msg)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("a failed generate left %d files", len(ents))
			}
		})
	}
}

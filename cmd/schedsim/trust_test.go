package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// child runs this test binary as the schedsim command (see TestMain).
func child(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(append(os.Environ(), benchChildEnv+"=1", "CI=true"), env...)
	return cmd
}

// The same run gives byte-identical files, plots and report included,
// whatever GOMAXPROCS is: 1, 2 and 4 in full runs (simtest.Full), 1 and 4
// otherwise.
func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	dir := t.TempDir()
	var first map[string][]byte
	procsList := []string{"1", "2", "4"}
	if !simtest.Full() {
		procsList = []string{"1", "4"}
	}
	for _, procs := range procsList {
		out := filepath.Join(dir, "p"+procs)
		cmd := child(t, []string{"GOMAXPROCS=" + procs}, "run", "--out", out, "-q", "--lookahead", "all")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("GOMAXPROCS=%s: %v\n%s", procs, err, b)
		}
		files := map[string][]byte{}
		entries, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(out, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = b
		}
		if first == nil {
			first = files
			if len(files) < 4 {
				t.Fatalf("only %d output files", len(files))
			}
			continue
		}
		if len(files) != len(first) {
			t.Fatalf("GOMAXPROCS=%s: %d files, GOMAXPROCS=1: %d", procs, len(files), len(first))
		}
		for name, b := range first {
			if !bytes.Equal(files[name], b) {
				t.Errorf("GOMAXPROCS=%s: %s differs from GOMAXPROCS=1", procs, name)
			}
		}
	}
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
// whatever GOMAXPROCS is.
func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	dir := t.TempDir()
	var first map[string][]byte
	for _, procs := range []string{"1", "2", "4"} {
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

// SIGINT or SIGTERM in the middle of a run stops it with status 130 and a
// message, and leaves neither output nor temporary files.
func TestInterruptLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "big.swf")
	if code, _, stderr := run(t, "generate", "--jobs", "400000", "--procs", "256", "--load", "1.1", "--out", trace); code != 0 {
		t.Fatal(stderr)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(dir, "out-"+sig.String())
		cmd := child(t, nil, "run", "--trace", trace, "--lookahead", "all", "--out", out, "-q")
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(400 * time.Millisecond)
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitInterrupted {
			t.Fatalf("%v: exit %v, want status %d\n%s", sig, err, exitInterrupted, errb.String())
		}
		if !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("%v: no message: %q", sig, errb.String())
		}
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			t.Errorf("%v: left %s behind", sig, e.Name())
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// SIGINT or SIGTERM in the middle of a run stops it with status 130 and a
// message, and leaves neither output nor temporary files. The child says
// when its handler is installed (interruptReadyEnv) and waits for the
// signal there: the test signals then, never after a guessed delay.
func TestInterruptLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	// More than the 1024 jobs after which the run first looks at its stop flag.
	if code, _, stderr := run(t, "generate", "--jobs", "5000", "--procs", "256", "--load", "1.1", "--out", trace); code != 0 {
		t.Fatal(stderr)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(dir, "out-"+sig.String())
		cmd := child(t, []string{interruptReadyEnv + "=1"}, "run", "--trace", trace, "--lookahead", "all", "--out", out, "-q")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Read stderr until the ready line, then keep the rest.
		ready := make(chan bool, 1)
		rest := make(chan string, 1)
		go func() {
			var all strings.Builder
			sc := bufio.NewScanner(stderr)
			seen := false
			for sc.Scan() {
				all.WriteString(sc.Text() + "\n")
				if !seen && sc.Text() == interruptReadyLine {
					seen = true
					ready <- true
				}
			}
			if !seen {
				ready <- false
			}
			rest <- all.String()
		}()
		select {
		case ok := <-ready:
			if !ok {
				msg := <-rest
				cmd.Wait()
				t.Fatalf("%v: the run ended without installing its handler:\n%s", sig, msg)
			}
		case <-time.After(2 * time.Minute): // a safety net, not a synchronisation
			cmd.Process.Kill()
			msg := <-rest
			cmd.Wait()
			t.Fatalf("%v: the run never said its handler was installed:\n%s", sig, msg)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		msg := <-rest // stderr is closed: the child is done writing
		err = cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitInterrupted {
			t.Fatalf("%v: exit %v, want status %d\n%s", sig, err, exitInterrupted, msg)
		}
		if !strings.Contains(msg, "interrupted") {
			t.Errorf("%v: no message: %q", sig, msg)
		}
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			t.Errorf("%v: left %s behind", sig, e.Name())
		}
	}
}

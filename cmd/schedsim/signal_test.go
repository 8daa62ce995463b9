package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// readyEnv names the stage (see ready) at which a child process of the
// tests says readyLine on stderr and waits for a signal.
const (
	readyEnv  = "SCHEDSIM_TEST_READY_AT"
	readyLine = "schedsim-test: ready"
)

func init() {
	stage := os.Getenv(readyEnv)
	if stage == "" {
		return
	}
	var once sync.Once
	testHook = func(ctx context.Context, s string) {
		if s != stage {
			return
		}
		once.Do(func() {
			fmt.Fprintln(os.Stderr, readyLine)
			<-ctx.Done()
		})
	}
}

// interruptChild runs the command line args in a child process that
// waits at stage, signals it once it says it is there, and returns its
// exit status and stderr. No sleep: the signal always lands at stage.
func interruptChild(t *testing.T, sig syscall.Signal, stage string, args ...string) (int, string) {
	t.Helper()
	cmd := child(t, []string{readyEnv + "=" + stage}, args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	sc := bufio.NewScanner(pipe)
	ready := false
	for !ready && sc.Scan() {
		if sc.Text() == readyLine {
			ready = true
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			continue
		}
		stderr.WriteString(sc.Text() + "\n")
	}
	rest, _ := io.ReadAll(pipe)
	stderr.Write(rest)
	err = cmd.Wait()
	if !ready {
		t.Fatalf("the child never reached %s: %v\n%s", stage, err, stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// TestInterruptEveryCommand interrupts each subcommand in the middle of
// its work, with SIGINT and SIGTERM: each exits with status 130, says so,
// and leaves neither its output nor a temporary file.
func TestInterruptEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	trace := genTrace(t, dir, "t.swf", 3000, "9")
	res := filepath.Join(dir, "res")
	if code, _, stderr := run(t, "run", "--trace", trace, "--out", res, "-q", "--plots=false"); code != exitOK {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		name, stage string
		args        []string
		out         string // must not exist after, nor anything in its directory but what was there
		inStderr    string
	}{
		{"run", "run:job", []string{"run", "--trace", trace, "--out", "OUT", "-q"}, "OUT/jobs.csv", "interrupted"},
		{"convert", "convert:record", []string{"convert", trace, "OUT.parquet"}, "OUT.parquet", "interrupted"},
		{"convert to gzip", "convert:record", []string{"convert", trace, "OUT.swf.gz"}, "OUT.swf.gz", "interrupted"},
		{"generate", "generate:job", []string{"generate", "--jobs", "5000", "--procs", "64", "--out", "OUT.swf"}, "OUT.swf", "interrupted"},
		{"sweep", "sweep:point", []string{"sweep", "--trace", trace, "--param", "lookahead=1,10,all", "--jobs", "1", "--out", "OUT"}, "OUT/sweep.csv", "interrupted: 1 of 3 points are done"},
		{"compare", "compare:run", []string{"compare", "--trace", trace, "--jobs", "1", "--run", "a: --lookahead 1", "--run", "b: --lookahead 10", "--out", "OUT"}, "OUT/compare.html", "interrupted"},
		{"check", "check:job", []string{"check", "--trace", trace, "--write-baseline", "OUT.json"}, "OUT.json", "interrupted"},
		{"verify", "verify", []string{"verify", res}, "", "interrupted"},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(tc.name+"/"+sig.String(), func(t *testing.T) {
				work := t.TempDir()
				out := filepath.Join(work, "out")
				args := make([]string, len(tc.args))
				for i, a := range tc.args {
					args[i] = strings.ReplaceAll(a, "OUT", out)
				}
				code, stderr := interruptChild(t, sig, tc.stage, args...)
				if code != exitInterrupted || !strings.Contains(stderr, tc.inStderr) {
					t.Fatalf("exit %d, want %d and %q on stderr:\n%s", code, exitInterrupted, tc.inStderr, stderr)
				}
				if tc.out != "" {
					if _, err := os.Stat(strings.ReplaceAll(tc.out, "OUT", out)); err == nil {
						t.Errorf("%s was written", tc.out)
					}
				}
				filepath.WalkDir(work, func(path string, d os.DirEntry, err error) error {
					if err == nil && strings.Contains(d.Name(), ".tmp-") {
						t.Errorf("left %s behind", path)
					}
					return nil
				})
			})
		}
	}
}

// TestInterruptRunLeavesResults interrupts a LANL-CM5 run into a directory
// that holds a previous run's results, at 10 %, 50 %, 90 % and 99 % of its
// jobs, and at its last job (the summary and the plots are then being
// made), with SIGINT and SIGTERM: each exits with status 130 and leaves
// the directory exactly as it was, with nothing beside it.
func TestInterruptRunLeavesResults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	trace := filepath.Join("..", "..", "..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", trace)
	}
	const jobs = 122055 // the jobs LANL-CM5 runs under the default rules
	parent := t.TempDir()
	out := filepath.Join(parent, "res")
	if code, _, stderr := run(t, "run", "--trace", trace, "--out", out, "-q", "--backfill", "off"); code != 0 {
		t.Fatal(stderr)
	}
	before := readDir(t, out)
	for _, pct := range []int{10, 50, 90, 99, 100} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(fmt.Sprintf("%d%%/%v", pct, sig), func(t *testing.T) {
				stage := fmt.Sprintf("run:job:%d", jobs*pct/100)
				code, stderr := interruptChild(t, sig, stage, "run", "--trace", trace, "--out", out, "-q", "--lookahead", "all")
				if code != exitInterrupted || !strings.Contains(stderr, "interrupted") {
					t.Fatalf("exit %d, stderr %q; want %d", code, stderr, exitInterrupted)
				}
				after := readDir(t, out)
				if len(after) != len(before) {
					t.Fatalf("%d files after, %d before", len(after), len(before))
				}
				for name, b := range before {
					if string(after[name]) != string(b) {
						t.Errorf("%s changed", name)
					}
				}
				if ents, _ := os.ReadDir(parent); len(ents) != 1 {
					t.Errorf("%d entries beside the results: a staging directory was left", len(ents)-1)
				}
			})
		}
	}
}

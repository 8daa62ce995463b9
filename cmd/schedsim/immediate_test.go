package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A run of LANL-CM5 with its development queue (queue 1, named by the
// header) immediate, under EASY and SCore-D's gang mode, killed with
// SIGKILL after some checkpoints and resumed, writes the files of a run
// never interrupted, byte for byte; verify accepts the result; its
// summary counts the immediate jobs and jobs.csv marks them.
func TestCheckpointKillResumeImmediate(t *testing.T) {
	trace := sharedTrace(t, "LANL-CM5-1994-4.1-cln.swf.gz")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"easy", []string{"--backfill", "easy", "--lookahead", "all"}},
		{"gang", []string{"--mode", "gang"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", "--trace", trace, "-q", "--immediate-queues", "development"}, tc.args...)
			files := killResumeCompare(t, dir, 5, "30d", args...)
			if !bytes.Contains(files["summary.json"], []byte(`"immediate": 85328`)) || !bytes.Contains(files["summary.json"], []byte(`"immediate_queues": [`)) {
				t.Error("summary.json does not count queue 1's 85,328 jobs as immediate")
			}
			if tc.name == "easy" && bytes.Count(files["jobs.csv"], []byte("immediate=1 ")) != 85328 {
				t.Error("jobs.csv does not mark queue 1's jobs immediate")
			}
			if code, stdout, stderr := run(t, "verify", filepath.Join(dir, "whole")); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
				t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// immediate_queues in a scenario file, by number, runs as
// --immediate-queues does; an unknown queue name or a closed loop is
// refused with exit status 2 and the reason.
func TestImmediateQueuesScenario(t *testing.T) {
	trace := sharedTrace(t, "LANL-CM5-1994-4.1-cln.swf.gz")
	dir := t.TempDir()
	abs, err := filepath.Abs(trace) // a scenario's paths are from its directory
	if err != nil {
		t.Fatal(err)
	}
	sc := writeFile(t, dir, "imm.toml", "trace = "+strconv.Quote(abs)+"\nbackfill = \"easy\"\nimmediate_queues = \"1\"\n")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if code, _, stderr := run(t, "run", sc, "-q", "--plots=false", "--out", a); code != exitOK {
		t.Fatal(stderr)
	}
	if code, _, stderr := run(t, "run", "--trace", trace, "--backfill", "easy", "-q", "--plots=false", "--immediate-queues", "development", "--out", b); code != exitOK {
		t.Fatal(stderr)
	}
	ja, _ := os.ReadFile(filepath.Join(a, "jobs.csv"))
	jb, _ := os.ReadFile(filepath.Join(b, "jobs.csv"))
	if len(ja) == 0 || !bytes.Equal(ja, jb) {
		t.Error("immediate_queues = \"1\" and --immediate-queues development wrote different jobs.csv")
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown name", []string{"--immediate-queues", "nosuch"}, `"nosuch" is not a number`},
		{"closed loop", []string{"--immediate-queues", "1", "--closed-loop"}, "closed-loop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--trace", trace, "-q", "--plots=false", "--out", filepath.Join(dir, tc.name)}, tc.args...)
			if code, _, stderr := run(t, args...); code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, exitUsage, tc.want, stderr)
			}
		})
	}
}

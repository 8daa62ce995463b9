package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// pyPolicy writes an executable script in dir that runs the Python
// example name, and returns its path: a command line without spaces, for
// compare's and sweep's option lists.
func pyPolicy(t *testing.T, dir, name string) string {
	t.Helper()
	ex, err := filepath.Abs(filepath.Join("..", "..", "policy", "external", "python", "examples", name+".py"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexec '"+simtest.Python3(t)+"' '"+ex+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPolicyExecErrors: a policy's protocol error is a user's error:
// exit status 2, the exact message, and no output directory.
func TestPolicyExecErrors(t *testing.T) {
	const hello = `echo '{"type":"hello","protocol":"schedsim-policy/1","name":"sh"}'; `
	tests := []struct {
		name, cmd, want string
	}{
		{"version", `read l; echo '{"type":"hello","protocol":"schedsim-policy/9"}'`,
			`schedsim run: external policy: handshake: protocol "schedsim-policy/9", want "schedsim-policy/1"; line: {"type":"hello","protocol":"schedsim-policy/9"}`},
		{"unknown job", `read l; ` + hello + `read l; echo '{"start":[99999]}'; cat >/dev/null`,
			`schedsim run: external policy: pass 1 at time 93: start: job 99999 is not queued (no job with this id was submitted, or it has ended); line: {"start":[99999]}`},
		{"not yet submitted", `read l; ` + hello + `read l; echo '{"start":[0]}'; read l; echo '{"start":[1]}'; read l; echo '{"start":[2,3]}'; cat >/dev/null`,
			`schedsim run: external policy: pass 3 at time 975: start: job 3 is not queued (no job with this id was submitted, or it has ended); line: {"start":[2,3]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, _, stderr := run(t, "run", "--quiet", "--out", out, "--policy-exec", tt.cmd)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if got := strings.TrimSpace(stderr); got != tt.want {
				t.Errorf("stderr\n%s\nwant\n%s", got, tt.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a failed run left its output directory")
			}
		})
	}
}

// TestPolicyExecPython: the Python FCFS example gives --backfill off's
// jobs.csv byte for byte, twice the same (determinism), with a message log
// and in a scenario file; compare and sweep take it as any option.
func TestPolicyExecPython(t *testing.T) {
	dir := t.TempDir()
	fcfs, easy := pyPolicy(t, dir, "fcfs"), pyPolicy(t, dir, "easy")
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if code, _, stderr := run(t, "run", "--quiet", "--plots=false", "--backfill", "off", "--out", filepath.Join(dir, "off")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := read(filepath.Join(dir, "off", "jobs.csv"))
	var sums [2][]byte
	for k := range 2 {
		out := filepath.Join(dir, "py", string(rune('a'+k)))
		log := filepath.Join(dir, "policy.log")
		code, _, stderr := run(t, "run", "--quiet", "--plots=false", "--policy-exec", fcfs, "--policy-log", log, "--out", out)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if got := read(filepath.Join(out, "jobs.csv")); !bytes.Equal(got, want) {
			t.Errorf("run %d: jobs.csv differs from --backfill off's", k)
		}
		sums[k] = read(filepath.Join(out, "summary.json"))
		if !bytes.Contains(sums[k], []byte(`"policy": "external(fcfs)"`)) {
			t.Errorf("summary.json does not name the policy:\n%s", sums[k])
		}
		l := read(log)
		if !bytes.HasPrefix(l, []byte(`> {"type":"hello","protocol":"schedsim-policy/1","machine":{"procs":128}}`+"\n"+`< {"type":"hello","protocol":"schedsim-policy/1","name":"fcfs","fields":["job","submit","procs"],"rows":true}`+"\n")) {
			t.Errorf("policy log starts %.200q", l)
		}
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Error("two runs wrote different summaries")
	}
	// Submission filters act before the queue: they combine.
	cfg := writeFile(t, dir, "filters.toml", "[max_size]\nprocs = 64\n")
	for _, o := range [][]string{{"--backfill", "off"}, {"--policy-exec", fcfs}} {
		args := append([]string{"run", "--quiet", "--plots=false", "--config", cfg, "--out", filepath.Join(dir, "filtered", o[0])}, o...)
		if code, _, stderr := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", o, code, stderr)
		}
	}
	if a, b := read(filepath.Join(dir, "filtered", "--backfill", "jobs.csv")), read(filepath.Join(dir, "filtered", "--policy-exec", "jobs.csv")); !bytes.Equal(a, b) {
		t.Error("with a submission filter, jobs.csv differs from --backfill off's")
	}
	// A scenario file.
	sc := writeFile(t, dir, "s.toml", "policy_exec = '"+easy+"'\npolicy_timeout = \"30s\"\nmax_jobs = 300\n")
	code, stdout, stderr := run(t, "run", sc)
	if code != 0 || !strings.Contains(stdout, "external(easy)") {
		t.Fatalf("scenario file: exit %d: %s%s", code, stdout, stderr)
	}
	// compare and sweep.
	code, stdout, stderr = run(t, "compare", "--max-jobs", "300", "--progress", "never", "--run", "py: --policy-exec "+easy, "--run", "go: --lookahead all")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "external(easy)") || !strings.Contains(stdout, "easy(lookahead=all)") {
		t.Errorf("compare's table lacks a policy:\n%s", stdout)
	}
	sw := filepath.Join(dir, "sweep")
	code, _, stderr = run(t, "sweep", "--max-jobs", "300", "--progress", "never", "-q", "--plots=false", "--param", "policy_exec="+fcfs+","+easy, "--out", sw)
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	if s := read(filepath.Join(sw, "sweep.csv")); !bytes.Contains(s, []byte("external(fcfs)")) || !bytes.Contains(s, []byte("external(easy)")) {
		t.Errorf("sweep.csv lacks a policy:\n%s", s)
	}
	// --policy-timeout is checked.
	if code, _, stderr := run(t, "run", "--policy-exec", fcfs, "--policy-timeout", "soon"); code != 2 || !strings.Contains(stderr, `--policy-timeout "soon"`) {
		t.Errorf("bad --policy-timeout: exit %d: %s", code, stderr)
	}
}

// TestPythonEnv runs the gym-style environment's Python tests, with this
// test binary as schedsim (TestMain runs it as the command when
// benchChildEnv is set).
func TestPythonEnv(t *testing.T) {
	py := simtest.Python3(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(t.TempDir(), "schedsim")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\n"+benchChildEnv+"=1 exec '"+self+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "discover", "-v", "-s", "tests")
	cmd.Dir = filepath.Join("..", "..", "policy", "external", "python")
	cmd.Env = append(os.Environ(), "SCHEDSIM="+wrapper)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("python3 -m unittest: %v", err)
	}
	if !bytes.Contains(out, []byte("Ran 13 tests")) || bytes.Contains(out, []byte("skipped")) {
		t.Errorf("the environment's tests did not all run")
	}
}

// TestPolicyExecSideBySide: compare and sweep refuse --policy-exec - and
// one --policy-log for several runs.
func TestPolicyExecSideBySide(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "p.log")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"compare", "--run", "a: --policy-exec -", "--run", "b: --backfill off"}, "--policy-exec -: the policy speaks over schedsim's own standard input and output, for one run at a time (schedsim run), not side by side"},
		{[]string{"compare", "--policy-log", log, "--run", "a: --policy-exec ./a", "--run", "b: --policy-exec ./b"}, "--policy-log " + log + ": several runs would write the same log; give each run its own"},
		{[]string{"sweep", "--policy-exec", "./a", "--policy-log", log, "--param", "max_jobs=10,20", "--out", filepath.Join(dir, "sw")}, "--policy-log " + log + ": several runs would write the same log; give each run its own"},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %s\nwant %s", tt.args, code, stderr, tt.want)
		}
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("a refused run created the policy log")
	}
}

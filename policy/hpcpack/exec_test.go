//go:build unix

package hpcpack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// script writes an executable shell script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func execJob() workload.Job {
	return workload.Job{ID: 9, Seq: 9, Submit: 100, Procs: 16, Run: 50, Estimate: 7200, User: 3, Licenses: "fluent:4"}
}

// TestExecSubmission runs a shell-script submission filter for every row of
// SPEC §6's submission table.
func TestExecSubmission(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		body    string // "" : no such program
		timeout time.Duration
		status  Status
		code    int
		fail    string // SubmissionFailure
		est     workload.Time
	}{
		{"0 as is", `grep -q 'State="Validating"' "$1" || exit 5; exit 0`, 0, Exited, 0, "", 7200},
		{"1 changed", `sed -i 's/RuntimeSeconds="[0-9]*"/RuntimeSeconds="60"/' "$1"; exit 1`, 0, Exited, 1, "", 60},
		{"other fails", `echo "too many cores" >&2; exit 2`, 0, Exited, 2, MsgSubmissionFailed, 7200},
		{"255 fails", `exit 255`, 0, Exited, 255, MsgSubmissionFailed, 7200},
		{"timeout", `sleep 30`, 300 * time.Millisecond, TimedOut, 0, MsgSubmissionTimedOut, 7200},
		{"timeout with a child", `sleep 30 & wait`, 300 * time.Millisecond, TimedOut, 0, MsgSubmissionTimedOut, 7200},
		{"not found", "", 0, NotFound, 0, MsgFilterNotFound, 7200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := filepath.Join(dir, "missing")
			if tt.body != "" {
				prog = script(t, dir, strings.ReplaceAll(tt.name, " ", "_"), tt.body)
			}
			var log strings.Builder
			x := &ExecFilter{FilterName: "f", Program: prog, Timeout: tt.timeout, Log: &log}
			defer x.Close()
			j := execJob()
			t0 := time.Now()
			r := x.FilterSubmission(&j)
			if el := time.Since(t0); el > 5*time.Second {
				t.Errorf("call took %v", el)
			}
			if r.Status != tt.status || (r.Status == Exited && r.Code != tt.code) {
				t.Errorf("result %+v, want status %v code %d", r, tt.status, tt.code)
			}
			if f := SubmissionFailure(r); f != tt.fail {
				t.Errorf("failure %q, want %q", f, tt.fail)
			}
			if j.Estimate != tt.est {
				t.Errorf("estimate %d, want %d", j.Estimate, tt.est)
			}
			if tt.code == 2 && (r.Message != "too many cores" || !strings.Contains(log.String(), "f job 9 submission: too many cores")) {
				t.Errorf("message %q, log %q", r.Message, log.String())
			}
		})
	}
}

// TestExecActivation runs a shell-script activation filter for every row of
// SPEC §6's activation table; the script checks its arguments first.
func TestExecActivation(t *testing.T) {
	dir := t.TempDir()
	check := `[ "$2" = 5 ] && [ "$3" = 2 ] && [ "$4" = 1 ] && [ "$5" = 16 ] && [ "$6" = extra ] && grep -q 'SoftwareLicense="fluent:4"' "$1" || exit 99` + "\n"
	tests := []struct {
		name    string
		body    string
		timeout time.Duration
		action  Action
	}{
		{"0 start", check + "exit 0", 0, Start},
		{"1 block", check + "exit 1", 0, BlockQueue},
		{"2 keep", check + "exit 2", 0, KeepResources},
		{"3 hold", check + "exit 3", 0, Hold},
		{"4 fail", check + "exit 4", 0, Fail},
		{"other keeps", check + "exit 17", 0, KeepResources},
		{"timeout keeps", "sleep 30", 300 * time.Millisecond, KeepResources},
		{"not found keeps", "", 0, KeepResources},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := filepath.Join(dir, "missing")
			if tt.body != "" {
				prog = script(t, dir, strings.ReplaceAll(tt.name, " ", "_"), tt.body)
			}
			x := &ExecFilter{FilterName: "f", Program: prog, Args: []string{"extra"}, Timeout: tt.timeout}
			defer x.Close()
			j := execJob()
			r := x.FilterActivation(&Activation{Job: &j, Now: 200, Pass: 5, Index: 2, Backfill: true, Resources: 16})
			if a := ActivationAction(r); a != tt.action {
				t.Errorf("result %+v: action %v, want %v", r, a, tt.action)
			}
		})
	}
}

// An activation filter that answers 3 may set Hold Until in the file.
func TestExecActivationHoldUntil(t *testing.T) {
	dir := t.TempDir()
	prog := script(t, dir, "hold", `sed -i 's/<Job /<Job HoldUntil="1\/1\/2000 1:00:00 AM" /' "$1"; exit 3`)
	x := &ExecFilter{FilterName: "f", Program: prog, Epoch: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
	defer x.Close()
	j := execJob()
	if r := x.FilterActivation(&Activation{Job: &j, Now: 200, Resources: 16}); ActivationAction(r) != Hold {
		t.Fatalf("result %+v", r)
	}
	if j.HoldUntil != 3600 {
		t.Errorf("HoldUntil %d, want 3600", j.HoldUntil)
	}
}

// A revert calls the program again, with SCHEDSIM_FILTER_REVERT=1.
func TestExecRevert(t *testing.T) {
	dir := t.TempDir()
	marks := filepath.Join(dir, "marks")
	prog := script(t, dir, "rev", `echo "$SCHEDSIM_FILTER_KIND $SCHEDSIM_FILTER_REVERT $SCHEDSIM_TIME" >> `+marks+`; exit 0`)
	x := &ExecFilter{FilterName: "f", Program: prog}
	defer x.Close()
	j := execJob()
	a := &Activation{Job: &j, Now: 200, Resources: 16}
	x.FilterActivation(a)
	x.RevertActivation(a)
	x.FilterSubmission(&j)
	x.RevertSubmission(&j)
	b, err := os.ReadFile(marks)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "activation 0 200\nactivation 1 200\nsubmission 0 100\nsubmission 1 100\n"; got != want {
		t.Errorf("calls:\n%s\nwant:\n%s", got, want)
	}
	if s := x.Stats(); s.Calls != 4 {
		t.Errorf("%d calls counted, want 4", s.Calls)
	}
}

// TestExecGrow runs a shell-script filter for both rows of SPEC §6's
// "running job (grow)" column, through Model.FilterGrow: the script sees
// a running job (State Running and StartTime on the job and its task,
// queue index -1, not a backfill) and the
// processor count it would grow to. 0 grows; 1 does not; 3 (undefined for
// a running job) does not either, and a Hold Until it writes is ignored.
func TestExecGrow(t *testing.T) {
	dir := t.TempDir()
	// The job file of a running job: HPC Pack's byte order mark, the job
	// and its task Running, both with the job's StartTime (100 s after the
	// epoch).
	check := `[ "$2" = 7 ] && [ "$3" = -1 ] && [ "$4" = 0 ] && [ "$5" = 32 ] && [ "$(head -c 3 "$1" | od -An -tx1 | tr -d ' ')" = efbbbf ] && ` +
		`grep -q '<Job [^>]*State="Running" [^>]*StartTime="1/1/2000 12:01:40 AM"' "$1" && ` +
		`grep -q '<Task [^>]*State="Running" [^>]*StartTime="1/1/2000 12:01:40 AM"' "$1" || exit 99` + "\n"
	tests := []struct {
		name string
		body string
		grow bool
	}{
		{"0 grows", check + "exit 0", true},
		{"1 does not grow", check + "exit 1", false},
		{"3 acts as 1, no hold", check + `sed -i 's/<Job /<Job HoldUntil="1\/1\/2000 1:00:00 AM" /' "$1"; exit 3`, false},
		{"arguments wrong", "exit 99", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := script(t, dir, strings.ReplaceAll(tt.name, " ", "_"), tt.body)
			x := &ExecFilter{FilterName: "f", Program: prog, Epoch: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
			defer x.Close()
			h := &Model{Activation: []ActivationFilter{x}}
			j := execJob()
			if got := h.FilterGrow(policy.GrowOffer{Job: &j, Now: 200, Pass: 7, Procs: 32, Start: 100}); got != tt.grow {
				t.Errorf("FilterGrow = %v, want %v", got, tt.grow)
			}
			if j.HoldUntil != 0 {
				t.Errorf("a growth call set Hold Until %d", j.HoldUntil)
			}
		})
	}
}

// TestExecChainRevertsAlways: when a chain of programs stops, every program
// that already answered is called again to undo, in reverse order, by
// default (SPEC §6, "Revert"); the program that stopped the chain is not.
// Each program appends "NAME REVERT" to a log.
func TestExecChainRevertsAlways(t *testing.T) {
	tests := []struct {
		name  string
		kind  string // submission or activation
		codes []int  // exit codes of programs a, b, c
		want  string // the log
		code  int    // the chain's result
	}{
		{"activation 1 at c", "activation", []int{0, 0, 1}, "a 0\nb 0\nc 0\nb 1\na 1\n", 1},
		{"activation 2 at b", "activation", []int{0, 2, 0}, "a 0\nb 0\na 1\n", 2},
		{"activation 3 at b", "activation", []int{0, 3, 0}, "a 0\nb 0\na 1\n", 3},
		{"activation 4 at c", "activation", []int{0, 0, 4}, "a 0\nb 0\nc 0\nb 1\na 1\n", 4},
		{"activation 9 at a", "activation", []int{9, 0, 0}, "a 0\n", 9},
		{"activation all 0", "activation", []int{0, 0, 0}, "a 0\nb 0\nc 0\n", 0},
		{"submission fail at c", "submission", []int{0, 0, 2}, "a 0\nb 0\nc 0\nb 1\na 1\n", 2},
		{"submission fail at b", "submission", []int{1, 5, 0}, "a 0\nb 0\na 1\n", 5},
		{"submission all pass", "submission", []int{1, 0, 1}, "a 0\nb 0\nc 0\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "log")
			var xs []*ExecFilter
			for k, name := range []string{"a", "b", "c"} {
				body := fmt.Sprintf(`echo "%s $SCHEDSIM_FILTER_REVERT" >> %s; [ "$SCHEDSIM_FILTER_REVERT" = 1 ] && exit 0; exit %d`, name, log, tt.codes[k])
				x := &ExecFilter{FilterName: name, Program: script(t, dir, name, body)}
				defer x.Close()
				xs = append(xs, x)
			}
			j := execJob()
			var r Result
			if tt.kind == "submission" {
				r, _, _ = SubmissionChain([]SubmissionFilter{xs[0], xs[1], xs[2]}, &j, nil)
			} else {
				r, _ = ActivationChain([]ActivationFilter{xs[0], xs[1], xs[2]}, &Activation{Job: &j, Now: 200, Resources: 16}, nil)
			}
			if r.Code != tt.code {
				t.Errorf("chain result %d, want %d", r.Code, tt.code)
			}
			b, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("calls:\n%s\nwant:\n%s", b, tt.want)
			}
		})
	}
}

// alive reports whether process pid still runs: it exists and is not a
// zombie (an orphan waits for its reaper, which may be slow or absent in a
// container). Without /proc it skips the test.
func alive(t *testing.T, pid int) bool {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("skipping: no /proc to tell whether a process runs")
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// readPid reads the process id a script wrote to path.
func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil || pid <= 0 {
		t.Fatalf("%s: %q is not a process id", path, b)
	}
	return pid
}

// waitDead polls until process pid no longer runs, for at most 5 s: the
// group was sent SIGKILL, and a signal is delivered asynchronously.
func waitDead(t *testing.T, pid int) bool {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !alive(t, pid) {
			return true
		}
	}
	return false
}

// TestExecBackgroundChild: a program that answers but leaves a child
// behind that holds its standard error (and output) open is recorded by
// its exit code, at once, and the child does not outlive the call; a
// program that times out takes its children with it.
func TestExecBackgroundChild(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		body    string // $PIDFILE receives the child's process id
		timeout time.Duration
		status  Status
		code    int
		msg     string
	}{
		{"exit 0", `sleep 30 & echo $! > "$PIDFILE"; exit 0`, 0, Exited, 0, ""},
		{"exit 2 with a message", `echo "no licence" >&2; sleep 30 & echo $! > "$PIDFILE"; exit 2`, 0, Exited, 2, "no licence"},
		{"child writes after", `(sleep 0.2; echo "late" >&2; sleep 30) & echo $! > "$PIDFILE"; echo "early" >&2; exit 1`, 0, Exited, 1, "early"},
		{"child holds stdout only", `sleep 30 2>/dev/null & echo $! > "$PIDFILE"; exit 4`, 0, Exited, 4, ""},
		{"timeout", `sleep 30 & echo $! > "$PIDFILE"; sleep 30`, 300 * time.Millisecond, TimedOut, 0, "no answer within 300ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pidFile := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".pid")
			prog := script(t, dir, strings.ReplaceAll(tt.name, " ", "_"), "PIDFILE="+pidFile+"\n"+tt.body)
			x := &ExecFilter{FilterName: "f", Program: prog, Timeout: tt.timeout}
			defer x.Close()
			j := execJob()
			t0 := time.Now()
			r := x.FilterSubmission(&j)
			if el := time.Since(t0); el > 3*time.Second {
				t.Errorf("call took %v", el)
			}
			if r.Status != tt.status || r.Code != tt.code || r.Message != tt.msg {
				t.Errorf("result %+v, want status %v code %d message %q", r, tt.status, tt.code, tt.msg)
			}
			pid := readPid(t, pidFile)
			if !waitDead(t, pid) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("the program's child %d outlived the call", pid)
			}
		})
	}
}

// TestExecEscapedChild: a child that leaves the program's process group
// (setsid) cannot be killed with it; if it keeps standard error open, the
// call still ends a short grace after the program exited, and the log says
// that standard error was not read to its end.
func TestExecEscapedChild(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("skipping: no setsid command")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	prog := script(t, dir, "escape", `setsid sh -c 'echo $$ > `+pidFile+`; exec sleep 30' & while [ ! -s `+pidFile+` ]; do :; done; echo "done" >&2; exit 0`)
	var log strings.Builder
	x := &ExecFilter{FilterName: "f", Program: prog, Log: &log}
	defer x.Close()
	j := execJob()
	t0 := time.Now()
	r := x.FilterSubmission(&j)
	el := time.Since(t0)
	pid := readPid(t, pidFile)
	syscall.Kill(pid, syscall.SIGKILL) // the test started it: end it
	if el > 3*time.Second {
		t.Errorf("call took %v", el)
	}
	if r.Status != Exited || r.Code != 0 || r.Message != "done" {
		t.Errorf("result %+v, want exit 0, message done", r)
	}
	if !strings.Contains(log.String(), "f job 9 submission: done\n") || !strings.Contains(log.String(), "standard error still open") {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestExecCannotStart: a program that cannot be started counts as not
// found (SPEC §6), and the message says why.
func TestExecCannotStart(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	noInterp := script(t, dir, "nointerp", "")
	if err := os.WriteFile(noInterp, []byte("#!/no/such/shell\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, prog, msg string
	}{
		{"missing", filepath.Join(dir, "missing"), filepath.Join(dir, "missing") + ": no such file or directory"},
		{"not executable", plain, plain + ": permission denied (not executable)"},
		{"directory", sub, sub + ": is a directory"},
		{"no interpreter", noInterp, noInterp + `: the interpreter on its "#!" line, /no/such/shell, does not exist`},
		{"not in PATH", "schedsim-no-such-filter", `schedsim-no-such-filter: not found in PATH`},
	}
	if os.Geteuid() == 0 {
		// root may read any file, but execute only one with an execute bit.
		t.Log("running as root")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := &ExecFilter{FilterName: "f", Program: tt.prog}
			defer x.Close()
			j := execJob()
			r := x.FilterSubmission(&j)
			if r.Status != NotFound || r.Message != tt.msg {
				t.Errorf("result %+v, want not found with message %q", r, tt.msg)
			}
		})
	}
}

// TestExecBarePathName: a program name without a slash is looked up in
// PATH, as a shell does.
func TestExecBarePathName(t *testing.T) {
	if _, err := exec.LookPath("true"); err != nil {
		t.Skip("skipping: no true command in PATH")
	}
	x := &ExecFilter{FilterName: "f", Program: "true"}
	defer x.Close()
	j := execJob()
	if r := x.FilterSubmission(&j); r.Status != Exited || r.Code != 0 {
		t.Errorf("result %+v, want exit 0", r)
	}
}

// TestExecStderrCap: standard error beyond the cap is dropped, and the log
// says how many bytes were; the message is still the program's last line.
func TestExecStderrCap(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		lines int    // lines of 99 digits and a newline
		last  string // a last line after them ("" for none)
	}{
		{"small", 600, "last words"},
		{"just under the cap", maxStderr / 100, ""},
		{"over the cap", 2000, "last words"},
		{"over the cap, no last line", 2000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do printf '%%099d\n' $i; i=$((i+1)); done >&2`, tt.lines)
			total, want, lines := tt.lines*100, fmt.Sprintf("%099d", tt.lines-1), tt.lines
			if tt.last != "" {
				body += "; echo '" + tt.last + "' >&2"
				total, want, lines = total+len(tt.last)+1, tt.last, lines+1
			}
			prog := script(t, dir, strings.NewReplacer(" ", "_", ",", "").Replace(tt.name), body+"; exit 2")
			var log strings.Builder
			x := &ExecFilter{FilterName: "f", Program: prog, Log: &log}
			defer x.Close()
			j := execJob()
			r := x.FilterSubmission(&j)
			if r.Status != Exited || r.Code != 2 || r.Message != want {
				t.Errorf("result %+v, want exit 2 with message %q", r, want)
			}
			dropped := max(0, total-maxStderr)
			note := fmt.Sprintf("f job 9 submission: (%d more bytes of standard error dropped: only the first %d are kept)\n", dropped, maxStderr)
			got := log.String()
			if strings.Contains(got, note) != (dropped > 0) {
				t.Errorf("log has the note %q: %v, want %v; it ends:\n%s", note, !(dropped > 0), dropped > 0, got[max(0, len(got)-300):])
			}
			if dropped == 0 && strings.Count(got, "\n") != lines {
				t.Errorf("log has %d lines, want %d", strings.Count(got, "\n"), lines)
			}
			if dropped > 0 && len(got) > maxStderr+(lines+2)*len("f job 9 submission: ")+len(note) {
				t.Errorf("log has %d bytes: more than the cap kept", len(got))
			}
		})
	}
}

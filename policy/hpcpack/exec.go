package hpcpack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// DefaultFilterTimeout is HPC Pack's default filter timeout.
const DefaultFilterTimeout = 15 * time.Second

// ExecFilter is a filter program, run as HPC Pack runs a cluster-wide
// filter: an executable called with the path of a job XML file
// (AppendJobXML). Its exit code is its result. It can serve as a
// submission filter and as an activation filter.
//
// As a submission filter it is called as
//
//	PROGRAM JOBFILE ARGS…
//
// with the job in state Validating; when it exits with 1 the file is read
// back and the properties it changed are applied to the job (ApplyJobXML).
// As an activation filter it is called as
//
//	PROGRAM JOBFILE PASS INDEX BACKFILL RESOURCES ARGS…
//
// (BACKFILL is 1 or 0) with the job in state Queued; when it exits with 3
// and changed HoldUntil in the file, the job is held until then. The
// environment carries SCHEDSIM_FILTER_KIND (submission or activation),
// SCHEDSIM_FILTER_REVERT (1 when called to undo, see below) and
// SCHEDSIM_TIME (the simulated instant, seconds).
//
// A program that does not answer within Timeout is killed (its whole
// process group, on Unix) and the result is TimedOut; one that cannot be
// started (missing, not executable) gives NotFound. A program killed by a
// signal exits with code -1. What it writes to standard error goes to Log,
// each line prefixed with the filter's name and the job; its last line is
// the result's message. Standard output is discarded.
//
// When a later filter of the chain stops it, the program is called again to
// undo what it did (RevertSubmission, RevertActivation), as HPC Pack calls
// every filter that ran (SPEC §6): with the same arguments and
// SCHEDSIM_FILTER_REVERT=1; that call's exit code is ignored, and a program
// with nothing to undo should exit at once.
//
// Only the exit code (and the file, for a changed job) decides; the wall
// time a program takes matters only against Timeout. Calling a program is
// I/O: it happens behind the filter interfaces, outside the engine's core.
type ExecFilter struct {
	// FilterName names the filter in records (Name).
	FilterName string
	// Program is the executable: a path, or a name looked up in PATH.
	Program string
	// Args are passed after the arguments above.
	Args []string
	// Timeout is the wall-clock limit of a call (0: DefaultFilterTimeout).
	Timeout time.Duration
	// Epoch is the wall-clock instant of simulated time 0, for the times
	// in the job XML.
	Epoch time.Time
	// Log receives the program's standard error (nil: discarded). Writes
	// are whole lines.
	Log io.Writer

	dir    string
	buf    []byte
	stderr bytes.Buffer
	stats  ExecStats
}

// ExecStats counts an ExecFilter's calls and the wall time they took.
type ExecStats struct {
	Calls int64
	Wall  time.Duration
}

var (
	_ SubmissionFilter = (*ExecFilter)(nil)
	_ ActivationFilter = (*ExecFilter)(nil)
	_ io.Closer        = (*ExecFilter)(nil)
)

// Name implements SubmissionFilter and ActivationFilter.
func (x *ExecFilter) Name() string { return x.FilterName }

// Stats returns the calls made so far and their wall time.
func (x *ExecFilter) Stats() ExecStats { return x.stats }

// Close removes the directory of the job files.
func (x *ExecFilter) Close() error {
	if x.dir == "" {
		return nil
	}
	err := os.RemoveAll(x.dir)
	x.dir = ""
	return err
}

// jobFile writes j as job XML into the filter's file and returns its path.
func (x *ExecFilter) jobFile(j *workload.Job, st JobXMLStatus) (string, error) {
	if x.dir == "" {
		d, err := os.MkdirTemp("", "schedsim-filter-")
		if err != nil {
			return "", err
		}
		x.dir = d
	}
	x.buf = AppendJobXML(x.buf[:0], j, st, x.Epoch)
	path := filepath.Join(x.dir, "job.xml")
	return path, os.WriteFile(path, x.buf, 0o644)
}

// FilterSubmission implements SubmissionFilter.
func (x *ExecFilter) FilterSubmission(j *workload.Job) Result {
	path, err := x.jobFile(j, JobXMLStatus{State: XMLValidating})
	if err != nil {
		return Result{Status: NotFound, Message: "cannot write the job file: " + err.Error()}
	}
	r := x.run(j, "submission", false, j.Submit, path)
	if r.Status != Exited || r.Code != SubmitChanged {
		return r
	}
	if err := x.readBack(j, path); err != nil {
		return Exit(SubmitFail, "job XML changed by the filter: "+err.Error())
	}
	return r
}

// readBack applies to j what the program changed in the file at path.
func (x *ExecFilter) readBack(j *workload.Job, path string) error {
	orig, err := ParseJobXML(bytes.NewReader(x.buf))
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	changed, err := ParseJobXML(f)
	if err != nil {
		return err
	}
	_, err = ApplyJobXML(j, orig, changed, x.Epoch)
	return err
}

// RevertSubmission implements SubmissionFilter.
func (x *ExecFilter) RevertSubmission(j *workload.Job) {
	if path, err := x.jobFile(j, JobXMLStatus{State: XMLValidating}); err == nil {
		x.run(j, "submission", true, j.Submit, path)
	}
}

// activationArgs are the arguments after the job file.
func activationArgs(a *Activation) []string {
	b := "0"
	if a.Backfill {
		b = "1"
	}
	return []string{strconv.FormatInt(a.Pass, 10), strconv.Itoa(a.Index), b, strconv.Itoa(a.Resources)}
}

// FilterActivation implements ActivationFilter.
func (x *ExecFilter) FilterActivation(a *Activation) Result {
	j := a.Job
	path, err := x.jobFile(j, activationState(a))
	if err != nil {
		return Result{Status: NotFound, Message: "cannot write the job file: " + err.Error()}
	}
	r := x.run(j, "activation", false, a.Now, path, activationArgs(a)...)
	if r.Status == Exited && r.Code == ActivateHold && !a.Grow {
		// The filter may have set Hold Until.
		if orig, err := ParseJobXML(bytes.NewReader(x.buf)); err == nil {
			if f, err := os.Open(path); err == nil {
				changed, err := ParseJobXML(f)
				f.Close()
				if err == nil {
					v, ok := changed.Get("HoldUntil")
					w, okW := orig.Get("HoldUntil")
					if ok && (v != w || !okW) {
						if t, err := ParseJobXMLTime(x.Epoch, v); err == nil {
							j.HoldUntil = t
						}
					}
				}
			}
		}
	}
	return r
}

// RevertActivation implements ActivationFilter.
func (x *ExecFilter) RevertActivation(a *Activation) {
	if path, err := x.jobFile(a.Job, activationState(a)); err == nil {
		x.run(a.Job, "activation", true, a.Now, path, activationArgs(a)...)
	}
}

// activationState is the job file's status for a: Running since the job's
// start for a growth (whose queue index argument is -1), Queued for a
// start.
func activationState(a *Activation) JobXMLStatus {
	if a.Grow {
		return JobXMLStatus{State: XMLRunning, Start: a.Start}
	}
	return JobXMLStatus{State: XMLQueued}
}

// run runs the program on the job file at path with extra arguments.
func (x *ExecFilter) run(j *workload.Job, kind string, revert bool, now workload.Time, path string, extra ...string) Result {
	timeout := x.Timeout
	if timeout <= 0 {
		timeout = DefaultFilterTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := make([]string, 0, 1+len(extra)+len(x.Args))
	args = append(append(append(args, path), extra...), x.Args...)
	cmd := exec.CommandContext(ctx, x.Program, args...)
	rv := "0"
	if revert {
		rv = "1"
	}
	cmd.Env = append(os.Environ(), "SCHEDSIM_FILTER_KIND="+kind, "SCHEDSIM_FILTER_REVERT="+rv, "SCHEDSIM_TIME="+strconv.FormatInt(int64(now), 10))
	x.stderr.Reset()
	cmd.Stderr = &limitWriter{w: &x.stderr, n: 64 << 10}
	cmd.WaitDelay = time.Second
	killGroup(cmd)
	t0 := time.Now()
	err := cmd.Run()
	x.stats.Calls++
	x.stats.Wall += time.Since(t0)
	msg := x.logStderr(j, kind, revert)
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return Result{Status: TimedOut, Message: fmt.Sprintf("no answer within %s", timeout)}
	case err == nil:
		return Exit(0, msg)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() < 0 && msg == "" {
			msg = ee.String()
		}
		return Exit(ee.ExitCode(), msg)
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return Result{Status: NotFound, Message: x.Program}
	}
	return Result{Status: NotFound, Message: err.Error()}
}

// logStderr writes what the program wrote to standard error to Log, a line
// at a time, and returns its last non-empty line.
func (x *ExecFilter) logStderr(j *workload.Job, kind string, revert bool) string {
	out := strings.TrimSpace(x.stderr.String())
	if out == "" {
		return ""
	}
	lines := strings.Split(out, "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if x.Log != nil {
		var b strings.Builder
		what := kind
		if revert {
			what += " revert"
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "%s job %d %s: %s\n", x.FilterName, j.ID, what, strings.TrimRight(l, "\r"))
		}
		io.WriteString(x.Log, b.String())
	}
	if len(last) > 200 {
		last = last[:200] + "…"
	}
	return last
}

// limitWriter keeps the first n bytes written and drops the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// SyncWriter serialises writes to W, for a log that several runs share.
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

// Write implements io.Writer.
func (s *SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.W.Write(p)
}

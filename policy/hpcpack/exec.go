package hpcpack

import (
	"bytes"
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
	"unicode"

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
// SCHEDSIM_TIME (the simulated instant, seconds; with a Tick above 1,
// seconds with the unit's decimals).
//
// The program runs in a process group of its own (on Unix). One that does
// not answer within Timeout is killed with its group and the result is
// TimedOut. When it exits, what is left of its group (a child started in
// the background) is killed, so no process of a call outlives it, and the
// result is its exit code even if such a child held its standard error
// open. One that cannot be started gives NotFound, with the reason in the
// message: "no such file or directory", "permission denied (not
// executable)", "is a directory", a missing "#!" interpreter, or "not found
// in PATH". A program killed by a signal exits with code -1. What it
// writes to standard error goes to Log, each line prefixed with the
// filter's name and the job, up to 64 KiB a call (the log then says how
// many bytes were dropped); its last line is the result's message.
// Standard output is discarded.
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
	// Program is the executable: a path (relative to the working
	// directory), or a name without a slash, looked up in PATH.
	Program string
	// Args are passed after the arguments above.
	Args []string
	// Timeout is the wall-clock limit of a call (0: DefaultFilterTimeout).
	Timeout time.Duration
	// Epoch is the wall-clock instant of simulated time 0, for the times
	// in the job XML.
	Epoch time.Time
	// Tick is the number of the engine's ticks in a second (0 or 1:
	// seconds). The job file and SCHEDSIM_TIME say seconds (see
	// JobXMLStatus.Tick); what the program changes is read back in ticks.
	Tick workload.Time
	// Log receives the program's standard error (nil: discarded). Writes
	// are whole lines.
	Log io.Writer

	dir    string
	buf    []byte
	rbuf   []byte
	stderr stderrBuf
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
	st.Tick = x.Tick
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
	_, err = ApplyJobXMLIn(j, orig, changed, x.Epoch, x.Tick)
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
						if t, err := ParseJobXMLTimeIn(x.Epoch, v, x.Tick); err == nil {
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
//
// The program runs in its own process group (on Unix). When it exits, or
// when its timeout kills it, what is left of its group (a child started in
// the background) is killed too, so that no process of the call outlives
// it. Its standard error is a pipe, read until every holder has closed it
// or for stderrGrace more once the program has exited, whichever comes
// first: a process that left the group cannot hold the call open.
func (x *ExecFilter) run(j *workload.Job, kind string, revert bool, now workload.Time, path string, extra ...string) Result {
	timeout := x.Timeout
	if timeout <= 0 {
		timeout = DefaultFilterTimeout
	}
	args := make([]string, 0, 1+len(extra)+len(x.Args))
	args = append(append(append(args, path), extra...), x.Args...)
	cmd := exec.Command(x.Program, args...)
	rv := "0"
	if revert {
		rv = "1"
	}
	cmd.Env = append(os.Environ(), "SCHEDSIM_FILTER_KIND="+kind, "SCHEDSIM_FILTER_REVERT="+rv, "SCHEDSIM_TIME="+workload.FormatTicks(now, int64(x.Tick)))
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{Status: NotFound, Message: "cannot make a pipe for its standard error: " + err.Error()}
	}
	cmd.Stderr = pw
	newGroup(cmd)
	t0 := time.Now()
	err = cmd.Start()
	pw.Close() // the program has its own copy
	if err != nil {
		pr.Close()
		x.stats.Calls++
		x.stats.Wall += time.Since(t0)
		return Result{Status: NotFound, Message: startFailure(x.Program, err)}
	}
	x.stderr.reset()
	if x.rbuf == nil {
		x.rbuf = make([]byte, 32<<10)
	}
	read := make(chan error, 1)
	go func() { read <- x.stderr.readFrom(pr, x.rbuf) }()
	timedOut, werr := waitGroup(cmd, timeout)
	pr.SetReadDeadline(time.Now().Add(stderrGrace))
	open := errors.Is(<-read, os.ErrDeadlineExceeded)
	if open {
		// What the program wrote before it exited is in the pipe: take it.
		drainNow(pr, x.rbuf, func(p []byte) { x.stderr.Write(p) })
	}
	pr.Close()
	x.stats.Calls++
	x.stats.Wall += time.Since(t0)
	msg := x.logStderr(j, kind, revert, open)
	if timedOut {
		return Result{Status: TimedOut, Message: fmt.Sprintf("no answer within %s", timeout)}
	}
	if werr == nil {
		return Exit(0, msg)
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ee.ExitCode() < 0 && msg == "" {
			msg = ee.String()
		}
		return Exit(ee.ExitCode(), msg)
	}
	return Result{Status: NotFound, Message: x.Program + ": " + werr.Error()}
}

// stderrGrace is how long a call keeps reading the program's standard error
// after the program exited and its process group was killed: a process
// that left the group may hold the pipe open indefinitely.
const stderrGrace = 500 * time.Millisecond

// waitGroup waits for cmd's process to exit, killing its process group if
// it has not within timeout, then kills what is left of the group
// (children started in the background) and reaps the process. It returns
// whether the timeout struck and cmd.Wait's error. On Linux the group is
// killed while the program is exited but not yet reaped, so the group's
// number cannot have been reused; elsewhere just after it is reaped.
func waitGroup(cmd *exec.Cmd, timeout time.Duration) (timedOut bool, err error) {
	p := cmd.Process
	var mu sync.Mutex
	exited := false
	timer := time.AfterFunc(timeout, func() {
		mu.Lock()
		defer mu.Unlock()
		if !exited {
			timedOut = true
			killGroup(p)
		}
	})
	done := func() {
		mu.Lock()
		exited = true
		mu.Unlock()
		timer.Stop()
		killGroup(p)
	}
	unreaped := waitUnreaped(p)
	if unreaped {
		done()
	}
	err = cmd.Wait()
	if !unreaped {
		done()
	}
	mu.Lock()
	defer mu.Unlock()
	return timedOut, err
}

// startFailure says why the program could not be started: err is what
// exec.Cmd.Start returned.
func startFailure(prog string, err error) string {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return prog + ": not found in PATH"
	case errors.Is(err, exec.ErrDot):
		return prog + ": found in PATH only as a file of the current directory, which is not searched for programs; give its path, ./" + prog
	}
	fi, serr := os.Stat(prog)
	switch {
	case errors.Is(err, fs.ErrPermission) && serr == nil && fi.IsDir():
		return prog + ": is a directory"
	case errors.Is(err, fs.ErrPermission) && serr == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 == 0:
		return prog + ": permission denied (not executable)"
	case errors.Is(err, fs.ErrNotExist) && serr == nil:
		// The file exists: what is missing is the interpreter it names,
		// or its loader.
		if interp := interpreter(prog); interp != "" {
			return fmt.Sprintf("%s: the interpreter on its \"#!\" line, %s, does not exist", prog, interp)
		}
		return prog + ": cannot be run: the loader it needs does not exist"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return prog + ": " + pe.Err.Error()
	}
	return prog + ": " + err.Error()
}

// interpreter returns the program named on the "#!" line that starts the
// file at path, or "".
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var b [256]byte
	n, _ := io.ReadFull(f, b[:])
	line, _, _ := bytes.Cut(b[:n], []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte("#!"))
	if !ok {
		return ""
	}
	if fields := strings.Fields(string(rest)); len(fields) > 0 {
		return fields[0]
	}
	return ""
}

// logStderr writes what the program wrote to standard error to Log, a line
// at a time, and returns its last non-empty line. The log also says how
// many bytes beyond maxStderr were dropped and, when open is true, that the
// pipe was still held open (by a process outside the program's group) when
// the call stopped reading it.
func (x *ExecFilter) logStderr(j *workload.Job, kind string, revert, open bool) string {
	e := &x.stderr
	out := strings.TrimSpace(string(e.head))
	var lines []string
	if out != "" {
		lines = strings.Split(out, "\n")
	}
	last := e.lastLine()
	if x.Log != nil && (len(lines) > 0 || e.dropped > 0 || open) {
		var b strings.Builder
		what := kind
		if revert {
			what += " revert"
		}
		for _, l := range lines {
			fmt.Fprintf(&b, "%s job %d %s: %s\n", x.FilterName, j.ID, what, strings.TrimRight(l, "\r"))
		}
		if e.dropped > 0 {
			fmt.Fprintf(&b, "%s job %d %s: (%d more bytes of standard error dropped: only the first %d are kept)\n", x.FilterName, j.ID, what, e.dropped, maxStderr)
		}
		if open {
			fmt.Fprintf(&b, "%s job %d %s: (standard error still open %s after the program exited, held by a process outside its process group: not read further)\n", x.FilterName, j.ID, what, stderrGrace)
		}
		io.WriteString(x.Log, b.String())
	}
	if len(last) > 200 {
		last = last[:200] + "…"
	}
	return last
}

// maxStderr is how much of a call's standard error is kept (and logged);
// the log says how many bytes more were dropped.
const maxStderr = 64 << 10

// stderrTail is how many of the last bytes of standard error a call keeps
// once it drops some, to find the program's last line.
const stderrTail = 4 << 10

// stderrBuf keeps the first maxStderr bytes of a program's standard error,
// counts the bytes beyond, and keeps the last stderrTail of them.
type stderrBuf struct {
	head    []byte
	tail    []byte
	dropped int64
}

func (e *stderrBuf) reset() {
	e.head, e.tail, e.dropped = e.head[:0], e.tail[:0], 0
}

// Write implements io.Writer; it keeps what it can and never fails.
func (e *stderrBuf) Write(p []byte) (int, error) {
	n := len(p)
	if k := min(len(p), maxStderr-len(e.head)); k > 0 {
		e.head = append(e.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	e.dropped += int64(len(p))
	if len(p) >= stderrTail {
		e.tail = append(e.tail[:0], p[len(p)-stderrTail:]...)
		return n, nil
	}
	if over := len(e.tail) + len(p) - stderrTail; over > 0 {
		e.tail = e.tail[:copy(e.tail, e.tail[over:])]
	}
	e.tail = append(e.tail, p...)
	return n, nil
}

// readFrom reads r into e, using buf, until the end (nil) or an error.
func (e *stderrBuf) readFrom(r io.Reader, buf []byte) error {
	for {
		n, err := r.Read(buf)
		e.Write(buf[:n])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lastLine returns the last non-empty line of standard error. When bytes
// were dropped and hold more than white space, it is found in the tail kept
// of them; a line that began before that tail is shown as "…" and its end.
func (e *stderrBuf) lastLine() string {
	t := bytes.TrimRightFunc(e.tail, unicode.IsSpace)
	if len(bytes.TrimSpace(t)) == 0 {
		out := strings.TrimSpace(string(e.head))
		return strings.TrimSpace(out[strings.LastIndexByte(out, '\n')+1:])
	}
	if i := bytes.LastIndexByte(t, '\n'); i >= 0 {
		return strings.TrimSpace(string(t[i+1:]))
	}
	if e.dropped > int64(len(e.tail)) {
		return "…" + strings.TrimSpace(string(t))
	}
	// The tail holds every byte dropped: the line began in the head.
	h := e.head[bytes.LastIndexByte(e.head, '\n')+1:]
	return strings.TrimSpace(string(h) + string(t))
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

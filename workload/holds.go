package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Holds are release times of jobs, by job number: a job may not start
// before its time (its Hold Until), in seconds from the trace's start.
// schedsim infer writes them for the jobs a log shows held by something
// it does not record (dependencies, user holds); a scenario names the file
// with holds = "FILE".
type Holds map[int64]Time

// ErrHolds is the error a bad holds file wraps.
var ErrHolds = errors.New("bad holds file")

// ParseHolds reads a holds file: one job a line, "JOB HOLD_UNTIL" — the
// job number (SWF field 1) and the time it may start at the earliest, in
// whole seconds from the trace's start — separated by spaces or tabs;
// blank lines and lines starting with # are skipped. A job named twice, a
// negative or non-integer number, or a line with other than two fields is
// a *ParseError naming path, the line and the column.
func ParseHolds(r io.Reader, path string) (Holds, error) {
	h := Holds{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var line int64
	bad := func(col, format string, a ...any) error {
		return &ParseError{Path: path, Line: line, Column: col, Err: fmt.Errorf("%w: "+format, append([]any{ErrHolds}, a...)...)}
	}
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		f := strings.Fields(s)
		if len(f) != 2 {
			return nil, bad("", "want two fields, JOB HOLD_UNTIL, got %d", len(f))
		}
		id, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || id < 0 {
			return nil, bad("job", "%q is not a job number", f[0])
		}
		at, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || at < 0 || Time(at) > MaxTime {
			return nil, bad("hold_until", "%q: want whole seconds from the trace's start, 0 to %d", f[1], MaxTime)
		}
		if _, dup := h[id]; dup {
			return nil, bad("job", "job %d is held twice", id)
		}
		h[id] = Time(at)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Path: path, Line: line + 1, Err: err}
	}
	return h, nil
}

// ReadHolds reads the holds file at path (see ParseHolds).
func ReadHolds(path string) (Holds, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseHolds(f, path)
}

// WithHolds returns a Reader that gives each job of rd that h names a Hold
// Until of at least h's time (in seconds; tick is the run's ticks per
// second, 1 for seconds). A job h holds until its submission or before is
// not changed. Jobs h names that rd never gives are ignored; Applied
// counts those it changed.
func WithHolds(rd Reader, h Holds, tick int64) *HoldReader {
	return &HoldReader{Reader: rd, holds: h, tick: max(tick, 1)}
}

// HoldReader is the Reader WithHolds returns.
type HoldReader struct {
	Reader
	holds Holds
	tick  int64
	// Applied counts the jobs given a later Hold Until.
	Applied int64
}

// Next reads the next job and applies its hold.
func (r *HoldReader) Next(j *Job) error {
	if err := r.Reader.Next(j); err != nil {
		return err
	}
	if at, ok := r.holds[j.ID]; ok {
		t := at
		if r.tick > 1 {
			t = Time(min(int64(at), int64(MaxTime)/r.tick) * r.tick)
		}
		if t > j.Submit && t > j.HoldUntil {
			j.HoldUntil = t
			r.Applied++
		}
	}
	return nil
}

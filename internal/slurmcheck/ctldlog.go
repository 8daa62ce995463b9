package slurmcheck

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CtldJob is what slurmctld's log says of one job, in milliseconds of the
// log's clock (-1: the log has no such line):
//
//   - Submit: "_slurm_rpc_submit_batch_job: JobId=N ..." (slurmctld took
//     the sbatch RPC);
//   - Start: "sched/backfill: _start_job: Started JobId=N ..." (the
//     backfill cycle allocated it; DebugFlags=Backfill) or "sched:
//     Allocate JobId=N ..." (the main scheduler did), By saying which;
//   - Done: "_job_complete: JobId=N done" (slurmd's completion of the
//     batch script reached slurmctld, which marked the job ended; from
//     then on a scheduling pass sees it ended).
//
// Line is the line of the job's first recognised message.
type CtldJob struct {
	ID                  int64
	Submit, Start, Done int64
	By                  string // "backfill" or "main" ("" without a start)
	Line                int
}

// The messages ParseCtldLog reads, each followed by the job's id.
const (
	ctldSubmit   = "_slurm_rpc_submit_batch_job: JobId="
	ctldBackfill = "sched/backfill: _start_job: Started JobId="
	ctldMain     = "sched: Allocate JobId="
	ctldDone     = "_job_complete: JobId="
)

// ParseCtldLog reads slurmctld's log (SlurmctldLogFile, with the default
// LogTimeFormat=iso8601_ms: "[2006-01-02T15:04:05.000] message") and
// returns its jobs in the order their submissions were logged (the order
// the check submitted them), then any job whose submission it does not
// show, by id. Lines of other messages are skipped; a recognised line
// without a millisecond timestamp or a job id, or a job started or done
// twice (the check requeues none), is an error naming the file and line.
func ParseCtldLog(r io.Reader, name string) ([]CtldJob, error) {
	byID := map[int64]int{}
	var jobs []CtldJob
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	ln := 0
	for sc.Scan() {
		ln++
		line := sc.Text()
		var kind, rest string
		for _, k := range []string{ctldSubmit, ctldBackfill, ctldMain, ctldDone} {
			if i := strings.Index(line, k); i >= 0 {
				kind, rest = k, line[i+len(k):]
				break
			}
		}
		if kind == "" {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, ln, fmt.Sprintf(format, a...))
		}
		if kind == ctldDone && !strings.HasSuffix(strings.TrimSpace(rest), " done") {
			continue // "_job_complete: JobId=N WEXITSTATUS 0" and the like
		}
		ms, err := ctldTime(line)
		if err != nil {
			return nil, bad("%v", err)
		}
		idText := rest
		if i := strings.IndexAny(rest, " \t"); i >= 0 {
			idText = rest[:i]
		}
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil || id < 1 {
			return nil, bad("JobId %q is not a job number", idText)
		}
		k, ok := byID[id]
		if !ok {
			k = len(jobs)
			byID[id] = k
			jobs = append(jobs, CtldJob{ID: id, Submit: -1, Start: -1, Done: -1, Line: ln})
		}
		j := &jobs[k]
		switch kind {
		case ctldSubmit:
			if j.Submit >= 0 {
				return nil, bad("job %d submitted twice", id)
			}
			j.Submit = ms
		case ctldBackfill, ctldMain:
			if j.Start >= 0 {
				return nil, bad("job %d started twice (line %d too)", id, j.Line)
			}
			j.Start, j.By = ms, "main"
			if kind == ctldBackfill {
				j.By = "backfill"
			}
		case ctldDone:
			if j.Done >= 0 {
				return nil, bad("job %d done twice", id)
			}
			j.Done = ms
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, ln+1, err)
	}
	// Submission order; a job whose submission the log lacks goes after,
	// by id.
	slices.SortStableFunc(jobs, func(a, b CtldJob) int {
		switch {
		case a.Submit >= 0 && b.Submit >= 0:
			return 0 // stable: the order of the submission lines
		case a.Submit >= 0:
			return -1
		case b.Submit >= 0:
			return 1
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return jobs, nil
}

// ctldTime reads the "[2006-01-02T15:04:05.000]" timestamp that starts a
// line of slurmctld's log, as milliseconds of the Unix clock read as UTC
// (only differences are used).
func ctldTime(line string) (int64, error) {
	end := strings.IndexByte(line, ']')
	if !strings.HasPrefix(line, "[") || end < 0 {
		return 0, fmt.Errorf("no [timestamp] at the start of the line")
	}
	ts := line[1:end]
	t, err := time.ParseInLocation("2006-01-02T15:04:05.000", ts, time.UTC)
	if err != nil {
		return 0, fmt.Errorf("timestamp %q: want YYYY-MM-DDTHH:MM:SS.mmm (LogTimeFormat=iso8601_ms, slurmctld's default)", ts)
	}
	return t.UnixMilli(), nil
}

// EndLatency is how long after its start plus its sleep a job's end
// reached slurmctld, measured on one run's log: for each job the log shows
// started and done, Done − Start − its sleep. Median is the median of
// those (the mean of the two middle ones for an even count), in
// microseconds; Min and Max bound them, in milliseconds; Jobs counts them
// and Backfill those the backfill cycle started.
type EndLatency struct {
	Median         int64 // µs
	Min, Max       int64 // ms
	Jobs, Backfill int
}

// MeasureEndLatency measures the end latency of a run from its log's jobs
// (in submission order, as ParseCtldLog returns them) and the sleeps the
// check submitted, in seconds, in the same order: the i-th submitted job
// ran "sleep sleeps[i]". The counts must agree; jobs the log does not show
// both started and done are left out, and at least one must remain.
func MeasureEndLatency(jobs []CtldJob, sleeps []int64) (EndLatency, error) {
	if len(jobs) != len(sleeps) {
		return EndLatency{}, fmt.Errorf("the log has %d jobs, the workload %d", len(jobs), len(sleeps))
	}
	var l EndLatency
	var ms []int64
	for i, j := range jobs {
		if j.Submit < 0 {
			return EndLatency{}, fmt.Errorf("job %d: the log shows no submission, so it cannot be matched with the workload", j.ID)
		}
		if j.Start < 0 || j.Done < 0 {
			continue
		}
		d := j.Done - j.Start - sleeps[i]*1000
		ms = append(ms, d)
		if j.By == "backfill" {
			l.Backfill++
		}
	}
	if len(ms) == 0 {
		return EndLatency{}, fmt.Errorf("the log shows no job both started and done (DebugFlags=Backfill logs the backfill cycle's starts)")
	}
	slices.Sort(ms)
	n := len(ms)
	l.Jobs, l.Min, l.Max = n, ms[0], ms[n-1]
	if n%2 == 1 {
		l.Median = ms[n/2] * 1000
	} else {
		l.Median = (ms[n/2-1] + ms[n/2]) * 500
	}
	return l, nil
}

// Flag is the value to give schedsim's --bf-end-latency: the median in
// microseconds, at least 1 µs (the option's least value).
func (l EndLatency) Flag() string {
	return strconv.FormatInt(max(l.Median, 1), 10) + "us"
}

// String says what was measured, for the check's output.
func (l EndLatency) String() string {
	return fmt.Sprintf("end latency %s ms: median over %d jobs (%d started by backfill) of slurmctld.log's "+
		"\"_job_complete: JobId=N done\" - its start - its sleep; min %d ms, max %d ms",
		strconv.FormatFloat(float64(l.Median)/1000, 'f', -1, 64), l.Jobs, l.Backfill, l.Min, l.Max)
}

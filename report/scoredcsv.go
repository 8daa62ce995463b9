package report

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
)

// scoredCSVColumns are the columns NewScoreDJobsCSV adds after Batsim's.
const scoredCSVColumns = ",queue,demotions,suspensions,cpu_time,end_reason,mem_limit_kb,mem_kb_per_host,disk_limit_kb,stints_ms\n"

// NewScoreDJobsCSV returns a JobsCSV for a SCore-D run (sim.ScoreD): Batsim's
// columns, then queue (the queue the job ended in), demotions (moves to a
// lower queue at its residence time), suspensions (preemptions, and holds
// by a deactivated queue), cpu_time (CPU time received, whole seconds) and
// end_reason (why a job was killed or rejected; empty for a completed job),
// mem_limit_kb and disk_limit_kb (the job's limits on each host, 0 for
// none), mem_kb_per_host (its recorded memory use on one host, 0 for
// unknown) and stints_ms (sim.Record.Stints: when it held processors, in
// which queue and row, see AppendStints), which `schedsim verify` checks.
// Runs without SCore-D queues write NewJobsCSV's columns only.
func NewScoreDJobsCSV(w io.Writer, workloadName string) *JobsCSV {
	c := newJobsCSV(w, workloadName)
	c.scored = true
	c.buf = append(c.buf, jobsCSVHeader[:len(jobsCSVHeader)-1]+scoredCSVColumns...)
	return c
}

// appendScoreD appends the SCore-D columns of r's row (for a c that has
// them).
func (c *JobsCSV) appendScoreD(b []byte, r *sim.Record) []byte {
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Queue), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Demotions), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Suspensions), 10)
	b = append(b, ',')
	if c.tick > 1 {
		b = AppendTicks(b, int64(r.CPUTime), c.tick) // seconds with the unit's decimals
	} else {
		b = strconv.AppendInt(b, int64(r.CPUTime), 10)
	}
	b = append(b, ',')
	if r.State != sim.Completed {
		b = appendField(b, r.Reason)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, r.MemLimitKB, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.MemKBPerHost, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.DiskLimitKB, 10)
	b = append(b, ',')
	start := len(b)
	b = AppendStints(b, r.Stints, r.StintAllocs)
	if bytes.IndexByte(b[start:], ',') >= 0 {
		// Processors of several ranges (a run with node events): the
		// field is quoted, as CSV wants; it holds no quote.
		b = append(b, 0)
		copy(b[start+1:], b[start:])
		b[start] = '"'
		b = append(b, '"')
	}
	return b
}

// AppendStints appends stints as jobs.csv's stints_ms writes them: one
// word per stint, separated by spaces, FROM-TO:QUEUE:ROW in milliseconds,
// ROW being x for an exclusive job (it holds its processors in every row),
// then, in a run with node events, @ and its processors (allocs[i], from
// sim.Record.StintAllocs, ranges joined by commas: @0-3,8; allocs is nil
// without), with a final ! when the job gave its memory and disk limits
// back at the stint's end (requeued). ParseStints reads them.
func AppendStints(b []byte, stints []sim.Stint, allocs [][]cluster.Range) []byte {
	for i, st := range stints {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, st.FromMs, 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, st.ToMs, 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(st.Queue), 10)
		b = append(b, ':')
		if st.Row < 0 {
			b = append(b, 'x')
		} else {
			b = strconv.AppendInt(b, int64(st.Row), 10)
		}
		if i < len(allocs) && len(allocs[i]) > 0 {
			b = append(b, '@')
			b = append(b, formatRangesComma(allocs[i])...)
		}
		if st.Released {
			b = append(b, '!')
		}
	}
	return b
}

// ParseStints reads a stints_ms field (AppendStints): the stints and, if
// any stint names its processors, every stint's (nil for one that does
// not). A malformed word, a stint that ends before it starts, or stints
// out of order or overlapping are errors naming the word.
func ParseStints(field string) ([]sim.Stint, [][]cluster.Range, error) {
	var out []sim.Stint
	var allocs [][]cluster.Range
	named := false
	for _, w := range strings.Fields(field) {
		bad := func(why string) error { return fmt.Errorf("stint %q: %s", w, why) }
		var st sim.Stint
		body, released := strings.CutSuffix(w, "!")
		st.Released = released
		body, alloc, hasAlloc := strings.Cut(body, "@")
		var rs []cluster.Range
		if hasAlloc {
			var err error
			if rs, err = cluster.ParseRanges(strings.ReplaceAll(alloc, ",", " ")); err != nil || len(rs) == 0 {
				return nil, nil, bad("processors are not a list of numbers and ranges (0-3,8)")
			}
			named = true
		}
		span, rest, ok := strings.Cut(body, ":")
		q, row, ok2 := strings.Cut(rest, ":")
		from, to, ok3 := strings.Cut(span, "-")
		if !ok || !ok2 || !ok3 {
			return nil, nil, bad("want FROM-TO:QUEUE:ROW")
		}
		var err error
		if st.FromMs, err = strconv.ParseInt(from, 10, 64); err != nil || st.FromMs < 0 {
			return nil, nil, bad("start is not a number of milliseconds")
		}
		if st.ToMs, err = strconv.ParseInt(to, 10, 64); err != nil || st.ToMs < st.FromMs {
			return nil, nil, bad("end is not a number of milliseconds at or after the start")
		}
		if st.Queue, err = strconv.Atoi(q); err != nil || st.Queue < 0 || st.Queue > 1<<20 {
			return nil, nil, bad("queue is not a queue number")
		}
		if row == "x" {
			st.Row = -1
		} else if st.Row, err = strconv.Atoi(row); err != nil || st.Row < 0 || st.Row > 1<<20 {
			return nil, nil, bad("row is neither x nor a row number")
		}
		if n := len(out); n > 0 && st.FromMs < out[n-1].ToMs {
			return nil, nil, bad("starts before the stint before it ends")
		}
		out = append(out, st)
		allocs = append(allocs, rs)
	}
	if !named {
		allocs = nil
	}
	return out, allocs, nil
}

// ResumeScoreDJobsCSV is ResumeJobsCSV for a run of SCore-D's queues: it
// goes on writing the rows of NewScoreDJobsCSV, without a header, after the
// part of a jobs.csv a checkpointed run had written.
func ResumeScoreDJobsCSV(w io.Writer, workloadName string) *JobsCSV {
	c := newJobsCSV(w, workloadName)
	c.scored = true
	return c
}

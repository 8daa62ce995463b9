package slurmcheck

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/workload"
)

// Times are one job's submit, start and end, in seconds from t0.
type Times struct {
	Submit, Start, End int64
	CPUs               int
}

// Side is one run of the workload: every job's times by job number.
type Side map[int64]Times

// LoadSide reads a run: an SWF trace (the real run: start = submit + field
// 3, end = start + field 4) or a result directory of schedsim run --out
// (its jobs.csv or jobs.parquet).
func LoadSide(path string) (Side, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	s := Side{}
	if st.IsDir() {
		tab, err := report.FindJobTable(path)
		if err != nil {
			return nil, err
		}
		err = report.ReadJobTable(tab, func(where string, r *report.JobRow) error {
			if !r.Ran {
				return fmt.Errorf("%s: job %d did not run (%s)", where, r.ID, r.State)
			}
			if _, dup := s[r.ID]; dup {
				return fmt.Errorf("%s: job_id %d appears twice", where, r.ID)
			}
			s[r.ID] = Times{Submit: int64(r.Submit), Start: int64(r.Start), End: int64(r.End), CPUs: int(r.Procs)}
			return nil
		})
		return s, err
	}
	rd, err := workload.Open(path, workload.Rules{}, workload.Raw())
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var j workload.Job
	for {
		err := rd.Next(&j)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if j.RawWait < 0 || j.RawRun < 0 {
			return nil, fmt.Errorf("%s: job %d: no recorded wait or run time (fields 3 and 4)", path, j.ID)
		}
		if _, dup := s[j.ID]; dup {
			return nil, fmt.Errorf("%s: job %d appears twice", path, j.ID)
		}
		start := int64(j.Submit) + int64(j.RawWait)
		s[j.ID] = Times{Submit: int64(j.Submit), Start: start, End: start + int64(j.RawRun), CPUs: j.Procs}
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("%s: no job", path)
	}
	return s, nil
}

// JobDiff is one job's start in both runs.
type JobDiff struct {
	ID                      int64
	CPUs                    int
	Submit, RefStart, Start int64
	Diff                    int64 // Start - RefStart
}

// Comparison is the job-by-job comparison of a run with the reference run.
type Comparison struct {
	Jobs                             []JobDiff
	Equal, Within1, Within2, Within5 int
	MedianAbs, MaxAbs                int64
	RefMeanWait, MeanWait            float64
	RefMakespan, Makespan            int64
	// SubmitDiffer counts the jobs submitted at different times in the two
	// runs (two real runs of one workload on a busy machine: a late
	// sbatch); a replay of a run's trace has none.
	SubmitDiffer int
}

// Compare compares run with ref job by job; both must hold the same jobs.
func Compare(ref, run Side) (*Comparison, error) {
	ids := make([]int64, 0, len(ref))
	for id := range ref {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(run) != len(ref) {
		return nil, fmt.Errorf("the runs hold %d and %d jobs", len(ref), len(run))
	}
	c := &Comparison{}
	var abs []int64
	var refWait, wait int64
	first := int64(1) << 62
	var refLast, last int64
	for _, id := range ids {
		r := ref[id]
		s, ok := run[id]
		if !ok {
			return nil, fmt.Errorf("job %d is in one run only", id)
		}
		if s.Submit != r.Submit {
			c.SubmitDiffer++ // two real runs: sbatch was late in one
		}
		d := s.Start - r.Start
		c.Jobs = append(c.Jobs, JobDiff{ID: id, CPUs: r.CPUs, Submit: r.Submit, RefStart: r.Start, Start: s.Start, Diff: d})
		a := max(d, -d)
		abs = append(abs, a)
		if a == 0 {
			c.Equal++
		}
		if a <= 1 {
			c.Within1++
		}
		if a <= 2 {
			c.Within2++
		}
		if a <= 5 {
			c.Within5++
		}
		refWait += r.Start - r.Submit
		wait += s.Start - s.Submit
		first = min(first, r.Submit)
		refLast, last = max(refLast, r.End), max(last, s.End)
	}
	slices.Sort(abs)
	n := len(abs)
	c.MaxAbs = abs[n-1]
	if n%2 == 1 {
		c.MedianAbs = abs[n/2]
	} else {
		c.MedianAbs = (abs[n/2-1] + abs[n/2]) / 2
	}
	c.RefMeanWait, c.MeanWait = float64(refWait)/float64(n), float64(wait)/float64(n)
	c.RefMakespan, c.Makespan = refLast-first, last-first
	return c, nil
}

// Gate is issue 28's done-when gate: the makespan within MakespanRel of the
// reference's, the mean wait within WaitRel, and at least StartFrac of the
// jobs starting within StartSec seconds of their reference start.
type Gate struct {
	MakespanRel, WaitRel, StartFrac float64
	StartSec                        int64
}

// IssueGate is the gate of issue 28: ±5 % makespan, ±20 % mean wait, 90 %
// of the starts within 2 s.
var IssueGate = Gate{MakespanRel: 0.05, WaitRel: 0.20, StartFrac: 0.90, StartSec: 2}

// Check returns the gate's failures, none when c passes.
func (g Gate) Check(c *Comparison) []string {
	var fails []string
	rel := func(a, b float64) float64 {
		if b == 0 {
			if a == 0 {
				return 0
			}
			return 1e9
		}
		d := (a - b) / b
		return max(d, -d)
	}
	if r := rel(float64(c.Makespan), float64(c.RefMakespan)); r > g.MakespanRel {
		fails = append(fails, fmt.Sprintf("makespan %d s vs %d s: %.1f %% off, want within %.0f %%", c.Makespan, c.RefMakespan, 100*r, 100*g.MakespanRel))
	}
	if r := rel(c.MeanWait, c.RefMeanWait); r > g.WaitRel {
		fails = append(fails, fmt.Sprintf("mean wait %.1f s vs %.1f s: %.1f %% off, want within %.0f %%", c.MeanWait, c.RefMeanWait, 100*r, 100*g.WaitRel))
	}
	within := 0
	for _, j := range c.Jobs {
		if max(j.Diff, -j.Diff) <= g.StartSec {
			within++
		}
	}
	if n := len(c.Jobs); float64(within) < g.StartFrac*float64(n) {
		fails = append(fails, fmt.Sprintf("%d of %d starts within %d s of the reference, want at least %.0f %%", within, n, g.StartSec, 100*g.StartFrac))
	}
	return fails
}

// WriteTable writes the per-job table and the summary, the reference run
// named refName and the other name.
func (c *Comparison) WriteTable(w io.Writer, refName, name string) error {
	ew := &errWriter{w: w}
	ew.printf("%4s %4s %7s %9s %9s %6s\n", "job", "cpus", "submit", refName, name, "diff")
	for _, j := range c.Jobs {
		ew.printf("%4d %4d %7d %9d %9d %+6d\n", j.ID, j.CPUs, j.Submit, j.RefStart, j.Start, j.Diff)
	}
	n := len(c.Jobs)
	ew.printf("starts of %d jobs: %d equal, %d within 1 s, %d within 2 s, %d within 5 s; |diff| median %d s, max %d s\n",
		n, c.Equal, c.Within1, c.Within2, c.Within5, c.MedianAbs, c.MaxAbs)
	ew.printf("mean wait: %s %.1f s, %s %.1f s; makespan: %s %d s, %s %d s\n",
		refName, c.RefMeanWait, name, c.MeanWait, refName, c.RefMakespan, name, c.Makespan)
	if c.SubmitDiffer > 0 {
		ew.printf("%d jobs were submitted at another second in the two runs\n", c.SubmitDiffer)
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}

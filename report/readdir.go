package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// ErrNotResultDir is returned by ReadRunDir for a directory without
// summary.json or a per-job table (jobs.csv or jobs.parquet).
var ErrNotResultDir = errors.New("report: not a result directory (schedsim run --out writes summary.json and jobs.csv or jobs.parquet)")

// ReadRunDir reads a result directory written by schedsim run --out: the
// summary from summary.json, and from the per-job table (jobs.csv, else
// jobs.parquet; see FindJobTable and ReadJobTable) the waits and the time
// series, rebuilt from each job's submission, start, end and processor
// count (so it equals the series the run recorded, bucketed with at most
// maxPoints points). The Run is named dir.
func ReadRunDir(dir string, maxPoints int) (*Run, error) {
	r := &Run{Name: filepath.Clean(dir)}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotResultDir)
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &r.Summary); err != nil {
		return nil, fmt.Errorf("report: %s: %w", filepath.Join(dir, "summary.json"), err)
	}
	if r.Summary.Procs < 1 {
		return nil, fmt.Errorf("report: %s: no machine size (procs)", filepath.Join(dir, "summary.json"))
	}
	path, err := FindJobTable(dir)
	if err != nil {
		return nil, err
	}
	// A run in a finer unit (summary.json's time_unit) is read in its
	// ticks.
	switch r.Summary.TimeUnit {
	case "":
	case "ms":
		r.Tick = 1000
	case "us":
		r.Tick = 1_000_000
	default:
		return nil, fmt.Errorf("report: %s: time_unit %q: want ms or us", filepath.Join(dir, "summary.json"), r.Summary.TimeUnit)
	}
	var jobs []csvJob
	err = ReadJobTableIn(path, max(r.Tick, 1), func(where string, row *JobRow) error {
		j := csvJob{submit: row.Submit, procs: row.Procs, start: row.Start, end: row.End, rejected: !row.Ran}
		if !j.rejected && (j.start < j.submit || j.end < j.start) {
			return fmt.Errorf("%s: times out of order (submit %d, start %d, end %d)", where, j.submit, j.start, j.end)
		}
		jobs = append(jobs, j)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	for _, j := range jobs {
		if !j.rejected {
			r.Waits = append(r.Waits, int64(j.start-j.submit))
		}
	}
	slices.Sort(r.Waits)
	r.Series = seriesFromJobs(jobs, r.Summary.Procs, maxPoints)
	return r, nil
}

// csvJob is what the time series and the waits need of a per-job table's
// row.
type csvJob struct {
	submit, start, end workload.Time
	procs              int64
	rejected           bool // it never ran
}

// seriesFromJobs replays the jobs' submissions, starts and ends into a
// TimeSeries, sampling once after all the changes of each instant, as the
// engine does.
func seriesFromJobs(jobs []csvJob, procs, maxPoints int) *TimeSeries {
	type change struct {
		t workload.Time
		d Values
	}
	ch := make([]change, 0, 3*len(jobs))
	for _, j := range jobs {
		if j.rejected {
			ch = append(ch, change{t: j.submit}) // an instant with no change
			continue
		}
		ch = append(ch,
			change{t: j.submit, d: Values{Queued: 1, QueuedProcs: j.procs}},
			change{t: j.start, d: Values{Busy: j.procs, Running: 1, Queued: -1, QueuedProcs: -j.procs}},
			change{t: j.end, d: Values{Busy: -j.procs, Running: -1}})
	}
	slices.SortStableFunc(ch, func(a, b change) int { return int(min(max(a.t-b.t, -1), 1)) })
	ts := NewTimeSeries(procs, maxPoints)
	var cur Values
	for i := 0; i < len(ch); {
		t := ch[i].t
		for ; i < len(ch) && ch[i].t == t; i++ {
			for k := range cur {
				cur[k] += ch[i].d[k]
			}
		}
		ts.Sample(&sim.Sample{Time: t, Busy: int(cur[Busy]), Running: int(cur[Running]), Queued: int(cur[Queued]), QueuedProcs: cur[QueuedProcs]})
	}
	return ts
}

package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// ErrNotResultDir is returned by ReadRunDir for a directory without
// summary.json or jobs.csv.
var ErrNotResultDir = errors.New("report: not a result directory (schedsim run --out writes summary.json and jobs.csv)")

// ReadRunDir reads a result directory written by schedsim run --out: the
// summary from summary.json, and from jobs.csv the waits and the time series,
// rebuilt from each job's submission, start, end and processor count (so it
// equals the series the run recorded, bucketed with at most maxPoints
// points). The Run is named dir.
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
	f, err := os.Open(filepath.Join(dir, "jobs.csv"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotResultDir)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	jobs, err := readJobsCSV(f, filepath.Join(dir, "jobs.csv"))
	if err != nil {
		return nil, err
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

// csvJob is what the time series and the waits need of a jobs.csv row.
type csvJob struct {
	submit, start, end workload.Time
	procs              int64
	rejected           bool
}

// readJobsCSV reads the columns it needs from a jobs.csv, by header name.
func readJobsCSV(r io.Reader, path string) ([]csvJob, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("report: %s: reading the header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	need := []string{"submission_time", "requested_number_of_resources", "final_state", "starting_time", "finish_time"}
	idx := make([]int, len(need))
	for i, n := range need {
		c, ok := col[n]
		if !ok {
			return nil, fmt.Errorf("report: %s: no column %q", path, n)
		}
		idx[i] = c
	}
	var jobs []csvJob
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return jobs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("report: %s: %w", path, err)
		}
		var v [5]int64
		for i, c := range idx {
			if i == 2 {
				continue
			}
			if v[i], err = strconv.ParseInt(rec[c], 10, 64); err != nil {
				return nil, fmt.Errorf("report: %s:%d: column %s: %q is not an integer", path, line, need[i], rec[c])
			}
		}
		j := csvJob{submit: workload.Time(v[0]), procs: v[1], start: workload.Time(v[3]), end: workload.Time(v[4]),
			rejected: rec[idx[2]] == finalRejected || rec[idx[2]] == finalFailed || rec[idx[2]] == finalPending}
		if !j.rejected && (j.start < j.submit || j.end < j.start) {
			return nil, fmt.Errorf("report: %s:%d: times out of order (submit %d, start %d, end %d)", path, line, j.submit, j.start, j.end)
		}
		jobs = append(jobs, j)
	}
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

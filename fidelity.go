package schedsim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// FidelityOptions say what a fidelity comparison compares.
type FidelityOptions struct {
	// Recorded is the trace whose recorded waits (SWF field 3, or a
	// Parquet or sacct file's waits) are the truth: any trace schedsim
	// reads, read with the scenario's cleaning rules. "" takes the
	// scenario's own trace.
	Recorded string
	// Dir, when set, reads the simulated side from this result directory
	// (written by schedsim run --out: its jobs.csv or jobs.parquet and
	// summary.json) instead of simulating the scenario.
	Dir string
	// Tolerance is when a simulated wait counts as close to the recorded
	// one (the zero value: report.DefaultTolerance).
	Tolerance report.Tolerance
}

// simJob is what a comparison needs of a simulated job.
type simJob struct {
	submit, start, end workload.Time
	ran                bool
}

// simCollector keeps every simulated job's times by job number.
type simCollector map[int64]simJob

// Wants implements sim.Observer: the records, of which it reads the job's
// head only.
func (c simCollector) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds, JobHead: true} }

// Observe implements sim.Observer.
func (c simCollector) Observe(e *sim.Event) {
	r := e.Record
	ran := r.State != sim.Rejected && r.State != sim.Failed && r.State != sim.Pending
	c[r.Job.ID] = simJob{submit: r.Job.Submit, start: r.Start, end: r.End, ran: ran}
}

// Fidelity compares the waits the scenario's simulation gives (or the
// result directory fo.Dir holds) with the waits a log recorded, job by
// job: overall, per class, and week by week (report.Fidelity). Jobs the
// log gives no wait for, or the simulation did not run, are counted and
// skipped. An error in the scenario or its files is an *InputError.
func Fidelity(ctx context.Context, sc *Scenario, fo FidelityOptions, opt Options) (*report.Fidelity, error) {
	if fo.Tolerance == (report.Tolerance{}) {
		fo.Tolerance = report.DefaultTolerance
	}
	if fo.Tolerance.AbsSec < 0 || !(fo.Tolerance.Rel >= 0) {
		return nil, inputf("tolerance %d s, %v: want values of 0 or more", fo.Tolerance.AbsSec, fo.Tolerance.Rel)
	}
	sims := simCollector{}
	var policyName string
	if fo.Dir != "" {
		name, err := readSimulated(fo.Dir, sims)
		if err != nil {
			return nil, err
		}
		policyName = name
	} else {
		run := *sc
		run.Out, run.Plots = "", false
		opt.Observers = append(append([]sim.Observer(nil), opt.Observers...), sims)
		res, err := Run(ctx, &run, opt)
		if err != nil {
			return nil, err
		}
		policyName = res.Summary.Policy
	}
	if ctx != nil && ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	rec := *sc
	if fo.Recorded != "" {
		rec.Trace = fo.Recorded
	}
	rd, err := OpenTrace(&rec)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var jobs []report.FidelityJob
	var logJobs, unknown, notSim, notRun int
	var j workload.Job
	for {
		err := rd.Next(&j)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &InputError{err}
		}
		logJobs++
		if j.RawWait < 0 {
			unknown++
			continue
		}
		s, ok := sims[j.ID]
		switch {
		case !ok:
			notSim++
			continue
		case !s.ran:
			notRun++
			continue
		}
		req := workload.Time(workload.Unknown)
		if j.ReqTime > 0 {
			req = workload.Time(j.ReqTime + 0.5)
		}
		jobs = append(jobs, report.FidelityJob{
			ID: j.ID, Submit: j.Submit, Procs: j.Procs, ReqTime: req, Queue: j.Queue, User: j.User,
			RunSec: s.end - s.start, Recorded: workload.Time(j.RawWait + 0.5), Simulated: s.start - s.submit,
			Held: j.HoldUntil > j.Submit,
		})
	}
	cal, err := fidelityCalendar(rd.Header(), sc.TimeZone)
	if err != nil {
		return nil, err
	}
	f := report.NewFidelity(jobs, cal, fo.Tolerance)
	f.Trace = filepath.Base(rd.Path())
	f.Policy = policyName
	f.LogJobs, f.UnknownWait, f.NotSimulated, f.NotRun = logJobs, unknown, notSim, notRun
	return f, nil
}

// readSimulated reads a result directory's per-job table into sims and
// returns the policy its summary.json names.
func readSimulated(dir string, sims simCollector) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if errors.Is(err, os.ErrNotExist) {
		return "", &InputError{fmt.Errorf("%s: %w", dir, report.ErrNotResultDir)}
	}
	if err != nil {
		return "", err
	}
	var s struct {
		Policy string `json:"policy"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return "", inputf("%s: %v", filepath.Join(dir, "summary.json"), err)
	}
	path, err := report.FindJobTable(dir)
	if err != nil {
		return "", &InputError{err}
	}
	err = report.ReadJobTable(path, func(where string, row *report.JobRow) error {
		if _, dup := sims[row.ID]; dup {
			return fmt.Errorf("%s: job_id %d appears twice", where, row.ID)
		}
		sims[row.ID] = simJob{submit: row.Submit, start: row.Start, end: row.End, ran: row.Ran}
		return nil
	})
	if err != nil {
		return "", &InputError{err}
	}
	return s.Policy, nil
}

// fidelityCalendar returns the calendar of the months and weeks: the
// header's UnixStartTime in zone (an IANA name or a fixed offset
// "UTC+02:00"), else in the header's own zone; nil without a start time.
func fidelityCalendar(h *workload.Header, zone string) (*report.Calendar, error) {
	epoch, loc, ok := h.Calendar()
	if !ok {
		return nil, nil
	}
	if zone != "" {
		z, err := parseFidelityZone(zone)
		if err != nil {
			return nil, inputf("timezone: %v", err)
		}
		loc = z
	}
	return &report.Calendar{Epoch: epoch, Loc: loc}, nil
}

// parseFidelityZone returns the zone s names: an IANA name ("Europe/Stockholm"),
// "UTC", or a fixed offset from UTC written "UTC+02:00", "UTC-07:00" or
// "UTC+2" (a clock that is simply off).
func parseFidelityZone(s string) (*time.Location, error) {
	if rest, ok := strings.CutPrefix(s, "UTC"); ok && rest != "" {
		sign := 1
		switch rest[0] {
		case '+':
		case '-':
			sign = -1
		default:
			return nil, fmt.Errorf("%q: want UTC+HH:MM or UTC-HH:MM", s)
		}
		hh, mm, colon := strings.Cut(rest[1:], ":")
		h, err1 := strconv.Atoi(hh)
		m := 0
		var err2 error
		if colon {
			m, err2 = strconv.Atoi(mm)
		}
		if err1 != nil || err2 != nil || h < 0 || h > 14 || m < 0 || m > 59 || len(hh) == 0 || len(hh) > 2 || (colon && len(mm) != 2) {
			return nil, fmt.Errorf("%q: want UTC+HH:MM or UTC-HH:MM, at most 14 hours off", s)
		}
		return time.FixedZone(s, sign*(h*3600+m*60)), nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("%q is neither a time zone name (such as Europe/Stockholm) nor an offset (such as UTC+02:00)", s)
	}
	return loc, nil
}

// OpenTrace opens the scenario's trace with its cleaning rules and
// reading options (columns, time zone, Batsim speed), as a run reads it.
// An error in them or in the file is an *InputError.
func OpenTrace(sc *Scenario) (workload.Reader, error) {
	o := &runner{Scenario: sc}
	rules, err := o.rules()
	if err != nil {
		return nil, err
	}
	return o.openTrace(rules)
}

// WriteFidelity writes a comparison's files into dir (created if needed):
// fidelity.json, and with plots the figures fidelity_waits and
// fidelity_weekly (.svg, .png). Each file is written atomically. It returns
// what it wrote, for a message; when ctx is cancelled after the figures it
// returns ErrInterrupted.
func WriteFidelity(ctx context.Context, dir string, f *report.Fidelity, plots bool) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "fidelity.json")
	if err := report.WriteFileAtomic(path, func(w io.Writer) error { return report.WriteFidelityJSON(w, f) }); err != nil {
		return nil, err
	}
	if !plots {
		return []string{path}, nil
	}
	if _, err := report.RenderFigures(dir, func() []*report.Figure { return report.FidelityFigures(f) }); err != nil {
		return []string{path}, err
	}
	if ctx.Err() != nil {
		return []string{path}, ErrInterrupted
	}
	return []string{path, "fidelity_waits and fidelity_weekly (.svg, .png) in " + dir}, nil
}

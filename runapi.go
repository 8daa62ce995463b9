package schedsim

import (
	"cmp"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
)

// Options are how a run is carried out, beside what it simulates: none of
// them changes a result.
type Options struct {
	// Observers are given the events they want (sim.Observer.Wants),
	// after the built-in metrics and writers, on the same path as they
	// are: each job's submission, start, reservations, suspensions,
	// preemptions and requeues, resumptions, end or refusal, and the
	// instants' samples, in the engine's order, on a goroutine behind the
	// engine's (report.Async; e.g. a progress display, or a user's own
	// observer).
	Observers []sim.Observer
	// Warn receives warnings (nil: standard error).
	Warn io.Writer
	// FilterLog receives the standard error of HPC Pack filter programs
	// (nil: DIR/filters.log with an output directory, else standard
	// error).
	FilterLog io.Writer
	// Checkpoint saves the run's whole state to this file every
	// CheckpointEvery of simulated time (default 30d), so that a killed
	// run can go on with Resume.
	Checkpoint      string
	CheckpointEvery string
	// Resume continues the run saved in this checkpoint file. The
	// scenario must be the one saved (CheckpointScenario reads it).
	Resume string
}

// Run replays the scenario's trace under its policy. With sc.Out set it
// writes the per-job tables, summary.json and (with sc.Plots) the plots
// and report.html there, each file to a temporary name renamed when whole;
// without, it writes nothing. It returns the run's summary. Cancelling ctx
// stops the run with ErrInterrupted and leaves nothing half-written. An
// error in the scenario or its input files is an *InputError.
func Run(ctx context.Context, sc *Scenario, opt Options) (*Result, error) {
	o := &runner{Scenario: sc, opt: opt, ctx: ctx}
	if ctx != nil && ctx.Done() != nil {
		stop := new(atomic.Bool)
		defer context.AfterFunc(ctx, func() { stop.Store(true) })()
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		o.stop = stop
	}
	ck, err := newCheckpointer(opt.Checkpoint, opt.CheckpointEvery, opt.Resume, sc, sc.Trace, sc.NodeEvents, sc.SlurmConf, sc.Config)
	if err != nil {
		return nil, err
	}
	o.ck = ck
	if ck != nil && ck.from != nil && ck.from.Done {
		return o.finishDone()
	}
	if err := o.checkCombinations(); err != nil {
		return nil, err
	}
	tables, err := parseJobTables(sc.Format)
	if err != nil {
		return nil, err
	}
	if sc.GanttMaxJobs < 0 || sc.PageGanttMaxJobs < 0 {
		return nil, inputf("--gantt-max-jobs %d, --page-gantt-max-jobs %d: want a number of jobs, 0 or more", sc.GanttMaxJobs, sc.PageGanttMaxJobs)
	}
	if sc.Plots && sc.Out != "" {
		o.ganttMaxJobs = sc.GanttMaxJobs
		if o.ganttMaxJobs > 0 {
			o.pageGanttMaxJobs = min(sc.PageGanttMaxJobs, report.PageGanttMaxJobs)
		}
	}
	if sc.Out == "" {
		res, err := o.simulate(opt.Observers...)
		if err == nil && o.interrupted() {
			err = ErrInterrupted
		}
		if err != nil {
			o.ck.failed(err)
			return nil, err
		}
		o.ck.done()
		return res, nil
	}
	res, err := o.writeRun(tables, sc.Out)
	if err != nil {
		return nil, err
	}
	o.ck.done()
	return res, nil
}

// writeRun simulates and writes the outputs into the directory out: into
// a staging directory beside it, renamed into place when every file is
// whole (report.OutDir).
func (o *runner) writeRun(tables *jobTables, out string) (*Result, error) {
	var od *report.OutDir
	var err error
	if o.ck != nil && o.ck.from != nil && o.ck.from.JobsTemp != "" {
		od, err = report.ResumeOutDir(out, filepath.Dir(o.ck.from.JobsTemp))
		if err != nil {
			return nil, inputf("--resume: %v: %v", errCheckpoint, err)
		}
		// A kill may have come while a plot or summary.json was being
		// written: only the partial jobs.csv (or the whole one, renamed
		// from it) goes on.
		if err := od.Clean(filepath.Base(o.ck.from.JobsTemp), "jobs.csv", "filters.log"); err != nil {
			return nil, err
		}
	} else if od, err = report.CreateOutDir(out); err != nil {
		if errors.Is(err, report.ErrForeignFiles) {
			return nil, inputf("--out %v", err)
		}
		return nil, err
	}
	defer od.Abort()
	if o.ck != nil {
		od.KeepOnAbort() // a killed or interrupted run goes on there
		o.ck.outDir = od
	}
	final := out
	out = od.Path()
	if o.Config != "" && o.opt.FilterLog == nil {
		// Filter programs' standard error goes to DIR/filters.log,
		// which is removed if they wrote nothing.
		logPath := filepath.Join(out, "filters.log")
		var logFile *os.File
		if o.ck != nil {
			// A resumed run goes on with the log as it was at the
			// checkpoint.
			logFile, err = o.ck.openFilterLog(logPath)
		} else {
			logFile, err = os.Create(logPath)
		}
		if err != nil {
			return nil, err
		}
		defer func() {
			logFile.Close()
			if fi, err := os.Stat(logPath); err == nil && fi.Size() == 0 {
				os.Remove(logPath)
			}
		}()
		o.opt.FilterLog = logFile
	}
	newCSV := report.NewJobsCSV
	sd, err := o.scoreD()
	if err != nil {
		return nil, err
	} else if sd != nil {
		newCSV = report.NewScoreDJobsCSV // SCore-D's columns too
	}
	var jobsFile *report.AtomicFile
	var csv *report.JobsCSV
	if o.ck != nil {
		jobsFile, csv, err = o.ck.jobsCSV(filepath.Join(out, "jobs.csv"), o.traceName(), sd != nil)
	} else if jobsFile, err = report.CreateAtomic(filepath.Join(out, "jobs.csv")); err == nil {
		csv = newCSV(jobsFile, o.traceName())
		if tick, err := o.ticks(); err == nil && tick > 1 {
			csv.SetTick(tick)
		}
	}
	if err != nil {
		return nil, err
	}
	defer jobsFile.Abort()
	if err := tables.open(out, o.traceName()); err != nil {
		return nil, err
	}
	defer tables.abort()
	if o.ck != nil && tables.pq != nil {
		if err := o.ck.parquet(tables.pq); err != nil {
			return nil, err
		}
	}
	if tables.pq != nil {
		// Without where it was written: the same run into two
		// directories gives the same bytes.
		sc := *o.Scenario
		sc.Out = ""
		tables.pq.SetMetadata(report.MetaScenario, string(sc.Canonical()))
		if tick, err := o.ticks(); err == nil && tick > 1 {
			tables.pq.SetTick(tick)
		}
		o.beforeRun = tables.pq.SetHeader
	}
	// Once the last row is written, jobs.csv goes to disk while the
	// summary is computed: committing it then waits for no writeback.
	// While plots are drawn it is only handed to the kernel's writeback
	// (syncLate): a goroutine waiting in a sync holds its processor for
	// a while, and the drawing needs them all; it is synced once they
	// are drawn. A checkpointed run keeps its order of commits.
	syncLate := o.Plots && o.ck == nil
	var synced chan error
	o.afterRun = func() {
		synced = make(chan error, 1)
		go func() {
			err := csv.Flush()
			if err == nil && syncLate {
				jobsFile.StartWriteback()
			} else if err == nil {
				err = jobsFile.Sync()
			}
			synced <- err
		}()
	}
	obs := append(tables.observers(csv), o.opt.Observers...)
	if p, err := o.powerModel(); err != nil {
		return nil, err
	} else if p != nil {
		// The per-job tables wait for the energy of their jobs, known
		// when the run is over.
		o.energyNext, obs = tables.observers(csv), o.opt.Observers
	}
	if o.Plots {
		// What the drawing can do before the run is over (a few
		// milliseconds), it does while the run simulates.
		go report.PrepareDrawing()
	}
	res, err := o.simulate(obs...)
	if err == nil && o.interrupted() {
		// A signal after the last job was read still stops the run:
		// nothing is committed.
		err = ErrInterrupted
	}
	// The plots are drawn and written while jobs.csv syncs and the
	// summary is written: whatever happens, they are done before the
	// directory is committed or removed.
	var plots chan error
	if err == nil && o.Plots {
		plots = make(chan error, 1)
		go func() { plots <- report.WriteRunPlots(out, res.Run) }()
	}
	waitPlots := func() error {
		if plots == nil {
			return nil
		}
		err := <-plots
		plots = nil
		return err
	}
	defer waitPlots()
	var sumFile *report.AtomicFile
	if err == nil {
		// summary.json is written while jobs.csv syncs; both are
		// committed after.
		if sumFile, err = report.CreateAtomic(filepath.Join(out, "summary.json")); err == nil {
			defer sumFile.Abort()
			err = report.WriteSummaryJSON(sumFile, &res.Summary)
		}
	}
	if synced != nil {
		if serr := <-synced; err == nil {
			err = serr
		}
	}
	if err != nil {
		o.ck.failed(err)
		return nil, err
	}
	if err := csv.Flush(); err != nil {
		return nil, err
	}
	if tables.pq != nil {
		tables.pq.SetMetadata(report.MetaPolicy, res.Summary.Policy)
	}
	if syncLate {
		// The tables and summary.json sync once the plots are drawn
		// and their files synced, together.
		sumFile.StartWriteback()
		if err := waitPlots(); err != nil {
			return nil, err
		}
	}
	sumDone := make(chan error, 1)
	go func() { sumDone <- sumFile.Commit() }()
	if err := cmp.Or(tables.commit(jobsFile), <-sumDone); err != nil {
		return nil, err
	}
	res.Wrote = append(tables.files(final), filepath.Join(final, "summary.json"))
	if o.energy != nil {
		if err := o.energy.WriteFiles(out); err != nil {
			return nil, err
		}
		for _, f := range []string{report.ConsumedEnergyCSV, report.PStateChangesCSV, report.MachineStatesCSV} {
			res.Wrote = append(res.Wrote, filepath.Join(final, f))
		}
	}
	if o.Plots {
		if err := waitPlots(); err != nil {
			return nil, err
		}
		res.Wrote = append(res.Wrote, filepath.Join(final, "report.html"))
	}
	if o.interrupted() {
		// A signal while the plots were drawn: the previous results stay.
		return nil, ErrInterrupted
	}
	partial := jobsFile.TempName()
	jobsFile.Abort() // the temporary jobs.csv of a run that writes Parquet only
	tables.abort()
	if o.ck != nil {
		if err := o.ck.markDone(od.Path()); err != nil {
			return nil, err
		}
		if !tables.csv {
			// Kept on abort for a resume until the run was marked done.
			os.Remove(partial)
		}
	}
	if err := od.Commit(); err != nil {
		return nil, err
	}
	return res, nil
}

// Check validates the scenario's options without running it: the cleaning
// rules, the policy and its parameters, the estimator, the time unit, the
// power model's platform file, and that the trace exists. A bad value is
// an *InputError.
func (sc *Scenario) Check() error {
	o := &runner{Scenario: sc, checkOnly: true}
	if _, err := o.rules(); err != nil {
		return err
	}
	_, err := o.policy()
	o.closeExternal() // built to be checked: its program never starts
	if err != nil {
		return err
	}
	if _, err := o.estimator(); err != nil {
		return err
	}
	if _, err := o.ticks(); err != nil {
		return err
	}
	if sc.Power != "" {
		if _, err := o.powerModel(); err != nil {
			return err
		}
	}
	if sc.Trace != "" {
		if _, err := os.Stat(sc.Trace); err != nil {
			return &InputError{err}
		}
	}
	return nil
}

// interrupted reports whether the run's context was cancelled.
func (o *runner) interrupted() bool { return o.stop != nil && o.stop.Load() }

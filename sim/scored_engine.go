package sim

import (
	"errors"
	"fmt"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// newScoreDEngine returns the engine of a run of SCore-D's queues
// (Config.ScoreD): Engine with its SCore-D component. The options that
// belong to other policies' models are refused.
func newScoreDEngine(cfg Config) (*Engine, error) {
	for _, x := range []struct {
		set  bool
		what string
	}{
		{cfg.Policy != nil, "a policy (SCore-D's queues are the policy)"},
		{cfg.Estimator != nil, "an estimator"},
		{cfg.Admission != nil || cfg.Annotator != nil, "HPC Pack's filters"},
		{cfg.Allocator != nil, "a node selector"},
		{cfg.Grow != nil, "growing jobs"},
		{cfg.DeferPlacement, "deferred placement"},
		{cfg.Constraints != nil, "reservations or limits"},
		{cfg.SchedInterval != 0, "a scheduler cycle"},
		{cfg.Preempt != nil, "Slurm's preemption"},
		{cfg.LostRun != nil, "a lost-run hook"},
	} {
		if x.set {
			return nil, fmt.Errorf("sim: SCore-D's queues do not run with %s", x.what)
		}
	}
	sdCfg := *cfg.ScoreD
	var fed *sdFed
	if c := cfg.ScoreDClusters; c != nil {
		var err error
		if fed, err = newSDFed(c, cfg.Procs); err != nil {
			return nil, err
		}
		// The machine's limits are the clusters' together.
		sdCfg.MemKB, sdCfg.DiskKB = fed.sums()
	}
	sd, err := newSDCore(cfg.Procs, sdCfg)
	if err != nil {
		return nil, err
	}
	sd.fed = fed
	e := &Engine{cfg: cfg, sd: sd}
	sd.eng, sd.stats, sd.busyRun = e, &e.stats, cfg.ScoreDBusy
	if tps := cfg.TicksPerSec; tps != 0 {
		if err := sd.setTicks(tps); err != nil {
			return nil, err
		}
	}
	if err := sd.setPower(cfg.Power); err != nil {
		return nil, err
	}
	if err := sd.setNodeEvents(cfg.NodeEvents, cfg.NodeSize, cfg.OnNodeFail); err != nil {
		return nil, err
	}
	return e, nil
}

// restoreScoreDEngine is Restore for a run of SCore-D's queues.
func restoreScoreDEngine(cfg Config, b []byte) (*Engine, error) {
	nodes := cfg.NodeEvents
	cfg.NodeEvents = nil // set once the saved state is there to take them over
	e, err := newScoreDEngine(cfg)
	if err != nil {
		return nil, err
	}
	if e.sd.tps != 1 {
		return nil, errors.New("sim: SCore-D: checkpoints are in seconds")
	}
	if err := e.sd.restore(b); err != nil {
		return nil, err
	}
	if len(nodes) > 0 || cfg.ScoreDBusy != nil || cfg.Power != nil || cfg.ScoreDClusters != nil { // else Run refuses a state saved with node events, unless ScoreD.SetNodeEvents gives them
		e.cfg.NodeEvents = nodes
		if err := e.sd.setNodeEvents(nodes, cfg.NodeSize, cfg.OnNodeFail); err != nil {
			return nil, err
		}
	}
	e.resumed = true
	return e, nil
}

// NewScoreD returns the engine for SCore-D's queues on a machine of procs
// processors: New(Config{Procs: procs, ScoreD: &cfg}), behind a handle whose
// setters give the other options. It returns an error for a configuration
// a user could have got wrong.
func NewScoreD(procs int, cfg policy.ScoreD) (*ScoreD, error) {
	e, err := New(Config{Procs: procs, ScoreD: &cfg})
	if err != nil {
		return nil, err
	}
	return &ScoreD{e}, nil
}

// RestoreScoreD returns the engine for SCore-D's queues in the state b
// (ScoreD.MarshalBinary) saved, for the same machine and configuration; its
// Run skips the jobs the saved engine had read and goes on from there. A
// run saved with node events needs SetNodeEvents with the same schedule
// before Run.
func RestoreScoreD(procs int, cfg policy.ScoreD, b []byte) (*ScoreD, error) {
	e, err := restoreScoreDEngine(Config{Procs: procs, ScoreD: &cfg}, b)
	if err != nil {
		return nil, err
	}
	return &ScoreD{e}, nil
}

// Engine returns the engine s is a handle on.
func (s *ScoreD) Engine() *Engine { return s.eng }

// Run is Engine.Run: it replays src to the end, telling obs of every event
// it wants (each job's submission, start, suspension or preemption by a
// higher queue, resumption, requeue after a node failure, end or refusal,
// and the instants' samples), and returns the run's statistics. Gang
// scheduling's time slices are not events: a job keeps its row while it
// runs. An error from src stops the run and is returned as is.
func (s *ScoreD) Run(src Source, obs Observer) (Stats, error) { return s.eng.Run(src, obs) }

// SetClosedLoop makes the run replay the trace's feedback (SWF fields 17
// and 18) as Config.ClosedLoop does for every run: a job naming a
// preceding job is submitted no earlier than that job's end (its record's
// End, whole seconds) plus the think time. A job whose preceding job never
// ends — held by a deactivated queue, or stranded, to the end of the run —
// is never submitted: it is recorded as rejected, with the reason.
// Checkpoints save the loop's state (the jobs waiting for their preceding
// job, the ends).
func (s *ScoreD) SetClosedLoop(on bool) { s.eng.cfg.ClosedLoop = on }

// SetTicks sets Config.TicksPerSec: the engine reads the jobs' times
// (submission, run and requested time) and writes its records' in ticks of
// 1/perSec s, the time unit of a Batsim workload (--time-unit): 1
// (seconds, the default), 1000 (ms) or 1000000 (µs). The engine's clock
// stays in whole milliseconds, with progress in µs: in µs, a submission is
// taken at the next whole millisecond, as an end already is, and records
// hold the µs of those milliseconds. The queues' limits (maximum CPU time,
// residence) and scheduled state changes stay in seconds. Call it before
// Run.
func (s *ScoreD) SetTicks(perSec int64) error {
	if err := s.eng.sd.setTicks(perSec); err != nil {
		return err
	}
	s.eng.cfg.TicksPerSec = perSec
	return nil
}

// SetNodeEvents gives the run a node-event schedule (Config.NodeEvents,
// cluster.ReadNodeEvents, sorted by time) for nodes of nodeSize processors
// (0 means 1), and what happens to the jobs running on a node that goes
// down. Call it before Run (after RestoreScoreD too, with the schedule the
// saved run had). With an empty schedule the run is as without.
func (s *ScoreD) SetNodeEvents(evs []cluster.NodeEvent, nodeSize int, onFail NodeFailAction) error {
	if err := s.eng.sd.setNodeEvents(evs, nodeSize, onFail); err != nil {
		return err
	}
	s.eng.cfg.NodeEvents, s.eng.cfg.NodeSize, s.eng.cfg.OnNodeFail = evs, nodeSize, onFail
	return nil
}

// SetCheckpoints makes Run call save at the end of the first instant at or
// after every `every` of simulated time from the first submission (every
// must be positive): Config.CheckpointEvery and OnCheckpoint. An error
// from save stops the run.
func (s *ScoreD) SetCheckpoints(every workload.Time, save func(t workload.Time) error) {
	s.eng.cfg.CheckpointEvery, s.eng.cfg.OnCheckpoint = every, save
}

// Snapshot is Engine.Snapshot.
func (s *ScoreD) Snapshot() (*Snapshot, error) { return s.eng.Snapshot() }

// MarshalBinary is Engine.MarshalBinary.
func (s *ScoreD) MarshalBinary() ([]byte, error) { return s.eng.MarshalBinary() }

package sim

import (
	"fmt"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// The engines check what they are given against schedsim's limits
// (workload.MaxMachineProcs, MaxTime, MaxMemKB) where it comes in — their
// configuration, and for ScoreD each job it reads — so that no time in
// milliseconds or microseconds, and no processors × time, can overflow.
// A run stops, with an error, when its clock would pass workload.MaxTime.
// Every such error wraps workload.ErrLimit.

// checkMachine returns an error for a machine size that is not positive or
// beyond workload.MaxMachineProcs.
func checkMachine(procs int) error {
	switch {
	case procs <= 0:
		return fmt.Errorf("sim: machine size %d: need at least one processor", procs)
	case procs > workload.MaxMachineProcs:
		return fmt.Errorf("sim: machine size %d is %w: at most %d processors", procs, workload.ErrLimit, workload.MaxMachineProcs)
	}
	return nil
}

// pastMaxTime returns the error of a run whose next instant, t, would be
// past workload.MaxTime.
func pastMaxTime(t workload.Time) error {
	return fmt.Errorf("sim: the run reaches %d s, %w: no run is simulated past %d s (workload.MaxTime, about 3,170 years)", t, workload.ErrLimit, workload.MaxTime)
}

// checkJobLimits returns an error for a job whose times or memory sizes are
// beyond schedsim's limits (the trace readers refuse such records; a Source
// of another kind might not).
func checkJobLimits(j *workload.Job) error {
	for _, f := range [...]struct {
		name string
		v    workload.Time
	}{{"submit time", j.Submit}, {"run time", j.Run}, {"requested time", j.Estimate}} {
		if f.v > workload.MaxTime {
			return fmt.Errorf("sim: job %d: %s %d s is %w: at most %d s (workload.MaxTime)", j.ID, f.name, f.v, workload.ErrLimit, workload.MaxTime)
		}
	}
	if !(j.UsedMemKB <= workload.MaxMemKB) || !(j.ReqMemKB <= workload.MaxMemKB) {
		return fmt.Errorf("sim: job %d: memory %v KB (used) or %v KB (requested) per processor is %w: at most %d KB (workload.MaxMemKB)", j.ID, j.UsedMemKB, j.ReqMemKB, workload.ErrLimit, int64(workload.MaxMemKB))
	}
	return nil
}

// maxDiskKB bounds SCore-D's disk limit (policy.ScoreD.DiskKB), in KB, so
// that a queue's percentage of it cannot overflow: 2^56 KB, 64 EiB.
const maxDiskKB = 1 << 56

// checkScoreD returns an error for a SCore-D configuration whose times or
// sizes are beyond schedsim's limits: a queue's maximum CPU time or
// residence time, a state change's instant, beyond workload.MaxTime; a
// cluster memory limit beyond workload.MaxMemKB (it is what one host has),
// a disk limit beyond 2^56 KB.
func checkScoreD(cfg *policy.ScoreD) error {
	for i, q := range cfg.Queues {
		if q.MaxCPUSec > workload.MaxTime || q.ResidenceSec > workload.MaxTime {
			return fmt.Errorf("sim: SCore-D queue %d: a time limit is %w: at most %d s (workload.MaxTime)", i, workload.ErrLimit, workload.MaxTime)
		}
	}
	for i, c := range cfg.Changes {
		if c.At > workload.MaxTime {
			return fmt.Errorf("sim: SCore-D state change %d at %d s is %w: at most %d s (workload.MaxTime)", i+1, c.At, workload.ErrLimit, workload.MaxTime)
		}
	}
	if cfg.MemKB > workload.MaxMemKB || cfg.DiskKB > maxDiskKB {
		return fmt.Errorf("sim: SCore-D cluster limits of %d KB memory, %d KB disk are %w: at most %d KB of memory (workload.MaxMemKB), %d KB of disk", cfg.MemKB, cfg.DiskKB, workload.ErrLimit, int64(workload.MaxMemKB), int64(maxDiskKB))
	}
	return nil
}

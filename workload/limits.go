package workload

import (
	"errors"
	"fmt"
	"strconv"
)

// The limits of what schedsim simulates. Inputs beyond them are refused where
// they enter — a trace reader (a *ParseError naming the line or row and the
// field), a machine or cluster description, an engine's configuration — so
// that no computation inside can overflow an int64:
//
//   - a processor count times a time is at most MaxMachineProcs × MaxTime
//     ≈ 6.7·10^18 < 2^63 (processor-seconds, summed over a run, never
//     exceed the machine's size times the run's length);
//   - a time in microseconds (SCore-D's gang clock) is at most
//     MaxTime·10^6 = 10^17, so that an instant plus a duration, both in
//     microseconds, still fits with room to spare;
//   - a memory size in KB per processor times the processors of a job is
//     at most MaxMemKB × MaxMachineProcs = 2^62.
//
// The engines stop a run, with an error, when its simulated clock would pass
// MaxTime (a trace whose jobs, run one after the other, last longer than
// that).
const (
	// MaxMachineProcs is the largest machine schedsim simulates, in
	// processors: 2^26 = 67,108,864, hundreds of times the largest machines
	// of today. A machine size beyond it (--procs, a trace header's MaxProcs
	// or MaxNodes, a cluster's cores) is refused. A job may ask for more; it
	// is then larger than the machine, and rejected at its submission.
	MaxMachineProcs = 1 << 26

	// MaxTime is the longest time schedsim simulates, in seconds: 10^11 s,
	// about 3,170 years. A trace's submit times, run times and requested
	// times must not exceed it, and no run is simulated past it.
	MaxTime Time = 100_000_000_000

	// MaxMemKB is the most memory per processor (or per node) a trace or a
	// cluster may declare, in KB: 2^36 KB = 64 TiB.
	MaxMemKB = 1 << 36
)

// ErrLimit is wrapped by every error about a value beyond the limits above
// (MaxMachineProcs, MaxTime, MaxMemKB), whichever package reports it.
var ErrLimit = errors.New("beyond schedsim's limits")

// limitError is an error that wraps ErrLimit without repeating its text.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrLimit }

// limitf returns a limitError with a formatted message.
func limitf(format string, a ...any) error { return &limitError{fmt.Sprintf(format, a...)} }

// FormatTicks returns t, a time in ticks of 1/tick second, as seconds:
// an integer when tick ≤ 1, else with the unit's decimals (88.510 for
// 88510 ms), for messages that name times in seconds whatever the run's
// unit.
func FormatTicks(t Time, tick int64) string {
	if tick <= 1 {
		return strconv.FormatInt(int64(t), 10)
	}
	neg := t < 0
	if neg {
		t = -t
	}
	s := strconv.FormatInt(int64(t)/tick, 10) + "." + strconv.FormatInt(int64(t)%tick+tick, 10)[1:]
	if neg {
		s = "-" + s
	}
	return s
}

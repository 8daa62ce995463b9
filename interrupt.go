package schedsim

import (
	"sync/atomic"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// interruptible is a Source that fails with ErrInterrupted once stop is set.
// It looks at the flag every 1024 jobs, so the check costs nothing.
type interruptible struct {
	sim.Source
	stop *atomic.Bool
	n    uint32
	// ref is Source as a sim.RefSource, or nil: asked once, not per job
	// (the type assertion cost about 19 instructions a job).
	ref sim.RefSource
	buf workload.Job // NextRef's job when Source is no sim.RefSource
}

// newInterruptible returns src made interruptible by stop.
func newInterruptible(src sim.Source, stop *atomic.Bool) *interruptible {
	s := &interruptible{Source: src, stop: stop}
	s.ref, _ = src.(sim.RefSource)
	return s
}

func (s *interruptible) Next(j *workload.Job) error {
	s.n++
	if s.n&1023 == 0 && s.stop.Load() {
		return ErrInterrupted
	}
	return s.Source.Next(j)
}

// NextRef implements sim.RefSource: the source's own NextRef if it has
// one, else Next into a job of its own.
func (s *interruptible) NextRef() (*workload.Job, error) {
	s.n++
	if s.n&1023 == 0 && s.stop.Load() {
		return nil, ErrInterrupted
	}
	if s.ref != nil {
		return s.ref.NextRef()
	}
	if err := s.Source.Next(&s.buf); err != nil {
		return nil, err
	}
	return &s.buf, nil
}

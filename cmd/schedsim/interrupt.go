package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// errInterrupted stops a run that got SIGINT or SIGTERM; the command exits
// with exitInterrupted and leaves no output behind.
var errInterrupted = errors.New("interrupted (SIGINT or SIGTERM): stopped, no output written")

// exitInterrupted is the conventional status of a program stopped by SIGINT.
const exitInterrupted = 130

// interruptReadyEnv is a test hook: when it is set, onInterrupt writes
// interruptReadyLine to stderr once its handler is installed, then waits
// for the signal before it returns. A test can then signal a run at a
// known point, after the handler is in place, without sleeping.
const interruptReadyEnv = "SCHEDSIM_TEST_INTERRUPT_READY"

// interruptReadyLine is what onInterrupt writes under interruptReadyEnv.
const interruptReadyLine = "schedsim: test hook: signal handler installed, waiting for SIGINT or SIGTERM"

// onInterrupt returns a flag that becomes true when the process gets SIGINT
// or SIGTERM, and a function that stops listening.
func onInterrupt() (*atomic.Bool, func()) {
	stop := new(atomic.Bool)
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	got := make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sigs:
			stop.Store(true)
			close(got)
		case <-done:
		}
	}()
	if os.Getenv(interruptReadyEnv) != "" {
		fmt.Fprintln(os.Stderr, interruptReadyLine)
		<-got
	}
	return stop, func() {
		signal.Stop(sigs)
		close(done)
	}
}

// interruptible is a Source that fails with errInterrupted once stop is set.
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
		return errInterrupted
	}
	return s.Source.Next(j)
}

// NextRef implements sim.RefSource: the source's own NextRef if it has
// one, else Next into a job of its own.
func (s *interruptible) NextRef() (*workload.Job, error) {
	s.n++
	if s.n&1023 == 0 && s.stop.Load() {
		return nil, errInterrupted
	}
	if s.ref != nil {
		return s.ref.NextRef()
	}
	if err := s.Source.Next(&s.buf); err != nil {
		return nil, err
	}
	return &s.buf, nil
}

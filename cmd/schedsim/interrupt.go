package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// exitInterrupted is the conventional status of a program stopped by SIGINT.
const exitInterrupted = 130

// interruptReadyEnv is a test hook: when it is set, interruptContext writes
// interruptReadyLine to stderr once its handler is installed, then waits
// for the signal before it returns. A test can then signal a run at a
// known point, after the handler is in place, without sleeping.
const interruptReadyEnv = "SCHEDSIM_TEST_INTERRUPT_READY"

// interruptReadyLine is what interruptContext writes under interruptReadyEnv.
const interruptReadyLine = "schedsim: test hook: signal handler installed, waiting for SIGINT or SIGTERM"

// interruptContext returns a context cancelled by SIGINT or SIGTERM, and a
// function that stops listening. Every command that runs for long uses it,
// and stops with schedsim.ErrInterrupted (exit status 130).
func interruptContext() (context.Context, func()) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if os.Getenv(interruptReadyEnv) != "" {
		fmt.Fprintln(os.Stderr, interruptReadyLine)
		<-ctx.Done()
	}
	return ctx, stop
}

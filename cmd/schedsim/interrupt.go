package main

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// exitInterrupted is the conventional status of a program stopped by SIGINT.
const exitInterrupted = 130

// onInterrupt returns a flag that becomes true when the process gets SIGINT
// or SIGTERM, and a function that stops listening.
func onInterrupt() (*atomic.Bool, func()) {
	stop := new(atomic.Bool)
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sigs:
			stop.Store(true)
		case <-done:
		}
	}()
	return stop, func() {
		signal.Stop(sigs)
		close(done)
	}
}

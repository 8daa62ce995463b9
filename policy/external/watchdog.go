package external

import (
	"sync/atomic"
	"time"
)

// watchdog calls late when a wait lasts longer than its timeout. Starting
// and ending a wait are atomic stores, not timer operations: a pass's round
// trip costs no reset and stop of a runtime timer. Its one timer fires at
// most once per timeout, and only the check it runs then looks at the
// clock.
type watchdog struct {
	timeout time.Duration
	epoch   time.Time
	late    func()
	timer   *time.Timer
	since   atomic.Int64 // when the wait in progress began (ns after epoch, plus 1), or 0
	stopped atomic.Bool
}

// newWatchdog returns a running watchdog, with no wait in progress.
func newWatchdog(timeout time.Duration, late func()) *watchdog {
	w := &watchdog{timeout: timeout, epoch: time.Now(), late: late}
	w.timer = time.AfterFunc(timeout, w.check)
	return w
}

// begin starts a wait.
func (w *watchdog) begin() { w.since.Store(int64(time.Since(w.epoch)) + 1) }

// end ends the wait in progress.
func (w *watchdog) end() { w.since.Store(0) }

// stop stops the watchdog for good.
func (w *watchdog) stop() {
	w.stopped.Store(true)
	w.timer.Stop()
}

// check runs when the timer fires: it calls late if the wait in progress
// has lasted the timeout, else sets the timer for when it would have.
func (w *watchdog) check() {
	if w.stopped.Load() {
		return
	}
	next := w.timeout
	if s := w.since.Load(); s != 0 {
		waited := time.Since(w.epoch) - time.Duration(s-1)
		if waited >= w.timeout {
			w.late()
			return
		}
		next = w.timeout - waited
	}
	w.timer.Reset(next)
}

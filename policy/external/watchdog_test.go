package external

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestWatchdog: short waits (2 ms), over three timeouts, are never late; a wait
// that lasts is, about a timeout after it began, once; a stopped watchdog
// calls nothing.
func TestWatchdog(t *testing.T) {
	const timeout = 100 * time.Millisecond
	var calls atomic.Int32
	lateAt := make(chan time.Time, 4)
	w := newWatchdog(timeout, func() {
		calls.Add(1)
		lateAt <- time.Now()
	})
	for end := time.Now().Add(3 * timeout); time.Now().Before(end); {
		w.begin()
		time.Sleep(2 * time.Millisecond)
		w.end()
		time.Sleep(2 * time.Millisecond)
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("late called %d times for short waits", n)
	}
	began := time.Now()
	w.begin()
	select {
	case at := <-lateAt:
		if waited := at.Sub(began); waited < timeout {
			t.Errorf("late after %v, before the timeout %v", waited, timeout)
		}
	case <-time.After(20 * timeout):
		t.Fatal("a wait of 20 timeouts was never late")
	}
	time.Sleep(3 * timeout)
	if n := calls.Load(); n != 1 {
		t.Errorf("late called %d times, want once", n)
	}

	var stoppedCalls atomic.Int32
	s := newWatchdog(timeout, func() { stoppedCalls.Add(1) })
	s.begin()
	s.stop()
	time.Sleep(3 * timeout)
	if n := stoppedCalls.Load(); n != 0 {
		t.Errorf("a stopped watchdog called late %d times", n)
	}
}

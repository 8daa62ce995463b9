package report

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schedsim/schedsim/sim"
)

// The modes of the commands' --progress option.
const (
	ProgressAuto   = "auto"
	ProgressAlways = "always"
	ProgressNever  = "never"
)

// ValidProgressMode reports whether mode is one of ProgressAuto,
// ProgressAlways and ProgressNever.
func ValidProgressMode(mode string) bool {
	return mode == ProgressAuto || mode == ProgressAlways || mode == ProgressNever
}

// ProgressShown reports whether progress goes to w in mode: always; never;
// or, for auto, when w is a terminal and the CI environment variable is
// unset or empty.
func ProgressShown(mode string, w io.Writer) bool {
	switch mode {
	case ProgressAlways:
		return true
	case ProgressAuto:
		if os.Getenv("CI") != "" {
			return false
		}
		f, ok := w.(*os.File)
		if !ok {
			return false
		}
		fi, err := f.Stat()
		return err == nil && fi.Mode()&os.ModeCharDevice != 0
	}
	return false
}

// ProgressObservers returns the observers that show a run's progress on w
// under mode (none when it is not shown, ProgressShown) and the function
// to call when the run is over; the run's times are ticks of 1/tick
// second.
func ProgressObservers(mode string, w io.Writer, tick int64) ([]sim.Observer, func()) {
	if !ProgressShown(mode, w) {
		return nil, func() {}
	}
	p := NewProgress(w, 500*time.Millisecond)
	p.SetTick(tick)
	return []sim.Observer{p}, p.Done
}

// Headline returns the summary's three headline metrics as the commands
// print them in a line: "wait mean 12.5 s, bounded slowdown 1.234,
// utilisation 56.78 %".
func (s *Summary) Headline() string {
	return fmt.Sprintf("wait mean %.1f s, bounded slowdown %.3f, utilisation %.2f %%", s.Wait.Mean, s.MeanBoundedSlowdown, 100*s.Utilisation)
}

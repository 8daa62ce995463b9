//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS returns the peak resident set size of an exited child process,
// in KiB, from its resource usage (getrusage's ru_maxrss: KiB on Linux and
// the BSDs, bytes on macOS).
func peakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024, true
	}
	return int64(ru.Maxrss), true
}

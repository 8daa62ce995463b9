//go:build !unix

package bench

import "os"

// peakRSS reports that the peak resident set size of a child process is
// not known here (the bench table then shows "-" for it).
func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }

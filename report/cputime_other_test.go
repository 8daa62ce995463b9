//go:build !unix

package report

import "time"

// cpuTime returns 0: the platform does not tell the CPU time here.
func cpuTime() time.Duration { return 0 }

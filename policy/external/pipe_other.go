//go:build !linux

package external

import "os"

// pipe returns a pipe.
func pipe() (r, w *os.File, err error) { return os.Pipe() }

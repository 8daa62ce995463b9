//go:build !linux

package hpcpack

import "os"

// waitUnreaped reports false: without a portable way to wait for a process
// without reaping it, the caller waits for it with cmd.Wait and kills its
// group just after.
func waitUnreaped(*os.Process) bool { return false }

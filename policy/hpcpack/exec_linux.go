package hpcpack

import (
	"os"

	"golang.org/x/sys/unix"
)

// waitUnreaped waits until p has exited, without reaping it (WNOWAIT), and
// reports whether it could: until p is reaped, its process and group
// numbers cannot be reused, so killGroup cannot hit another group.
func waitUnreaped(p *os.Process) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err == nil
		}
	}
}

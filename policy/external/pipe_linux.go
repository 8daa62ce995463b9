package external

import (
	"os"
	"syscall"
)

// pipe returns a pipe whose ends block: a read is one system call, without
// the runtime's poller between the two processes, which halves the cost
// of a pass's round trip. (Timeouts kill the program instead of using
// deadlines.)
func pipe() (r, w *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

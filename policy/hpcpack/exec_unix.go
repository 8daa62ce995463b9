//go:build unix

package hpcpack

import (
	"os"
	"os/exec"
	"syscall"
)

// newGroup makes cmd run in a process group of its own, which killGroup
// kills whole: a shell script's children (a sleep) die with it.
func newGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to the process group p leads. An error (no such
// group: every member has gone) is of no interest.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// maxDrain bounds drainNow: a pipe holds far less (64 KiB by default on
// Linux), unless a process keeps writing to it.
const maxDrain = 1 << 20

// drainNow reads what f, a pipe, holds now, without waiting for more (and
// whatever f's read deadline), into write, at most maxDrain bytes.
func drainNow(f *os.File, buf []byte, write func([]byte)) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		for total := 0; total < maxDrain; {
			n, err := syscall.Read(int(fd), buf) // non-blocking: EAGAIN when empty
			if n <= 0 || err != nil {
				return
			}
			write(buf[:n])
			total += n
		}
	})
}

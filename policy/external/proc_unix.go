//go:build unix

package external

import (
	"os"
	"os/exec"
	"syscall"
)

// shell runs the command line.
const shell = "/bin/sh"

// newGroup makes cmd run in a process group of its own, which killGroup
// kills whole: an interpreter's children die with it.
func newGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to the process group p leads. An error (no such
// group: every member has gone) is of no interest.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}

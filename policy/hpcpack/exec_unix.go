//go:build unix

package hpcpack

import (
	"os/exec"
	"syscall"
)

// killGroup makes cmd run in its own process group and, on timeout, kills
// the whole group: a shell script's children (a sleep) die with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

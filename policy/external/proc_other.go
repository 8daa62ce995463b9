//go:build !unix

package external

import (
	"os"
	"os/exec"
)

// shell runs the command line.
const shell = "sh"

// newGroup does nothing where process groups do not exist.
func newGroup(cmd *exec.Cmd) {}

// killGroup kills the process p.
func killGroup(p *os.Process) { p.Kill() }

//go:build !unix

package hpcpack

import (
	"os"
	"os/exec"
)

// newGroup leaves cmd as it is: without process groups, a timeout kills
// the program only, and its children may outlive it.
func newGroup(*exec.Cmd) {}

// killGroup kills p only.
func killGroup(p *os.Process) { p.Kill() }

// drainNow does nothing: pipes here have no read deadline, so the reader
// has read everything when a call ends.
func drainNow(*os.File, []byte, func([]byte)) {}

//go:build !unix

package hpcpack

import "os/exec"

// killGroup leaves cmd as it is: without process groups, a timeout kills
// the program only.
func killGroup(*exec.Cmd) {}

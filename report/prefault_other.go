//go:build !linux

package report

import "unsafe"

// prefault does nothing here: it is a hint that only Linux takes.
func prefault(unsafe.Pointer, int) {}

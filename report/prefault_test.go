package report

import (
	"testing"
	"unsafe"
)

// TestPrefault checks that prefault, a hint, leaves a buffer's contents as
// they were: zeros in a new buffer, written bytes in a used one, whole
// pages or not.
func TestPrefault(t *testing.T) {
	for _, n := range []int{100, prefaultMin + 1, 3 << 20} {
		b := make([]byte, n)
		prefault(unsafe.Pointer(unsafe.SliceData(b)), len(b))
		for i, v := range b {
			if v != 0 {
				t.Fatalf("%d bytes: byte %d is %d after prefault, want 0", n, i, v)
			}
		}
		for i := range b {
			b[i] = byte(i*7 + 1)
		}
		prefault(unsafe.Pointer(unsafe.SliceData(b)), len(b))
		for i, v := range b {
			if v != byte(i*7+1) {
				t.Fatalf("%d bytes: byte %d is %d after prefault, want %d", n, i, v, byte(i*7+1))
			}
		}
	}
}

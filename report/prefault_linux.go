package report

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// prefault asks the kernel to back the n bytes at p with memory now, in
// one call (madvise MADV_POPULATE_WRITE, Linux 5.14 and later), where a
// buffer new from the system would otherwise take a page fault at the
// first write to each of its pages: an image of megabytes is a thousand
// faults. The contents do not change. It is only a hint: an error (an
// older kernel, a range not aligned on pages) is ignored.
func prefault(p unsafe.Pointer, n int) {
	if n < prefaultMin {
		return
	}
	unix.Madvise(unsafe.Slice((*byte)(p), n), unix.MADV_POPULATE_WRITE)
}

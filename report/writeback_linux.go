package report

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing the n bytes of f from
// off to disk, without waiting for it (sync_file_range with
// SYNC_FILE_RANGE_WRITE). It is only a hint: an error is ignored, and the
// sync before a commit still reports any failure to write.
func startWriteback(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}

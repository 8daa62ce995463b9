package report

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// AtomicFile is a file that appears at its path complete or not at all. Writes
// go to a temporary file in the same directory (".name.tmp-*"); Commit renames
// it over the path, Abort removes it. Use it as
//
//	f, err := CreateAtomic(path)
//	if err != nil { … }
//	defer f.Abort()
//	… write to f …
//	return f.Commit()
//
// An AtomicFile is not safe for concurrent use.
type AtomicFile struct {
	f    *os.File
	path string
	done bool

	track bool   // keep n and crc (Track)
	n     int64  // bytes written, when tracking
	crc   uint32 // their CRC-32 (IEEE), when tracking
	keep  bool   // Abort keeps the temporary file (KeepOnAbort)
	// direct is true when f is the path itself, a device or a pipe
	// (CreateAtomic): there is no temporary file to rename or remove.
	direct bool
	// moded is true when the temporary file has AtomicMode already
	// (CreateAtomic gives it at once): Commit then only syncs and renames.
	moded bool

	// written counts the bytes written; the first hinted of them were
	// handed to the kernel's writeback already (see writebackChunk).
	written, hinted int64
}

// writebackChunk is how many bytes an AtomicFile lets accumulate before
// it asks the kernel to start writing them to disk (where it can, see
// startWriteback). Commit's sync then finds most of a large file on disk
// already: for a million-job jobs.csv (125 MB) it waited tens of
// milliseconds for the writeback at the end of a run.
const writebackChunk = 4 << 20

// AtomicMode is the permission of a committed AtomicFile.
const AtomicMode os.FileMode = 0o644

// errDone is returned by Write and Commit after Commit or Abort.
var errDone = errors.New("report: atomic file already committed or aborted")

// CreateAtomic starts writing the file at path, in a temporary file beside it.
// A path that names something other than a regular file or a directory (a
// device such as /dev/null or /dev/stdout, a named pipe) is a stream, not
// a file that could be seen half-written: it is written directly, and
// Commit only closes it. Renaming a temporary file over it would replace
// the device with a regular file.
func CreateAtomic(path string) (*AtomicFile, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("report: opening %s: %w", path, err)
		}
		return &AtomicFile{f: f, path: path, direct: true}, nil
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("report: creating %s: %w", path, err)
	}
	// The mode is given now, with the file's creation, not at Commit: a
	// change of mode right before the sync dirties the inode again, and
	// on a journalling file system (ext4) a file whose change came after
	// another file's sync had begun its journal commit waited for a
	// commit of its own. Files committed together (a run's figures and
	// tables) can then share one.
	if err := f.Chmod(AtomicMode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("report: creating %s: %w", path, err)
	}
	return &AtomicFile{f: f, path: path, moded: true}, nil
}

// Write writes p to the temporary file.
func (a *AtomicFile) Write(p []byte) (int, error) {
	if a.done {
		return 0, errDone
	}
	n, err := a.f.Write(p)
	if a.track {
		a.n += int64(n)
		a.crc = crc32.Update(a.crc, crc32.IEEETable, p[:n])
	}
	if a.written += int64(n); a.written-a.hinted >= writebackChunk {
		startWriteback(a.f, a.hinted, a.written-a.hinted)
		a.hinted = a.written
	}
	return n, err
}

// StartWriteback asks the kernel to start writing to disk the bytes
// written so far that it was not asked to yet (where it can; see
// startWriteback), without waiting: Commit's sync then finds them on their
// way. It is only a hint.
func (a *AtomicFile) StartWriteback() {
	if a.done || a.written == a.hinted {
		return
	}
	startWriteback(a.f, a.hinted, a.written-a.hinted)
	a.hinted = a.written
}

// Commit syncs and closes the temporary file, gives it mode AtomicMode and
// renames it to the path, replacing any file there. On failure the temporary
// file is removed and the path left as it was.
func (a *AtomicFile) Commit() error {
	if a.done {
		return errDone
	}
	a.done = true
	if a.direct {
		if err := a.f.Close(); err != nil {
			return fmt.Errorf("report: writing %s: %w", a.path, err)
		}
		return nil
	}
	tmp := a.f.Name()
	var err error
	if !a.moded {
		err = a.f.Chmod(AtomicMode)
	}
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, a.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("report: writing %s: %w", a.path, err)
	}
	return nil
}

// Abort closes and removes the temporary file, leaving the path untouched. It
// does nothing after Commit or an earlier Abort, so it suits a deferred cleanup.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	if !a.keep && !a.direct {
		os.Remove(a.f.Name())
	}
}

// WriteFileAtomic writes the file at path with write, through a buffer, and
// commits it only if write returns nil; otherwise it returns write's error and
// the path is left untouched.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	a, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer a.Abort()
	bw := bufio.NewWriterSize(a, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return a.Commit()
}

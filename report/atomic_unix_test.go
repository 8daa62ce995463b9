//go:build unix

package report

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCreateAtomicPipe writes through CreateAtomic to a named pipe, as a
// user who gives /dev/stdout or /dev/null as an output would: the bytes
// reach the reader, and the path is still the pipe, not a regular file
// renamed over it (which, on /dev/null, would replace the device).
func TestCreateAtomicPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("skipping: no named pipes here: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	a, err := CreateAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Abort()
	if _, err := io.WriteString(a, "job,start\n"); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "job,start\n" {
		t.Errorf("the reader got %q", s)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is %v after the commit, want the named pipe", path, fi.Mode())
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".fifo.tmp-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

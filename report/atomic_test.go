package report

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// dirNames lists dir's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestAtomicFile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing bool // a file is at the path already
		commit   bool
		want     string // content at the path afterwards; "" means none
	}{
		{"commit new", false, true, "new"},
		{"commit replaces", true, true, "new"},
		{"abort new", false, false, ""},
		{"abort keeps old", true, false, "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.csv")
			if tc.existing {
				if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			f, err := CreateAtomic(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Abort() // after Commit: must do nothing
			if _, err := io.WriteString(f, "new"); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); tc.existing && string(got) != "old" {
				t.Errorf("before commit the path holds %q, want %q", got, "old")
			}
			if tc.commit {
				if err := f.Commit(); err != nil {
					t.Fatal(err)
				}
				if err := f.Commit(); err == nil {
					t.Error("second Commit succeeded")
				}
				if _, err := f.Write([]byte("x")); err == nil {
					t.Error("Write after Commit succeeded")
				}
			}
			f.Abort()
			f.Abort()
			got, err := os.ReadFile(path)
			switch {
			case tc.want == "" && !errors.Is(err, os.ErrNotExist):
				t.Errorf("path exists after abort (%q, %v)", got, err)
			case tc.want != "" && string(got) != tc.want:
				t.Errorf("path holds %q (%v), want %q", got, err, tc.want)
			}
			names := dirNames(t, dir)
			wantN := 0
			if tc.want != "" {
				wantN = 1
			}
			if len(names) != wantN {
				t.Errorf("directory holds %q, want only the target", names)
			}
			if tc.commit {
				st, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != AtomicMode {
					t.Errorf("mode %v, want %v", st.Mode().Perm(), AtomicMode)
				}
			}
		})
	}
}

func TestWriteFileAtomic(t *testing.T) {
	errWrite := errors.New("write failed")
	for _, tc := range []struct {
		name    string
		write   func(io.Writer) error
		wantErr error
		want    string
	}{
		{"success", func(w io.Writer) error { _, err := io.WriteString(w, "data\n"); return err }, nil, "data\n"},
		{"failure leaves old file", func(w io.Writer) error {
			io.WriteString(w, "half")
			return errWrite
		}, errWrite, "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "summary.json")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := WriteFileAtomic(path, tc.write)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.want {
				t.Errorf("path holds %q, want %q", got, tc.want)
			}
			if names := dirNames(t, dir); len(names) != 1 {
				t.Errorf("directory holds %q, want only the target", names)
			}
		})
	}
}

func TestCreateAtomicMissingDir(t *testing.T) {
	_, err := CreateAtomic(filepath.Join(t.TempDir(), "no", "such", "out.csv"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want ErrNotExist", err)
	}
}

// A file several writeback chunks long, written in odd-sized pieces that
// straddle the chunks' ends, commits whole: starting its writeback early
// changes nothing in it.
func TestAtomicFileWriteback(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.csv")
	a, err := CreateAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Abort()
	want := make([]byte, 0, 3*writebackChunk+12345)
	piece := make([]byte, 65537)
	for i := 0; len(want) < cap(want); i++ {
		p := piece[:min(len(piece), cap(want)-len(want))]
		for k := range p {
			p[k] = byte(i + k)
		}
		if n, err := a.Write(p); err != nil || n != len(p) {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
		want = append(want, p...)
	}
	if a.hinted < 3*writebackChunk {
		t.Errorf("writeback started for %d bytes of %d, want at least %d", a.hinted, len(want), 3*writebackChunk)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("committed %d bytes, not the %d written", len(got), len(want))
	}
}

// TestAtomicFileModes checks that a file made by CreateAtomic has its mode
// from the start (its change of mode is not left to the commit's sync),
// and that a partial file resumed from a checkpoint, made with another
// mode, still gets AtomicMode when it is committed.
func TestAtomicFileModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.csv")
	f, err := CreateAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if st, err := os.Stat(f.TempName()); err != nil {
		t.Fatal(err)
	} else if st.Mode().Perm() != AtomicMode {
		t.Errorf("temporary file of mode %v, want %v before the commit", st.Mode().Perm(), AtomicMode)
	}
	tmp := filepath.Join(dir, ".resumed.csv.tmp-1")
	if err := os.WriteFile(tmp, []byte("row\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	resumed := filepath.Join(dir, "resumed.csv")
	r, err := ResumeAtomic(resumed, tmp, 4, crc32.ChecksumIEEE([]byte("row\n")))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(resumed); err != nil {
		t.Fatal(err)
	} else if st.Mode().Perm() != AtomicMode {
		t.Errorf("resumed file of mode %v, want %v", st.Mode().Perm(), AtomicMode)
	}
}

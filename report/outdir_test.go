package report

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestOutDir(t *testing.T) {
	tests := []struct {
		name    string
		before  map[string]string // the final directory's files before; nil: absent
		commit  bool
		want    []string // the final directory's files after; nil: absent
		wantErr error
	}{
		{"new directory", nil, true, []string{"summary.json"}, nil},
		{"empty directory", map[string]string{}, true, []string{"summary.json"}, nil},
		{"previous results replaced whole", map[string]string{"jobs.csv": "old", "summary.json": "old", "utilisation.png": "old"}, true, []string{"summary.json"}, nil},
		{"aborted: previous results intact", map[string]string{"jobs.csv": "old", "summary.json": "old"}, false, []string{"jobs.csv", "summary.json"}, nil},
		{"aborted: nothing created", nil, false, nil, nil},
		{"foreign files refused", map[string]string{"notes.md": "mine"}, true, nil, ErrForeignFiles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			final := filepath.Join(parent, "res")
			if tt.before != nil {
				os.Mkdir(final, 0o755)
				for n, s := range tt.before {
					os.WriteFile(filepath.Join(final, n), []byte(s), 0o644)
				}
			}
			d, err := CreateOutDir(final)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				if got := dirNames(t, parent); !slices.Equal(got, []string{"res"}) {
					t.Errorf("parent holds %v after a refusal", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d.Path(), "summary.json"), []byte("new"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.commit {
				if err := d.Commit(); err != nil {
					t.Fatal(err)
				}
			} else {
				d.Abort()
			}
			if tt.want == nil {
				if _, err := os.Stat(final); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("final directory exists: %v", err)
				}
			} else if got := dirNames(t, final); !slices.Equal(got, tt.want) {
				t.Errorf("final directory holds %v, want %v", got, tt.want)
			}
			if tt.commit {
				if b, _ := os.ReadFile(filepath.Join(final, "summary.json")); string(b) != "new" {
					t.Errorf("summary.json is %q", b)
				}
			}
			// Nothing but the final directory is left beside it.
			if got := dirNames(t, parent); len(got) > 1 {
				t.Errorf("parent holds %v", got)
			}
		})
	}
}

// TestOutDirTwoRuns: two runs into one directory each commit whole; the
// last one's files are what remains, never a mix.
func TestOutDirTwoRuns(t *testing.T) {
	final := filepath.Join(t.TempDir(), "res")
	a, err := CreateOutDir(final)
	if err != nil {
		t.Fatal(err)
	}
	b, err := CreateOutDir(final)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(a.Path(), "jobs.csv"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(a.Path(), "summary.json"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(b.Path(), "summary.json"), []byte("b"), 0o644)
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, final); !slices.Equal(got, []string{"summary.json"}) {
		t.Errorf("final holds %v, want b's files only", got)
	}
}

// TestOutDirResume: a kept staging directory is found again.
func TestOutDirResume(t *testing.T) {
	final := filepath.Join(t.TempDir(), "res")
	d, err := CreateOutDir(final)
	if err != nil {
		t.Fatal(err)
	}
	d.KeepOnAbort()
	d.Abort()
	// What a kill left: the partial file resumed, and a plot half-written.
	os.WriteFile(filepath.Join(d.Path(), ".jobs.csv.tmp-1"), []byte("partial"), 0o644)
	os.WriteFile(filepath.Join(d.Path(), ".wait.svg.tmp-2"), []byte("half"), 0o644)
	r, err := ResumeOutDir(final, d.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Clean(".jobs.csv.tmp-1", "jobs.csv"); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, r.Path()); !slices.Equal(got, []string{".jobs.csv.tmp-1"}) {
		t.Errorf("after Clean the staging directory holds %v, want the partial file only", got)
	}
	os.Remove(filepath.Join(r.Path(), ".jobs.csv.tmp-1"))
	os.WriteFile(filepath.Join(r.Path(), "summary.json"), []byte("x"), 0o644)
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := ResumeOutDir(final, d.Path()); err == nil {
		t.Error("a committed staging directory resumed again")
	}
}

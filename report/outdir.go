package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// OutDir is a run's output directory while it is written. Every file goes
// into a staging directory beside the final one (".NAME.staging-*"), and
// Commit puts the staging directory in the final one's place whole: a
// directory of results is one run's, complete, or the previous contents
// intact. Two runs into one directory each write their own staging
// directory; the last to commit wins, and neither is mixed with the other.
type OutDir struct {
	final, stage string
	done, keep   bool
}

// ErrForeignFiles is returned for an output directory that holds files
// schedsim does not write: replacing it whole would lose them.
var ErrForeignFiles = errors.New("holds files that schedsim does not write")

// isOutputName reports whether name is a file a run writes into its
// output directory (or a temporary file of one).
func isOutputName(name string) bool {
	switch name {
	case "jobs.csv", "jobs.parquet", "summary.json", "report.html", "filters.log":
		return true
	}
	ext := filepath.Ext(name)
	return ext == ".svg" || ext == ".png" || strings.Contains(name, ".tmp-")
}

// checkReplaceable returns an error if dir exists and is not a directory
// of results: not a directory, or holding other files.
func checkReplaceable(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var foreign []string
	for _, e := range ents {
		if e.IsDir() || !isOutputName(e.Name()) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		slices.Sort(foreign)
		if len(foreign) > 5 {
			foreign = append(foreign[:5], "…")
		}
		return fmt.Errorf("%s %w (%s): give a new or empty directory, or one a previous run wrote", dir, ErrForeignFiles, strings.Join(foreign, ", "))
	}
	return nil
}

// CreateOutDir starts writing the output directory final: it checks that
// final is new, empty or a previous run's results (else the error wraps
// ErrForeignFiles), creates its parent if needed, and a staging directory
// beside it.
func CreateOutDir(final string) (*OutDir, error) {
	final = filepath.Clean(final)
	abs, err := filepath.Abs(final)
	if err != nil {
		return nil, err
	}
	if err := checkReplaceable(abs); err != nil {
		return nil, err
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(parent, "."+filepath.Base(abs)+".staging-*")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(stage, 0o755); err != nil {
		os.Remove(stage)
		return nil, err
	}
	return &OutDir{final: abs, stage: stage}, nil
}

// ResumeOutDir goes on writing final in the staging directory stage that
// an interrupted run left (a checkpoint names it).
func ResumeOutDir(final, stage string) (*OutDir, error) {
	abs, err := filepath.Abs(filepath.Clean(final))
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(stage); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("the partial output directory %s is gone", stage)
	}
	if filepath.Dir(stage) != filepath.Dir(abs) {
		return nil, fmt.Errorf("the partial output directory %s is not beside %s", stage, abs)
	}
	if err := checkReplaceable(abs); err != nil {
		return nil, err
	}
	return &OutDir{final: abs, stage: stage}, nil
}

// Clean removes from the staging directory every entry but those named
// keep: what a run killed part-way left there beside the partial files a
// resumed run goes on with (a plot or summary half-written to its
// temporary name, the finished files of a run that is simulated again).
func (d *OutDir) Clean(keep ...string) error {
	ents, err := os.ReadDir(d.stage)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if slices.Contains(keep, e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(d.stage, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// Path returns the staging directory, where the run's files are written.
func (d *OutDir) Path() string { return d.stage }

// Final returns the directory the results are committed to.
func (d *OutDir) Final() string { return d.final }

// KeepOnAbort makes Abort keep the staging directory (a checkpointed run
// that is killed or interrupted goes on there).
func (d *OutDir) KeepOnAbort() { d.keep = true }

// Abort removes the staging directory (unless KeepOnAbort), leaving the
// final directory as it was. It does nothing after Commit.
func (d *OutDir) Abort() {
	if d == nil || d.done {
		return
	}
	d.done = true
	if !d.keep {
		os.RemoveAll(d.stage)
	}
}

// Discard removes the staging directory even after KeepOnAbort.
func (d *OutDir) Discard() {
	d.keep = false
	d.Abort()
}

// Commit puts the staging directory in the final directory's place. A
// previous final directory (a previous run's results) is replaced whole:
// on Linux the two are exchanged in one rename; elsewhere the old one is
// renamed aside first. The old contents are then removed.
func (d *OutDir) Commit() error {
	if d.done {
		return errDone
	}
	if err := checkReplaceable(d.final); err != nil {
		return err
	}
	d.done = true
	parent := filepath.Dir(d.final)
	if _, err := os.Stat(d.final); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(d.stage, d.final); err != nil {
			os.RemoveAll(d.stage)
			return fmt.Errorf("report: committing %s: %w", d.final, err)
		}
		syncDir(parent)
		return nil
	}
	if err := exchange(d.stage, d.final); err == nil {
		syncDir(parent)
		os.RemoveAll(d.stage) // now the previous results
		return nil
	}
	old := d.stage + ".old"
	if err := os.Rename(d.final, old); err != nil {
		os.RemoveAll(d.stage)
		return fmt.Errorf("report: committing %s: %w", d.final, err)
	}
	if err := os.Rename(d.stage, d.final); err != nil {
		os.Rename(old, d.final)
		os.RemoveAll(d.stage)
		return fmt.Errorf("report: committing %s: %w", d.final, err)
	}
	syncDir(parent)
	os.RemoveAll(old)
	return nil
}

// syncDir makes a directory's entries durable (best effort).
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}

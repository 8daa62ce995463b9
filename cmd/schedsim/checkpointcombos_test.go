package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hpc2nFirst returns the path of the first 3,170 jobs of HPC2N-2002 (57
// days on 240 processors) in ../shared/traces, or skips the test.
func hpc2nFirst(t *testing.T) string {
	t.Helper()
	trace := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (it sits beside the repository in CI)", trace)
	}
	return trace
}

// killResumeVerify is killResumeCompare followed by schedsim verify on the
// uninterrupted run's directory (which holds the resumed run's bytes).
func killResumeVerify(t *testing.T, dir string, n int, every string, args ...string) map[string][]byte {
	t.Helper()
	files := killResumeCompare(t, dir, n, every, args...)
	if code, stdout, stderr := run(t, "verify", filepath.Join(dir, "resumed")); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
		t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
	return files
}

// jobs.parquet with checkpoints: a run of HPC2N-2002 killed with SIGKILL
// part-way and resumed writes the jobs.parquet (and every other file) of an
// uninterrupted run, byte for byte: the rows written before the
// checkpoint come back from its sidecar file, in order, and the footer
// describes the same row groups. With jobs.parquet alone, and beside
// jobs.csv.
func TestCheckpointKillResumeParquet(t *testing.T) {
	trace := hpc2nFirst(t)
	for _, format := range []string{"parquet", "csv,parquet"} {
		t.Run(format, func(t *testing.T) {
			files := killResumeVerify(t, t.TempDir(), 12, "2d", "run", "--trace", trace, "-q", "--format", format)
			if len(files["jobs.parquet"]) == 0 {
				t.Fatal("no jobs.parquet")
			}
			if _, csv := files["jobs.csv"]; csv != strings.Contains(format, "csv") {
				t.Errorf("--format %s wrote %v", format, names(files))
			}
		})
	}
}

package workload

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenDetectsText checks that Open tells sacct output and Batsim
// workloads from SWF by their content, plain or gzip, whatever their
// name, and uses the name only to explain a file whose content says
// nothing.
func TestOpenDetectsText(t *testing.T) {
	sacct := sacctFixture.text(false, nil, "\n")
	tests := []struct {
		name   string
		data   []byte
		jobs   int    // jobs read; -1 for an error
		errMsg string // the error's text, when jobs is -1
	}{
		{"jobs.swf", []byte(sacct), 6, ""},
		{"jobs", gz(t, []byte(sacct)), 6, ""},
		{"accounting.txt.gz", gz(t, []byte("\n\n"+sacct)), 6, ""},
		{"workload.swf", []byte(batsimNoSpeed), 6, ""},
		{"workload", gz(t, []byte("\ufeff  "+batsimNoSpeed)), 6, ""},
		{"bom.txt", []byte("\ufeff" + sacct), 6, ""},
		{"trace.json", []byte(rec(nil) + "\n"), 1, ""}, // SWF text, named .json
		{"broken.json", []byte("hello\n"), -1, "not a Batsim JSON workload"},
		{"noheader.sacct", []byte("1|2024-01-01T00:00:00|00:01:00|4\n"), -1, "JobID or JobIDRaw"},
		{"broken.sacct.gz", gz(t, []byte("1|2\n")), -1, "JobID or JobIDRaw"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			jobs, _, err := openAll(t, p, Rules{})
			if tc.jobs < 0 {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Path != p || !strings.Contains(err.Error(), tc.errMsg) {
					t.Fatalf("error %v, want a *ParseError mentioning %q", err, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != tc.jobs {
				t.Errorf("%d jobs, want %d", len(jobs), tc.jobs)
			}
		})
	}
	p := filepath.Join(dir, "jobs.swf")
	if _, err := Open(p, Rules{}, WithColumns(NativeColumns())); err == nil || !strings.Contains(err.Error(), "this is sacct output") {
		t.Errorf("a column mapping on sacct output: %v", err)
	}
	if _, _, err := openAll(t, p, Rules{}, WithFormat(FormatSWF)); err == nil {
		t.Error("sacct output read as SWF")
	}
}

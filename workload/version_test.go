package workload

import (
	"bytes"
	"io"
	"runtime/debug"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestBuildVersion: the version string and Parquet's created_by of every
// kind of build: a release, a checkout (a pseudo-version, clean or
// dirty), an older toolchain's (devel) with a revision, a test binary, and
// schedsim as another program's library.
func TestBuildVersion(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-03-01T12:00:00Z"}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name      string
		bi        debug.BuildInfo
		version   string
		createdBy string
		modified  bool
	}{
		{"release", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: ModulePath, Version: "v1.2.0"}},
			"v1.2.0", "schedsim version v1.2.0", false},
		{"checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: ModulePath, Version: "v0.0.0-20260301120000-0123456789ab"}, Settings: vcs("false")},
			"v0.0.0-20260301120000-0123456789ab", "schedsim version v0.0.0-20260301120000-0123456789ab (build " + rev + ")", false},
		{"dirty checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: ModulePath, Version: "v0.0.0-20260301120000-0123456789ab+dirty"}, Settings: vcs("true")},
			"v0.0.0-20260301120000-0123456789ab+dirty", "schedsim version v0.0.0-20260301120000-0123456789ab+dirty (build " + rev + ")", true},
		{"devel with a revision", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: ModulePath, Version: "(devel)"}, Settings: vcs("true")},
			"(devel)+0123456789ab+dirty", "schedsim version (devel)+0123456789ab+dirty (build " + rev + ")", true},
		{"test binary", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: ModulePath, Version: "(devel)"}},
			"(devel)", "schedsim version (devel)", false},
		{"no version at all", debug.BuildInfo{GoVersion: "go1.26.8"},
			"(devel)", "schedsim version (devel)", false},
		{"a library", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/tool", Version: "v3.0.0"}, Settings: vcs("true"),
			Deps: []*debug.Module{{Path: "example.com/other", Version: "v9.9.9"}, {Path: ModulePath, Version: "v1.4.0"}}},
			"v1.4.0", "schedsim version v1.4.0", false},
		{"a replaced library", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/tool", Version: "v3.0.0"},
			Deps: []*debug.Module{{Path: ModulePath, Version: "v1.4.0", Replace: &debug.Module{Path: "../schedsim", Version: ""}}}},
			"(devel)", "schedsim version (devel)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := buildOf(&tt.bi)
			if got := b.Version(); got != tt.version {
				t.Errorf("Version() = %q, want %q", got, tt.version)
			}
			if got := b.CreatedBy(); got != tt.createdBy {
				t.Errorf("CreatedBy() = %q, want %q", got, tt.createdBy)
			}
			if b.Modified != tt.modified || b.Go != "go1.26.8" {
				t.Errorf("build %+v", b)
			}
		})
	}
}

// Under go test the toolchain records no version control information: the
// version is "(devel)", the same for every run, so outputs that record it
// stay byte-identical.
func TestVersionUnderTest(t *testing.T) {
	if v := Version(); v != "(devel)" {
		t.Errorf("Version() = %q under go test, want (devel)", v)
	}
	if Version() != ReadBuild().Version() {
		t.Error("Version() differs from ReadBuild().Version()")
	}
}

// TestParquetVersion: every Parquet file schedsim writes names it and its
// version in created_by and in the schedsim.version metadata: a trace, a
// table (jobs.parquet, a sweep) and a text table.
func TestParquetVersion(t *testing.T) {
	tests := []struct {
		name  string
		write func(w io.Writer) error
	}{
		{"trace", func(w io.Writer) error {
			pw, err := NewParquetWriter(w, &Header{})
			if err != nil {
				return err
			}
			j := Job{ID: 1, Submit: 0, RawRun: 10, AllocProcs: 1, ReqProcs: 1, ReqTime: -1, RawWait: -1, AvgCPUSec: -1, UsedMemKB: -1, ReqMemKB: -1, Status: 1, User: 1, Group: 1, Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
			if err := pw.Write(&j); err != nil {
				return err
			}
			return pw.Close()
		}},
		{"table", func(w io.Writer) error {
			pt, err := NewParquetTable(w, []ParquetColumn{{Name: "x", Type: ParquetInt64}}, [2]string{"schedsim.table", "test"})
			if err != nil {
				return err
			}
			pt.Int64(7)
			if err := pt.EndRow(); err != nil {
				return err
			}
			return pt.Close()
		}},
		{"text table", func(w io.Writer) error {
			return WriteParquetTable(w, []string{"a"}, [][]string{{"b"}})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := f.Metadata().CreatedBy, ReadBuild().CreatedBy(); got != want {
				t.Errorf("created_by %q, want %q", got, want)
			}
			if v, ok := f.Lookup(MetaVersion); !ok || v != Version() {
				t.Errorf("%s = %q (%v), want %q", MetaVersion, v, ok, Version())
			}
		})
	}
}

package workload

import (
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// ModulePath is schedsim's Go module path.
const ModulePath = "github.com/schedsim/schedsim"

// Build describes the schedsim build that is running, from the build
// information the Go toolchain stores in the binary (runtime/debug).
type Build struct {
	// Module is schedsim's module version: a release ("v1.2.0"), a
	// pseudo-version that names the commit ("v0.0.0-20260301120000-
	// 0123456789ab", with "+dirty" when the tree had changes), or
	// "(devel)" when the toolchain recorded none (go test, go run, a build
	// outside version control or with -buildvcs=false).
	Module string
	// Revision, Time and Modified describe the version control checkout
	// the binary was built from (vcs.revision, vcs.time, vcs.modified):
	// the commit, its time (RFC 3339), and whether the tree had changes.
	// Revision is "" when the toolchain recorded none; they are only known
	// when schedsim is the main module (not a library of another program).
	Revision string
	Time     string
	Modified bool
	// Go is the toolchain that built the binary ("go1.26.8").
	Go string
}

// ReadBuild returns the running binary's Build.
func ReadBuild() Build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Build{Module: "(devel)", Go: runtime.Version()}
	}
	return buildOf(bi)
}

// buildOf returns the Build bi describes: schedsim's module is bi's main
// module, or one of its dependencies when a program uses schedsim as a
// library.
func buildOf(bi *debug.BuildInfo) Build {
	b := Build{Go: bi.GoVersion}
	switch {
	case bi.Main.Path == ModulePath || bi.Main.Path == "":
		b.Module = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	default:
		for _, m := range bi.Deps {
			if m.Path == ModulePath {
				if m.Replace != nil {
					m = m.Replace
				}
				b.Module = m.Version
				break
			}
		}
	}
	if b.Module == "" {
		b.Module = "(devel)"
	}
	if b.Go == "" {
		b.Go = runtime.Version()
	}
	return b
}

// Version returns b as one string: Module, followed by "+" and the first
// 12 digits of Revision when Module does not already name it, and by
// "+dirty" when the tree had changes and Module does not say so. So a
// release is "v1.2.0", a build of a checkout "v0.0.0-20260301120000-
// 0123456789ab+dirty" (or "(devel)+0123456789ab" from an older
// toolchain), and a test binary "(devel)".
func (b Build) Version() string {
	v := b.Module
	if b.Revision != "" {
		if short := b.Revision[:min(12, len(b.Revision))]; !strings.Contains(v, short) {
			v += "+" + short
		}
		if b.Modified && !strings.HasSuffix(v, "+dirty") {
			v += "+dirty"
		}
	}
	return v
}

// CreatedBy returns b as a Parquet file's created_by, in the form the
// Parquet format suggests ("application version VERSION (build HASH)"):
// "schedsim version VERSION", and " (build REVISION)" when Revision is
// known.
func (b Build) CreatedBy() string {
	s := "schedsim version " + b.Version()
	if b.Revision != "" {
		s += " (build " + b.Revision + ")"
	}
	return s
}

// Text returns b as schedsim version prints it: the version, then the
// module, the revision, its time and whether the tree was modified, and
// the Go toolchain and platform, one a line.
func (b Build) Text() string {
	s := "schedsim " + b.Version() + "\n" +
		"module    " + ModulePath + " " + b.Module + "\n"
	if b.Revision == "" {
		s += "revision  unknown (the build recorded no version control information)\n"
	} else {
		s += "revision  " + b.Revision + "\n"
		if b.Time != "" {
			s += "time      " + b.Time + "\n"
		}
		s += "modified  " + strconv.FormatBool(b.Modified) + "\n"
	}
	return s + "go        " + b.Go + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
}

var (
	buildOnce sync.Once
	build     Build
)

// thisBuild returns ReadBuild's result, read once.
func thisBuild() Build {
	buildOnce.Do(func() { build = ReadBuild() })
	return build
}

// Version returns the running schedsim's version (Build.Version), the
// string every machine-readable output of schedsim records: summary.json's
// schedsim_version, the created_by and schedsim.version metadata of the
// Parquet files it writes. It depends only on the binary, so two runs of
// one binary record the same; under go test it is "(devel)".
func Version() string { return thisBuild().Version() }

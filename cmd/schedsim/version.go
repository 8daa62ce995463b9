package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/schedsim/schedsim/workload"
)

const versionUsage = `Usage: schedsim version

Prints the version of schedsim: the module version (a release, or a
pseudo-version naming the commit of a build from a checkout, "+dirty" when
the tree had changes, "(devel)" when the build recorded none), the version
control revision, its time and whether the tree was modified, and the Go
toolchain. The first line's version is the one every machine-readable
output records: summary.json's "schedsim_version", and the created_by and
"schedsim.version" metadata of every Parquet file schedsim writes.
`

func cmdVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", versionUsage, stdout)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	writeVersion(stdout, workload.ReadBuild())
	return nil
}

// writeVersion writes b as schedsim version prints it.
func writeVersion(w io.Writer, b workload.Build) {
	fmt.Fprintf(w, "schedsim %s\n", b.Version())
	fmt.Fprintf(w, "module    %s %s\n", workload.ModulePath, b.Module)
	if b.Revision == "" {
		fmt.Fprintf(w, "revision  unknown (the build recorded no version control information)\n")
	} else {
		fmt.Fprintf(w, "revision  %s\n", b.Revision)
		if b.Time != "" {
			fmt.Fprintf(w, "time      %s\n", b.Time)
		}
		fmt.Fprintf(w, "modified  %v\n", b.Modified)
	}
	fmt.Fprintf(w, "go        %s %s/%s\n", b.Go, runtime.GOOS, runtime.GOARCH)
}

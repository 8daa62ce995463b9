package main

import (
	"fmt"
	"io"

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
	fmt.Fprint(stdout, workload.ReadBuild().Text())
	return nil
}

package simtest

import (
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// ReadTrace reads a whole SWF trace into memory without cleaning rules
// and returns its jobs and the machine size its header declares. An error
// fails t.
func ReadTrace(t testing.TB, path string) ([]workload.Job, int) {
	t.Helper()
	rd, err := workload.OpenSWF(path, workload.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var jobs []workload.Job
	for {
		var j workload.Job
		err := rd.Next(&j)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	return jobs, rd.Header().MachineSize()
}

// Python3 returns Debian's python3, or the first on PATH, for the tests of
// the Python policies and filters. Without one the test is skipped, unless
// Full (CI is true: .ci/run installs it), when it fails.
func Python3(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	if p, err := exec.LookPath("python3"); err == nil {
		return p
	}
	if Full() {
		t.Fatal("python3 not found, and CI is true: .ci/run installs it")
	}
	t.Skip("skipping: python3 not found (install Debian's python3 to run the Python policies)")
	return ""
}

package external_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/schedsim/schedsim/policy/external"
	"github.com/schedsim/schedsim/sim/simtest"
)

// sharedDir is ../shared beside the repository root.
const sharedDir = "../../../shared"

// python returns Debian's python3 (or the first python3 on PATH). Without
// one the test is skipped, unless CI is true: CI installs it (.ci/run).
func python(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("python3"); err == nil {
		return p
	}
	if simtest.Full() {
		t.Fatal("python3 not found, and CI is true: .ci/run installs it")
	}
	t.Skip("skipping: python3 not found (install Debian's python3 to run the Python policies)")
	return ""
}

// example is the command line of a Python example policy.
func example(t testing.TB, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("python", "examples", name+".py"))
	if err != nil {
		t.Fatal(err)
	}
	return "exec '" + python(t) + "' '" + path + "'"
}

// referenceTraces are the inputs of ../shared/reference, smallest first;
// a quick go test replays the first only.
var referenceTraces = []string{"hpc2n", "NASA-iPSC-1993-3.1-cln", "log", "lublin_256", "LANL-CM5-1994-4.1-cln"}

// TestPythonReference: the Python FCFS and EASY examples, run through the
// protocol, start every job of every reference input (norm and exact) at
// the time pyss's fcfs and easy schedulers do. A quick go test replays
// the smallest input; CI replays them all.
func TestPythonReference(t *testing.T) {
	if _, err := os.Stat(filepath.Join(sharedDir, "reference")); err != nil {
		t.Skipf("skipping: %s/reference not found (it sits beside the repository in CI)", sharedDir)
	}
	traces := referenceTraces
	if !simtest.Full() {
		traces = traces[:1]
	}
	for _, kind := range []string{"norm", "exact"} {
		for _, tr := range traces {
			for _, pol := range []string{"fcfs", "easy"} {
				t.Run(kind+"/"+tr+"/"+pol, func(t *testing.T) {
					jobs, procs := simtest.ReadTrace(t, filepath.Join(sharedDir, "reference/inputs", kind, tr+".swf.gz"))
					want, err := simtest.ReferenceStarts(filepath.Join(sharedDir, "reference/outputs", fmt.Sprintf("pyss_%s_%s_%s.swf.gz", kind, tr, pol)))
					if err != nil {
						t.Fatal(err)
					}
					out, p, err := runExternal(t, external.Config{Command: example(t, pol)}, jobs, procs)
					if err != nil {
						t.Fatal(err)
					}
					if p.Name() != "external("+pol+")" {
						t.Errorf("policy name %q", p.Name())
					}
					got := make(map[int64]int64, len(out))
					for _, o := range out {
						got[o.Job.ID] = int64(o.Start)
					}
					mism := 0
					for id, w := range want {
						if g, ok := got[id]; !ok || g != w {
							if mism < 5 {
								t.Errorf("job %d: start %d, reference %d (present %v)", id, g, w, ok)
							}
							mism++
						}
					}
					if len(got) != len(want) {
						t.Errorf("simulated %d jobs, reference has %d", len(got), len(want))
					}
					t.Logf("%d jobs, %d passes, %d mismatches against pyss", len(want), p.Passes(), mism)
				})
			}
		}
	}
}

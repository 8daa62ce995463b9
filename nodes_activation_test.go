package schedsim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// nodesActivationConfig runs HPC2N's 120 dual-core nodes (machine, from
// the first line's placeholder) with a license pool that keeps the
// resources of the jobs it cannot serve (result 2): the big jobs need
// two licenses of twelve.
const nodesActivationConfig = `MACHINE
[filters]
activation = ["licenses"]
reevaluate = "2m"
[licenses]
when_short = 2
[licenses.pool]
fluent = 12
[templates.Big]
licenses = "fluent:2"
[[template_rules]]
template = "Big"
min_procs = 8
`

// TestNodesActivation: activation filters on a cluster of nodes (linear,
// cons_res, a cluster of two clusters) under FCFS, EASY, HPC Pack's window
// and Slurm's backfill, on HPC2N's log: jobs keep their candidate nodes
// reserved, and every run passes verify.
func TestNodesActivation(t *testing.T) {
	if _, err := os.Stat(hpc2nTrace); err != nil {
		t.Skipf("skipped: %s not found (%v); the shared data sit beside the repository, at ../shared", hpc2nTrace, err)
	}
	var maxJobs int64 = 1000
	if simtest.Full() {
		maxJobs = 0
	}
	cluster := func(sel string) string {
		return "[cluster]\nselect = \"" + sel + "\"\n[[cluster.groups]]\nname = \"n\"\ncount = 120\ncores = 2\n"
	}
	clusters := "[[clusters]]\nselect = \"linear\"\n[[clusters.groups]]\nname = \"a\"\ncount = 60\ncores = 2\n" +
		"[[clusters]]\nselect = \"linear\"\n[[clusters.groups]]\nname = \"b\"\ncount = 60\ncores = 2\n"
	for _, c := range []struct{ name, machine, backfill string }{
		{"linear/off", cluster("linear"), "off"},
		{"linear/easy", cluster("linear"), "easy"},
		{"cons_res/hpcpack", cluster("cons_res"), "hpcpack"},
		{"cons_res/slurm", cluster("cons_res"), "slurm"},
		{"clusters/easy", clusters, "easy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			sc := Default()
			sc.Trace, sc.Plots, sc.Backfill, sc.MaxJobs = hpc2nTrace, false, c.backfill, maxJobs
			sc.Config = writeFile(t, dir, "config.toml", strings.Replace(nodesActivationConfig, "MACHINE", c.machine, 1))
			sc.Out = filepath.Join(dir, "out")
			if _, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}}); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			rs, err := VerifyDir(sc.Out, 20, &b)
			if err != nil || len(rs) != 1 || rs[0].Violations != 0 || rs[0].Jobs == 0 {
				t.Fatalf("verify: %v %+v\n%s", err, rs, b.String())
			}
			jobs, err := os.ReadFile(filepath.Join(sc.Out, "jobs.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(jobs), "reserving_sec="); n == 0 {
				t.Error("no job kept its resources reserved")
			} else {
				t.Logf("%d jobs kept resources reserved", n)
			}
		})
	}
}

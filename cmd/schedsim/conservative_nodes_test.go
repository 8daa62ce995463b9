package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// TestConservativeOnNodes works a schedule out by hand: conservative
// backfilling on two nodes of 2 CPUs under select/linear (whole nodes).
// Job 1 (1 CPU, 100 s) takes node n1 whole. Job 2 (3 CPUs: both nodes)
// is planned at 100. Job 3 (2 CPUs, 20 s) comes at 10: n2 is idle until
// job 2's place, so it starts there, to 30. Job 4 (1 CPU, 10 s) comes at
// 20, when no node is idle: it is planned at 30, when job 3 gives n2 back,
// and starts then on n2, to 40. Job 2 runs 100–150 on both nodes.
func TestConservativeOnNodes(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, dir, "slurm.conf", "SelectType=select/linear\nNodeName=n[1-2] CPUs=2 RealMemory=1000\nPartitionName=all Nodes=n[1-2] Default=YES MaxTime=INFINITE State=UP\n")
	trace := writeFile(t, dir, "t.swf", `; MaxProcs: 4
1 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1
2 0 -1 50 3 -1 -1 3 50 -1 1 1 1 -1 -1 -1 -1 -1
3 10 -1 20 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1
4 20 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1
`)
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "run", "--trace", trace, "--slurm-conf", conf, "--backfill", "conservative", "--out", out, "-q", "--plots=false"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := map[string][2]string{"1": {"0", "100"}, "2": {"100", "150"}, "3": {"10", "30"}, "4": {"30", "40"}}
	rows := simtest.ReadCSV(t, filepath.Join(out, "jobs.csv"))
	if len(rows)-1 != len(want) {
		t.Fatalf("%d jobs, want %d", len(rows)-1, len(want))
	}
	for _, r := range rows[1:] {
		if got := [2]string{r[8], r[10]}; got != want[r[0]] {
			t.Errorf("job %s: start, end %v, want %v", r[0], got, want[r[0]])
		}
	}
	if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
		t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConservativeOnNodesRealTraces runs conservative backfilling on
// clusters of nodes built for two logs of ../shared/traces — HPC2N-2002's
// first 3,170 jobs on its 120 nodes of 2 CPUs under select/linear, and the
// same jobs on a cons_tres cluster of 30 nodes of 8 cores — and checks that
// verify accepts both.
func TestConservativeOnNodesRealTraces(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", src)
	}
	dir := t.TempDir()
	for name, conf := range map[string]string{
		"linear":   "SelectType=select/linear\nNodeName=n[001-120] CPUs=2 RealMemory=1000\nPartitionName=all Nodes=n[001-120] Default=YES MaxTime=INFINITE State=UP\n",
		"constres": "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nNodeName=n[01-30] CPUs=8 RealMemory=8000\nPartitionName=all Nodes=n[01-30] Default=YES MaxTime=INFINITE State=UP\n",
	} {
		c := writeFile(t, dir, name+".conf", conf)
		out := filepath.Join(dir, name)
		if code, _, stderr := run(t, "run", "--trace", src, "--slurm-conf", c, "--backfill", "conservative", "--out", out, "-q", "--plots=false"); code != exitOK {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
			t.Errorf("%s: verify: exit %d\n%s%s", name, code, stdout, stderr)
		}
		s := readSummary(t, out)
		t.Logf("%s: %d jobs, %d started, mean wait %.0f s", name, s.Jobs, s.Started, s.Wait.Mean)
	}
}

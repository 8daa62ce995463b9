package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// OverSubscribe=EXCLUSIVE under cons_res from a [cluster] table: the job
// of the EXCLUSIVE partition holds a whole node in jobs.csv, summary.json
// records the partition's oversubscribe, and verify accepts the run.
func TestOverSubscribeExclusiveRun(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, dir, "c.toml", `[cluster]
select = "cons_res"
[[cluster.groups]]
name = "n"
count = 2
cores = 4
[[cluster.partitions]]
name = "shared"
groups = ["n"]
swf = 1
default = true
[[cluster.partitions]]
name = "excl"
groups = ["n"]
swf = 2
oversubscribe = "exclusive"
`)
	trace := writeFile(t, dir, "t.swf", "; MaxProcs: 8\n"+
		"1 0 -1 100 2 -1 -1 2 100 -1 1 -1 -1 -1 -1 1 -1 -1\n"+
		"2 0 -1 50 2 -1 -1 2 50 -1 1 -1 -1 -1 -1 2 -1 -1\n")
	out := filepath.Join(dir, "out")
	code, _, stderr := run(t, "run", "--trace", trace, "--config", conf, "--plots=false", "--out", out)
	if code != exitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "EXCLUSIVE") {
		t.Errorf("a warning about EXCLUSIVE, which is modelled: %s", stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), ",4-7,") {
		t.Errorf("job 2 does not hold node 1 whole (cores 4-7):\n%s", b)
	}
	s, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if !strings.Contains(string(s), `"oversubscribe": "EXCLUSIVE"`) {
		t.Errorf("summary.json does not record the EXCLUSIVE partition:\n%s", s)
	}
	if code, stdout, stderr := run(t, "verify", out); code != exitOK {
		t.Errorf("verify: exit %d: %s%s", code, stdout, stderr)
	}
}

// OverSubscribe=FORCE:2 under linear from a slurm.conf: two jobs share a
// node, summary.json records the partition's count, and verify accepts
// the run; without the count in summary.json it finds the shared node.
func TestOverSubscribeForceRun(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, dir, "slurm.conf", "SelectType=select/linear\nNodeName=n[1-2] CPUs=2\nPartitionName=shared Nodes=ALL Default=YES OverSubscribe=FORCE:2\n")
	trace := writeFile(t, dir, "t.swf", "; MaxProcs: 4\n"+
		"1 0 -1 100 4 -1 -1 4 100 -1 1 -1 -1 -1 -1 -1 -1 -1\n"+
		"2 0 -1 50 2 -1 -1 2 50 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
	out := filepath.Join(dir, "out")
	code, _, stderr := run(t, "run", "--trace", trace, "--slurm-conf", conf, "--plots=false", "--out", out)
	if code != exitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "FORCE") {
		t.Errorf("a warning about FORCE, which is modelled here: %s", stderr)
	}
	b, _ := os.ReadFile(filepath.Join(out, "jobs.csv"))
	// Job 2 starts at 0 on node 0, which job 1 holds too.
	if !strings.Contains(string(b), "\n2,") || !strings.Contains(string(b), ",COMPLETED_SUCCESSFULLY,0,50,50,0,50,1,0,") {
		t.Errorf("job 2 does not share node 0 from 0:\n%s", b)
	}
	sp := filepath.Join(out, "summary.json")
	s, _ := os.ReadFile(sp)
	if !strings.Contains(string(s), `"share_count": 2`) {
		t.Fatalf("summary.json does not record FORCE:2:\n%s", s)
	}
	if code, stdout, stderr := run(t, "verify", out); code != exitOK {
		t.Errorf("verify: exit %d: %s%s", code, stdout, stderr)
	}
	planted := strings.Replace(strings.Replace(string(s), `"share_count": 2`, `"max_time": 0`, 1), `"oversubscribe": "FORCE",`, "", 1)
	if err := os.WriteFile(sp, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := run(t, "verify", out); code != 1 || !strings.Contains(stdout, "job 2: overlap") {
		t.Errorf("verify without the share count: exit %d, %q; want 1 and job 2's overlap", code, stdout)
	}
}

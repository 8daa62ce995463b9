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

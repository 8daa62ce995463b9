package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
)

// TestRunSlurmConf imports the sample heterogeneous cluster and runs the
// embedded trace on it; the broken file stops the run with status 2 and
// line numbers.
func TestRunSlurmConf(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := run(t, "run", "--slurm-conf", "testdata/slurm-hetero.conf", "--out", dir)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "not modelled: line 3: ClusterName") {
		t.Errorf("stderr does not list the unknown keys: %s", stderr)
	}
	rows := simtest.ReadCSV(t, filepath.Join(dir, "jobs.csv"))
	if len(rows) < 100 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows[1:] {
		if r[7] == "COMPLETED_SUCCESSFULLY" && r[14] == "" {
			t.Fatalf("job %s has no allocated resources", r[0])
		}
	}
	code, _, stderr = run(t, "run", "--slurm-conf", "testdata/slurm-broken.conf")
	if code != 2 || !strings.Contains(stderr, "slurm-broken.conf:4:") || !strings.Contains(stderr, "slurm-broken.conf:9:") {
		t.Errorf("broken slurm.conf: status %d, stderr %s", code, stderr)
	}
	code, stdout, stderr := run(t, "run", "--slurm-conf", "testdata/slurm-hetero.conf", "--backfill", "slurm", "--bf-interval", "120")
	if code != 0 || strings.Contains(stderr, "one pool") || !strings.Contains(stdout, "select=") {
		t.Errorf("--backfill slurm: status %d, stderr %s", code, stderr)
	}
	// SchedulerParameters fill what the flags leave unset.
	if want := "slurm(bf_interval=120,bf_max_job_test=1000,bf_window=172800,bf_resolution=300,bf_continue,default_queue_depth=200)"; !strings.Contains(stdout, want) {
		t.Errorf("--backfill slurm: summary lacks %s:\n%s", want, stdout)
	}
	code, stdout, stderr = run(t, "run", "--slurm-conf", "testdata/slurm-hetero.conf", "--backfill", "conservative", "--plots=false")
	if code != 0 || !strings.Contains(stdout, "conservative") {
		t.Errorf("--backfill conservative: status %d, stderr %s", code, stderr)
	}
}

// TestRunClusterConfig runs a [cluster] table under cons_res: memory
// shares nodes, a job that can never fit is rejected with the reason, and
// allocated_resources lists core numbers.
func TestRunClusterConfig(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, dir, "c.toml", `
[cluster]
select = "cons_res"
[[cluster.groups]]
name = "n"
count = 2
cores = 4
memory_mb = 8192
speed = 1
features = ["x"]
[[cluster.partitions]]
name = "batch"
groups = ["n"]
max_time = "1d"
default = true
`)
	trace := writeFile(t, dir, "t.swf", `; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 100 3145728 1 1 1 -1 -1 -1 -1 -1
2 0 -1 100 1 -1 -1 1 100 9437184 1 1 1 -1 -1 -1 -1 -1
3 1 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1
4 2 -1 10 1 -1 -1 1 10 3145728 1 1 1 -1 -1 -1 -1 -1
`)
	out := filepath.Join(dir, "out")
	code, _, stderr := run(t, "run", "--trace", trace, "--config", conf, "--out", out)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	rows := simtest.ReadCSV(t, filepath.Join(out, "jobs.csv"))
	want := map[string][3]string{ // id → final state, start, allocated resources
		"1": {"COMPLETED_SUCCESSFULLY", "0", "0-1 4-5"},
		"2": {"REJECTED", "", ""},
		"3": {"COMPLETED_SUCCESSFULLY", "1", "2-3"},
		"4": {"COMPLETED_SUCCESSFULLY", "100", "0"},
	}
	for _, r := range rows[1:] {
		w, ok := want[r[0]]
		if !ok {
			t.Fatalf("unexpected job %s", r[0])
		}
		if r[7] != w[0] || (w[1] != "" && (r[8] != w[1] || r[14] != w[2])) {
			t.Errorf("job %s: %s at %s on %q, want %v", r[0], r[7], r[8], r[14], w)
		}
		if r[0] == "2" && !strings.Contains(r[16], "largest node has") {
			t.Errorf("job 2: metadata %q lacks the reason", r[16])
		}
	}
	bad := writeFile(t, dir, "bad.toml", "[cluster]\nselect = \"cons_res\"\n[[cluster.groups]]\nname = \"n\"\ncount = 0\ncores = 4\n")
	code, _, stderr = run(t, "run", "--trace", trace, "--config", bad)
	if code != 2 || !strings.Contains(stderr, "count 0") {
		t.Errorf("bad [cluster]: status %d, stderr %s", code, stderr)
	}
	// Groups beyond schedsim's limits (issue 21, item 4).
	for _, c := range []struct{ name, group, msg string }{
		{"cores", "count = 2\ncores = 9223372036854775807\n", "more than 67108864 cores"},
		{"one node of MaxInt64 cores", "count = 1\ncores = 9223372036854775807\n", "more than 67108864 cores"},
		{"speed nan", "count = 1\ncores = 4\nspeed = nan\n", "speed NaN"},
		{"speed inf", "count = 1\ncores = 4\nspeed = inf\n", "speed +Inf"},
		{"speed 1e-15", "count = 1\ncores = 4\nspeed = 1e-15\n", "speed 1e-15: want a relative speed from 0.001 to 1000"},
		{"memory", "count = 1\ncores = 4\nmemory_mb = 9223372036854775807\n", "64 TiB"},
	} {
		p := writeFile(t, dir, "limits.toml", "[cluster]\n[[cluster.groups]]\nname = \"n\"\n"+c.group)
		code, _, stderr = run(t, "run", "--trace", trace, "--config", p)
		if code != 2 || !strings.Contains(stderr, c.msg) || strings.Contains(stderr, "--procs") {
			t.Errorf("%s: status %d, stderr %s; want 2 and %q", c.name, code, stderr, c.msg)
		}
	}
	code, _, stderr = run(t, "run", "--trace", trace, "--config", conf, "--procs", "8")
	if code != 2 || !strings.Contains(stderr, "--procs") {
		t.Errorf("--procs with a cluster: status %d, stderr %s", code, stderr)
	}
}

// TestRunClusters runs a cluster of clusters ([[clusters]]): jobs go to the
// faster cluster on equal loads and run faster there, a job larger than
// each cluster spans both, summary.json records the clusters, and the
// schedule verifies.
func TestRunClusters(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, dir, "c.toml", `
[[clusters]]
[[clusters.groups]]
name = "slow"
count = 4
cores = 1
speed = 0.5
[[clusters]]
[[clusters.groups]]
name = "fast"
count = 4
cores = 1
speed = 2
`)
	trace := writeFile(t, dir, "t.swf", `; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 1000 -1 1 1 1 -1 -1 -1 -1 -1
2 0 -1 100 2 -1 -1 2 1000 -1 1 1 1 -1 -1 -1 -1 -1
3 0 -1 100 8 -1 -1 8 1000 -1 1 1 1 -1 -1 -1 -1 -1
`)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := run(t, "run", "--trace", trace, "--config", conf, "--out", out)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "+clusters=2") {
		t.Errorf("policy name lacks the clusters:\n%s", stdout)
	}
	want := map[string][3]string{ // id → start, execution time, allocated resources
		"1": {"0", "50", "4-7"},    // equal loads: the faster cluster, 100 s / 2
		"2": {"0", "200", "0-1"},   // the fast one is full: the slow one, 100 s / 0.5
		"3": {"200", "200", "0-7"}, // larger than either cluster: both, once free, at the slower's pace
	}
	for _, r := range simtest.ReadCSV(t, filepath.Join(out, "jobs.csv"))[1:] {
		w := want[r[0]]
		if w[0] == "" {
			if r[7] != "REJECTED" {
				t.Errorf("job %s: %s, want rejected", r[0], r[7])
			}
			continue
		}
		if r[8] != w[0] || r[9] != w[1] || r[14] != w[2] {
			t.Errorf("job %s: start %s, ran %s s on %q; want %v", r[0], r[8], r[9], r[14], w)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if !strings.Contains(string(b), `"clusters": 2`) {
		t.Errorf("summary.json lacks the clusters:\n%s", b)
	}
	if code, stdout, stderr := run(t, "verify", out); code != 0 || !strings.Contains(stdout, "all invariants hold") {
		t.Errorf("verify: status %d: %s%s", code, stdout, stderr)
	}
	for _, tc := range []struct{ name, conf, msg string }{
		{"one cluster", "[[clusters]]\n[[clusters.groups]]\nname = \"a\"\ncount = 1\ncores = 1\n", "at least two"},
		{"two selectors", "[[clusters]]\nselect = \"cons_res\"\n[[clusters.groups]]\nname = \"a\"\ncount = 1\ncores = 1\n[[clusters]]\n[[clusters.groups]]\nname = \"b\"\ncount = 1\ncores = 1\n", "one selector"},
		{"with [cluster]", "[cluster]\n[[cluster.groups]]\nname = \"a\"\ncount = 1\ncores = 1\n[[clusters]]\n[[clusters.groups]]\nname = \"b\"\ncount = 1\ncores = 1\n", "give one"},
	} {
		bad := writeFile(t, dir, "bad.toml", tc.conf)
		if code, _, stderr := run(t, "run", "--trace", trace, "--config", bad); code != 2 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: status %d, stderr %s", tc.name, code, stderr)
		}
	}
}

// TestOrderOnClusterHPC2N: priority orders, shortest-first backfilling and
// a reservation depth on a cluster of nodes, the
// HPC2N sample on its machine as nodes (120 dual-processor nodes, whole
// nodes under select/linear and cores under cons_res): every run passes
// verify, and the orders change the schedule.
func TestOrderOnClusterHPC2N(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", trace)
	}
	dir := t.TempDir()
	waits := map[string]float64{}
	conf := func(sel string) string {
		return writeFile(t, dir, sel+".toml", "[cluster]\nselect = \""+sel+"\"\n[[cluster.groups]]\nname = \"n\"\ncount = 120\ncores = 2\n")
	}
	for _, tc := range []struct{ backfill, order, sel string }{{"easy", "fcfs", "cons_res"}, {"easy", "sjf", "cons_res"}, {"off", "wfp3", "linear"},
		{"easy", "multifactor", "linear"}, {"easy --sjbf", "fcfs", "linear"}, {"easy --reservation-depth 3", "fcfs", "cons_res"}} {
		out := filepath.Join(dir, strings.ReplaceAll(strings.ReplaceAll(tc.backfill, " --", "-"), " ", "")+"-"+tc.order)
		args := append([]string{"run", "--trace", trace, "--config", conf(tc.sel), "--backfill"}, strings.Fields(tc.backfill)...)
		if code, _, stderr := run(t, append(args, "--order", tc.order, "--out", out, "-q", "--plots=false")...); code != exitOK {
			t.Fatalf("%s %s: exit %d: %s", tc.backfill, tc.order, code, stderr)
		}
		if code, stdout, stderr := run(t, "verify", out); code != exitOK {
			t.Fatalf("%s %s: verify: exit %d:\n%s%s", tc.backfill, tc.order, code, stdout, stderr)
		}
		waits[filepath.Base(out)] = readSummary(t, out).Wait.Mean
	}
	if waits["easy-sjf"] == waits["easy-fcfs"] {
		t.Errorf("sjf gives the same mean wait as fcfs (%.1f s): the order is not applied", waits["easy-sjf"])
	}
	t.Logf("mean waits: %v", waits)
}

// TestRunFederationSettings runs [federation]'s settings (issue 22 item
// 13): without speed scaling, the clusters' speeds only compare loads
// (SCore-D), so job 1 runs its 100 s on the fast cluster and job 2 its
// 100 s on the slow one; mistakes are usage errors.
func TestRunFederationSettings(t *testing.T) {
	dir := t.TempDir()
	clusters := `
[[clusters]]
[[clusters.groups]]
name = "slow"
count = 4
cores = 1
speed = 0.5
[[clusters]]
[[clusters.groups]]
name = "fast"
count = 4
cores = 1
speed = 2
`
	trace := writeFile(t, dir, "t.swf", `; MaxProcs: 8
1 0 -1 100 4 -1 -1 4 1000 -1 1 1 1 -1 -1 -1 -1 -1
2 0 -1 100 2 -1 -1 2 1000 -1 1 1 1 -1 -1 -1 -1 -1
`)
	conf := writeFile(t, dir, "c.toml", "[federation]\nspeed_scales_runtime = false\n"+clusters)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := run(t, "run", "--trace", trace, "--config", conf, "--out", out)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "+clusters=2+speed=loads-only") {
		t.Errorf("policy name lacks the setting:\n%s", stdout)
	}
	want := map[string][3]string{"1": {"0", "100", "4-7"}, "2": {"0", "100", "0-1"}}
	for _, r := range simtest.ReadCSV(t, filepath.Join(out, "jobs.csv"))[1:] {
		if w := want[r[0]]; r[8] != w[0] || r[9] != w[1] || r[14] != w[2] {
			t.Errorf("job %s: start %s, ran %s s on %q; want %v", r[0], r[8], r[9], r[14], w)
		}
	}
	if code, stdout, _ := run(t, "verify", out); code != 0 {
		t.Errorf("verify: %d %s", code, stdout)
	}
	for _, c := range []struct{ conf, msg string }{
		{"[federation]\nassign = \"later\"\n" + clusters, `[federation] assign = "later": want "submission" (the default) or "start"`},
		{"[federation]\nassign = \"start\"\n[cluster]\n[[cluster.groups]]\nname = \"n\"\ncount = 8\ncores = 1\n", "[federation] sets how a cluster of clusters assigns jobs: it needs [[clusters]]"},
	} {
		p := writeFile(t, dir, "bad.toml", c.conf)
		if code, _, stderr := run(t, "run", "--trace", trace, "--config", p, "--out", filepath.Join(dir, "bad")); code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("status %d, stderr %q; want 2 and %q", code, stderr, c.msg)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

func TestParseSlurmConfSample(t *testing.T) {
	sc, err := readSlurmConf("testdata/slurm-hetero.conf")
	if err != nil {
		t.Fatal(err)
	}
	wantGroups := []cluster.NodeGroup{
		{Name: "thin[001-096]", Count: 96, Cores: 32, MemoryMB: 191000, Features: []string{"skylake", "ib"}},
		{Name: "thin[097-128]", Count: 32, Cores: 48, MemoryMB: 257000, Features: []string{"cascadelake", "ib"}},
		{Name: "fat[01-04]", Count: 4, Cores: 72, MemoryMB: 1536000, Features: []string{"skylake", "bigmem"}},
		{Name: "gpu[01-08]", Count: 8, Cores: 80, MemoryMB: 384000, Features: []string{"gpu"}},
	}
	if len(sc.spec.Groups) != len(wantGroups) {
		t.Fatalf("%d node groups, want %d: %+v", len(sc.spec.Groups), len(wantGroups), sc.spec.Groups)
	}
	for i, w := range wantGroups {
		g := sc.spec.Groups[i]
		if g.Name != w.Name || g.Count != w.Count || g.Cores != w.Cores || g.MemoryMB != w.MemoryMB || !slices.Equal(g.Features, w.Features) {
			t.Errorf("group %d: %+v, want %+v", i, g, w)
		}
	}
	if sc.spec.Select != cluster.SelectConsRes || sc.scheduler != "sched/backfill" {
		t.Errorf("select %q, scheduler %q", sc.spec.Select, sc.scheduler)
	}
	wantParts := []cluster.Partition{
		{Name: "batch", Groups: []string{"thin[001-096]", "thin[097-128]"}, MaxTime: 2 * 86400, DefaultTime: 3600, PriorityTier: 1, OverSubscribe: "NO", Default: true},
		{Name: "bigmem", Groups: []string{"fat[01-04]"}, MaxTime: 7 * 86400, DefaultTime: 3600, PriorityTier: 1, OverSubscribe: "YES"},
		{Name: "gpu", Groups: []string{"gpu[01-08]"}, MaxTime: 86400, DefaultTime: 1800, PriorityTier: 2},
		{Name: "debug", Groups: []string{"thin[001-096]", "gpu[01-08]"}, MaxTime: 1800, DefaultTime: 600, PriorityTier: 10, OverSubscribe: "FORCE"},
	}
	for i, w := range wantParts {
		if i >= len(sc.spec.Partitions) {
			t.Fatalf("%d partitions, want %d", len(sc.spec.Partitions), len(wantParts))
		}
		p := sc.spec.Partitions[i]
		if p.Name != w.Name || !slices.Equal(p.Groups, w.Groups) || p.MaxTime != w.MaxTime || p.DefaultTime != w.DefaultTime ||
			p.PriorityTier != w.PriorityTier || p.OverSubscribe != w.OverSubscribe || p.Default != w.Default {
			t.Errorf("partition %d: %+v, want %+v", i, p, w)
		}
	}
	wantParams := policy.SlurmParams{MaxJobTest: 1000, Window: 2880 * 60, Resolution: 300, Interval: 60, Continue: true, QueueDepth: 200}
	if sc.params != wantParams {
		t.Errorf("scheduler parameters %+v, want %+v", sc.params, wantParams)
	}
	unknown := strings.Join(sc.unknown, "; ")
	for _, k := range []string{"line 3: ClusterName", "SchedulerParameters max_rpc_cnt", "line 19: PriorityType", "NodeName State", "NodeName Gres", "PartitionName State"} {
		if !strings.Contains(unknown, k) {
			t.Errorf("unknown keys %q lack %q", unknown, k)
		}
	}
	if got := sc.spec.Cores(); got != 96*32+32*48+4*72+8*80 {
		t.Errorf("%d cores", got)
	}
}

func TestParseSlurmConfBroken(t *testing.T) {
	_, err := readSlurmConf("testdata/slurm-broken.conf")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"slurm-broken.conf:4: CPUs=thirtytwo: want a positive whole number",
		"slurm-broken.conf:5: NodeName=m[5-2]",
		"slurm-broken.conf:6: NodeName=x[01-04",
		"slurm-broken.conf:7: \"this\": want Key=Value",
		"slurm-broken.conf:8: MaxTime=2-xx",
		"slurm-broken.conf:9: SchedulerParameters bf_window=-5",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nlacks %q", err, want)
		}
	}
}

func TestParseSlurmConfLines(t *testing.T) {
	tests := []struct {
		name string
		conf string
		err  string // "" = parses
		sel  string
		mem  int64 // memory of the first group
	}{
		{"linear by default", "NodeName=a[1-4] CPUs=4 RealMemory=100", "", cluster.SelectLinear, 100},
		{"cons_res without memory drops it", "SelectType=select/cons_res\nSelectTypeParameters=CR_Core\nNodeName=a[1-4] CPUs=4 RealMemory=100", "", cluster.SelectConsRes, 0},
		{"cores from sockets", "NodeName=DEFAULT Sockets=2 CoresPerSocket=8\nNodeName=a1", "", cluster.SelectLinear, 0},
		{"quoted values", "NodeName=a1 CPUs=2 Feature=\"x,y\"", "", cluster.SelectLinear, 0},
		{"no nodes", "ClusterName=x", ":1: no NodeName lines", "", 0},
		{"node twice", "NodeName=a[1-2] CPUs=1\nNodeName=a2 CPUs=1", ":2: NodeName=a2: node a2 defined twice", "", 0},
		{"unknown partition node", "NodeName=a1 CPUs=1\nPartitionName=p Nodes=b1", ":2: PartitionName=p: node b1 has no NodeName line", "", 0},
		{"bad select", "SelectType=select/cray_aries\nNodeName=a1", ":1: SelectType=select/cray_aries", "", 0},
		{"bad oversubscribe", "NodeName=a1\nPartitionName=p Nodes=ALL OverSubscribe=MAYBE", ":2: OverSubscribe=MAYBE", "", 0},
		{"default beyond max", "NodeName=a1\nPartitionName=p Nodes=ALL MaxTime=10 DefaultTime=20", "default time 1200 exceeds max time 600", "", 0},
		{"window beyond Slurm's maximum", "NodeName=a1\nSchedulerParameters=bf_window=50000", "bf_window", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := parseSlurmConf(strings.NewReader(tc.conf), "s.conf")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.spec.Select != tc.sel || sc.spec.Groups[0].MemoryMB != tc.mem {
				t.Errorf("select %q memory %d, want %q %d", sc.spec.Select, sc.spec.Groups[0].MemoryMB, tc.sel, tc.mem)
			}
		})
	}
}

func TestExpandHostlist(t *testing.T) {
	tests := []struct {
		in   string
		want string // names joined by spaces; "!" = error
	}{
		{"n1", "n1"},
		{"n[1-3]", "n1 n2 n3"},
		{"n[008-010]", "n008 n009 n010"},
		{"n[1-2,5],gpu[01-02]-ib", "n1 n2 n5 gpu01-ib gpu02-ib"},
		{"a,b", "a b"},
		{"n[3-1]", "!"},
		{"n[1-2", "!"},
		{"n1]", "!"},
		{"n[x-2]", "!"},
		{"a,,b", "!"},
		{"n[0-99999999]", "!"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := expandHostlist(tc.in)
			if tc.want == "!" {
				if err == nil {
					t.Errorf("expanded to %v, want an error", got)
				}
				return
			}
			if err != nil || strings.Join(got, " ") != tc.want {
				t.Errorf("= %v, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestParseSlurmTime(t *testing.T) {
	tests := []struct {
		in   string
		want workload.Time // -1 = error
	}{
		{"30", 1800}, {"30:15", 1815}, {"01:00:00", 3600}, {"2-00:00:00", 2 * 86400},
		{"1-12", 86400 + 12*3600}, {"1-0:30", 86400 + 1800}, {"UNLIMITED", 0}, {"infinite", 0},
		{"", -1}, {"x", -1}, {"1:2:3:4", -1}, {"-5", -1}, {"2-xx", -1},
	}
	for _, tc := range tests {
		got, err := parseSlurmTime(tc.in)
		if (err != nil) != (tc.want < 0) || (err == nil && got != tc.want) {
			t.Errorf("parseSlurmTime(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

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
	rows := readCSVRows(t, filepath.Join(dir, "jobs.csv"))
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
	code, _, stderr = run(t, "run", "--slurm-conf", "testdata/slurm-hetero.conf", "--backfill", "conservative")
	if code != 2 || !strings.Contains(stderr, "needs --backfill off, easy") {
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
	rows := readCSVRows(t, filepath.Join(out, "jobs.csv"))
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

// FuzzParseSlurmConf checks that no input makes the parser panic, and that
// whatever it accepts is a valid cluster description.
func FuzzParseSlurmConf(f *testing.F) {
	for _, p := range []string{"testdata/slurm-hetero.conf", "testdata/slurm-broken.conf"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("NodeName=n[1-2,4] CPUs=2\nPartitionName=p Nodes=n[1-2] MaxTime=1-0")
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := parseSlurmConf(strings.NewReader(s), "f")
		if err != nil {
			return
		}
		if err := sc.spec.Validate(); err != nil {
			t.Fatalf("accepted an invalid description: %v", err)
		}
		if sc.spec.Cores() > 1<<16 {
			return // valid, but too big to allocate at fuzzing speed
		}
		if _, err := sc.spec.NewAllocator(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReadmeClusterExample loads the README's [cluster] example: the
// documentation is tested.
func TestReadmeClusterExample(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "### The cluster: nodes")
	if i < 0 {
		t.Fatal("README has no cluster section")
	}
	s = s[i:]
	i = strings.Index(s, "```toml\n")
	j := strings.Index(s[i+8:], "```")
	if i < 0 || j < 0 {
		t.Fatal("README's cluster section has no toml block")
	}
	path := writeFile(t, t.TempDir(), "c.toml", s[i+8:i+8+j])
	cfg, err := loadRunConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	spec := cfg.Cluster.spec()
	if spec.Select != cluster.SelectConsRes || spec.Cores() != 128*32+4*72 || len(spec.Partitions) != 1 || spec.Partitions[0].MaxTime != 2*86400 {
		t.Errorf("README example read as %+v", spec)
	}
}

// TestRunClusters runs a cluster of clusters ([[clusters]]): jobs go to the
// faster cluster on equal loads and run faster there, summary.json records
// the clusters, and the schedule verifies.
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
		"1": {"0", "50", "4-7"},  // equal loads: the faster cluster, 100 s / 2
		"2": {"0", "200", "0-1"}, // the fast one is full: the slow one, 100 s / 0.5
		"3": {"", "", ""},        // larger than either cluster: rejected
	}
	for _, r := range readCSVRows(t, filepath.Join(out, "jobs.csv"))[1:] {
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

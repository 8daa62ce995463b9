package slurmconf

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

func TestParseSlurmConfSample(t *testing.T) {
	sc, err := Read("testdata/slurm-hetero.conf")
	if err != nil {
		t.Fatal(err)
	}
	wantGroups := []cluster.NodeGroup{
		// debug holds thin[001-004] and gpu01 only: their NodeName lines
		// are split where the partitions that hold the nodes change.
		{Name: "thin[001-004]", Count: 4, Cores: 32, MemoryMB: 191000, Features: []string{"skylake", "ib"}},
		{Name: "thin[005-096]", Count: 92, Cores: 32, MemoryMB: 191000, Features: []string{"skylake", "ib"}},
		{Name: "thin[097-128]", Count: 32, Cores: 48, MemoryMB: 257000, Features: []string{"cascadelake", "ib"}},
		{Name: "fat[01-04]", Count: 4, Cores: 72, MemoryMB: 1536000, Features: []string{"skylake", "bigmem"}},
		{Name: "gpu01", Count: 1, Cores: 80, MemoryMB: 384000, Features: []string{"gpu"}},
		{Name: "gpu[02-08]", Count: 7, Cores: 80, MemoryMB: 384000, Features: []string{"gpu"}},
	}
	if len(sc.Spec.Groups) != len(wantGroups) {
		t.Fatalf("%d node groups, want %d: %+v", len(sc.Spec.Groups), len(wantGroups), sc.Spec.Groups)
	}
	for i, w := range wantGroups {
		g := sc.Spec.Groups[i]
		if g.Name != w.Name || g.Count != w.Count || g.Cores != w.Cores || g.MemoryMB != w.MemoryMB || !slices.Equal(g.Features, w.Features) {
			t.Errorf("group %d: %+v, want %+v", i, g, w)
		}
	}
	if sc.Spec.Select != cluster.SelectConsRes || sc.Scheduler != "sched/backfill" {
		t.Errorf("select %q, scheduler %q", sc.Spec.Select, sc.Scheduler)
	}
	wantParts := []cluster.Partition{
		{Name: "batch", Groups: []string{"thin[001-004]", "thin[005-096]", "thin[097-128]"}, MaxTime: 2 * 86400, DefaultTime: 3600, PriorityTier: 1, OverSubscribe: "NO", Default: true},
		{Name: "bigmem", Groups: []string{"fat[01-04]"}, MaxTime: 7 * 86400, DefaultTime: 3600, PriorityTier: 1, OverSubscribe: "YES"},
		{Name: "gpu", Groups: []string{"gpu01", "gpu[02-08]"}, MaxTime: 86400, DefaultTime: 1800, PriorityTier: 2},
		{Name: "debug", Groups: []string{"thin[001-004]", "gpu01"}, MaxTime: 1800, DefaultTime: 600, PriorityTier: 10, OverSubscribe: "FORCE"},
	}
	for i, w := range wantParts {
		if i >= len(sc.Spec.Partitions) {
			t.Fatalf("%d partitions, want %d", len(sc.Spec.Partitions), len(wantParts))
		}
		p := sc.Spec.Partitions[i]
		if p.Name != w.Name || !slices.Equal(p.Groups, w.Groups) || p.MaxTime != w.MaxTime || p.DefaultTime != w.DefaultTime ||
			p.PriorityTier != w.PriorityTier || p.OverSubscribe != w.OverSubscribe || p.Default != w.Default {
			t.Errorf("partition %d: %+v, want %+v", i, p, w)
		}
	}
	wantParams := policy.SlurmParams{MaxJobTest: 1000, Window: 2880 * 60, Resolution: 300, Interval: 60, Continue: true, QueueDepth: 200}
	if sc.Params != wantParams {
		t.Errorf("scheduler parameters %+v, want %+v", sc.Params, wantParams)
	}
	unknown := strings.Join(sc.Unknown, "; ")
	for _, k := range []string{"line 3: ClusterName", "SchedulerParameters max_rpc_cnt", "line 19: PriorityType", "NodeName State", "NodeName Gres", "PartitionName State"} {
		if !strings.Contains(unknown, k) {
			t.Errorf("unknown keys %q lack %q", unknown, k)
		}
	}
	if got := sc.Spec.Cores(); got != 96*32+32*48+4*72+8*80 {
		t.Errorf("%d cores", got)
	}
}

// TestPartitionsSplitGroups checks that a partition holds the nodes it
// names, not their whole NodeName lines: the lines are split into runs of
// nodes, in their order, that the same partitions hold.
func TestPartitionsSplitGroups(t *testing.T) {
	for _, c := range []struct {
		name, conf string
		groups     []string // name:count
		parts      map[string][]string
	}{
		{"whole lines", "NodeName=a[1-4] CPUs=2\nPartitionName=p Nodes=a[1-4]\nPartitionName=q Nodes=ALL",
			[]string{"a[1-4]:4"}, map[string][]string{"p": {"a[1-4]"}, "q": {"a[1-4]"}}},
		{"a subset", "NodeName=n[01-10] CPUs=4\nPartitionName=all Nodes=n[01-10]\nPartitionName=dbg Nodes=n[01-02]",
			[]string{"n[01-02]:2", "n[03-10]:8"}, map[string][]string{"all": {"n[01-02]", "n[03-10]"}, "dbg": {"n[01-02]"}}},
		{"not contiguous: the nodes keep their order", "NodeName=n[1-6] CPUs=1\nPartitionName=p Nodes=n[2,5]\nPartitionName=r Nodes=n[1-6]",
			[]string{"n1:1", "n2:1", "n[3-4]:2", "n5:1", "n6:1"}, map[string][]string{"p": {"n2", "n5"}, "r": {"n1", "n2", "n[3-4]", "n5", "n6"}}},
		{"two lines, one partition over both, listed twice", "NodeName=x[1-2] CPUs=1\nNodeName=y[1-3] CPUs=2\nPartitionName=p Nodes=x2,y[1-2],y1",
			[]string{"x1:1", "x2:1", "y[1-2]:2", "y3:1"}, map[string][]string{"p": {"x2", "y[1-2]"}}},
		{"nodes in no partition stay apart", "NodeName=z[1-3] CPUs=1\nPartitionName=p Nodes=z3",
			[]string{"z[1-2]:2", "z3:1"}, map[string][]string{"p": {"z3"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := Parse(strings.NewReader(c.conf), "t.conf")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range sc.Spec.Groups {
				got = append(got, fmt.Sprintf("%s:%d", g.Name, g.Count))
			}
			if !slices.Equal(got, c.groups) {
				t.Errorf("groups %v, want %v", got, c.groups)
			}
			for _, p := range sc.Spec.Partitions {
				if !slices.Equal(p.Groups, c.parts[p.Name]) {
					t.Errorf("partition %s: groups %v, want %v", p.Name, p.Groups, c.parts[p.Name])
				}
			}
		})
	}
}

func TestCompressHostlist(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"n1"}, "n1"},
		{[]string{"n001", "n002", "n003"}, "n[001-003]"},
		{[]string{"n8", "n9", "n10"}, "n[8-9],n10"},
		{[]string{"a1", "a2", "b3", "a4"}, "a[1-2],b3,a4"},
		{[]string{"head", "n1", "n2"}, "head,n[1-2]"},
		{[]string{"x05", "x04"}, "x05,x04"},
	} {
		if got := compressHostlist(c.names); got != c.want {
			t.Errorf("compressHostlist(%v) = %q, want %q", c.names, got, c.want)
		}
		if back, err := ExpandHostlist(compressHostlist(c.names)); err != nil || !slices.Equal(back, c.names) {
			t.Errorf("%v: expands back to %v (%v)", c.names, back, err)
		}
	}
}

func TestParseSlurmConfBroken(t *testing.T) {
	_, err := Read("testdata/slurm-broken.conf")
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
		crm  bool  // linear tracks memory (CR_Memory)
	}{
		{"linear by default", "NodeName=a[1-4] CPUs=4 RealMemory=100", "", cluster.SelectLinear, 100, false},
		{"linear with CR_Memory", "SelectType=select/linear\nSelectTypeParameters=CR_ONE_TASK_PER_CORE,CR_Memory\nNodeName=a[1-4] CPUs=4 RealMemory=100", "", cluster.SelectLinear, 100, true},
		{"cons_res without memory drops it", "SelectType=select/cons_res\nSelectTypeParameters=CR_Core\nNodeName=a[1-4] CPUs=4 RealMemory=100", "", cluster.SelectConsRes, 0, false},
		{"cores from sockets", "NodeName=DEFAULT Sockets=2 CoresPerSocket=8\nNodeName=a1", "", cluster.SelectLinear, 0, false},
		{"quoted values", "NodeName=a1 CPUs=2 Feature=\"x,y\"", "", cluster.SelectLinear, 0, false},
		{"no nodes", "ClusterName=x", ":1: no NodeName lines", "", 0, false},
		{"node twice", "NodeName=a[1-2] CPUs=1\nNodeName=a2 CPUs=1", ":2: NodeName=a2: node a2 defined twice", "", 0, false},
		{"unknown partition node", "NodeName=a1 CPUs=1\nPartitionName=p Nodes=b1", ":2: PartitionName=p: node b1 has no NodeName line", "", 0, false},
		{"bad select", "SelectType=select/cray_aries\nNodeName=a1", ":1: SelectType=select/cray_aries", "", 0, false},
		{"bad oversubscribe", "NodeName=a1\nPartitionName=p Nodes=ALL OverSubscribe=MAYBE", ":2: OverSubscribe=MAYBE", "", 0, false},
		{"default beyond max", "NodeName=a1\nPartitionName=p Nodes=ALL MaxTime=10 DefaultTime=20", "default time 1200 exceeds max time 600", "", 0, false},
		{"window beyond Slurm's maximum", "NodeName=a1\nSchedulerParameters=bf_window=50000", "bf_window", "", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse(strings.NewReader(tc.conf), "s.conf")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.Spec.Select != tc.sel || sc.Spec.Groups[0].MemoryMB != tc.mem || sc.Spec.CRMemory != tc.crm {
				t.Errorf("select %q memory %d CR_Memory %v, want %q %d %v", sc.Spec.Select, sc.Spec.Groups[0].MemoryMB, sc.Spec.CRMemory, tc.sel, tc.mem, tc.crm)
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
			got, err := ExpandHostlist(tc.in)
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
		got, err := ParseTime(tc.in)
		if (err != nil) != (tc.want < 0) || (err == nil && got != tc.want) {
			t.Errorf("ParseTime(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
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
		sc, err := Parse(strings.NewReader(s), "f")
		if err != nil {
			return
		}
		if err := sc.Spec.Validate(); err != nil {
			t.Fatalf("accepted an invalid description: %v", err)
		}
		if sc.Spec.Cores() > 1<<16 {
			return // valid, but too big to allocate at fuzzing speed
		}
		if _, err := sc.Spec.NewAllocator(); err != nil {
			t.Fatal(err)
		}
		// Every group, split or not, is named by the host list of its
		// own nodes, and no node is in two groups.
		seen := map[string]bool{}
		for _, g := range sc.Spec.Groups {
			names, err := ExpandHostlist(g.Name)
			if err != nil || len(names) != g.Count {
				t.Fatalf("group %q of %d nodes expands to %d names (%v)", g.Name, g.Count, len(names), err)
			}
			for _, nm := range names {
				if seen[nm] {
					t.Fatalf("node %s is in two groups", nm)
				}
				seen[nm] = true
			}
		}
	})
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/workload"
)

// readSummary reads DIR/summary.json.
func readSummary(t *testing.T, dir string) report.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s report.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// csvRows returns jobs.csv's rows by job id, split on commas (the rows
// here hold no quoted field).
func csvRows(t *testing.T, dir string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(l, ",")
		rows[f[0]] = f
	}
	return rows
}

// TestRunNodeEvents runs the small trace (8 processors, EASY) with nodes
// 0-3 down from 20 to 60 and checks jobs.csv, summary.json and verify.
//
// Without the failure: 1 (4 procs) runs on 0-3 from 0 to 100; 2 (8 procs)
// waits for it; 3 (4 procs, at 5, ends by 65 < 100) backfills on 4-7 until
// 55; 4 (16 procs) is rejected.
//
// kill: 1 dies at 20 ("node 0 down: rack"); 2 cannot fit the 4 processors
// in service and starts when 0-3 resume at 60.
//
// requeue: 1 goes back to the head at 20; nothing is free until 3 ends at
// 55, when 1 restarts on 4-7 (until 155); 2 starts at 155.
func TestRunNodeEvents(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "small.swf", smallTrace)
	events := writeFile(t, dir, "events.txt", "# rack 0\n20 DOWN 0-3 rack\n1m RESUME 0-3\n")
	cases := []struct {
		mode string
		// job id → final_state, starting_time, finish_time, allocated, metadata
		want     map[string][5]string
		killed   int64
		requeued int64
	}{
		{"kill", map[string][5]string{
			"1": {"COMPLETED_KILLED", "0", "20", "0-3", "node 0 down: rack"},
			"2": {"COMPLETED_SUCCESSFULLY", "60", "160", "0-7", ""},
			"3": {"COMPLETED_SUCCESSFULLY", "5", "55", "4-7", ""},
		}, 1, 0},
		{"requeue", map[string][5]string{
			"1": {"COMPLETED_SUCCESSFULLY", "55", "155", "4-7", "requeues=1"},
			"2": {"COMPLETED_SUCCESSFULLY", "155", "255", "0-7", ""},
			"3": {"COMPLETED_SUCCESSFULLY", "5", "55", "4-7", ""},
		}, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			out := filepath.Join(dir, c.mode)
			code, stdout, stderr := run(t, "run", "--trace", trace, "--node-events", events, "--on-node-fail", c.mode, "--out", out)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "lost to node failures") {
				t.Errorf("summary table without the node failures:\n%s", stdout)
			}
			rows := csvRows(t, out)
			for id, w := range c.want {
				f := rows[id]
				got := [5]string{f[7], f[8], f[10], f[14], f[16]}
				if got != w {
					t.Errorf("job %s: %q, want %q", id, got, w)
				}
			}
			s := readSummary(t, out)
			n := s.NodeFailures
			if n == nil {
				t.Fatal("summary.json has no node_failures")
			}
			// 1 lost its 20 s on 4 processors; 0-3 were idle out of
			// service for 40 s (kill) or from 20 to 60 too (requeue: 1
			// was off them at once).
			if n.Killed != c.killed || n.Requeued != c.requeued || n.LostProcSec != 80 || n.UnavailableProcSec != 160 || s.NodeFail != c.killed {
				t.Errorf("node_failures %+v, node_fail %d", *n, s.NodeFail)
			}
			if len(n.Events) != 2 || n.Events[1] != "60 RESUME 0-3" || n.OnNodeFail != c.mode {
				t.Errorf("events %q, on failure %q", n.Events, n.OnNodeFail)
			}
			if code, stdout, stderr := run(t, "verify", out); code != exitOK || !strings.Contains(stdout, "all invariants hold") {
				t.Fatalf("verify: exit %d:\n%s%s", code, stdout, stderr)
			}
		})
	}

	// verify catches a job moved onto a node that is down.
	out := filepath.Join(dir, "kill")
	p := filepath.Join(out, "jobs.csv")
	b, _ := os.ReadFile(p)
	broken := strings.Replace(string(b), ",COMPLETED_SUCCESSFULLY,5,50,55,0,50,", ",COMPLETED_SUCCESSFULLY,25,50,75,20,70,", 1)
	broken = strings.Replace(broken, ",4-7,", ",0-3,", 1)
	if broken == string(b) {
		t.Fatal("could not break jobs.csv")
	}
	if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := run(t, "verify", out); code != exitError || !strings.Contains(stdout, "node-state") {
		t.Fatalf("verify of a job run on a down node: exit %d:\n%s", code, stdout)
	}
}

func TestRunNodeEventsErrors(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "small.swf", smallTrace)
	good := writeFile(t, dir, "good.txt", "20 DOWN 0-3\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"node past the machine", []string{"--node-events", writeFile(t, dir, "big.txt", "# x\n20 DOWN 0-8\n")}, `big.txt:2: column "nodes": node 8: the machine has nodes 0-7`},
		{"node past the machine with node size", []string{"--node-events", good, "--node-size", "4"}, `node 3: the machine has nodes 0-1`},
		{"bad state", []string{"--node-events", writeFile(t, dir, "st.txt", "20 BROKEN 1\n")}, `st.txt:1: column "state"`},
		{"bad action", []string{"--node-events", good, "--on-node-fail", "ignore"}, `--on-node-fail "ignore"`},
		{"bad node size", []string{"--node-events", good, "--node-size", "0"}, "--node-size 0"},
		{"missing file", []string{"--node-events", filepath.Join(dir, "none.txt")}, "--node-events: open " + filepath.Join(dir, "none.txt")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			code, _, stderr := run(t, append([]string{"run", "--trace", trace, "--out", out, "-q"}, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tc.want)
			}
			if _, err := os.Stat(filepath.Join(out, "jobs.csv")); err == nil {
				t.Errorf("a failed run left %s", filepath.Join(out, "jobs.csv"))
			}
		})
	}
}

// TestNodeEventsLANL runs the failure scenario of issue 8 on LANL-CM5 with
// EASY: 10 % of the nodes (0-102 of 1024) down for day 346, killed or
// requeued, against the run without failure; every run passes verify.
// LANL-CM5 is a big trace: in full runs only (CI=true go test).
func TestNodeEventsLANL(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", trace)
	}
	skipBigTrace(t, trace)
	dir := t.TempDir()
	events := filepath.Join("testdata", "lanl-10pct-down-1day.nodes")
	sums := map[string]report.Summary{}
	for _, mode := range []string{"none", "kill", "requeue"} {
		out := filepath.Join(dir, mode)
		args := []string{"run", "--trace", trace, "--backfill", "easy", "--lookahead", "all", "--out", out, "-q", "--plots=false"}
		if mode != "none" {
			args = append(args, "--node-events", events, "--on-node-fail", mode)
		}
		if code, _, stderr := run(t, args...); code != exitOK {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		if code, stdout, stderr := run(t, "verify", out); code != exitOK {
			t.Fatalf("%s: verify: exit %d:\n%s%s", mode, code, stdout, stderr)
		}
		sums[mode] = readSummary(t, out)
	}
	none, kill, requeue := sums["none"], sums["kill"], sums["requeue"]
	if none.NodeFailures != nil {
		t.Fatal("a run without node events reports node failures")
	}
	for _, s := range []report.Summary{kill, requeue} {
		n := s.NodeFailures
		// 103 processors out for 86400 s; the jobs on them were cut short.
		if n.UnavailableProcSec > 103*86400 || n.UnavailableProcSec < 103*86400-n.LostProcSec {
			t.Errorf("%s: %d processor-s out of service, want about 103·86400 = %d", n.OnNodeFail, n.UnavailableProcSec, 103*86400)
		}
		if n.Killed+n.Requeued == 0 || n.LostProcSec <= 0 {
			t.Errorf("%s: the failure of a full machine's nodes hit no job: %+v", n.OnNodeFail, *n)
		}
		if s.Wait.Mean <= none.Wait.Mean {
			t.Errorf("%s: mean wait %.1f s, not above %.1f s without the failure", n.OnNodeFail, s.Wait.Mean, none.Wait.Mean)
		}
		if s.Jobs != none.Jobs || s.Started != none.Started {
			t.Errorf("%s: %d jobs, %d started; without the failure %d, %d", n.OnNodeFail, s.Jobs, s.Started, none.Jobs, none.Started)
		}
	}
	if kill.NodeFailures.Killed != kill.NodeFail || requeue.NodeFailures.Killed != 0 || requeue.NodeFailures.Requeued != kill.NodeFailures.Killed {
		t.Errorf("kill: %+v; requeue: %+v (the same jobs die first in both)", *kill.NodeFailures, *requeue.NodeFailures)
	}
	t.Logf("mean wait: none %.1f s, kill %.1f s, requeue %.1f s", none.Wait.Mean, kill.Wait.Mean, requeue.Wait.Mean)
}

// TestNodeEventsConservativeLANL: conservative backfilling re-plans on the
// capacity the node events leave; its runs pass verify, and a requeued
// run killed with SIGKILL and resumed writes the same files.
func TestNodeEventsConservativeLANL(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", trace)
	}
	skipBigTrace(t, trace)
	dir := t.TempDir()
	events := filepath.Join("testdata", "lanl-10pct-down-1day.nodes")
	for _, mode := range []string{"kill", "requeue"} {
		out := filepath.Join(dir, mode)
		args := []string{"run", "--trace", trace, "--backfill", "conservative", "--node-events", events, "--on-node-fail", mode, "--out", out, "-q", "--plots=false"}
		if code, _, stderr := run(t, args...); code != exitOK {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		if code, stdout, stderr := run(t, "verify", out); code != exitOK {
			t.Fatalf("%s: verify: exit %d:\n%s%s", mode, code, stdout, stderr)
		}
		n := readSummary(t, out).NodeFailures
		if n == nil || n.Killed+n.Requeued == 0 {
			t.Fatalf("%s: the failure hit no job: %+v", mode, n)
		}
	}
	killResumeCompare(t, filepath.Join(dir, "ck"), 10, "30d", "run", "--trace", trace, "--backfill", "conservative",
		"--node-events", events, "--on-node-fail", "requeue", "-q")
}

// TestRunNodeEventsCluster runs TestRunNodeEvents' kill case on a cluster
// of 4 nodes of 2 cores: nodes 0-1 (cores 0-3) go down at 20, so the same
// jobs get the same times, on nodes (linear) or cores (cons_res).
func TestRunNodeEventsCluster(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "small.swf", smallTrace)
	events := writeFile(t, dir, "events.txt", "20 DOWN 0-1 rack\n60 RESUME 0-1\n")
	for _, c := range []struct {
		sel    string
		allocs [3]string // jobs 1, 2, 3
	}{
		{"linear", [3]string{"0-1", "0-3", "2-3"}},
		{"cons_res", [3]string{"0-3", "0-7", "4-7"}},
	} {
		t.Run(c.sel, func(t *testing.T) {
			conf := writeFile(t, dir, c.sel+".toml", `
[cluster]
select = "`+c.sel+`"
[[cluster.groups]]
name = "n"
count = 4
cores = 2
`)
			out := filepath.Join(dir, c.sel)
			if code, _, stderr := run(t, "run", "--trace", trace, "--config", conf, "--node-events", events, "--out", out, "-q"); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			rows := csvRows(t, out)
			want := map[string][5]string{
				"1": {"COMPLETED_KILLED", "0", "20", c.allocs[0], "predicted_start=0 predicted_resources=" + c.allocs[0] + " node 0 down: rack"},
				"2": {"COMPLETED_SUCCESSFULLY", "60", "160", c.allocs[1], "predicted_start=0 predicted_resources=" + c.allocs[1]},
				"3": {"COMPLETED_SUCCESSFULLY", "5", "55", c.allocs[2], "predicted_start=5 predicted_resources=" + c.allocs[2]},
			}
			for id, w := range want {
				f := rows[id]
				if got := [5]string{f[7], f[8], f[10], f[14], f[16]}; got != w {
					t.Errorf("job %s: %q, want %q", id, got, w)
				}
			}
			if n := readSummary(t, out).NodeFailures; n == nil || n.Nodes != 4 || n.Killed != 1 || n.LostProcSec != 80 {
				t.Errorf("node_failures %+v", n)
			}
			if code, stdout, stderr := run(t, "verify", out); code != exitOK {
				t.Fatalf("verify: exit %d:\n%s%s", code, stdout, stderr)
			}
		})
	}
	conf := writeFile(t, dir, "size.toml", "[cluster]\nselect = \"linear\"\n[[cluster.groups]]\nname = \"n\"\ncount = 4\ncores = 2\n")
	if code, _, stderr := run(t, "run", "--trace", trace, "--config", conf, "--node-events", events, "--node-size", "2", "-q"); code != exitUsage || !strings.Contains(stderr, "the nodes are the cluster's") {
		t.Errorf("--node-size on a cluster: exit %d: %s", code, stderr)
	}
}

// TestRunNodeEventsParquet gives the schedule of TestRunNodeEvents as a
// Parquet table: the run's outputs are the same, byte for byte.
func TestRunNodeEventsParquet(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "small.swf", smallTrace)
	text := writeFile(t, dir, "events.txt", "20 DOWN 0-3 rack\n60 RESUME 0-3\n")
	var b bytes.Buffer
	if err := workload.WriteParquetTable(&b, []string{"time", "state", "nodes", "reason"}, [][]string{{"20", "DOWN", "0-3", "rack"}, {"1m", "RESUME", "0-3", ""}}); err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(dir, "events.parquet")
	if err := os.WriteFile(pq, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out [2][]byte
	for i, ev := range []string{text, pq} {
		d := filepath.Join(dir, fmt.Sprint(i))
		if code, _, stderr := run(t, "run", "--trace", trace, "--node-events", ev, "--out", d, "-q", "--plots=false"); code != exitOK {
			t.Fatalf("%s: exit %d: %s", ev, code, stderr)
		}
		jobs, _ := os.ReadFile(filepath.Join(d, "jobs.csv"))
		sum, _ := os.ReadFile(filepath.Join(d, "summary.json"))
		out[i] = append(jobs, sum...)
	}
	if !bytes.Equal(out[0], out[1]) || !bytes.Contains(out[0], []byte("COMPLETED_KILLED")) {
		t.Errorf("the Parquet schedule gives other outputs than the text one:\n%s\n---\n%s", out[0], out[1])
	}
	bad := filepath.Join(dir, "bad.parquet")
	os.WriteFile(bad, b.Bytes()[:b.Len()-20], 0o644)
	if code, _, stderr := run(t, "run", "--trace", trace, "--node-events", bad, "-q"); code != exitUsage || !strings.Contains(stderr, "bad.parquet") {
		t.Errorf("a truncated Parquet schedule: exit %d: %s", code, stderr)
	}
}

// TestNodeEventsClustersLANL: node events on a cluster of clusters, LANL-CM5
// on two clusters of 512 one-processor nodes (cons_res), nodes numbered
// cluster after cluster: 10 % of the nodes, all in the first cluster, down
// for a day. The runs pass verify; the requeued one, killed with SIGKILL and
// resumed, writes the same files.
func TestNodeEventsClustersLANL(t *testing.T) {
	trace := filepath.Join("..", "..", "..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", trace)
	}
	skipBigTrace(t, trace)
	dir := t.TempDir()
	conf := writeFile(t, dir, "clusters.toml", `
[[clusters]]
select = "cons_res"
[[clusters.groups]]
name = "a"
count = 512
cores = 1

[[clusters]]
select = "cons_res"
[[clusters.groups]]
name = "b"
count = 512
cores = 1
`)
	events := filepath.Join("testdata", "lanl-10pct-down-1day.nodes")
	for _, mode := range []string{"kill", "requeue"} {
		out := filepath.Join(dir, mode)
		args := []string{"run", "--trace", trace, "--config", conf, "--node-events", events, "--on-node-fail", mode, "--out", out, "-q", "--plots=false"}
		if code, _, stderr := run(t, args...); code != exitOK {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		if code, stdout, stderr := run(t, "verify", out); code != exitOK {
			t.Fatalf("%s: verify: exit %d:\n%s%s", mode, code, stdout, stderr)
		}
		n := readSummary(t, out).NodeFailures
		if n == nil || n.Killed+n.Requeued == 0 {
			t.Fatalf("%s: the failure hit no job: %+v", mode, n)
		}
	}
	killResumeCompare(t, filepath.Join(dir, "ck"), 10, "30d", "run", "--trace", trace, "--config", conf,
		"--node-events", events, "--on-node-fail", "requeue", "-q")
}

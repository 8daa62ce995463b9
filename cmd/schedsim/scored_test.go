package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scoredTrace: two full-machine jobs of trace queue 1 at 0, one of trace
// queue 5 at 10, one of queue 5 from group 7 at 20.
const scoredTrace = `; Version: 2.2
; MaxProcs: 4
1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1
2 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1
3 10 -1 50 4 -1 -1 4 100 -1 1 1 1 -1 5 -1 -1 -1
4 20 -1 50 4 -1 -1 4 100 -1 1 1 7 -1 5 -1 -1 -1
`

// readScoreDJobs reads DIR/jobs.csv into maps by column name, keyed by job_id.
func readScoreDJobs(t *testing.T, dir string) map[string]map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out[m["job_id"]] = m
	}
	return out
}

func TestRunScoreD(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "q.swf", scoredTrace)
	conf := writeFile(t, dir, "scored.toml", `
[scored]
mode = "exclusive"
queue_map = "5=0,*=1"
preempt = "suspend"
states = ["1=deactivated@300-400"]

[[scored.queue]]
name = "high"
group = 1

[[scored.queue]]
name = "low"
on_shortage = "wait"
`)
	cases := []struct {
		name string
		args []string
		// want: job → column → value
		want map[string]map[string]string
	}{
		{
			// Gang on one queue, MPL 2, q 100 ms, s 10 ms: jobs 1 and 2
			// share the machine at rate 100/220 until job 3 (10 s) needs a
			// third row: it waits. Jobs 1 and 2 end at 220, 3 runs 220–270
			// alone; job 4 arrives at 20 and shares 220–320 at rate 100/220
			// with job 3 from 220: job 3's 50 s take 110 s (end 330), job 4
			// gets 50 s by then: end 330 too.
			name: "gang",
			args: []string{"--mode", "gang", "--queues", "1", "--mpl", "2", "--quantum", "100ms", "--switch-overhead", "10ms"},
			want: map[string]map[string]string{
				"1": {"finish_time": "220", "cpu_time": "100", "queue": "0", "suspensions": "0", "end_reason": ""},
				"2": {"finish_time": "220", "cpu_time": "100"},
				"3": {"starting_time": "220", "finish_time": "330", "cpu_time": "50"},
				"4": {"starting_time": "220", "finish_time": "330", "cpu_time": "50"},
			},
		},
		{
			// Job 3 (queue 0) suspends job 1 (queue 1) at 10, runs 10–60;
			// job 1 resumes 60–150, job 2 runs 150–250; job 4 (group 7)
			// may not submit to queue 0.
			name: "config",
			args: []string{"--config", conf},
			want: map[string]map[string]string{
				"1": {"starting_time": "0", "finish_time": "150", "queue": "1", "suspensions": "1", "cpu_time": "100"},
				"2": {"starting_time": "150", "finish_time": "250", "queue": "1"},
				"3": {"starting_time": "10", "finish_time": "60", "queue": "0"},
				"4": {"final_state": "REJECTED", "end_reason": "group 7 may not submit to queue 0 (group 1 only)"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := run(t, append([]string{"run", "--trace", trace, "--out", out, "--plots=false"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "scored(") {
				t.Errorf("summary does not name the SCore-D policy:\n%s", stdout)
			}
			jobs := readScoreDJobs(t, out)
			for id, cols := range c.want {
				for col, v := range cols {
					if got := jobs[id][col]; got != v {
						t.Errorf("job %s: %s = %q, want %q", id, col, got, v)
					}
				}
			}
		})
	}
}

func TestRunScoreDUsage(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "q.swf", scoredTrace)
	// SCore-D's cluster is a set of identical hosts (SPEC §5).
	withCluster := writeFile(t, dir, "c.toml", "[scored]\nmode = \"gang\"\n[cluster]\nselect = \"linear\"\n[[cluster.groups]]\nname = \"n\"\ncount = 1\ncores = 4\n[[cluster.groups]]\nname = \"m\"\ncount = 1\ncores = 2\n")
	badQueue := writeFile(t, dir, "b.toml", "[scored]\n[[scored.queue]]\nstate = \"paused\"\n")
	// Values from [scored] are named by the file and key, not by the flag
	// the user did not give.
	badStates := writeFile(t, dir, "s.toml", "[scored]\nstates = [\"1=paused@5\"]\n")
	badMap := writeFile(t, dir, "m.toml", "[scored]\nqueue_map = \"a=b\"\n")
	badPreempt := writeFile(t, dir, "p.toml", "[scored]\npreempt = \"kill\"\n")
	badQueues := writeFile(t, dir, "q.toml", "[scored]\nqueues = -3\n")
	badPercent := writeFile(t, dir, "pc.toml", "[scored]\n[[scored.queue]]\nmemory_percent = 150\n")
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"--mpl", "2"}, "apply to SCore-D queues"},
		{[]string{"--mode", "fancy"}, "--mode \"fancy\""},
		{[]string{"--mode", "gang", "--quantum", "1.5s"}, "--quantum"},
		{[]string{"--mode", "gang", "--preempt", "kill"}, "--preempt"},
		{[]string{"--mode", "gang", "--queue-map", "1=9"}, "queue 9"},
		{[]string{"--mode", "gang", "--queue-state", "1=paused@5"}, "unknown state"},
		{[]string{"--mode", "gang", "--queue-state", "7=disabled@5"}, "state change of queue 7"},
		{[]string{"--mode", "gang", "--mpl", "-1"}, "multiprogramming level"},
		{[]string{"--mode", "gang", "--estimates", "perfect"}, "SCore-D queues (--mode, [scored]) and runtime estimates (--estimates other than user) cannot be combined"},
		{[]string{"--config", withCluster}, "SCore-D's queues run on a cluster of identical hosts"},
		{[]string{"--config", badQueue}, "state \"paused\""},
		{[]string{"--config", badStates}, "--config " + badStates + ": [scored] states: "},
		{[]string{"--config", badMap}, "--config " + badMap + ": [scored] queue_map: "},
		{[]string{"--config", badQueues}, "--config " + badQueues + ": [scored] queues = -3: want at least 1"},
		{[]string{"--config", badPreempt}, "--config " + badPreempt + ": [scored] preempt \"kill\""},
		{[]string{"--config", badPercent}, "--config " + badPercent + ": [scored] (or its command-line flags): policy: SCore-D: queue 0: limits are percentages"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, append([]string{"run", "--trace", trace}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.msg)
		}
	}
}

// TestRunScoreDDeterministic runs a multi-queue gang run three times and
// compares jobs.csv and summary.json byte for byte.
func TestRunScoreDDeterministic(t *testing.T) {
	dir := t.TempDir()
	var first [2][]byte
	for i := range 3 {
		out := filepath.Join(dir, fmt.Sprint(i))
		code, _, stderr := run(t, "run", "--mode", "gang", "--mpl", "3", "--queue-map", "*=1", "--queue-state", "1=deactivated@100000-200000", "--out", out, "--plots=false", "-q")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for k, name := range []string{"jobs.csv", "summary.json"} {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first[k] = b
			} else if !bytes.Equal(b, first[k]) {
				t.Fatalf("run %d: %s differs from run 0", i, name)
			}
		}
	}
	if !bytes.Contains(first[0], []byte(",queue,demotions,suspensions,cpu_time,end_reason,mem_limit_kb,mem_kb_per_host,disk_limit_kb,stints_ms\n")) {
		t.Error("jobs.csv has no SCore-D columns")
	}
	// verify checks the run's SCore-D rules: none broken.
	code, stdout, stderr := run(t, "verify", filepath.Join(dir, "0"))
	if code != 0 || !strings.Contains(stdout, "all invariants hold") {
		t.Errorf("verify: exit %d, %q %q; want 0 and no violation", code, stdout, stderr)
	}
}

// TestRunScoreDHostLimits runs SCore-D's memory limits end to end (issue
// #22 items 9 and 10): the cluster's memory is the header's MaxMemory (1000
// KB per host), hosts have MaxProcs / MaxNodes = 4 processors, and the
// queue's 50 % alone turns the limit on (500 KB per host).
func TestRunScoreDHostLimits(t *testing.T) {
	dir := t.TempDir()
	// Job 1 uses 4 × 200 KB on its host: killed at its start. Job 2 uses
	// 2 × 200 = 400 KB: runs 5–105. Job 3 fits beside it (500 + 500 KB
	// held): 10–20. Job 4 at 12 finds 1000 KB held: refused (the default).
	trace := writeFile(t, dir, "m.swf", `; Version: 2.2
; MaxProcs: 8
; MaxNodes: 2
; MaxMemory: 1000
1 0 -1 100 4 -1 200 4 -1 -1 1 1 1 -1 -1 -1 -1 -1
2 5 -1 100 2 -1 200 2 -1 -1 1 1 1 -1 -1 -1 -1 -1
3 10 -1 10 1 -1 10 1 -1 -1 1 1 1 -1 -1 -1 -1 -1
4 12 -1 10 1 -1 10 1 -1 -1 1 1 1 -1 -1 -1 -1 -1
`)
	conf := writeFile(t, dir, "scored.toml", `
[scored]
mode = "exclusive"

[[scored.queue]]
memory_percent = 50
`)
	out := filepath.Join(dir, "out")
	code, _, stderr := run(t, "run", "--trace", trace, "--config", conf, "--out", out, "--plots=false")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	jobs := readScoreDJobs(t, out)
	for _, w := range []struct {
		id, col, want string
	}{
		{"1", "final_state", "COMPLETED_KILLED"},
		{"1", "finish_time", "0"},
		{"1", "end_reason", "memory use 800 KB per host exceeds its limit 500 KB"},
		{"2", "final_state", "COMPLETED_SUCCESSFULLY"},
		{"2", "starting_time", "5"},
		{"2", "finish_time", "105"},
		{"3", "starting_time", "10"},
		{"3", "finish_time", "20"},
		{"4", "final_state", "REJECTED"},
		{"4", "end_reason", "resource shortage at submission (queue 0): memory limit 500 KB, 1000 KB of the cluster's 1000 KB held"},
	} {
		if got := jobs[w.id][w.col]; got != w.want {
			t.Errorf("job %s: %s = %q, want %q", w.id, w.col, got, w.want)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"limit_killed": 1`)) {
		t.Errorf("summary.json does not count the memory kill:\n%s", b)
	}
	for _, w := range []struct{ id, col, want string }{
		{"1", "mem_limit_kb", "500"}, {"1", "mem_kb_per_host", "800"}, {"1", "stints_ms", ""},
		{"2", "mem_kb_per_host", "400"}, {"2", "stints_ms", "5000-105000:0:x"},
		{"3", "stints_ms", "10000-20000:0:x"}, {"4", "mem_limit_kb", "500"}, {"4", "stints_ms", ""},
	} {
		if got := jobs[w.id][w.col]; got != w.want {
			t.Errorf("job %s: %s = %q, want %q", w.id, w.col, got, w.want)
		}
	}
	// verify checks the limits per host and the limits held: all kept.
	if code, stdout, stderr := run(t, "verify", out); code != 0 || !strings.Contains(stdout, "all invariants hold") {
		t.Fatalf("verify: exit %d, %q %q", code, stdout, stderr)
	}
	// Planted: job 2 used 900 KB per host, over its 500, and was not
	// killed; job 3 ran 5 s longer, holding its 500 KB when job 4, now
	// with 1 KB more, held 501 KB from 12 s.
	csvPath := filepath.Join(out, "jobs.csv")
	orig, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	planted := strings.Replace(string(orig), ",500,400,0,5000-105000:0:x", ",500,900,0,5000-105000:0:x", 1)
	if planted == string(orig) {
		t.Fatal("job 2's row not found")
	}
	if err := os.WriteFile(csvPath, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, "verify", out)
	want := "job 2: memory-per-host: its memory use on one host, 900 KB, exceeds its limit 500 KB, but it ran (from 5 s) and ended completed at 105 s instead of being killed"
	if code != 1 || !strings.Contains(stdout, want) {
		t.Errorf("verify of a planted memory use: exit %d, %q; want 1 and %q", code, stdout, want)
	}
	// Planted: job 3 ran longer than it ended.
	planted = strings.Replace(string(orig), "10000-20000:0:x", "10000-20000:0:x 20000-30000:0:x", 1)
	if err := os.WriteFile(csvPath, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = run(t, "verify", out)
	want = "job 3: stint: it ran from 20 s to 30 s, outside its submission at 10 s and end at 20 s"
	if code != 1 || !strings.Contains(stdout, want) {
		t.Errorf("verify of a planted stint: exit %d, %q; want 1 and %q", code, stdout, want)
	}
	// Planted: job 3 had a 600 KB limit, over its queue's 500, and with
	// job 2's 500 the cluster's 1000 KB were overrun from 10 s.
	planted = strings.Replace(string(orig), ",500,10,0,10000-20000:0:x", ",600,10,0,10000-20000:0:x", 1)
	if planted == string(orig) {
		t.Fatal("job 3's row not found")
	}
	if err := os.WriteFile(csvPath, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = run(t, "verify", out)
	for _, want := range []string{
		"job 3: limit: its memory limit is 600 KB; queue 0's is 50 % of the cluster's 1000 KB = 500 KB",
		"job 3: memory-held: at 10 s the started jobs 2, 3 hold memory limits of 1100 KB in all, beyond the cluster's 1000 KB",
	} {
		if code != 1 || !strings.Contains(stdout, want) {
			t.Errorf("verify of a planted limit: exit %d, %q; want 1 and %q", code, stdout, want)
		}
	}
	// summary.json without scored: a run written before, refused.
	sum := strings.Replace(string(b), `"scored"`, `"scored_old"`, 1)
	if err := os.WriteFile(filepath.Join(out, "summary.json"), []byte(sum), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "verify", out); code != 2 || !strings.Contains(stderr, "without scored") {
		t.Errorf("verify without summary.json's scored: exit %d, %q", code, stderr)
	}
}

// verify checks SCore-D's exclusive mode from jobs.csv: a run where a
// queue-0 job suspends a queue-1 job passes; the same run with the
// preemptor planted in queue 1 (so nothing of a higher queue started
// when job 1 was cut) does not.
func TestVerifyScoreDExclusivePreemption(t *testing.T) {
	dir := t.TempDir()
	trace := writeFile(t, dir, "t.swf", "; MaxProcs: 4\n"+
		"1 0 -1 100 4 -1 -1 4 100 -1 1 -1 -1 -1 2 -1 -1 -1\n"+
		"2 10 -1 20 4 -1 -1 4 20 -1 1 -1 -1 -1 1 -1 -1 -1\n")
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "run", "--trace", trace, "--mode", "exclusive", "--queues", "2", "--queue-map", "1=0,*=1", "--plots=false", "--out", out); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	csvPath := filepath.Join(out, "jobs.csv")
	orig, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, stints := range []string{"0-10000:1:x 30000-120000:1:x", "10000-30000:0:x"} {
		if !strings.Contains(string(orig), stints) {
			t.Fatalf("jobs.csv lacks the stints %q:\n%s", stints, orig)
		}
	}
	if code, stdout, stderr := run(t, "verify", out); code != 0 || !strings.Contains(stdout, "all invariants hold") {
		t.Fatalf("verify: exit %d, %q %q", code, stdout, stderr)
	}
	planted := strings.Replace(string(orig), "10000-30000:0:x", "10000-30000:1:x", 1)
	if err := os.WriteFile(csvPath, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, "verify", out)
	want := "job 1: exclusive: its exclusive run in queue 1 from 0 s was cut at 10 s, but no job of a higher-priority queue started then"
	if code != 1 || !strings.Contains(stdout, want) {
		t.Errorf("verify of a planted preemptor: exit %d, %q; want 1 and %q", code, stdout, want)
	}
}

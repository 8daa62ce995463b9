package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// growJobs: machine of 8; job 1 rigid on 6 for 100 s; job 2 on 4 in the
// trace, range [2, 8], 100 s, both submitted at 0 with requested time
// 1000 s.
func growJobs() []workload.Job {
	mk := func(id int64, procs int, lo, hi int64) workload.Job {
		return workload.Job{ID: id, Seq: id - 1, Procs: procs, Run: 100, Estimate: 1000, MinProcs: lo, MaxProcs: hi,
			RawWait: -1, RawRun: 100, AllocProcs: procs, ReqProcs: procs, ReqTime: 1000, AvgCPUSec: -1, UsedMemKB: -1, ReqMemKB: -1,
			Status: 1, User: 1, Group: 1, Executable: 1, Queue: 1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
	}
	return []workload.Job{mk(1, 6, 0, 0), mk(2, 4, 2, 8)}
}

// TestRunGrow runs the min/max job model from the command line and the
// configuration file. Without growth job 2 waits for job 1 and runs
// 100–200. With it, job 2 starts at 0 on its minimum of 2 and grows to 8
// when job 1 ends at 100: linear, 400 processor-seconds, 200 done, 200/8 =
// 25 s → 125; Amdahl 0.5 (S(p) = 2p/(p+1)), 160 one-processor seconds, 133⅓
// done on 2, 26⅔ / (16/9) = 15 s → 115.
func TestRunGrow(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "grow.parquet")
	writeParquetTrace(t, trace, 8, growJobs())
	cfg := writeFile(t, dir, "grow.toml", "[hpcpack]\ngrow = true\nspeedup = \"amdahl:0.5\"\n")
	// Balanced: job 2 starts on 2 beside job 1 and gets the 6 it leaves
	// at 100, as in Queued mode here (nothing else is running).
	bal := writeFile(t, dir, "bal.toml", "[hpcpack]\ngrow = true\nmode = \"balanced\"\n")
	tests := []struct {
		name   string
		args   []string
		start  string
		end    string
		policy string
	}{
		{"no growth", nil, "100", "200", "fcfs"},
		{"--grow", []string{"--grow"}, "0", "125", "fcfs+grow=linear"},
		{"--grow --speedup amdahl:0.5", []string{"--grow", "--speedup", "amdahl:0.5"}, "0", "115", "fcfs+grow=amdahl:0.5"},
		{"[hpcpack] in --config", []string{"--config", cfg}, "0", "115", "fcfs+config=grow.toml+grow=amdahl:0.5"},
		{"--speedup over [hpcpack]", []string{"--config", cfg, "--speedup", "linear"}, "0", "125", "fcfs+config=grow.toml+grow=linear"},
		{"[hpcpack] mode = balanced", []string{"--config", bal}, "0", "125", "fcfs+config=bal.toml+grow=linear+mode=balanced"},
	}
	for k, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out", string(rune('a'+k)))
			args := append([]string{"run", "--trace", trace, "--backfill", "off", "--out", out, "--plots=false", "-q", "--progress", "never"}, tt.args...)
			if code, _, stderr := run(t, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			rows := simtest.ReadCSV(t, filepath.Join(out, "jobs.csv"))
			col := map[string]int{}
			for i, h := range rows[0] {
				col[h] = i
			}
			var got []string
			for _, r := range rows[1:] {
				if r[col["job_id"]] == "2" {
					got = []string{r[col["starting_time"]], r[col["finish_time"]]}
				}
			}
			if len(got) != 2 || got[0] != tt.start || got[1] != tt.end {
				t.Errorf("job 2 start, end %v, want %s, %s", got, tt.start, tt.end)
			}
			b, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			var s struct {
				Policy string `json:"policy"`
			}
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if s.Policy != tt.policy {
				t.Errorf("policy %q, want %q", s.Policy, tt.policy)
			}
		})
	}
}

// Mistakes in the growth settings are usage errors (exit 2) that say what
// is wrong.
func TestRunGrowErrors(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "grow.parquet")
	writeParquetTrace(t, trace, 8, growJobs())
	badCfg := writeFile(t, dir, "bad.toml", "[hpcpack]\ngrow = true\nspeedup = \"amdahl:2\"\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"speedup without grow", []string{"--speedup", "amdahl:0.1"}, "needs --grow"},
		{"bad model", []string{"--grow", "--speedup", "quadratic"}, "want linear or amdahl"},
		{"serial fraction above 1", []string{"--config", badCfg}, "serial fraction"},
		{"balanced without grow", []string{"--config", writeFile(t, dir, "b.toml", "[hpcpack]\nmode = \"balanced\"\n")}, `[hpcpack] mode = "balanced" shares out the processors above the jobs' minimums: it needs --grow`},
		{"unknown mode", []string{"--config", writeFile(t, dir, "m.toml", "[hpcpack]\ngrow = true\nmode = \"fair\"\n")}, `[hpcpack] mode = "fair": want "queued" (the default) or "balanced"`},
		{"conservative", []string{"--grow", "--backfill", "conservative"}, "growing jobs (--grow, [hpcpack] grow) and conservative backfilling cannot be combined"},
		{"slurm", []string{"--grow", "--backfill", "slurm"}, "and Slurm's backfill (--backfill slurm) cannot be combined"},
		{"clusters", []string{"--grow", "--config", writeFile(t, dir, "c.toml", "[[clusters]]\n[[clusters.groups]]\nname = \"a\"\ncount = 4\ncores = 1\n[[clusters]]\n[[clusters.groups]]\nname = \"b\"\ncount = 4\ncores = 1\n")}, "a cluster of clusters ([[clusters]]) and growing jobs (--grow, [hpcpack] grow) cannot be combined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "--trace", trace, "--out", filepath.Join(dir, "out"), "--plots=false", "-q", "--progress", "never"}, tt.args...)
			code, _, stderr := run(t, args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// --grow runs on a [cluster] of nodes, linear and cons_res, through the
// CLI (the growth itself is checked in package sim: TestGrowOnNodes).
func TestRunGrowOnCluster(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "grow.parquet")
	writeParquetTrace(t, trace, 8, growJobs())
	for _, sel := range []string{"linear", "cons_res"} {
		t.Run(sel, func(t *testing.T) {
			conf := writeFile(t, dir, sel+".toml", "[cluster]\nselect = \""+sel+"\"\n[[cluster.groups]]\nname = \"a\"\ncount = 4\ncores = 2\n")
			out := filepath.Join(dir, "out-"+sel)
			code, _, stderr := run(t, "run", "--trace", trace, "--grow", "--config", conf, "--out", out, "--plots=false", "-q", "--progress", "never")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if s := readSummary(t, out); !strings.Contains(s.Policy, "+grow=") {
				t.Errorf("policy %q does not say it grows jobs", s.Policy)
			}
		})
	}
}

// schedsim verify says plainly that it cannot check a grow run.
func TestVerifyRefusesGrowRun(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "grow.parquet")
	writeParquetTrace(t, trace, 8, growJobs())
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "run", "--trace", trace, "--grow", "--out", out, "--plots=false", "-q", "--progress", "never"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, "verify", out); code != 2 || !strings.Contains(stderr, "--grow") {
		t.Errorf("verify: exit %d, stderr %q; want 2 naming --grow", code, stderr)
	}
}

// growScenarioJobs: 400 jobs on a machine of 64, one every 12 minutes (an
// offered load of about 0.8); each asks for 4–32 processors in the trace
// and may run on half to twice that; run times 10–60 min, requested 1.5 ×
// the run time.
func growScenarioJobs() []workload.Job {
	var jobs []workload.Job
	x := uint64(12345)
	next := func(n uint64) uint64 { // a small LCG: the scenario is fixed
		x = x*6364136223846793005 + 1442695040888963407
		return (x >> 33) % n
	}
	for i := 0; i < 400; i++ {
		p := 4 * int(1+next(8))
		run := workload.Time(600 + 60*next(51))
		j := workload.Job{ID: int64(i + 1), Seq: int64(i), Submit: workload.Time(720 * i), Procs: p, Run: run, Estimate: run + run/2,
			MinProcs: int64(p / 2), MaxProcs: int64(2 * p),
			RawWait: -1, RawRun: float64(run), AllocProcs: p, ReqProcs: p, ReqTime: float64(run + run/2), AvgCPUSec: -1, UsedMemKB: -1, ReqMemKB: -1,
			Status: 1, User: int(next(10)), Group: 1, Executable: 1, Queue: 1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
		jobs = append(jobs, j)
	}
	return jobs
}

// TestGrowScenario compares rigid jobs with growing ones. Linear speedup
// conserves work: the processor-seconds used (utilisation × makespan ×
// machine) stay those of the rigid run, up to the rounding of each span to
// whole seconds, while growing into idle processors raises the utilisation.
// Amdahl's law makes a job more efficient on fewer processors, so there the
// processor-seconds may go either way; they stay within the machine.
func TestGrowScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the grow scenario in -short mode")
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "malleable.parquet")
	writeParquetTrace(t, trace, 64, growScenarioJobs())
	code, stdout, stderr := run(t, "compare", "--trace", trace, "--jobs", "1", "--progress", "never",
		"--run", "rigid:", "--run", "grow-linear: --grow", "--run", "grow-amdahl-0.1: --grow --speedup amdahl:0.1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Logf("schedsim compare on the grow scenario:\n%s", stdout)
	type sum struct {
		Utilisation float64 `json:"utilisation"`
		MakespanSec int64   `json:"makespan_sec"`
		Wait        struct {
			Mean float64 `json:"mean"`
		} `json:"wait"`
	}
	sums := map[string]sum{}
	for _, c := range []struct {
		name string
		args []string
	}{{"rigid", nil}, {"linear", []string{"--grow"}}, {"amdahl", []string{"--grow", "--speedup", "amdahl:0.1"}}} {
		name, args := c.name, c.args
		out := filepath.Join(dir, name)
		if code, _, stderr := run(t, append([]string{"run", "--trace", trace, "--out", out, "--plots=false", "-q", "--progress", "never"}, args...)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s sum
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		sums[name] = s
		t.Logf("%s: utilisation %.3f, mean wait %.0f s, makespan %d s", name, s.Utilisation, s.Wait.Mean, s.MakespanSec)
		if s.Utilisation > 1 {
			t.Errorf("%s: utilisation %.3f > 1", name, s.Utilisation)
		}
	}
	r, l := sums["rigid"], sums["linear"]
	work := func(s sum) float64 { return s.Utilisation * float64(s.MakespanSec) * 64 }
	if wr, wl := work(r), work(l); wl < wr-1 || wl > wr*1.01 {
		t.Errorf("linear growth used %.0f processor-seconds, the rigid run %.0f: want the same, up to 1%% of rounding", wl, wr)
	}
	if l.Utilisation <= r.Utilisation {
		t.Errorf("linear growth: utilisation %.3f, rigid %.3f: want higher", l.Utilisation, r.Utilisation)
	}
}

// TestGrowNodeEventsLANL runs growing jobs on a machine whose nodes fail:
// LANL-CM5's jobs, every third one given a range of half to twice its
// processors, with 10 % of the nodes down for a day. Jobs on the failed
// nodes are killed, or requeued (back on their minimum); the requeued run,
// killed with SIGKILL after some checkpoints and resumed, writes the same
// files as an uninterrupted one.
func TestGrowNodeEventsLANL(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "traces", "LANL-CM5-1994-4.1-cln.swf.gz")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("skipping: %s not found (../shared is the project's shared data)", src)
	}
	skipBigTrace(t, src)
	dir := t.TempDir()
	jobs, _ := readJobs(t, src)
	ranged := 0
	for i := range jobs {
		if p := int64(jobs[i].Procs); i%3 == 0 && p >= 2 {
			jobs[i].MinProcs, jobs[i].MaxProcs = p/2, min(2*p, 1024)
			ranged++
		}
	}
	trace := filepath.Join(dir, "lanl-ranges.parquet")
	writeParquetTrace(t, trace, 1024, jobs)
	events := filepath.Join("testdata", "lanl-10pct-down-1day.nodes")
	base := []string{"run", "--trace", trace, "--grow", "--backfill", "easy", "-q", "--plots=false"}
	for _, mode := range []string{"kill", "requeue"} {
		out := filepath.Join(dir, mode)
		if code, _, stderr := run(t, append(base, "--node-events", events, "--on-node-fail", mode, "--out", out)...); code != exitOK {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		s := readSummary(t, out)
		n := s.NodeFailures
		if n == nil || n.Killed+n.Requeued == 0 || n.LostProcSec <= 0 {
			t.Fatalf("%s: the failure hit no job: %+v", mode, n)
		}
		if s.Jobs != int64(len(jobs)) {
			t.Errorf("%s: %d jobs in the summary, the trace has %d", mode, s.Jobs, len(jobs))
		}
		t.Logf("%s: %d jobs with a range; killed %d, requeued %d, %d processor-s lost; mean wait %.0f s",
			mode, ranged, n.Killed, n.Requeued, n.LostProcSec, s.Wait.Mean)
	}
	killResumeCompare(t, filepath.Join(dir, "ck"), 12, "30d", "run", "--trace", trace, "--grow", "--backfill", "easy", "-q",
		"--node-events", events, "--on-node-fail", "requeue")
}

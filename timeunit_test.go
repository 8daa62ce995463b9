package schedsim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/workload"
)

// unitTrace is the real trace the time unit's tests replay, as a Batsim
// workload: its times are whole seconds, so a run in ms must give the
// schedule of the run in seconds, times ×1000.
var unitTrace = filepath.Join("..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")

// batsimOf writes the jobs of the SWF trace at path (at most maxJobs;
// 0: all) as a Batsim workload in dir, its SWF header kept, and returns
// its path. It skips the test when the trace is absent.
func batsimOf(t *testing.T, path, dir string, maxJobs int64) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipped: %s not found (%v); the shared data sit beside the repository, at ../shared", path, err)
	}
	rd, err := workload.Open(path, workload.Rules{MaxJobs: maxJobs}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var b bytes.Buffer
	bw, err := workload.NewBatsimWriter(&b, rd.Header())
	if err != nil {
		t.Fatal(err)
	}
	var j workload.Job
	for {
		if err := rd.Next(&j); err != nil {
			break
		}
		if err := bw.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, strings.TrimSuffix(filepath.Base(path), ".swf.gz")+".json", b.String())
}

// unitRun is one run of unitRuns: its directory and its table's rows.
type unitRun struct {
	out  string
	rows []report.JobRow
}

// unitRuns runs the scenario setup makes (given the Batsim workload of
// unitTrace in sc.Trace and a directory for its inputs) in seconds and
// in ms; each run must pass verify with no violation. If same, the run in
// ms must give every job the run in seconds gave it, its times ×1000. It
// returns the two runs.
func unitRuns(t *testing.T, same bool, setup func(t *testing.T, sc *Scenario, unit, dir string)) [2]unitRun {
	t.Helper()
	return unitRunsN(t, same, 0, setup)
}

// unitRunsN is unitRuns on the first maxJobs jobs of unitTrace (0: all).
func unitRunsN(t *testing.T, same bool, maxJobs int64, setup func(t *testing.T, sc *Scenario, unit, dir string)) [2]unitRun {
	t.Helper()
	dir := t.TempDir()
	trace := batsimOf(t, unitTrace, dir, maxJobs)
	var runs [2]unitRun
	for i, unit := range []string{"s", "ms"} {
		sc := Default()
		sc.Trace, sc.TimeUnit, sc.Plots = trace, unit, false
		sc.Out = filepath.Join(dir, "out-"+unit)
		setup(t, &sc, unit, dir)
		res, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}})
		if err != nil {
			t.Fatalf("%s: %v", unit, err)
		}
		if unit == "ms" && res.Summary.TimeUnit != "ms" {
			t.Errorf("summary's time_unit %q, want ms", res.Summary.TimeUnit)
		}
		var vout bytes.Buffer
		rs, err := VerifyDir(sc.Out, 20, &vout)
		if err != nil {
			t.Fatalf("verify %s: %v", unit, err)
		}
		for _, r := range rs {
			if r.Violations != 0 || r.Jobs == 0 {
				t.Fatalf("verify %s: %d jobs, %d violations:\n%s", unit, r.Jobs, r.Violations, vout.String())
			}
		}
		table, err := report.FindJobTable(sc.Out)
		if err != nil {
			t.Fatal(err)
		}
		tick, _ := TimeUnitTicks(unit)
		runs[i].out = sc.Out
		if err := report.ReadJobTableIn(table, tick, func(_ string, r *report.JobRow) error {
			runs[i].rows = append(runs[i].rows, *r)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if same {
		sameSchedule(t, runs[0].rows, runs[1].rows, 1000)
	}
	return runs
}

// wholeSeconds matches a time in seconds with 3 or 6 decimals that is a
// whole second.
var wholeSeconds = regexp.MustCompile(`\b(\d+)\.(?:000000|000)\b`)

// svgText matches an SVG's text elements.
var svgText = regexp.MustCompile(`<text[^>]*>[^<]*</text>`)

// sameSchedule checks that b, a run in ticks of 1/tick second, gave every
// job what a, a run in seconds, gave it, its times ×tick.
func sameSchedule(t *testing.T, a, b []report.JobRow, tick workload.Time) {
	t.Helper()
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d and %d jobs", len(a), len(b))
	}
	differ := 0
	for i := range a {
		x, y := a[i], b[i]
		x.Submit, x.Start, x.Exec, x.End = x.Submit*tick, x.Start*tick, x.Exec*tick, x.End*tick
		if x.Estimate > 0 {
			x.Estimate *= tick
		}
		// The metadata's instants are seconds with the unit's decimals.
		y.Metadata = wholeSeconds.ReplaceAllString(y.Metadata, "$1")
		if x != y {
			if differ++; differ <= 5 {
				t.Errorf("job %d: in seconds %+v, in 1/%d s %+v", x.ID, a[i], tick, y)
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d jobs differ", differ, len(a))
	}
}

// TestTimeUnitSameSchedule: the Batsim workload of a real trace in whole
// seconds, replayed in ms, gives the schedule in seconds ×1000 under
// FCFS, EASY and conservative backfilling, and both runs pass verify.
func TestTimeUnitSameSchedule(t *testing.T) {
	for _, bf := range []string{"off", "easy", "conservative"} {
		t.Run(bf, func(t *testing.T) {
			unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) { sc.Backfill = bf })
		})
	}
}

// TestTimeUnitPolicies: the policies' settings given in seconds (the
// scheduler cycle, Slurm's bf_interval, bf_window and bf_resolution, the
// estimators' corrections, the multifactor order's ages, F1's function)
// count in ticks, so the real trace in whole seconds replayed in ms gives
// the schedule in seconds ×1000, verified.
func TestTimeUnitPolicies(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(sc *Scenario)
	}{
		{"sched-interval", func(sc *Scenario) { sc.SchedInterval = "5m" }},
		{"slurm", func(sc *Scenario) { sc.Backfill = "slurm" }},
		{"slurm-params", func(sc *Scenario) {
			sc.Backfill, sc.BFInterval, sc.BFWindow, sc.BFResolution = "slurm", "7", "2h", "5m"
		}},
		{"estimates-perfect", func(sc *Scenario) { sc.Estimates = "perfect" }},
		{"order-multifactor", func(sc *Scenario) { sc.Order, sc.Priority = "multifactor", "max-age=1d,half-life=2d,calc-period=7m" }},
		{"order-f1", func(sc *Scenario) { sc.Order = "f1" }},
		{"slurm-cycle-estimates", func(sc *Scenario) {
			sc.Backfill, sc.SchedInterval, sc.Estimates = "slurm", "90", "perfect"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) { c.set(sc) })
		})
	}
}

// TestTimeUnitEstimators: the learning estimators predict at the run's
// tick (the mean of a user's last two runs, F × a run, rounded up), so in
// ms they may plan with fractions of a second that a run in seconds
// rounds away: their runs in ms are verified, not compared. Their
// durations in seconds (the gradual correction's steps, the one-second
// floor) count in ticks.
func TestTimeUnitEstimators(t *testing.T) {
	for _, est := range []string{"predict", "factor:0.3:gradual", "predict:double"} {
		t.Run(est, func(t *testing.T) {
			unitRuns(t, false, func(t *testing.T, sc *Scenario, unit, dir string) { sc.Estimates = est })
		})
	}
	j := &workload.Job{ID: 1, Run: 10_000, Estimate: 3_600_000}
	for _, c := range []struct {
		spec       string
		tick       workload.Time
		pred, corr workload.Time
	}{
		{"factor:0.5", 1000, 5000, 5000 + 60_000},
		{"factor:0.5", 1, 5000, 5000 + 60},
		{"factor:0.00001", 1000, 1000, 1000 + 60_000},
		{"factor:0.00001", 1, 1, 1 + 60},
	} {
		e, err := policy.ParseEstimatorIn(c.spec, c.tick)
		if err != nil {
			t.Fatal(err)
		}
		p := e.Predict(j)
		if p != c.pred {
			t.Errorf("%s in 1/%d s: predicts %d, want %d", c.spec, c.tick, p, c.pred)
		}
		if got := e.Correct(j, p); got != c.corr {
			t.Errorf("%s in 1/%d s: corrects %d to %d, want %d", c.spec, c.tick, p, got, c.corr)
		}
	}
}

// unitClusterConfig is a cluster of nodes for HPC2N's 240 processors: two
// partitions, a short one (MaxTime 1 h, DefaultTime 10 min) on a third
// of the nodes and the default one (MaxTime 2 d), which rejects the jobs
// that ask for more.
const unitClusterConfig = `[cluster]
select = "%s"
[[cluster.groups]]
name = "a"
count = 40
cores = 2
[[cluster.groups]]
name = "b"
count = 80
cores = 2
[[cluster.partitions]]
name = "batch"
groups = ["a", "b"]
max_time = "2d"
default = true
[[cluster.partitions]]
name = "short"
groups = ["a"]
max_time = "1h"
default_time = "10m"
`

// TestTimeUnitNodes: a cluster of nodes whose partitions' time limits are
// given in seconds gives, in ms, the schedule in seconds ×1000 (the same
// jobs rejected at the partition's MaxTime, the same nodes), under
// select/linear and cons_res, FCFS, EASY and Slurm's backfill; verify
// checks the limits in ticks.
func TestTimeUnitNodes(t *testing.T) {
	for _, c := range []struct{ sel, bf string }{{"linear", "easy"}, {"cons_res", "slurm"}, {"linear", "off"}} {
		t.Run(c.sel+"-"+c.bf, func(t *testing.T) {
			runs := unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) {
				sc.Backfill = c.bf
				sc.Config = writeFile(t, dir, "cluster.toml", fmt.Sprintf(unitClusterConfig, c.sel))
			})
			rejected := 0
			for _, r := range runs[1].rows {
				if r.State == "REJECTED" {
					rejected++
					if want := "exceeds partition batch's MaxTime of 172800.000 s"; !strings.Contains(r.Metadata, want) {
						t.Fatalf("job %d rejected for %q, want %q", r.ID, r.Metadata, want)
					}
				}
			}
			if rejected == 0 {
				t.Error("no job rejected at the partition's MaxTime: the test tests nothing")
			}
		})
	}
}

// TestTimeUnitParquet: jobs.parquet of a run in ms holds its times in ms
// (MetaTimeUnit "ms"), verify reads it in ms, and its schedule is the run
// in seconds' ×1000; a table in ms read as seconds is refused.
func TestTimeUnitParquet(t *testing.T) {
	runs := unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) { sc.Format = "parquet" })
	p := filepath.Join(runs[1].out, "jobs.parquet")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	if u, ok, err := workload.ParquetMetadata(f, fi.Size(), p, report.MetaTimeUnit); err != nil || !ok || u != "ms" {
		t.Errorf("%s: %s = %q, %v, %v; want ms", p, report.MetaTimeUnit, u, ok, err)
	}
	// The timestamps: HPC2N's UnixStartTime plus the submission in ms.
	rows, err := workload.ReadParquetTable(f, fi.Size(), p, []string{"job_id", "submission_time", "submit_time_ts"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || rows[1][2] != fmt.Sprint(int64(1027839845)*1000+mustInt(t, rows[1][1])) {
		t.Errorf("row %v: want submit_time_ts = UnixStartTime in ms + submission_time", rows[1])
	}
	err = report.ReadJobTable(p, func(string, *report.JobRow) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "times in ms") {
		t.Errorf("reading the table in ms as seconds: %v, want a refusal", err)
	}
}

// mustInt parses a decimal integer.
func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var v int64
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTimeUnitPlots: the figures of a run in ms draw their time axes in
// seconds (minutes, hours, days) as the run in seconds does, so on the
// real trace in whole seconds every SVG of the run in ms is the run in
// seconds' byte for byte — utilisation and queue length, whose series
// buckets are powers of two of the tick, have the same axes and texts —
// (but the hour-of-week figure, drawn from the
// breakdowns, which a run in ms leaves out); report.html is written, with the page Gantt's
// data in ms and the time formatter that reads them.
func TestTimeUnitPlots(t *testing.T) {
	runs := unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) { sc.Plots = true })
	svgs, err := filepath.Glob(filepath.Join(runs[0].out, "*.svg"))
	if err != nil || len(svgs) < 4 {
		t.Fatalf("figures of the run in seconds: %v, %v", svgs, err)
	}
	for _, a := range svgs {
		if filepath.Base(a) == "hour_of_week.svg" {
			continue // from the breakdowns, which a run in ms leaves out
		}
		x, err1 := os.ReadFile(a)
		y, err2 := os.ReadFile(filepath.Join(runs[1].out, filepath.Base(a)))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if name := filepath.Base(a); name == "utilisation.svg" || name == "queue.svg" {
			// The series' buckets are powers of two of the run's tick, so
			// their means differ; the axes are the same.
			tx, ty := svgText.FindAll(x, -1), svgText.FindAll(y, -1)
			if len(tx) < 10 || !slices.EqualFunc(tx, ty, bytes.Equal) {
				t.Errorf("%s: the texts differ between the runs in s and in ms:\n%q\n%q", name, tx, ty)
			}
			continue
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between the runs in s and in ms", filepath.Base(a))
		}
	}
	page, err := os.ReadFile(filepath.Join(runs[1].out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tick":`, "var perSec = g.tick || 1;"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report.html of the run in ms lacks %q", want)
		}
	}
	page, err = os.ReadFile(filepath.Join(runs[0].out, "report.html"))
	if err != nil || bytes.Contains(page, []byte("perSec")) || bytes.Contains(page, []byte(`"tick":`)) {
		t.Errorf("report.html of the run in seconds has the ms formatter or a tick (%v)", err)
	}
}

// unitNodeEvents are node events for HPC2N's 240 processors (nodes of 2):
// failures during the busy first weeks, a drain and a maintenance, in
// seconds and with units.
const unitNodeEvents = `# TIME STATE NODES REASON
200000 DOWN 0-9 power supply
3d DRAIN 20-39 maintenance
260000 RESUME 20-39
300000 RESUME 0-9
1000000 DOWN 5,7,60-70 network
1100000 RESUME 5,7,60-70
`

// TestTimeUnitNodeEvents: node events given in seconds count in ticks, so
// on the real trace in whole seconds the run in ms is the run in seconds
// ×1000, killed and requeued jobs alike, on the processor pool and on a
// cluster of nodes; verify checks the jobs against the schedule in ticks,
// and summary.json keeps the schedule and the lost processor-time in
// seconds.
func TestTimeUnitNodeEvents(t *testing.T) {
	for _, c := range []struct {
		name, onFail string
		nodes        bool
	}{{"pool-requeue", "requeue", false}, {"pool-kill", "kill", false}, {"nodes-requeue", "requeue", true}} {
		t.Run(c.name, func(t *testing.T) {
			var sums [2]string
			runs := unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) {
				sc.NodeEvents = writeFile(t, dir, "events.txt", unitNodeEvents)
				sc.Plots = true
				sc.OnNodeFail = c.onFail
				if c.nodes {
					sc.Config = writeFile(t, dir, "cluster.toml", fmt.Sprintf(unitClusterConfig, "linear"))
				} else {
					sc.NodeSize = 2
				}
			})
			hit := 0
			for _, r := range runs[1].rows {
				if r.State == "COMPLETED_KILLED" || strings.Contains(r.Metadata, "requeues=") {
					hit++
				}
			}
			if hit == 0 {
				t.Error("no job killed or requeued by a node failure: the test tests nothing")
			}
			for i, r := range runs {
				b, err := os.ReadFile(filepath.Join(r.out, "summary.json"))
				if err != nil {
					t.Fatal(err)
				}
				var s report.Summary
				if err := json.Unmarshal(b, &s); err != nil || s.NodeFailures == nil {
					t.Fatalf("summary.json: %v, node_failures %v", err, s.NodeFailures)
				}
				s.NodeFailures.UtilisationInService = 0 // a ratio of rounded values
				sums[i] = fmt.Sprintf("%+v", *s.NodeFailures)
			}
			if sums[0] != sums[1] {
				t.Errorf("node_failures in s and in ms:\n%s\n%s", sums[0], sums[1])
			}
			// The figure zoomed on the node events has the same axes.
			var texts [2][][]byte
			for i, r := range runs {
				b, err := os.ReadFile(filepath.Join(r.out, "utilisation_node_events.svg"))
				if err != nil {
					t.Fatal(err)
				}
				texts[i] = svgText.FindAll(b, -1)
			}
			if len(texts[0]) < 10 || !slices.EqualFunc(texts[0], texts[1], bytes.Equal) {
				t.Errorf("utilisation_node_events.svg: the texts differ between s and ms:\n%q\n%q", texts[0], texts[1])
			}
		})
	}
}

// TestTimeUnitCheckpoints: a run in ms that takes checkpoints, spaced in
// simulated seconds (--checkpoint-every 2d), writes the files of one that
// does not, and passes verify (the kill-and-resume test is in
// cmd/schedsim, TestCheckpointKillResumeTimeUnit).
func TestTimeUnitCheckpoints(t *testing.T) {
	dir := t.TempDir()
	trace := batsimOf(t, unitTrace, dir, 0)
	var outs [2]string
	for i, every := range []string{"", "2d"} {
		sc := Default()
		sc.Trace, sc.TimeUnit, sc.Plots, sc.Backfill, sc.Estimates = trace, "ms", false, "slurm", "predict"
		sc.Out = filepath.Join(dir, "out"+every)
		opt := Options{Warn: &bytes.Buffer{}}
		if every != "" {
			opt.Checkpoint, opt.CheckpointEvery = filepath.Join(dir, "run.ckpt"), every
		}
		if _, err := Run(context.Background(), &sc, opt); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if rs, err := VerifyDir(sc.Out, 10, &b); err != nil || rs[0].Violations != 0 {
			t.Fatalf("verify: %v, %v\n%s", rs, err, b.String())
		}
		outs[i] = sc.Out
	}
	for _, name := range []string{"jobs.csv", "summary.json"} {
		a, err1 := os.ReadFile(filepath.Join(outs[0], name))
		b, err2 := os.ReadFile(filepath.Join(outs[1], name))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs with checkpoints (%v, %v)", name, err1, err2)
		}
	}
}

// unitCalendar is a calendar for HPC2N (UnixStartTime given, in
// Europe/Stockholm): a nightly maintenance, a one-off reservation on a
// date, a weekday start window and limits for every job.
const unitCalendar = `[[reservation]]
name = "nightly"
start = "2002-07-29T03:00:00"
duration = "1h30m"
recur = "daily"
procs = 120

[[reservation]]
name = "upgrade"
start = "2002-08-10 08:00"
duration = "1d"
maint = true

[[start_window]]
days = "Mon-Fri"
hours = "08:00-17:00"
max_wall = "4h"

[[limit]]
users = ["*"]
grp_cpus = 200
max_wall = "3d"
`

// TestTimeUnitCalendar: reservations, start windows and limits given in
// seconds and on the calendar count in ticks, so on the real trace in
// whole seconds the run in ms is the run in seconds ×1000 (jobs rejected
// for MaxWall included) under EASY, conservative backfilling, Slurm's
// backfill with a scheduler cycle, and on a cluster of nodes; verify
// checks the calendar in ticks; summary.json keeps it in seconds.
func TestTimeUnitCalendar(t *testing.T) {
	for _, c := range []struct {
		name  string
		set   func(sc *Scenario)
		nodes bool
	}{
		{"easy", func(sc *Scenario) { sc.Backfill = "easy" }, false},
		{"conservative", func(sc *Scenario) { sc.Backfill = "conservative" }, false},
		{"slurm-cycle", func(sc *Scenario) { sc.Backfill, sc.SchedInterval = "slurm", "2m" }, false},
		{"nodes-easy", func(sc *Scenario) { sc.Backfill = "easy" }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cons [2]string
			runs := unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) {
				c.set(sc)
				conf := unitCalendar
				if c.nodes {
					conf = fmt.Sprintf(unitClusterConfig, "linear") + conf
				}
				sc.Config = writeFile(t, dir, "calendar.toml", conf)
			})
			rejected := 0
			for _, r := range runs[1].rows {
				// (On the nodes, the partition's MaxTime of 2 days comes first.)
				if r.State == "REJECTED" && (strings.Contains(r.Metadata, "exceeds MaxWall 259200.000 s") || strings.Contains(r.Metadata, "MaxTime of 172800.000 s")) {
					rejected++
				}
			}
			if rejected == 0 {
				t.Error("no job rejected for the limit's MaxWall (or the partition's MaxTime): the test does not see it")
			}
			for i, r := range runs {
				b, err := os.ReadFile(filepath.Join(r.out, "summary.json"))
				if err != nil {
					t.Fatal(err)
				}
				var s struct {
					Constraints json.RawMessage `json:"constraints"`
				}
				if err := json.Unmarshal(b, &s); err != nil || len(s.Constraints) == 0 {
					t.Fatalf("summary.json: %v, constraints %s", err, s.Constraints)
				}
				cons[i] = string(s.Constraints)
			}
			if cons[0] != cons[1] {
				t.Errorf("constraints in s and in ms:\n%s\n%s", cons[0], cons[1])
			}
		})
	}
}

// TestTimeUnitExternal: an external policy (the Python EASY example) in a
// run in ms is told the unit in schedsim's hello (time_unit) and gets
// every time in ms; comparing and subtracting times as it does, it gives
// the schedule of the run in seconds ×1000, verified.
func TestTimeUnitExternal(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("skipped: no python3")
	}
	var logs [2]string
	runs := unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) {
		sc.PolicyExec = "python3 policy/external/python/examples/easy.py"
		sc.PolicyLog = filepath.Join(dir, unit+".log")
		logs[map[string]int{"s": 0, "ms": 1}[unit]] = sc.PolicyLog
	})
	_ = runs
	for i, want := range []string{`"machine":{"procs":240}}`, `"machine":{"procs":240},"time_unit":"ms"}`} {
		b, err := os.ReadFile(logs[i])
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if !strings.HasSuffix(first, want) {
			t.Errorf("hello %q, want it to end with %q", first, want)
		}
	}
}

// TestTimeUnitClosedLoop: a closed loop in ms runs (a Batsim workload
// names no preceding job, so every job is submitted at its time, with
// the warning that says so) and gives the schedule in seconds ×1000.
func TestTimeUnitClosedLoop(t *testing.T) {
	unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) { sc.ClosedLoop = true })
}

// TestTimeUnitCleaning: the cleaning rules' times in seconds count in
// ticks: --from and --until select the same jobs in ms as in seconds,
// and --zero-run one runs a job of no time for one second.
func TestTimeUnitCleaning(t *testing.T) {
	unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) {
		sc.From, sc.Until, sc.ZeroRun = "2d", "2002-08-20", "one"
	})
}

// TestTimeUnitMicroseconds: in µs a run spans at most 10^11 µs (27.8 h):
// NASA iPSC's first 192 jobs, all submitted in its first day, run in µs
// under EASY with jobs.parquet (timestamps in MICROS) and plots, give the
// schedule in seconds ×10^6, and both runs pass verify; a workload that
// runs past the limit is refused with the times in seconds.
func TestTimeUnitMicroseconds(t *testing.T) {
	dir := t.TempDir()
	trace := batsimOf(t, filepath.Join("..", "shared", "traces", "NASA-iPSC-1993-3.1-cln.swf.gz"), dir, 192)
	var rows [2][]report.JobRow
	for i, unit := range []string{"s", "us"} {
		sc := Default()
		sc.Trace, sc.TimeUnit, sc.Backfill, sc.Format = trace, unit, "easy", "csv,parquet"
		sc.Out = filepath.Join(dir, "out-"+unit)
		if _, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}}); err != nil {
			t.Fatalf("%s: %v", unit, err)
		}
		var b bytes.Buffer
		rs, err := VerifyDir(sc.Out, 10, &b)
		if err != nil || len(rs) != 2 || rs[0].Violations+rs[1].Violations != 0 {
			t.Fatalf("verify %s: %+v, %v\n%s", unit, rs, err, b.String())
		}
		tick, _ := TimeUnitTicks(unit)
		if err := report.ReadJobTableIn(filepath.Join(sc.Out, "jobs.parquet"), tick, func(_ string, r *report.JobRow) error {
			rows[i] = append(rows[i], *r)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	sameSchedule(t, rows[0], rows[1], 1_000_000)
	sc := Default()
	sc.Trace, sc.TimeUnit, sc.Plots = batsimOf(t, unitTrace, dir, 0), "us", false
	_, err := Run(context.Background(), &sc, Options{})
	if err == nil || !strings.Contains(err.Error(), "179350.000000 s is 179350000000 ticks of 1/1000000 s") {
		t.Errorf("HPC2N in µs: %v, want the limit's refusal in seconds and ticks", err)
	}
}

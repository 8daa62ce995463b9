package schedsim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// preemptClusterConfig is HPC2N's 240 processors as 120 nodes of 2 cores
// with two partitions on all of them: "low" (the default) and "high"
// (SWF partition 2, PriorityTier 1), and Slurm's preemption by partition
// priority in mode %s.
var preemptClusterConfig = `[cluster]
select = "linear"
preempt = "%s"
[[cluster.groups]]
name = "n"
count = 120
cores = 2
` + simtest.TierPartitions("cluster", "n")

// withPartitions writes the Batsim workload at path again with every
// fourth job (by id) in partition 2 ("partition": 2, an extra field of
// the job), the others in partition 1, and returns the new path.
func withPartitions(t *testing.T, path, dir string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var w map[string]any
	if err := d.Decode(&w); err != nil {
		t.Fatal(err)
	}
	jobs, _ := w["jobs"].([]any)
	for _, j := range jobs {
		m := j.(map[string]any)
		id, err := m["id"].(json.Number).Int64()
		if err != nil {
			t.Fatal(err)
		}
		m["partition"] = 1
		if id%4 == 0 {
			m["partition"] = 2
		}
	}
	out, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "parts-"+strings.TrimPrefix(path[strings.LastIndexByte(path, os.PathSeparator)+1:], "parts-"), string(out))
}

// TestTimeUnitPreemption: Slurm's preemption by partition priority in ms
// gives, on HPC2N's first 3,170 jobs in whole seconds (every fourth job
// in a partition of a higher tier), the run in seconds ×1000 under each
// PreemptMode: the same preemptions, and jobs.csv's preemption words
// (preempted=, runs=, lost=) in seconds with the unit's decimals like the
// other times, which verify reads in ticks.
func TestTimeUnitPreemption(t *testing.T) {
	for _, mode := range []string{"suspend", "requeue", "cancel"} {
		t.Run(mode, func(t *testing.T) {
			runs := unitRuns(t, true, func(t *testing.T, sc *Scenario, unit, dir string) {
				sc.Trace = withPartitions(t, sc.Trace, dir)
				sc.Config = writeFile(t, dir, "cluster.toml", fmt.Sprintf(preemptClusterConfig, mode))
			})
			preempted := 0
			for _, r := range runs[1].rows {
				if strings.Contains(r.Metadata, "preempted=") {
					preempted++
					if !strings.Contains(r.Metadata, ".000-") {
						t.Fatalf("job %d: %q: want runs in seconds with 3 decimals", r.ID, r.Metadata)
					}
				}
			}
			if preempted == 0 {
				t.Error("no job preempted: the test tests nothing")
			}
			t.Logf("%s: %d jobs preempted", mode, preempted)
		})
	}
}

// preemptTrace writes HPC2N's first 3,170 jobs as an SWF trace in dir
// with every fourth job (by number) in SWF partition 2 (preemptClusterConfig's
// "high") and the rest in partition 1. With sessions, the trace also gets
// the feedback the log does not record, inferred as Zakay and Feitelson's
// user sessions do: a job follows its user's previous job (SWF field 17)
// when that one had ended, as recorded, at most 20 minutes before it was
// submitted, the gap being the think time (field 18). It skips the test
// when the trace is absent, and returns the path and the jobs written.
func preemptTrace(t *testing.T, dir string, sessions bool) (string, []workload.Job) {
	t.Helper()
	if _, err := os.Stat(unitTrace); err != nil {
		t.Skipf("skipped: %s not found (%v); the shared data sit beside the repository, at ../shared", unitTrace, err)
	}
	r, err := workload.Open(unitTrace, workload.Rules{Duplicate: workload.DuplicateKeep})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var jobs []workload.Job
	for {
		var j workload.Job
		if err := r.Next(&j); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	type last struct{ id, end int64 }
	prev := map[int]last{}
	for i := range jobs {
		j := &jobs[i]
		j.Partition = 1
		if j.ID%4 == 0 {
			j.Partition = 2
		}
		if !sessions {
			continue
		}
		submit := int64(j.Submit)
		if p, ok := prev[j.User]; ok && submit >= p.end && submit-p.end <= 1200 {
			j.PrecedingJob, j.ThinkTime = p.id, float64(submit-p.end)
		}
		if j.RawWait >= 0 {
			prev[j.User] = last{j.ID, submit + int64(j.RawWait) + int64(j.Run)}
		}
	}
	return simtest.WriteSWF(t, dir, "hpc2n-tiers.swf", r.Header(), jobs), jobs
}

// preemptRealRun runs the scenario (preemptTrace's trace on
// preemptClusterConfig in mode, then setup's changes) and checks that
// verify finds no violation in its outputs and that jobs were preempted.
// It returns the summary, the job table's rows and the trace's jobs.
func preemptRealRun(t *testing.T, mode string, sessions bool, setup func(sc *Scenario, dir string)) (*report.Summary, []report.JobRow, []workload.Job) {
	t.Helper()
	dir := t.TempDir()
	sc := Default()
	var jobs []workload.Job
	sc.Trace, jobs = preemptTrace(t, dir, sessions)
	sc.Config = writeFile(t, dir, "cluster.toml", fmt.Sprintf(preemptClusterConfig, mode))
	sc.Plots = false
	sc.Out = filepath.Join(dir, "out")
	if setup != nil {
		setup(&sc, dir)
	}
	res, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	var vout bytes.Buffer
	rs, err := VerifyDir(sc.Out, 20, &vout)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	for _, r := range rs {
		if r.Violations != 0 || r.Jobs == 0 {
			t.Fatalf("verify: %d jobs, %d violations:\n%s", r.Jobs, r.Violations, vout.String())
		}
	}
	if p := res.Summary.Preemption; p == nil || p.Preemptions == 0 {
		t.Fatalf("preemption %+v: no job preempted, the test tests nothing", p)
	}
	table, err := report.FindJobTable(sc.Out)
	if err != nil {
		t.Fatal(err)
	}
	tick, _ := TimeUnitTicks(sc.TimeUnit)
	var rows []report.JobRow
	if err := report.ReadJobTableIn(table, tick, func(_ string, r *report.JobRow) error {
		rows = append(rows, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return &res.Summary, rows, jobs
}

// TestPreemptClosedLoopRealTrace: HPC2N's first 3,170 jobs with tiers and
// inferred user sessions, replayed as a closed loop under each
// PreemptMode, pass verify and account for every job of the trace; and
// each job that follows another was submitted at the later of its
// recorded time and its preceding job's end (as jobs.csv records it: a
// cancelled job's at its cancellation, a suspended or requeued one's
// after its last run) plus the think time.
func TestPreemptClosedLoopRealTrace(t *testing.T) {
	for _, mode := range []string{"suspend", "requeue", "cancel"} {
		t.Run(mode, func(t *testing.T) {
			sum, rows, jobs := preemptRealRun(t, mode, true, func(sc *Scenario, _ string) { sc.ClosedLoop = true })
			if sum.ClosedLoop == nil || sum.ClosedLoop.Following == 0 || sum.ClosedLoop.Delayed == 0 {
				t.Fatalf("closed_loop %+v: want jobs following others, some delayed", sum.ClosedLoop)
			}
			if int64(len(rows)) != sum.Jobs || sum.Jobs < 3100 {
				t.Errorf("%d rows, %d jobs in the summary; want one row for each of the trace's jobs the cleaning kept", len(rows), sum.Jobs)
			}
			byID := map[int64]*report.JobRow{}
			for i := range rows {
				byID[rows[i].ID] = &rows[i]
			}
			afterCancel := 0
			for _, j := range jobs {
				r, p := byID[j.ID], byID[j.PrecedingJob]
				if j.PrecedingJob <= 0 || r == nil || p == nil {
					continue
				}
				want := max(j.Submit, p.End+workload.Time(j.ThinkTime))
				if r.Submit != want {
					t.Errorf("job %d submitted at %d; it follows job %d (ended %d, %s) with %v s to think and was recorded at %d: want %d",
						j.ID, r.Submit, p.ID, p.End, p.State, j.ThinkTime, j.Submit, want)
				}
				if strings.Contains(p.Metadata, ":cancel") {
					afterCancel++
				}
			}
			if mode == "cancel" && afterCancel == 0 {
				t.Error("no job follows a cancelled one: the test tests nothing")
			}
			t.Logf("%s: %d preemptions, %d following (%d a cancelled job), %d delayed", mode, sum.Preemption.Preemptions, sum.ClosedLoop.Following, afterCancel, sum.ClosedLoop.Delayed)
		})
	}
}

// TestPreemptCycleRealTrace: HPC2N's first 3,170 jobs with tiers under a
// scheduler cycle of 60 s (--sched-interval), EASY and Slurm's backfill,
// each PreemptMode: jobs preempt in the cycle's passes — every
// preemption, as every start of a queued job, at a tick — and the run
// passes verify. Suspended jobs resume between the ticks, when their
// nodes free.
func TestPreemptCycleRealTrace(t *testing.T) {
	for _, c := range []struct{ mode, bf string }{{"suspend", "easy"}, {"requeue", "slurm"}, {"cancel", "easy"}} {
		t.Run(c.mode+"-"+c.bf, func(t *testing.T) {
			sum, rows, _ := preemptRealRun(t, c.mode, false, func(sc *Scenario, _ string) {
				sc.SchedInterval = "60"
				sc.Backfill = c.bf
			})
			first := sum.FirstSubmit
			offTick, resumedOff := 0, 0
			for _, r := range rows {
				p, err := report.ParsePreemption(r.Metadata)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range p.Preemptions {
					if (m.At-first)%60 != 0 {
						offTick++
					}
				}
				for k, run := range p.Runs {
					if k > 0 && p.Preemptions[k-1].Mode == policy.PreemptSuspend && (run.From-first)%60 != 0 {
						resumedOff++
					}
				}
			}
			if offTick > 0 {
				t.Errorf("%d preemptions between the cycle's ticks", offTick)
			}
			if c.mode == "suspend" && resumedOff == 0 {
				t.Error("no suspended job resumed between the ticks: the test tests nothing")
			}
			t.Logf("%s %s: %d preemptions, %d resumptions between ticks", c.mode, c.bf, sum.Preemption.Preemptions, resumedOff)
		})
	}
}

// TestPreemptEstimatesRealTrace: HPC2N's first 3,170 jobs with tiers under
// EASY with learned runtime estimates (--estimates predict, factor:0.5),
// each PreemptMode: a preempted job's predictions carry across its
// suspension (the engine panics on a prediction of a job that does not
// run), predicted starts are recorded, and the run passes verify.
func TestPreemptEstimatesRealTrace(t *testing.T) {
	for _, c := range []struct{ mode, est string }{{"suspend", "predict"}, {"requeue", "factor:0.5"}, {"cancel", "predict"}, {"suspend", "factor:0.5"}} {
		t.Run(c.mode+"-"+c.est, func(t *testing.T) {
			sum, rows, _ := preemptRealRun(t, c.mode, false, func(sc *Scenario, _ string) {
				sc.Estimates = c.est
			})
			if name, _, _ := strings.Cut(c.est, ":"); !strings.Contains(sum.Policy, "estimates="+name) {
				t.Errorf("policy %q: want the estimator %s", sum.Policy, c.est)
			}
			predicted := 0
			for _, r := range rows {
				if strings.Contains(r.Metadata, "predicted_start=") {
					predicted++
				}
			}
			if predicted == 0 {
				t.Error("no predicted start in jobs.csv")
			}
			t.Logf("%s %s: %d preemptions, mean wait %.0f s", c.mode, c.est, sum.Preemption.Preemptions, sum.Wait.Mean)
		})
	}
}

// preemptNodeEvents returns failures and maintenance of
// preemptClusterConfig's 120 nodes over HPC2N's first 57 days: every day
// eight nodes go down for six hours, and every third day twenty drain for
// half a day.
func preemptNodeEvents() string {
	var b strings.Builder
	b.WriteString("# TIME STATE NODES REASON\n")
	for d := 1; d < 58; d++ {
		at := d*86400 + d%7*3600
		lo := d * 37 % 112
		fmt.Fprintf(&b, "%d DOWN %d-%d failure\n%d RESUME %d-%d\n", at, lo, lo+7, at+6*3600, lo, lo+7)
		if d%3 == 0 {
			lo := (d*53 + 60) % 100
			fmt.Fprintf(&b, "%d DRAIN %d-%d maintenance\n%d RESUME %d-%d\n", at+7*3600, lo, lo+19, at+19*3600, lo, lo+19)
		}
	}
	return b.String()
}

// TestPreemptNodeEventsRealTrace: HPC2N's first 3,170 jobs with tiers and
// node failures and maintenance, each PreemptMode with --on-node-fail kill
// and requeue: jobs running or suspended on a node that goes down are
// killed or requeued (a suspended job keeps its allocation in Slurm), a
// suspended job resumes on draining nodes, and the run passes verify,
// which checks every run of a preempted job against the node events.
func TestPreemptNodeEventsRealTrace(t *testing.T) {
	for _, c := range []struct{ mode, onFail string }{{"suspend", "kill"}, {"suspend", "requeue"}, {"requeue", "kill"}, {"cancel", "requeue"}} {
		t.Run(c.mode+"-"+c.onFail, func(t *testing.T) {
			sum, rows, _ := preemptRealRun(t, c.mode, false, func(sc *Scenario, dir string) {
				sc.NodeEvents = writeFile(t, dir, "events.txt", preemptNodeEvents())
				sc.OnNodeFail = c.onFail
			})
			hit, preemptedHit, whileSuspended := 0, 0, 0
			for _, r := range rows {
				failed := r.State == "COMPLETED_KILLED" && strings.Contains(r.Metadata, " down") || strings.Contains(r.Metadata, "requeues=")
				if failed {
					hit++
					if strings.Contains(r.Metadata, "preempted=") {
						preemptedHit++
					}
				}
				if p, err := report.ParsePreemption(r.Metadata); err != nil {
					t.Fatal(err)
				} else if r.State == "COMPLETED_KILLED" && len(p.Runs) > 0 && len(p.Runs) == len(p.Preemptions) && p.Preemptions[len(p.Preemptions)-1].Mode == policy.PreemptSuspend {
					whileSuspended++
				}
			}
			if c.mode == "suspend" && c.onFail == "kill" && whileSuspended == 0 {
				t.Error("no job killed while suspended: the test tests nothing")
			}
			if hit == 0 {
				t.Error("no job killed or requeued by a node failure: the test tests nothing")
			}
			if c.mode == "suspend" && c.onFail == "kill" && preemptedHit == 0 {
				t.Error("no job killed by a node failure after a preemption: the test tests nothing")
			}
			t.Logf("%s, on node failure %s: %d preemptions, %d jobs failed by a node (%d of them preempted before, %d killed while suspended)", c.mode, c.onFail, sum.Preemption.Preemptions, hit, preemptedHit, whileSuspended)
		})
	}
}

// preemptClustersConfig is HPC2N's 240 processors as a cluster of two
// clusters — 40 nodes of 2 cores at speed 1 and 40 nodes of 4 cores at
// speed 2 — each with the partitions of preemptClusterConfig and
// preemption in mode %[1]s.
var preemptClustersConfig = `[[clusters]]
select = "linear"
preempt = "%[1]s"
[[clusters.groups]]
name = "old"
count = 40
cores = 2
` + simtest.TierPartitions("clusters", "old") + `[[clusters]]
select = "linear"
preempt = "%[1]s"
[[clusters.groups]]
name = "new"
count = 40
cores = 4
speed = 2
` + simtest.TierPartitions("clusters", "new")

// TestPreemptClustersRealTrace: HPC2N's first 3,170 jobs with tiers on a
// cluster of two clusters of different speeds, each PreemptMode: each job
// preempts on the cluster it was assigned, and the run passes verify
// (every cluster's partitions on its part of a job, and the preemption
// rules on the union).
func TestPreemptClustersRealTrace(t *testing.T) {
	for _, mode := range []string{"suspend", "requeue", "cancel"} {
		t.Run(mode, func(t *testing.T) {
			sum, _, _ := preemptRealRun(t, mode, false, func(sc *Scenario, dir string) {
				sc.Config = writeFile(t, dir, "clusters.toml", fmt.Sprintf(preemptClustersConfig, mode))
			})
			if !strings.Contains(sum.Policy, "+clusters=2") || !strings.Contains(sum.Policy, "+preempt="+mode) {
				t.Errorf("policy %q: want a cluster of 2 clusters with preemption", sum.Policy)
			}
			t.Logf("%s: %d preemptions", mode, sum.Preemption.Preemptions)
		})
	}
}

// TestPreemptClustersModes: the clusters of a cluster of clusters must
// agree on the preemption mode, which is one for the run; the error names
// both.
func TestPreemptClustersModes(t *testing.T) {
	dir := t.TempDir()
	trace, _ := preemptTrace(t, dir, false)
	conf := strings.Replace(fmt.Sprintf(preemptClustersConfig, "suspend"), `preempt = "suspend"`, `preempt = "cancel"`, 1)
	sc := Default()
	sc.Trace, sc.Config, sc.Plots, sc.Out = trace, writeFile(t, dir, "clusters.toml", conf), false, filepath.Join(dir, "out")
	_, err := Run(context.Background(), &sc, Options{Warn: &bytes.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), `[[clusters]] 2 preempts as "suspend"`) || !strings.Contains(err.Error(), `"cancel"`) {
		t.Fatalf("error %v: want one naming both modes", err)
	}
}

// preemptCalendar are a weekly maintenance of the whole machine, a weekly
// reservation of half of it for the high partition, one of 16 nodes, a
// start window for
// long jobs on weekdays and a per-user limit, for preemptClusterConfig on
// HPC2N.
const preemptCalendar = `
[[reservation]]
name = "weekly-maint"
start = "2d2h"
duration = "1h"
recur = "weekly"
maint = true

[[reservation]]
name = "high-half"
start = "3d"
duration = "6h"
recur = "weekly"
procs = 120
partitions = ["2"]

[[reservation]]
name = "rack"
start = "1d"
duration = "12h"
recur = "weekly"
nodes = "0-15"

[[start_window]]
days = "Mon-Fri"
hours = "08:00-17:00"
max_wall = "36h"

[[limit]]
users = ["*"]
max_jobs_per_user = 8
`

// TestPreemptCalendarRealTrace: HPC2N's first 3,170 jobs with tiers under
// reservations, a start window and per-user limits, each PreemptMode:
// preemptors start only where any start may (verify checks every run
// against the reservations and the limits, counting a suspended job
// against its user's), and the run passes verify.
func TestPreemptCalendarRealTrace(t *testing.T) {
	for _, c := range []struct{ mode, bf string }{{"suspend", "easy"}, {"requeue", "easy"}, {"cancel", "slurm"}, {"suspend", "off"}} {
		t.Run(c.mode+"-"+c.bf, func(t *testing.T) {
			sum, _, _ := preemptRealRun(t, c.mode, false, func(sc *Scenario, dir string) {
				sc.Config = writeFile(t, dir, "cluster.toml", fmt.Sprintf(preemptClusterConfig, c.mode)+preemptCalendar)
				sc.Backfill = c.bf
			})
			if sum.Constraints == nil {
				t.Fatal("summary.json has no constraints")
			}
			t.Logf("%s %s: %d preemptions, mean wait %.0f s", c.mode, c.bf, sum.Preemption.Preemptions, sum.Wait.Mean)
		})
	}
}

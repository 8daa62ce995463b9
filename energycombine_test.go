package schedsim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// hpc2nTrace is the first 3,170 jobs of HPC2N's log (240 processors,
// 120 dual-processor nodes), beside the repository.
var hpc2nTrace = filepath.Join("..", "shared", "traces", "HPC2N-2002-first3170.swf.gz")

// hpc2nPower is a power model of HPC2N's 120 nodes of 2 cores, named
// name (a class of the cluster, or "" for none), with a sleep state.
func hpc2nPower(name string) string {
	return `[[power.groups]]
name = "` + name + `"
count = 120
cores = 2
watts = ["95:110:190"]
[[power.groups.sleep]]
watts = 9.75
switch_off = 6
switch_off_watts = 100
switch_on = 150
switch_on_watts = 125
`
}

// TestPowerCombinations runs the power model with what it combines with on
// HPC2N's log, and every run passes verify (machine_states.csv against
// jobs.csv on the run's nodes, no job on a node that is off): a cluster
// of nodes (linear, cons_res; the model matched by class and node for
// node; the test slurm.conf's heterogeneous nodes, by NodeName), node failures and maintenance (kill, requeue; on the pool and on
// a cluster), and switching nodes off on a cluster's nodes (linear,
// cons_res, the slurm.conf's partitions), with node events, and under
// conservative backfilling, Slurm's backfill, reservations and limits, a
// scheduler cycle, and on a cluster of clusters (each cluster's idle nodes
// switched, with and without node events). A switching run starts and rejects the jobs the run
// without switching does.
func TestPowerCombinations(t *testing.T) {
	if _, err := os.Stat(hpc2nTrace); err != nil {
		t.Skipf("skipped: %s not found (%v); the shared data sit beside the repository, at ../shared", hpc2nTrace, err)
	}
	dir := t.TempDir()
	events := writeFile(t, dir, "events.txt", "# two failures and a maintenance\n4950000 DOWN 0-59 power supply\n4955000 RESUME 0-59\n4958000 DRAIN 60-89 firmware\n4965000 RESUME 60-89\n4980000 DOWN 60-119 cooling\n4990000 RESUME 60-119\n")
	clusterOf := func(sel string) string {
		return "[cluster]\nselect = \"" + sel + "\"\n[[cluster.groups]]\nname = \"n\"\ncount = 120\ncores = 2\n"
	}
	// HPC2N's nodes as a cluster of two clusters of 60 nodes, the second
	// twice as fast.
	clustersOf := func(sel string) string {
		return "[[clusters]]\nselect = \"" + sel + "\"\n[[clusters.groups]]\nname = \"a\"\ncount = 60\ncores = 2\n" +
			"[[clusters]]\nselect = \"" + sel + "\"\n[[clusters.groups]]\nname = \"b\"\ncount = 60\ncores = 2\nspeed = 2\n"
	}
	calendar := "[[reservation]]\nname = \"maint\"\nstart = \"1d\"\nduration = \"2h\"\nrecur = \"weekly\"\nprocs = 64\n[[limit]]\nusers = [\"*\"]\nmax_jobs_per_user = 8\n"
	// The power of the node classes of the test slurm.conf, each named
	// as its NodeName line names it.
	var heteroPower strings.Builder
	for _, c := range []struct {
		name         string
		count, cores int
		watts        string
	}{{"gpu[01-08]", 8, 80, "300:350:1200"}, {"thin[001-096]", 96, 32, "90:110:350"}, {"thin[097-128]", 32, 48, "100:120:420"}, {"fat[01-04]", 4, 72, "200:230:700"}} {
		fmt.Fprintf(&heteroPower, "[[power.groups]]\nname = %q\ncount = %d\ncores = %d\nwatts = [%q]\n", c.name, c.count, c.cores, c.watts)
	}
	heteroSleep := strings.ReplaceAll(heteroPower.String(), "\"]\n", "\"]\n[[power.groups.sleep]]\nwatts = 9.75\nswitch_off = 6\nswitch_off_watts = 100\nswitch_on = 150\nswitch_on_watts = 125\n")
	type setup struct {
		config string
		set    func(sc *Scenario)
	}
	none := func(*Scenario) {}
	for _, c := range []struct {
		name string
		setup
		check func(t *testing.T, sum *Result)
	}{
		{"linear/by class", setup{clusterOf("linear") + hpc2nPower("n"), none}, nil},
		{"cons_res/node for node", setup{clusterOf("cons_res") + hpc2nPower(""), none}, nil},
		{"slurm.conf/by NodeName", setup{heteroPower.String(), func(sc *Scenario) { sc.SlurmConf = filepath.Join("cmd", "schedsim", "testdata", "slurm-hetero.conf") }}, nil},
		{"node events/kill", setup{hpc2nPower(""), func(sc *Scenario) { sc.NodeEvents, sc.NodeSize = events, 2 }}, func(t *testing.T, r *Result) {
			if r.Summary.NodeFailures == nil || r.Summary.NodeFailures.Killed == 0 {
				t.Errorf("no job killed: %+v", r.Summary.NodeFailures)
			}
		}},
		{"node events/requeue", setup{hpc2nPower(""), func(sc *Scenario) { sc.NodeEvents, sc.NodeSize, sc.OnNodeFail = events, 2, "requeue" }}, func(t *testing.T, r *Result) {
			if r.Summary.NodeFailures == nil || r.Summary.NodeFailures.Requeued == 0 {
				t.Errorf("no job requeued: %+v", r.Summary.NodeFailures)
			}
			// The requeued jobs' cut-short runs are metered: the nodes
			// computed longer than the jobs' recorded runs.
			e := r.Summary.Energy
			if e.NodeSeconds["computing"] <= 0 || e.JobJoules >= e.Joules {
				t.Errorf("energy %+v", e)
			}
		}},
		{"node events/cluster", setup{clusterOf("cons_res") + hpc2nPower("n"), func(sc *Scenario) { sc.NodeEvents, sc.OnNodeFail = events, "requeue" }}, nil},
		{"switching/node events kill", setup{hpc2nPower(""), func(sc *Scenario) { sc.NodeEvents, sc.NodeSize, sc.PowerPolicy = events, 2, "idle:10m" }}, nil},
		{"switching/node events requeue plan", setup{hpc2nPower(""), func(sc *Scenario) {
			sc.NodeEvents, sc.NodeSize, sc.OnNodeFail, sc.PowerPolicy = events, 2, "requeue", "plan"
		}}, nil},
		{"switching/linear idle", setup{clusterOf("linear") + hpc2nPower("n"), func(sc *Scenario) { sc.PowerPolicy = "idle:10m" }}, nil},
		{"switching/cons_res plan slurm", setup{clusterOf("cons_res") + hpc2nPower(""), func(sc *Scenario) { sc.Backfill, sc.PowerPolicy = "slurm", "plan" }}, nil},
		{"switching/slurm.conf idle", setup{heteroSleep, func(sc *Scenario) {
			sc.SlurmConf, sc.PowerPolicy = filepath.Join("cmd", "schedsim", "testdata", "slurm-hetero.conf"), "idle:10m"
		}}, nil},
		{"switching/cluster node events", setup{clusterOf("cons_res") + hpc2nPower("n"), func(sc *Scenario) {
			sc.NodeEvents, sc.OnNodeFail, sc.PowerPolicy = events, "requeue", "idle:10m"
		}}, nil},
		{"switching/conservative idle", setup{hpc2nPower(""), func(sc *Scenario) { sc.Backfill, sc.PowerPolicy = "conservative", "idle:10m" }}, nil},
		{"switching/conservative plan", setup{hpc2nPower(""), func(sc *Scenario) { sc.Backfill, sc.PowerPolicy = "conservative", "plan" }}, nil},
		{"switching/slurm idle", setup{hpc2nPower(""), func(sc *Scenario) { sc.Backfill, sc.PowerPolicy = "slurm", "idle:10m" }}, nil},
		{"switching/slurm plan", setup{hpc2nPower(""), func(sc *Scenario) { sc.Backfill, sc.PowerPolicy = "slurm", "plan" }}, nil},
		{"switching/calendar idle", setup{hpc2nPower("") + calendar, func(sc *Scenario) { sc.PowerPolicy = "idle:10m" }}, nil},
		{"switching/calendar plan", setup{hpc2nPower("") + calendar, func(sc *Scenario) { sc.Backfill, sc.PowerPolicy = "conservative", "plan" }}, nil},
		{"switching/cycle idle", setup{hpc2nPower(""), func(sc *Scenario) { sc.SchedInterval, sc.PowerPolicy = "60", "idle:10m" }}, nil},
		{"switching/cycle plan", setup{hpc2nPower(""), func(sc *Scenario) { sc.SchedInterval, sc.PowerPolicy = "60", "plan" }}, nil},
		{"switching/clusters idle", setup{clustersOf("linear") + hpc2nPower(""), func(sc *Scenario) { sc.Backfill, sc.PowerPolicy = "easy", "idle:10m" }}, nil},
		{"switching/clusters plan", setup{clustersOf("cons_res") + hpc2nPower(""), func(sc *Scenario) { sc.Backfill, sc.PowerPolicy = "easy", "plan" }}, nil},
		{"switching/clusters node events", setup{clustersOf("linear") + hpc2nPower(""), func(sc *Scenario) {
			sc.NodeEvents, sc.OnNodeFail, sc.PowerPolicy = events, "requeue", "idle:10m"
		}}, nil},
		// SCore-D's queues, metered by their processors' busy stretches:
		// gang time sharing (a processor held by any row is busy),
		// exclusive mode, and node failures with requeue.
		{"scored/gang", setup{hpc2nPower(""), func(sc *Scenario) { sc.Mode, sc.MPL = "gang", 4 }}, scoredEnergy},
		{"scored/exclusive", setup{hpc2nPower(""), func(sc *Scenario) { sc.Mode = "exclusive" }}, scoredEnergy},
		{"scored/gang node events requeue", setup{hpc2nPower(""), func(sc *Scenario) {
			sc.Mode, sc.NodeEvents, sc.NodeSize, sc.OnNodeFail = "gang", events, 2, "requeue"
		}}, scoredEnergy},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.Plots = hpc2nTrace, false
			sc.Config = writeFile(t, t.TempDir(), "power.toml", c.config)
			c.set(&sc)
			sc.Out = filepath.Join(t.TempDir(), "out")
			res, err := Run(context.Background(), &sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Summary.Energy == nil || res.Summary.Energy.Joules <= 0 {
				t.Fatalf("no energy: %+v", res.Summary.Energy)
			}
			if sc.PowerPolicy != "" {
				if res.Summary.Energy.NodeSeconds["sleeping"] <= 0 {
					t.Errorf("no node slept: %+v", res.Summary.Energy.NodeSeconds)
				}
				// No job is left waiting for a node asleep.
				sc2 := sc
				sc2.PowerPolicy, sc2.Out = "", ""
				base, err := Run(context.Background(), &sc2, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if res.Summary.Started != base.Summary.Started || res.Summary.Rejected != base.Summary.Rejected {
					t.Errorf("%d jobs started, %d rejected; without switching %d and %d", res.Summary.Started, res.Summary.Rejected, base.Summary.Started, base.Summary.Rejected)
				}
			}
			var b strings.Builder
			rs, err := VerifyDir(sc.Out, 0, &b)
			if err != nil || len(rs) != 1 || rs[0].Violations != 0 {
				t.Fatalf("verify: %v %+v\n%s", err, rs, b.String())
			}
			if c.check != nil {
				c.check(t, res)
			}
			t.Logf("%.0f kWh, %v", res.Summary.Energy.KWh, res.Summary.Energy.NodeSeconds)
		})
	}
}

// scoredEnergy checks a metered SCore-D run: its nodes computed and idled
// (HPC2N's load leaves nodes idle), and its jobs' consumed_energy is NA
// (they share processors in time), so no job energy is summed.
func scoredEnergy(t *testing.T, r *Result) {
	t.Helper()
	e := r.Summary.Energy
	if e.JobJoules != 0 || e.NodeSeconds["computing"] <= 0 || e.NodeSeconds["idle"] <= 0 {
		t.Errorf("energy %+v", e)
	}
}

// TestPowerGrow runs growing jobs with the power model on HPC2N's log made
// malleable (each job may run on half to twice its processors), without
// switching nodes off and with idle:10m and plan: verify cannot read
// growth from jobs.csv, so the run's records are checked in the process,
// with verify's checks given the records' steps: the invariants of growth
// (sim.Verify), no job on a node off or switching from the step that gave
// it the node, and machine_states.csv against the nodes each step gave.
func TestPowerGrow(t *testing.T) {
	if _, err := os.Stat(hpc2nTrace); err != nil {
		t.Skipf("skipped: %s not found (%v); the shared data sit beside the repository, at ../shared", hpc2nTrace, err)
	}
	dir := t.TempDir()
	rd, err := workload.Open(hpc2nTrace, workload.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "malleable.parquet")
	f, err := os.Create(trace)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.NewParquetWriter(f, rd.Header())
	if err != nil {
		t.Fatal(err)
	}
	grown := 0
	for {
		var j workload.Job
		if err := rd.Next(&j); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if j.Procs > 1 {
			j.MinProcs, j.MaxProcs = int64(max(1, j.Procs/2)), int64(min(2*j.Procs, 240))
			grown++
		}
		if err := w.Write(&j); err != nil {
			t.Fatal(err)
		}
	}
	rd.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, pol := range []string{"", "idle:10m", "plan"} {
		t.Run("power-policy "+pol, func(t *testing.T) {
			sc := Default()
			sc.Trace, sc.Plots, sc.Grow, sc.Speedup, sc.PowerPolicy = trace, false, true, "amdahl:0.1", pol
			sc.Config = writeFile(t, dir, "power.toml", hpc2nPower(""))
			sc.Out = filepath.Join(t.TempDir(), "out")
			var col sim.Collector
			res, err := Run(context.Background(), &sc, Options{Observers: []sim.Observer{&col}})
			if err != nil {
				t.Fatal(err)
			}
			steps := 0
			for _, o := range col.Outcomes {
				steps += max(0, len(o.Steps)-1)
			}
			if steps == 0 {
				t.Fatalf("no job grew (%d malleable jobs)", grown)
			}
			if pol != "" && res.Summary.Energy.NodeSeconds["sleeping"] <= 0 {
				t.Errorf("no node slept: %v", res.Summary.Energy.NodeSeconds)
			}
			speedup, _ := policy.ParseSpeedup(sc.Speedup)
			for _, v := range sim.Verify(res.Summary.Procs, col.Outcomes, sim.VerifyOptions{Speedup: speedup}) {
				t.Error(v)
			}
			inSeconds := func(dir string, sum *report.Summary, outs []sim.Outcome) ([]string, error) {
				return verifyPower(dir, sum, outs, 1)
			}
			states := func(dir string, sum *report.Summary, outs []sim.Outcome) ([]string, error) {
				return verifyMachineStates(dir, sum, outs, 1)
			}
			for _, check := range []func(string, *report.Summary, []sim.Outcome) ([]string, error){inSeconds, states} {
				msgs, err := check(sc.Out, &res.Summary, col.Outcomes)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range msgs {
					t.Error(m)
				}
			}
			// Planted: without the steps, the nodes a job grew onto
			// would count from its start, which machine_states.csv
			// contradicts.
			flat := make([]sim.Outcome, len(col.Outcomes))
			copy(flat, col.Outcomes)
			for i := range flat {
				flat[i].Steps = nil
			}
			if msgs, _ := verifyMachineStates(sc.Out, &res.Summary, flat, 1); len(msgs) == 0 {
				t.Error("machine_states.csv agrees with jobs holding their grown nodes from their start")
			}
			t.Logf("%d growths; %.0f kWh, jobs %.0f J of %.0f J, %v", steps, res.Summary.Energy.KWh, res.Summary.Energy.JobJoules, res.Summary.Energy.Joules, res.Summary.Energy.NodeSeconds)
		})
	}
}

// TestPowerNodeSize: switching nodes off with node events on nodes of
// another size than the power model's is refused, naming the size to give.
func TestPowerNodeSize(t *testing.T) {
	dir := t.TempDir()
	sc := Default()
	sc.Plots = false
	sc.Config = writeFile(t, dir, "power.toml", strings.Replace(hpc2nPower(""), "count = 120", "count = 128", 1))
	sc.NodeEvents = writeFile(t, dir, "events.txt", "100 DOWN 1\n")
	sc.PowerPolicy = "idle:10m"
	_, err := Run(context.Background(), &sc, Options{})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "give --node-size 2 (not 1)") {
		t.Fatalf("error %v, want an InputError asking for --node-size 2", err)
	}
}

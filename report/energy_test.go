package report

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/cluster/energy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// collect keeps copies of the records it is handed.
type collect struct{ recs []sim.Record }

func (c *collect) JobDone(r *sim.Record) { c.recs = append(c.recs, *r) }

func (c *collect) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds} }

func (c *collect) Observe(e *sim.Event) { c.JobDone(e.Record) }

// energyPlatform is two nodes of two cores: 100 W idle, 120 W epsilon,
// 200 W with both cores busy.
func energyPlatform() *energy.Platform {
	return &energy.Platform{Groups: []energy.Group{{Name: "n", Nodes: 2, Cores: 2,
		PStates: []energy.PState{{SpeedFlops: 1e9, IdleW: 100, EpsilonW: 120, AllCoresW: 200}}}}}
}

// energyRecords are three jobs: A on node 0's two cores 0–10, B on one
// core of node 1 5–15, C on node 1's other core 10–20; they come as the
// engine hands them, by end.
func energyRecords() []sim.Record {
	job := func(id int64, submit workload.Time, procs int) *workload.Job {
		return &workload.Job{ID: id, Submit: submit, Procs: procs, Run: 10, Estimate: 10}
	}
	return []sim.Record{
		{Job: job(1, 0, 2), State: sim.Completed, Start: 0, End: 10, Alloc: []cluster.Range{{Lo: 0, Hi: 2}}},
		{Job: job(2, 5, 1), State: sim.Completed, Start: 5, End: 15, Alloc: []cluster.Range{{Lo: 2, Hi: 3}}},
		{Job: job(3, 10, 1), State: sim.Completed, Start: 10, End: 20, Alloc: []cluster.Range{{Lo: 3, Hi: 4}}},
		{Job: job(4, 12, 9), State: sim.Rejected, Start: 12, End: 12},
	}
}

// TestEnergyRun checks the per-job energies (Batsim's rule: the energy of
// the job's nodes while it ran), the run's, and Batsim's convention.
func TestEnergyRun(t *testing.T) {
	for _, c := range []struct {
		name     string
		busyIdle bool
		jobs     []float64
		run      float64
	}{
		// Node 0: 200 W 0–10, 100 W after. Node 1: 100 W to 5, 160 W
		// (one core of two: 120 + 80/2) 5–10, 200 W 10–15, 160 W 15–20.
		{"realistic", false, []float64{2000, 1800, 1800}, 6100},
		// Busy cores draw the idle power: 100 W everywhere.
		{"batsim", true, []float64{1000, 1000, 1000}, 4000},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got collect
			e, err := NewEnergyRun(energyPlatform(), 4, 1, c.busyIdle, &got)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range energyRecords() {
				e.JobDone(&r)
			}
			s := e.Finish(0, 20)
			if len(got.recs) != 4 {
				t.Fatalf("%d records handed on, want 4", len(got.recs))
			}
			for i, want := range c.jobs {
				if r := got.recs[i]; !r.HasEnergy || r.Energy != want || r.Job.ID != int64(i+1) {
					t.Errorf("job %d: energy %v (set %v), want %v", r.Job.ID, r.Energy, r.HasEnergy, want)
				}
			}
			if got.recs[3].HasEnergy {
				t.Error("a rejected job has an energy")
			}
			if s.Joules != c.run || s.JobJoules != c.jobs[0]+c.jobs[1]+c.jobs[2] || s.MeanWatts != c.run/20 {
				t.Errorf("summary %+v", s)
			}
			if s.NodeSeconds["computing"] != 25 || s.NodeSeconds["idle"] != 15 {
				t.Errorf("node seconds %v", s.NodeSeconds)
			}
		})
	}
}

// TestEnergyRunSize refuses a machine that does not fall on whole nodes
// of the power model.
func TestEnergyRunSize(t *testing.T) {
	for _, procs := range []int{3, 5} {
		if _, err := NewEnergyRun(energyPlatform(), procs, 1, false); err == nil {
			t.Errorf("%d processors on nodes of 2 cores (4 in all): accepted", procs)
		}
	}
}

// TestEnergyFilesEvalys checks the three energy files against what
// evalys's loaders require: Batsim's column sets; machine_states with at
// least one row, a time-0 row and the same machine count on every row
// (MachineStatesChanges.check); pstate_changes with every machine given
// a pstate at time 0 (an interval set per row); consumed_energy starting
// at time 0 with energy 0, cumulative, its epower NA when no time passed.
func TestEnergyFilesEvalys(t *testing.T) {
	var got collect
	e, err := NewEnergyRun(energyPlatform(), 4, 1, false, &got)
	if err != nil {
		t.Fatal(err)
	}
	recs := energyRecords()
	recs[0].Start, recs[0].Job.Submit = 2, 2 // nothing starts at 0
	for _, r := range recs {
		e.JobDone(&r)
	}
	e.Finish(2, 20)
	dir := t.TempDir()
	if err := e.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	ms := simtest.ReadCSV(t, filepath.Join(dir, MachineStatesCSV))
	if !slices.Equal(ms[0], []string{"time", "nb_sleeping", "nb_switching_on", "nb_switching_off", "nb_idle", "nb_computing"}) {
		t.Errorf("machine_states header %v", ms[0])
	}
	if len(ms) < 2 || ms[1][0] != "0" || !slices.Equal(ms[1], []string{"0", "0", "0", "0", "2", "0"}) {
		t.Errorf("machine_states first row %v", ms[1:2])
	}
	for _, r := range ms[1:] {
		sum := 0
		for _, f := range r[1:] {
			n, _ := strconv.Atoi(f)
			sum += n
		}
		if sum != 2 {
			t.Errorf("machine_states row %v: %d machines, want 2", r, sum)
		}
	}
	if last := ms[len(ms)-1]; last[0] != "20" || last[4] != "2" {
		t.Errorf("machine_states last row %v", last)
	}
	pc := simtest.ReadCSV(t, filepath.Join(dir, PStateChangesCSV))
	if len(pc) != 2 || !slices.Equal(pc[0], []string{"time", "machine_id", "new_pstate"}) || !slices.Equal(pc[1], []string{"0", "0-1", "0"}) {
		t.Errorf("pstate_changes %v", pc)
	}
	ce := simtest.ReadCSV(t, filepath.Join(dir, ConsumedEnergyCSV))
	if !slices.Equal(ce[0], []string{"time", "energy", "event_type", "wattmin", "epower"}) {
		t.Errorf("consumed_energy header %v", ce[0])
	}
	if !slices.Equal(ce[1], []string{"0", "0", "p", "200", "NA"}) {
		t.Errorf("consumed_energy first row %v", ce[1])
	}
	// At 2: 2 s at 200 W; job 1 starts: node 0 at 200 W, 300 W in all.
	if !slices.Equal(ce[2], []string{"2", "400", "s", "300", "200"}) {
		t.Errorf("consumed_energy second row %v", ce[2])
	}
	prev := -1.0
	for _, r := range ce[1:] {
		v, err := strconv.ParseFloat(r[1], 64)
		if err != nil || v < prev || !strings.Contains("spe", r[2]) {
			t.Errorf("consumed_energy row %v", r)
		}
		prev = v
	}
}

// TestEnergyMetrics checks that the energy rows and columns appear in
// compare's and sweep's tables when a run has a power model, and only
// then, a run without one reading as empty.
func TestEnergyMetrics(t *testing.T) {
	with := Summary{Trace: "t", Policy: "p", Energy: &EnergySummary{KWh: 2.5, MeanWatts: 300}}
	without := Summary{Trace: "t", Policy: "q"}
	for _, c := range []struct {
		name string
		runs []Summary
		want bool
	}{{"none", []Summary{without, without}, false}, {"one", []Summary{with, without}, true}} {
		t.Run(c.name, func(t *testing.T) {
			var runs []*Run
			var pts []SweepPoint
			for i := range c.runs {
				runs = append(runs, &Run{Summary: c.runs[i]})
				pts = append(pts, SweepPoint{Key: strconv.Itoa(i), Summary: c.runs[i]})
			}
			var b strings.Builder
			if err := WriteCompareTable(&b, runs); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "energy (kWh)"); got != c.want {
				t.Errorf("compare table has the energy: %v, want %v\n%s", got, c.want, b.String())
			}
			if c.want && !strings.Contains(b.String(), "2.500") {
				t.Errorf("compare table lacks 2.500 kWh:\n%s", b.String())
			}
			b.Reset()
			if err := WriteSweepCSV(&b, &SweepTable{Points: pts}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(b.String(), "\n")
			if got := strings.Contains(lines[0], "energy_kwh,power_mean_w"); got != c.want {
				t.Errorf("sweep header has the energy: %v, want %v: %s", got, c.want, lines[0])
			}
			if c.want && !strings.Contains(lines[1], ",2.5,300,") {
				t.Errorf("sweep row %s lacks 2.5 kWh and 300 W", lines[1])
			}
			if m, ok := LookupSweepMetric("energy_kwh"); !ok || m.Better != -1 {
				t.Error("energy_kwh is not a metric")
			}
		})
	}
}

// TestEnergyRunParts checks the meter's rules for runs that do not hold
// one allocation from start to end, on energyPlatform (two nodes of two
// cores, 100 W idle, 120 W epsilon, 200 W all cores): a growing job's
// nodes from the step that gave them, a run cut short by a node failure
// before its job was requeued, and a cluster's whole nodes (linear).
func TestEnergyRunParts(t *testing.T) {
	job := func(procs int) *workload.Job {
		return &workload.Job{ID: 1, Procs: procs, Run: 10, Estimate: 10}
	}
	linear := []*cluster.Spec{{Select: cluster.SelectLinear, Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 2}}}}
	consRes := []*cluster.Spec{{Select: cluster.SelectConsRes, Groups: []cluster.NodeGroup{{Name: "n", Count: 2, Cores: 2}}}}
	for _, c := range []struct {
		name    string
		members []*cluster.Spec // nil: the processor pool
		rec     sim.Record
		lost    *lostRun
		job     float64
		run     float64
	}{
		// One processor of node 0 from 0, both of node 1 from 5, to 10.
		// Node 0: 160 W × 10 s = 1600 J. Node 1: 100 W × 5 s + 200 W ×
		// 5 s = 1500 J. The job: node 0 from 0 (1600 J), node 1 from 5
		// (1000 J).
		{name: "growth", rec: sim.Record{Job: job(3), State: sim.Completed, Start: 0, End: 10, Alloc: []cluster.Range{{Lo: 0, Hi: 1}, {Lo: 2, Hi: 4}},
			Steps: []sim.GrowStep{{At: 0, Procs: 1, Alloc: []cluster.Range{{Lo: 0, Hi: 1}}}, {At: 5, Procs: 3, Alloc: []cluster.Range{{Lo: 2, Hi: 4}}}}},
			job: 2600, run: 3100},
		// Cut short on node 1 (both cores) 0–4, run again on node 0
		// 6–10. Node 0: 600 J idle + 800 J; node 1: 800 J + 600 J idle.
		// The job's energy is its last run's: 800 J.
		{name: "requeued", rec: sim.Record{Job: job(2), State: sim.Completed, Start: 6, End: 10, Alloc: []cluster.Range{{Lo: 0, Hi: 2}}},
			lost: &lostRun{start: 0, end: 4, procs: 2, alloc: []cluster.Range{{Lo: 2, Hi: 4}}}, job: 800, run: 2800},
		// Linear: 3 processors on nodes 0 and 1 fill node 0's two cores
		// (200 W) and one of node 1's (160 W), 0–10.
		{name: "linear", members: linear, rec: sim.Record{Job: job(3), State: sim.Completed, Start: 0, End: 10, Alloc: []cluster.Range{{Lo: 0, Hi: 2}}},
			job: 3600, run: 3600},
		// cons_res: cores 1 and 2, one on each node (160 W each).
		{name: "cons_res", members: consRes, rec: sim.Record{Job: job(2), State: sim.Completed, Start: 0, End: 10, Alloc: []cluster.Range{{Lo: 1, Hi: 3}}},
			job: 3200, run: 3200},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got collect
			var e *EnergyRun
			var err error
			if c.members != nil {
				e, err = NewClusterEnergyRun(energyPlatform(), c.members, 1, false, &got)
			} else {
				e, err = NewEnergyRun(energyPlatform(), 4, 1, false, &got)
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.lost != nil {
				e.LostRun(c.lost.start, c.lost.end, c.lost.procs, c.lost.alloc, nil)
			}
			e.JobDone(&c.rec)
			s := e.Finish(0, 10)
			if len(got.recs) != 1 || !got.recs[0].HasEnergy || got.recs[0].Energy != c.job {
				t.Errorf("job energy %+v, want %v", got.recs, c.job)
			}
			if s.Joules != c.run {
				t.Errorf("run energy %v, want %v", s.Joules, c.run)
			}
			if len(c.rec.Steps) > 0 && len(got.recs[0].Steps) != len(c.rec.Steps) {
				t.Errorf("steps %+v handed on, want %+v", got.recs[0].Steps, c.rec.Steps)
			}
		})
	}
}

// TestMatchCluster matches power models to a cluster of a "thin" group
// (3 nodes of 2 cores) and a "fat" one (1 node of 4 cores): by class
// name, in any order; node for node; and the mismatches' errors.
func TestMatchCluster(t *testing.T) {
	spec := &cluster.Spec{Groups: []cluster.NodeGroup{{Name: "thin", Count: 3, Cores: 2}, {Name: "fat", Count: 1, Cores: 4}}}
	g := func(name string, nodes, cores int, idle float64) energy.Group {
		return energy.Group{Name: name, Nodes: nodes, Cores: cores, PStates: []energy.PState{{IdleW: idle, EpsilonW: idle, AllCoresW: 2 * idle}}}
	}
	for _, c := range []struct {
		name   string
		groups []energy.Group
		want   []energy.Group // nodes and idle power of each group
		err    string
	}{
		{"by class", []energy.Group{g("fat", 1, 4, 300), g("thin", 3, 2, 100)}, []energy.Group{g("thin", 3, 2, 100), g("fat", 1, 4, 300)}, ""},
		{"node for node", []energy.Group{g("a", 2, 2, 100), g("b", 1, 2, 110), g("c", 2, 4, 300)}, []energy.Group{g("a", 2, 2, 100), g("b", 1, 2, 110), g("c", 1, 4, 300)}, ""},
		{"class count", []energy.Group{g("fat", 1, 4, 300), g("thin", 2, 2, 100)}, nil, "power group thin: 2 nodes of 2 cores, the cluster's group 3 nodes of 2 cores"},
		// A group named after no class: node for node.
		{"not every class", []energy.Group{g("thin", 3, 2, 100), g("x", 1, 4, 300)}, []energy.Group{g("thin", 3, 2, 100), g("x", 1, 4, 300)}, ""},
		{"cores", []energy.Group{g("a", 4, 2, 100)}, nil, "node 3 (the cluster's fat) has 4 cores, the power model's (a) 2"},
		{"too few", []energy.Group{g("a", 3, 2, 100)}, nil, "the power model has 3 nodes, fewer than the cluster's 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := MatchCluster(&energy.Platform{Groups: c.groups}, spec)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Groups) != len(c.want) {
				t.Fatalf("groups %+v, want %+v", p.Groups, c.want)
			}
			for i, w := range c.want {
				if gg := p.Groups[i]; gg.Name != w.Name || gg.Nodes != w.Nodes || gg.Cores != w.Cores || gg.PStates[0].IdleW != w.PStates[0].IdleW {
					t.Errorf("group %d: %+v, want %+v", i, gg, w)
				}
			}
		})
	}
}

// TestMatchClusterSplitLines checks that power groups named after
// slurm.conf's NodeName lines still match the cluster's groups when its
// partitions split a line into several (thin[001-002] and thin[003-004]).
func TestMatchClusterSplitLines(t *testing.T) {
	spec := &cluster.Spec{Groups: []cluster.NodeGroup{
		{Name: "thin[001-002]", Count: 2, Cores: 2}, {Name: "thin[003-004]", Count: 2, Cores: 2}, {Name: "gpu1", Count: 1, Cores: 8},
	}}
	g := func(name string, nodes, cores int, idle float64) energy.Group {
		return energy.Group{Name: name, Nodes: nodes, Cores: cores, PStates: []energy.PState{{IdleW: idle, EpsilonW: idle, AllCoresW: 2 * idle}}}
	}
	p, err := MatchCluster(&energy.Platform{Groups: []energy.Group{g("gpu[1-1]", 1, 8, 500), g("thin[001-004]", 4, 2, 100)}}, spec)
	if err != nil {
		t.Fatal(err)
	}
	want := []energy.Group{g("thin[001-004]", 4, 2, 100), g("gpu[1-1]", 1, 8, 500)}
	if len(p.Groups) != len(want) {
		t.Fatalf("groups %+v, want %+v", p.Groups, want)
	}
	for i, w := range want {
		if gg := p.Groups[i]; gg.Name != w.Name || gg.Nodes != w.Nodes || gg.Cores != w.Cores || gg.PStates[0].IdleW != w.PStates[0].IdleW {
			t.Errorf("group %d: %+v, want %+v", i, gg, w)
		}
	}
	if _, err := MatchCluster(&energy.Platform{Groups: []energy.Group{g("gpu1", 1, 8, 500), g("thin[001-005]", 5, 2, 100)}}, spec); err == nil ||
		!strings.Contains(err.Error(), "power group thin[001-005]: 5 nodes of 2 cores, the cluster's group 4 nodes") {
		t.Errorf("a power group of more nodes than the cluster's: error %v", err)
	}
}

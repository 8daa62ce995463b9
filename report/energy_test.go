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

package schedsim_test

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/cluster/energy"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim/simtest"
)

// batsimEnergyDir is the recorded Batsim energy reference, beside the
// repository.
var batsimEnergyDir = filepath.Join("..", "shared", "reference", "batsim-energy")

// TestEnergyBatsimReplay replays the recorded Batsim workload on the
// recorded platform with Batsim's convention (a delay job draws idle
// power) in milliseconds (--time-unit ms: the workload's times have up to
// 6 decimals) under EASY and conservative backfilling: every job's
// consumed_energy is the one Batsim recorded, to 0.01 J, and the run's
// energy is Batsim's consumed_joules within 1 J (the Done-when).
// The jobs whose start differs from batsched's are counted: the numbers
// are pinned, so a change in them is seen (see the README's Energy
// section for why they differ).
func TestEnergyBatsimReplay(t *testing.T) {
	if _, err := os.Stat(batsimEnergyDir); err != nil {
		t.Skipf("skipped: %s not found (%v); the shared data sit beside the repository, at ../shared", batsimEnergyDir, err)
	}
	for _, c := range []struct {
		bf           string
		startsDiffer int
	}{{"easy", 76}, {"conservative", 66}} {
		t.Run(c.bf, func(t *testing.T) {
			sc := schedsim.Default()
			sc.Trace = filepath.Join(batsimEnergyDir, "medium_late.json")
			sc.Power = filepath.Join(batsimEnergyDir, "platform.xml")
			sc.PowerJobsIdle, sc.TimeUnit = true, "ms"
			sc.Backfill = c.bf
			if c.bf == "easy" {
				sc.Lookahead = "all"
			}
			sc.Out, sc.Plots = t.TempDir(), false
			res, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			byID := func(rows [][]string) map[string]map[string]string {
				out := map[string]map[string]string{}
				for _, r := range rows[1:] {
					m := map[string]string{}
					for i, k := range rows[0] {
						m[k] = r[i]
					}
					out[r[0]] = m
				}
				return out
			}
			got := byID(simtest.ReadCSV(t, filepath.Join(sc.Out, "jobs.csv")))
			want := byID(simtest.ReadCSV(t, filepath.Join(batsimEnergyDir, c.bf, "out_jobs.csv")))
			if len(got) != 801 || len(want) != 801 {
				t.Fatalf("%d jobs, recorded %d; want 801", len(got), len(want))
			}
			differ := 0
			for id, w := range want {
				g := got[id]
				ge, err1 := strconv.ParseFloat(g["consumed_energy"], 64)
				we, err2 := strconv.ParseFloat(w["consumed_energy"], 64)
				if err1 != nil || err2 != nil || math.Abs(ge-we) > 0.01 {
					t.Errorf("job %s: consumed_energy %s, recorded %s", id, g["consumed_energy"], w["consumed_energy"])
				}
				gs, _ := strconv.ParseFloat(g["starting_time"], 64)
				ws, _ := strconv.ParseFloat(w["starting_time"], 64)
				if math.Abs(gs-ws) > 0.001 {
					differ++
				}
			}
			e := res.Summary.Energy
			if e == nil || math.Abs(e.Joules-48909070.4) > 1 {
				t.Fatalf("energy %+v, want 48,909,070.4 J within 1 J", e)
			}
			if differ != c.startsDiffer {
				t.Errorf("%d jobs start apart from batsched's (more than 1 ms), want %d", differ, c.startsDiffer)
			}
			for _, f := range []string{report.ConsumedEnergyCSV, report.PStateChangesCSV, report.MachineStatesCSV} {
				if _, err := os.Stat(filepath.Join(sc.Out, f)); err != nil {
					t.Error(err)
				}
			}
			var b strings.Builder
			if rs, err := schedsim.VerifyDir(sc.Out, 0, &b); err != nil || len(rs) != 1 || rs[0].Jobs != 801 || rs[0].Violations != 0 {
				t.Errorf("verify of the run in ms: %+v, %v:\n%s", rs, err, b.String())
			}
			t.Logf("%s: %.2f J; %d of 801 jobs start apart from batsched's", c.bf, e.Joules, differ)
		})
	}
}

// TestPowerTable runs a small trace with the power model of a [power]
// table, realistic and with Batsim's convention, and checks the errors
// of bad power descriptions; and that a run without a power model writes
// no energy file and no energy.
func TestPowerTable(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	// Two jobs on a machine of 4 processors: 2 procs 0–10, 4 procs 10–30.
	os.WriteFile(trace, []byte("; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 1 1 1 -1 -1\n2 0 -1 20 4 -1 -1 4 20 -1 1 1 1 1 1 1 -1 -1\n"), 0o644)
	conf := filepath.Join(dir, "power.toml")
	os.WriteFile(conf, []byte(`[[power.groups]]
name = "n"
count = 2
cores = 2
watts = ["100:120:200"]
[[power.groups.sleep]]
watts = 10
switch_off = 5
switch_off_joules = 500
switch_on = 10
switch_on_watts = 150
`), 0o644)
	for _, c := range []struct {
		idle     bool
		run, job float64
	}{
		// 0–10: node 0 busy (200 W), node 1 idle (100 W); 10–30: both
		// busy (400 W).
		{false, 3000 + 8000, 2000},
		{true, 200 * 30, 1000},
	} {
		sc := schedsim.Default()
		sc.Trace, sc.Config, sc.PowerJobsIdle, sc.Out = trace, conf, c.idle, filepath.Join(dir, "out"+strconv.FormatBool(c.idle))
		sc.Plots = !c.idle // the power plot, once
		res, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if e := res.Summary.Energy; e == nil || e.Joules != c.run {
			t.Errorf("jobs idle %v: energy %+v, want %v J", c.idle, e, c.run)
		}
		if sc.Plots {
			page, err := os.ReadFile(filepath.Join(sc.Out, "report.html"))
			if _, serr := os.Stat(filepath.Join(sc.Out, "power.svg")); serr != nil || err != nil || !strings.Contains(string(page), "Power and machine states over time") {
				t.Errorf("no power plot in report.html (%v, %v)", serr, err)
			}
		}
		rows := simtest.ReadCSV(t, filepath.Join(sc.Out, "jobs.csv"))
		if got := rows[1][15]; rows[0][15] != "consumed_energy" || got != strconv.FormatFloat(c.job, 'f', 6, 64) {
			t.Errorf("jobs idle %v: job 1's consumed_energy %q, want %v", c.idle, got, c.job)
		}
	}
	sc := schedsim.Default()
	sc.Trace, sc.Out, sc.Plots = trace, filepath.Join(dir, "plain"), false
	res, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Energy != nil {
		t.Error("energy without a power model")
	}
	for _, w := range res.Wrote {
		if strings.Contains(w, "energy") || strings.Contains(w, "pstate") || strings.Contains(w, "machine_states") {
			t.Errorf("wrote %s without a power model", w)
		}
	}
	for _, bad := range []struct{ name, conf, msg string }{
		{"watts", "[[power.groups]]\ncount = 2\ncores = 2\nwatts = [\"100:x:200\"]\n", "watts[0]"},
		{"size", "[[power.groups]]\ncount = 1\ncores = 2\nwatts = [\"100:200\"]\n", "not the machine's 4 processors"},
		{"both", "[[power.groups]]\ncount = 2\ncores = 2\nwatts = [\"1:2\"]\n[[power.groups.sleep]]\nswitch_off = 1\nswitch_off_watts = 2\nswitch_off_joules = 2\n", "not both"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			p := filepath.Join(dir, bad.name+".toml")
			os.WriteFile(p, []byte(bad.conf), 0o644)
			sc := schedsim.Default()
			sc.Trace, sc.Config = trace, p
			_, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
			var ie *schedsim.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), bad.msg) {
				t.Errorf("err = %v, want an input error with %q", err, bad.msg)
			}
		})
	}
}

// TestReadmePowerTable checks the README's [power] example: it loads, and
// describes 32 one-core nodes with one pstate and one sleep state.
func TestReadmePowerTable(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "## Energy")
	j := strings.Index(s[i:], "```toml\n")
	k := strings.Index(s[i+j+8:], "```")
	if i < 0 || j < 0 || k < 0 {
		t.Fatal("README's Energy section has no toml block")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "power.toml")
	os.WriteFile(conf, []byte(s[i+j+8:i+j+8+k]), 0o644)
	trace := filepath.Join(dir, "t.swf")
	os.WriteFile(trace, []byte("; MaxProcs: 32\n1 0 -1 100 32 -1 -1 32 100 -1 1 1 1 1 1 1 -1 -1\n"), 0o644)
	sc := schedsim.Default()
	sc.Trace, sc.Config = trace, conf
	res, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 32 hosts all busy for 100 s at 190.738 W.
	if e := res.Summary.Energy; e == nil || math.Abs(e.Joules-32*190.738*100) > 1e-6 {
		t.Errorf("energy %+v, want %v J", e, 32*190.738*100)
	}
}

// TestTimeUnitChecks checks --time-unit's values and that Check reads the
// power model's file.
func TestTimeUnitChecks(t *testing.T) {
	for _, c := range []struct {
		unit string
		want int64
	}{{"", 1}, {"s", 1}, {"ms", 1000}, {"us", 1_000_000}, {"µs", 1_000_000}, {"min", 0}} {
		got, err := schedsim.TimeUnitTicks(c.unit)
		if got != c.want || (err != nil) != (c.want == 0) {
			t.Errorf("TimeUnitTicks(%q) = %d, %v; want %d", c.unit, got, err, c.want)
		}
	}
	sc := schedsim.Default()
	sc.TimeUnit = "h"
	if err := sc.Check(); err == nil || !strings.Contains(err.Error(), "--time-unit") {
		t.Errorf("Check with --time-unit h: %v", err)
	}
	sc = schedsim.Default()
	sc.Power = filepath.Join(t.TempDir(), "none.xml")
	if err := sc.Check(); err == nil || !strings.Contains(err.Error(), "--power") {
		t.Errorf("Check with a missing --power file: %v", err)
	}
	// A finer unit on an SWF trace is refused by the reader.
	sc = schedsim.Default()
	sc.TimeUnit, sc.Plots = "ms", false
	if _, err := schedsim.Run(context.Background(), &sc, schedsim.Options{}); err == nil || !strings.Contains(err.Error(), "Batsim workloads only") {
		t.Errorf("--time-unit ms on the SWF sample: %v", err)
	}
}

// TestPowerPolicyRun switches the reference platform's hosts off after
// 60 s idle on the recorded workload: less energy than without, the
// switches in pstate_changes.csv, and verify finds no job on a host that
// was off or switching (and finds one planted there).
func TestPowerPolicyRun(t *testing.T) {
	if _, err := os.Stat(batsimEnergyDir); err != nil {
		t.Skipf("skipped: %s not found (%v); the shared data sit beside the repository, at ../shared", batsimEnergyDir, err)
	}
	var joules [3]float64
	var out string
	for i, pol := range []string{"none", "idle:60", "plan"} {
		sc := schedsim.Default()
		sc.Trace = filepath.Join(batsimEnergyDir, "medium_late.json")
		sc.Power = filepath.Join(batsimEnergyDir, "platform.xml")
		sc.PowerPolicy, sc.Plots = pol, false
		sc.Out = filepath.Join(t.TempDir(), "out")
		res, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		joules[i], out = res.Summary.Energy.Joules, sc.Out
	}
	if !(joules[1] < joules[0]) || !(joules[2] < joules[0]) {
		t.Errorf("idle:60 used %.0f J, plan %.0f J, no switching %.0f J", joules[1], joules[2], joules[0])
	}
	pc := simtest.ReadCSV(t, filepath.Join(out, report.PStateChangesCSV))
	switches := 0
	for _, r := range pc[1:] {
		if r[2] == "-2" {
			switches++
		}
	}
	if switches == 0 {
		t.Error("no switch-off in pstate_changes.csv")
	}
	var b strings.Builder
	rs, err := schedsim.VerifyDir(out, 0, &b)
	if err != nil || len(rs) != 1 || rs[0].Violations != 0 {
		t.Fatalf("verify: %v %+v\n%s", err, rs, b.String())
	}
	// Plant a job on the first host switched off, while it sleeps.
	var node string
	var off float64
	for _, r := range pc[1:] {
		if r[2] == "-2" {
			node = r[1]
			off, _ = strconv.ParseFloat(r[0], 64)
			break
		}
	}
	rows := simtest.ReadCSV(t, filepath.Join(out, "jobs.csv"))
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	planted := false
	for _, r := range rows[1:] {
		st, err := strconv.ParseFloat(r[col["starting_time"]], 64)
		if err == nil && st > off+10 && st < off+60 {
			r[col["allocated_resources"]], planted = node, true
			break
		}
	}
	if !planted {
		t.Fatal("no job to plant")
	}
	f, err := os.Create(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	csv.NewWriter(f).WriteAll(rows)
	f.Close()
	b.Reset()
	schedsim.VerifyDir(out, 0, &b)
	if !strings.Contains(b.String(), "which was off or switching") {
		t.Errorf("verify did not see the planted job:\n%s", b.String())
	}
}

// TestBreakEven checks the break-even time of the reference platform's
// sleep state: (616.08 J + 18,966.42 J − 9.75 W × 157.62 s) / (95 W −
// 9.75 W) = 211.68 s.
func TestBreakEven(t *testing.T) {
	f, err := os.Open(filepath.Join(batsimEnergyDir, "platform.xml"))
	if err != nil {
		t.Skipf("skipped: %v; the shared data sit beside the repository, at ../shared", err)
	}
	defer f.Close()
	p, err := energy.ParseXML("platform.xml", f)
	if err != nil {
		t.Fatal(err)
	}
	be, err := schedsim.BreakEvenSec(&p.Groups[0])
	if err != nil || math.Abs(be-211.68) > 0.01 {
		t.Errorf("break-even %v s (%v), want 211.68 s", be, err)
	}
	g := energy.Group{Name: "g", Nodes: 1, Cores: 1, PStates: []energy.PState{{IdleW: 10, EpsilonW: 10, AllCoresW: 20}, {IdleW: 10, EpsilonW: 10, AllCoresW: 10}},
		Sleep: []energy.SleepState{{PState: 1, OffPState: -1, OnPState: -1}}}
	if _, err := schedsim.BreakEvenSec(&g); err == nil {
		t.Error("a sleep state drawing the idle power has a break-even time")
	}
}

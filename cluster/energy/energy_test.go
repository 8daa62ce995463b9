package energy

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/workload"
)

// sharedDir is ../shared seen from this package's folder.
var sharedDir = filepath.Join("..", "..", "..", "shared")

func sharedPath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(sharedDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipped: %s not found (%v); the shared data sit beside the repository, at ../shared", p, err)
	}
	return p
}

// readPlatform parses the reference platform.
func readPlatform(t *testing.T) *Platform {
	t.Helper()
	path := sharedPath(t, "reference/batsim-energy/platform.xml")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParseXML(path, f)
	if err != nil {
		t.Fatal(err)
	}
	if p.Nodes() != 128 {
		t.Fatalf("%d compute hosts, want 128", p.Nodes())
	}
	// The runs used the first 32 (Batsim's --mmax).
	if p, err = p.Limit(32); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReferencePlatform checks what ParseXML reads from the recorded
// platform: 128 compute hosts (the master host left out), of which the
// recorded runs used the first 32, 16 pstates, the
// sleep state 13 with its virtual transitions 14 and 15 (the README's
// facts).
func TestReferencePlatform(t *testing.T) {
	p := readPlatform(t)
	if len(p.Groups) != 1 || p.Nodes() != 32 || p.Cores() != 32 {
		t.Fatalf("%d groups, %d nodes, %d cores; want 1 group of 32 one-core hosts", len(p.Groups), p.Nodes(), p.Cores())
	}
	g := &p.Groups[0]
	if g.Name != "host0" || len(g.PStates) != 16 || g.Initial != 0 {
		t.Fatalf("group %q: %d pstates, initial %d", g.Name, len(g.PStates), g.Initial)
	}
	if s := g.PStates[0]; s.SpeedFlops != 100e6 || s.IdleW != 95 || s.EpsilonW != 95 || s.AllCoresW != 190.738 {
		t.Errorf("pstate 0 = %+v", s)
	}
	if len(g.Sleep) != 1 {
		t.Fatalf("sleep states %+v", g.Sleep)
	}
	s := g.Sleep[0]
	if s.PState != 13 || s.OffPState != 14 || s.OnPState != 15 || g.PStates[13].IdleW != 9.75 {
		t.Errorf("sleep state %+v", s)
	}
	for _, c := range []struct {
		name      string
		tr        Transition
		sec, joul float64
	}{
		{"off", s.Off, 6.1, 616.08},
		{"on", s.On, 151.52, 18966.42},
	} {
		if math.Abs(c.tr.Sec-c.sec) > 1e-6 || math.Abs(c.tr.Joules()-c.joul) > 0.01 {
			t.Errorf("switch %s: %g s, %g J; want %g s, %g J", c.name, c.tr.Sec, c.tr.Joules(), c.sec, c.joul)
		}
	}
	if !g.IsSleep(14) || g.IsSleep(12) {
		t.Error("IsSleep")
	}
}

// schedule reads a run's out_schedule.csv into a map.
func schedule(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "out_schedule.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("out_schedule.csv: %v (%d rows)", err, len(rows))
	}
	out := map[string]float64{}
	for i, k := range rows[0] {
		v, err := strconv.ParseFloat(rows[1][i], 64)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	return out
}

// TestReferenceRuns feeds the recorded power-state changes of the six
// Batsim runs through the integrator and checks each run's consumed
// joules within 10 J (the bar: the recorded timestamps are
// printed with 6 significant digits; Replay makes each switch last its
// exact duration), and the node-seconds spent switching. Jobs are not replayed: Batsim runs a delay job as a
// sleep, so a computing host draws its idle power, 95 W, as an idle one.
func TestReferenceRuns(t *testing.T) {
	p := readPlatform(t)
	const tick = 1_000_000 // µs: the recorded times have up to 6 decimals
	for _, run := range []string{"easy", "conservative", "easy_subpart5", "inertial_shutdown", "opportunistic_shutdown", "inertial_opportunistic_shutdown"} {
		t.Run(run, func(t *testing.T) {
			dir := sharedPath(t, filepath.Join("reference/batsim-energy", run))
			want := schedule(t, dir)
			path := filepath.Join(dir, "out_pstate_changes.csv")
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			changes, err := ReadPStateChanges(path, f, tick)
			if err != nil {
				t.Fatal(err)
			}
			// Batsim's consumed_joules is the energy at the makespan;
			// nodes switching off after the last job are not counted.
			end := int64(math.Round(want["makespan"] * tick))
			m := NewMachine(p, tick, true)
			if err := m.Replay(changes, end); err != nil {
				t.Fatal(err)
			}
			got := m.Total(end).Joules(tick)
			if d := got - want["consumed_joules"]; math.Abs(d) > 10 {
				t.Errorf("consumed %.2f J, recorded %.2f J (off by %.2f J)", got, want["consumed_joules"], d)
			}
			// Batsim's time_switching_off/on count every switch begun
			// before the makespan whole; its time_sleeping and time_idle
			// are not node-seconds (easy_subpart5 sleeps 16 hosts for
			// hours and records 0 s asleep), so they are not compared.
			in := m.InState(end)
			for _, c := range []struct {
				k   Kind
				col string
				max float64
			}{{SwitchingOff, "time_switching_off", 6.1}, {SwitchingOn, "time_switching_on", 151.52}} {
				if d := want[c.col] - in[c.k]; d < -0.01 || d > c.max+0.01 {
					t.Errorf("%s: %.3f node-s, recorded %.3f", c.col, in[c.k], want[c.col])
				}
			}
			t.Logf("%.2f J (recorded %.2f J, off by %+.2f J)", got, want["consumed_joules"], got-want["consumed_joules"])
		})
	}
}

// TestMeterExact checks the integrator on a small hand-computed case: two
// nodes of two cores, one busy on one core then both, one switched off and
// on; the energy is exact and so is each node's.
func TestMeterExact(t *testing.T) {
	p := &Platform{Groups: []Group{{
		Name: "g", Nodes: 2, Cores: 2,
		PStates: []PState{{SpeedFlops: 1, IdleW: 100, EpsilonW: 120, AllCoresW: 200}, {IdleW: 10, EpsilonW: 10, AllCoresW: 10}},
		Sleep:   []SleepState{{PState: 1, OffPState: -1, OnPState: -1, Off: Transition{Sec: 2, W: 50}, On: Transition{Sec: 3, W: 150}}},
	}}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		busyIdle bool
		want     float64 // joules at t = 20 s
		node0    float64
	}{
		// node 0: idle 0–4 (400), one core 4–10 (6×160), two cores
		// 10–20 (10×200) = 3360; node 1: idle 0–5 (500), off 5–7 (100),
		// asleep 7–12 (50), on 12–15 (450), idle 15–20 (500) = 1600.
		{"realistic", false, 4960, 3360},
		// Batsim's convention: busy cores draw idle power.
		{"delay", true, 3600, 2000},
	} {
		t.Run(c.name, func(t *testing.T) {
			const tick = 1000
			m := NewMachine(p, tick, c.busyIdle)
			m.SetBusy(4*tick, 0, 1)
			m.SwitchOff(5*tick, 1, 0)
			if got := m.SwitchOffTicks(1, 0); got != 2*tick {
				t.Errorf("SwitchOffTicks = %d", got)
			}
			m.Asleep(7*tick, 1)
			m.SetBusy(10*tick, 0, 2)
			m.SwitchOn(12*tick, 1)
			m.Awake(15*tick, 1, 0)
			if got := m.Total(20 * tick).Joules(tick); got != c.want {
				t.Errorf("total %v J, want %v", got, c.want)
			}
			if got := m.NodeEnergy(20*tick, 0).Joules(tick); got != c.node0 {
				t.Errorf("node 0: %v J, want %v", got, c.node0)
			}
			in := m.InState(20 * tick)
			if in[Sleeping] != 5 || in[SwitchingOff] != 2 || in[SwitchingOn] != 3 || in[Computing] != 16 || in[Idle] != 14 {
				t.Errorf("time in states %v", in)
			}
			if k := m.Counts(); k[Computing] != 1 || k[Idle] != 1 {
				t.Errorf("counts %v", k)
			}
		})
	}
}

// TestMeterLong checks that the integer accumulation stays exact where a
// float sum would drift: a million one-tick steps of an awkward power.
func TestMeterLong(t *testing.T) {
	p := &Platform{Groups: []Group{{Name: "g", Nodes: 1, Cores: 1, PStates: []PState{{IdleW: 100.996721311, EpsilonW: 100.996721311, AllCoresW: 125.1743849}}}}}
	m := NewMachine(p, 1000, false)
	const steps = 1_000_000
	for i := int64(1); i <= steps; i++ {
		m.SetBusy(i, 0, int(i%2))
	}
	// Half the ticks at each power; 1000 s in all.
	want := (100.996721311 + 125.1743849) * 500
	if got := m.Total(steps).Joules(1000); math.Abs(got-want) > 1e-6 {
		t.Errorf("%.9f J, want %.9f", got, want)
	}
}

// TestParseXMLErrors checks that bad platforms are refused with the file,
// the line and the attribute.
func TestParseXMLErrors(t *testing.T) {
	host := func(attrs, props string) string {
		return "<?xml version='1.0'?>\n<platform version=\"4\">\n<zone id=\"z\" routing=\"Full\">\n" +
			"<host id=\"h0\" " + attrs + ">\n" + props + "</host>\n</zone>\n</platform>\n"
	}
	good := `<prop id="watt_per_state" value="95:95:190, 9:9:9, 100:100:100, 120:120:120"/>` + "\n" + `<prop id="sleep_pstates" value="1:2:3"/>` + "\n"
	speeds := `speed="100Mf, 1e-9Mf, 0.5f, 0.01f"`
	for _, c := range []struct {
		name, doc string
		line      int64
		key       string
		msg       string
	}{
		{"no power", host(speeds, ""), 4, "h0.watt_per_state", "missing"},
		{"bad speed", host(`speed="100Mx"`, good), 4, "h0.speed", "not a speed"},
		{"count", host(`speed="100Mf"`, good), 5, "h0.watt_per_state", "4 power states for 1 speeds"},
		{"bad watts", host(speeds, `<prop id="watt_per_state" value="95:x:190, 9:9:9, 1:1:1, 1:1:1"/>`+"\n"), 5, "h0.watt_per_state", "not a power"},
		{"sleep range", host(speeds, `<prop id="watt_per_state" value="95:95:190, 9:9:9, 1:1:1, 1:1:1"/>`+"\n"+`<prop id="sleep_pstates" value="1:2:9"/>`+"\n"), 6, "h0.sleep_pstates", "not a pstate"},
		{"pstate", host(speeds+` pstate="7"`, good), 4, "h0.pstate", "not a pstate"},
		{"sleep initial", host(speeds+` pstate="1"`, good), 4, "h0.pstate", "sleep state"},
		{"syntax", "<platform>\n<host id=\"a\"\n", 0, "", ""},
		{"only master", "<platform><host id=\"master_host\" speed=\"1f\"/></platform>", 0, "", "no compute host"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseXML("p.xml", strings.NewReader(c.doc))
			var pe *workload.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *workload.ParseError", err)
			}
			if pe.Path != "p.xml" || (c.line > 0 && pe.Line != c.line) || pe.Key != c.key || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err = %v (line %d, key %q); want line %d, key %q, %q", err, pe.Line, pe.Key, c.line, c.key, c.msg)
			}
		})
	}
	// A good one, with a cluster and two-value powers.
	doc := host(speeds, good) + ""
	doc = strings.Replace(doc, "</zone>", `<cluster id="c" prefix="n" suffix="" radical="0-3,8" speed="1Gf" core="4"><prop id="wattage_per_state" value="10:20"/></cluster></zone>`, 1)
	p, err := ParseXML("p.xml", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Groups) != 2 || p.Nodes() != 6 || p.Cores() != 21 || p.Groups[1].Watts(0, 2) != 15 {
		t.Errorf("platform %+v", p)
	}
}

// xmlFuzzSeeds are platforms, valid and not, for the fuzz corpus.
var xmlFuzzSeeds = []string{
	`<platform><host id="master_host" speed="1f"/><host id="h" speed="1Mf, 1f, 2f, 3f" pstate="0"><prop id="watt_per_state" value="1:2:3, 1:1:1, 2:2:2, 3:3:3"/><prop id="sleep_pstates" value="1:2:3"/></host></platform>`,
	`<platform><cluster id="c" prefix="n" radical="0-9" speed="1Gf" core="2"><prop id="wattage_per_state" value="10:20"/></cluster></platform>`,
	`<platform><host id="h" speed="1Mf"><prop id="watt_per_state" value=""/></host></platform>`,
	`<host id="h" speed="1Yf" core="0">`,
}

// FuzzParseXML feeds arbitrary bytes to the platform parser: it must never
// panic, and must return a valid platform or a *workload.ParseError naming
// the file.
func FuzzParseXML(f *testing.F) {
	for _, s := range xmlFuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseXML("fuzz.xml", bytes.NewReader(data))
		if err != nil {
			var pe *workload.ParseError
			if !errors.As(err, &pe) || pe.Path != "fuzz.xml" {
				t.Fatalf("err = %v, want a *workload.ParseError for fuzz.xml", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted an invalid platform: %v", err)
		}
		m := NewMachine(p, 1, false)
		if m.Nodes() != p.Nodes() {
			t.Fatal("node count")
		}
	})
}

// FuzzReadPStateChanges feeds arbitrary text to the pstate_changes reader
// and applies what it reads to a small machine: no panic, errors only.
func FuzzReadPStateChanges(f *testing.F) {
	f.Add([]byte("time,machine_id,new_pstate\n0,0-3,0\n1.5,1 3,-2\n7.6,1 3,1\n9,1,-1\n12,1,0\n"))
	f.Add([]byte("time,machine_id,new_pstate\n0,9,0\n"))
	f.Add([]byte("time,x\n"))
	p := &Platform{Groups: []Group{{Name: "g", Nodes: 4, Cores: 1,
		PStates: []PState{{1, 1, 1, 1}, {0, 0, 0, 0}, {1, 2, 2, 2}, {1, 3, 3, 3}},
		Sleep:   []SleepState{{PState: 1, OffPState: 2, OnPState: 3, Off: Transition{1, 2}, On: Transition{1, 3}}}}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := ReadPStateChanges("fuzz.csv", bytes.NewReader(data), 1000)
		if err != nil {
			var pe *workload.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *workload.ParseError", err)
			}
			return
		}
		m := NewMachine(p, 1000, false)
		for _, c := range cs {
			if m.Apply(c) != nil {
				return
			}
		}
	})
}

// TestReadMachineStates reads rows and refuses bad ones with the line and
// column.
func TestReadMachineStates(t *testing.T) {
	for _, c := range []struct {
		in, err string
		rows    int
	}{
		{"time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing\n0,0,0,0,4,0\n1.5,1,0,0,2,1\n", "", 2},
		{"time,nb_sleeping\n", "header", 0},
		{"time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing\n0,0,0,0,4\n", "ms.csv:2: 5 fields", 0},
		{"time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing\n0,0,0,0,x,0\n", "nb_idle", 0},
		{"time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing\n5,0,0,0,4,0\n4,0,0,0,4,0\n", "before the previous", 0},
		{"", "empty file", 0},
	} {
		rows, err := ReadMachineStates("ms.csv", strings.NewReader(c.in), 1)
		if c.err == "" {
			if err != nil || len(rows) != c.rows || rows[1].Time != 2 || rows[1].Counts != [Kinds]int{1, 0, 0, 2, 1} {
				t.Errorf("%q: %v %+v", c.in, err, rows)
			}
			continue
		}
		var pe *workload.ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "ms.csv") {
			t.Errorf("%q: error %v, want a ParseError with %q", c.in, err, c.err)
		}
	}
}

// FuzzReadMachineStates feeds arbitrary text to the machine_states reader:
// no panic, and errors are *workload.ParseError.
func FuzzReadMachineStates(f *testing.F) {
	f.Add([]byte("time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing\n0,0,0,0,4,0\n1.5,1,0,0,2,1\n"))
	f.Add([]byte("time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing\n-1,0,0,0,4,0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ReadMachineStates("fuzz.csv", bytes.NewReader(data), 1000)
		if err != nil {
			var pe *workload.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *workload.ParseError", err)
			}
			return
		}
		for i := 1; i < len(rows); i++ {
			if rows[i].Time < rows[i-1].Time {
				t.Fatalf("rows out of order: %+v", rows)
			}
		}
	})
}

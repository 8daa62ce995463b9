package schedsim

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/cluster/energy"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// powerConfig is [power]: the nodes' power states, group after group
// (node numbers follow the groups' order), as the README's Energy section
// documents.
type powerConfig struct {
	Groups []powerGroupConfig `toml:"groups"`
}

// powerGroupConfig is one [[power.groups]].
type powerGroupConfig struct {
	Name  string `toml:"name"`
	Count int    `toml:"count"`
	Cores int    `toml:"cores"`
	// Watts is one "idle:epsilon:all-cores" (or "idle:all-cores") per
	// computing pstate, the first the initial one unless Initial says.
	Watts   []string           `toml:"watts"`
	Speeds  []float64          `toml:"speeds"`
	Initial int                `toml:"initial"`
	Sleep   []powerSleepConfig `toml:"sleep"`
}

// powerSleepConfig is one [[power.groups.sleep]]: the power asleep and
// the two switches, each a duration in seconds with a power or an energy.
type powerSleepConfig struct {
	Watts           float64 `toml:"watts"`
	SwitchOff       float64 `toml:"switch_off"`
	SwitchOffWatts  float64 `toml:"switch_off_watts"`
	SwitchOffJoules float64 `toml:"switch_off_joules"`
	SwitchOn        float64 `toml:"switch_on"`
	SwitchOnWatts   float64 `toml:"switch_on_watts"`
	SwitchOnJoules  float64 `toml:"switch_on_joules"`
}

// platform turns [power] into a power model; errors name the key.
func (c *powerConfig) platform(path string) (*energy.Platform, error) {
	p := &energy.Platform{}
	for gi, gc := range c.Groups {
		key := fmt.Sprintf("%s: [[power.groups]] %d", path, gi+1)
		if gc.Name != "" {
			key += " (" + gc.Name + ")"
		}
		g := energy.Group{Name: gc.Name, Nodes: gc.Count, Cores: gc.Cores, Initial: gc.Initial}
		if g.Cores == 0 {
			g.Cores = 1
		}
		if len(gc.Speeds) > 0 && len(gc.Speeds) != len(gc.Watts) {
			return nil, inputf("%s: speeds: %d speeds for %d power states (want one per pstate, or none)", key, len(gc.Speeds), len(gc.Watts))
		}
		for k, w := range gc.Watts {
			parts := strings.Split(w, ":")
			var v [3]float64
			ok := len(parts) == 2 || len(parts) == 3
			for i := 0; ok && i < len(parts); i++ {
				f, err := strconv.ParseFloat(strings.TrimSpace(parts[i]), 64)
				ok = err == nil && f >= 0 && f < 1e12
				v[i] = f
			}
			if !ok {
				return nil, inputf("%s: watts[%d] = %q: want idle:epsilon:all-cores (or idle:all-cores) in watts", key, k, w)
			}
			s := energy.PState{IdleW: v[0], EpsilonW: v[1], AllCoresW: v[2]}
			if len(parts) == 2 {
				s.EpsilonW, s.AllCoresW = v[0], v[1]
			}
			if len(gc.Speeds) > 0 {
				s.SpeedFlops = gc.Speeds[k]
			}
			g.PStates = append(g.PStates, s)
		}
		for si, sc := range gc.Sleep {
			skey := fmt.Sprintf("%s: [[power.groups.sleep]] %d", key, si+1)
			off, err := transition(sc.SwitchOff, sc.SwitchOffWatts, sc.SwitchOffJoules)
			if err != nil {
				return nil, inputf("%s: switch_off: %v", skey, err)
			}
			on, err := transition(sc.SwitchOn, sc.SwitchOnWatts, sc.SwitchOnJoules)
			if err != nil {
				return nil, inputf("%s: switch_on: %v", skey, err)
			}
			g.PStates = append(g.PStates, energy.PState{IdleW: sc.Watts, EpsilonW: sc.Watts, AllCoresW: sc.Watts})
			g.Sleep = append(g.Sleep, energy.SleepState{PState: len(g.PStates) - 1, OffPState: -1, OnPState: -1, Off: off, On: on})
		}
		p.Groups = append(p.Groups, g)
	}
	if err := p.Validate(); err != nil {
		return nil, inputf("%s: [power]: %v", path, err)
	}
	return p, nil
}

// transition is a switch of sec seconds at watts, or of joules in all.
func transition(sec, watts, joules float64) (energy.Transition, error) {
	switch {
	case sec < 0 || watts < 0 || joules < 0:
		return energy.Transition{}, fmt.Errorf("%g s, %g W, %g J: want values ≥ 0", sec, watts, joules)
	case watts > 0 && joules > 0:
		return energy.Transition{}, fmt.Errorf("give its power (_watts) or its energy (_joules), not both")
	case joules > 0 && sec == 0:
		return energy.Transition{}, fmt.Errorf("%g J in 0 s: give its duration", joules)
	case joules > 0:
		return energy.Transition{Sec: sec, W: joules / sec}, nil
	}
	return energy.Transition{Sec: sec, W: watts}, nil
}

// powerModel returns the run's power model: --power's platform file or
// --config's [power] table; nil without either.
func (o *runner) powerModel() (*energy.Platform, error) {
	if !o.powerRead {
		o.power, o.powerErr = o.readPowerModel()
		o.powerRead = true
	}
	return o.power, o.powerErr
}

func (o *runner) readPowerModel() (*energy.Platform, error) {
	var conf *runConfig
	if o.Config != "" {
		var err error
		if conf, err = o.runConfig(); err != nil {
			return nil, err
		}
	}
	hasTable := conf != nil && conf.Power != nil
	switch {
	case o.Power != "" && hasTable:
		return nil, inputf("--power %s and %s's [power] table: give one power model", o.Power, o.Config)
	case hasTable:
		return conf.Power.platform(o.Config)
	case o.Power == "":
		return nil, nil
	}
	f, err := os.Open(o.Power)
	if err != nil {
		return nil, inputf("--power: %v", err)
	}
	defer f.Close()
	p, err := energy.ParseXML(o.Power, f)
	if err != nil {
		return nil, &InputError{err}
	}
	return p, nil
}

// energyRun returns the run's energy meter on procs processors, or on the
// nodes of spec (a cluster of nodes; nil on the processor pool), its
// records going on to next, or nil without a power model (what it does
// not combine with is in Combinations).
func (o *runner) energyRun(procs int, spec *cluster.Spec, next []sim.Observer) (*report.EnergyRun, error) {
	p, err := o.powerModel()
	if err != nil || p == nil {
		return nil, err
	}
	tick, err := o.ticks()
	if err != nil {
		return nil, err
	}
	var e *report.EnergyRun
	if spec != nil {
		members := o.members
		if len(members) == 0 {
			members = []*cluster.Spec{spec}
		}
		var cp *energy.Platform
		if cp, err = report.MatchCluster(p, spec); err == nil {
			e, err = report.NewClusterEnergyRun(cp, members, tick, o.PowerJobsIdle, next...)
		}
	} else {
		e, err = report.NewEnergyRun(p, procs, tick, o.PowerJobsIdle, next...)
	}
	if err != nil {
		src := o.Power
		if src == "" {
			src = o.Config + " [power]"
		}
		return nil, inputf("%s: %v", src, err)
	}
	return e, nil
}

// TimeUnitTicks returns the ticks a second of a time unit: s (or "") 1,
// ms 1000, us (or µs) 1,000,000.
func TimeUnitTicks(unit string) (int64, error) {
	switch strings.ToLower(strings.TrimSpace(unit)) {
	case "", "s":
		return 1, nil
	case "ms":
		return 1000, nil
	case "us", "µs":
		return 1_000_000, nil
	}
	return 0, fmt.Errorf("%q: want s, ms or us", unit)
}

// ticks returns the run's ticks a second (--time-unit).
func (o *runner) ticks() (int64, error) {
	t, err := TimeUnitTicks(o.TimeUnit)
	if err != nil {
		return 0, inputf("--time-unit %v", err)
	}
	return t, nil
}

// switchingPolicy returns the engine's power management of --power-policy
// on procs processors, its changes going to the energy meter; nil for
// none.
func (o *runner) switchingPolicy(procs int, meter *report.EnergyRun) (*sim.Power, error) {
	pol := strings.TrimSpace(o.PowerPolicy)
	if pol == "" || strings.EqualFold(pol, "none") {
		return nil, nil
	}
	kind, arg, _ := strings.Cut(pol, ":")
	plan := strings.EqualFold(kind, "plan") && arg == ""
	if !strings.EqualFold(kind, "idle") && !plan {
		return nil, inputf("--power-policy %q: want none, idle:T (a duration: 600, 10m) or plan", pol)
	}
	var sec workload.Time
	if !plan {
		var err error
		if sec, err = policy.ParseDuration(arg); err != nil {
			return nil, inputf("--power-policy %q: %q is not a duration (600, 10m, 1h)", pol, arg)
		}
	}
	if meter == nil {
		return nil, inputf("--power-policy %s needs a power model (--power or [power]) with a sleep state", pol)
	}
	p := meter.Platform()
	g := &p.Groups[0]
	for i := range p.Groups {
		gi := &p.Groups[i]
		switch {
		case len(gi.Sleep) == 0:
			return nil, inputf("--power-policy %s: every node of the power model needs a sleep state (%s has none)", pol, gi.Name)
		case meter.OnCluster() && (gi.Sleep[0].Off.Sec != g.Sleep[0].Off.Sec || gi.Sleep[0].On.Sec != g.Sleep[0].On.Sec):
			// A cluster's nodes may differ in cores, not in how long
			// they take to switch (the engine plans with one).
			return nil, inputf("--power-policy %s: every node of the power model needs switches of the same durations (%s: %g s off and %g s on, %s: %g s and %g s)", pol, g.Name, g.Sleep[0].Off.Sec, g.Sleep[0].On.Sec, gi.Name, gi.Sleep[0].Off.Sec, gi.Sleep[0].On.Sec)
		case !meter.OnCluster() && gi.Cores != g.Cores:
			return nil, inputf("--power-policy %s: every node of the power model needs the same cores on the processor pool (%s: %d cores, %s: %d)", pol, g.Name, g.Cores, gi.Name, gi.Cores)
		}
	}
	if o.NodeEvents != "" && !meter.OnCluster() && o.NodeSize != g.Cores {
		return nil, inputf("--power-policy %s with --node-events: the node events' nodes are the power model's, of %d cores: give --node-size %d (not %d)", pol, g.Cores, g.Cores, o.NodeSize)
	}
	tick, err := o.ticks()
	if err != nil {
		return nil, err
	}
	ticks := func(s float64) workload.Time { return workload.Time(math.Round(s * float64(tick))) }
	sp := &sim.Power{
		NodeSize: g.Cores, IdleTimeout: sec * workload.Time(tick),
		SwitchOff: ticks(g.Sleep[0].Off.Sec), SwitchOn: ticks(g.Sleep[0].On.Sec),
		Log: meter.Switch, Plan: plan,
	}
	if plan {
		be, err := BreakEvenSec(g)
		if err != nil {
			return nil, inputf("--power-policy plan: %s: %v", g.Name, err)
		}
		sp.BreakEven = ticks(be)
	}
	return sp, nil
}

// BreakEvenSec returns the break-even time of a node group's first sleep
// state, as batsched's energy_bf plans with it: the shortest time off
// (switches included) that saves energy against staying idle,
// (E_off + E_on − P_sleep·(T_off + T_on)) / (P_idle − P_sleep), and never
// less than the two switches' durations.
func BreakEvenSec(g *energy.Group) (float64, error) {
	if len(g.Sleep) == 0 {
		return 0, fmt.Errorf("no sleep state")
	}
	sl := g.Sleep[0]
	idle, sleep := g.Watts(g.Initial, 0), g.PStates[sl.PState].IdleW
	if idle <= sleep {
		return 0, fmt.Errorf("asleep it draws %g W, idle %g W: sleeping saves nothing", sleep, idle)
	}
	t := sl.Off.Sec + sl.On.Sec
	be := (sl.Off.Joules() + sl.On.Joules() - sleep*t) / (idle - sleep)
	return max(be, t), nil
}

// Package energy models the power drawn by a machine's nodes and integrates
// it exactly into energy, as Batsim does on top of SimGrid's host energy
// plugin.
//
// A node is in one power state (pstate) at a time. A computing pstate has a
// speed and three powers, written idle:epsilon:all-cores as in SimGrid's
// watt_per_state: a node with no busy core draws the idle power; with b of
// its c cores busy it draws epsilon + (all-cores − epsilon)·b/c. A sleep
// state is entered through a switch-off transition and left through a
// switch-on transition, each a duration at a power (Batsim models each as a
// virtual pstate computing one flop: the duration is 1/speed and the power
// the state's own). Power is piecewise constant between events, so the
// energy is a sum of power × duration: Meter accumulates it in integer
// nanowatt-ticks, 128 bits wide, with no rounding from event to event.
//
// The package is pure: no I/O except its parsers (ParseXML).
package energy

import (
	"errors"
	"fmt"
	"math"
)

// ErrModel is wrapped by the errors of an inconsistent power description.
var ErrModel = errors.New("energy: invalid power model")

// PState is a computing power state of a node.
type PState struct {
	// SpeedFlops is the node's speed in this state, in floating-point
	// operations per second per core (0: unknown).
	SpeedFlops float64
	// IdleW is the power with no busy core, EpsilonW the power with a
	// vanishing load, AllCoresW the power with every core busy, in watts.
	IdleW, EpsilonW, AllCoresW float64
}

// Transition is a switch between a computing state and a sleep state: its
// duration and its power.
type Transition struct {
	// Sec is the duration in seconds.
	Sec float64
	// W is the power drawn during it, in watts.
	W float64
}

// Joules returns the energy of the transition.
func (t Transition) Joules() float64 { return t.Sec * t.W }

// SleepState is a state in which a node computes nothing and draws little.
type SleepState struct {
	// PState is the index, among the group's PStates, of the state the
	// node is in while asleep (its IdleW is the sleeping power).
	PState int
	// Off and On are the switch-off (into the sleep) and switch-on (back
	// to a computing state) transitions.
	Off, On Transition
	// OffPState and OnPState are Batsim's virtual pstates of the two
	// transitions, -1 when the description has none.
	OffPState, OnPState int
}

// Group is a set of identical nodes.
type Group struct {
	// Name names the group in messages.
	Name string
	// Nodes is the number of nodes and Cores the cores of each.
	Nodes, Cores int
	// PStates are the node's power states, by index. Sleep states and
	// Batsim's virtual switching states are among them.
	PStates []PState
	// Initial is the pstate a node starts in (a computing state).
	Initial int
	// Sleep are the sleep states (empty: the nodes never sleep).
	Sleep []SleepState
}

// Platform is the power description of a machine: its node groups, numbered
// one after the other (the first group's nodes are 0…Nodes−1, and so on).
type Platform struct {
	Groups []Group
}

// Nodes returns the number of nodes of the platform.
func (p *Platform) Nodes() int {
	n := 0
	for i := range p.Groups {
		n += p.Groups[i].Nodes
	}
	return n
}

// Cores returns the number of cores of the platform.
func (p *Platform) Cores() int {
	n := 0
	for i := range p.Groups {
		n += p.Groups[i].Nodes * p.Groups[i].Cores
	}
	return n
}

// IsSleep reports whether pstate p of the group is a sleep state or one of
// the virtual switching states, and so not a computing state.
func (g *Group) IsSleep(p int) bool {
	for _, s := range g.Sleep {
		if p == s.PState || p == s.OffPState || p == s.OnPState {
			return true
		}
	}
	return false
}

// SleepOf returns the index in g.Sleep of the sleep state whose sleeping
// pstate is p, or -1.
func (g *Group) SleepOf(p int) int {
	for i, s := range g.Sleep {
		if s.PState == p {
			return i
		}
	}
	return -1
}

// Watts returns the power of a node of the group in computing pstate p with
// busy of its cores busy.
func (g *Group) Watts(p, busy int) float64 {
	s := &g.PStates[p]
	if busy <= 0 {
		return s.IdleW
	}
	if busy >= g.Cores {
		return s.AllCoresW
	}
	return s.EpsilonW + (s.AllCoresW-s.EpsilonW)*float64(busy)/float64(g.Cores)
}

// Validate checks the description: at least one group, positive counts,
// powers and durations finite and not negative, indices in range.
func (p *Platform) Validate() error {
	if len(p.Groups) == 0 {
		return fmt.Errorf("%w: no node group", ErrModel)
	}
	for i := range p.Groups {
		g := &p.Groups[i]
		name := g.Name
		if name == "" {
			name = fmt.Sprintf("group %d", i)
		}
		if g.Nodes <= 0 || g.Cores <= 0 {
			return fmt.Errorf("%w: %s: %d nodes of %d cores (want at least one of each)", ErrModel, name, g.Nodes, g.Cores)
		}
		if len(g.PStates) == 0 {
			return fmt.Errorf("%w: %s: no power state", ErrModel, name)
		}
		for k, s := range g.PStates {
			for _, w := range []float64{s.SpeedFlops, s.IdleW, s.EpsilonW, s.AllCoresW} {
				if !finiteNonNeg(w) {
					return fmt.Errorf("%w: %s: pstate %d: %v is not a power or speed (want a finite value ≥ 0)", ErrModel, name, k, w)
				}
			}
		}
		if g.Initial < 0 || g.Initial >= len(g.PStates) {
			return fmt.Errorf("%w: %s: initial pstate %d out of range 0…%d", ErrModel, name, g.Initial, len(g.PStates)-1)
		}
		for _, s := range g.Sleep {
			for _, k := range []int{s.PState, s.OffPState, s.OnPState} {
				if k < -1 || k >= len(g.PStates) || (k == -1 && k == s.PState) {
					return fmt.Errorf("%w: %s: sleep pstate %d out of range 0…%d", ErrModel, name, k, len(g.PStates)-1)
				}
			}
			for _, t := range []Transition{s.Off, s.On} {
				if !finiteNonNeg(t.Sec) || !finiteNonNeg(t.W) {
					return fmt.Errorf("%w: %s: sleep pstate %d: switching takes %v s at %v W (want finite values ≥ 0)", ErrModel, name, s.PState, t.Sec, t.W)
				}
			}
		}
		if g.IsSleep(g.Initial) {
			return fmt.Errorf("%w: %s: initial pstate %d is a sleep state", ErrModel, name, g.Initial)
		}
	}
	return nil
}

func finiteNonNeg(x float64) bool { return x >= 0 && !math.IsInf(x, 0) && !math.IsNaN(x) }

// NanoWatts converts watts to the integer nanowatts the meter adds up.
func NanoWatts(w float64) int64 { return int64(math.Round(w * 1e9)) }

// Limit returns the platform of the first n nodes of p (Batsim's --mmax:
// a run on fewer machines than the platform describes uses the first
// ones). n must be between 1 and p.Nodes().
func (p *Platform) Limit(n int) (*Platform, error) {
	if n < 1 || n > p.Nodes() {
		return nil, fmt.Errorf("%w: %d nodes asked of a platform of %d", ErrModel, n, p.Nodes())
	}
	out := &Platform{}
	for _, g := range p.Groups {
		if n == 0 {
			break
		}
		g.Nodes = min(g.Nodes, n)
		n -= g.Nodes
		out.Groups = append(out.Groups, g)
	}
	return out, nil
}

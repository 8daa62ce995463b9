package energy

import (
	"fmt"
	"math"
	"math/bits"
)

// Energy is an amount of energy in nanowatt-ticks (a tick being the run's
// time unit), held exactly in 128 bits: a sum of integer powers times
// integer durations needs no rounding.
type Energy struct{ hi, lo uint64 }

// addMul adds w·d.
func (e *Energy) addMul(w, d uint64) {
	hi, lo := bits.Mul64(w, d)
	var c uint64
	e.lo, c = bits.Add64(e.lo, lo, 0)
	e.hi, _ = bits.Add64(e.hi, hi, c)
}

// Add returns e + f.
func (e Energy) Add(f Energy) Energy {
	lo, c := bits.Add64(e.lo, f.lo, 0)
	hi, _ := bits.Add64(e.hi, f.hi, c)
	return Energy{hi, lo}
}

// Sub returns e − f; f must not exceed e.
func (e Energy) Sub(f Energy) Energy {
	lo, b := bits.Sub64(e.lo, f.lo, 0)
	hi, _ := bits.Sub64(e.hi, f.hi, b)
	return Energy{hi, lo}
}

// Joules converts e to joules, for a time unit of ticksPerSec ticks a
// second.
func (e Energy) Joules(ticksPerSec int64) float64 {
	return (float64(e.hi)*0x1p64 + float64(e.lo)) / (1e9 * float64(ticksPerSec))
}

// Ticks returns e read as a count (the node-ticks of Machine.InState).
func (e Energy) Ticks() float64 { return float64(e.hi)*0x1p64 + float64(e.lo) }

// Kind is what a node is doing, as Batsim's machine states count it.
type Kind uint8

// Node kinds, in the order of Batsim's machine_states columns.
const (
	Sleeping Kind = iota
	SwitchingOn
	SwitchingOff
	Idle
	Computing
	nKinds
)

// Kinds is the number of node kinds.
const Kinds = int(nKinds)

// String names the kind as Batsim's outputs do.
func (k Kind) String() string {
	switch k {
	case Sleeping:
		return "sleeping"
	case SwitchingOn:
		return "switching_on"
	case SwitchingOff:
		return "switching_off"
	case Idle:
		return "idle"
	case Computing:
		return "computing"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// node is one node's state and meter.
type node struct {
	group  int32
	pstate int32 // computing pstate (the target while switching on)
	sleep  int32 // index in Group.Sleep while asleep or switching
	busy   int32 // busy cores
	kind   Kind
	nW     int64  // power now
	since  int64  // tick of the last power change
	acc    Energy // energy until since
}

// Machine follows the state of every node of a platform through a run and
// meters its energy. Times are ticks, never decreasing from call to call;
// methods panic on a node out of range or a transition that the node's
// state does not allow (a caller's bug).
type Machine struct {
	p     *Platform
	tick  int64
	idle  bool
	nodes []node

	total   Energy
	totalNW int64
	last    int64
	counts  [nKinds]int
	inState [nKinds]Energy
}

// NewMachine returns the machine of p, every node in its group's initial
// pstate, idle, at time 0. ticksPerSec is the run's time unit (1 for
// seconds). busyIdle is Batsim's convention for trace ("delay") jobs: a
// busy core draws no more than an idle one.
func NewMachine(p *Platform, ticksPerSec int64, busyIdle bool) *Machine {
	m := &Machine{p: p, tick: ticksPerSec, idle: busyIdle}
	for gi := range p.Groups {
		g := &p.Groups[gi]
		w := NanoWatts(g.Watts(g.Initial, 0))
		for range g.Nodes {
			m.nodes = append(m.nodes, node{group: int32(gi), pstate: int32(g.Initial), sleep: -1, kind: Idle, nW: w})
			m.totalNW += w
		}
	}
	m.counts[Idle] = len(m.nodes)
	return m
}

// Platform returns the machine's power description.
func (m *Machine) Platform() *Platform { return m.p }

// Nodes returns the number of nodes.
func (m *Machine) Nodes() int { return len(m.nodes) }

// TicksPerSec returns the time unit.
func (m *Machine) TicksPerSec() int64 { return m.tick }

// advance brings the run totals to time t.
func (m *Machine) advance(t int64) {
	if t < m.last {
		panic(fmt.Sprintf("energy: time %d before %d", t, m.last))
	}
	d := uint64(t - m.last)
	if d == 0 {
		return
	}
	m.total.addMul(uint64(m.totalNW), d)
	for k, c := range m.counts {
		if c > 0 {
			m.inState[k].addMul(uint64(c), d)
		}
	}
	m.last = t
}

// set gives node i power nW and kind k from time t.
func (m *Machine) set(t int64, i int, nW int64, k Kind) {
	m.advance(t)
	n := &m.nodes[i]
	n.acc.addMul(uint64(n.nW), uint64(t-n.since))
	n.since = t
	m.totalNW += nW - n.nW
	n.nW = nW
	m.counts[n.kind]--
	m.counts[k]++
	n.kind = k
}

// onPower returns the power of node n, on, in its pstate with its busy
// cores.
func (m *Machine) onPower(n *node) (int64, Kind) {
	g := &m.p.Groups[n.group]
	if n.busy == 0 {
		return NanoWatts(g.Watts(int(n.pstate), 0)), Idle
	}
	if m.idle {
		return NanoWatts(g.Watts(int(n.pstate), 0)), Computing
	}
	return NanoWatts(g.Watts(int(n.pstate), int(n.busy))), Computing
}

// SetBusy sets the number of busy cores of node i from time t.
func (m *Machine) SetBusy(t int64, i int, busy int) {
	n := &m.nodes[i]
	if n.kind != Idle && n.kind != Computing {
		panic(fmt.Sprintf("energy: node %d is %s at %d: no job may run on it", i, n.kind, t))
	}
	n.busy = int32(busy)
	w, k := m.onPower(n)
	m.set(t, i, w, k)
}

// Busy returns the busy cores of node i.
func (m *Machine) Busy(i int) int { return int(m.nodes[i].busy) }

// Kind returns what node i is doing.
func (m *Machine) Kind(i int) Kind { return m.nodes[i].kind }

// PState returns node i's pstate as Batsim prints it: its computing or
// sleeping pstate, -2 while switching off, -1 while switching on.
func (m *Machine) PState(i int) int {
	n := &m.nodes[i]
	switch n.kind {
	case SwitchingOff:
		return -2
	case SwitchingOn:
		return -1
	case Sleeping:
		return m.p.Groups[n.group].Sleep[n.sleep].PState
	}
	return int(n.pstate)
}

// SetPState moves idle or computing node i to computing pstate p (DVFS)
// from time t.
func (m *Machine) SetPState(t int64, i, p int) {
	n := &m.nodes[i]
	g := &m.p.Groups[n.group]
	if (n.kind != Idle && n.kind != Computing) || p < 0 || p >= len(g.PStates) || g.IsSleep(p) {
		panic(fmt.Sprintf("energy: node %d (%s) cannot go to pstate %d", i, n.kind, p))
	}
	n.pstate = int32(p)
	w, k := m.onPower(n)
	m.set(t, i, w, k)
}

// SwitchOff starts switching idle node i off into its group's sleep state
// s at time t; the switch ends at t + SwitchOffTicks (call Asleep then).
func (m *Machine) SwitchOff(t int64, i, s int) {
	n := &m.nodes[i]
	if n.kind != Idle {
		panic(fmt.Sprintf("energy: node %d is %s at %d: only an idle node switches off", i, n.kind, t))
	}
	n.sleep = int32(s)
	m.set(t, i, NanoWatts(m.p.Groups[n.group].Sleep[s].Off.W), SwitchingOff)
}

// Asleep ends node i's switch-off at time t.
func (m *Machine) Asleep(t int64, i int) {
	n := &m.nodes[i]
	if n.kind != SwitchingOff {
		panic(fmt.Sprintf("energy: node %d is %s at %d, not switching off", i, n.kind, t))
	}
	g := &m.p.Groups[n.group]
	m.set(t, i, NanoWatts(g.PStates[g.Sleep[n.sleep].PState].IdleW), Sleeping)
}

// SwitchOn starts switching sleeping node i on at time t; it ends at
// t + SwitchOnTicks (call Awake then).
func (m *Machine) SwitchOn(t int64, i int) {
	n := &m.nodes[i]
	if n.kind != Sleeping {
		panic(fmt.Sprintf("energy: node %d is %s at %d, not asleep", i, n.kind, t))
	}
	m.set(t, i, NanoWatts(m.p.Groups[n.group].Sleep[n.sleep].On.W), SwitchingOn)
}

// Awake ends node i's switch-on at time t: it is idle in computing pstate
// p.
func (m *Machine) Awake(t int64, i, p int) {
	n := &m.nodes[i]
	if n.kind != SwitchingOn {
		panic(fmt.Sprintf("energy: node %d is %s at %d, not switching on", i, n.kind, t))
	}
	n.pstate, n.sleep, n.busy = int32(p), -1, 0
	w, _ := m.onPower(n)
	m.set(t, i, w, Idle)
}

// Ticks converts seconds to the machine's ticks, rounded to the nearest.
func (m *Machine) Ticks(sec float64) int64 { return int64(math.Round(sec * float64(m.tick))) }

// SwitchOffTicks returns how long node i takes to switch off into sleep
// state s.
func (m *Machine) SwitchOffTicks(i, s int) int64 {
	return m.Ticks(m.p.Groups[m.nodes[i].group].Sleep[s].Off.Sec)
}

// SwitchOnTicks returns how long sleeping or switching-off node i takes to
// switch on.
func (m *Machine) SwitchOnTicks(i int) int64 {
	n := &m.nodes[i]
	return m.Ticks(m.p.Groups[n.group].Sleep[n.sleep].On.Sec)
}

// Total returns the energy of the whole machine from time 0 to t (not
// before the last change).
func (m *Machine) Total(t int64) Energy {
	if t < m.last {
		panic(fmt.Sprintf("energy: total at %d, before the last change at %d", t, m.last))
	}
	e := m.total
	e.addMul(uint64(m.totalNW), uint64(t-m.last))
	return e
}

// NodeEnergy returns node i's energy from time 0 to t (not before its
// last change).
func (m *Machine) NodeEnergy(t int64, i int) Energy {
	n := &m.nodes[i]
	if t < n.since {
		panic(fmt.Sprintf("energy: node %d's energy at %d, before its last change at %d", i, t, n.since))
	}
	e := n.acc
	e.addMul(uint64(n.nW), uint64(t-n.since))
	return e
}

// Watts returns the machine's power now.
func (m *Machine) Watts() float64 { return float64(m.totalNW) / 1e9 }

// Counts returns how many nodes are in each kind now.
func (m *Machine) Counts() [Kinds]int { return m.counts }

// InState returns the node-seconds spent in each kind from time 0 to t.
func (m *Machine) InState(t int64) [Kinds]float64 {
	if t < m.last {
		panic(fmt.Sprintf("energy: time in states at %d, before the last change at %d", t, m.last))
	}
	var out [Kinds]float64
	for k := range m.inState {
		e := m.inState[k]
		e.addMul(uint64(m.counts[k]), uint64(t-m.last))
		out[k] = e.Ticks() / float64(m.tick)
	}
	return out
}

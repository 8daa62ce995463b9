package sim

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Power management (Config.Power): the engine switches idle nodes of the
// processor pool off and on, as batsim-py's TimeoutPolicy does. A node is
// Power.NodeSize consecutive processors. After the pass of every instant:
//   - a node in service with no processor allocated since IdleTimeout is
//     switched off, unless the queued jobs ask for more processors than
//     would be free without it: its processors leave service at once (as a
//     DOWN node's would, but no job runs there) and it sleeps after
//     SwitchOff;
//   - when the queued jobs ask for more processors than are free in
//     service or coming back (nodes switching on), sleeping nodes are
//     switched on, lowest numbered first, until they cover the shortfall;
//     each is back in service SwitchOn later (a RESUME node event).
//
// Under Power.Plan the timeout is Power.BreakEven (the shortest time off
// that saves energy: a rule that wastes at most twice the best choice's
// energy when the next job's arrival is unknown), and the switches are
// checked against the head job's reservation as the engine plans it
// (headPlan: the predicted ends of the running jobs, the nodes switching
// on, and the sleeping nodes back SwitchOn from now): an idle node is not
// switched off when that moves the head's planned start, and the nodes
// the head lacks are switched on at once.
//
// A job never starts on a node that is off or switching: its processors
// are out of the pool (parked) from the switch-off to the end of the
// switch-on. Power.Log hears every change. Every switch voids the
// reservations made before it, as a node event does: policies that plan
// (conservative, Slurm's backfill, reservations) plan again on the machine
// as it is. Switches happen at every instant, a scheduler cycle's tick or
// not. Under Grow a node a job grew onto is busy from that growth, and
// running jobs grow only onto processors in service (a node off is not
// idle for them). Not with an Allocator, node events, checkpoints or
// deferred placement.

// PowerChange is a change of a node's power state (Power.Log).
type PowerChange uint8

// Power changes, in the order a node goes through them.
const (
	// PowerSwitchingOff: the node starts switching off.
	PowerSwitchingOff PowerChange = iota
	// PowerAsleep: the node is asleep (SwitchOff after PowerSwitchingOff).
	PowerAsleep
	// PowerSwitchingOn: the node starts switching on.
	PowerSwitchingOn
	// PowerAwake: the node is on and in service again.
	PowerAwake
)

// Power configures power management (see above).
type Power struct {
	// NodeSize is the processors of a node (≥ 1).
	NodeSize int
	// IdleTimeout is how long a node stays idle before it is switched off
	// (≥ 0).
	IdleTimeout workload.Time
	// SwitchOff and SwitchOn are the durations of the switches (≥ 0).
	SwitchOff, SwitchOn workload.Time
	// Plan, if set, plans the switches with the head job's reservation
	// instead of a fixed timeout (see planPass): a node idle for
	// BreakEven is switched off unless the head needs it before it could
	// sleep BreakEven, and sleeping nodes the head needs are switched on
	// SwitchOn before its reservation.
	Plan bool
	// BreakEven is the shortest time off that saves energy (Plan).
	BreakEven workload.Time
	// Log, if set, is called on the engine's goroutine with each change,
	// its time (a future one for PowerAsleep and PowerAwake, which
	// follow from the switch's start) and the node.
	Log func(t workload.Time, node int, c PowerChange)
}

// Node power states.
const (
	powerOn uint8 = iota
	powerOff
	powerWaking
)

// powerState is the engine's power management state.
type powerState struct {
	cfg       Power
	busy      []int32         // per node: processors allocated
	idleSince []workload.Time // per node: since when it is idle; −1 busy
	state     []uint8         // powerOn, powerOff, powerWaking
	asleepAt  []workload.Time // per node off: when its switch-off ends
	waking    int             // processors of the nodes switching on
	timers    map[workload.Time]bool
	// admin is each node's service state as the node events set it
	// (nodeUp, nodeDown, nodeDrain), with node events only: a node off
	// or switching keeps it until it is on again (powerNodeEvent).
	admin   []uint8
	scratch []cluster.Range
}

// powerSwitchedOn is the Reason of the RESUME event that ends a switch-on,
// which tells it from the node events' RESUME.
const powerSwitchedOn = "switched on"

// initPower sets up power management.
func (e *Engine) initPower(cfg *Config) error {
	p := cfg.Power
	if p == nil {
		return nil
	}
	switch {
	case p.NodeSize < 1 || p.IdleTimeout < 0 || p.SwitchOff < 0 || p.SwitchOn < 0:
		return fmt.Errorf("sim: power management: node size %d, idle timeout %d, switches %d and %d: want a node size ≥ 1 and times ≥ 0", p.NodeSize, p.IdleTimeout, p.SwitchOff, p.SwitchOn)
	case cfg.DeferPlacement:
		return errors.New("sim: power management runs without deferred placement")
	case len(cfg.NodeEvents) > 0 && cfg.Allocator == nil && max(cfg.NodeSize, 1) != p.NodeSize:
		return fmt.Errorf("sim: power management on nodes of %d processors, node events on nodes of %d: want one node size", p.NodeSize, max(cfg.NodeSize, 1))
	}
	var units cluster.NodeStates = poolNodes{m: e.machine, size: p.NodeSize, procs: cfg.Procs}
	nunits := cfg.Procs
	if cfg.Allocator != nil {
		ns, ok := cfg.Allocator.(cluster.NodeStates)
		if !ok {
			return fmt.Errorf("sim: power management needs a node selector whose nodes can leave service (linear or cons_res), not %T", cfg.Allocator)
		}
		units, nunits = ns, ns.NodeUnits(cluster.Range{Lo: 0, Hi: ns.Nodes()}).Hi
	}
	if len(cfg.NodeEvents) == 0 {
		e.nodes = nodes{units: units, parked: make([]bool, nunits)}
		e.nodes.state = make([]uint8, e.nodes.units.Nodes())
	}
	n := e.nodes.units.Nodes()
	e.pw = &powerState{cfg: *p, busy: make([]int32, n), idleSince: make([]workload.Time, n), state: make([]uint8, n), asleepAt: make([]workload.Time, n)}
	if len(cfg.NodeEvents) > 0 {
		e.pw.admin = make([]uint8, n)
		// The switches' events join the schedule: a copy of its own,
		// the caller's left as it was.
		e.nodes.events = slices.Clone(e.nodes.events)
	}
	for i := range e.pw.idleSince {
		e.pw.idleSince[i] = -1
	}
	return nil
}

// powerBusy counts the processors of alloc as allocated (d = +1) or
// released (d = −1) on their nodes.
func (e *Engine) powerBusy(alloc []cluster.Range, d int32) {
	if e.alloc != nil {
		// A cluster's allocation units: its nodes (linear) or cores.
		for _, r := range alloc {
			for u := r.Lo; u < r.Hi; u++ {
				e.pw.busy[e.nodes.units.UnitNode(u)] += d
			}
		}
		return
	}
	size := e.pw.cfg.NodeSize
	for _, r := range alloc {
		for u := r.Lo; u < r.Hi; {
			n := u / size
			v := min(r.Hi, (n+1)*size)
			e.pw.busy[n] += d * int32(v-u)
			u = v
		}
	}
}

// headPlan plans the head of the queue's start with the switches: the
// earliest time at which enough processors are free for it — those free
// in service now, those of nodes switching on, those the running jobs
// give back at their predicted ends, and those of sleeping nodes, which
// can be back SwitchOn after now — and how many processors of sleeping
// nodes it needs then. moved are the processors of a node to take from
// the free ones to the sleeping ones (to ask whether switching it off
// moves the plan). With an empty queue it returns Forever, 0.
func (e *Engine) headPlan(moved int) (workload.Time, int) {
	if len(e.queue) == 0 {
		return workload.Forever, 0
	}
	pw := e.pw
	need := e.slots[e.queue[0]].job.Procs
	asleep := moved
	for n, st := range pw.state {
		if st == powerOff && pw.serviceUp(n) {
			asleep += e.nodes.nodeProcs(n)
		}
	}
	have := e.Free() + pw.waking - moved
	awake := e.now + pw.cfg.SwitchOn
	at := e.now
	for k := 0; ; k++ {
		switch {
		case have >= need:
			return at, 0
		case have+asleep >= need:
			return max(at, awake), need - have
		case k == len(e.running):
			return workload.Forever, need - have
		}
		r := e.running[k]
		have += int(r.procs)
		at = max(at, r.predEnd)
	}
}

// powerPass switches nodes off and on after the instant's pass.
func (e *Engine) powerPass() {
	pw, ns := e.pw, &e.nodes
	now := e.now
	changed := false
	timeout := pw.cfg.IdleTimeout
	start, lack := workload.Forever, 0
	if pw.cfg.Plan {
		timeout = pw.cfg.BreakEven
		start, lack = e.headPlan(0)
	}
	for n := range pw.state {
		if pw.state[n] != powerOn || ns.state[n] != nodeUp {
			continue
		}
		if pw.busy[n] > 0 {
			pw.idleSince[n] = -1
			continue
		}
		if pw.idleSince[n] < 0 {
			pw.idleSince[n] = now
			if timeout > 0 {
				e.powerWakeAt(now + timeout)
			}
		}
		if now-pw.idleSince[n] < timeout {
			continue
		}
		if pw.cfg.Plan && start < workload.Forever {
			// Switch it off only if the head's reservation does not
			// move without it, and the head starts late enough for
			// the node to sleep its break-even time (or needs it not).
			s2, l2 := e.headPlan(ns.nodeProcs(n))
			if s2 != start || (l2 > lack && start-now < pw.cfg.BreakEven) {
				continue
			}
			start, lack = s2, l2
		}
		if e.queuedProcs > int64(e.Free()-ns.nodeProcs(n)+pw.waking) {
			// The queued jobs need it (or will once the running ones
			// end): switching it off would only delay them.
			continue
		}
		// Switch it off: its processors, all free, leave service.
		r := cluster.Range{Lo: n, Hi: n + 1}
		ns.setState(r, nodeDown)
		ns.park(ns.units.NodeUnits(r))
		pw.state[n] = powerOff
		pw.asleepAt[n] = now + pw.cfg.SwitchOff
		changed = true
		ns.log = append(ns.log, policy.NodeChange{At: now, State: cluster.NodeDown, Nodes: []cluster.Range{r}, Power: true})
		if pw.cfg.Log != nil {
			pw.cfg.Log(now, n, PowerSwitchingOff)
			pw.cfg.Log(now+pw.cfg.SwitchOff, n, PowerAsleep)
		}
	}
	// Switch nodes on for the queue's shortfall; under Plan, for what the
	// head lacks, SwitchOn before its reservation.
	short := e.queuedProcs - int64(e.Free()) - int64(pw.waking)
	if pw.cfg.Plan {
		start, lack = e.headPlan(0)
		short = int64(lack)
		if start == workload.Forever {
			// More than the machine in service and asleep: what the
			// queue asks for, as idle:T does.
			short = e.queuedProcs - int64(e.Free()) - int64(pw.waking)
		}
	}
	var wake []int
	if e.alloc != nil {
		// On a cluster a job may run on some nodes only (its
		// partition's, those with its memory): the nodes to wake are
		// those that let the queued jobs fit.
		wake, short = e.powerFitWake(), 0
	}
	for _, n := range wake {
		e.powerSwitchOn(n)
		changed = true
	}
	for n := 0; n < len(pw.state) && short > 0; n++ {
		if pw.state[n] != powerOff || !pw.serviceUp(n) {
			// On, or out of service (node events): waking it gives no
			// job a processor.
			continue
		}
		short -= int64(e.powerSwitchOn(n))
		changed = true
	}
	if changed {
		e.epoch++ // reservations were planned on the old capacity
	}
}

// powerSwitchOn switches node n on now (a node still switching off once
// asleep) and returns its processors.
func (e *Engine) powerSwitchOn(n int) int {
	pw := e.pw
	at := max(e.now, pw.asleepAt[n])
	pw.state[n] = powerWaking
	procs := e.nodes.nodeProcs(n)
	pw.waking += procs
	if pw.cfg.Log != nil {
		pw.cfg.Log(at, n, PowerSwitchingOn)
		pw.cfg.Log(at+pw.cfg.SwitchOn, n, PowerAwake)
	}
	e.powerEvent(cluster.NodeEvent{At: at + pw.cfg.SwitchOn, State: cluster.NodeResume, Nodes: []cluster.Range{{Lo: n, Hi: n + 1}}, Reason: powerSwitchedOn})
	return procs
}

// powerFitWake returns the sleeping nodes (in service as the node events
// have it) to wake on a cluster: for each queued job in order that does
// not fit the nodes in service and those switching on, the lowest
// numbered sleeping nodes that make it fit, if all of them together do
// (a job that also needs running jobs' nodes is woken for once they
// end), less those it fits without (nodes of another partition). The jobs are checked each on its own against the same nodes. It
// takes the nodes' units back into the node selector to ask it, and out
// again.
func (e *Engine) powerFitWake() []int {
	pw, ns := e.pw, &e.nodes
	var back, sleeping []int
	for n, st := range pw.state {
		switch {
		case st == powerWaking:
			back = append(back, n)
		case st == powerOff && pw.serviceUp(n):
			sleeping = append(sleeping, n)
		}
	}
	if len(e.queue) == 0 || len(sleeping) == 0 {
		return nil
	}
	nodeUnits := func(n int) cluster.Range { return ns.units.NodeUnits(cluster.Range{Lo: n, Hi: n + 1}) }
	in := func(n int) { ns.units.PutBack([]cluster.Range{nodeUnits(n)}) }
	out := func(n int) { ns.taken = ns.units.TakeFree(nodeUnits(n), ns.taken[:0]) }
	for _, n := range back {
		in(n)
	}
	var wake []int
	woken := make([]bool, len(pw.state))
	for _, id := range e.queue {
		r := e.slots[id].request()
		if e.alloc.Fits(r) {
			continue
		}
		var took []int
		fits := false
		for _, n := range sleeping {
			if woken[n] {
				continue
			}
			in(n)
			took = append(took, n)
			if fits = e.alloc.Fits(r); fits {
				break
			}
		}
		if fits {
			// Leave out the nodes it fits without (another
			// partition's, say), earliest first.
			for k, n := range took[:len(took)-1] {
				out(n)
				if e.alloc.Fits(r) {
					took[k] = -1
				} else {
					in(n)
				}
			}
		}
		for _, n := range took {
			switch {
			case n < 0:
			case fits:
				woken[n] = true
				wake = append(wake, n)
			default:
				out(n)
			}
		}
	}
	for _, n := range wake {
		out(n)
	}
	for _, n := range back {
		out(n)
	}
	return wake
}

// powerResumed marks the nodes of a RESUME event that were switching on as
// on, idle from now.
func (e *Engine) powerResumed(ev *cluster.NodeEvent) {
	pw := e.pw
	for _, r := range ev.Nodes {
		for n := r.Lo; n < r.Hi; n++ {
			if pw.state[n] == powerWaking {
				pw.state[n] = powerOn
				pw.waking -= e.nodes.nodeProcs(n)
				pw.idleSince[n] = -1 // idle from the pass that follows
			}
		}
	}
}

// serviceUp reports whether node n is in service as the node events have
// it (always, without node events).
func (pw *powerState) serviceUp(n int) bool { return pw.admin == nil || pw.admin[n] == nodeUp }

// powerNodeEvent returns the nodes of node event ev whose service state
// changes now, with node events (Config.NodeEvents) beside switching.
// The power state and the service state are kept apart: a node event on
// a node that is off or switching only records its new service state
// (a DOWN or DRAIN node stays off, a RESUME one stays off until it is
// switched on); the end of a switch-on puts the node back in service only
// if its service state is up (a node that went down or drained while off
// is on, idle, and out of service). Every switch-on's end marks its node
// on (powerResumed).
func (e *Engine) powerNodeEvent(ev *cluster.NodeEvent) []cluster.Range {
	pw := e.pw
	if pw.admin == nil {
		return ev.Nodes
	}
	if ev.State == cluster.NodeResume && ev.Reason == powerSwitchedOn {
		e.powerResumed(ev)
	}
	out := pw.scratch[:0]
	for _, r := range ev.Nodes {
		for n := r.Lo; n < r.Hi; n++ {
			keep := pw.state[n] == powerOn
			if ev.Reason == powerSwitchedOn {
				keep = pw.admin[n] == nodeUp
			} else {
				switch ev.State {
				case cluster.NodeDown:
					pw.admin[n] = nodeDown
				case cluster.NodeDrain:
					pw.admin[n] = nodeDrain
				case cluster.NodeResume:
					pw.admin[n] = nodeUp
				}
			}
			if !keep {
				continue
			}
			if k := len(out) - 1; k >= 0 && out[k].Hi == n {
				out[k].Hi++
			} else {
				out = append(out, cluster.Range{Lo: n, Hi: n + 1})
			}
		}
	}
	pw.scratch = out
	return out
}

// powerWakeAt makes the engine stop at t (an event that changes no node).
func (e *Engine) powerWakeAt(t workload.Time) {
	if e.pw.timers[t] {
		return
	}
	if e.pw.timers == nil {
		e.pw.timers = map[workload.Time]bool{}
	}
	e.pw.timers[t] = true
	e.powerEvent(cluster.NodeEvent{At: t, State: cluster.NodeResume})
}

// powerEvent inserts ev among the node events still to come, after those
// at the same time.
func (e *Engine) powerEvent(ev cluster.NodeEvent) {
	ns := &e.nodes
	rest := ns.events[ns.next:]
	k := ns.next + sort.Search(len(rest), func(i int) bool { return rest[i].At > ev.At })
	ns.events = slices.Insert(ns.events, k, ev)
}

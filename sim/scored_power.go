package sim

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// Switching nodes off under SCore-D's queues (Config.Power with
// Config.ScoreD): the main engine's idle-timeout manager (see power.go)
// carried over to the Ousterhout matrix. A node is Power.NodeSize
// consecutive processors, as on the processor pool; the jobs are placed on
// processor numbers (as with node events), so the manager knows which
// nodes the matrix holds.
//
//   - Idle. A node is idle while no row of the matrix holds any of its
//     processors: no gang job in any row, no exclusive job. A processor
//     only one row holds is busy even while that row waits for its time
//     slice (its processes stay on the host and are switched every
//     quantum), as the energy meter counts it (Config.ScoreDBusy); a
//     descheduled job (suspended, preempted, held by its queue) holds no
//     processor. This is Batsim's energy model, in which a host is
//     computing while a job runs on it and idle otherwise, and the main
//     manager's rule, a node with no processor allocated.
//   - After the pass of every instant (milliseconds), a node in service
//     and on that has been idle since IdleTimeout is switched off, unless
//     the waiting jobs (of every queue, suspended and requeued ones
//     included) ask for more processors than would be free without it,
//     free meaning held by no row and in service, plus those of the nodes
//     switching on; its processors leave service in every row at once
//     and it sleeps after SwitchOff.
//   - When the waiting jobs ask for more processors than are free and
//     switching on (the main manager's shortfall), sleeping nodes in
//     service are switched on, lowest numbered first, until they cover
//     it: each is back in service in every row SwitchOn later (a node
//     still switching off first finishes its switch-off).
//
// Switching touches no row: the matrix, its non-empty rows and the exact
// gang clock are as without; a processor that is off or switching is out
// of every row's free processors (and of those free in every row, an
// exclusive job's), so no job is placed there. A gang job that finds room
// in a row among the processors on starts there, time-sharing, rather
// than waking a node: only waiting jobs wake nodes. With node events a
// node's power state and its service state are kept apart as on the main
// engine: an event on a node that is off or switching changes only its
// service state, a RESUME does not wake it, and a node out of service is
// neither switched off nor woken. Switching by plan has no meaning here:
// SCore-D plans no start (the run refuses Power.Plan).
type sdPower struct {
	cfg Power
	// state is each node's power state (powerOn, powerOff, powerWaking);
	// sdNodes.power is the same slice.
	state []uint8
	// idleSince is when (ms) each node on was first seen idle after the
	// pass, −1 while a row holds it.
	idleSince []int64
	asleepAt  []int64 // per node off: when (ms) its switch-off ends
	waking    int     // processors of the nodes switching on
	// evs are the manager's instants to come, by time: the ends of
	// switch-ons (Node ≥ 0) and the idle timeouts (Node −1).
	evs []sdPowerEv
}

// sdPowerEv is an instant of the manager: node Node back on, or a node's
// idle timeout (Node −1), at Ms.
type sdPowerEv struct {
	Ms   int64
	Node int32
}

// setPower sets up switching (Config.Power) for a run of SCore-D's
// queues; nil leaves it off. Call it before setNodeEvents, which places
// the jobs on the nodes.
func (e *sdCore) setPower(p *Power) error {
	if p == nil {
		return nil
	}
	switch {
	case p.NodeSize < 1 || p.IdleTimeout < 0 || p.SwitchOff < 0 || p.SwitchOn < 0:
		return fmt.Errorf("sim: power management: node size %d, idle timeout %d, switches %d and %d: want a node size ≥ 1 and times ≥ 0", p.NodeSize, p.IdleTimeout, p.SwitchOff, p.SwitchOn)
	case p.Plan:
		return errors.New("sim: SCore-D's queues do not switch nodes by plan: they plan no start (switch by idle timeout)")
	}
	if f := e.fed; f != nil {
		// A cluster is a set of hosts, and a node one of them: the
		// manager wakes a cluster's nodes for the jobs assigned to it.
		for i, d := range f.doms {
			if d.Lo%p.NodeSize != 0 || d.Hi%p.NodeSize != 0 && d.Hi != e.procs {
				return fmt.Errorf("sim: switching nodes off on a cluster of clusters: cluster %d holds processors %d to %d, which are not whole nodes of %d processors", i+1, d.Lo, d.Hi-1, p.NodeSize)
			}
		}
	}
	n := (e.procs + p.NodeSize - 1) / p.NodeSize
	pw := &sdPower{cfg: *p, state: make([]uint8, n), idleSince: make([]int64, n), asleepAt: make([]int64, n)}
	for i := range pw.idleSince {
		pw.idleSince[i] = -1
	}
	e.pw = pw
	return nil
}

// held reports whether a row of the matrix holds a processor of node n.
func (nd *sdNodes) held(n int) bool {
	r := nd.procsOf(cluster.Range{Lo: n, Hi: n + 1})
	for c := r.Lo; c < r.Hi; c++ {
		if nd.use[c] > 0 {
			return true
		}
	}
	return false
}

// unparkOn puts the parked processors of the nodes of r back in service,
// less those of nodes that are off or switching on (a RESUME gives a
// sleeping node its service back, not its power).
func (e *sdCore) unparkOn(r cluster.Range) {
	nd := e.nd
	if e.pw == nil {
		nd.unpark(nd.procsOf(r))
		return
	}
	for n := r.Lo; n < r.Hi; n++ {
		if e.pw.state[n] == powerOn {
			nd.unpark(nd.procsOf(cluster.Range{Lo: n, Hi: n + 1}))
		}
	}
}

// nextPowerMs returns the time (ms) of the manager's next instant, or
// workload.Forever when none is left or no job is left to run (none to
// read, run, wait or come from a closed loop).
func (e *sdCore) nextPowerMs(have bool) int64 {
	pw := e.pw
	if len(pw.evs) == 0 || !have && len(e.running) == 0 && e.queued() == 0 && (e.eng.loop == nil || len(e.eng.loop.late) == 0) {
		return int64(workload.Forever)
	}
	return max(pw.evs[0].Ms, e.nowMs)
}

// applyPower applies the manager's instants due by now: the nodes whose
// switch-on ends are on, idle, and back in service if their service state
// is up. It reports whether a node came back.
func (e *sdCore) applyPower() bool {
	pw, nd := e.pw, e.nd
	k, woke := 0, false
	for ; k < len(pw.evs) && pw.evs[k].Ms <= e.nowMs; k++ {
		n := int(pw.evs[k].Node)
		if n < 0 {
			continue // an idle timeout: the pass that follows looks
		}
		if pw.state[n] != powerWaking {
			panic(fmt.Sprintf("sim: node %d's switch-on ends, but it is not switching on", n))
		}
		procs := nd.procsOf(cluster.Range{Lo: n, Hi: n + 1})
		pw.state[n] = powerOn
		pw.waking -= procs.Len()
		pw.idleSince[n] = -1 // idle from the pass that follows
		if nd.state[n] == nodeUp {
			nd.unpark(procs)
		}
		woke = true
	}
	pw.evs = slices.Delete(pw.evs, 0, k)
	return woke
}

// powerPass switches nodes off and on after the instant's pass. It
// reports whether it switched one.
func (e *sdCore) powerPass() bool {
	pw, nd := e.pw, e.nd
	now := e.nowMs
	timeout := e.toMs(pw.cfg.IdleTimeout)
	changed := false
	for n := range pw.state {
		if pw.state[n] != powerOn || nd.state[n] != nodeUp {
			continue
		}
		if nd.held(n) {
			pw.idleSince[n] = -1
			continue
		}
		if pw.idleSince[n] < 0 {
			pw.idleSince[n] = now
			if timeout > 0 {
				pw.event(now+timeout, -1)
			}
		}
		if now-pw.idleSince[n] < timeout {
			continue
		}
		procs := nd.procsOf(cluster.Range{Lo: n, Hi: n + 1})
		if e.needsNode(procs) {
			// The waiting jobs need it (or will once the running ones
			// end): switching it off would only delay them.
			continue
		}
		// Switch it off: its processors, held by no row, leave service
		// in every row.
		nd.park(procs)
		pw.state[n] = powerOff
		pw.asleepAt[n] = now + e.toMs(pw.cfg.SwitchOff)
		changed = true
		if pw.cfg.Log != nil {
			pw.cfg.Log(e.fromMs(now), n, PowerSwitchingOff)
			pw.cfg.Log(e.fromMs(pw.asleepAt[n]), n, PowerAsleep)
		}
	}
	// Switch sleeping nodes on for the waiting jobs' shortfall: on a
	// cluster of clusters each cluster's for the jobs assigned to it,
	// then the machine's for those several clusters hold.
	all := cluster.Range{Lo: 0, Hi: len(pw.state)}
	if f := e.fed; f != nil {
		for i, d := range f.doms {
			short := int64(f.waiting[i]) - int64(nd.allM.FreeIn(d)) - int64(e.wakingIn(d))
			changed = e.wakeFor(e.nodesOf(d), short) || changed
		}
		short := f.spanning(e.queuedProcs) - int64(nd.allM.Free()) - int64(pw.waking)
		changed = e.wakeFor(all, short) || changed
		return changed
	}
	short := e.queuedProcs - int64(nd.allM.Free()) - int64(pw.waking)
	changed = e.wakeFor(all, short) || changed
	return changed
}

// needsNode reports whether the waiting jobs need the processors procs
// of a node that is on and idle: whether they ask for more processors than
// would be free (held by no row and in service, or switching on) without
// them. On a cluster of clusters those are the jobs assigned to the
// node's cluster, within that cluster, and the jobs several clusters
// hold, within the machine.
func (e *sdCore) needsNode(procs cluster.Range) bool {
	pw, nd := e.pw, e.nd
	f := e.fed
	if f == nil {
		return e.queuedProcs > int64(nd.allM.Free()-procs.Len()+pw.waking)
	}
	d := f.doms[f.clusterOf(procs.Lo)]
	if int64(f.waiting[f.clusterOf(procs.Lo)]) > int64(nd.allM.FreeIn(d)-procs.Len()+e.wakingIn(d)) {
		return true
	}
	return f.spanning(e.queuedProcs) > int64(nd.allM.Free()-procs.Len()+pw.waking)
}

// wakeFor switches on sleeping nodes in service among nodes, lowest
// numbered first, until they cover short processors. It reports whether
// it switched one on.
func (e *sdCore) wakeFor(nodes cluster.Range, short int64) bool {
	pw, nd := e.pw, e.nd
	now := e.nowMs
	changed := false
	for n := nodes.Lo; n < nodes.Hi && short > 0; n++ {
		if pw.state[n] != powerOff || nd.state[n] != nodeUp {
			// On, or out of service (node events): waking it gives no
			// job a processor.
			continue
		}
		at := max(now, pw.asleepAt[n])
		procs := nd.procsOf(cluster.Range{Lo: n, Hi: n + 1}).Len()
		pw.state[n] = powerWaking
		pw.waking += procs
		short -= int64(procs)
		changed = true
		on := at + e.toMs(pw.cfg.SwitchOn)
		if pw.cfg.Log != nil {
			pw.cfg.Log(e.fromMs(at), n, PowerSwitchingOn)
			pw.cfg.Log(e.fromMs(on), n, PowerAwake)
		}
		pw.event(on, int32(n))
	}
	return changed
}

// nodesOf returns the nodes of the processors d, whose bounds are whole
// nodes (setPower checks each cluster's).
func (e *sdCore) nodesOf(d cluster.Range) cluster.Range {
	size := e.pw.cfg.NodeSize
	return cluster.Range{Lo: d.Lo / size, Hi: (d.Hi + size - 1) / size}
}

// wakingIn counts the processors of d's nodes that are switching on.
func (e *sdCore) wakingIn(d cluster.Range) int {
	n := 0
	nodes := e.nodesOf(d)
	for k := nodes.Lo; k < nodes.Hi; k++ {
		if e.pw.state[k] == powerWaking {
			n += e.nd.procsOf(cluster.Range{Lo: k, Hi: k + 1}).Len()
		}
	}
	return n
}

// event adds the manager's instant (ms, node) after those at the same
// time; an idle timeout already due then is not added twice.
func (pw *sdPower) event(ms int64, node int32) {
	k := sort.Search(len(pw.evs), func(i int) bool { return pw.evs[i].Ms > ms })
	if node < 0 {
		for i := k - 1; i >= 0 && pw.evs[i].Ms == ms; i-- {
			if pw.evs[i].Node < 0 {
				return
			}
		}
	}
	pw.evs = slices.Insert(pw.evs, k, sdPowerEv{Ms: ms, Node: node})
}

// sdPowerState is sdPower's state in a checkpoint.
type sdPowerState struct {
	State     []uint8
	IdleSince []int64
	AsleepAt  []int64
	Waking    int
	Events    []sdPowerEv
}

// save returns pw's state for a checkpoint.
func (pw *sdPower) save() *sdPowerState {
	return &sdPowerState{State: slices.Clone(pw.state), IdleSince: slices.Clone(pw.idleSince), AsleepAt: slices.Clone(pw.asleepAt),
		Waking: pw.waking, Events: slices.Clone(pw.evs)}
}

// restore sets pw to the saved state s, in place (sdNodes.power shares
// the power states).
func (pw *sdPower) restore(s *sdPowerState) error {
	n := len(pw.state)
	if len(s.State) != n || len(s.IdleSince) != n || len(s.AsleepAt) != n {
		return fmt.Errorf("sim: SCore-D engine state: power state of %d nodes, want %d", len(s.State), n)
	}
	for _, ev := range s.Events {
		if ev.Node >= int32(n) {
			return fmt.Errorf("sim: SCore-D engine state: a switch-on of node %d of %d", ev.Node, n)
		}
	}
	copy(pw.state, s.State)
	copy(pw.idleSince, s.IdleSince)
	copy(pw.asleepAt, s.AsleepAt)
	pw.waking, pw.evs = s.Waking, s.Events
	return nil
}

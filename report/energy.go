package report

import (
	"bytes"
	"cmp"
	"encoding/gob"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/cluster/energy"
	"github.com/schedsim/schedsim/policy/slurmconf"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// Energy files of a run with a power model, with Batsim's names (without
// its export prefix) and columns.
const (
	ConsumedEnergyCSV = "consumed_energy.csv"
	PStateChangesCSV  = "pstate_changes.csv"
	MachineStatesCSV  = "machine_states.csv"
)

// EnergySummary is the energy of a run in summary.json (with a power
// model only).
type EnergySummary struct {
	// Joules is the energy of every node from the first submission to the
	// last end; KWh the same in kilowatt-hours.
	Joules float64 `json:"joules"`
	KWh    float64 `json:"kwh"`
	// MeanWatts is Joules over that time.
	MeanWatts float64 `json:"mean_watts"`
	// JobJoules is the sum of the jobs' consumed_energy.
	JobJoules float64 `json:"job_joules"`
	// BySizeClass and ByRuntimeClass are the jobs' energy per job class
	// (SizeClassNames, RuntimeClassNames).
	BySizeClass    []float64 `json:"by_size_class"`
	ByRuntimeClass []float64 `json:"by_runtime_class"`
	// NodeSeconds is the time the nodes spent in each state (sleeping,
	// switching_on, switching_off, idle, computing), summed over the nodes,
	// from the first submission to the last end.
	NodeSeconds map[string]float64 `json:"node_seconds"`
	// NodeSize is the cores of every node when they all have the same
	// (verify maps jobs.csv's processors to the nodes of
	// pstate_changes.csv with it); 0 otherwise.
	NodeSize int `json:"node_size,omitempty"`
	// JobsIdlePower reports Batsim's convention: a job's busy cores draw
	// the idle power (Batsim runs a "delay" job as a sleep).
	JobsIdlePower bool `json:"jobs_idle_power,omitempty"`
}

// EnergyRun meters a run's energy behind the engine: it keeps a copy of
// every record, and once the run is over (Finish) replays the jobs' busy
// intervals through an energy.Machine, gives each record its Energy and
// hands the records, in the order they came, to the observers behind it
// (the per-job tables). Nothing is metered on a run without a power
// model: it is not on the default path.
//
// A record's allocation is in resource ids (units): processors of the
// pool, a cluster's cores under cons_res, or its nodes under linear (a
// job then holds whole nodes, and its processors busy the cores of its
// nodes in order, each node's cores full before the next's). A growing
// job's nodes are busy from the step that gave them to it (Record.Steps).
type EnergyRun struct {
	p        *energy.Platform
	tick     int64
	busyIdle bool
	next     []sim.Observer
	recs     []sim.Record
	jobs     []workload.Job
	allocs   [][]cluster.Range
	steps    [][]sim.GrowStep
	lost     []lostRun
	nodeOf   []int32 // unit → node
	whole    []bool  // per unit: a whole node (linear); nil: none is
	sum      *EnergySummary
	csvs     [3]bytes.Buffer
	points   []PowerPoint
	switches []switchEv
}

// lostRun is the part of a job's run that a node failure cut short before
// the job was requeued (LostRun): its nodes were busy, though its record
// is of its last run.
type lostRun struct {
	start, end workload.Time
	procs      int
	alloc      []cluster.Range
	steps      []sim.GrowStep
}

// switchEv is a power change of a node (Switch).
type switchEv struct {
	t    workload.Time
	node int32
	c    sim.PowerChange
}

// Platform returns the power model metered (the nodes of the run).
func (e *EnergyRun) Platform() *energy.Platform { return e.p }

// Switch records a node's power change (sim.Power.Log), on the engine's
// goroutine; Finish meters them with the jobs.
func (e *EnergyRun) Switch(t workload.Time, node int, c sim.PowerChange) {
	e.switches = append(e.switches, switchEv{t, int32(node), c})
}

// LostRun records a run of procs processors on alloc (steps: its growth,
// or none) from start to end that a node failure cut short and whose job
// was requeued (sim.Config.LostRun), on the engine's goroutine: its nodes
// were busy meanwhile. Its energy counts in the run's, not in the job's
// consumed_energy, which is that of the run its record is of.
func (e *EnergyRun) LostRun(start, end workload.Time, procs int, alloc []cluster.Range, steps []sim.GrowStep) {
	e.lost = append(e.lost, lostRun{start, end, procs, slices.Clone(alloc), cloneSteps(steps)})
}

// BusyRun records a busy stretch of the processors of alloc from start to
// end in a run of SCore-D's queues (sim.Config.ScoreDBusy), on the
// engine's goroutine: a processor time-shared by the rows of the gang
// matrix is busy as long as any row holds it, and idle otherwise. Such a
// run's energy is metered from these stretches, not from its records,
// whose jobs share processors in time: their consumed_energy is NA.
func (e *EnergyRun) BusyRun(start, end workload.Time, alloc []cluster.Range) {
	n := 0
	for _, r := range alloc {
		n += r.Len()
	}
	e.lost = append(e.lost, lostRun{start, end, n, slices.Clone(alloc), nil})
}

// cloneSteps returns a deep copy of steps (nil for none).
func cloneSteps(steps []sim.GrowStep) []sim.GrowStep {
	if len(steps) == 0 {
		return nil
	}
	out := make([]sim.GrowStep, len(steps))
	for i, s := range steps {
		out[i] = sim.GrowStep{At: s.At, Procs: s.Procs, Alloc: slices.Clone(s.Alloc)}
	}
	return out
}

// Points returns the machine's power and node states after each instant,
// once Finish has run.
func (e *EnergyRun) Points() []PowerPoint { return e.points }

// NewEnergyRun returns the meter of a run on procs processors of platform
// p (its first nodes, as Batsim's --mmax: p must have at least procs
// cores, node after node), its records going on to next; the run's times
// are ticks of 1/tick second. busyIdle is Batsim's convention that a busy
// core draws the idle power.
func NewEnergyRun(p *energy.Platform, procs int, tick int64, busyIdle bool, next ...sim.Observer) (*EnergyRun, error) {
	e := &EnergyRun{busyIdle: busyIdle, next: next, tick: max(tick, 1)}
	nodes, cores := 0, 0
	for _, g := range p.Groups {
		for range g.Nodes {
			if cores >= procs {
				break
			}
			for range g.Cores {
				e.nodeOf = append(e.nodeOf, int32(nodes))
			}
			cores += g.Cores
			nodes++
		}
	}
	if cores != procs {
		return nil, fmt.Errorf("the power model's first nodes have %d cores, not the machine's %d processors (a node's cores are not split)", cores, procs)
	}
	lp, err := p.Limit(nodes)
	if err != nil {
		return nil, err
	}
	e.p = lp
	return e, nil
}

// NewClusterEnergyRun returns the meter of a run on a cluster of nodes
// (members: its clusters, one for a plain cluster, in the order of their
// resource ids) whose nodes p describes node for node (MatchCluster), its
// records going on to next.
func NewClusterEnergyRun(p *energy.Platform, members []*cluster.Spec, tick int64, busyIdle bool, next ...sim.Observer) (*EnergyRun, error) {
	e := &EnergyRun{busyIdle: busyIdle, next: next, tick: max(tick, 1), p: p}
	e.nodeOf, e.whole = ClusterUnits(members)
	nodes := 0
	for _, s := range members {
		nodes += s.Nodes()
	}
	if nodes != p.Nodes() {
		return nil, fmt.Errorf("the power model has %d nodes, the cluster %d", p.Nodes(), nodes)
	}
	return e, nil
}

// ClusterUnits returns the node of every resource id of a cluster of
// nodes (members: its clusters, in the order of their ids) and, per id,
// whether it is a whole node (select/linear allocates nodes, cons_res
// cores); the nodes are numbered member after member, group after group.
func ClusterUnits(members []*cluster.Spec) (nodeOf []int32, whole []bool) {
	base := int32(0)
	for _, s := range members {
		for _, g := range s.Groups {
			for range g.Count {
				if s.Select == cluster.SelectConsRes {
					for range g.Cores {
						nodeOf = append(nodeOf, base)
						whole = append(whole, false)
					}
				} else {
					nodeOf = append(nodeOf, base)
					whole = append(whole, true)
				}
				base++
			}
		}
	}
	return nodeOf, whole
}

// MatchCluster returns the power model of a cluster's nodes (spec, the
// union of its clusters' groups for a cluster of clusters) from p: per
// node class when every group of p is named after a group of the cluster
// (its [cluster] name or slurm.conf NodeName, with the same count and
// cores), the cluster's groups in their order; otherwise node for node,
// p's first nodes being the cluster's, each with the cluster node's
// cores. The error says which node or class does not match.
func MatchCluster(p *energy.Platform, spec *cluster.Spec) (*energy.Platform, error) {
	// A power group names a node group of the cluster, or holds, as a
	// host list, the nodes of several: a NodeName line that slurm.conf's
	// partitions split into groups.
	hosts := make([]map[string]bool, len(p.Groups))
	for i, g := range p.Groups {
		if names, err := slurmconf.ExpandHostlist(g.Name); err == nil {
			hosts[i] = make(map[string]bool, len(names))
			for _, nm := range names {
				hosts[i][nm] = true
			}
		}
	}
	powerOf := func(cg cluster.NodeGroup) int {
		for i, g := range p.Groups {
			if g.Name != "" && g.Name == cg.Name {
				return i
			}
		}
		names, err := slurmconf.ExpandHostlist(cg.Name)
		if err != nil {
			return -1
		}
		for i := range p.Groups {
			all := hosts[i] != nil
			for _, nm := range names {
				all = all && hosts[i][nm]
			}
			if all {
				return i
			}
		}
		return -1
	}
	of := make([]int, len(spec.Groups))
	used := make([]bool, len(p.Groups))
	for k, cg := range spec.Groups {
		of[k] = powerOf(cg)
		if of[k] >= 0 {
			used[of[k]] = true
		}
	}
	named := len(p.Groups) > 0
	for i, g := range p.Groups {
		named = named && g.Name != "" && used[i]
	}
	out := &energy.Platform{}
	if named {
		got := make([]int, len(p.Groups)) // nodes of each power group the cluster's groups take
		last := -1
		for k, cg := range spec.Groups {
			i := of[k]
			if i < 0 {
				return nil, fmt.Errorf("the cluster's node group %s has no power group of its name (name every group of the cluster, or none)", cg.Name)
			}
			g := p.Groups[i]
			if g.Cores != cg.Cores {
				return nil, fmt.Errorf("power group %s: %d nodes of %d cores, the cluster's group %d nodes of %d cores", g.Name, g.Nodes, g.Cores, cg.Count, cg.Cores)
			}
			got[i] += cg.Count
			if i == last {
				// The next nodes of the same power group: one group still.
				out.Groups[len(out.Groups)-1].Nodes += cg.Count
				continue
			}
			g.Nodes = cg.Count
			out.Groups = append(out.Groups, g)
			last = i
		}
		for i, g := range p.Groups {
			if got[i] != g.Nodes {
				return nil, fmt.Errorf("power group %s: %d nodes of %d cores, the cluster's group %d nodes of %d cores", g.Name, g.Nodes, g.Cores, got[i], g.Cores)
			}
		}
		return out, nil
	}
	if p.Nodes() < spec.Nodes() {
		return nil, fmt.Errorf("the power model has %d nodes, fewer than the cluster's %d (its groups are matched to the cluster's node for node, as no group of it names a node group of the cluster)", p.Nodes(), spec.Nodes())
	}
	pg, left := 0, p.Groups[0].Nodes
	node, lastSrc := 0, -1
	for _, cg := range spec.Groups {
		for k := 0; k < cg.Count; {
			for left == 0 {
				pg++
				left = p.Groups[pg].Nodes
			}
			g := p.Groups[pg]
			if g.Cores != cg.Cores {
				return nil, fmt.Errorf("node %d (the cluster's %s) has %d cores, the power model's (%s) %d (its groups are matched to the cluster's node for node, as no group of it names a node group of the cluster)", node, cg.Name, cg.Cores, g.Name, g.Cores)
			}
			n := min(left, cg.Count-k)
			g.Nodes = n
			if pg == lastSrc {
				// The same power group on: one group still.
				out.Groups[len(out.Groups)-1].Nodes += n
			} else {
				out.Groups = append(out.Groups, g)
				lastSrc = pg
			}
			k, left, node = k+n, left-n, node+n
		}
	}
	return out, nil
}

// OnCluster reports whether the meter's nodes are a cluster's
// (NewClusterEnergyRun), not the processor pool's.
func (e *EnergyRun) OnCluster() bool { return e.whole != nil }

// Nodes returns the number of nodes metered.
func (e *EnergyRun) Nodes() int { return e.p.Nodes() }

// Wants implements sim.Observer: the records.
func (e *EnergyRun) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds, JobHead: false} }

// Observe implements sim.Observer: JobDone with the event's record.
func (e *EnergyRun) Observe(ev *sim.Event) { e.JobDone(ev.Record) }

// JobDone keeps a copy of the record.
func (e *EnergyRun) JobDone(r *sim.Record) {
	c := *r
	e.jobs = append(e.jobs, *r.Job)
	e.allocs = append(e.allocs, slices.Clone(r.Alloc))
	e.steps = append(e.steps, cloneSteps(r.Steps))
	c.Job, c.Alloc, c.Steps, c.PredictedAlloc = nil, nil, nil, slices.Clone(r.PredictedAlloc)
	e.recs = append(e.recs, c)
}

// ran reports whether a record is of a job that ran on processors.
func ran(r *sim.Record) bool {
	switch r.State {
	case sim.Completed, sim.Killed, sim.NodeFail, sim.LimitKilled, sim.Preempted:
		return true
	}
	return false
}

// Finish meters the run, from time 0 (Batsim's origin) to its last event
// last, and hands every record, with its energy, to the observers behind.
// first is the run's first submission: the run's energy in the summary is
// from first to last.
func (e *EnergyRun) Finish(first, last workload.Time) *EnergySummary {
	m := energy.NewMachine(e.p, e.tick, e.busyIdle)
	// At an instant: the ends, the nodes back in service or asleep, the
	// starts (the pass), then the switches begun after the pass; each in
	// the order it came.
	const (
		evEnd = iota
		evWoke
		evStart
		evSwitch
	)
	type ev struct {
		t    workload.Time
		kind int
		i    int // a record, or len(recs)+k for lost run k; a switch
		k    int // the step of a growing job's start or growth
	}
	// A run: a record's, or a lost one (LostRun).
	nr := len(e.recs)
	runOf := func(i int) (start, end workload.Time, procs int, alloc []cluster.Range, steps []sim.GrowStep) {
		if i < nr {
			r := &e.recs[i]
			return r.Start, r.End, e.jobs[i].Procs, e.allocs[i], e.steps[i]
		}
		l := &e.lost[i-nr]
		return l.start, l.end, l.procs, l.alloc, l.steps
	}
	var evs []ev
	for i := range e.recs {
		r := &e.recs[i]
		if r.ScoreD {
			// Metered from its busy stretches (BusyRun).
			continue
		}
		if ran(r) && len(e.allocs[i]) > 0 && r.End <= r.Start {
			// No time on its nodes: no energy.
			r.HasEnergy = true
			continue
		}
		if ran(r) && len(e.allocs[i]) > 0 {
			evs = append(evs, ev{r.Start, evStart, i, 0}, ev{r.End, evEnd, i, 0})
			for k := 1; k < len(e.steps[i]); k++ {
				evs = append(evs, ev{e.steps[i][k].At, evStart, i, k})
			}
		}
	}
	for k, l := range e.lost {
		if len(l.alloc) == 0 || l.end <= l.start {
			continue
		}
		evs = append(evs, ev{l.start, evStart, nr + k, 0}, ev{l.end, evEnd, nr + k, 0})
		for s := 1; s < len(l.steps); s++ {
			evs = append(evs, ev{l.steps[s].At, evStart, nr + k, s})
		}
	}
	for i, sw := range e.switches {
		if sw.t > last {
			// The run ends with its last job: a switch still under way
			// then is cut there, as Batsim's consumed_joules is at the
			// makespan.
			continue
		}
		k := evSwitch
		if sw.c == sim.PowerAsleep || sw.c == sim.PowerAwake {
			k = evWoke
		}
		evs = append(evs, ev{sw.t, k, i, 0})
	}
	slices.SortStableFunc(evs, func(a, b ev) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		if c := cmp.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		if c := cmp.Compare(a.i, b.i); c != 0 {
			return c
		}
		return cmp.Compare(a.k, b.k)
	})
	// held are the busy cores each running run added to its nodes, with
	// each node's energy when the run first had it.
	type hold struct {
		node, cores int
		e0          energy.Energy
	}
	held := make(map[int][]hold)
	ce := &e.csvs[0]
	ce.WriteString("time,energy,event_type,wattmin,epower\n")
	ms := &e.csvs[2]
	ms.WriteString("time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing\n")
	lastT, lastJ := int64(0), 0.0
	row := func(t int64, kind byte) {
		j := m.Total(t).Joules(e.tick)
		fmt.Fprintf(ce, "%s,%s,%c,%s,", e.secs(t), joules(j), kind, joules(m.Watts()))
		if t > lastT {
			ce.WriteString(joules((j - lastJ) * float64(e.tick) / float64(t-lastT)))
		} else {
			ce.WriteString("NA")
		}
		ce.WriteByte('\n')
		lastT, lastJ = t, j
	}
	stateRow := func(t int64) {
		k := m.Counts()
		p := PowerPoint{T: workload.Time(t), Watts: m.Watts()}
		for i, c := range k {
			p.Counts[i] = int32(c)
		}
		e.points = append(e.points, p)
		fmt.Fprintf(ms, "%s,%d,%d,%d,%d,%d\n", e.secs(t), k[energy.Sleeping], k[energy.SwitchingOn], k[energy.SwitchingOff], k[energy.Idle], k[energy.Computing])
	}
	if len(evs) == 0 || evs[0].t > 0 {
		// Every machine is at its initial pstate at time 0: a row for
		// that, when no job starts then.
		row(0, 'p')
		stateRow(0)
	}
	pc := &e.csvs[1]
	pc.WriteString("time,machine_id,new_pstate\n")
	e.initialPStates(pc)
	for k, v := range evs {
		t := int64(v.t)
		if v.kind == evSwitch || v.kind == evWoke {
			sw := e.switches[v.i]
			n := int(sw.node)
			switch sw.c {
			case sim.PowerSwitchingOff:
				m.SwitchOff(t, n, 0)
			case sim.PowerAsleep:
				m.Asleep(t, n)
			case sim.PowerSwitchingOn:
				m.SwitchOn(t, n)
			case sim.PowerAwake:
				m.Awake(t, n, e.p.Groups[e.groupOf(n)].Initial)
			}
			fmt.Fprintf(pc, "%s,%d,%d\n", e.secs(t), n, m.PState(n))
			row(t, 'p')
			if k+1 == len(evs) || evs[k+1].t != v.t {
				stateRow(t)
			}
			continue
		}
		end := v.kind == evEnd
		if end {
			var sum energy.Energy
			for x, h := range held[v.i] {
				m.SetBusy(t, h.node, m.Busy(h.node)-h.cores)
				if !slices.ContainsFunc(held[v.i][:x], func(o hold) bool { return o.node == h.node }) {
					sum = sum.Add(m.NodeEnergy(t, h.node).Sub(h.e0))
				}
			}
			delete(held, v.i)
			if v.i < nr {
				r := &e.recs[v.i]
				r.Energy, r.HasEnergy = sum.Joules(e.tick), true
			}
		} else {
			_, _, procs, alloc, steps := runOf(v.i)
			if len(steps) > 0 {
				alloc = steps[v.k].Alloc
				procs = steps[v.k].Procs
				if v.k > 0 {
					procs -= steps[v.k-1].Procs
				}
			}
			hs := held[v.i]
			for _, nc := range e.perNode(alloc, procs) {
				x := slices.IndexFunc(hs, func(o hold) bool { return o.node == nc[0] })
				h := hold{node: nc[0], cores: nc[1], e0: m.NodeEnergy(t, nc[0])}
				if x >= 0 {
					h.e0 = hs[x].e0
				}
				hs = append(hs, h)
				m.SetBusy(t, h.node, m.Busy(h.node)+h.cores)
			}
			held[v.i] = hs
		}
		kind := byte('s')
		if end {
			kind = 'e'
		}
		row(t, kind)
		if k+1 == len(evs) || evs[k+1].t != v.t {
			stateRow(t)
		}
	}
	lastT64 := max(int64(last), lastT)
	total := m.Total(lastT64).Joules(e.tick)
	// The power before the first submission is the idle power: the run's
	// energy is counted from the first submission.
	before := 0.0
	if first > 0 {
		before = energy.NewMachine(e.p, e.tick, e.busyIdle).Total(int64(first)).Joules(e.tick)
	}
	s := &EnergySummary{
		Joules: total - before, JobsIdlePower: e.busyIdle,
		BySizeClass: make([]float64, NumSizeClasses), ByRuntimeClass: make([]float64, NumRuntimeClasses),
		NodeSeconds: map[string]float64{},
	}
	s.KWh = s.Joules / 3.6e6
	s.NodeSize = e.p.Groups[0].Cores
	for _, g := range e.p.Groups {
		if g.Cores != s.NodeSize {
			s.NodeSize = 0
		}
	}
	if d := int64(last - first); d > 0 {
		s.MeanWatts = s.Joules * float64(e.tick) / float64(d)
	}
	inAll := m.InState(lastT64)
	var inBefore [energy.Kinds]float64
	if first > 0 {
		inBefore = energy.NewMachine(e.p, e.tick, e.busyIdle).InState(int64(first))
	}
	for k := range energy.Kinds {
		s.NodeSeconds[energy.Kind(k).String()] = inAll[k] - inBefore[k]
	}
	for i := range e.recs {
		r := &e.recs[i]
		r.Job, r.Alloc, r.Steps = &e.jobs[i], e.allocs[i], e.steps[i]
		if r.HasEnergy {
			s.JobJoules += r.Energy
			s.BySizeClass[SizeClass(r.Job.Procs)] += r.Energy
			s.ByRuntimeClass[RuntimeClass((r.End-r.Start)/workload.Time(e.tick))] += r.Energy
		}
		var ev sim.Event
		sim.RecordEvent(&ev, r)
		for _, o := range e.next {
			if o.Wants().Kinds.Has(ev.Kind) {
				o.Observe(&ev)
			}
		}
	}
	e.sum = s
	return s
}

// initialPStates writes pstate_changes.csv's time-0 rows: every node at
// its initial pstate, nodes of the same pstate on one row.
func (e *EnergyRun) initialPStates(pc *bytes.Buffer) {
	base := 0
	var byState [][2]int // pstate, first node
	for _, g := range e.p.Groups {
		byState = append(byState, [2]int{g.Initial, base})
		base += g.Nodes
	}
	written := make([]bool, len(byState))
	for i := range byState {
		if written[i] {
			continue
		}
		var ids []byte
		for j := i; j < len(byState); j++ {
			if byState[j][0] != byState[i][0] {
				continue
			}
			written[j] = true
			endN := e.p.Nodes() - 1
			if j+1 < len(byState) {
				endN = byState[j+1][1] - 1
			}
			if len(ids) > 0 {
				ids = append(ids, ' ')
			}
			ids = strconv.AppendInt(ids, int64(byState[j][1]), 10)
			if endN > byState[j][1] {
				ids = strconv.AppendInt(append(ids, '-'), int64(endN), 10)
			}
		}
		fmt.Fprintf(pc, "%s,%s,%d\n", e.secs(0), ids, byState[i][0])
	}
}

// groupOf returns the group of node n.
func (e *EnergyRun) groupOf(n int) int {
	for g := range e.p.Groups {
		if n < e.p.Groups[g].Nodes {
			return g
		}
		n -= e.p.Groups[g].Nodes
	}
	return len(e.p.Groups) - 1
}

// perNode returns, node by node in the order alloc first touches them,
// how many cores a part of a run busies: its units on each node, or, on
// whole nodes (linear), its procs processors filling its nodes' cores in
// order.
func (e *EnergyRun) perNode(alloc []cluster.Range, procs int) [][2]int {
	var out [][2]int
	for _, rg := range alloc {
		for u := rg.Lo; u < rg.Hi; u++ {
			n := int(e.nodeOf[u])
			c := 1
			if e.whole != nil && e.whole[u] {
				c = min(e.p.Groups[e.groupOf(n)].Cores, procs)
				procs -= c
			}
			if k := len(out) - 1; k >= 0 && out[k][0] == n {
				out[k][1] += c
			} else if k := slices.IndexFunc(out, func(x [2]int) bool { return x[0] == n }); k >= 0 {
				out[k][1] += c
			} else {
				out = append(out, [2]int{n, c})
			}
		}
	}
	return out
}

// WriteFiles writes consumed_energy.csv, pstate_changes.csv and
// machine_states.csv into dir, each whole or not at all, after Finish.
func (e *EnergyRun) WriteFiles(dir string) error {
	for i, name := range []string{ConsumedEnergyCSV, PStateChangesCSV, MachineStatesCSV} {
		f, err := CreateAtomic(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if _, err := f.Write(e.csvs[i].Bytes()); err != nil {
			f.Abort()
			return err
		}
		if err := f.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// secs prints a time in seconds.
func (e *EnergyRun) secs(t int64) string { return string(AppendTicks(nil, t, e.tick)) }

// AppendTicks appends t ticks of 1/tick second as seconds: whole seconds
// when tick is 1, else with the unit's decimals (3 for ms, 6 for µs).
func AppendTicks(b []byte, t, tick int64) []byte {
	if tick <= 1 {
		return strconv.AppendInt(b, t, 10)
	}
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, t/tick, 10)
	b = append(b, '.')
	frac := t % tick
	for d := tick / 10; d >= 1; d /= 10 {
		b = append(b, byte('0'+frac/d%10))
	}
	return b
}

// joules prints an energy or a power with six decimals at most, trailing
// zeros dropped.
func joules(x float64) string {
	s := strconv.FormatFloat(x, 'f', 6, 64)
	s = trimZeros(s)
	return s
}

// trimZeros drops a decimal number's trailing zeros (and its point).
func trimZeros(s string) string {
	if !bytes.ContainsRune([]byte(s), '.') {
		return s
	}
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return trimSuffixDot(s)
}

func trimSuffixDot(s string) string {
	if s[len(s)-1] == '.' {
		return s[:len(s)-1]
	}
	return s
}

// Checkpoints. The meter keeps every record (with its growth steps), every
// node's switch and every run a node failure cut short to the end of the
// run (Finish needs them all), so a checkpoint keeps them
// too: MarshalRecords encodes those kept since a mark, and a resumed run's
// meter gets them back, all the chunks in order, through UnmarshalRecords
// before its first record.

// EnergyMark counts the records and switches a meter kept: where a
// checkpoint's chunk (MarshalRecords) ends.
type EnergyMark struct{ Records, Switches, Lost int }

// energyChunk is what MarshalRecords encodes, for encoding/gob.
type energyChunk struct {
	Recs     []energyRecord
	Switches []energySwitch
	Lost     []energyLost
}

// energyLost is a lostRun.
type energyLost struct {
	Start, End workload.Time
	Procs      int
	Alloc      []cluster.Range
	Steps      []sim.GrowStep
}

// energyRecord is a record the meter keeps.
type energyRecord struct {
	Rec   sim.Record
	Job   workload.Job
	Alloc []cluster.Range
	Steps []sim.GrowStep
}

// energySwitch is a switchEv.
type energySwitch struct {
	T      workload.Time
	Node   int32
	Change sim.PowerChange
}

// Mark returns the records and switches kept so far.
func (e *EnergyRun) Mark() EnergyMark { return EnergyMark{len(e.recs), len(e.switches), len(e.lost)} }

// MarshalRecords encodes the records and switches kept since from.
func (e *EnergyRun) MarshalRecords(from EnergyMark) ([]byte, error) {
	if from.Records < 0 || from.Records > len(e.recs) || from.Switches < 0 || from.Switches > len(e.switches) || from.Lost < 0 || from.Lost > len(e.lost) {
		return nil, fmt.Errorf("report: energy: chunk from %+v of %+v", from, e.Mark())
	}
	var c energyChunk
	for i := from.Records; i < len(e.recs); i++ {
		c.Recs = append(c.Recs, energyRecord{Rec: e.recs[i], Job: e.jobs[i], Alloc: e.allocs[i], Steps: e.steps[i]})
	}
	for _, l := range e.lost[from.Lost:] {
		c.Lost = append(c.Lost, energyLost{l.start, l.end, l.procs, l.alloc, l.steps})
	}
	for _, s := range e.switches[from.Switches:] {
		c.Switches = append(c.Switches, energySwitch{s.t, s.node, s.c})
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(c); err != nil {
		return nil, fmt.Errorf("report: energy: %w", err)
	}
	return b.Bytes(), nil
}

// UnmarshalRecords adds the records and switches b encodes
// (MarshalRecords) to those kept.
func (e *EnergyRun) UnmarshalRecords(b []byte) error {
	var c energyChunk
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&c); err != nil {
		return fmt.Errorf("report: energy: the checkpoint's records: %w", err)
	}
	for _, r := range c.Recs {
		e.recs = append(e.recs, r.Rec)
		e.jobs = append(e.jobs, r.Job)
		e.allocs = append(e.allocs, r.Alloc)
		e.steps = append(e.steps, r.Steps)
	}
	for _, l := range c.Lost {
		e.lost = append(e.lost, lostRun{l.Start, l.End, l.Procs, l.Alloc, l.Steps})
	}
	for _, s := range c.Switches {
		e.switches = append(e.switches, switchEv{s.T, s.Node, s.Change})
	}
	return nil
}

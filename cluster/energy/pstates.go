package energy

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// PStateChange is one row of Batsim's pstate_changes output: at Time
// (ticks), the machines Nodes (an interval set) went to PState, -2 meaning
// they started switching off and -1 switching on.
type PStateChange struct {
	Time   int64
	Nodes  []Range
	PState int
}

// Range is an interval of node numbers, both ends included.
type Range struct{ First, Last int }

// ReadPStateChanges reads a pstate_changes file (time,machine_id,new_pstate;
// machine_id an interval set "0-3 8"), times converted to ticks of
// ticksPerSec. Errors are *workload.ParseError with the line and column.
func ReadPStateChanges(path string, r io.Reader, ticksPerSec int64) ([]PStateChange, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []PStateChange
	line := int64(0)
	fail := func(col string, err error) error {
		return &workload.ParseError{Path: path, Line: line, Column: col, Err: err}
	}
	last := int64(math.MinInt64)
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if line == 1 {
			if s != "time,machine_id,new_pstate" {
				return nil, fail("", fmt.Errorf("header %q, want time,machine_id,new_pstate", s))
			}
			continue
		}
		if s == "" {
			continue
		}
		f := strings.Split(s, ",")
		if len(f) != 3 {
			return nil, fail("", fmt.Errorf("%d fields, want 3", len(f)))
		}
		sec, err := strconv.ParseFloat(f[0], 64)
		if err != nil || !finiteNonNeg(sec) || sec > 1e12 {
			return nil, fail("time", fmt.Errorf("%q is not a time in seconds ≥ 0", f[0]))
		}
		c := PStateChange{Time: int64(math.Round(sec * float64(ticksPerSec)))}
		if c.Time < last {
			return nil, fail("time", fmt.Errorf("%s is before the previous row's time", f[0]))
		}
		last = c.Time
		if c.Nodes, err = ParseIntervals(f[1]); err != nil {
			return nil, fail("machine_id", err)
		}
		if c.PState, err = strconv.Atoi(f[2]); err != nil || c.PState < -2 || c.PState > 1<<20 {
			return nil, fail("new_pstate", fmt.Errorf("%q is not a pstate (want -2, -1 or a pstate number)", f[2]))
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, &workload.ParseError{Path: path, Line: line + 1, Err: err}
	}
	if line == 0 {
		return nil, &workload.ParseError{Path: path, Err: errors.New("empty file (want the header time,machine_id,new_pstate)")}
	}
	return out, nil
}

// ParseIntervals parses Batsim's interval set: space-separated numbers and
// ranges, "0-3 8 10-12".
func ParseIntervals(s string) ([]Range, error) {
	var out []Range
	for part := range strings.FieldsSeq(s) {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b > maxXMLHosts {
			return nil, fmt.Errorf("%q is not an interval of machines (want 0-3 or 8)", part)
		}
		out = append(out, Range{a, b})
	}
	if len(out) == 0 {
		return nil, errors.New("no machine")
	}
	return out, nil
}

// Apply applies a recorded pstate change to the machine, at its time: -2
// starts a switch-off (into the group's first sleep state), -1 a
// switch-on, a sleep pstate ends a switch-off, a computing pstate ends a
// switch-on or, on a node that is on, changes its DVFS state. A change the
// machine's state does not allow is an error, not a panic.
func (m *Machine) Apply(c PStateChange) error {
	for _, r := range c.Nodes {
		if r.Last >= len(m.nodes) {
			return fmt.Errorf("energy: machine %d at %d: the platform has %d", r.Last, c.Time, len(m.nodes))
		}
		for i := r.First; i <= r.Last; i++ {
			if err := m.apply(c.Time, i, c.PState); err != nil {
				return err
			}
		}
	}
	return nil
}

// Replay applies recorded pstate changes (ReadPStateChanges) up to time
// until, as Apply does, but makes every switch last exactly its duration:
// Batsim prints times with 6 significant digits (0.1 s apart past
// 10,000 s), while a switch's duration is known to the flop. A switch
// whose recorded end is within half a second of its start plus its
// duration ends then, or at the node's next recorded change if that comes
// first (a rounded time). The changes are then applied in time order.
func (m *Machine) Replay(changes []PStateChange, until int64) error {
	type change struct {
		t    int64
		node int
		p    int
	}
	per := make([][]change, len(m.nodes))
	for _, c := range changes {
		for _, r := range c.Nodes {
			if r.Last >= len(m.nodes) {
				return fmt.Errorf("energy: machine %d at %d: the platform has %d", r.Last, c.Time, len(m.nodes))
			}
			for i := r.First; i <= r.Last; i++ {
				per[i] = append(per[i], change{c.Time, i, c.PState})
			}
		}
	}
	var all []change
	for i, cs := range per {
		g := &m.p.Groups[m.nodes[i].group]
		for k := 0; k+1 < len(cs) && len(g.Sleep) > 0; k++ {
			if cs[k].p >= 0 || cs[k+1].p < 0 {
				continue
			}
			d := m.Ticks(g.Sleep[0].On.Sec)
			if cs[k].p == -2 {
				d = m.Ticks(g.Sleep[0].Off.Sec)
			}
			exact := cs[k].t + d
			if diff := exact - cs[k+1].t; diff < -m.tick/2 || diff > m.tick/2 {
				continue
			}
			if k+2 < len(cs) {
				exact = min(exact, cs[k+2].t)
			}
			cs[k+1].t = exact
		}
		all = append(all, cs...)
	}
	slices.SortStableFunc(all, func(a, b change) int { return cmp.Compare(a.t, b.t) })
	for _, c := range all {
		if c.t > until {
			break
		}
		if err := m.apply(c.t, c.node, c.p); err != nil {
			return err
		}
	}
	return nil
}

func (m *Machine) apply(t int64, i, p int) error {
	n := &m.nodes[i]
	g := &m.p.Groups[n.group]
	bad := func() error {
		return fmt.Errorf("energy: machine %d at %s s: %s, cannot go to pstate %d", i, strconv.FormatFloat(float64(t)/float64(m.tick), 'f', -1, 64), n.kind, p)
	}
	switch {
	case p == -2:
		if n.kind != Idle || len(g.Sleep) == 0 {
			return bad()
		}
		m.SwitchOff(t, i, 0)
	case p == -1:
		if n.kind != Sleeping {
			return bad()
		}
		m.SwitchOn(t, i)
	case p >= len(g.PStates):
		return bad()
	case g.SleepOf(p) >= 0:
		if n.kind != SwitchingOff {
			return bad()
		}
		n.sleep = int32(g.SleepOf(p))
		m.Asleep(t, i)
	case g.IsSleep(p):
		return bad()
	case n.kind == SwitchingOn:
		m.Awake(t, i, p)
	case n.kind == Idle || n.kind == Computing:
		m.SetPState(t, i, p)
	default:
		return bad()
	}
	return nil
}

// MachineStates is one row of Batsim's machine_states.csv: from Time
// (ticks) on, how many nodes are in each Kind.
type MachineStates struct {
	Time   int64
	Counts [Kinds]int
}

// machineStatesHeader is machine_states.csv's header, its columns in the
// order of the Kinds.
const machineStatesHeader = "time,nb_sleeping,nb_switching_on,nb_switching_off,nb_idle,nb_computing"

// ReadMachineStates reads Batsim's machine_states.csv (times in seconds,
// converted to ticks of 1/ticksPerSec second, rounded to the nearest), its
// rows in time order. Errors are *workload.ParseError naming the file,
// line and column.
func ReadMachineStates(path string, r io.Reader, ticksPerSec int64) ([]MachineStates, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []MachineStates
	line := int64(0)
	fail := func(col string, err error) error {
		return &workload.ParseError{Path: path, Line: line, Column: col, Err: err}
	}
	cols := strings.Split(machineStatesHeader, ",")
	last := int64(math.MinInt64)
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if line == 1 {
			if s != machineStatesHeader {
				return nil, fail("", fmt.Errorf("header %q, want %s", s, machineStatesHeader))
			}
			continue
		}
		if s == "" {
			continue
		}
		f := strings.Split(s, ",")
		if len(f) != len(cols) {
			return nil, fail("", fmt.Errorf("%d fields, want %d", len(f), len(cols)))
		}
		sec, err := strconv.ParseFloat(f[0], 64)
		if err != nil || !finiteNonNeg(sec) || sec > 1e12 {
			return nil, fail("time", fmt.Errorf("%q is not a time in seconds ≥ 0", f[0]))
		}
		row := MachineStates{Time: int64(math.Round(sec * float64(ticksPerSec)))}
		if row.Time < last {
			return nil, fail("time", fmt.Errorf("%s is before the previous row's time", f[0]))
		}
		last = row.Time
		for k := range Kinds {
			n, err := strconv.Atoi(f[k+1])
			if err != nil || n < 0 || n > 1<<30 {
				return nil, fail(cols[k+1], fmt.Errorf("%q is not a count of nodes", f[k+1]))
			}
			row.Counts[k] = n
		}
		out = append(out, row)
	}
	if err := sc.Err(); err != nil {
		return nil, &workload.ParseError{Path: path, Line: line + 1, Err: err}
	}
	if line == 0 {
		return nil, &workload.ParseError{Path: path, Err: fmt.Errorf("empty file (want the header %s)", machineStatesHeader)}
	}
	return out, nil
}

package energy

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// MasterHost is the name of the host Batsim reserves for its scheduler
// (its --master-host option's default): it runs no job and is not part of
// the machine.
const MasterHost = "master_host"

// maxXMLHosts bounds the compute hosts a platform file may declare.
const maxXMLHosts = 1 << 22

// ParseXML reads the power description of a SimGrid/Batsim platform file:
// every <host> (and every host of a <cluster>) but the master host (id
// MasterHost, or a "role" property of "master" or "storage"), with its
// "speed" list (one speed per pstate, SimGrid units: "100Mf", "1.5Gf",
// "0.16f"), its "pstate" (the initial one), its "core" count, and its
// properties "watt_per_state" or "wattage_per_state" ("idle:epsilon:all-
// cores" per pstate, or "idle:all-cores") and "sleep_pstates"
// ("sleep:switch-off:switch-on", Batsim's virtual pstates: switching is one
// flop at the virtual pstate's speed and all-cores power). Consecutive
// hosts with the same description form one group. Errors are
// *workload.ParseError naming the file, the line and the attribute.
func ParseXML(path string, r io.Reader) (*Platform, error) {
	d := xml.NewDecoder(r)
	d.Strict = true
	d.Entity = xml.HTMLEntity
	var (
		p     Platform
		cur   *xmlHost // host being read (between <host> and </host>)
		depth int
		hosts int
	)
	fail := func(line int, key string, err error) error {
		return &workload.ParseError{Path: path, Line: int64(line), Key: key, Err: err}
	}
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &workload.ParseError{Path: path, Line: int64(se.Line), Err: errors.New(se.Msg)}
			}
			return nil, fail(line, "", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "host", "cluster":
				if cur != nil {
					return nil, fail(line, cur.id, fmt.Errorf("<%s> inside a host", t.Name.Local))
				}
				cur = &xmlHost{line: line, depth: depth, cluster: t.Name.Local == "cluster", count: 1, cores: 1, props: map[string]xmlProp{}}
				for _, a := range t.Attr {
					cur.attrs = append(cur.attrs, a)
				}
			case "prop":
				if cur == nil {
					continue
				}
				var id, value string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "id":
						id = a.Value
					case "value":
						value = a.Value
					}
				}
				cur.props[id] = xmlProp{value: value, line: line}
			}
		case xml.EndElement:
			if cur != nil && depth == cur.depth {
				g, skip, err := cur.group(path)
				if err != nil {
					return nil, err
				}
				if !skip {
					hosts += g.Nodes
					if hosts > maxXMLHosts {
						return nil, fail(cur.line, cur.id, fmt.Errorf("more than %d hosts", maxXMLHosts))
					}
					if n := len(p.Groups); n > 0 && sameGroup(&p.Groups[n-1], &g) {
						p.Groups[n-1].Nodes += g.Nodes
					} else {
						p.Groups = append(p.Groups, g)
					}
				}
				cur = nil
			}
			depth--
		}
	}
	if len(p.Groups) == 0 {
		return nil, &workload.ParseError{Path: path, Err: errors.New("no compute host (every <host> but the master host is one)")}
	}
	if err := p.Validate(); err != nil {
		return nil, &workload.ParseError{Path: path, Err: err}
	}
	return &p, nil
}

// xmlProp is a <prop> of a host and its line.
type xmlProp struct {
	value string
	line  int
}

// xmlHost is a <host> or <cluster> being read.
type xmlHost struct {
	line, depth int
	cluster     bool
	id          string
	count       int
	cores       int
	attrs       []xml.Attr
	props       map[string]xmlProp
}

// group turns the host into a group of nodes; skip reports the master
// host (and storage hosts).
func (h *xmlHost) group(path string) (g Group, skip bool, err error) {
	fail := func(line int, attr string, err error) error {
		key := attr
		if h.id != "" {
			key = h.id + "." + attr
		}
		return &workload.ParseError{Path: path, Line: int64(line), Key: key, Err: err}
	}
	var speed, pstate string
	var radical, prefix string
	for _, a := range h.attrs {
		switch a.Name.Local {
		case "id":
			h.id = a.Value
		case "speed", "power":
			speed = a.Value
		case "pstate":
			pstate = a.Value
		case "core":
			n, err := strconv.Atoi(strings.TrimSpace(a.Value))
			if err != nil || n < 1 || n > 1<<20 {
				return g, false, fail(h.line, "core", fmt.Errorf("%q is not a core count (want an integer from 1 to %d)", a.Value, 1<<20))
			}
			h.cores = n
		case "radical":
			radical = a.Value
		case "prefix":
			prefix = a.Value
		}
	}
	if h.cluster {
		n, err := radicalCount(radical)
		if err != nil {
			return g, false, fail(h.line, "radical", err)
		}
		h.count = n
		if h.id == "" {
			h.id = prefix
		}
	}
	if role := h.props["role"].value; role == "master" || role == "storage" || (!h.cluster && h.id == MasterHost) {
		return g, true, nil
	}
	g = Group{Name: h.id, Nodes: h.count, Cores: h.cores}
	if speed == "" {
		return g, false, fail(h.line, "speed", errors.New("missing (a compute host needs a speed per pstate)"))
	}
	for s := range strings.SplitSeq(speed, ",") {
		f, err := parseSpeed(s)
		if err != nil {
			return g, false, fail(h.line, "speed", err)
		}
		g.PStates = append(g.PStates, PState{SpeedFlops: f})
	}
	if pstate != "" {
		n, err := strconv.Atoi(strings.TrimSpace(pstate))
		if err != nil || n < 0 || n >= len(g.PStates) {
			return g, false, fail(h.line, "pstate", fmt.Errorf("%q is not a pstate (want 0…%d, one per speed)", pstate, len(g.PStates)-1))
		}
		g.Initial = n
	}
	wp, ok := h.props["wattage_per_state"]
	name := "wattage_per_state"
	if !ok {
		wp, ok = h.props["watt_per_state"]
		name = "watt_per_state"
	}
	if !ok {
		return g, false, fail(h.line, "watt_per_state", errors.New("missing: a compute host needs a <prop id=\"watt_per_state\"> (or wattage_per_state) for a power model"))
	}
	states := strings.Split(wp.value, ",")
	if len(states) != len(g.PStates) {
		return g, false, fail(wp.line, name, fmt.Errorf("%d power states for %d speeds (want one per pstate)", len(states), len(g.PStates)))
	}
	for k, s := range states {
		parts := strings.Split(strings.TrimSpace(s), ":")
		if len(parts) != 2 && len(parts) != 3 {
			return g, false, fail(wp.line, name, fmt.Errorf("pstate %d: %q is not idle:epsilon:all-cores (or idle:all-cores)", k, s))
		}
		var w [3]float64
		for i, v := range parts {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || !finiteNonNeg(f) {
				return g, false, fail(wp.line, name, fmt.Errorf("pstate %d: %q is not a power in watts (want a finite number ≥ 0)", k, v))
			}
			w[i] = f
		}
		ps := &g.PStates[k]
		if len(parts) == 2 {
			ps.IdleW, ps.EpsilonW, ps.AllCoresW = w[0], w[0], w[1]
		} else {
			ps.IdleW, ps.EpsilonW, ps.AllCoresW = w[0], w[1], w[2]
		}
	}
	if sp, ok := h.props["sleep_pstates"]; ok {
		for s := range strings.SplitSeq(sp.value, ",") {
			parts := strings.Split(strings.TrimSpace(s), ":")
			var idx [3]int
			if len(parts) != 3 {
				return g, false, fail(sp.line, "sleep_pstates", fmt.Errorf("%q is not sleep:switch-off:switch-on (three pstates)", s))
			}
			for i, v := range parts {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || n < 0 || n >= len(g.PStates) {
					return g, false, fail(sp.line, "sleep_pstates", fmt.Errorf("%q is not a pstate (want 0…%d)", v, len(g.PStates)-1))
				}
				idx[i] = n
			}
			ss := SleepState{PState: idx[0], OffPState: idx[1], OnPState: idx[2]}
			var err error
			if ss.Off, err = virtual(&g.PStates[idx[1]]); err != nil {
				return g, false, fail(sp.line, "sleep_pstates", fmt.Errorf("switch-off pstate %d: %w", idx[1], err))
			}
			if ss.On, err = virtual(&g.PStates[idx[2]]); err != nil {
				return g, false, fail(sp.line, "sleep_pstates", fmt.Errorf("switch-on pstate %d: %w", idx[2], err))
			}
			g.Sleep = append(g.Sleep, ss)
		}
		if g.IsSleep(g.Initial) {
			return g, false, fail(h.line, "pstate", fmt.Errorf("initial pstate %d is a sleep state", g.Initial))
		}
	}
	return g, false, nil
}

// virtual returns the transition of a Batsim virtual pstate: one flop at
// its speed, at its all-cores power.
func virtual(s *PState) (Transition, error) {
	if s.SpeedFlops <= 0 {
		return Transition{}, errors.New("a switching pstate needs a speed > 0 (it computes one flop)")
	}
	sec := 1 / s.SpeedFlops
	if math.IsInf(sec, 0) || sec > 1e12 {
		return Transition{}, fmt.Errorf("speed %g f makes a switch of %g s", s.SpeedFlops, sec)
	}
	return Transition{Sec: sec, W: s.AllCoresW}, nil
}

// speedUnits are SimGrid's speed suffixes and their factors.
var speedUnits = []struct {
	suffix string
	f      float64
}{
	{"yf", 1e-24}, {"zf", 1e-21}, {"af", 1e-18}, {"pf", 1e-12}, {"nf", 1e-9}, {"uf", 1e-6}, {"mf", 1e-3},
	{"kf", 1e3}, {"Kf", 1e3}, {"Mf", 1e6}, {"Gf", 1e9}, {"Tf", 1e12}, {"Pf", 1e15}, {"Ef", 1e18}, {"Zf", 1e21}, {"Yf", 1e24},
	{"f", 1},
}

// parseSpeed parses one SimGrid speed, "100Mf", "1e-9Mf", "0.16f",
// "2.5Gflops" or a bare number of flops.
func parseSpeed(s string) (float64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(t, "lops")
	f := 1.0
	for _, u := range speedUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, f = strings.TrimSuffix(t, u.suffix), u.f
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !finiteNonNeg(v*f) {
		return 0, fmt.Errorf("%q is not a speed (want a number of flops with a unit: 100Mf, 1.5Gf, 0.16f)", strings.TrimSpace(s))
	}
	return v * f, nil
}

// radicalCount counts the hosts of a cluster's radical ("0-31", "0-3,8").
func radicalCount(r string) (int, error) {
	if strings.TrimSpace(r) == "" {
		return 0, errors.New("missing (a cluster needs a radical: 0-31)")
	}
	n := 0
	for part := range strings.SplitSeq(r, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b-a >= maxXMLHosts {
			return 0, fmt.Errorf("%q is not a list of host numbers (want 0-31 or 0-3,8)", part)
		}
		n += b - a + 1
		if n > maxXMLHosts {
			return 0, fmt.Errorf("more than %d hosts", maxXMLHosts)
		}
	}
	return n, nil
}

// sameGroup reports whether b describes the same nodes as a.
func sameGroup(a, b *Group) bool {
	return a.Cores == b.Cores && a.Initial == b.Initial && slices.Equal(a.PStates, b.PStates) && slices.Equal(a.Sleep, b.Sleep)
}

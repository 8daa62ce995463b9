package schedsim

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// reservationConfig is one [[reservation]]: Slurm's `scontrol create
// reservation`, documented in the README's "Reservations, limits and
// calendars" section.
type reservationConfig struct {
	Name       string   `toml:"name"`
	Start      Param    `toml:"start"`
	Duration   Param    `toml:"duration"`
	Recur      string   `toml:"recur"`
	Until      Param    `toml:"until"`
	Procs      int      `toml:"procs"`
	Nodes      string   `toml:"nodes"`
	Maint      *bool    `toml:"maint"`
	Users      []string `toml:"users"`
	Accounts   []string `toml:"accounts"`
	Partitions []string `toml:"partitions"`
}

// limitConfig is one [[limit]]: Slurm's association and QOS limits.
type limitConfig struct {
	Users                []string `toml:"users"`
	Accounts             []string `toml:"accounts"`
	MaxJobsPerUser       int      `toml:"max_jobs_per_user"`
	MaxSubmitJobsPerUser int      `toml:"max_submit_jobs_per_user"`
	MaxCPUsPerUser       int      `toml:"max_cpus_per_user"`
	GrpCPUs              int      `toml:"grp_cpus"`
	MaxWall              Param    `toml:"max_wall"`
	MaxJobs              int      `toml:"max_jobs"`
	MaxSubmitJobs        int      `toml:"max_submit_jobs"`
	MaxCPUs              int      `toml:"max_cpus"`
}

// startWindowConfig is one [[start_window]]: a maximum requested time that
// depends on when a job would start.
type startWindowConfig struct {
	Partition Param  `toml:"partition"`
	Queue     *int   `toml:"queue"`
	Days      string `toml:"days"`
	Hours     string `toml:"hours"`
	MaxWall   Param  `toml:"max_wall"`
	MaxProcs  int    `toml:"max_procs"`
	MinProcs  int    `toml:"min_procs"`
}

// hasConstraints reports whether the configuration has reservations,
// limits or start windows.
func (c *runConfig) hasConstraints() bool {
	return c != nil && len(c.Reservations)+len(c.Limits)+len(c.StartWindows) > 0
}

// parseSpan parses a duration or a trace time in seconds: a whole number,
// or numbers with units d, h, m and s, largest first ("90", "30m",
// "1d2h", "1h30m").
func parseSpan(s string) (workload.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return workload.Time(n), n >= 0 && workload.Time(n) <= workload.MaxTime
	}
	var total workload.Time
	last := workload.Time(1 << 62)
	for s != "" {
		k := 0
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == 0 || k == len(s) {
			return 0, false
		}
		n, err := strconv.ParseInt(s[:k], 10, 64)
		if err != nil {
			return 0, false
		}
		var unit workload.Time
		switch s[k] {
		case 'd':
			unit = 86400
		case 'h':
			unit = 3600
		case 'm':
			unit = 60
		case 's':
			unit = 1
		default:
			return 0, false
		}
		if unit >= last || workload.Time(n) > workload.MaxTime/unit {
			return 0, false
		}
		last = unit
		total += workload.Time(n) * unit
		s = s[k+1:]
	}
	return total, total <= workload.MaxTime
}

// dateLayouts are the local date-times a reservation's start and until
// may be given as.
var dateLayouts = []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"}

// instant parses a reservation's start or until: trace time in seconds
// ("86400", "1d2h"), or a local date-time on cal (which needs the trace's
// UnixStartTime: hasEpoch).
func instant(v string, cal *workload.Calendar, hasEpoch bool) (workload.Time, error) {
	if t, ok := parseSpan(v); ok {
		return t, nil
	}
	for _, l := range dateLayouts {
		w, err := time.ParseInLocation(l, strings.TrimSpace(v), cal.Loc)
		if err != nil {
			continue
		}
		if !hasEpoch {
			return 0, fmt.Errorf("%q is a date-time, but the trace's header gives no UnixStartTime to place it: give seconds from the log's start (\"86400\", \"1d2h\")", v)
		}
		return cal.TraceTime(w), nil
	}
	return 0, fmt.Errorf("%q: want a local date-time such as 1996-07-01T07:00:00 or seconds from the log's start such as 86400 or 1d2h", v)
}

// entityNumber parses a user, account or queue given as a number with an
// optional alphabetic prefix ("12", "u12", "user12").
func entityNumber(s string) (int, bool) {
	s = strings.TrimSpace(s)
	k := 0
	for k < len(s) && (s[k] < '0' || s[k] > '9') {
		k++
	}
	if k == len(s) {
		return 0, false
	}
	for _, c := range s[:k] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s[k:])
	return n, err == nil && n >= 0
}

// constraintsBuilder turns the configuration's tables into
// sim.Constraints for one trace.
type constraintsBuilder struct {
	c        *runConfig
	h        *workload.Header
	cal      workload.Calendar
	hasEpoch bool
	procs    int
	nodeSize int // processors per node, for a reservation's nodes
	// spec is the cluster of nodes the run places jobs on, or nil: a
	// reservation's nodes are then those nodes (Reservation.Nodes).
	spec  *cluster.Spec
	parts map[string]int64
}

// constraints returns the run's sim.Constraints (nil without any): the
// calendar is the trace header's, its zone overridden by zone; nodeSize
// is the processors of one node, for reservations given as nodes.
func (c *runConfig) constraints(h *workload.Header, zone string, procs, nodeSize int) (*sim.Constraints, error) {
	return c.constraintsOn(h, zone, procs, nodeSize, nil)
}

// constraintsOn is constraints on the cluster of nodes spec (nil: a
// processor pool), where a reservation's nodes name nodes of spec.
func (c *runConfig) constraintsOn(h *workload.Header, zone string, procs, nodeSize int, spec *cluster.Spec) (*sim.Constraints, error) {
	if !c.hasConstraints() {
		return nil, nil
	}
	cal, ok, err := workload.CalendarOf(h, zone)
	if err != nil {
		return nil, inputf("--timezone: %v", err)
	}
	b := &constraintsBuilder{c: c, h: h, cal: cal, hasEpoch: ok, procs: procs, nodeSize: max(nodeSize, 1), spec: spec}
	out := &sim.Constraints{Calendar: cal}
	for i := range c.Reservations {
		r, err := b.reservation(&c.Reservations[i])
		if err != nil {
			return nil, c.errorf("[[reservation]] %d (name %q): %v", i+1, c.Reservations[i].Name, err)
		}
		out.Reservations = append(out.Reservations, r)
	}
	for i := range c.Limits {
		l, err := b.limit(&c.Limits[i])
		if err != nil {
			return nil, c.errorf("[[limit]] %d: %v", i+1, err)
		}
		out.Limits = append(out.Limits, l)
	}
	for i := range c.StartWindows {
		w, err := b.window(&c.StartWindows[i])
		if err != nil {
			return nil, c.errorf("[[start_window]] %d: %v", i+1, err)
		}
		out.Windows = append(out.Windows, w)
	}
	if err := out.Validate(); err != nil {
		return nil, c.errorf("%s", strings.TrimPrefix(err.Error(), "sim: "))
	}
	return out, nil
}

// numbers parses a list of users or accounts (field names key).
func numbers(key string, vs []string) ([]int, error) {
	var out []int
	for _, v := range vs {
		n, ok := entityNumber(v)
		if !ok {
			return nil, fmt.Errorf("%s: %q: want a number, optionally after letters (\"12\", \"u12\")", key, v)
		}
		out = append(out, n)
	}
	return out, nil
}

// partition resolves a partition by number or by the name a header
// Partition line gives it.
func (b *constraintsBuilder) partition(v string) (int, error) {
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return n, nil
	}
	if b.parts == nil {
		b.parts = b.h.Numbers("Partition")
	}
	if n, ok := b.parts[strings.TrimSpace(v)]; ok {
		return int(n), nil
	}
	return 0, fmt.Errorf("partition %q is not a number, and no \"Partition:\" line of the trace's header names it", v)
}

func (b *constraintsBuilder) reservation(rc *reservationConfig) (sim.Reservation, error) {
	r := sim.Reservation{Name: rc.Name, Until: workload.Forever, Procs: rc.Procs}
	var err error
	if rc.Name == "" {
		return r, fmt.Errorf("name: required")
	}
	if rc.Start == "" {
		return r, fmt.Errorf("start: required")
	}
	if r.Start, err = instant(string(rc.Start), &b.cal, b.hasEpoch); err != nil {
		return r, fmt.Errorf("start: %v", err)
	}
	d, ok := parseSpan(string(rc.Duration))
	if !ok || d <= 0 {
		return r, fmt.Errorf("duration %q: want a duration > 0 such as 1800, \"30m\" or \"1h30m\"", string(rc.Duration))
	}
	r.Duration = d
	if r.Recur, err = sim.ParseRecur(strings.ToLower(rc.Recur)); err != nil {
		return r, err
	}
	if rc.Until != "" {
		if r.Until, err = instant(string(rc.Until), &b.cal, b.hasEpoch); err != nil {
			return r, fmt.Errorf("until: %v", err)
		}
	}
	if rc.Procs < 0 {
		return r, fmt.Errorf("procs %d: want ≥ 0", rc.Procs)
	}
	if rc.Nodes != "" {
		if rc.Procs != 0 {
			return r, fmt.Errorf("procs and nodes: give one")
		}
		if b.spec != nil {
			if r.Nodes, r.Procs, err = reservationNodes(rc.Nodes, b.spec); err != nil {
				return r, err
			}
		} else {
			n, err := countNodes(rc.Nodes)
			if err != nil {
				return r, err
			}
			r.Procs = min(n*b.nodeSize, b.procs)
		}
	}
	if r.Users, err = numbers("users", rc.Users); err != nil {
		return r, err
	}
	if r.Accounts, err = numbers("accounts", rc.Accounts); err != nil {
		return r, err
	}
	for _, p := range rc.Partitions {
		n, err := b.partition(p)
		if err != nil {
			return r, fmt.Errorf("partitions: %v", err)
		}
		r.Partitions = append(r.Partitions, n)
	}
	named := len(r.Users)+len(r.Accounts)+len(r.Partitions) > 0
	r.Maint = !named
	if rc.Maint != nil {
		r.Maint = *rc.Maint
		if !r.Maint && !named {
			return r, fmt.Errorf("maint = false needs users, accounts or partitions whose jobs may run inside it")
		}
	}
	return r, nil
}

// countNodes counts the nodes of a Slurm host list ("n[1-4,7]",
// "node[01-16]", "n1,n2") or a list of node numbers ("0-3,8").
func countNodes(s string) (int, error) {
	bad := fmt.Errorf("nodes %q: want a host list such as n[1-4] or node numbers such as 0-3,8", s)
	total := 0
	for rest := strings.TrimSpace(s); rest != ""; {
		// One item: a name with an optional [ranges] part, up to a comma
		// outside brackets.
		k, depth := 0, 0
		for ; k < len(rest); k++ {
			if rest[k] == '[' {
				depth++
			} else if rest[k] == ']' {
				depth--
			} else if rest[k] == ',' && depth == 0 {
				break
			}
		}
		item := rest[:k]
		rest = strings.TrimPrefix(rest[k:], ",")
		open := strings.IndexByte(item, '[')
		ranges := item
		if open >= 0 {
			if !strings.HasSuffix(item, "]") {
				return 0, bad
			}
			ranges = item[open+1 : len(item)-1]
		} else if _, ok := entityNumber(item); !ok {
			lo, hi, isRange := strings.Cut(item, "-")
			a, e1 := strconv.Atoi(lo)
			bb, e2 := strconv.Atoi(hi)
			if !isRange || e1 != nil || e2 != nil || bb < a {
				return 0, bad
			}
			total += bb - a + 1
			continue
		} else {
			total++
			continue
		}
		for _, f := range strings.Split(ranges, ",") {
			lo, hi, isRange := strings.Cut(f, "-")
			a, err := strconv.Atoi(lo)
			if err != nil || a < 0 {
				return 0, bad
			}
			bb := a
			if isRange {
				if bb, err = strconv.Atoi(hi); err != nil || bb < a {
					return 0, bad
				}
			}
			total += bb - a + 1
		}
	}
	if total == 0 {
		return 0, bad
	}
	return total, nil
}

func (b *constraintsBuilder) limit(lc *limitConfig) (sim.Limit, error) {
	var l sim.Limit
	for _, u := range lc.Users {
		if strings.TrimSpace(u) == "*" {
			l.AllUsers = true
			continue
		}
		n, ok := entityNumber(u)
		if !ok {
			return l, fmt.Errorf("users: %q: want \"*\" or a number, optionally after letters (\"12\", \"u12\")", u)
		}
		l.Users = append(l.Users, n)
	}
	var err error
	if l.Accounts, err = numbers("accounts", lc.Accounts); err != nil {
		return l, err
	}
	if !l.AllUsers && len(l.Users) == 0 && len(l.Accounts) == 0 {
		return l, fmt.Errorf("users or accounts: required (users = [\"*\"] for every user)")
	}
	for _, f := range []struct {
		key string
		v   int
	}{{"max_jobs_per_user", lc.MaxJobsPerUser}, {"max_submit_jobs_per_user", lc.MaxSubmitJobsPerUser}, {"max_cpus_per_user", lc.MaxCPUsPerUser}, {"grp_cpus", lc.GrpCPUs},
		{"max_jobs", lc.MaxJobs}, {"max_submit_jobs", lc.MaxSubmitJobs}, {"max_cpus", lc.MaxCPUs}} {
		if f.v < 0 {
			return l, fmt.Errorf("%s %d: want ≥ 0 (0: no limit)", f.key, f.v)
		}
	}
	l.MaxJobsPerUser, l.MaxSubmitPerUser, l.MaxCPUsPerUser, l.GrpCPUs = lc.MaxJobsPerUser, lc.MaxSubmitJobsPerUser, lc.MaxCPUsPerUser, lc.GrpCPUs
	l.MaxJobs, l.MaxSubmitJobs, l.MaxCPUs = lc.MaxJobs, lc.MaxSubmitJobs, lc.MaxCPUs
	if lc.MaxWall != "" {
		t, ok := parseSpan(string(lc.MaxWall))
		if !ok || t <= 0 {
			return l, fmt.Errorf("max_wall %q: want a duration > 0 such as \"48h\"", string(lc.MaxWall))
		}
		l.MaxWall = t
	}
	return l, nil
}

func (b *constraintsBuilder) window(wc *startWindowConfig) (sim.StartWindow, error) {
	w := sim.StartWindow{Partition: -1, Queue: -1}
	var err error
	if wc.Partition != "" {
		if wc.Queue != nil {
			return w, fmt.Errorf("partition and queue: give one")
		}
		if w.Partition, err = b.partition(string(wc.Partition)); err != nil {
			return w, err
		}
	}
	if wc.Queue != nil {
		if *wc.Queue < 0 {
			return w, fmt.Errorf("queue %d: want ≥ 0", *wc.Queue)
		}
		w.Queue = *wc.Queue
	}
	days := wc.Days
	if days == "" {
		days = "*"
	}
	if w.Days, err = sim.ParseDays(days); err != nil {
		return w, err
	}
	if wc.Hours == "" {
		return w, fmt.Errorf("hours: required, such as \"07:00-16:00\"")
	}
	if w.From, w.To, err = sim.ParseHours(wc.Hours); err != nil {
		return w, err
	}
	if wc.MaxProcs < 0 {
		return w, fmt.Errorf("max_procs %d: want > 0", wc.MaxProcs)
	}
	if wc.MinProcs < 0 {
		return w, fmt.Errorf("min_procs %d: want > 0", wc.MinProcs)
	}
	w.MaxProcs, w.MinProcs = wc.MaxProcs, wc.MinProcs
	if wc.MaxWall == "" && (w.MaxProcs > 0 || w.MinProcs > 0) {
		return w, nil // a bound on processors alone
	}
	t, ok := parseSpan(string(wc.MaxWall))
	if !ok || t <= 0 {
		return w, fmt.Errorf("max_wall %q: required (unless max_procs or min_procs is given), a duration > 0 such as \"4h\"", string(wc.MaxWall))
	}
	w.MaxWall = t
	return w, nil
}

// Package slurmconf reads the machine part of a Slurm configuration file
// (slurm.conf): its nodes and partitions as a cluster description, its node
// selector, and its backfill scheduler's parameters.
package slurmconf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Conf is the machine part of a slurm.conf (schedsim run --slurm-conf):
// its nodes and partitions as a cluster description, its node selector,
// and its backfill scheduler's parameters.
type Conf struct {
	// Spec is the cluster description of the NodeName and PartitionName
	// lines and SelectType.
	Spec *cluster.Spec
	// Params are the backfill parameters of SchedulerParameters.
	Params policy.SlurmParams
	// Scheduler is SchedulerType, e.g. "sched/backfill".
	Scheduler string
	// Unknown lists, in file order, the keys and scheduler parameters
	// schedsim does not model ("line 3: SlurmctldHost").
	Unknown []string
}

// Error is a malformed line of a slurm.conf.
type Error struct {
	Path string // the file
	Line int    // its line, from 1
	Msg  string // what is wrong
}

// Error returns "path:line: message".
func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg) }

// MaxErrors is how many line errors Read and Parse report at most.
const MaxErrors = 10

// MaxHostlistNodes bounds the nodes a hostlist, and a slurm.conf, may name
// (262,144: more than any machine built so far).
const MaxHostlistNodes = 1 << 18

// Keys of slurm.conf that schedsim reads (lower case).
var slurmNodeKeys = map[string]bool{
	"nodename": true, "cpus": true, "sockets": true, "corespersocket": true,
	"threadspercore": true, "realmemory": true, "feature": true, "features": true,
}

// Read reads the slurm.conf at path.
func Read(path string) (*Conf, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// slurmNode is a NodeName line, or the DEFAULT values.
type slurmNode struct {
	cpus, sockets, cores, threads int
	memMB                         int64
	features                      []string
}

// slurmPart is a PartitionName line, or the DEFAULT values.
type slurmPart struct {
	nodes         string
	maxTime, dflt workload.Time
	tier          int
	over          string
	share         int // OverSubscribe's count (YES:N, FORCE:N), 0: none given
	isDefault     bool
}

// Parse parses a slurm.conf read from r (path names it in errors).
// Unknown keys are listed in the result; malformed lines are errors naming
// their line, at most MaxErrors of them joined.
func Parse(r io.Reader, path string) (*Conf, error) {
	c := &Conf{Spec: &cluster.Spec{}}
	var errs []error
	fail := func(line int, format string, a ...any) {
		if len(errs) < MaxErrors {
			errs = append(errs, &Error{path, line, fmt.Sprintf(format, a...)})
		}
	}
	nodeDefault := slurmNode{cpus: 0, sockets: 1, cores: 1, threads: 1}
	partDefault := slurmPart{}
	nodeGroup := map[string]int{} // node name → group index
	var groupNames [][]string     // group → node names
	type partLine struct {
		line int
		name string
		p    slurmPart
	}
	var parts []partLine
	selectParams := ""
	preemptType, preemptMode := "", "" // PreemptType (partition_prio or none) and PreemptMode
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	ln := 0
	for sc.Scan() {
		ln++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		fields, err := splitSlurmLine(text)
		if err != nil {
			fail(ln, "%v", err)
			continue
		}
		if len(fields) == 0 {
			continue
		}
		first := strings.ToLower(fields[0].key)
		switch first {
		case "nodename":
			n := nodeDefault
			name := fields[0].val
			for _, kv := range fields[1:] {
				if err := n.set(kv); err != nil {
					fail(ln, "%v", err)
				} else if !slurmNodeKeys[strings.ToLower(kv.key)] {
					c.Unknown = append(c.Unknown, fmt.Sprintf("line %d: NodeName %s", ln, kv.key))
				}
			}
			if strings.EqualFold(name, "DEFAULT") {
				nodeDefault = n
				continue
			}
			names, err := ExpandHostlist(name)
			if err != nil {
				fail(ln, "NodeName=%s: %v", name, err)
				continue
			}
			cores := n.cpus
			if cores == 0 {
				cores = n.sockets * n.cores * n.threads
			}
			if cores < 1 {
				fail(ln, "NodeName=%s: no CPUs", name)
				continue
			}
			dup := ""
			for _, nm := range names {
				if _, ok := nodeGroup[nm]; ok {
					dup = nm
					break
				}
			}
			if dup != "" {
				fail(ln, "NodeName=%s: node %s defined twice", name, dup)
				continue
			}
			if len(nodeGroup)+len(names) > MaxHostlistNodes {
				fail(ln, "NodeName=%s: more than %d nodes in all", name, MaxHostlistNodes)
				continue
			}
			for _, nm := range names {
				nodeGroup[nm] = len(groupNames)
			}
			groupNames = append(groupNames, names)
			c.Spec.Groups = append(c.Spec.Groups, cluster.NodeGroup{Name: name, Count: len(names), Cores: cores, MemoryMB: n.memMB, Features: n.features})
		case "partitionname":
			p := partDefault
			for _, kv := range fields[1:] {
				known, err := p.set(kv)
				if err != nil {
					fail(ln, "%v", err)
				} else if !known {
					c.Unknown = append(c.Unknown, fmt.Sprintf("line %d: PartitionName %s", ln, kv.key))
				}
			}
			if strings.EqualFold(fields[0].val, "DEFAULT") {
				partDefault = p
				continue
			}
			parts = append(parts, partLine{ln, fields[0].val, p})
		default:
			for _, kv := range fields {
				switch strings.ToLower(kv.key) {
				case "selecttype":
					switch strings.ToLower(kv.val) {
					case "select/linear":
						c.Spec.Select = cluster.SelectLinear
					case "select/cons_res", "select/cons_tres":
						c.Spec.Select = cluster.SelectConsRes
					default:
						fail(ln, "SelectType=%s: schedsim models select/linear, select/cons_res and select/cons_tres", kv.val)
					}
				case "selecttypeparameters":
					selectParams = kv.val
				case "schedulertype":
					switch strings.ToLower(kv.val) {
					case "sched/backfill", "sched/builtin":
						c.Scheduler = strings.ToLower(kv.val)
					default:
						fail(ln, "SchedulerType=%s: want sched/backfill or sched/builtin", kv.val)
					}
				case "schedulerparameters":
					for _, u := range c.setSchedulerParams(ln, kv.val, fail) {
						c.Unknown = append(c.Unknown, fmt.Sprintf("line %d: SchedulerParameters %s", ln, u))
					}
				case "preempttype":
					switch strings.ToLower(kv.val) {
					case "preempt/none":
						preemptType = ""
					case "preempt/partition_prio":
						preemptType = "partition_prio"
					default:
						preemptType = ""
						c.Unknown = append(c.Unknown, fmt.Sprintf("line %d: PreemptType=%s (no preemption: schedsim models preempt/partition_prio)", ln, kv.val))
					}
				case "preemptmode":
					mode, gang, err := parsePreemptMode(kv.val)
					if err != nil {
						fail(ln, "PreemptMode=%s: %v", kv.val, err)
					}
					preemptMode = mode
					if gang && mode == "" {
						c.Unknown = append(c.Unknown, fmt.Sprintf("line %d: PreemptMode=GANG (time slicing within a partition: see --mode gang)", ln))
					}
				case "preemptparameters":
					for _, item := range strings.Split(kv.val, ",") {
						if item = strings.TrimSpace(item); strings.EqualFold(item, "youngest_first") {
							c.Spec.PreemptYoungestFirst = true
						} else if item != "" {
							c.Unknown = append(c.Unknown, fmt.Sprintf("line %d: PreemptParameters %s", ln, item))
						}
					}
				default:
					c.Unknown = append(c.Unknown, fmt.Sprintf("line %d: %s", ln, kv.key))
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		fail(ln+1, "%v", err)
	}
	if preemptType != "" {
		c.Spec.Preempt = preemptMode
	}
	// Memory is a consumable resource only with CR_*_Memory (cons_res)
	// or CR_Memory (linear).
	if c.Spec.Select != cluster.SelectConsRes {
		for _, p := range strings.Split(selectParams, ",") {
			c.Spec.CRMemory = c.Spec.CRMemory || strings.EqualFold(strings.TrimSpace(p), "CR_Memory")
		}
	}
	if c.Spec.Select == cluster.SelectConsRes && !strings.Contains(strings.ToUpper(selectParams), "MEMORY") {
		for i := range c.Spec.Groups {
			c.Spec.Groups[i].MemoryMB = 0
		}
	}
	// A partition names nodes, not NodeName lines: the nodes each one
	// holds, as (group, index in the group).
	type nodeAt struct{ g, k int }
	nodeIndex := make(map[string]int, len(nodeGroup)) // node name → index in its group
	for _, names := range groupNames {
		for k, nm := range names {
			nodeIndex[nm] = k
		}
	}
	member := make([][][]int, len(groupNames)) // group → node → the partitions that hold it
	for g, names := range groupNames {
		member[g] = make([][]int, len(names))
	}
	var partsOK []cluster.Partition
	var partIdx []int // index into member's lists of each kept partition
	for _, pl := range parts {
		part := cluster.Partition{Name: pl.name, MaxTime: pl.p.maxTime, DefaultTime: pl.p.dflt, PriorityTier: pl.p.tier, OverSubscribe: pl.p.over, Default: pl.p.isDefault}
		if pl.p.over == "FORCE" {
			part.ShareCount = pl.p.share
		}
		var nodes []nodeAt
		if strings.EqualFold(pl.p.nodes, "ALL") {
			for g, names := range groupNames {
				for k := range names {
					nodes = append(nodes, nodeAt{g, k})
				}
			}
		} else if pl.p.nodes != "" {
			names, err := ExpandHostlist(pl.p.nodes)
			if err != nil {
				fail(pl.line, "PartitionName=%s Nodes=%s: %v", pl.name, pl.p.nodes, err)
				continue
			}
			bad := false
			for _, nm := range names {
				g, ok := nodeGroup[nm]
				if !ok {
					fail(pl.line, "PartitionName=%s: node %s has no NodeName line", pl.name, nm)
					bad = true
					break
				}
				nodes = append(nodes, nodeAt{g, nodeIndex[nm]})
			}
			if bad {
				continue
			}
		}
		pi := len(partsOK)
		for _, n := range nodes {
			if m := member[n.g][n.k]; len(m) == 0 || m[len(m)-1] != pi {
				member[n.g][n.k] = append(m, pi)
			}
		}
		partsOK = append(partsOK, part)
		partIdx = append(partIdx, pi)
	}
	// Every partition must be a union of whole groups: a NodeName line
	// whose nodes the partitions do not all hold alike is split into runs
	// of nodes, in its order (the nodes keep their numbers), that the same
	// partitions hold, each named by the host list of its nodes.
	var groups []cluster.NodeGroup
	var holders [][]int // new group → the partitions that hold it
	for g, names := range groupNames {
		for lo := 0; lo < len(names); {
			hi := lo + 1
			for hi < len(names) && slices.Equal(member[g][hi], member[g][lo]) {
				hi++
			}
			ng := c.Spec.Groups[g]
			if lo > 0 || hi < len(names) {
				ng.Name, ng.Count = compressHostlist(names[lo:hi]), hi-lo
				ng.Features = slices.Clone(ng.Features)
			}
			groups = append(groups, ng)
			holders = append(holders, member[g][lo])
			lo = hi
		}
	}
	c.Spec.Groups = groups
	for i, part := range partsOK {
		for g, h := range holders {
			if slices.Contains(h, partIdx[i]) {
				part.Groups = append(part.Groups, groups[g].Name)
			}
		}
		c.Spec.Partitions = append(c.Spec.Partitions, part)
	}
	if len(errs) == 0 {
		if len(c.Spec.Groups) == 0 {
			fail(ln, "no NodeName lines: the file describes no machine")
		} else if err := c.Spec.Validate(); err != nil {
			fail(ln, "%s", strings.TrimPrefix(err.Error(), cluster.ErrSpec.Error()+": "))
		} else if err := c.Params.Validate(); err != nil {
			fail(ln, "SchedulerParameters: %s", strings.TrimPrefix(err.Error(), "policy: "))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if c.Spec.Select == "" {
		c.Spec.Select = cluster.SelectLinear // Slurm's default before 23.02 was select/linear
	}
	return c, nil
}

// slurmKV is one Key=Value of a line.
type slurmKV struct{ key, val string }

// splitSlurmLine splits a line into Key=Value pairs separated by blanks;
// values may be double-quoted.
func splitSlurmLine(s string) ([]slurmKV, error) {
	var out []slurmKV
	s = strings.TrimSpace(s)
	for s != "" {
		eq := strings.IndexAny(s, "= \t")
		if eq < 0 || s[eq] != '=' {
			word, _, _ := strings.Cut(s, " ")
			return nil, fmt.Errorf("%q: want Key=Value", word)
		}
		key := s[:eq]
		if key == "" {
			return nil, fmt.Errorf("a value without a key")
		}
		s = s[eq+1:]
		var val string
		if strings.HasPrefix(s, `"`) {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("%s: unterminated quote", key)
			}
			val, s = s[1:end+1], s[end+2:]
		} else {
			end := strings.IndexAny(s, " \t")
			if end < 0 {
				end = len(s)
			}
			val, s = s[:end], s[end:]
		}
		out = append(out, slurmKV{key, val})
		s = strings.TrimLeft(s, " \t")
	}
	return out, nil
}

// set applies one key of a NodeName line; unknown keys are ignored.
func (n *slurmNode) set(kv slurmKV) error {
	num := func(dst *int) error {
		v, err := strconv.Atoi(kv.val)
		if err != nil || v < 1 || v > 1<<20 {
			return fmt.Errorf("%s=%s: want a positive whole number", kv.key, kv.val)
		}
		*dst = v
		return nil
	}
	switch strings.ToLower(kv.key) {
	case "cpus":
		return num(&n.cpus)
	case "sockets":
		return num(&n.sockets)
	case "corespersocket":
		return num(&n.cores)
	case "threadspercore":
		return num(&n.threads)
	case "realmemory":
		v, err := strconv.ParseInt(kv.val, 10, 64)
		if err != nil || v < 1 || v > 1<<40 {
			return fmt.Errorf("%s=%s: want a positive number of MB", kv.key, kv.val)
		}
		n.memMB = v
	case "feature", "features":
		n.features = nil
		for _, f := range strings.Split(kv.val, ",") {
			if f = strings.TrimSpace(f); f != "" {
				n.features = append(n.features, f)
			}
		}
	}
	return nil
}

// set applies one key of a PartitionName line and reports whether schedsim
// knows it.
func (p *slurmPart) set(kv slurmKV) (bool, error) {
	switch strings.ToLower(kv.key) {
	case "nodes":
		p.nodes = kv.val
	case "maxtime", "defaulttime":
		t, err := ParseTime(kv.val)
		if err != nil {
			return true, fmt.Errorf("%s=%s: %v", kv.key, kv.val, err)
		}
		if strings.EqualFold(kv.key, "maxtime") {
			p.maxTime = t
		} else {
			p.dflt = t
		}
	case "prioritytier":
		v, err := strconv.Atoi(kv.val)
		if err != nil || v < 0 || v > 65533 {
			return true, fmt.Errorf("%s=%s: want 0 to 65533", kv.key, kv.val)
		}
		p.tier = v
	case "oversubscribe", "shared":
		mode, count, hasCount := strings.Cut(strings.ToUpper(kv.val), ":") // YES:4, FORCE:2
		switch mode {
		case "NO", "YES", "EXCLUSIVE", "FORCE":
			p.over, p.share = mode, 0
		default:
			return true, fmt.Errorf("%s=%s: want NO, YES, EXCLUSIVE or FORCE", kv.key, kv.val)
		}
		if hasCount {
			n, err := strconv.Atoi(count)
			if err != nil || n < 1 || n > cluster.MaxShareCount || (mode != "YES" && mode != "FORCE") {
				return true, fmt.Errorf("%s=%s: want YES:N or FORCE:N with N from 1 to %d", kv.key, kv.val, cluster.MaxShareCount)
			}
			p.share = n
		}
	case "default":
		switch strings.ToUpper(kv.val) {
		case "YES":
			p.isDefault = true
		case "NO":
			p.isDefault = false
		default:
			return true, fmt.Errorf("%s=%s: want YES or NO", kv.key, kv.val)
		}
	default:
		return false, nil
	}
	return true, nil
}

// setSchedulerParams applies SchedulerParameters and returns the
// parameters it does not model.
func (c *Conf) setSchedulerParams(ln int, val string, fail func(int, string, ...any)) []string {
	var unknown []string
	for _, item := range strings.Split(val, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, hasVal := strings.Cut(item, "=")
		count := func(dst *int) {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				fail(ln, "SchedulerParameters %s=%s: want a positive whole number", k, v)
				return
			}
			*dst = n
		}
		secs := func(dst *workload.Time, unit workload.Time, what string) {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 || n > 1<<31 {
				fail(ln, "SchedulerParameters %s=%s: want a positive number of %s", k, v, what)
				return
			}
			*dst = workload.Time(n) * unit
		}
		switch strings.ToLower(k) {
		case "bf_max_job_test":
			count(&c.Params.MaxJobTest)
		case "default_queue_depth":
			count(&c.Params.QueueDepth)
		case "bf_window":
			secs(&c.Params.Window, 60, "minutes")
		case "bf_resolution":
			secs(&c.Params.Resolution, 1, "seconds")
		case "bf_interval":
			secs(&c.Params.Interval, 1, "seconds")
		case "preempt_youngest_first":
			c.Spec.PreemptYoungestFirst = true
		case "bf_window_linear":
			secs(&c.Params.WindowLinear, 1, "seconds")
		case "bf_continue":
			if hasVal {
				fail(ln, "SchedulerParameters bf_continue takes no value")
			}
			c.Params.Continue = true
		default:
			unknown = append(unknown, k)
		}
	}
	return unknown
}

// parsePreemptMode parses slurm.conf's PreemptMode: OFF, or one of
// CANCEL, REQUEUE, SUSPEND with GANG (comma-separated). It returns the
// mode as cluster.Spec.Preempt has it ("" for OFF) and whether GANG was
// given. SUSPEND without GANG is an error, as slurm.conf's manual says:
// "the SUSPEND preemption mode always needs the GANG option".
func parsePreemptMode(val string) (mode string, gang bool, err error) {
	for _, item := range strings.Split(val, ",") {
		switch strings.ToUpper(strings.TrimSpace(item)) {
		case "OFF":
		case "GANG":
			gang = true
		case "CANCEL":
			mode = cluster.PreemptCancel
		case "REQUEUE":
			mode = cluster.PreemptRequeue
		case "SUSPEND":
			mode = cluster.PreemptSuspend
		default:
			return "", false, fmt.Errorf("%q: want OFF, CANCEL, REQUEUE or SUSPEND, with GANG", item)
		}
	}
	if mode == cluster.PreemptSuspend && !gang {
		return "", false, fmt.Errorf("SUSPEND needs GANG (slurm.conf: \"the SUSPEND preemption mode always needs the GANG option\"): write SUSPEND,GANG")
	}
	return mode, gang, nil
}

// ParseTime parses a Slurm time limit: minutes, minutes:seconds,
// hours:minutes:seconds, days-hours, days-hours:minutes,
// days-hours:minutes:seconds, or UNLIMITED / INFINITE (returned as 0).
func ParseTime(s string) (workload.Time, error) {
	if strings.EqualFold(s, "UNLIMITED") || strings.EqualFold(s, "INFINITE") {
		return 0, nil
	}
	bad := fmt.Errorf("want minutes, [days-]hours:minutes:seconds or UNLIMITED")
	var days int64
	rest := s
	hasDays := false
	if d, r, ok := strings.Cut(s, "-"); ok {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil || n < 0 || n > 1e6 {
			return 0, bad
		}
		days, rest, hasDays = n, r, true
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 {
		return 0, bad
	}
	var v [3]int64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 || n > 1e9 {
			return 0, bad
		}
		v[i] = n
	}
	var sec int64
	switch {
	case hasDays:
		// days-hours[:minutes[:seconds]]
		sec = days*86400 + v[0]*3600 + v[1]*60 + v[2]
	case len(parts) == 1:
		sec = v[0] * 60
	case len(parts) == 2:
		sec = v[0]*60 + v[1]
	default:
		sec = v[0]*3600 + v[1]*60 + v[2]
	}
	return workload.Time(sec), nil
}

// compressHostlist returns a host list that ExpandHostlist expands to
// names, in their order: runs of names with one prefix and consecutive
// numbers of one width become prefix[lo-hi].
func compressHostlist(names []string) string {
	split := func(nm string) (string, string) {
		i := len(nm)
		for i > 0 && nm[i-1] >= '0' && nm[i-1] <= '9' {
			i--
		}
		return nm[:i], nm[i:]
	}
	var items []string
	for i := 0; i < len(names); {
		pre, num := split(names[i])
		j := i + 1
		if a, err := strconv.Atoi(num); num != "" && err == nil {
			for ; j < len(names); j++ {
				p, d := split(names[j])
				b, err := strconv.Atoi(d)
				if p != pre || len(d) != len(num) || err != nil || b != a+(j-i) {
					break
				}
			}
		}
		if j-i == 1 {
			items = append(items, names[i])
		} else {
			_, last := split(names[j-1])
			items = append(items, pre+"["+num+"-"+last+"]")
		}
		i = j
	}
	s := strings.Join(items, ",")
	if got, err := ExpandHostlist(s); err != nil || !slices.Equal(got, names) {
		return strings.Join(names, ",")
	}
	return s
}

// ExpandHostlist expands a Slurm hostlist such as "n[001-128],gpu[1-4,7]"
// into node names, in order. Zero padding of a range's lower bound is kept.
func ExpandHostlist(s string) ([]string, error) {
	var out []string
	for s != "" {
		// The next item ends at a comma outside brackets.
		depth, end := 0, len(s)
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '[':
				depth++
			case ']':
				depth--
			case ',':
				if depth == 0 {
					end = i
				}
			}
			if end != len(s) {
				break
			}
		}
		item := s[:end]
		if end < len(s) {
			s = s[end+1:]
		} else {
			s = ""
		}
		if item == "" {
			return nil, fmt.Errorf("empty host name")
		}
		open := strings.IndexByte(item, '[')
		if open < 0 {
			if strings.ContainsAny(item, "]") {
				return nil, fmt.Errorf("%q: unbalanced brackets", item)
			}
			out = append(out, item)
			continue
		}
		closeAt := strings.IndexByte(item, ']')
		if closeAt < open || strings.Count(item, "[") != 1 || strings.Count(item, "]") != 1 {
			return nil, fmt.Errorf("%q: want one bracketed range list such as n[001-128]", item)
		}
		prefix, list, suffix := item[:open], item[open+1:closeAt], item[closeAt+1:]
		for _, r := range strings.Split(list, ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			a, err1 := strconv.Atoi(lo)
			b := a
			var err2 error
			if isRange {
				b, err2 = strconv.Atoi(hi)
			}
			if lo == "" || err1 != nil || err2 != nil || a < 0 || b < a {
				return nil, fmt.Errorf("%q: bad range %q", item, r)
			}
			if len(out)+b-a+1 > MaxHostlistNodes {
				return nil, fmt.Errorf("%q: more than %d nodes", item, MaxHostlistNodes)
			}
			var buf []byte
			for k := a; k <= b; k++ {
				buf = append(buf[:0], prefix...)
				d := strconv.Itoa(k)
				for pad := len(lo) - len(d); pad > 0; pad-- {
					buf = append(buf, '0')
				}
				buf = append(buf, d...)
				buf = append(buf, suffix...)
				out = append(out, string(buf))
			}
		}
	}
	return out, nil
}

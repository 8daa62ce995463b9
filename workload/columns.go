package workload

import (
	"fmt"
	"sort"
	"strings"
)

// A ColumnMap says which Parquet column gives each job field, and in which
// unit. It lets schedsim read a dataset's own schema — Marconi100's PM100
// job table, Fugaku's F-DATA, a site's accounting export — without
// converting it first.
//
// A mapping is written as a comma-separated list of items
//
//	target=source[:unit][?]
//
// where target is a column name of schedsim's job schema (see
// ParquetSchema), plus start_time and end_time; source is the file's column;
// unit says how to read it; and a final "?" makes the column optional (a
// file without it reads as if every value were null). "target=-" unmaps a
// target. The list may start with a preset name — native, pm100 or fdata —
// whose items the rest then override; without a preset, only the listed
// targets are mapped.
//
// Units, by kind of target:
//
//   - durations (wait_time, run_time, avg_cpu_time, requested_time,
//     think_time): s (default), ms, us, ns, min, h.
//   - instants (submit_time, start_time, end_time, hold_until): by default
//     s, a number of seconds since the trace's start (also ms, us, ns, min,
//     h); or absolute: timestamp (a Parquet TIMESTAMP of any unit, INT96, DATE,
//     a date-time string such as 2023-05-01T10:00:00Z, or a number of seconds
//     since the Unix epoch), unix, unix_ms, unix_us, unix_ns (numbers since
//     the epoch). Absolute instants become seconds since the first row's
//     submit time, rounded down to a second, which the header records as
//     UnixStartTime. All mapped instants must be absolute or all relative.
//   - memory (used_memory, requested_memory, memory_per_node): kb (default),
//     b, mb, gb (powers of 1024).
//   - status: none (SWF's codes), or slurm: Slurm's state names (COMPLETED
//     is 1; FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE
//     are 0; CANCELLED is 5; others unknown, -1).
//   - counts and numbers take no unit. String columns are accepted for
//     job_id (the strings must be integers) and for user_id, group_id,
//     executable, queue and partition, whose distinct strings are numbered
//     1, 2, … in order of first appearance.
//
// Two targets are not job fields: start_time gives wait_time = start − submit
// when wait_time is not mapped, and end_time gives run_time = end − start
// when run_time is not mapped. Without a job_id column, jobs are numbered by
// row (1, 2, …).
type ColumnMap struct {
	preset string
	b      [numTargets]binding
}

// binding is one target's source column and unit.
type binding struct {
	source   string // "" when unmapped
	unit     string // "" for the kind's default
	optional bool
}

// target is a field a column can feed.
type target int

// The targets, SWF's 18 fields first, in field order.
const (
	tJobID target = iota
	tSubmit
	tWait
	tRun
	tAllocProcs
	tAvgCPU
	tUsedMem
	tReqProcs
	tReqTime
	tReqMem
	tStatus
	tUser
	tGroup
	tExecutable
	tQueue
	tPartition
	tPreceding
	tThink
	tMinProcs
	tMaxProcs
	tReqNodes
	tMemPerNode
	tLicenses
	tTemplate
	tPriority
	tHoldUntil
	tWaitResources
	tStart
	tEnd
	numTargets
)

// kind is what sort of value a target holds; it decides the units and
// column types a target accepts.
type kind uint8

const (
	kCount    kind = iota // non-negative integer, -1 unknown
	kID                   // like kCount; strings are numbered
	kJobID                // integer; strings must be integers
	kSigned               // any integer
	kDuration             // seconds
	kInstant              // seconds since the trace start
	kMemory               // KB
	kStatus               // SWF status code
	kString               // text
)

// targetInfo describes a target: its schema column name, kind and, for SWF's
// fields, the field number.
var targetInfo = [numTargets]struct {
	name  string
	kind  kind
	field int
}{
	tJobID:      {"job_id", kJobID, 1},
	tSubmit:     {"submit_time", kInstant, 2},
	tWait:       {"wait_time", kDuration, 3},
	tRun:        {"run_time", kDuration, 4},
	tAllocProcs: {"allocated_procs", kCount, 5},
	tAvgCPU:     {"avg_cpu_time", kDuration, 6},
	tUsedMem:    {"used_memory", kMemory, 7},
	tReqProcs:   {"requested_procs", kCount, 8},
	tReqTime:    {"requested_time", kDuration, 9},
	tReqMem:     {"requested_memory", kMemory, 10},
	tStatus:     {"status", kStatus, 11},
	tUser:       {"user_id", kID, 12},
	tGroup:      {"group_id", kID, 13},
	tExecutable: {"executable", kID, 14},
	tQueue:      {"queue", kID, 15},
	tPartition:  {"partition", kID, 16},
	tPreceding:  {"preceding_job", kCount, 17},
	tThink:      {"think_time", kDuration, 18},
	tMinProcs:   {"min_procs", kCount, 0},
	tMaxProcs:   {"max_procs", kCount, 0},
	tReqNodes:   {"requested_nodes", kCount, 0},
	tMemPerNode: {"memory_per_node", kMemory, 0},
	tLicenses:   {"licenses", kString, 0},
	tTemplate:   {"job_template", kString, 0},
	tPriority:   {"priority", kSigned, 0},
	tHoldUntil:  {"hold_until", kInstant, 0},
	// wait_resources: 1 the job waits when resources are short at its
	// submission, 0 it asks to be refused (SCore-D, sim.ScoreD).
	tWaitResources: {"wait_resources", kSigned, 0},
	tStart:         {"start_time", kInstant, 0},
	tEnd:           {"end_time", kInstant, 0},
}

// unitInfo describes a unit: the kinds that accept it, its scale to the
// kind's base unit (seconds, KB), and for instants whether it is absolute.
type unitInfo struct {
	name     string
	kinds    []kind
	scale    float64
	absolute bool
	perSec   int64 // for absolute numeric units: ticks per second
}

var units = map[string]unitInfo{
	"s":         {kinds: []kind{kDuration, kInstant}, scale: 1},
	"ms":        {kinds: []kind{kDuration, kInstant}, scale: 1e-3},
	"us":        {kinds: []kind{kDuration, kInstant}, scale: 1e-6},
	"ns":        {kinds: []kind{kDuration, kInstant}, scale: 1e-9},
	"min":       {kinds: []kind{kDuration, kInstant}, scale: 60},
	"h":         {kinds: []kind{kDuration, kInstant}, scale: 3600},
	"timestamp": {kinds: []kind{kInstant}, scale: 1, absolute: true, perSec: 1},
	"unix":      {kinds: []kind{kInstant}, scale: 1, absolute: true, perSec: 1},
	"unix_ms":   {kinds: []kind{kInstant}, scale: 1e-3, absolute: true, perSec: 1e3},
	"unix_us":   {kinds: []kind{kInstant}, scale: 1e-6, absolute: true, perSec: 1e6},
	"unix_ns":   {kinds: []kind{kInstant}, scale: 1e-9, absolute: true, perSec: 1e9},
	"b":         {kinds: []kind{kMemory}, scale: 1.0 / 1024},
	"kb":        {kinds: []kind{kMemory}, scale: 1},
	"mb":        {kinds: []kind{kMemory}, scale: 1024},
	"gb":        {kinds: []kind{kMemory}, scale: 1024 * 1024},
	"slurm":     {kinds: []kind{kStatus}, scale: 1},
}

func init() {
	for n, u := range units {
		u.name = n
		units[n] = u
	}
}

// unitOf returns the unit of b, its kind's default when b has none.
func (b binding) unitOf(k kind) unitInfo {
	if b.unit != "" {
		return units[b.unit]
	}
	switch k {
	case kDuration, kInstant:
		return units["s"]
	case kMemory:
		return units["kb"]
	}
	return unitInfo{scale: 1}
}

// columnPresets are the built-in mappings. Their column names and units are
// those of the published datasets:
//
//   - native: schedsim's own job schema (ParquetSchema), what convert writes.
//   - pm100: the job table of PM100 (Marconi100, CINECA; Antici et al.,
//     SC-W 2023), Slurm's accounting fields: submit_time, start_time and
//     end_time timestamps, run_time in seconds, time_limit in minutes,
//     num_cores_req/num_cores_alloc and num_nodes_req, job_state.
//   - fdata: F-DATA (Fugaku, RIKEN; Antici et al., 2024): adt (accepted),
//     sdt (started) and edt (ended) timestamps, duration and elpl (elapsed
//     time limit) in seconds, cnumr (cores requested), nnumr (nodes
//     requested).
var columnPresets = map[string]string{
	"native": nativeMapping(),
	"pm100": "job_id=job_id,submit_time=submit_time:timestamp,start_time=start_time:timestamp?," +
		"end_time=end_time:timestamp?,run_time=run_time:s,requested_time=time_limit:min," +
		"requested_procs=num_cores_req,allocated_procs=num_cores_alloc?,requested_nodes=num_nodes_req," +
		"status=job_state:slurm?,user_id=user_id?,group_id=group_id?,priority=priority?",
	"fdata": "job_id=jid?,submit_time=adt:timestamp,start_time=sdt:timestamp?,end_time=edt:timestamp?," +
		"run_time=duration:s,requested_time=elpl:s,requested_procs=cnumr,requested_nodes=nnumr," +
		"user_id=usr?,priority=pri?",
}

// nativeMapping is the mapping of schedsim's own schema: every field from
// the column of its name; job_id, submit_time and run_time required.
func nativeMapping() string {
	var items []string
	for t := range tStart {
		item := targetInfo[t].name + "=" + targetInfo[t].name
		if t != tJobID && t != tSubmit && t != tRun {
			item += "?"
		}
		items = append(items, item)
	}
	return strings.Join(items, ",")
}

// ColumnPresets returns the names of the built-in column mappings, sorted.
func ColumnPresets() []string {
	names := make([]string, 0, len(columnPresets))
	for n := range columnPresets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NativeColumns returns the mapping of schedsim's own job schema (the preset
// "native"), which readers use when given no mapping.
func NativeColumns() *ColumnMap {
	m, err := ParseColumns("native")
	if err != nil {
		panic("workload: the native column mapping does not parse: " + err.Error())
	}
	return m
}

// ParseColumns parses a column mapping (see ColumnMap): a preset name,
// items, or a preset followed by items.
func ParseColumns(s string) (*ColumnMap, error) {
	m := &ColumnMap{}
	items := strings.Split(s, ",")
	if first := strings.TrimSpace(items[0]); first != "" && !strings.Contains(first, "=") {
		p, ok := columnPresets[first]
		if !ok {
			return nil, fmt.Errorf("workload: unknown column preset %q (want one of %s, or items target=column[:unit][?])", first, strings.Join(ColumnPresets(), ", "))
		}
		if err := m.parseItems(strings.Split(p, ","), nil); err != nil {
			return nil, err
		}
		m.preset = first
		items = items[1:]
	}
	seen := make(map[target]bool)
	if err := m.parseItems(items, seen); err != nil {
		return nil, err
	}
	if m.preset == "" && len(seen) == 0 {
		return nil, fmt.Errorf("workload: empty column mapping %q: want a preset (%s) or items target=column[:unit][?]", s, strings.Join(ColumnPresets(), ", "))
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// parseItems applies the items to m; seen, if not nil, catches a target
// listed twice.
func (m *ColumnMap) parseItems(items []string, seen map[target]bool) error {
	for _, item := range items {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, src, ok := strings.Cut(item, "=")
		name, src = strings.TrimSpace(name), strings.TrimSpace(src)
		if !ok {
			return fmt.Errorf("workload: column mapping item %q: want target=column[:unit][?]", item)
		}
		t, ok := targetByName(name)
		if !ok {
			return fmt.Errorf("workload: column mapping item %q: unknown target %q (want one of %s)", item, name, targetNames())
		}
		if seen != nil {
			if seen[t] {
				return fmt.Errorf("workload: column mapping maps %s twice", name)
			}
			seen[t] = true
		}
		if src == "-" {
			m.b[t] = binding{}
			continue
		}
		var b binding
		if strings.HasSuffix(src, "?") {
			b.optional = true
			src = strings.TrimSpace(src[:len(src)-1])
		}
		if i := strings.LastIndexByte(src, ':'); i >= 0 {
			b.unit = strings.ToLower(strings.TrimSpace(src[i+1:]))
			src = strings.TrimSpace(src[:i])
			u, ok := units[b.unit]
			if !ok || !hasKind(u.kinds, targetInfo[t].kind) {
				return fmt.Errorf("workload: column mapping item %q: %s does not take unit %q (want %s)", item, name, b.unit, unitNames(targetInfo[t].kind))
			}
		}
		if src == "" || strings.ContainsAny(src, ",=?") {
			return fmt.Errorf("workload: column mapping item %q: bad column name %q", item, src)
		}
		b.source = src
		m.b[t] = b
	}
	return nil
}

// check reports a mapping no file can satisfy.
func (m *ColumnMap) check() error {
	if m.b[tSubmit].source == "" {
		return fmt.Errorf("workload: column mapping does not map submit_time")
	}
	if m.b[tRun].source == "" && (m.b[tEnd].source == "" || m.b[tStart].source == "") {
		return fmt.Errorf("workload: column mapping maps neither run_time nor both start_time and end_time")
	}
	if m.b[tReqProcs].source == "" && m.b[tAllocProcs].source == "" {
		return fmt.Errorf("workload: column mapping maps neither requested_procs nor allocated_procs")
	}
	abs := m.b[tSubmit].unitOf(kInstant).absolute
	for _, t := range []target{tStart, tEnd, tHoldUntil} {
		if b := m.b[t]; b.source != "" && b.unitOf(kInstant).absolute != abs {
			return fmt.Errorf("workload: column mapping: %s and submit_time must both be absolute (timestamp, unix…) or both relative (s, ms…)", targetInfo[t].name)
		}
	}
	return nil
}

// String returns the mapping in the form ParseColumns reads: the preset
// name when it is one unchanged, else every mapped target.
func (m *ColumnMap) String() string {
	if m.preset != "" {
		if p, err := ParseColumns(m.preset); err == nil && p.b == m.b {
			return m.preset
		}
	}
	var items []string
	for t, b := range m.b {
		if b.source == "" {
			continue
		}
		item := targetInfo[t].name + "=" + b.source
		if b.unit != "" {
			item += ":" + b.unit
		}
		if b.optional {
			item += "?"
		}
		items = append(items, item)
	}
	return strings.Join(items, ",")
}

func targetByName(name string) (target, bool) {
	for t := range numTargets {
		if targetInfo[t].name == name {
			return t, true
		}
	}
	return 0, false
}

func targetNames() string {
	var names []string
	for t := range numTargets {
		names = append(names, targetInfo[t].name)
	}
	return strings.Join(names, ", ")
}

func unitNames(k kind) string {
	var names []string
	for n, u := range units {
		if hasKind(u.kinds, k) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "no unit"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func hasKind(ks []kind, k kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

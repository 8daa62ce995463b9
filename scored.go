package schedsim

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// scoredConfig is [scored] in --config.
type scoredConfig struct {
	Mode       string          `toml:"mode"`
	Queues     int             `toml:"queues"`
	MPL        int             `toml:"mpl"`
	Quantum    msDuration      `toml:"quantum"`
	Switch     msDuration      `toml:"switch_overhead"`
	Preempt    string          `toml:"preempt"`
	QueueMap   string          `toml:"queue_map"`
	MemoryKB   int64           `toml:"memory_kb"`
	DiskKB     int64           `toml:"disk_kb"`
	PerHost    int             `toml:"procs_per_host"`
	States     []string        `toml:"states"`
	QueueTable []scoredQueueTo `toml:"queue"`
}

// scoredQueueTo is one [[scored.queue]] table.
type scoredQueueTo struct {
	Name          string      `toml:"name"`
	State         string      `toml:"state"`
	Mode          string      `toml:"mode"`
	MaxCPU        simDuration `toml:"max_cpu"`
	Residence     simDuration `toml:"residence"`
	MemoryPercent int         `toml:"memory_percent"`
	DiskPercent   int         `toml:"disk_percent"`
	Group         *int        `toml:"group"`
	OnShortage    string      `toml:"on_shortage"`
}

// msDuration is a duration in milliseconds: a number, or a string with a
// unit ("5ms", "2s").
type msDuration struct {
	ms  int64
	set bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (d *msDuration) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return fmt.Errorf("duration %d ms: must not be negative", x)
		}
		d.ms, d.set = x, true
		return nil
	case string:
		ms, err := policy.ParseMillis(x)
		if err != nil {
			return fmt.Errorf("duration %q: want whole milliseconds, optionally with a unit ms, s or m (e.g. 5ms, 2s)", x)
		}
		d.ms, d.set = ms, true
		return nil
	}
	return fmt.Errorf("duration %v: want a number of milliseconds or a string such as \"5ms\"", v)
}

// used reports whether any SCore-D flag was given.
func (s *ScoreDOptions) used() bool {
	return s.Mode != "" || s.Queues != 0 || s.MPL != 0 || s.Quantum != "" || s.SwitchOverhead != "" || s.Preempt != "" || s.QueueMap != "" || len(s.QueueStates) > 0
}

// scoreD returns the SCore-D configuration of the run, or nil when the run
// does not use SCore-D queues.
func (o *runner) scoreD() (*policy.ScoreD, error) {
	var table *scoredConfig
	where := "[scored]"
	if o.Config != "" {
		c, err := o.runConfig()
		if err != nil {
			return nil, err
		}
		table = c.ScoreD
		where = "--config " + o.Config + ": [scored]"
	}
	f := &o.ScoreDOptions
	if table == nil && f.Mode == "" {
		if f.used() {
			return nil, inputf("--queues, --mpl, --quantum, --switch-overhead, --preempt, --queue-map and --queue-state apply to SCore-D queues: give --mode gang or exclusive, or a [scored] table in --config")
		}
		return nil, nil
	}
	if table == nil {
		table = &scoredConfig{}
	}
	mode := policy.Exclusive
	if m := first(f.Mode, table.Mode); m != "" {
		var err error
		if mode, err = policy.ParseQueueMode(m); err != nil {
			return nil, inputf("--mode %q: want gang or exclusive", m)
		}
	}
	n := policy.DefaultQueues
	switch {
	case f.Queues < 0:
		return nil, inputf("--queues %d: want at least 1", f.Queues)
	case table.Queues < 0:
		return nil, inputf("%s queues = %d: want at least 1", where, table.Queues)
	case f.Queues > 0:
		n = f.Queues
	case len(table.QueueTable) > 0:
		n = len(table.QueueTable)
	case table.Queues > 0:
		n = table.Queues
	}
	if len(table.QueueTable) > 0 && n != len(table.QueueTable) {
		return nil, inputf("--queues %d: %s has %d [[scored.queue]] tables", n, o.Config, len(table.QueueTable))
	}
	if n > 1024 {
		return nil, inputf("--queues %d: at most 1024", n)
	}
	cfg := policy.NewScoreD(n, mode)
	for i, qt := range table.QueueTable {
		q := &cfg.Queues[i]
		bad := func(key, val, want string) error {
			return inputf("%s queue %d: %s %q: want %s", where, i, key, val, want)
		}
		q.Name = qt.Name
		if qt.State != "" {
			st, err := policy.ParseQueueState(qt.State)
			if err != nil {
				return nil, bad("state", qt.State, "activated, deactivated or disabled")
			}
			q.State = st
		}
		if qt.Mode != "" && f.Mode == "" {
			m, err := policy.ParseQueueMode(qt.Mode)
			if err != nil {
				return nil, bad("mode", qt.Mode, "gang or exclusive")
			}
			q.Mode = m
		}
		q.MaxCPUSec, q.ResidenceSec = qt.MaxCPU.t, qt.Residence.t
		q.MemPercent, q.DiskPercent = qt.MemoryPercent, qt.DiskPercent
		if qt.Group != nil {
			q.Group = *qt.Group
		}
		switch strings.ToLower(qt.OnShortage) {
		case "", "reject", "refuse":
		case "wait":
			q.Wait = true
		default:
			return nil, bad("on_shortage", qt.OnShortage, "reject or wait")
		}
	}
	cfg.MemKB, cfg.DiskKB, cfg.ProcsPerHost = table.MemoryKB, table.DiskKB, table.PerHost
	if f.MPL != 0 {
		cfg.MPL = f.MPL
	} else if table.MPL != 0 {
		cfg.MPL = table.MPL
	}
	for _, d := range []struct {
		flag, val string
		tbl       msDuration
		dst       *int64
	}{{"quantum", string(f.Quantum), table.Quantum, &cfg.QuantumMs}, {"switch-overhead", string(f.SwitchOverhead), table.Switch, &cfg.SwitchMs}} {
		switch {
		case d.val != "":
			ms, err := policy.ParseMillis(d.val)
			if err != nil {
				return nil, inputf("--%s %q: want whole milliseconds, optionally with a unit ms, s or m (e.g. 5ms, 2s)", d.flag, d.val)
			}
			*d.dst = ms
		case d.tbl.set:
			*d.dst = d.tbl.ms
		}
	}
	// source names where a value came from in errors: the flag, or the
	// [scored] key of --config.
	source := func(flagVal, flag, key string) string {
		if flagVal != "" {
			return flag
		}
		return where + " " + key
	}
	if p := first(f.Preempt, table.Preempt); p != "" {
		pm, err := policy.ParsePreemptMode(p)
		if err != nil {
			return nil, inputf("%s %q: want suspend, requeue, cancel or off", source(f.Preempt, "--preempt", "preempt"), p)
		}
		cfg.Preempt = pm
	}
	if m := first(f.QueueMap, table.QueueMap); m != "" {
		qm, err := policy.ParseQueueMap(m)
		if err != nil {
			return nil, inputf("%s: %v", source(f.QueueMap, "--queue-map", "queue_map"), err)
		}
		cfg.Map = qm
	}
	states := append(append([]string(nil), table.States...), f.QueueStates...)
	for i, s := range states {
		qi, _, _ := strings.Cut(s, "=")
		initial := policy.Activated
		var k int
		if _, err := fmt.Sscan(strings.TrimSpace(qi), &k); err == nil && k >= 0 && k < n {
			initial = cfg.Queues[k].State
		}
		ch, err := policy.ParseQueueChange(s, initial)
		if err != nil {
			if i < len(table.States) {
				return nil, inputf("%s states: %v", where, err)
			}
			return nil, inputf("--queue-state: %v", err)
		}
		cfg.Changes = append(cfg.Changes, ch...)
	}
	if err := cfg.Validate(); err != nil {
		if table != nil {
			// The value may come from the file or from a flag.
			return nil, inputf("%s (or its command-line flags): %v", where, err)
		}
		return nil, &InputError{err}
	}
	return &cfg, nil
}

// scoreDHost completes cfg with what one host of the trace's machine has,
// where the configuration does not say (SPEC §4: the cluster's limits exist
// by default): the memory limit from the header's MaxMemory (KB per host),
// and the processors per host from MaxProcs / MaxNodes when both are given
// and MaxNodes divides MaxProcs (else each processor is a host). path names
// the trace in errors.
func scoreDHost(cfg *policy.ScoreD, h *workload.Header, path string) error {
	if cfg.MemKB == 0 {
		if v := strings.TrimSpace(h.Get("MaxMemory")); v != "" && v != "-1" {
			kb, err := strconv.ParseInt(v, 10, 64)
			if err != nil || kb < 0 || kb > maxHostKB {
				return inputf("%s: header MaxMemory %q: want a whole number of KB (what one host has), or -1 for unknown; or give [scored] memory_kb", path, v)
			}
			cfg.MemKB = kb
		}
	}
	if cfg.ProcsPerHost == 0 && h.MaxProcs > 0 && h.MaxNodes > 0 && h.MaxProcs%h.MaxNodes == 0 {
		cfg.ProcsPerHost = h.MaxProcs / h.MaxNodes
	}
	return nil
}

// scoreDCluster sets up a run of SCore-D's queues on spec, the cluster of
// nodes of --config's [cluster] or --slurm-conf. SCore-D's cluster is a set
// of identical hosts (SPEC §5): every node group must have the same cores,
// memory and speed 1. The hosts give the machine's processors, the
// processors of a host (cfg.ProcsPerHost) and, unless [scored] memory_kb
// sets it, the host's memory (cfg.MemKB, what SCore-D reads with
// sysinfo(2)); node events name the hosts. Partitions, the select type
// and preemption by partition are Slurm's: a description that gives them
// more than one partition, with limits, tiers or sharing, or preemption,
// is refused rather than ignored.
func (o *runner) scoreDCluster(cfg *policy.ScoreD, spec *cluster.Spec) error {
	where := "--slurm-conf " + o.SlurmConf
	if o.SlurmConf == "" {
		where = "--config " + o.Config + ": [cluster]"
	}
	if len(o.members) > 0 {
		return o.scoreDClusters(cfg)
	}
	return scoreDHosts(cfg, spec, where, false, &o.hostCores)
}

// scoreDClusters sets up a run of SCore-D's queues on the cluster of
// clusters of --config's [[clusters]] (SPEC §5): each cluster a set of
// identical hosts as scoreDCluster requires, with a speed of its own
// (its hosts'); the jobs are assigned a cluster at submission
// (sim.ScoreDClusters). [federation] speed_scales_runtime says whether
// run times scale by speed; assign = "start" is refused: SCore-D assigns
// at submission. Each cluster has its own memory limit, what one of its
// hosts has ([scored] memory_kb for every cluster, else its hosts'
// memory_mb), and disk limit ([scored] disk_kb); cfg's become their sums.
// Node events name hosts, so every cluster's hosts must then have the same
// cores.
func (o *runner) scoreDClusters(cfg *policy.ScoreD) error {
	rc, err := o.runConfig()
	if err != nil {
		return err
	}
	c := &sim.ScoreDClusters{ScaleRuntime: true}
	if fc := rc.Federation; fc != nil {
		switch fc.Assign {
		case "", "submission":
		case "start":
			return inputf("--config %s: [federation] assign = \"start\": SCore-D assigns a job its cluster at its submission (SPEC §5), which its queues then hold it in", o.Config)
		default:
			return inputf("--config %s: [federation] assign = %q: want \"submission\" (the default) or \"start\"", o.Config, fc.Assign)
		}
		if fc.SpeedScalesRuntime != nil {
			c.ScaleRuntime = *fc.SpeedScalesRuntime
		}
	}
	memKB, diskKB := cfg.MemKB, cfg.DiskKB
	cfg.MemKB, cfg.DiskKB = 0, 0
	cores := 0
	for i, s := range o.members {
		where := fmt.Sprintf("--config %s: [[clusters]] %d", o.Config, i+1)
		var hc int
		if err := scoreDHosts(cfg, s, where, true, &hc); err != nil {
			return err
		}
		if i == 0 {
			cores = hc
		} else if hc != cores {
			cores = -1
		}
		sp := s.Groups[0].Speed
		if sp == 0 {
			sp = 1
		}
		c.Procs, c.Speed = append(c.Procs, s.Cores()), append(c.Speed, sp)
		mem := memKB
		if mem == 0 {
			mem = s.Groups[0].MemoryMB * 1024
		}
		c.MemKB, c.DiskKB, c.PerHost = append(c.MemKB, mem), append(c.DiskKB, diskKB), append(c.PerHost, hc)
		cfg.MemKB += mem
		cfg.DiskKB += diskKB
	}
	if cores > 0 {
		o.hostCores = cores
		if cfg.ProcsPerHost == 0 {
			cfg.ProcsPerHost = cores
		}
	} else if o.NodeEvents != "" {
		return inputf("--config %s: --node-events names hosts, and the hosts of the [[clusters]] have different cores: give clusters of hosts of the same cores", o.Config)
	}
	o.sdClusters = c
	return nil
}

// scoreDHosts checks that spec is a cluster of identical hosts SCore-D's
// queues can run on (of speed 1, unless anySpeed) and completes cfg from
// its hosts; *cores gets a host's processors. where names spec in errors.
func scoreDHosts(cfg *policy.ScoreD, spec *cluster.Spec, where string, anySpeed bool, cores *int) error {
	if len(spec.Groups) == 0 {
		return inputf("%s: no nodes", where)
	}
	g := spec.Groups[0]
	for _, h := range spec.Groups {
		switch {
		case h.Cores != g.Cores || h.MemoryMB != g.MemoryMB:
			return inputf("%s: SCore-D's queues run on a cluster of identical hosts (SPEC §5): node group %s has %d cores and %d MB, %s %d and %d", where, h.Name, h.Cores, h.MemoryMB, g.Name, g.Cores, g.MemoryMB)
		case anySpeed && h.Speed != g.Speed:
			return inputf("%s: SCore-D's queues run on clusters of identical hosts (SPEC §5): node group %s has speed %g, %s %g", where, h.Name, h.Speed, g.Name, g.Speed)
		case !anySpeed && h.Speed != 0 && h.Speed != 1:
			return inputf("%s: node group %s: speed %g: SCore-D's queues run on a cluster of identical hosts of speed 1", where, h.Name, h.Speed)
		}
	}
	if spec.Preempt != "" {
		return inputf("%s: preemption by partition is Slurm's; SCore-D's queues preempt by queue priority (--preempt)", where)
	}
	if n := len(spec.Partitions); n > 1 {
		return inputf("%s: %d partitions: SCore-D's queues have no partitions (their queues take the jobs, on every host): give one or none", where, n)
	}
	for _, p := range spec.Partitions {
		if p.MaxTime != 0 || p.DefaultTime != 0 || p.PriorityTier != 0 || (p.OverSubscribe != "" && !strings.EqualFold(p.OverSubscribe, "NO")) {
			return inputf("%s: partition %s sets a time limit, a tier or sharing, which are Slurm's: SCore-D's queues bound jobs by their maximum CPU time and share hosts by gang scheduling", where, p.Name)
		}
	}
	*cores = g.Cores
	if anySpeed {
		return nil // the clusters' hosts may differ from one another
	}
	if cfg.ProcsPerHost == 0 {
		cfg.ProcsPerHost = g.Cores
	}
	if cfg.MemKB == 0 && g.MemoryMB > 0 {
		cfg.MemKB = g.MemoryMB * 1024
	}
	return nil
}

// maxHostKB bounds a host's memory (1 EiB), so that a limit times a
// percentage cannot overflow.
const maxHostKB = 1 << 50

// first returns the first non-empty string.
func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// scoredName names a SCore-D run in reports.
func scoredName(c *policy.ScoreD) string {
	modes := make([]string, len(c.Queues))
	for i, q := range c.Queues {
		modes[i] = q.Mode.String()
	}
	s := fmt.Sprintf("scored(queues=%d,mode=%s", len(c.Queues), strings.Join(slices.Compact(modes), "/"))
	gang := false
	for _, q := range c.Queues {
		gang = gang || q.Mode == policy.Gang
	}
	if gang {
		s += fmt.Sprintf(",mpl=%d,quantum=%dms,switch=%dms", c.MPL, c.QuantumMs, c.SwitchMs)
	}
	if len(c.Queues) > 1 {
		s += ",preempt=" + c.Preempt.String()
	}
	return s + ")"
}

// hasFilters reports whether the configuration has HPC Pack filters,
// their settings or job templates: without them its HPC Pack part admits
// every job as it is and notes nothing.
func (c *runConfig) hasFilters() bool {
	return !reflect.ValueOf(c.Filters).IsZero() || c.Licenses != nil || c.Quota != nil || c.RequireRuntime != nil ||
		c.MaxSize != nil || len(c.Programs) > 0 || len(c.Templates) > 0 || len(c.TemplateRules) > 0
}

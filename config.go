package schedsim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/workload"
)

// runConfig is a run configuration file (schedsim run --config FILE), in
// TOML. Today it holds HPC Pack's filters and job templates (SPEC §6); its
// top-level tables are independent, so that later sections (a [cluster]
// description, for one) can join without changing these. Every key is
// documented in the README's "HPC Pack filters" section.
type runConfig struct {
	Filters        filtersConfig             `toml:"filters"`
	Licenses       *licensesConfig           `toml:"licenses"`
	Quota          *quotaConfig              `toml:"quota"`
	RequireRuntime *requireRuntimeConfig     `toml:"require_runtime"`
	MaxSize        *maxSizeConfig            `toml:"max_size"`
	Programs       map[string]programConfig  `toml:"programs"`
	Templates      map[string]templateConfig `toml:"templates"`
	TemplateRules  []templateRuleConfig      `toml:"template_rules"`
	Cluster        *clusterConfig            `toml:"cluster"`
	HPCPack        *hpcpackConfig            `toml:"hpcpack"`
	// Clusters, two or more, form a cluster of clusters (SCore-D).
	Clusters []clusterConfig `toml:"clusters"`
	// Federation is [federation]: how the cluster of clusters assigns
	// jobs and whether speed scales run times.
	Federation *federationConfig `toml:"federation"`
	// ScoreD is [scored]: SCore-D's priority queues (scored.go).
	ScoreD *scoredConfig `toml:"scored"`
	// Reservations, Limits and StartWindows are [[reservation]],
	// [[limit]] and [[start_window]] (constraints.go).
	Reservations []reservationConfig `toml:"reservation"`
	Limits       []limitConfig       `toml:"limit"`
	StartWindows []startWindowConfig `toml:"start_window"`
	// PriorityTiers are [[priority_tier]]: queues' and partitions'
	// PriorityTier (tiers.go).
	PriorityTiers []priorityTierConfig `toml:"priority_tier"`
	// Power is [power]: the nodes' power states (energy.go).
	Power *powerConfig `toml:"power"`
	path  string
}

// clusterConfig is [cluster]: the machine as nodes (SPEC §5), documented in
// the README's "The cluster" section.
type clusterConfig struct {
	Select   string `toml:"select"`
	CRMemory bool   `toml:"cr_memory"`
	// Preempt is Slurm's preemption by partition priority: "suspend",
	// "requeue" or "cancel" ("" or "off": none); PreemptYoungestFirst
	// is preempt_youngest_first.
	Preempt              string            `toml:"preempt"`
	PreemptYoungestFirst bool              `toml:"preempt_youngest_first"`
	Groups               []nodeGroupConfig `toml:"groups"`
	Partitions           []partitionConfig `toml:"partitions"`
}

// federationConfig is [federation], the settings of a cluster of clusters
// ([[clusters]]), documented in the README's cluster section.
type federationConfig struct {
	// Assign is when a job gets its cluster: "submission" (SCore-D, the
	// default) or "start".
	Assign string `toml:"assign"`
	// SpeedScalesRuntime scales a job's run time by the reference speed
	// over its cluster's (schedsim's own model; default true). False:
	// speed only compares loads, as in SCore-D.
	SpeedScalesRuntime *bool `toml:"speed_scales_runtime"`
}

// nodeGroupConfig is one [[cluster.groups]].
type nodeGroupConfig struct {
	Name     string   `toml:"name"`
	Count    int      `toml:"count"`
	Cores    int      `toml:"cores"`
	MemoryMB int64    `toml:"memory_mb"`
	Speed    float64  `toml:"speed"`
	Features []string `toml:"features"`
}

// partitionConfig is one [[cluster.partitions]].
type partitionConfig struct {
	Name          string      `toml:"name"`
	Groups        []string    `toml:"groups"`
	MaxTime       simDuration `toml:"max_time"`
	DefaultTime   simDuration `toml:"default_time"`
	PriorityTier  int         `toml:"priority_tier"`
	OverSubscribe string      `toml:"oversubscribe"`
	Default       bool        `toml:"default"`
	SWF           int         `toml:"swf"`
}

// spec returns the cluster description of [cluster].
func (c *clusterConfig) spec() *cluster.Spec {
	s := &cluster.Spec{Select: c.Select, CRMemory: c.CRMemory, Preempt: strings.ToLower(c.Preempt), PreemptYoungestFirst: c.PreemptYoungestFirst}
	if s.Preempt == "off" {
		s.Preempt = cluster.PreemptOff
	}
	for _, g := range c.Groups {
		s.Groups = append(s.Groups, cluster.NodeGroup{Name: g.Name, Count: g.Count, Cores: g.Cores, MemoryMB: g.MemoryMB, Speed: g.Speed, Features: g.Features})
	}
	for _, p := range c.Partitions {
		s.Partitions = append(s.Partitions, cluster.Partition{Name: p.Name, Groups: p.Groups, MaxTime: p.MaxTime.t, DefaultTime: p.DefaultTime.t,
			PriorityTier: p.PriorityTier, OverSubscribe: strings.ToUpper(p.OverSubscribe), Default: p.Default, SWF: p.SWF})
		// "FORCE:N": N jobs may share a node (YES:N is as YES).
		if pt := &s.Partitions[len(s.Partitions)-1]; strings.Contains(pt.OverSubscribe, ":") {
			mode, count, _ := strings.Cut(pt.OverSubscribe, ":")
			pt.OverSubscribe = mode
			if n, err := strconv.Atoi(count); err == nil && mode == "FORCE" {
				pt.ShareCount = n
			} else if mode == "FORCE" {
				pt.ShareCount = -1 // refused by Validate
			}
		}
	}
	return s
}

// selectOf returns s's node selector, the default spelled out.
func selectOf(s *cluster.Spec) string {
	if s.Select == "" {
		return cluster.SelectLinear
	}
	return s.Select
}

// federation returns the clusters of [[clusters]] and their union as one
// description (their node groups in order, named "cN.GROUP", no
// partitions), which numbers the nodes and cores as the cluster of clusters
// does; nil without [[clusters]].
func (c *runConfig) federation() (union *cluster.Spec, members []*cluster.Spec) {
	if len(c.Clusters) == 0 {
		return nil, nil
	}
	union = &cluster.Spec{}
	for i := range c.Clusters {
		s := c.Clusters[i].spec()
		members = append(members, s)
		union.Select = selectOf(s)
		union.CRMemory = union.CRMemory || s.CRMemory
		for _, g := range s.Groups {
			g.Name = fmt.Sprintf("c%d.%s", i+1, g.Name)
			union.Groups = append(union.Groups, g)
		}
	}
	return union, members
}

// filtersConfig is [filters]: the cluster-wide chains and settings.
type filtersConfig struct {
	Submission  []string     `toml:"submission"`
	Activation  []string     `toml:"activation"`
	Timeout     wallDuration `toml:"timeout"`
	DefaultHold simDuration  `toml:"default_hold"`
	Reevaluate  simDuration  `toml:"reevaluate"`
	Epoch       string       `toml:"epoch"`
}

// licensesConfig is [licenses]: the built-in license pool.
type licensesConfig struct {
	Pool      map[string]int `toml:"pool"`
	WhenShort int            `toml:"when_short"`
}

// quotaConfig is [quota]: the built-in usage quota.
type quotaConfig struct {
	ProcSeconds float64     `toml:"proc_seconds"`
	Window      simDuration `toml:"window"`
}

// requireRuntimeConfig is [require_runtime].
type requireRuntimeConfig struct {
	Runtime  simDuration `toml:"runtime"`
	Template string      `toml:"template"`
}

// maxSizeConfig is [max_size].
type maxSizeConfig struct {
	Procs int `toml:"procs"`
}

// programConfig is [programs.NAME]: a filter program.
type programConfig struct {
	Path    string       `toml:"path"`
	Args    []string     `toml:"args"`
	Timeout wallDuration `toml:"timeout"`
	// Revert is a key that is gone: a program is always called again to
	// undo, as HPC Pack calls every filter that ran. Its presence is an
	// error that says so.
	Revert *bool `toml:"revert"`
}

// templateConfig is [templates.NAME]: a job template.
type templateConfig struct {
	DefaultRuntime simDuration `toml:"default_runtime"`
	MaxRuntime     simDuration `toml:"max_runtime"`
	Priority       *int64      `toml:"priority"`
	Licenses       string      `toml:"licenses"`
	Submission     []string    `toml:"submission"`
	Activation     []string    `toml:"activation"`
}

// templateRuleConfig is one [[template_rules]].
type templateRuleConfig struct {
	Template    string      `toml:"template"`
	MinProcs    int         `toml:"min_procs"`
	MaxProcs    int         `toml:"max_procs"`
	MaxEstimate simDuration `toml:"max_estimate"`
	NoEstimate  bool        `toml:"no_estimate"`
	Users       []int       `toml:"users"`
	Queues      []int       `toml:"queues"`
	Executables []int       `toml:"executables"`
}

// simDuration is a simulated duration: whole seconds, as an integer or a
// string with a unit s, m, h or d ("15m", "1d").
type simDuration struct {
	t   workload.Time
	set bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (d *simDuration) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return fmt.Errorf("duration %d: must not be negative", x)
		}
		d.t, d.set = workload.Time(x), true
		return nil
	case string:
		t, err := policy.ParseDuration(x)
		if err != nil {
			return fmt.Errorf("duration %q: want whole seconds, optionally with a unit s, m, h or d (e.g. 900, \"15m\", \"1d\")", x)
		}
		d.t, d.set = t, true
		return nil
	}
	return fmt.Errorf("duration %v: want a number of seconds or a string such as \"15m\"", v)
}

// wallDuration is a wall-clock duration: seconds as a number, or a Go
// duration string ("15s", "500ms").
type wallDuration struct{ d time.Duration }

// UnmarshalTOML implements toml.Unmarshaler.
func (w *wallDuration) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		w.d = time.Duration(x) * time.Second
	case float64:
		w.d = time.Duration(x * float64(time.Second))
	case string:
		d, err := time.ParseDuration(x)
		if err != nil {
			return fmt.Errorf("duration %q: want seconds or a duration such as \"15s\" or \"500ms\"", x)
		}
		w.d = d
	default:
		return fmt.Errorf("duration %v: want seconds or a duration such as \"15s\"", v)
	}
	if w.d <= 0 {
		return fmt.Errorf("duration %v: must be positive", v)
	}
	return nil
}

// loadRunConfig reads and checks the configuration file at path. Any
// mistake (a key it does not know, a bad value, a filter name that is not
// defined) is a usage error naming the file.
func loadRunConfig(path string) (*runConfig, error) {
	var c runConfig
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, inputf("--config %s: %v", path, err)
	}
	if err := checkTOMLDepth("--config "+path, data); err != nil {
		return nil, err
	}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, inputf("--config %s: line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, inputf("--config %s: %v", path, err)
	}
	var keys []string
	for _, k := range md.Undecoded() {
		// A scenario file may be its own run configuration: its
		// scenario keys are the scenario's (LoadScenario checks them).
		if len(k) == 1 && scenarioKeys[k[0]] {
			continue
		}
		keys = append(keys, k.String())
	}
	if len(keys) > 0 {
		return nil, inputf("--config %s: unknown key %s (see the README's HPC Pack filters section)", path, strings.Join(keys, ", "))
	}
	c.path = path
	if c.Cluster != nil {
		if err := c.Cluster.spec().Validate(); err != nil {
			return nil, c.errorf("[cluster]: %s", strings.TrimPrefix(err.Error(), cluster.ErrSpec.Error()+": "))
		}
	}
	if c.Federation != nil && len(c.Clusters) == 0 {
		return nil, c.errorf("[federation] sets how a cluster of clusters assigns jobs: it needs [[clusters]]")
	}
	if len(c.Clusters) > 0 {
		if c.Cluster != nil {
			return nil, c.errorf("[cluster] and [[clusters]] both describe the machine: give one")
		}
		if len(c.Clusters) < 2 {
			return nil, c.errorf("[[clusters]]: a cluster of clusters needs at least two; use [cluster] for one")
		}
		for i := range c.Clusters {
			s := c.Clusters[i].spec()
			if err := s.Validate(); err != nil {
				return nil, c.errorf("[[clusters]] %d: %s", i+1, strings.TrimPrefix(err.Error(), cluster.ErrSpec.Error()+": "))
			}
			if selectOf(s) != selectOf(c.Clusters[0].spec()) {
				return nil, c.errorf("[[clusters]] %d: select %q: the clusters of a cluster of clusters need one selector", i+1, selectOf(s))
			}
		}
	}
	// Build once to check every name and value; each run builds its own.
	h, err := c.build(nil, time.Time{})
	if err != nil {
		return nil, err
	}
	h.Close()
	return &c, nil
}

// errorf returns a usage error naming the configuration file.
func (c *runConfig) errorf(format string, a ...any) error {
	return inputf("--config %s: %s", c.path, fmt.Sprintf(format, a...))
}

// build makes a fresh HPCPack from the configuration: new filter instances
// (they keep state), program filters writing their standard error to log.
func (c *runConfig) build(log io.Writer, epoch time.Time) (*hpcpack.Model, error) {
	f := c.Filters
	if f.Epoch != "" {
		t, err := time.Parse(time.RFC3339, f.Epoch)
		if err != nil {
			return nil, c.errorf("filters.epoch %q: want an RFC 3339 time such as 2010-02-04T00:00:00Z", f.Epoch)
		}
		epoch = t
	}
	h := &hpcpack.Model{DefaultHold: f.DefaultHold.t, Reevaluate: f.Reevaluate.t, Templates: map[string]*hpcpack.Template{}}
	if f.DefaultHold.set && (f.DefaultHold.t < hpcpack.MinHoldSec || f.DefaultHold.t > hpcpack.MaxHoldSec) {
		return nil, c.errorf("filters.default_hold %d s: must be between %d s and %d s (HPC Pack's limits)", f.DefaultHold.t, hpcpack.MinHoldSec, hpcpack.MaxHoldSec)
	}
	if f.Reevaluate.set && f.Reevaluate.t == 0 {
		return nil, c.errorf("filters.reevaluate: must be positive")
	}
	subs := map[string]hpcpack.SubmissionFilter{}
	acts := map[string]hpcpack.ActivationFilter{}
	if l := c.Licenses; l != nil {
		p := &hpcpack.LicensePool{Total: l.Pool, WhenShort: l.WhenShort}
		if err := p.Validate(); err != nil {
			return nil, c.errorf("[licenses]: %v", err)
		}
		acts[hpcpack.FilterLicenses] = p
	}
	if q := c.Quota; q != nil {
		qf := &hpcpack.Quota{Limit: q.ProcSeconds, Window: q.Window.t}
		if err := qf.Validate(); err != nil {
			return nil, c.errorf("[quota]: %v", err)
		}
		acts[hpcpack.FilterQuota] = qf
	}
	if r := c.RequireRuntime; r != nil {
		if r.Template != "" && !c.hasTemplate(r.Template) {
			return nil, c.errorf("require_runtime.template %q: no such template", r.Template)
		}
		subs[hpcpack.FilterRequireRuntime] = &hpcpack.RequireRuntime{Runtime: r.Runtime.t, Template: r.Template}
	}
	if m := c.MaxSize; m != nil {
		if m.Procs <= 0 {
			return nil, c.errorf("max_size.procs %d: must be positive", m.Procs)
		}
		subs[hpcpack.FilterMaxSize] = &hpcpack.MaxSize{Procs: m.Procs}
	}
	for _, name := range sortedNames(c.Programs) {
		p := c.Programs[name]
		if isBuiltin(name) {
			return nil, c.errorf("programs.%s: %s is the name of a built-in filter", name, name)
		}
		if p.Path == "" {
			return nil, c.errorf("programs.%s.path: the program to run is missing", name)
		}
		if p.Revert != nil {
			return nil, c.errorf("programs.%s.revert: no longer a setting: a program is always called again to undo (SCHEDSIM_FILTER_REVERT=1) when a later filter stops the chain, as HPC Pack calls every filter that ran; a program with nothing to undo exits 0 at once", name)
		}
		timeout := f.Timeout.d
		if p.Timeout.d > 0 {
			timeout = p.Timeout.d
		}
		x := &hpcpack.ExecFilter{FilterName: name, Program: c.programPath(p.Path), Args: p.Args, Timeout: timeout, Epoch: epoch, Log: log}
		subs[name], acts[name] = x, x
	}
	var err error
	if h.Submission, err = c.submissionChain("filters.submission", f.Submission, subs); err != nil {
		return nil, err
	}
	if h.Activation, err = c.activationChain("filters.activation", f.Activation, acts); err != nil {
		return nil, err
	}
	for _, name := range sortedNames(c.Templates) {
		tc := c.Templates[name]
		t := &hpcpack.Template{Name: name, DefaultRun: tc.DefaultRuntime.t, MaxRun: tc.MaxRuntime.t, Licenses: tc.Licenses}
		if tc.Priority != nil {
			t.Priority, t.HasPriority = *tc.Priority, true
		}
		if _, err := hpcpack.ParseLicenses(tc.Licenses); err != nil {
			return nil, c.errorf("templates.%s.licenses: %v", name, err)
		}
		if t.Submission, err = c.submissionChain("templates."+name+".submission", tc.Submission, subs); err != nil {
			return nil, err
		}
		if t.Activation, err = c.activationChain("templates."+name+".activation", tc.Activation, acts); err != nil {
			return nil, err
		}
		h.Templates[name] = t
	}
	for k, rc := range c.TemplateRules {
		if rc.Template == "" {
			return nil, c.errorf("template_rules[%d]: template is missing", k)
		}
		h.Rules = append(h.Rules, hpcpack.TemplateRule{Template: rc.Template, MinProcs: rc.MinProcs, MaxProcs: rc.MaxProcs,
			MaxEstimate: rc.MaxEstimate.t, NoEstimate: rc.NoEstimate, Users: rc.Users, Queues: rc.Queues, Executables: rc.Executables})
	}
	if err := h.Validate(); err != nil {
		return nil, c.errorf("%v", strings.TrimPrefix(err.Error(), "policy: "))
	}
	return h, nil
}

func (c *runConfig) hasTemplate(name string) bool {
	_, ok := c.Templates[name]
	return ok
}

func isBuiltin(name string) bool {
	switch name {
	case hpcpack.FilterLicenses, hpcpack.FilterQuota, hpcpack.FilterRequireRuntime, hpcpack.FilterMaxSize:
		return true
	}
	return false
}

// submissionChain resolves a list of submission filter names.
func (c *runConfig) submissionChain(key string, names []string, subs map[string]hpcpack.SubmissionFilter) ([]hpcpack.SubmissionFilter, error) {
	var out []hpcpack.SubmissionFilter
	for _, n := range names {
		f, ok := subs[n]
		if !ok {
			return nil, c.errorf("%s: %q is not a submission filter (built-in: %s, %s, each needing its own section; or a [programs.%s] section)", key, n, hpcpack.FilterRequireRuntime, hpcpack.FilterMaxSize, n)
		}
		out = append(out, f)
	}
	return out, nil
}

// activationChain resolves a list of activation filter names.
func (c *runConfig) activationChain(key string, names []string, acts map[string]hpcpack.ActivationFilter) ([]hpcpack.ActivationFilter, error) {
	var out []hpcpack.ActivationFilter
	for _, n := range names {
		f, ok := acts[n]
		if !ok {
			return nil, c.errorf("%s: %q is not an activation filter (built-in: %s, %s, each needing its own section; or a [programs.%s] section)", key, n, hpcpack.FilterLicenses, hpcpack.FilterQuota, n)
		}
		out = append(out, f)
	}
	return out, nil
}

// programPath resolves a [programs.NAME] path: a relative path with a
// slash ("filters/check.sh", "./check.sh") is relative to the directory of
// the configuration file, wherever schedsim runs; a bare name ("check.sh",
// "python3") is looked up in PATH when called, as a shell does; an absolute
// path stays. The result keeps a slash, so that it is never looked up in
// PATH.
func (c *runConfig) programPath(p string) string {
	if filepath.IsAbs(p) || !strings.ContainsAny(p, "/"+string(filepath.Separator)) {
		return p
	}
	q := filepath.Join(filepath.Dir(c.path), p)
	if !strings.ContainsRune(q, filepath.Separator) {
		q = "." + string(filepath.Separator) + q
	}
	return q
}

func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// traceEpoch returns the wall-clock instant of a trace's time 0: its
// header's UnixStartTime, else the Unix epoch.
func traceEpoch(h *workload.Header) time.Time {
	if s := h.Get("UnixStartTime"); s != "" {
		if n, err := strconv.ParseInt(strings.Fields(s)[0], 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	return time.Unix(0, 0).UTC()
}

// stderrLog is the log of filter programs' standard error when a run has
// no --out directory: the process's standard error, shared by parallel
// runs a line at a time.
var stderrLog = &hpcpack.SyncWriter{W: os.Stderr}

package schedsim

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/external"
	"github.com/schedsim/schedsim/policy/slurmconf"
	"github.com/schedsim/schedsim/workload"
)

// readSlurmConf reads --slurm-conf; a bad file is a usage error, and the
// keys schedsim does not model are listed on standard error.
func (o *runner) readSlurmConf() (*slurmconf.Conf, error) {
	sc, err := slurmconf.Read(o.SlurmConf)
	if err != nil {
		return nil, inputf("--slurm-conf: %v", err)
	}
	return sc, nil
}

// clusterSpec returns the cluster description of the run: --config's
// [cluster] table or --slurm-conf; nil for the single processor pool. Its
// partitions (and those of a cluster of clusters' members) get the trace's
// partition numbers from --partition-map and the header h (mapPartitions).
func (o *runner) clusterSpec(h *workload.Header) (*cluster.Spec, error) {
	spec, err := o.clusterSpecOnly()
	if err != nil || spec == nil {
		return spec, err
	}
	// The partitions' time limits are seconds; the selectors count them
	// in the run's ticks.
	tick, err := o.ticks()
	if err != nil {
		return nil, err
	}
	spec.Tick = workload.Time(tick)
	for _, m := range o.members {
		m.Tick = workload.Time(tick)
	}
	explicit, err := parsePartitionMap(o.PartitionMap)
	if err != nil {
		return nil, err
	}
	specs := o.members
	if len(specs) == 0 {
		specs = []*cluster.Spec{spec}
	}
	used := map[string]bool{}
	for _, s := range specs {
		mapPartitions(s, h, explicit, used)
		o.notes = append(o.notes, overSubscribeNotes(s)...)
	}
	for _, name := range slices.Sorted(maps.Keys(explicit)) {
		if !used[name] {
			return nil, inputf("--partition-map: the cluster description has no partition %q", name)
		}
	}
	return spec, nil
}

// partitionTiers returns the PriorityTier of the partition each job goes
// to, or nil when s's partitions all have one tier (ranking by it would
// change nothing).
func partitionTiers(s *cluster.Spec) func(j *workload.Job) int {
	route := s.Router()
	if route == nil {
		return nil
	}
	same := true
	for _, p := range s.Partitions {
		same = same && p.PriorityTier == s.Partitions[0].PriorityTier
	}
	if same {
		return nil
	}
	tiers := make([]int, len(s.Partitions))
	for i, p := range s.Partitions {
		tiers[i] = p.PriorityTier
	}
	return func(j *workload.Job) int { return tiers[route(j.Partition)] }
}

// overSubscribeNotes says which partitions of s ask for an OverSubscribe
// schedsim does not model, or that changes nothing. NO is the default; YES
// shares a node only with jobs that ask for it (sbatch --oversubscribe),
// which no trace records, so it schedules as NO; EXCLUSIVE gives whole
// nodes, which select/linear always does and cluster.ConsRes does for its
// jobs. FORCE shares nodes under linear (Spec.ShareCaps), but only nodes
// that no partition without FORCE holds; under cons_res it is not
// modelled: the jobs run as under NO.
func overSubscribeNotes(s *cluster.Spec) []string {
	var out []string
	caps := s.ShareCaps()
	groupAt := map[string]int{}
	n := 0
	for _, g := range s.Groups {
		groupAt[g.Name] = n
		n += g.Count
	}
	for _, p := range s.Partitions {
		if p.OverSubscribe != "FORCE" {
			continue
		}
		if s.Select == cluster.SelectConsRes {
			out = append(out, fmt.Sprintf("partition %s: OverSubscribe=FORCE (cores shared by several jobs at once) is not modelled under cons_res: its jobs do not share cores", p.Name))
			continue
		}
		shares := false
		for _, gname := range p.Groups {
			for _, g := range s.Groups {
				if g.Name == gname && caps != nil && caps[groupAt[gname]] > 1 {
					shares = true
				}
			}
		}
		if !shares {
			out = append(out, fmt.Sprintf("partition %s: OverSubscribe=FORCE shares no node: each of its nodes is also in a partition without FORCE (or FORCE:1), and schedsim runs such a node one job at a time", p.Name))
		}
	}
	return out
}

// parsePartitionMap parses --partition-map: NAME=N pairs, comma-separated,
// N ≥ 1.
func parsePartitionMap(s string) (map[string]int, error) {
	out := map[string]int{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, num, ok := strings.Cut(item, "=")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		name = strings.TrimSpace(name)
		if !ok || name == "" || err != nil || n < 1 {
			return nil, inputf("--partition-map %q: want NAME=N pairs (a partition name and an SWF partition number ≥ 1), comma-separated, e.g. batch=1,debug=4", item)
		}
		if _, dup := out[name]; dup {
			return nil, inputf("--partition-map: partition %q given twice", name)
		}
		out[name] = n
	}
	return out, nil
}

// mapPartitions gives the partitions of s their SWF partition numbers
// (cluster.Partition.SWF): explicit's (--partition-map), else their own
// (the [cluster] table's swf key), else the number the trace header's
// Partition lines give their name ("; Partition: 4 batch", as the Parallel
// Workloads Archive and schedsim's sacct reader write them). A partition
// still without one keeps its position, from 1, when the header names
// none of s's partitions; when it names some, the others get no number
// (−1): they receive only the jobs routed to the default partition. used
// collects the names of explicit found.
func mapPartitions(s *cluster.Spec, h *workload.Header, explicit map[string]int, used map[string]bool) {
	var named map[string]int64
	if h != nil {
		named = h.Numbers("Partition")
	}
	byHeader := false
	for _, p := range s.Partitions {
		if _, ok := named[p.Name]; ok {
			byHeader = true
		}
	}
	for i := range s.Partitions {
		p := &s.Partitions[i]
		if n, ok := explicit[p.Name]; ok {
			p.SWF, used[p.Name] = n, true
			continue
		}
		if p.SWF != 0 || !byHeader {
			continue
		}
		if n, ok := named[p.Name]; ok && n >= 1 && n <= math.MaxInt32 {
			p.SWF = int(n)
		} else {
			p.SWF = -1
		}
	}
}

// clusterSpecOnly returns the cluster description of --config or
// --slurm-conf, its partitions numbered as written.
func (o *runner) clusterSpecOnly() (*cluster.Spec, error) {
	var spec *cluster.Spec
	if o.Config != "" {
		cfg, err := o.runConfig()
		if err != nil {
			return nil, err
		}
		if cfg.Cluster != nil {
			spec = cfg.Cluster.spec()
		}
		if len(cfg.Clusters) > 0 {
			spec, o.members = cfg.federation()
		}
	}
	if o.SlurmConf != "" {
		if spec != nil {
			table := "a [cluster] table"
			if len(o.members) > 0 {
				table = "[[clusters]] tables" // name what the user wrote
			}
			return nil, inputf("--slurm-conf and %s in --config both describe the machine: give one", table)
		}
		sc, err := o.readSlurmConf()
		if err != nil {
			return nil, err
		}
		if len(sc.Unknown) > 0 {
			o.warnf("schedsim: %s: not modelled: %s\n", o.SlurmConf, strings.Join(sc.Unknown, "; "))
		}
		spec = sc.Spec
	}
	if spec != nil && o.Procs != 0 {
		return nil, inputf("--procs: the cluster description sets the machine (%d processors)", spec.Cores())
	}
	return spec, nil
}

// allocator returns the node selector of spec for pol. The policy must ask
// policy.Fitter before starting a job: FCFS, EASY, a reservation depth,
// conservative backfilling and Slurm's backfill, in any priority order
// (policy.Ordered hands its inner policy a Fitter view).
func (o *runner) allocator(spec *cluster.Spec, pol policy.Policy) (cluster.Allocator, error) {
	bad := inputf("a cluster of nodes needs --backfill off, easy (any reservation depth), conservative or slurm, not %s", pol.Name())
	if p, ok := pol.(*policy.Ordered); ok {
		pol = p.Inner
	}
	switch pol.(type) {
	case policy.FCFS, *policy.EASY, *policy.Depth, *policy.Conservative, *policy.Slurm:
	case *external.Policy: // it asks where a job fits (the protocol's ask)
	default:
		return nil, bad
	}
	if len(o.members) > 0 {
		ms := make([]cluster.FederationMember, len(o.members))
		for i, s := range o.members {
			m, err := cluster.MemberOf(s)
			if err != nil {
				return nil, &InputError{err}
			}
			ms[i] = m
		}
		f := cluster.NewFederation(ms)
		cfg, err := o.runConfig()
		if err != nil {
			return nil, err
		}
		if fc := cfg.Federation; fc != nil {
			switch fc.Assign {
			case "", "submission":
			case "start":
				f.AtStart = true
			default:
				return nil, inputf("--config %s: [federation] assign = %q: want \"submission\" (the default) or \"start\"", o.Config, fc.Assign)
			}
			if fc.SpeedScalesRuntime != nil {
				f.NoSpeedScaling = !*fc.SpeedScalesRuntime
			}
		}
		return f, nil
	}
	al, err := spec.NewAllocator()
	if err != nil {
		return nil, &InputError{err}
	}
	return al, nil
}

// mergeSlurmParams returns the flags' parameters with every one they leave
// unset taken from slurm.conf.
func mergeSlurmParams(flags, conf policy.SlurmParams) policy.SlurmParams {
	if flags.Interval == 0 {
		flags.Interval = conf.Interval
	}
	if flags.MaxJobTest == 0 {
		flags.MaxJobTest = conf.MaxJobTest
	}
	if flags.Window == 0 {
		flags.Window = conf.Window
	}
	if flags.Resolution == 0 {
		flags.Resolution = conf.Resolution
	}
	if flags.QueueDepth == 0 {
		flags.QueueDepth = conf.QueueDepth
	}
	flags.Continue = flags.Continue || conf.Continue
	if flags.WindowLinear == 0 {
		flags.WindowLinear = conf.WindowLinear
	}
	return flags
}

// warnf writes a warning line to o.opt.Warn, else to standard error.
func (o *runner) warnf(format string, a ...any) {
	w := o.opt.Warn
	if w == nil {
		w = stderrLog
	}
	fmt.Fprintf(w, format, a...)
}

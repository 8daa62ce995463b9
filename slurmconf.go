package schedsim

import (
	"fmt"
	"strings"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/slurmconf"
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
// [cluster] table or --slurm-conf; nil for the single processor pool.
func (o *runner) clusterSpec() (*cluster.Spec, error) {
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
			return nil, inputf("--slurm-conf and a [cluster] table in --config both describe the machine: give one")
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
// policy.Fitter before starting a job: FCFS, EASY, a reservation depth and
// Slurm's backfill, in any priority order (policy.Ordered hands its inner
// policy a Fitter view).
func (o *runner) allocator(spec *cluster.Spec, pol policy.Policy) (cluster.Allocator, error) {
	bad := inputf("a cluster of nodes needs --backfill off, easy (any reservation depth) or slurm, not %s", pol.Name())
	if p, ok := pol.(*policy.Ordered); ok {
		pol = p.Inner
	}
	switch pol.(type) {
	case policy.FCFS, *policy.EASY, *policy.Depth, *policy.Slurm:
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
		return cluster.NewFederation(ms), nil
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

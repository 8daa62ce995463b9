package main

import (
	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
)

// hpcpackConfig is [hpcpack]: HPC Pack's job model with minimum and
// maximum resources (sim.Grow), documented in the README's HPC Pack
// section.
type hpcpackConfig struct {
	// Grow starts jobs on their minimum and grows running jobs toward
	// their maximum.
	Grow bool `toml:"grow"`
	// Speedup is the run-time model: linear or amdahl:F.
	Speedup string `toml:"speedup"`
}

// growOptions are the --grow and --speedup flags.
type growOptions struct {
	grow    bool
	speedup string
}

func (g *growOptions) register(fs *pflag.FlagSet) {
	fs.BoolVar(&g.grow, "grow", false, "HPC Pack's min/max job model: a job with min_procs/max_procs (Parquet, job XML MinCores/MaxCores) starts on its minimum and running jobs grow toward their maximum before backfilling, each growth passing the activation filters (also [hpcpack] grow = true in --config); not with --backfill conservative or slurm, --estimates, --node-events, --mode, or a cluster of nodes")
	fs.StringVar(&g.speedup, "speedup", "", "with --grow, the run time on a changed processor count, relative to the trace's run time on its own count: linear (default) or amdahl:F with serial fraction F, e.g. amdahl:0.1 (also [hpcpack] speedup in --config)")
}

// growSettings returns the growth of the run (flags over [hpcpack] of
// cfg, which may be nil), or nil when it is off.
func (o *runOptions) growSettings(cfg *runConfig) (*sim.Grow, error) {
	on, model := o.growth.grow, o.growth.speedup
	if cfg != nil && cfg.HPCPack != nil {
		on = on || cfg.HPCPack.Grow
		if model == "" {
			model = cfg.HPCPack.Speedup
		}
	}
	if !on {
		if model != "" {
			return nil, usagef("--speedup %s: needs --grow (or [hpcpack] grow = true)", model)
		}
		return nil, nil
	}
	m, err := policy.ParseSpeedup(model)
	if err != nil {
		return nil, usagef("--speedup: %v", err)
	}
	return &sim.Grow{Speedup: m}, nil
}

// checkGrowPolicy rejects the policies that never grow running jobs: those
// that plan ahead with fixed processor counts.
func checkGrowPolicy(p policy.Policy) error {
	inner := p
	if o, ok := p.(*policy.Ordered); ok {
		inner = o.Inner
	}
	switch inner.(type) {
	case *policy.Conservative, *policy.Slurm:
		return usagef("--grow: %s does not grow running jobs (use --backfill off or easy)", p.Name())
	}
	return nil
}

// growConfig returns the run's growth for policy p (nil when off).
func (o *runOptions) growConfig(p policy.Policy) (*sim.Grow, error) {
	var cfg *runConfig
	if o.config != "" {
		var err error
		if cfg, err = loadRunConfig(o.config); err != nil {
			return nil, err
		}
	}
	g, err := o.growSettings(cfg)
	if g == nil || err != nil {
		return nil, err
	}
	return g, checkGrowPolicy(p)
}

// checkGrowWith refuses, in the command line's terms, the options growth
// cannot be combined with yet (sim.New refuses them too, in Go's terms).
func checkGrowWith(cfg sim.Config) error {
	if cfg.Grow == nil {
		return nil
	}
	switch {
	case len(cfg.NodeEvents) > 0:
		return usagef("--grow cannot be combined with --node-events yet")
	case cfg.Estimator != nil:
		return usagef("--grow cannot be combined with --estimates yet (growth converts the requested time itself)")
	case cfg.Allocator != nil:
		return usagef("--grow cannot be combined with a cluster of nodes ([cluster], [[clusters]], --slurm-conf) yet: jobs grow on the processor pool")
	}
	return nil
}

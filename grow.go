package schedsim

import (
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

// growSettings returns the growth of the run (flags over [hpcpack] of
// cfg, which may be nil), or nil when it is off.
func (o *runner) growSettings(cfg *runConfig) (*sim.Grow, error) {
	on, model := o.Grow, o.Speedup
	if cfg != nil && cfg.HPCPack != nil {
		on = on || cfg.HPCPack.Grow
		if model == "" {
			model = cfg.HPCPack.Speedup
		}
	}
	if !on {
		if model != "" {
			return nil, inputf("--speedup %s: needs --grow (or [hpcpack] grow = true)", model)
		}
		return nil, nil
	}
	m, err := policy.ParseSpeedup(model)
	if err != nil {
		return nil, inputf("--speedup: %v", err)
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
		return inputf("--grow: %s does not grow running jobs (use --backfill off or easy)", p.Name())
	}
	return nil
}

// growConfig returns the run's growth for policy p (nil when off).
func (o *runner) growConfig(p policy.Policy) (*sim.Grow, error) {
	var cfg *runConfig
	if o.Config != "" {
		var err error
		if cfg, err = loadRunConfig(o.Config); err != nil {
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
		return inputf("--grow cannot be combined with --node-events yet")
	case cfg.Estimator != nil:
		return inputf("--grow cannot be combined with --estimates yet (growth converts the requested time itself)")
	case cfg.Allocator != nil:
		return inputf("--grow cannot be combined with a cluster of nodes ([cluster], [[clusters]], --slurm-conf) yet: jobs grow on the processor pool")
	}
	return nil
}

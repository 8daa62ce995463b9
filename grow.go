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

// growConfig returns the run's growth for policy p (nil when off).
func (o *runner) growConfig(p policy.Policy) (*sim.Grow, error) {
	var cfg *runConfig
	if o.Config != "" {
		var err error
		if cfg, err = o.runConfig(); err != nil {
			return nil, err
		}
	}
	return o.growSettings(cfg)
}

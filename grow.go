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
	// Mode is HPC Pack's scheduling mode: "queued" (the default) or
	// "balanced" (sim.Grow.Balanced).
	Mode string `toml:"mode"`
}

// growSettings returns the growth of the run (flags over [hpcpack] of
// cfg, which may be nil), or nil when it is off.
func (o *runner) growSettings(cfg *runConfig) (*sim.Grow, error) {
	on, model, mode := o.Grow, o.Speedup, ""
	if cfg != nil && cfg.HPCPack != nil {
		on = on || cfg.HPCPack.Grow
		if model == "" {
			model = cfg.HPCPack.Speedup
		}
		mode = cfg.HPCPack.Mode
	}
	balanced := false
	switch mode {
	case "", "queued":
	case "balanced":
		balanced = true
	default:
		return nil, inputf("--config %s: [hpcpack] mode = %q: want \"queued\" (the default) or \"balanced\"", o.Config, mode)
	}
	if !on {
		if model != "" {
			return nil, inputf("--speedup %s: needs --grow (or [hpcpack] grow = true)", model)
		}
		if balanced {
			return nil, inputf("--config %s: [hpcpack] mode = \"balanced\" shares out the processors above the jobs' minimums: it needs --grow (or [hpcpack] grow = true)", o.Config)
		}
		return nil, nil
	}
	m, err := policy.ParseSpeedup(model)
	if err != nil {
		return nil, inputf("--speedup: %v", err)
	}
	return &sim.Grow{Speedup: m, Balanced: balanced}, nil
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

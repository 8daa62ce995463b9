package main

import (
	"context"
	"fmt"
	"io"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/workload"
)

const generateUsage = `Usage: schedsim generate --jobs N --procs P --out FILE [options]

Generates a synthetic workload with the Lublin-Feitelson model (JPDC 63(11),
2003): job sizes with an emphasis on powers of two, run times from a
hyper-gamma distribution that depends on the size, arrivals following a daily
cycle. The same options and seed give the same file.

--load sets the offered load (sum of procs x run time over procs x span) by
scaling the inter-arrival times; runtime estimates are the run time times a
factor uniform in [1, --estimate-factor], rounded up to --estimate-round s.

FILE's name says the format: .swf, .swf.gz (or .gz) or .parquet. Jobs are
streamed to it, so memory stays constant however many jobs; it is written to
a temporary file and renamed when complete.

Examples:
  schedsim generate --jobs 10000 --procs 256 --load 0.8 --out lublin.swf
  schedsim generate --jobs 10000000 --procs 4096 --load 0.9 --seed 7 --out big.swf.gz
  schedsim generate --jobs 2000 --procs 128 --load 0.9 --seed 2003 --estimate-round 60 --out sample.parquet
`

func cmdGenerate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg workload.GenConfig
	var model, out string
	fs := newFlagSet("generate", generateUsage, stdout)
	fs.IntVar(&cfg.Jobs, "jobs", 0, "number of jobs (required)")
	fs.IntVar(&cfg.Procs, "procs", 0, "machine size in processors; no job is larger (required)")
	fs.Float64Var(&cfg.Load, "load", 0, "target offered load, e.g. 0.9 (0: the model's own arrival rate)")
	fs.Int64Var(&cfg.Seed, "seed", 1, "random seed")
	fs.StringVar(&model, "model", "all", "parameter set of the model: all, batch or interactive")
	fs.Float64Var(&cfg.EstimateFactorMax, "estimate-factor", workload.DefaultEstimateFactorMax, "runtime estimates are run time x U[1, this]; 1 gives exact estimates")
	fs.Int64Var(&cfg.EstimateRoundSec, "estimate-round", 1, "round estimates up to a multiple of this many seconds")
	fs.StringVar(&out, "out", "", "output file: .swf, .swf.gz or .parquet (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if cfg.Model = workload.LublinByName(model); cfg.Model == nil {
		return usagef("--model %q: want all, batch or interactive", model)
	}
	switch {
	case out == "":
		return usagef("--out FILE is required (see schedsim generate --help)")
	case cfg.Jobs <= 0:
		return usagef("--jobs %d: want a number of jobs ≥ 1", cfg.Jobs)
	case cfg.Procs <= 0:
		return usagef("--procs %d: want a machine size ≥ 1", cfg.Procs)
	case cfg.Load < 0:
		return usagef("--load %v: want 0 (the model's rate) or a positive target", cfg.Load)
	}
	format, err := schedsim.TraceFormat(out)
	if err != nil || format == workload.FormatBatsim {
		return usagef("output %q: name it .swf, .swf.gz or .parquet to say its format", out)
	}
	if err := workload.Generate(workload.GenConfig{Jobs: 0, Procs: cfg.Procs, Load: cfg.Load, Model: cfg.Model,
		EstimateFactorMax: cfg.EstimateFactorMax, EstimateRoundSec: cfg.EstimateRoundSec}, nil); err != nil {
		return usageError{err}
	}
	if err := schedsim.GenerateTrace(ctx, cfg, out, format, func() { ready(ctx, "generate:job") }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "generated %d jobs on %d processors into %s\n", cfg.Jobs, cfg.Procs, out)
	return nil
}

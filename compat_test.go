package schedsim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
)

// withFeature sets up feature f in sc and opt; config gathers the run
// configuration file's tables.
func withFeature(t *testing.T, dir string, f Feature, sc *Scenario, opt *Options, config *strings.Builder) {
	t.Helper()
	switch f {
	case FeatureScoreD:
		sc.Mode = "gang"
	case FeatureNodes:
		config.WriteString("[cluster]\nselect = \"linear\"\n[[cluster.groups]]\nname = \"n\"\ncount = 256\ncores = 1\n")
	case FeatureClusters:
		config.WriteString("[[clusters]]\n[[clusters.groups]]\nname = \"a\"\ncount = 128\ncores = 1\n[[clusters]]\n[[clusters.groups]]\nname = \"b\"\ncount = 128\ncores = 1\n")
	case FeatureNodeEvents:
		sc.NodeEvents = writeFile(t, dir, "events.txt", "100 DOWN 1\n")
	case FeatureCheckpoint:
		opt.Checkpoint = filepath.Join(dir, "run.ckpt")
	case FeatureEstimates:
		sc.Estimates = "perfect"
	case FeatureGrow:
		sc.Grow = true
	case FeatureFilters:
		config.WriteString("[max_size]\nprocs = 64\n")
	case FeatureActivation:
		config.WriteString("[licenses]\npool = { fluent = 4 }\n[filters]\nactivation = [\"licenses\"]\n")
	case FeatureParquetOut:
		sc.Format, sc.Out = "parquet", filepath.Join(dir, "out")
	case FeatureConservative:
		sc.Backfill = "conservative"
	case FeatureSlurm:
		sc.Backfill = "slurm"
	case FeatureOrder:
		sc.Order = "sjf"
	case FeatureDepth:
		sc.ReservationDepth = "2"
	case FeatureSJBF:
		sc.SJBF = true
	case FeatureExternal:
		sc.PolicyExec = "python3 policy/external/python/examples/easy.py"
	case FeatureClosedLoop:
		sc.ClosedLoop = true
	case FeatureCalendar:
		config.WriteString("[[reservation]]\nname = \"drain\"\nstart = \"1d\"\nduration = \"1h\"\nrecur = \"daily\"\n[[limit]]\nusers = [\"*\"]\nmax_jobs_per_user = 8\n")
	case FeatureTiers:
		config.WriteString("[[priority_tier]]\nqueue = 1\ntier = 2\n")
	case FeatureImmediate:
		sc.ImmediateQueues = "1"
	case FeatureHolds:
		sc.Holds = writeFile(t, dir, "holds.txt", "5 100000\n")
	case FeatureLatency:
		sc.SubmitLatency = "15s"
	case FeatureShared:
		sc.SharedQueues = "2" // not the immediate queue
	case FeatureCycle:
		sc.SchedInterval = "60"
	case FeaturePower:
		config.WriteString("[[power.groups]]\ncount = 256\ncores = 1\nwatts = [\"95:190\"]\n")
	case FeatureTimeUnit:
		sc.TimeUnit = "ms"
	case FeatureSwitching:
		sc.PowerPolicy = "idle:10m"
	case FeatureSwitchPlan:
		sc.PowerPolicy = "plan"
	case FeaturePlots:
		sc.Plots, sc.Out = true, filepath.Join(dir, "out")
	case FeaturePreempt:
		sc.SlurmConf = writeFile(t, dir, "slurm.conf", "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\nNodeName=n[1-256] CPUs=1\n"+
			"PartitionName=low Nodes=ALL Default=YES\nPartitionName=high Nodes=ALL PriorityTier=2\n")
	default:
		t.Fatalf("no setup for feature %q", f)
	}
}

// TestCombinations runs every refused pair of Combinations and expects the
// one refusal, with the pair's reason, before anything runs.
func TestCombinations(t *testing.T) {
	for _, c := range Combinations {
		t.Run(string(c.A)+"+"+string(c.B), func(t *testing.T) {
			dir := t.TempDir()
			sc, opt := Default(), Options{}
			var config strings.Builder
			withFeature(t, dir, c.A, &sc, &opt, &config)
			withFeature(t, dir, c.B, &sc, &opt, &config)
			if config.Len() > 0 {
				sc.Config = writeFile(t, dir, "config.toml", config.String())
			}
			_, err := Run(context.Background(), &sc, opt)
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.Reason) {
				t.Fatalf("error %v, want an InputError with %q", err, c.Reason)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Error("a refused run wrote its output directory")
			}
		})
	}
}

// TestCombinationsRun: each feature alone runs on the embedded sample (the
// table refuses only pairs).
func TestCombinationsRun(t *testing.T) {
	for _, f := range []Feature{FeatureScoreD, FeatureNodes, FeatureNodeEvents, FeatureCheckpoint, FeatureEstimates,
		FeatureGrow, FeatureFilters, FeatureActivation, FeatureConservative, FeatureSlurm, FeatureOrder, FeatureDepth, FeatureSJBF,
		FeatureCalendar, FeatureCycle, FeaturePreempt, FeatureImmediate, FeatureHolds, FeatureLatency, FeatureShared} {
		t.Run(string(f), func(t *testing.T) {
			dir := t.TempDir()
			sc, opt := Default(), Options{}
			var config strings.Builder
			withFeature(t, dir, f, &sc, &opt, &config)
			if config.Len() > 0 {
				sc.Config = writeFile(t, dir, "config.toml", config.String())
			}
			if _, err := Run(context.Background(), &sc, opt); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCombinationsPairs: every pair of features that Combinations does
// not refuse runs on the embedded sample, as the README says ("every option
// combines with every other, except the pairs below"). A pair is left out
// when a feature's setup already refuses it through a feature it implies
// (HPC Pack's activation filters are filters; a cluster of clusters and
// Slurm's preemption are clusters of nodes), or when both describe the
// machine (a [cluster], [[clusters]] or a slurm.conf: one at a time). A
// finer time unit (a Batsim workload) and switching nodes off (a power
// model with sleep states) need setups of their own, and are tested with
// the other features in their own tests. Under CI every pair runs; an
// everyday go test runs every third.
func TestCombinationsPairs(t *testing.T) {
	all := []Feature{FeatureScoreD, FeatureNodes, FeatureClusters, FeatureNodeEvents, FeatureCheckpoint, FeatureEstimates, FeatureGrow, FeatureFilters,
		FeatureActivation, FeatureParquetOut, FeatureConservative, FeatureSlurm, FeatureOrder, FeatureDepth, FeatureSJBF, FeatureExternal,
		FeatureClosedLoop, FeatureCalendar, FeatureCycle, FeaturePower, FeaturePlots, FeaturePreempt, FeatureTiers, FeatureImmediate,
		FeatureHolds, FeatureLatency, FeatureShared}
	implied := map[Feature][]Feature{FeatureActivation: {FeatureFilters}, FeatureClusters: {FeatureNodes}, FeaturePreempt: {FeatureNodes}}
	machine := map[Feature]bool{FeatureNodes: true, FeatureClusters: true, FeaturePreempt: true}
	refused := func(a, b Feature) bool {
		for _, x := range append([]Feature{a}, implied[a]...) {
			for _, y := range append([]Feature{b}, implied[b]...) {
				if x == y || slices.ContainsFunc(Combinations, func(c Combination) bool { return (c.A == x && c.B == y) || (c.A == y && c.B == x) }) {
					return true
				}
			}
		}
		return false
	}
	n := 0
	for i, a := range all {
		for _, b := range all[i+1:] {
			if refused(a, b) || (machine[a] && machine[b]) {
				continue
			}
			if n++; !simtest.Full() && n%3 != 0 {
				continue
			}
			t.Run(string(a)+"+"+string(b), func(t *testing.T) {
				dir := t.TempDir()
				sc, opt := Default(), Options{Warn: &strings.Builder{}}
				var config strings.Builder
				withFeature(t, dir, a, &sc, &opt, &config)
				withFeature(t, dir, b, &sc, &opt, &config)
				if config.Len() > 0 {
					sc.Config = writeFile(t, dir, "config.toml", config.String())
				}
				if _, err := Run(context.Background(), &sc, opt); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestCombinationsREADME: the README's table is Combinations.
func TestCombinationsREADME(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), CombinationsTable()) {
		t.Errorf("README.md lacks the table of refused combinations; it is:\n%s", CombinationsTable())
	}
}

// countEvents counts the events of every kind.
type countEvents int

func (c *countEvents) Wants() sim.Wants   { return sim.Wants{Kinds: sim.AllKinds} }
func (c *countEvents) Observe(*sim.Event) { *c++ }

// TestEventsChangeNothing: observing all of a run's events leaves every
// output as it was.
func TestEventsChangeNothing(t *testing.T) {
	dir := t.TempDir()
	var outs [2]string
	for i, ev := range []*countEvents{nil, new(countEvents)} {
		sc := Default()
		sc.Out, sc.Plots = filepath.Join(dir, fmt.Sprint(i)), false
		var opt Options
		if ev != nil {
			opt.Observers = []sim.Observer{ev}
		}
		if _, err := Run(context.Background(), &sc, opt); err != nil {
			t.Fatal(err)
		}
		if ev != nil && *ev < 2000*4 {
			t.Errorf("%d events of a run of 2000 jobs", *ev)
		}
		b, err := os.ReadFile(filepath.Join(sc.Out, "jobs.csv"))
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = string(b)
	}
	if outs[0] != outs[1] {
		t.Error("jobs.csv differs when the run's events are observed")
	}
}

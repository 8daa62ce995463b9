package schedsim

import (
	"fmt"
	"strings"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/slurmconf"
)

// Feature is one capability a scenario may use; Combinations says which
// pairs of them a run refuses, and why.
type Feature string

// The features of a scenario that some other feature refuses.
const (
	FeatureScoreD       Feature = "SCore-D queues (--mode, [scored])"
	FeatureNodes        Feature = "a cluster of nodes ([cluster], --slurm-conf)"
	FeatureClusters     Feature = "a cluster of clusters ([[clusters]])"
	FeatureNodeEvents   Feature = "node events (--node-events)"
	FeatureCheckpoint   Feature = "checkpoints (--checkpoint, --resume)"
	FeatureEstimates    Feature = "runtime estimates (--estimates other than user)"
	FeatureGrow         Feature = "growing jobs (--grow, [hpcpack] grow)"
	FeatureFilters      Feature = "HPC Pack filters or templates (--config)"
	FeatureActivation   Feature = "HPC Pack activation filters"
	FeatureParquetOut   Feature = "jobs.parquet (--format parquet)"
	FeatureConservative Feature = "conservative backfilling"
	FeatureSlurm        Feature = "Slurm's backfill (--backfill slurm)"
	FeatureOrder        Feature = "a priority order other than fcfs (--order)"
	FeatureDepth        Feature = "a reservation depth above 1"
	FeatureSJBF         Feature = "shortest-first backfilling (--sjbf)"
	FeatureExternal     Feature = "an external policy (--policy-exec)"
	FeatureClosedLoop   Feature = "a closed loop (--closed-loop)"
	FeatureCalendar     Feature = "reservations, start windows or limits ([[reservation]], [[start_window]], [[limit]])"
	FeatureCycle        Feature = "a scheduler cycle (--sched-interval)"
	FeaturePower        Feature = "a power model (--power, [power])"
	FeatureTimeUnit     Feature = "a time unit finer than the second (--time-unit ms, us)"
	FeaturePlots        Feature = "plots and report.html (--plots, with --out)"
	FeatureSwitching    Feature = "switching nodes off (--power-policy)"
	FeaturePreempt      Feature = "Slurm preemption (PreemptType=preempt/partition_prio, [cluster] preempt)"
	FeatureSwitchPlan   Feature = "switching nodes off by the head job's plan (--power-policy plan)"
	FeatureTiers        Feature = "queue priority tiers ([[priority_tier]])"
	FeatureImmediate    Feature = "immediate queues (--immediate-queues, immediate_queues)"
	FeatureHolds        Feature = "holds (--holds, holds)"
	FeatureLatency      Feature = "a submission latency (--submit-latency, submit_latency)"
	FeatureShared       Feature = "time-shared queues (--shared-queues, shared_queues)"
)

// Combination is a pair of features a run refuses together.
type Combination struct {
	A, B Feature
	// Reason says why, in the terms of the schedulers' semantics where
	// the refusal lies in them.
	Reason string
	// Semantic is true when the refusal lies in what the features mean;
	// false when schedsim does not implement the pair (yet).
	Semantic bool
}

// Combinations is the one table of refused pairs of features. The README's
// "What combines with what" section is this table; TestCombinationsREADME
// holds them together. Every other pair of features runs.
var Combinations = []Combination{
	{FeatureScoreD, FeatureEstimates, "SCore-D schedules by queue priority and never plans ahead, so it has no use for a runtime estimate; a job's limit is its queue's maximum CPU time", true},
	{FeatureScoreD, FeatureGrow, "SCore-D's jobs run on the processors they were given; growing jobs is HPC Pack's model", true},
	{FeatureScoreD, FeatureFilters, "HPC Pack's filters and templates belong to HPC Pack's scheduler, not to SCore-D's queues", true},
	{FeatureClusters, FeatureGrow, "a cluster of clusters is SCore-D's model (SPEC §5: a job is given a member cluster, or several, and may run at its member's speed); growing jobs is HPC Pack's, whose scheduler grows a job on the nodes of one cluster, in cores or whole nodes", true},
	{FeatureGrow, FeatureConservative, "conservative backfilling plans every job on a fixed processor count, which growth changes under the plan", true},
	{FeatureGrow, FeatureSlurm, "Slurm's backfill plans every job on a fixed processor count, which growth changes under the plan", true},
	{FeatureExternal, FeatureScoreD, "SCore-D's queues are a policy of their own, which the external program would replace", true},
	{FeatureExternal, FeatureConservative, "the external program is the policy: --backfill chooses a built-in one", true},
	{FeatureExternal, FeatureSlurm, "the external program is the policy: --backfill chooses a built-in one", true},
	{FeatureExternal, FeatureOrder, "the external program is the policy and orders its queue itself: --order orders a built-in one", true},
	{FeatureExternal, FeatureDepth, "the external program is the policy and makes its own reservations: --reservation-depth sets a built-in one's", true},
	{FeatureExternal, FeatureSJBF, "the external program is the policy: --sjbf sets a built-in one's backfill order", true},
	{FeatureExternal, FeatureEstimates, "the external program is the scheduler and makes its own predictions from the requested times and the ends it is told of", true},
	{FeatureExternal, FeatureActivation, "activation filters decide inside HPC Pack's scheduler, which the external program replaces", true},
	{FeatureExternal, FeatureGrow, "how many processors a job starts on and when a running job grows are decisions of HPC Pack's scheduling pass (Queued mode: each start takes up to its maximum, then running jobs grow before any backfilling; Balanced: minimums first, the rest shared evenly), the pass the external program replaces: a program that grows jobs is an HPC Pack scheduler of its own", true},
	{FeatureExternal, FeatureCheckpoint, "the policy program is one process that has been told every event since the run began, and its decisions come from what it keeps in its own memory, which schedsim can neither save nor give back (protocol schedsim-policy/1 has no message for it); a filter program, run anew for each call with the job file, has no such state", true},
	{FeatureCalendar, FeatureScoreD, "SCore-D has no reservations or association limits: its admin sets dedicated time by deactivating and activating queues, and bounds jobs with the queues' CPU time, memory and disk limits", true},
	{FeatureCycle, FeatureScoreD, "SCore-D's scheduler has one period, its gang time quantum (--quantum, milliseconds to a second): it takes waiting jobs into the matrix as it switches rows, which the engine applies at every event; a cycle of Slurm's or PBS's kind laid over it is not SCore-D's", true},
	{FeatureSwitchPlan, FeatureScoreD, "plan switches nodes around the head job's start as the engine plans it (the shadow time from the running jobs' requested times, batsched's energy_bf); SCore-D schedules by queue priority and never plans a start: a job starts when it fits a row of the matrix, and a gang job's end moves with the matrix's load, so there is no reservation to plan the switches by (--power-policy idle:T combines)", true},
	{FeatureSwitchPlan, FeatureExternal, "plan switches nodes around the head job's start as the engine plans it (batsched's energy_bf: a scheduler and its power manager in one); an external program is the scheduler and makes its own plan, which the engine does not know (--power-policy idle:T combines)", true},
	{FeatureClosedLoop, FeatureActivation, "a job its activation filters keep waiting to the end of the run (still queued, SUBMITTED) never ends, so the jobs that follow it in the loop would never be submitted: the loop and the filters disagree on whether they exist", true},
	{FeatureTiers, FeatureScoreD, "SCore-D's priority queues are its own ranking of the jobs, by queue number, with their own modes and states", true},
	{FeatureTiers, FeatureExternal, "the external program is the policy and orders its queue itself (the hello gives it the jobs' queues and partitions)", true},
	{FeatureTiers, FeatureConservative, "conservative backfilling plans every job in submission order, which a ranking by tier would overturn at every submission", true},
	{FeatureImmediate, FeatureClosedLoop, "a closed loop submits a job only after its preceding job's end plus the think time, while an immediate queue's job starts at its recorded submission, beside the machine: the two disagree on when such a job is submitted", true},
	{FeatureShared, FeatureScoreD, "SCore-D's gang scheduling time-shares every job in its matrix of rows; a queue time-shared on top of it, outside the matrix, is not modelled", false},
	{FeatureShared, FeatureNodes, "a node selector places every job on idle nodes (whole nodes or cores); a time-shared job runs on processors others hold, which no select plugin gives", false},

	{FeatureShared, FeatureNodeEvents, "a node event kills or requeues the jobs on its nodes, and a time-shared job holds processors beyond any it was given: which nodes it ran on is not known", false},
	{FeatureShared, FeatureGrow, "a growing job takes idle processors as it grows, and the processors time-shared jobs hold beyond the idle ones are not modelled with growth", false},

	{FeatureShared, FeatureExternal, "the protocol gives the program the idle processors and the running jobs it started; a time-shared job is started by the engine, which the program would not know of", false},
	{FeatureShared, FeatureActivation, "HPC Pack's activation filters decide which queued jobs may start, and a time-shared job is started by the engine, outside them", false},
	{FeatureSJBF, FeatureConservative, "shortest-first backfilling orders the candidates behind EASY's one reservation; conservative backfilling plans every job, in submission order", true},
	{FeatureSJBF, FeatureSlurm, "shortest-first backfilling orders the candidates behind EASY's one reservation; Slurm's backfill examines the jobs in priority order, each with a reservation", true},
	{FeatureSJBF, FeatureDepth, "shortest-first backfilling orders the candidates behind EASY's one reservation; with several reservations the candidates behind each are examined in queue order", false},
	{FeatureOrder, FeatureConservative, "conservative backfilling plans every job in submission order, which a priority order would overturn at every submission (a reservation depth or Slurm's backfill takes an order)", true},
	{FeatureActivation, FeatureConservative, "HPC Pack's activation filters are asked, at every pass, whether the jobs it would start may start, and any may be kept waiting; conservative backfilling keeps the plans it made at earlier passes, which such a refusal would void (off, easy and Slurm's backfill plan at every pass)", true},
	{FeaturePreempt, FeatureScoreD, "preemption by partition priority is Slurm's; SCore-D's queues preempt by queue priority (--preempt)", true},
	{FeaturePreempt, FeatureGrow, "a preempted job gives back the processors it started on, and growth changes them while it runs", false},
	{FeaturePreempt, FeatureSwitching, "a preemption frees nodes for its preemptor at once, and switching nodes off may have put the nodes it would take to sleep", false},
	{FeatureTiers, FeaturePreempt, "Slurm has one PriorityTier per partition, which both the scheduling order and preempt/partition_prio read; with preemption the tiers are the [cluster] partitions' own, and [[priority_tier]] would be a second, different value of the same parameter (as on any [cluster] whose partitions have tiers)", true},
}

// features returns the features the scenario uses, in the order of the
// constants.
func (o *runner) features() ([]Feature, error) {
	var fs []Feature
	add := func(on bool, f Feature) {
		if on {
			fs = append(fs, f)
		}
	}
	sd, err := o.scoreD()
	if err != nil {
		return nil, err
	}
	var cfg *runConfig
	if o.Config != "" {
		if cfg, err = o.runConfig(); err != nil {
			return nil, err
		}
	}
	backfill := policy.Backfill(strings.ToLower(o.Backfill))
	grow := o.Grow || (cfg != nil && cfg.HPCPack != nil && cfg.HPCPack.Grow)
	add(sd != nil, FeatureScoreD)
	add(o.SlurmConf != "" || (cfg != nil && (cfg.Cluster != nil || len(cfg.Clusters) > 0)), FeatureNodes)
	add(cfg != nil && len(cfg.Clusters) > 0, FeatureClusters)
	add(o.NodeEvents != "", FeatureNodeEvents)
	add(o.opt.Checkpoint != "" || o.opt.Resume != "", FeatureCheckpoint)
	add(o.Estimates != "" && !strings.EqualFold(o.Estimates, policy.EstimatesUser), FeatureEstimates)
	add(grow, FeatureGrow)
	add(cfg != nil && cfg.hasFilters(), FeatureFilters)
	add(cfg != nil && (len(cfg.Filters.Activation) > 0 || cfg.hasTemplateActivation()), FeatureActivation)
	add(strings.Contains(o.Format, "parquet"), FeatureParquetOut)
	add(sd == nil && backfill == policy.BackfillConservative, FeatureConservative)
	add(sd == nil && backfill == policy.BackfillSlurm, FeatureSlurm)
	add(sd == nil && backfill != policy.BackfillSlurm && o.Order != "" && !strings.EqualFold(o.Order, policy.OrderFCFS), FeatureOrder)
	add(sd == nil && backfill == policy.BackfillEASY && o.ReservationDepth != "" && o.ReservationDepth != "1", FeatureDepth)
	add(sd == nil && o.SJBF, FeatureSJBF)
	add(o.PolicyExec != "", FeatureExternal)
	add(o.ClosedLoop, FeatureClosedLoop)
	add(strings.TrimSpace(o.ImmediateQueues) != "", FeatureImmediate)
	add(strings.TrimSpace(o.SharedQueues) != "", FeatureShared)
	add(o.Holds != "", FeatureHolds)
	add(strings.TrimSpace(o.SubmitLatency) != "", FeatureLatency)
	add(cfg.hasConstraints(), FeatureCalendar)
	add(cfg.hasTiers(), FeatureTiers)
	add(o.SchedInterval != "" && o.SchedInterval != "0", FeatureCycle)
	add(o.Power != "" || (cfg != nil && cfg.Power != nil), FeaturePower)
	tick, err := o.ticks()
	if err != nil {
		return nil, err
	}
	add(tick > 1, FeatureTimeUnit)
	add(o.PowerPolicy != "" && !strings.EqualFold(o.PowerPolicy, "none"), FeatureSwitching)
	add(strings.EqualFold(strings.TrimSpace(o.PowerPolicy), "plan"), FeatureSwitchPlan)
	add(o.Plots && o.Out != "", FeaturePlots)
	preempt := cfg != nil && cfg.Cluster != nil && cfg.Cluster.Preempt != "" && !strings.EqualFold(cfg.Cluster.Preempt, "off")
	for i := range cfgClusters(cfg) {
		preempt = preempt || (cfg.Clusters[i].Preempt != "" && !strings.EqualFold(cfg.Clusters[i].Preempt, "off"))
	}
	if o.SlurmConf != "" && !preempt {
		if sc, err := slurmconf.Read(o.SlurmConf); err == nil {
			preempt = sc.Spec.Preempt != ""
		}
	}
	add(preempt, FeaturePreempt)
	return fs, nil
}

// cfgClusters returns cfg's [[clusters]] (none without cfg).
func cfgClusters(cfg *runConfig) []clusterConfig {
	if cfg == nil {
		return nil
	}
	return cfg.Clusters
}

// checkCombinations refuses the first pair of the scenario's features that
// Combinations lists, with its reason: the one place a combination is
// refused.
func (o *runner) checkCombinations() error {
	fs, err := o.features()
	if err != nil {
		return err
	}
	has := map[Feature]bool{}
	for _, f := range fs {
		has[f] = true
	}
	for _, c := range Combinations {
		if !has[c.A] || !has[c.B] {
			continue
		}
		how := "cannot be combined"
		if !c.Semantic {
			how = "are not combined by schedsim"
		}
		// A cluster of clusters is a cluster of nodes too: name what the
		// user wrote.
		a, b := c.A, c.B
		if has[FeatureClusters] {
			if a == FeatureNodes {
				a = FeatureClusters
			}
			if b == FeatureNodes {
				b = FeatureClusters
			}
		}
		return inputf("%s and %s %s: %s", a, b, how, c.Reason)
	}
	return nil
}

// CombinationsTable returns Combinations as a Markdown table, as the README
// shows it.
func CombinationsTable() string {
	var b strings.Builder
	b.WriteString("| with | refuses | why | |\n|---|---|---|---|\n")
	for _, c := range Combinations {
		kind := "semantics"
		if !c.Semantic {
			kind = "not implemented"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.A, c.B, c.Reason, kind)
	}
	return b.String()
}

// hasTemplateActivation reports whether a job template has activation
// filters of its own.
func (c *runConfig) hasTemplateActivation() bool {
	for _, t := range c.Templates {
		if len(t.Activation) > 0 {
			return true
		}
	}
	return false
}

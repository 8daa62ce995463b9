package schedsim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/schedsim/schedsim/cluster/energy"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/external"
	"github.com/schedsim/schedsim/policy/hpcpack"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/traces"
	"github.com/schedsim/schedsim/workload"
)

// runner is one run of a scenario: the scenario, the caller's options, and
// what the run finds out as it is set up.
type runner struct {
	*Scenario
	opt Options
	// power is the run's power model, read once (powerModel); energy
	// meters the run with it, its records going on to energyNext (the
	// per-job tables).
	power      *energy.Platform
	powerErr   error
	powerRead  bool
	energy     *report.EnergyRun
	energyNext []sim.Observer
	// hostCores is the processors of a host when SCore-D's queues run on
	// a cluster of nodes (scoreDCluster): node events name its hosts.
	hostCores int
	// sdClusters is the cluster of clusters SCore-D's queues run on
	// ([[clusters]] with --mode or [scored]; scoreDClusters), else nil.
	sdClusters *sim.ScoreDClusters
	energySum  *report.EnergySummary
	// members are the clusters of a cluster of clusters ([[clusters]]),
	// set by clusterSpec; nil otherwise.
	members []*cluster.Spec
	// ck takes checkpoints or resumes from one; nil without them.
	ck *checkpointer
	// stop, when set, interrupts the run.
	stop *atomic.Bool
	// ctx is the run's context (nil: none); an external policy's program
	// is killed when it is cancelled.
	ctx context.Context
	// ext is the run's external policy (--policy-exec), or nil, and
	// extLog its message log (--policy-log).
	ext    *external.Policy
	extLog *bufio.Writer
	extF   *os.File
	// checkOnly: the runner only checks the scenario (Scenario.Check),
	// and creates no file.
	checkOnly bool
	// afterRun, if set, is called once the engine and the observers are
	// done with every job, before the summary (Run syncs jobs.csv).
	afterRun func()
	// beforeRun, if set, is called with the trace's header before the
	// engine starts (jobs.parquet takes its timestamps' origin from it).
	beforeRun func(h *workload.Header)
	// ganttMaxJobs > 0 keeps the allocations for a Gantt chart of a run
	// with at most that many jobs.
	ganttMaxJobs int
	// pageGanttMaxJobs bounds the jobs kept for report.html's canvas
	// Gantt chart (Scenario.PageGanttMaxJobs).
	pageGanttMaxJobs int
	// nodes is the node-event schedule, set by configureNodes.
	nodes nodeRun
	// notes are warnings found while the run is set up, said with the
	// others (warnings).
	notes []string
	// conf is the run configuration file, read once (runConfig).
	conf     *runConfig
	confErr  error
	confRead bool
}

// runConfig returns the run configuration file (Scenario.Config), read and
// validated the first time a part of the run asks for it: every part sees
// the same content.
func (o *runner) runConfig() (*runConfig, error) {
	if !o.confRead {
		o.conf, o.confErr = loadRunConfig(o.Config)
		o.confRead = true
	}
	return o.conf, o.confErr
}

func (o *runner) rules() (workload.Rules, error) {
	st, err := workload.ParseStatuses(string(o.Status))
	if err != nil {
		return workload.Rules{}, &InputError{err}
	}
	r := workload.Rules{
		Procs:    workload.ProcsSource(o.ProcsFrom),
		ZeroRun:  workload.RunRule(o.ZeroRun),
		Estimate: workload.EstimateRule(o.MissingEstimate),
		Overrun:  workload.OverrunRule(o.Overrun),
		Partial:  workload.PartialRule(o.Partial),
		Statuses: st,
	}
	r.Duplicate = workload.DuplicateRule(o.DuplicateID)
	r.ExtraFields = workload.ExtraFieldsRule(o.ExtraFields)
	r.From, r.Until, r.MaxJobs = string(o.From), string(o.Until), o.MaxJobs
	r.Users, r.Queues, r.Partitions = workload.ParseList(o.Users), workload.ParseList(o.JobQueues), workload.ParseList(o.Partitions)
	if err := r.Validate(); err != nil {
		return r, &InputError{err}
	}
	return r, nil
}

func (o *runner) policy() (policy.Policy, error) {
	if o.PolicyExec != "" {
		return o.externalPolicy()
	}
	la, err := policy.ParseLookahead(string(o.Lookahead))
	if err != nil {
		return nil, &InputError{err}
	}
	depth, err := policy.ParseLookahead(string(o.ReservationDepth))
	if err != nil || depth == 0 {
		return nil, inputf("--reservation-depth %q: want a number of jobs ≥ 1 or all", string(o.ReservationDepth))
	}
	tick, err := o.ticks()
	if err != nil {
		return nil, err
	}
	cfg := policy.Config{Backfill: policy.Backfill(o.Backfill), Lookahead: la, Depth: depth, Order: o.Order, SJBF: o.SJBF, Tick: workload.Time(tick)}
	if o.Priority != "" {
		if !strings.EqualFold(o.Order, policy.OrderMultiFactor) {
			return nil, inputf("--priority %q: applies to --order multifactor only", o.Priority)
		}
		prio, err := policy.ParsePriority(o.Priority, policy.DefaultPriorityParams())
		if err != nil {
			return nil, inputf("--priority: %v", err)
		}
		cfg.Priority = &prio
	}
	if cfg.Slurm, err = o.slurmParams(); err != nil {
		return nil, err
	}
	if o.SlurmConf != "" && cfg.Backfill == policy.BackfillSlurm {
		sc, err := o.readSlurmConf()
		if err != nil {
			return nil, err
		}
		cfg.Slurm = mergeSlurmParams(cfg.Slurm, sc.Params)
	}
	p, err := policy.New(cfg)
	if err != nil {
		return nil, &InputError{err}
	}
	return p, nil
}

// externalPolicy returns the policy of --policy-exec; closeExternal ends
// its program.
func (o *runner) externalPolicy() (policy.Policy, error) {
	timeout, err := parsePolicyTimeout(string(o.PolicyTimeout))
	if err != nil {
		return nil, err
	}
	// Switching nodes off and on changes the processors in service, as
	// node events do, and is told as node events.
	switching := o.PowerPolicy != "" && !strings.EqualFold(strings.TrimSpace(o.PowerPolicy), "none")
	cfg := external.Config{Command: o.PolicyExec, Timeout: timeout, Context: o.ctx, NodeEvents: o.NodeEvents != "" || switching}
	if o.Config != "" {
		rc, err := o.runConfig()
		if err != nil {
			return nil, err
		}
		cfg.Calendar = rc.hasConstraints()
	}
	if tick, err := o.ticks(); err != nil {
		return nil, err
	} else if tick > 1 {
		// The protocol's times are the run's ticks; the hello says so.
		cfg.TimeUnit = report.TimeUnitName(tick)
	}
	if o.PolicyLog != "" && !o.checkOnly {
		f, err := os.Create(o.PolicyLog)
		if err != nil {
			return nil, inputf("--policy-log: %v", err)
		}
		o.extF, o.extLog = f, bufio.NewWriterSize(f, 64<<10)
		cfg.Log = o.extLog
	}
	p, err := external.New(cfg)
	if err != nil {
		o.closeExternal()
		return nil, inputf("--policy-exec: %v", err)
	}
	o.ext = p
	return p, nil
}

// closeExternal ends the external policy's program and closes its log.
func (o *runner) closeExternal() {
	if o.ext != nil {
		o.ext.Close()
		o.ext = nil
	}
	if o.extF != nil {
		o.extLog.Flush()
		o.extF.Close()
		o.extF, o.extLog = nil, nil
	}
}

// parsePolicyTimeout parses --policy-timeout: a Go duration (500ms, 30s,
// 2m) or a number of seconds; "" is external.DefaultTimeout.
func parsePolicyTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return external.DefaultTimeout, nil
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil && n > 0 && n < 1e9 {
		return time.Duration(n * float64(time.Second)), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	return 0, inputf("--policy-timeout %q: want a positive duration such as 500ms, 30s or 2m (a bare number is seconds)", s)
}

// slurmParams parses the --bf-* and --default-queue-depth flags, which need
// --backfill slurm.
func (o *runner) slurmParams() (policy.SlurmParams, error) {
	var sp policy.SlurmParams
	durations := []struct {
		flag, val string
		dst       *workload.Time
	}{{"bf-interval", string(o.BFInterval), &sp.Interval}, {"bf-window", string(o.BFWindow), &sp.Window}, {"bf-resolution", string(o.BFResolution), &sp.Resolution}}
	counts := []struct {
		flag, val string
		dst       *int
	}{{"bf-max-job-test", string(o.BFMaxJobTest), &sp.MaxJobTest}, {"default-queue-depth", string(o.DefaultQueueDepth), &sp.QueueDepth}}
	slurm := policy.Backfill(o.Backfill) == policy.BackfillSlurm
	for _, d := range durations {
		if d.val == "" {
			continue
		}
		if !slurm {
			return sp, inputf("--%s: applies to --backfill slurm only", d.flag)
		}
		t, err := policy.ParseDuration(d.val)
		if err != nil || t == 0 {
			return sp, inputf("--%s %q: want a positive duration in seconds, e.g. 30, 30s, 5m, 1d", d.flag, d.val)
		}
		*d.dst = t
	}
	for _, c := range counts {
		if c.val == "" {
			continue
		}
		if !slurm {
			return sp, inputf("--%s: applies to --backfill slurm only", c.flag)
		}
		n, err := policy.ParseLookahead(c.val)
		if err != nil || n == 0 {
			return sp, inputf("--%s %q: want a number of jobs ≥ 1 or all", c.flag, c.val)
		}
		*c.dst = n
	}
	if o.BFContinue && !slurm {
		return sp, inputf("--bf-continue: applies to --backfill slurm only")
	}
	sp.Continue = o.BFContinue
	if o.BFPlan != "" || o.BFPhase != "" || o.BFWindowLinear != "" || o.BFCompleting != "" || o.SchedMain != "" || o.BFGroups != "" || o.BFEnded != "" || o.BFEndLatency != "" {
		if !slurm {
			return sp, inputf("--bf-plan, --bf-phase, --bf-window-linear, --bf-completing, --bf-groups, --bf-ended, --bf-end-latency and --sched-main: apply to --backfill slurm only")
		}
	}
	switch o.BFGroups {
	case "", "aligned":
	case "first":
		sp.GroupsFromFirst = true
	default:
		return sp, inputf("--bf-groups %q: want aligned or first", o.BFGroups)
	}
	switch o.BFEnded {
	case "", "phase":
	case "running":
		sp.EndedRunning = true
	case "completing":
		sp.EndedCompleting = true
	default:
		return sp, inputf("--bf-ended %q: want phase, running or completing", o.BFEnded)
	}
	if o.BFEndLatency != "" {
		us, err := parseMicros(o.BFEndLatency)
		if err != nil {
			return sp, inputf("--bf-end-latency %q: %v", o.BFEndLatency, err)
		}
		if sp.EndedRunning || sp.EndedCompleting {
			return sp, inputf("--bf-end-latency: applies to --bf-ended phase only")
		}
		sp.EndLatency = us
	}
	switch o.BFPlan {
	case "", "nodes":
	case "procs":
		sp.PlanProcs = true
	default:
		return sp, inputf("--bf-plan %q: want nodes or procs", o.BFPlan)
	}
	if o.SchedMain != "" {
		m, err := policy.ParseMainTrigger(o.SchedMain)
		if err != nil {
			return sp, inputf("--sched-main %q: want ends or events", o.SchedMain)
		}
		sp.MainAt = m
	}
	for _, d := range []struct {
		flag, val string
		dst       *workload.Time
	}{{"bf-phase", string(o.BFPhase), &sp.Phase}, {"bf-window-linear", string(o.BFWindowLinear), &sp.WindowLinear}, {"bf-completing", string(o.BFCompleting), &sp.Completing}} {
		if d.val == "" {
			continue
		}
		t, err := policy.ParseDuration(d.val)
		if err != nil || t > 10800 {
			return sp, inputf("--%s %q: want whole seconds from 0 to 3h, e.g. 0, 1, 30s", d.flag, d.val)
		}
		*d.dst = t
	}
	if o.BFCompleting != "" && sp.Completing == 0 {
		sp.Completing = policy.CompletingNone
	}
	return sp, nil
}

// parseMicros reads a short duration of whole milliseconds ("22ms") or
// microseconds ("22000us"), from 1 µs to 10 s, in microseconds.
func parseMicros(v string) (int64, error) {
	num, unit := v, int64(0)
	switch {
	case strings.HasSuffix(v, "us"):
		num, unit = strings.TrimSuffix(v, "us"), 1
	case strings.HasSuffix(v, "ms"):
		num, unit = strings.TrimSuffix(v, "ms"), 1000
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if unit == 0 || err != nil || n < 1 || n*unit > 10_000_000 {
		return 0, fmt.Errorf("want whole milliseconds or microseconds from 1us to 10000ms, e.g. 22ms")
	}
	return n * unit, nil
}

// schedInterval parses --sched-interval: 0 without one.
func (o *runner) schedInterval() (workload.Time, error) {
	if o.SchedInterval == "" {
		return 0, nil
	}
	t, err := policy.ParseDuration(string(o.SchedInterval))
	if err != nil || t > workload.MaxTime {
		return 0, inputf("--sched-interval %q: want whole seconds ≥ 0, optionally with a unit s, m, h or d (e.g. 60, 1m)", string(o.SchedInterval))
	}
	return t, nil
}

// estimator parses --estimates: nil plans with the requested times.
func (o *runner) estimator() (policy.Estimator, error) {
	tick, err := o.ticks()
	if err != nil {
		return nil, err
	}
	e, err := policy.ParseEstimatorIn(o.Estimates, workload.Time(tick))
	if err != nil {
		return nil, inputf("--estimates: %v", err)
	}
	return e, nil
}

// openTrace opens the trace the options name: SWF (plain or gzip) or
// Parquet, detected from the file's content.
func (o *runner) openTrace(rules workload.Rules) (workload.Reader, error) {
	var opts []workload.Option
	if o.Columns != "" {
		m, err := workload.ParseColumns(o.Columns)
		if err != nil {
			return nil, inputf("--columns: %v", err)
		}
		opts = append(opts, workload.WithColumns(m))
	}
	if o.TimeZone != "" {
		loc, err := workload.ParseZone(o.TimeZone)
		if err != nil {
			return nil, inputf("--timezone %q: %v", o.TimeZone, err)
		}
		opts = append(opts, workload.WithTimeZone(loc))
	}
	if tick, err := o.ticks(); err != nil {
		return nil, err
	} else if tick > 1 {
		opts = append(opts, workload.WithTicks(tick))
	}
	if sp := o.BatsimSpeed; sp != 0 {
		if !(sp > 0) || math.IsInf(sp, 0) {
			return nil, inputf("--batsim-speed %v: want a speed in flops per second > 0", sp)
		}
		opts = append(opts, workload.WithBatsimSpeed(sp))
	}
	var r workload.Reader
	var err error
	if o.Trace == "" {
		r, err = workload.NewReader(traces.Sample(), "embedded:"+traces.SampleName, rules, opts...)
	} else {
		r, err = workload.Open(o.Trace, rules, opts...)
	}
	if err != nil {
		var pe *workload.ParseError
		if errors.As(err, &pe) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, &InputError{err}
		}
		return nil, err
	}
	if o.Holds != "" {
		h, err := workload.ReadHolds(o.Holds)
		if err != nil {
			r.Close()
			return nil, inputf("--holds: %v", err)
		}
		tick, err := o.ticks()
		if err != nil {
			r.Close()
			return nil, err
		}
		r = workload.WithHolds(r, h, tick)
	}
	return r, nil
}

// traceName is the workload's name in reports: the trace's base name.
func (o *runner) traceName() string {
	if o.Trace == "" {
		return traces.SampleName
	}
	return filepath.Base(o.Trace)
}

// Result is what a finished run found.
type Result struct {
	// Summary is summary.json's content.
	Summary report.Summary
	// Run holds what the plots and report.html show.
	Run *report.Run
	// FilterCalls and FilterWall count the filter programs' calls and
	// the wall time they took (HPC Pack filter programs only).
	FilterCalls int64
	FilterWall  time.Duration
	// Wrote lists the files written into Scenario.Out, in order.
	Wrote []string
}

// simulate runs the simulation, feeding every record to obs as well as to
// the metrics it keeps itself.
func (o *runner) simulate(obs ...sim.Observer) (*Result, error) {
	rules, err := o.rules()
	if err != nil {
		return nil, err
	}
	pol, err := o.policy()
	if err != nil {
		return nil, err
	}
	defer o.closeExternal()
	est, err := o.estimator()
	if err != nil {
		return nil, err
	}
	rd, err := o.openTrace(rules)
	if err != nil {
		return nil, err
	}
	// Parse the trace on a goroutine of its own, ahead of the engine.
	rd = workload.Prefetch(rd)
	defer rd.Close()
	spec, err := o.clusterSpec(rd.Header())
	if err != nil {
		return nil, err
	}
	procs := o.Procs
	var al cluster.Allocator
	var preempt *sim.Preemption
	var tierOf func(*workload.Job) int // the tiers that rank the queue, if any
	sd, err := o.scoreD()
	if err != nil {
		return nil, err
	}
	if sd != nil && spec != nil {
		// SCore-D's queues take the hosts, their processors and memory;
		// the rest of a cluster description is Slurm's model.
		if err := o.scoreDCluster(sd, spec); err != nil {
			return nil, err
		}
		procs, spec = spec.Cores(), nil
	}
	if spec != nil {
		if tier := partitionTiers(spec); tier != nil && o.ext == nil {
			// Slurm evaluates the jobs of higher PriorityTier
			// partitions first, under sched/backfill and sched/builtin
			// (FIFO in priority order) alike: every policy that runs on
			// a cluster of nodes sees the queue so.
			pol = policy.WithTiers(pol, tier)
			tierOf = tier
		}
		if al, err = o.allocator(spec, pol); err != nil {
			return nil, err
		}
		if o.ext != nil {
			// The program orders its own queue (by the partitions'
			// tiers, if it wants: the hello lists them) and is told of
			// the nodes.
			o.ext.SetCluster(spec)
		}
		procs = spec.Cores()
		if pol, preempt, err = o.preemption(spec, pol); err != nil {
			return nil, err
		}
	}
	if o.ext == nil {
		var qt func(*workload.Job) int
		if pol, qt, err = o.withQueueTiers(pol, rd.Header(), spec != nil && partitionTiers(spec) != nil); err != nil {
			return nil, err
		}
		if qt != nil {
			tierOf = qt
		}
	}
	switch {
	case procs < 0:
		return nil, inputf("--procs %d: the machine needs at least one processor", procs)
	case procs > workload.MaxMachineProcs:
		return nil, inputf("--procs %d: more than %d processors, the largest machine schedsim simulates", procs, workload.MaxMachineProcs)
	case procs == 0:
		if err := rd.Header().MachineSizeError(); err != nil {
			return nil, inputf("%v: give the machine size with --procs N", err)
		}
		procs = rd.Header().MachineSize()
		if procs == 0 {
			hint := ""
			if n := o.largestJob(); n > 0 {
				hint = fmt.Sprintf(" (its largest job asks for %d processors: --procs %d runs them all)", n, n)
			}
			return nil, inputf("%s declares no machine size (no MaxProcs or MaxNodes header line): give it with --procs N%s", rd.Path(), hint)
		}
	}
	if sd != nil && o.sdClusters == nil { // each cluster has its hosts'
		if err := scoreDHost(sd, rd.Header(), rd.Path()); err != nil {
			return nil, err
		}
	}
	tick, err := o.ticks()
	if err != nil {
		return nil, err
	}
	simCfg := sim.Config{Procs: procs, Policy: pol, Estimator: est, Allocator: al, ClosedLoop: o.ClosedLoop, Preempt: preempt}
	// The scheduler cycle is given in seconds (and named so in the
	// policy's name); the engine counts it in ticks.
	schedSec, err := o.schedInterval()
	if err != nil {
		return nil, err
	}
	simCfg.SchedInterval = schedSec * workload.Time(tick)
	immQueues, err := queueSet("immediate queues", o.ImmediateQueues, rd.Header())
	if err != nil {
		return nil, err
	}
	if immQueues != nil {
		simCfg.Immediate = inQueues(immQueues)
	}
	sharedQueues, err := queueSet("shared queues", o.SharedQueues, rd.Header())
	if err != nil {
		return nil, err
	}
	if sharedQueues != nil {
		for _, q := range sharedQueues {
			if slices.Contains(immQueues, q) {
				return nil, inputf("queue %d is both an immediate queue (immediate_queues) and a time-shared one (shared_queues): an immediate queue's jobs run beside the machine, a time-shared queue's on it", q)
			}
		}
		simCfg.Shared = inQueues(sharedQueues)
	}
	lat, err := workload.ParseLatency(o.SubmitLatency, rd.Header())
	if err != nil {
		return nil, inputf("--submit-latency %q: %v", o.SubmitLatency, err)
	}
	if !lat.Zero() {
		// A job reaches the scheduler its latency after its submission
		// (the closed loop's, for a job it delays): held until then. An
		// immediate queue's job starts regardless.
		simCfg.SubmitLatency = func(j *workload.Job) { lat.Hold(j, tick) }
	}
	var cons *sim.Constraints
	if o.Config != "" {
		conf, err := o.runConfig()
		if err != nil {
			return nil, err
		}
		nodeSize := o.NodeSize
		if spec != nil && len(spec.Groups) > 0 {
			nodeSize = spec.Groups[0].Cores
		}
		var onNodes *cluster.Spec
		if _, ok := al.(cluster.NodeStates); ok {
			onNodes = spec // a reservation's nodes are the cluster's
		}
		if cons, err = conf.constraintsOn(rd.Header(), o.TimeZone, procs, nodeSize, onNodes); err != nil {
			return nil, err
		}
		// Given in seconds and on the calendar (and kept so in
		// summary.json); the engine counts them in ticks.
		simCfg.Constraints = cons.InTicks(tick)
	}
	if err := o.configureNodes(&simCfg, procs); err != nil {
		return nil, err
	}
	if simCfg.Grow, err = o.growConfig(pol); err != nil {
		return nil, err
	}
	var hpc *hpcpack.Model
	if o.Config != "" && o.configHasFilters() {
		if hpc, err = o.hpcPack(traceEpoch(rd.Header())); err != nil {
			return nil, err
		}
		defer hpc.Close()
		if hpc.HasActivation() {
			if pol, err = hpc.Wrap(pol); err != nil {
				return nil, &InputError{err}
			}
		}
		simCfg.Policy, simCfg.Admission, simCfg.Annotator = pol, hpc, hpc
		if simCfg.Grow != nil {
			simCfg.Grow.Filter = hpc
		}
	}
	if tierOf != nil && preempt == nil {
		// Each job's tier goes into jobs.csv, for verify to check the
		// order of the tiers (a run with preemption writes it already).
		simCfg.Annotator = tierNotes{inner: simCfg.Annotator, tier: tierOf}
	}
	m := report.NewMetrics()
	if tick > 1 {
		m.SetTick(tick)
	}
	ts := report.NewTimeSeries(procs, report.DefaultSeriesPoints)
	var bdSpec *cluster.Spec
	if al != nil {
		bdSpec = spec
	}
	bd := report.NewBreakdown(bdSpec)
	var cal *report.Calendar
	if c, ok, err := workload.CalendarOf(rd.Header(), o.TimeZone); err != nil {
		return nil, inputf("--timezone: %v", err)
	} else if ok {
		c.Tick = tick
		cal = &c
		bd.SetCalendar(cal)
	}
	all := append(report.Observers{m, ts, bd}, obs...)
	var meterSpec *cluster.Spec
	if al != nil {
		meterSpec = spec
	}
	if o.energy, err = o.energyRun(procs, meterSpec, o.energyNext); err != nil {
		return nil, err
	} else if o.energy != nil {
		all = append(all, o.energy)
		if o.ck != nil {
			if err := o.ck.meterRecords(o.energy); err != nil {
				return nil, err
			}
		}
		switch {
		case sd != nil:
			// SCore-D's processors are metered by their busy stretches:
			// busy while any row of the matrix holds them.
			simCfg.ScoreDBusy = o.energy.BusyRun
		case len(simCfg.NodeEvents) > 0:
			// A requeued job's cut-short run kept its nodes busy.
			simCfg.LostRun = o.energy.LostRun
		}
	}
	if simCfg.Power, err = o.switchingPolicy(procs, o.energy); err != nil {
		return nil, err
	}
	var gantt *report.Gantt
	if o.ganttMaxJobs > 0 {
		gantt = report.NewGantt(max(o.ganttMaxJobs, o.pageGanttMaxJobs))
		all = append(all, gantt)
	}
	// On a pool of processors the processors' numbers are given behind
	// the engine, on the observers' goroutine (see sim.Placer).
	var sink sim.Observer = all
	if sd == nil && o.ck == nil && simCfg.Allocator == nil && simCfg.Grow == nil && len(simCfg.NodeEvents) == 0 && simCfg.Power == nil {
		simCfg.DeferPlacement = true
		sink = sim.NewPlacer(procs, all...)
	}
	if sd != nil {
		// SCore-D's queues are the policy: the one engine runs them, in
		// its clock of milliseconds, with the run's other options.
		simCfg.Policy, simCfg.Estimator, simCfg.ScoreD, simCfg.TicksPerSec = nil, nil, sd, int64(tick)
		simCfg.ScoreDClusters = o.sdClusters
	}
	var eng *sim.Engine
	switch {
	case o.ck != nil:
		o.ck.config(&simCfg)
		eng, err = o.ck.engine(simCfg, m, ts, gantt, bd)
	default:
		if eng, err = sim.New(simCfg); err != nil {
			err = &InputError{err}
		}
	}
	if err != nil {
		return nil, err
	}
	var src sim.Source = rd
	if o.stop != nil {
		src = newInterruptible(rd, o.stop)
	}
	// The observers (metrics, jobs.csv, plots' data) run on a goroutine
	// of their own, behind the engine; a checkpoint waits for them.
	async := report.NewAsync(sink)
	defer async.Close()
	if o.ck != nil {
		o.ck.barrier = async.Sync
	}
	if o.beforeRun != nil {
		o.beforeRun(rd.Header())
	}
	st, err := eng.Run(src, async)
	if werr := o.ck.wait(); err == nil {
		// The last checkpoint is on disk (or failed) before the run's
		// files are committed or the process exits.
		err = werr
	}
	async.Close()
	if err == nil && gantt != nil {
		// The page's order of the jobs is sorted while the summary is
		// made, on one processor: the drawing then finds it made.
		go gantt.Settle()
	}
	if err == nil && o.energy != nil {
		// The per-job tables get their records, with their energy, now.
		o.energySum = o.energy.Finish(st.FirstEvent, st.LastEvent)
	}
	if o.ext != nil {
		o.closeExternal()
		var xe *external.Error
		switch {
		case err != nil && (o.interrupted() || (o.ctx != nil && o.ctx.Err() != nil)):
			err = ErrInterrupted
		case errors.As(err, &xe):
			err = &InputError{err}
		}
	}
	if err == nil && o.afterRun != nil {
		o.afterRun()
	}
	if err != nil {
		var pe *workload.ParseError
		if errors.As(err, &pe) || errors.Is(err, sim.ErrUnsorted) || errors.Is(err, workload.ErrLimit) {
			return nil, &InputError{err}
		}
		return nil, err
	}
	polName := pol.Name()
	if sd != nil {
		polName = scoredName(sd)
		if c := o.sdClusters; c != nil {
			polName += fmt.Sprintf("+clusters=%d", len(c.Procs))
			if !c.ScaleRuntime {
				polName += "+speed=loads-only"
			}
		}
	}
	if est != nil {
		polName += "+estimates=" + est.Name()
	}
	if o.Config != "" {
		polName += "+config=" + filepath.Base(o.Config)
	}
	if o.SlurmConf != "" {
		polName += "+slurm-conf=" + filepath.Base(o.SlurmConf)
	}
	if simCfg.Grow != nil {
		polName += "+grow=" + simCfg.Grow.Speedup.Name()
		if simCfg.Grow.Balanced {
			polName += "+mode=balanced"
		}
	}
	if simCfg.SchedInterval > 0 {
		polName += fmt.Sprintf("+sched_interval=%d", schedSec)
	}
	if len(immQueues) > 0 {
		polName += "+immediate_queues=" + joinInts(immQueues)
	}
	if len(sharedQueues) > 0 {
		polName += "+shared_queues=" + joinInts(sharedQueues)
	}
	if simCfg.Power != nil {
		// Switching nodes off changes the machine under the policy's
		// plans (verify then checks no reservation promise).
		polName += "+power=" + strings.ToLower(strings.TrimSpace(o.PowerPolicy))
	}
	if al != nil {
		polName += "+select=" + spec.Select
		if len(o.members) > 0 {
			polName += fmt.Sprintf("+clusters=%d", len(o.members))
			if f, ok := al.(*cluster.Federation); ok {
				if f.AtStart {
					polName += "+assign=start"
				}
				if f.NoSpeedScaling {
					polName += "+speed=loads-only"
				}
			}
		}
	}
	s := m.Summary(o.traceName(), polName, procs, st, rd.Stats())
	if preempt != nil {
		s.Preemption = &report.PreemptionInfo{Mode: preempt.Mode.String(), YoungestFirst: preempt.YoungestFirst,
			Preemptions: st.Preemptions, Requeued: st.PreemptRequeued, Cancelled: st.PreemptCancelled}
	}
	s.SetPredictions(st)
	s.ImmediateQueues = immQueues
	s.SharedQueues = sharedQueues
	if !lat.Zero() {
		s.SubmitLatency = lat.String()
	}
	if al != nil {
		s.Cluster = report.NewClusterInfo(spec)
		s.Cluster.Clusters = len(o.members)
		s.Cluster.AddMemberPartitions(o.members)
	}
	if sd != nil {
		s.ScoreD = &report.ScoreDInfo{MemoryKB: sd.MemKB, DiskKB: sd.DiskKB, MPL: sd.MPL}
		for _, q := range sd.Queues {
			s.ScoreD.Queues = append(s.ScoreD.Queues, report.ScoreDQueueInfo{MemoryPercent: q.MemPercent, DiskPercent: q.DiskPercent, Mode: q.Mode.String()})
		}
		s.ScoreD.Preempt = sd.Preempt.String()
		if c := o.sdClusters; c != nil {
			s.ScoreD.Clusters, s.ScoreD.Speeds, s.ScoreD.ClusterMemoryKB, s.ScoreD.ClusterDiskKB = c.Procs, c.Speed, c.MemKB, c.DiskKB
		}
		for _, c := range sd.Changes {
			if c.State != policy.Activated {
				s.ScoreD.Holds = append(s.ScoreD.Holds, report.ScoreDHold{Queue: c.Queue, At: c.At})
			}
		}
	}
	ts.AddTo(&s)
	s.Energy = o.energySum
	s.Breakdowns = bd.Breakdowns()
	if hw := s.Breakdowns.HourOfWeek; hw != nil {
		hw.Utilisation = report.HourOfWeekUtilisation(ts, cal)
	}
	o.summariseNodes(&s, st, ts)
	s.Constraints = cons
	s.ScaleTime(tick)
	if tick > 1 {
		s.TimeUnit = strings.ToLower(strings.TrimSpace(o.TimeUnit))
	}
	if o.ClosedLoop {
		s.ClosedLoop = &report.ClosedLoop{Following: st.LoopFollowing, Delayed: st.LoopDelayed, UnknownPreceding: st.LoopUnknown, NeverSubmitted: st.LoopNeverSubmitted}
	}
	s.Warnings = o.warnings(sd != nil, s.Cleaning)
	if s.ClosedLoop != nil && s.ClosedLoop.Following == 0 && s.Jobs > 0 {
		s.Warnings = append(s.Warnings, "--closed-loop: no job of the trace names a preceding job (SWF field 17), so every job is submitted at its recorded time, as without it")
	}
	for _, w := range s.Warnings {
		o.warnf("schedsim: warning: %s\n", w)
	}
	run := &report.Run{Summary: s, Waits: m.Waits(), Series: ts, Gantt: gantt, Calendar: cal, GanttFigureMax: o.ganttMaxJobs, Tick: tick}
	if o.energy != nil {
		run.Power = o.energy.Points()
	}
	res := &Result{Summary: s, Run: run}
	if hpc != nil {
		es := hpc.ExecStats()
		res.FilterCalls, res.FilterWall = es.Calls, es.Wall
	}
	return res, nil
}

// configHasFilters reports whether --config has HPC Pack filters or
// templates (a file with only a [cluster] or [hpcpack] has none, and then
// needs no filter state: its runs can be checkpointed). The file was
// loaded before, so it loads.
func (o *runner) configHasFilters() bool {
	c, err := o.runConfig()
	return err != nil || c.hasFilters()
}

// hpcPack builds the HPC Pack filters and templates of --config for one
// run; epoch is the wall-clock instant of the trace's time 0.
func (o *runner) hpcPack(epoch time.Time) (*hpcpack.Model, error) {
	cfg, err := o.runConfig()
	if err != nil {
		return nil, err
	}
	log := o.opt.FilterLog
	if log == nil {
		log = stderrLog
	}
	h, err := cfg.build(log, epoch)
	if err != nil {
		return nil, err
	}
	tick, err := o.ticks()
	if err != nil {
		h.Close()
		return nil, err
	}
	// HPC Pack's settings, templates and filters speak seconds; the
	// engine ticks.
	h.SetTick(workload.Time(tick))
	return h, nil
}

// jobTables are the per-job tables --format asks for: jobs.csv (whose
// observer cmdRun makes) and jobs.parquet.
type jobTables struct {
	csv, parquet bool
	pqFile       *report.AtomicFile
	pq           *report.JobsParquet
}

// parseJobTables parses --format: csv, parquet or both, comma-separated.
func parseJobTables(formats string) (*jobTables, error) {
	t := &jobTables{}
	for _, f := range strings.Split(formats, ",") {
		switch strings.TrimSpace(f) {
		case "csv":
			t.csv = true
		case "parquet":
			t.parquet = true
		default:
			return nil, inputf("--format %q: want csv, parquet or csv,parquet", formats)
		}
	}
	return t, nil
}

// open starts DIR/jobs.parquet if asked for.
func (t *jobTables) open(dir, traceName string) error {
	if !t.parquet {
		return nil
	}
	f, err := report.CreateAtomic(filepath.Join(dir, "jobs.parquet"))
	if err != nil {
		return err
	}
	t.pqFile, t.pq = f, report.NewJobsParquet(f, traceName)
	return nil
}

// observers returns the observers that write the tables asked for.
func (t *jobTables) observers(csv sim.Observer) []sim.Observer {
	var obs []sim.Observer
	if t.csv {
		obs = append(obs, csv)
	}
	if t.pq != nil {
		obs = append(obs, t.pq)
	}
	return obs
}

// commit finishes the tables asked for: jobsCSV, and jobs.parquet.
func (t *jobTables) commit(jobsCSV *report.AtomicFile) error {
	if t.pq != nil {
		if err := t.pq.Close(); err != nil {
			return err
		}
		if err := t.pqFile.Commit(); err != nil {
			return err
		}
	}
	if t.csv {
		return jobsCSV.Commit()
	}
	return nil
}

// abort removes an unfinished jobs.parquet.
func (t *jobTables) abort() {
	if t.pqFile != nil {
		t.pqFile.Abort()
	}
}

// files lists the tables written.
func (t *jobTables) files(dir string) []string {
	var names []string
	if t.csv {
		names = append(names, filepath.Join(dir, "jobs.csv"))
	}
	if t.parquet {
		names = append(names, filepath.Join(dir, "jobs.parquet"))
	}
	return names
}

// largestJob returns the largest processor count a job of the trace asks
// for or was given (0 when none can be read): the hint for a trace
// without a machine size.
func (o *runner) largestJob() int {
	if o.Trace == "" {
		return 0
	}
	rd, err := workload.Open(o.Trace, workload.Rules{}, workload.Raw())
	if err != nil {
		return 0
	}
	defer rd.Close()
	var j workload.Job
	n := 0
	for rd.Next(&j) == nil {
		n = max(n, j.ReqProcs, j.AllocProcs, j.Procs)
	}
	return n
}

// joinInts writes ns comma-separated ("1,6").
func joinInts(ns []int64) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(parts, ",")
}

// queueSet resolves list, the trace queues of the scenario key what
// (numbers, or names from the header's Queue lines), sorted without
// repeats; nil for an empty list.
func queueSet(what, list string, h *workload.Header) ([]int64, error) {
	if list == "" {
		return nil, nil
	}
	qs, err := workload.ResolveList(what, "Queue", list, h)
	if err != nil {
		return nil, &InputError{err}
	}
	if len(qs) == 0 {
		return nil, inputf("%s %q: no queue named", what, list)
	}
	slices.Sort(qs)
	return slices.Compact(qs), nil
}

// inQueues reports whether a job is of one of the queues qs.
func inQueues(qs []int64) func(j *workload.Job) bool {
	return func(j *workload.Job) bool { return slices.Contains(qs, int64(j.Queue)) }
}

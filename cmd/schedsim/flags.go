package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/policy"
)

// param lets a flag set a schedsim.Param as a string.
func param(p *schedsim.Param) *string { return (*string)(p) }

// registerScenario defines the flags of a scenario's fields on fs, bound to
// sc: each flag's default is sc's value, so that flags override a scenario
// file loaded into sc before. A flag's name is its TOML key with '-' for
// '_' (TestFlagsAreScenarioKeys holds them together).
func registerScenario(fs *pflag.FlagSet, sc *schedsim.Scenario) {
	fs.StringVar(&sc.Trace, "trace", sc.Trace, "trace file: SWF (plain or gzip), Parquet, Slurm accounting (sacct --parsable2 or --parsable) or a Batsim JSON workload, detected from its content (default: the embedded sample trace)")
	fs.IntVar(&sc.Procs, "procs", sc.Procs, "machine size in processors (default: the trace header's MaxProcs, else MaxNodes)")
	fs.StringVar(&sc.Backfill, "backfill", sc.Backfill, "backfilling: off (strict FCFS), easy (reservations for the first --reservation-depth jobs, backfill behind them), hpcpack (HPC Pack's window: a backfilled job must end by the head's start), conservative (a reservation for every job) or slurm")
	fs.StringVar(param(&sc.Lookahead), "lookahead", string(sc.Lookahead), "how many queued jobs behind the head are examined for backfilling: a number or all (HPC Pack's default is 1000)")
	fs.StringVar(param(&sc.ReservationDepth), "reservation-depth", string(sc.ReservationDepth), "with --backfill easy, how many queued jobs get reservations (Maui's RESERVATIONDEPTH): 1 is EASY, all is conservative backfilling")
	fs.StringVar(&sc.Order, "order", sc.Order, "queue priority order: fcfs (submission), sjf (shortest requested time), smallest or largest (processors), wfp3 or unicep (Tang et al. 2009), f1 (Carastan-Santos & de Camargo 2017) or multifactor (Slurm's priority/multifactor, see --priority); not with conservative")
	fs.StringVar(&sc.Priority, "priority", sc.Priority, "with --order multifactor, settings key=value,…: weight-age, weight-fairshare, weight-jobsize, weight-partition (default 1000, 10000, 1000, 1000), max-age, half-life (default 7d each), calc-period (default 5m), favor-small (yes/no)")
	fs.BoolVar(&sc.SJBF, "sjbf", sc.SJBF, "with --backfill easy (depth 1), examine backfill candidates shortest first (by estimate) instead of in queue order")
	fs.StringVar(&sc.PolicyExec, "policy-exec", sc.PolicyExec, "run the policy as a program of its own, this command line (run by /bin/sh -c in the working directory), e.g. 'python3 my_policy.py': it replaces --backfill and the other policy options and talks with schedsim over its standard input and output (protocol schedsim-policy/1, see the README's Write your own policy section; Python client and examples in policy/external/python); '-' speaks the protocol over schedsim's own standard input and output, to the process that started it")
	fs.StringVar(param(&sc.PolicyTimeout), "policy-timeout", string(sc.PolicyTimeout), "with --policy-exec, how long to wait for each answer of the program (wall time: 500ms, 30s, 2m; a bare number is seconds; default 60s); a program that does not answer in time is killed and the run stops")
	fs.StringVar(&sc.PolicyLog, "policy-log", sc.PolicyLog, "with --policy-exec, write every message exchanged with the program to this file, one a line: '> ' before those schedsim sent, '< ' before the program's answers (for debugging a policy)")
	fs.StringVar(&sc.Estimates, "estimates", sc.Estimates, "runtime estimates the scheduler plans with (jobs are still killed only at their requested time): user (the requested time), perfect (the run time), factor:F (F × run time, e.g. factor:2) or predict (average of the user's last two jobs, EASY++); factor and predict take :gradual (default), :requested or :double for a job that outlives its prediction")
	fs.StringVar(param(&sc.BFInterval), "bf-interval", string(sc.BFInterval), "with --backfill slurm, bf_interval: a backfill cycle every this many seconds (units s, m, h, d allowed; default 30s)")
	fs.StringVar(param(&sc.BFMaxJobTest), "bf-max-job-test", string(sc.BFMaxJobTest), "with --backfill slurm, bf_max_job_test: jobs examined per backfill cycle, a number or all (default 500)")
	fs.StringVar(param(&sc.BFWindow), "bf-window", string(sc.BFWindow), "with --backfill slurm, bf_window: reservations only for jobs that can start within this time (default 1d)")
	fs.StringVar(param(&sc.BFResolution), "bf-resolution", string(sc.BFResolution), "with --backfill slurm, bf_resolution: time granularity of the backfill plan (default 60s)")
	fs.BoolVar(&sc.BFContinue, "bf-continue", sc.BFContinue, "with --backfill slurm, bf_continue (no effect on the schedule: a simulated cycle is instantaneous; recorded in the policy name)")
	fs.StringVar(&sc.BFPlan, "bf-plan", sc.BFPlan, "with --backfill slurm on a cluster of nodes, the backfill plan: nodes (default: reservations are sets of nodes over time, as sched/backfill with select/cons_tres or linear builds them) or procs (processor counts, schedsim's plan before)")
	fs.StringVar(param(&sc.BFPhase), "bf-phase", string(sc.BFPhase), "with --backfill slurm, the backfill cycle's phase: cycles at this many seconds past each multiple of --bf-interval from the trace's time 0 (default 0)")
	fs.StringVar(param(&sc.BFWindowLinear), "bf-window-linear", string(sc.BFWindowLinear), "with --backfill slurm on nodes, bf_window_linear: WILL_RUN groups running jobs' ends in windows of 30 s that double after each group (default), or grow by this many seconds")
	fs.StringVar(param(&sc.BFCompleting), "bf-completing", string(sc.BFCompleting), "with --backfill slurm on nodes, how long after a job's end the backfill cycle still holds its nodes (it runs before slurmctld takes the end in: see --bf-ended; the main scheduler starts jobs on them at once): default 1s, 0 for none")
	fs.StringVar(&sc.BFGroups, "bf-groups", sc.BFGroups, "with --backfill slurm on nodes, how WILL_RUN groups running jobs' ends: aligned (default: on a barrier, the first usable end rounded up to a multiple of 30 s, as select/cons_tres does) or first (a window from each group's first end, schedsim's rule before)")
	fs.StringVar(&sc.BFEndLatency, "bf-end-latency", sc.BFEndLatency, "with --backfill slurm on nodes and --bf-ended phase, how long after a backfill cycle's instant plus its run time a job it started completes in slurmctld, in ms or us (default 22ms, measured on the check's machine; see README)")
	fs.StringVar(&sc.BFEnded, "bf-ended", sc.BFEnded, "with --backfill slurm on nodes, what the backfill cycle of the second a job ended sees of it: phase (default: ended if the cycle ran after it, from the cycles' sub-second drift, as slurmctld starts each cycle bf_interval after the previous one ended), running (always running until its predicted end, schedsim's rule before) or completing (until the end plus --bf-completing, the rule before that)")
	fs.StringVar(&sc.SchedMain, "sched-main", sc.SchedMain, "with --backfill slurm, what runs the main scheduler: ends (job ends only, as slurmctld 22.05: a new job waits for the backfill cycle; default on a cluster of nodes) or events (every submission and end; default on a pool of processors)")
	fs.StringVar(param(&sc.DefaultQueueDepth), "default-queue-depth", string(sc.DefaultQueueDepth), "with --backfill slurm, default_queue_depth: jobs the main scheduler examines at each event, a number or all (default 100)")
	fs.StringVar(&sc.ProcsFrom, "procs-from", sc.ProcsFrom, "processor count from: requested (field 8, else allocated) or allocated (field 5, else requested)")
	fs.StringVar(&sc.ZeroRun, "zero-run", sc.ZeroRun, "jobs with run time ≤ 0: drop, or one (run 1 s)")
	fs.StringVar(&sc.MissingEstimate, "missing-estimate", sc.MissingEstimate, "jobs without requested time: none (never backfilled, never killed) or runtime (use the run time)")
	fs.StringVar(&sc.Overrun, "overrun", sc.Overrun, "jobs running longer than requested: kill (at the requested time) or extend (raise the request)")
	fs.StringVar(&sc.Partial, "partial", sc.Partial, "partial records (status 2/3/4): auto (drop under 'Preemption: Double'), drop or keep")
	fs.StringVar(param(&sc.Status), "status", string(sc.Status), "keep only jobs with these statuses, e.g. 1 or 0,1,5 (default: all)")
	fs.StringVar(&sc.DuplicateID, "duplicate-id", sc.DuplicateID, "jobs whose job number an earlier job has: error (stop with a message), keep or drop (counted in the summary)")
	fs.StringVar(&sc.ExtraFields, "extra-fields", sc.ExtraFields, "an SWF line with more than 18 fields (extended SWF of other simulators): error (default; the message names the line), or ignore (read the first 18, counted in the summary)")
	fs.StringVar(param(&sc.From), "from", string(sc.From), "replay only the jobs submitted at or after this time: seconds from the log's start (units s, m, h, d allowed) or, when the header has UnixStartTime, a date-time such as 1996-07-01 or 1996-07-01T08:00:00")
	fs.StringVar(param(&sc.Until), "until", string(sc.Until), "replay only the jobs submitted before this time (same forms as --from)")
	fs.Int64Var(&sc.MaxJobs, "max-jobs", sc.MaxJobs, "replay only the first N jobs that the other rules keep (0: all)")
	fs.StringVar(&sc.Users, "users", sc.Users, "replay only these users' jobs: user numbers (SWF field 12), comma-separated")
	fs.StringVar(&sc.ImmediateQueues, "immediate-queues", sc.ImmediateQueues, "trace queues (SWF field 15: numbers, or names from the header's Queue lines, comma-separated) whose jobs start the moment they are submitted, beside the machine and on none of its processors: interactive or non-dedicated jobs that no policy, limit or reservation holds; not with --closed-loop")
	fs.StringVar(&sc.SharedQueues, "shared-queues", sc.SharedQueues, "trace queues (as --immediate-queues names them) whose jobs ran time-shared (non-dedicated): each starts as soon as it is queued and its start windows and the outages let it, whatever processors are idle, and its processors count as busy for every other job; on a machine counted in processors")
	fs.StringVar(&sc.JobQueues, "job-queues", sc.JobQueues, "replay only the jobs of these trace queues (SWF field 15): numbers, or names from the header's Queue lines, comma-separated (--queues is SCore-D's number of priority queues)")
	fs.StringVar(&sc.Partitions, "partitions", sc.Partitions, "replay only the jobs of these trace partitions (SWF field 16): numbers, or names from the header's Partition lines, comma-separated")
	fs.StringVar(&sc.TimeZone, "timezone", sc.TimeZone, "the time zone of the trace's wall clock, such as Europe/Paris or UTC+02:00: of a Slurm accounting file's times (default UTC), and over the SWF header's TimeZoneString, of the calendar of reservations, start windows and the reports' time axes")
	fs.StringVar(param(&sc.SchedInterval), "sched-interval", string(sc.SchedInterval), "the scheduler's cycle, for every policy: a scheduling pass at most every this many seconds, at whole cycles from the first submission (units s, m, h, d allowed; like Slurm's sched_interval or a PBS cycle); 0 = a pass at every event")
	fs.BoolVar(&sc.ClosedLoop, "closed-loop", sc.ClosedLoop, "replay the trace's feedback (SWF fields 17 and 18): a job that names a preceding job is submitted at its recorded time or, if later, when that job has ended plus the think time; a preceding job rejected or failed ends then; one not in the trace, later in it or dropped by a cleaning rule is ignored (the job keeps its time; counted in summary.json's closed_loop)")
	fs.StringVar(&sc.Holds, "holds", sc.Holds, "a file of job release times, lines JOB HOLD_UNTIL (job number, seconds from the trace's start; # comments): a job it names does not start before its time, under every policy (schedsim infer --holds writes one for the jobs a log shows held)")
	fs.StringVar(&sc.SubmitLatency, "submit-latency", sc.SubmitLatency, "how long after its submission a job reaches the scheduler, a real machine's submission and dispatch delay: 15s for every job, or 15s,2=4s with queue 2's own (SWF field 15, a number or a Queue name; units s, m, h, d): it joins the queue then, as if held until then; an immediate queue's jobs still start at submission (schedsim infer writes it)")
	fs.Float64Var(&sc.BatsimSpeed, "batsim-speed", sc.BatsimSpeed, "the speed of Batsim's hosts in flops per second, for a Batsim workload's parallel_homogeneous profiles (their run time is cpu/speed)")
	fs.StringVar(&sc.SlurmConf, "slurm-conf", sc.SlurmConf, "model the machine of this slurm.conf: NodeName and PartitionName lines, SelectType (linear or cons_res), and with --backfill slurm its SchedulerParameters (flags override them); unknown keys are listed")
	fs.StringVar(&sc.PartitionMap, "partition-map", sc.PartitionMap, "give the cluster's partitions (slurm.conf or [cluster]) the trace's partition numbers (SWF field 16), e.g. batch=1,debug=4 (default: a partition's swf key, else the number the trace header's Partition lines give its name, else its position when the header names none)")
	fs.StringVar(&sc.Config, "config", sc.Config, "run configuration file (TOML): HPC Pack submission and activation filters, job templates (see the README's HPC Pack filters section)")
	fs.StringVar(&sc.Columns, "columns", sc.Columns, "Parquet column mapping: a preset (pm100, fdata) or target=column[:unit][?],… (see the README's Workloads section; default: schedsim's own schema)")
	fs.StringVar(&sc.Mode, "mode", sc.Mode, "SCore-D priority queues in this mode, gang (time sharing) or exclusive (space sharing): replaces --backfill and the other policy options (see the README's SCore-D queues section)")
	fs.IntVar(&sc.Queues, "queues", sc.Queues, fmt.Sprintf("with SCore-D queues, the number of priority queues, 0 highest (default %d, or the [[scored.queue]] tables of --config)", policy.DefaultQueues))
	fs.IntVar(&sc.MPL, "mpl", sc.MPL, fmt.Sprintf("with SCore-D queues, the gang multiprogramming level: rows of the Ousterhout matrix (default %d)", policy.DefaultMPL))
	fs.StringVar(param(&sc.Quantum), "quantum", string(sc.Quantum), fmt.Sprintf("with SCore-D queues, the gang time quantum in milliseconds, units ms, s, m allowed (default %dms)", policy.DefaultQuantumMs))
	fs.StringVar(param(&sc.SwitchOverhead), "switch-overhead", string(sc.SwitchOverhead), fmt.Sprintf("with SCore-D queues, the cost of one gang switch in milliseconds (default %dms)", policy.DefaultSwitchMs))
	fs.StringVar(&sc.Preempt, "preempt", sc.Preempt, "with SCore-D queues, what a blocked higher-priority job does to lower-priority running jobs: suspend (default), requeue, cancel or off")
	fs.StringVar(&sc.QueueMap, "queue-map", sc.QueueMap, "with SCore-D queues, trace queue numbers (SWF field 15, Parquet column queue) to queue indices, e.g. 1=0,2=1,*=2 (default: the same number if it names a queue, else the last queue)")
	fs.StringArrayVar(&sc.QueueStates, "queue-state", sc.QueueStates, "with SCore-D queues, a scheduled queue state change Q=STATE@FROM[-TO], STATE activated, deactivated or disabled, e.g. 2=deactivated@86400-172800 (repeatable)")
	fs.BoolVar(&sc.Grow, "grow", sc.Grow, "HPC Pack's min/max job model: a job with min_procs/max_procs (Parquet, job XML MinCores/MaxCores) starts on its minimum and running jobs grow toward their maximum before backfilling, each growth passing the activation filters (also [hpcpack] grow = true in --config); not with --backfill conservative or slurm, --mode, or a cluster of nodes (see the README's \"What combines with what\")")
	fs.StringVar(&sc.Speedup, "speedup", sc.Speedup, "with --grow, the run time on a changed processor count, relative to the trace's run time on its own count: linear (default) or amdahl:F with serial fraction F, e.g. amdahl:0.1 (also [hpcpack] speedup in --config)")
	fs.StringVar(&sc.NodeEvents, "node-events", sc.NodeEvents, "node failures and maintenance: a file of lines TIME STATE NODES [REASON] (STATE DOWN, DRAIN or RESUME; NODES 17, 0-102 or 0-9,20-29; TIME in seconds, units s, m, h, d allowed; # comments), or a Parquet table with columns time, state, nodes, reason; see the README's Node failures section")
	fs.StringVar(&sc.OnNodeFail, "on-node-fail", sc.OnNodeFail, "with --node-events, the jobs running on a node that goes down are killed (kill) or put back in the queue at their place to run again (requeue)")
	fs.IntVar(&sc.NodeSize, "node-size", sc.NodeSize, "with --node-events on the processor pool, processors per node: node n is processors n·N to n·N+N-1 (a [cluster] has its own nodes)")
	fs.StringVar(&sc.TimeUnit, "time-unit", sc.TimeUnit, "the run's time unit: s (default), ms or us; a finer unit keeps a Batsim workload's fractional times (Batsim workloads only); durations given in seconds count in it, and outputs print seconds with the fraction or name the unit")
	fs.StringVar(&sc.Power, "power", sc.Power, "a power model: a SimGrid/Batsim platform file (XML) whose compute hosts' watt_per_state and sleep_pstates describe the nodes (the machine uses its first nodes; on a cluster, hosts named after its node classes give each class its power, else they are its nodes node for node), or give it as --config's [power] table; the run then writes consumed_energy in jobs.csv, consumed_energy.csv, pstate_changes.csv, machine_states.csv and the energy in summary.json (see the README's Energy section)")
	fs.StringVar(&sc.PowerPolicy, "power-policy", sc.PowerPolicy, "with a power model with a sleep state: none (default); idle:T — switch off a node idle for T (30m, 600), switch sleeping nodes on when the queued jobs need them (batsim-py's TimeoutPolicy); plan — switch off a node idle for the break-even time unless the head job's reservation needs it, switch nodes on in time for it; on the processor pool or a cluster's nodes, under every built-in policy (SCore-D's queues: idle:T, a node no row of the matrix holds), with growing jobs and node events (on the pool --node-size the model's cores); see the README's Energy section")
	fs.BoolVar(&sc.PowerJobsIdle, "power-jobs-idle", sc.PowerJobsIdle, "with a power model, Batsim's convention: a job's busy cores draw their idle power, as Batsim's delay jobs do (default: the busy power, epsilon to all-cores)")
}

// registerOutputs defines the flags of a scenario's outputs on fs.
func registerOutputs(fs *pflag.FlagSet, sc *schedsim.Scenario) {
	fs.StringVar(&sc.Out, "out", sc.Out, "write DIR/jobs.csv (Batsim's columns) and DIR/summary.json; the directory is created if needed")
	fs.StringVar(&sc.Format, "format", sc.Format, "with --out, the per-job tables to write: csv (jobs.csv), parquet (jobs.parquet, same columns, typed) or csv,parquet")
	fs.BoolVar(&sc.Plots, "plots", sc.Plots, "with --out, also write the plots (NAME.svg and NAME.png) and DIR/report.html; --plots=false skips them")
	fs.IntVar(&sc.GanttMaxJobs, "gantt-max-jobs", sc.GanttMaxJobs, "draw gantt.svg and gantt.png only for runs of at most this many jobs (0: no Gantt chart at all, the page's included)")
	fs.IntVar(&sc.PageGanttMaxJobs, "page-gantt-max-jobs", sc.PageGanttMaxJobs, "show report.html's explorable Gantt chart only for runs of at most this many jobs, up to 1048576 (its data, about 50 bytes a job, is embedded in the page; 0: none)")
}

// scenarioFlags are the names of registerScenario's flags.
var scenarioFlags = func() map[string]bool {
	fs := pflag.NewFlagSet("probe", pflag.ContinueOnError)
	sc := schedsim.Default()
	registerScenario(fs, &sc)
	names := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
	return names
}()

// isScenarioFlag reports whether name is a flag of registerScenario: a
// scenario key that changes a run's result.
func isScenarioFlag(name string) bool { return scenarioFlags[name] }

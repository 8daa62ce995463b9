// Package schedsim is the composition root of the schedsim simulator: the
// typed description of a run (Scenario), loaded from a TOML file or filled
// from the command line's flags, and Run, which replays the scenario's
// trace under its policy and writes its outputs. `schedsim run` is
// flags → Scenario → Run; a Go program that wants a run as the command line
// makes it calls the same function.
//
// The lower packages are the model: workload (jobs, traces), cluster
// (machines, node selection), policy (queues, backfilling), sim (the
// engine) and report (metrics, tables, plots).
package schedsim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/report"
	"github.com/schedsim/schedsim/workload"
)

// Param is a scenario value that the command line gives as text and a TOML
// file as a string or a number: a count that may be "all" (lookahead =
// 100, lookahead = "all") or a duration with a unit (bf_interval = 30,
// bf_interval = "30s"). Its meaning is checked when the run is built.
type Param string

// UnmarshalTOML implements toml.Unmarshaler: a string, an integer or a
// float is kept as its text.
func (p *Param) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*p = Param(x)
	case int64:
		*p = Param(strconv.FormatInt(x, 10))
	case float64:
		*p = Param(strconv.FormatFloat(x, 'g', -1, 64))
	case bool:
		*p = Param(strconv.FormatBool(x))
	default:
		return fmt.Errorf("%v: want a string or a number", v)
	}
	return nil
}

// Scenario is the typed description of one run: the trace and its cleaning
// rules, the machine, the policy and its parameters, the estimator, the
// SCore-D queues, HPC Pack's job model, node events, and the outputs. Each
// field is one option of `schedsim run`: the TOML key is the flag's name
// with '_' for '-', and the command line's flags override a scenario
// file's values. The run configuration file (Config: HPC Pack's filters
// and templates, [cluster], [[clusters]], [scored], [hpcpack]) may be a
// separate file or the scenario file itself.
//
// The zero value is not a valid scenario; start from Default.
type Scenario struct {
	// Trace is the workload: SWF (plain or gzip) or Parquet, detected from
	// its content; "" replays the embedded sample trace.
	Trace string `toml:"trace" json:"trace"`
	// TimeUnit is the run's tick: s (the default, ""), ms or us. A finer
	// unit keeps a Batsim workload's fractional times (see TimeUnitTicks).
	TimeUnit string `toml:"time_unit" json:"time_unit,omitempty"`
	// Columns maps a Parquet file's columns onto schedsim's (a preset or
	// target=column[:unit][?],…).
	Columns string `toml:"columns" json:"columns,omitempty"`

	// Cleaning rules (SPEC §1): each names what happens to missing or
	// inconsistent fields; see workload.Rules.
	ProcsFrom       string `toml:"procs_from" json:"procs_from"`
	ZeroRun         string `toml:"zero_run" json:"zero_run"`
	MissingEstimate string `toml:"missing_estimate" json:"missing_estimate"`
	Overrun         string `toml:"overrun" json:"overrun"`
	Partial         string `toml:"partial" json:"partial"`
	Status          Param  `toml:"status" json:"status,omitempty"`
	DuplicateID     string `toml:"duplicate_id" json:"duplicate_id"`
	// ExtraFields is error or ignore: an SWF line with more than 18
	// fields (extended SWF of other simulators).
	ExtraFields string `toml:"extra_fields" json:"extra_fields,omitempty"`

	// Selection of a window and subsets of the trace (workload.Rules):
	// From and Until are seconds from the log's start (units allowed) or,
	// when the header has UnixStartTime, a date-time; MaxJobs keeps the
	// first jobs; Users, JobQueues and Partitions keep the jobs whose
	// field is in the comma-separated list (numbers, or names the
	// header's Queue/Partition lines give).
	From       Param  `toml:"from" json:"from,omitempty"`
	Until      Param  `toml:"until" json:"until,omitempty"`
	MaxJobs    int64  `toml:"max_jobs" json:"max_jobs,omitempty"`
	Users      string `toml:"users" json:"users,omitempty"`
	JobQueues  string `toml:"job_queues" json:"job_queues,omitempty"`
	Partitions string `toml:"partitions" json:"partitions,omitempty"`

	// TimeZone is the zone of the trace's wall clock: of a sacct file's
	// times (default UTC), and of the calendar that places reservations,
	// start windows and the reports' calendar axes, over the SWF
	// header's TimeZoneString (an IANA name, or an offset UTC+02:00).
	TimeZone string `toml:"timezone" json:"timezone,omitempty"`
	// BatsimSpeed is the hosts' speed in flops per second, for Batsim's
	// parallel_homogeneous profiles.
	BatsimSpeed float64 `toml:"batsim_speed" json:"batsim_speed,omitempty"`
	// ClosedLoop replays the trace's feedback, SWF fields 17 (preceding
	// job) and 18 (think time): a job is submitted no earlier than its
	// preceding job's end plus the think time (sim.Config.ClosedLoop).
	ClosedLoop bool `toml:"closed_loop" json:"closed_loop,omitempty"`
	// Holds is a file of job release times (lines JOB HOLD_UNTIL, seconds
	// from the trace's start; workload.ParseHolds): a job it names may not
	// start before its time (its Hold Until). schedsim infer --holds
	// writes one for the jobs a log shows held by something it does not
	// record.
	Holds string `toml:"holds" json:"holds,omitempty"`
	// ImmediateQueues are the trace queues (SWF field 15: numbers, or
	// names from the header's Queue lines, comma-separated) whose jobs
	// start the moment they are submitted, beside the machine, on none of
	// its processors: interactive or non-dedicated jobs, which no policy,
	// limit or reservation holds (sim.Config.Immediate). schedsim infer
	// writes them for the queues whose jobs all started at once while
	// other queues' jobs waited.
	ImmediateQueues string `toml:"immediate_queues" json:"immediate_queues,omitempty"`
	// SharedQueues are the trace queues (as ImmediateQueues names them)
	// whose jobs ran time-shared, non-dedicated (sim.Config.Shared): each
	// starts as soon as it is queued and its start windows and the
	// reservations holding the whole machine let it, whatever processors
	// are idle, and its processors count as busy for every other job.
	// schedsim infer writes it for the non-dedicated queues of a
	// time-shared log.
	SharedQueues string `toml:"shared_queues" json:"shared_queues,omitempty"`
	// SubmitLatency is how long after its submission a job reaches the
	// scheduler (workload.ParseLatency): "15s" for every job, "15s,2=4s"
	// with queue 2's own. A job joins the queue then, as if held until
	// then; an immediate queue's jobs start at their submission all the
	// same. schedsim infer writes it from the waits of the jobs that
	// found their processors idle at submission and started within a
	// minute.
	SubmitLatency string `toml:"submit_latency" json:"submit_latency,omitempty"`

	// Procs is the machine size in processors; 0 takes the trace
	// header's MaxProcs, else its MaxNodes.
	Procs int `toml:"procs" json:"procs,omitempty"`
	// SlurmConf models the machine (and, with Backfill "slurm", the
	// backfill parameters) of a slurm.conf.
	SlurmConf string `toml:"slurm_conf" json:"slurm_conf,omitempty"`
	// PartitionMap gives partitions of the cluster description (slurm.conf
	// or [cluster]) the trace's partition numbers (SWF field 16):
	// "batch=1,debug=4". Without it a partition gets its swf key, else the
	// number the trace header's Partition lines give its name, else its
	// position (only when the header names none of the partitions).
	PartitionMap string `toml:"partition_map" json:"partition_map,omitempty"`
	// Config is the run configuration file (TOML): HPC Pack's filters and
	// job templates, [cluster], [[clusters]], [scored], [hpcpack].
	Config string `toml:"config" json:"config,omitempty"`

	// Backfill is off, easy, conservative or slurm (policy.Backfill).
	Backfill string `toml:"backfill" json:"backfill"`
	// Lookahead is how many queued jobs behind the head are examined for
	// backfilling: a number or all.
	Lookahead Param `toml:"lookahead" json:"lookahead"`
	// ReservationDepth is how many queued jobs get reservations under
	// easy: a number or all.
	ReservationDepth Param `toml:"reservation_depth" json:"reservation_depth"`
	// Order is the queue's priority order (policy.OrderNames).
	Order string `toml:"order" json:"order"`
	// Priority holds multifactor's settings, key=value,….
	Priority string `toml:"priority" json:"priority,omitempty"`
	// SJBF examines backfill candidates shortest first.
	SJBF bool `toml:"sjbf" json:"sjbf,omitempty"`
	// Estimates is what the scheduler plans with (policy.ParseEstimator).
	Estimates string `toml:"estimates" json:"estimates"`

	// ExternalOptions are a policy run as a program of its own (package
	// policy/external).
	ExternalOptions

	// Slurm's backfill parameters (Backfill "slurm"); "" takes Slurm's
	// default or the slurm.conf's.
	BFInterval Param `toml:"bf_interval" json:"bf_interval,omitempty"`
	// SchedInterval is the scheduler's cycle for every policy: a pass at
	// most every this many seconds (sim.Config.SchedInterval); 0, the
	// default, is a pass at every event.
	SchedInterval     Param `toml:"sched_interval" json:"sched_interval,omitempty"`
	BFMaxJobTest      Param `toml:"bf_max_job_test" json:"bf_max_job_test,omitempty"`
	BFWindow          Param `toml:"bf_window" json:"bf_window,omitempty"`
	BFResolution      Param `toml:"bf_resolution" json:"bf_resolution,omitempty"`
	DefaultQueueDepth Param `toml:"default_queue_depth" json:"default_queue_depth,omitempty"`
	BFContinue        bool  `toml:"bf_continue" json:"bf_continue,omitempty"`
	// BFPlan is "nodes" (the default on a cluster of nodes: reservations
	// are node sets) or "procs" (processor counts, as before).
	BFPlan string `toml:"bf_plan" json:"bf_plan,omitempty"`
	// BFPhase is the backfill cycle's phase, seconds after the trace's
	// time 0; BFWindowLinear is bf_window_linear; BFCompleting how long an
	// ended job's nodes stay out of the cycle's reach (0: none); SchedMain
	// "ends" or "events" (what runs the main scheduler).
	BFPhase        Param  `toml:"bf_phase" json:"bf_phase,omitempty"`
	BFWindowLinear Param  `toml:"bf_window_linear" json:"bf_window_linear,omitempty"`
	BFCompleting   Param  `toml:"bf_completing" json:"bf_completing,omitempty"`
	SchedMain      string `toml:"sched_main" json:"sched_main,omitempty"`
	// BFGroups is how WILL_RUN groups running jobs' ends: "aligned" (the
	// default: on a barrier at a multiple of 30 s, as select/cons_tres
	// does) or "first" (a window from each group's first end, as before);
	// BFEnded is what the backfill cycle of the second a job ended sees of
	// it: "phase" (the default: ended if the cycle ran after the end, from
	// the cycles' sub-second drift), "running" (until its predicted end,
	// as before) or "completing" (until the end plus BFCompleting).
	BFGroups string `toml:"bf_groups" json:"bf_groups,omitempty"`
	BFEnded  string `toml:"bf_ended" json:"bf_ended,omitempty"`
	// BFEndLatency is, under BFEnded "phase", how long after a backfill
	// cycle's instant plus its run time a job it started completes in
	// slurmctld ("22ms", the default, or microseconds "22000us").
	BFEndLatency string `toml:"bf_end_latency" json:"bf_end_latency,omitempty"`

	// ScoreDOptions are SCore-D's priority queues (SPEC §4).
	ScoreDOptions
	// GrowOptions are HPC Pack's job model with minimum and maximum
	// resources.
	GrowOptions
	// NodeOptions are node failures and maintenance.
	NodeOptions
	// PowerOptions are the power model (energy.go).
	PowerOptions

	// Out is the output directory; "" writes nothing (the summary is
	// returned, and printed by the command line).
	Out string `toml:"out" json:"out,omitempty"`
	// Format lists the per-job tables: csv, parquet or csv,parquet.
	Format string `toml:"format" json:"format"`
	// Plots also writes the plots and report.html.
	Plots bool `toml:"plots" json:"plots"`
	// GanttMaxJobs draws the Gantt chart only for runs of at most this
	// many jobs (0: never).
	GanttMaxJobs int `toml:"gantt_max_jobs" json:"gantt_max_jobs"`
	// PageGanttMaxJobs shows report.html's explorable Gantt chart only for
	// runs of at most this many jobs (0: never; at most
	// report.PageGanttMaxJobs): its data is embedded in the page.
	PageGanttMaxJobs int `toml:"page_gantt_max_jobs" json:"page_gantt_max_jobs"`
}

// ScoreDOptions are the options of SCore-D's priority queues (SPEC §4). A
// run uses SCore-D queues when Mode is set or the run configuration has a
// [scored] table; these options then override the table's values.
type ScoreDOptions struct {
	// Mode is gang (time sharing) or exclusive (space sharing).
	Mode string `toml:"mode" json:"mode,omitempty"`
	// Queues is the number of priority queues (0: the default or the
	// [[scored.queue]] tables).
	Queues int `toml:"queues" json:"queues,omitempty"`
	// MPL is the gang multiprogramming level.
	MPL int `toml:"mpl" json:"mpl,omitempty"`
	// Quantum is the gang time quantum (milliseconds, units allowed).
	Quantum Param `toml:"quantum" json:"quantum,omitempty"`
	// SwitchOverhead is the cost of one gang switch (milliseconds).
	SwitchOverhead Param `toml:"switch_overhead" json:"switch_overhead,omitempty"`
	// Preempt is suspend, requeue, cancel or off.
	Preempt string `toml:"preempt" json:"preempt,omitempty"`
	// QueueMap maps trace queue numbers to queue indices (1=0,2=1,*=2).
	QueueMap string `toml:"queue_map" json:"queue_map,omitempty"`
	// QueueStates are scheduled queue state changes Q=STATE@FROM[-TO].
	QueueStates []string `toml:"queue_state" json:"queue_state,omitempty"`
}

// ExternalOptions are the options of an external policy: a program that
// decides what starts, through the protocol of package policy/external
// (the README's "Write your own policy").
type ExternalOptions struct {
	// PolicyExec is the program's command line, run by /bin/sh -c; it
	// replaces --backfill and the other policy options. "-" makes
	// schedsim speak the protocol over its own standard input and output.
	PolicyExec string `toml:"policy_exec" json:"policy_exec,omitempty"`
	// PolicyTimeout bounds the wall time of each answer (a duration with
	// a unit, 30s, 2m; default 60s).
	PolicyTimeout Param `toml:"policy_timeout" json:"policy_timeout,omitempty"`
	// PolicyLog is a file that receives every message exchanged with the
	// program, one a line ("> " sent, "< " received).
	PolicyLog string `toml:"policy_log" json:"policy_log,omitempty"`
}

// GrowOptions are HPC Pack's min/max job model (sim.Grow).
type GrowOptions struct {
	// Grow starts jobs on their minimum and grows running jobs toward
	// their maximum before backfilling.
	Grow bool `toml:"grow" json:"grow,omitempty"`
	// Speedup is the run-time model: linear or amdahl:F.
	Speedup string `toml:"speedup" json:"speedup,omitempty"`
}

// NodeOptions are the node failure and maintenance options of a run.
type NodeOptions struct {
	// NodeEvents is a file of node events (DOWN, DRAIN, RESUME).
	NodeEvents string `toml:"node_events" json:"node_events,omitempty"`
	// OnNodeFail is kill or requeue.
	OnNodeFail string `toml:"on_node_fail" json:"on_node_fail"`
	// NodeSize is processors per node on the processor pool.
	NodeSize int `toml:"node_size" json:"node_size"`
}

// PowerOptions are the power model of a run: with one, a run meters its
// nodes' energy and writes Batsim's energy outputs.
type PowerOptions struct {
	// Power is a SimGrid/Batsim platform file (XML) whose hosts' power
	// states are the machine's; the run configuration's [power] table is
	// the other way to give them.
	Power string `toml:"power" json:"power,omitempty"`
	// PowerJobsIdle is Batsim's convention: a job's busy cores draw their
	// idle power (Batsim runs a trace's "delay" job as a sleep).
	PowerJobsIdle bool `toml:"power_jobs_idle" json:"power_jobs_idle,omitempty"`
	// PowerPolicy switches idle nodes off and on: "" or none (never),
	// idle:T (switch off a node idle for T, switch nodes on for the
	// queue).
	PowerPolicy string `toml:"power_policy" json:"power_policy,omitempty"`
}

// Default returns the scenario of `schedsim run` without options: the
// embedded sample trace under EASY backfilling with HPC Pack's default
// lookahead, the trace's machine, and the default cleaning rules.
func Default() Scenario {
	return Scenario{
		ProcsFrom:        string(workload.ProcsRequested),
		ZeroRun:          string(workload.RunDrop),
		MissingEstimate:  string(workload.EstimateNone),
		Overrun:          string(workload.OverrunKill),
		Partial:          string(workload.PartialAuto),
		DuplicateID:      string(workload.DuplicateError),
		Backfill:         string(policy.BackfillEASY),
		Lookahead:        Param(strconv.Itoa(policy.DefaultLookahead)),
		ReservationDepth: "1",
		Order:            policy.OrderFCFS,
		Estimates:        policy.EstimatesUser,
		NodeOptions:      NodeOptions{OnNodeFail: "kill", NodeSize: 1},
		Format:           "csv",
		Plots:            true,
		GanttMaxJobs:     report.DefaultGanttMaxJobs,
		PageGanttMaxJobs: report.DefaultPageGanttMaxJobs,
	}
}

// scenarioKeys are the TOML keys of a Scenario, found from its tags.
var scenarioKeys = func() map[string]bool {
	keys := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			if k := f.Tag.Get("toml"); k != "" && k != "-" {
				keys[k] = true
			}
		}
	}
	walk(reflect.TypeOf(Scenario{}))
	return keys
}()

// Keys returns the TOML keys of a scenario, which are also the names of
// the command line's options with '_' for '-'.
func Keys() []string {
	var ks []string
	for k := range scenarioKeys {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// LoadScenario reads a scenario file (TOML) over base: every key the file
// sets replaces base's value. The file may also hold the run
// configuration's tables ([filters], [cluster], [scored], …); Config then
// names the file itself. Relative paths in the file (trace, config,
// slurm_conf, node_events, out) are relative to the file's directory. A
// malformed file, an unknown key or a bad value is an *InputError naming
// the file, its line and the key.
func LoadScenario(path string, base Scenario) (Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return base, inputf("scenario file: %w", err)
	}
	if err := checkTOMLDepth(path, data); err != nil {
		return base, err
	}
	sc := base
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&sc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return base, inputf("%s: line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return base, inputf("%s: %v", path, err)
	}
	var unknown []string
	configTables := false
	for _, k := range md.Undecoded() {
		top := k[0]
		if isConfigTable(top) {
			configTables = true
			continue
		}
		unknown = append(unknown, k.String())
	}
	if len(unknown) > 0 {
		return base, inputf("%s: unknown key %s (the keys are the options of `schedsim run --help`, with '_' for '-', and the run configuration's tables)", path, strings.Join(unknown, ", "))
	}
	dir := filepath.Dir(path)
	for _, f := range []struct {
		key string
		p   *string
	}{{"trace", &sc.Trace}, {"config", &sc.Config}, {"slurm_conf", &sc.SlurmConf}, {"node_events", &sc.NodeEvents}, {"holds", &sc.Holds}, {"power", &sc.Power}, {"out", &sc.Out}, {"policy_log", &sc.PolicyLog}} {
		if md.IsDefined(f.key) && *f.p != "" && !filepath.IsAbs(*f.p) {
			*f.p = filepath.Join(dir, *f.p)
		}
	}
	if configTables {
		if sc.Config != "" && sc.Config != base.Config {
			return base, inputf("%s: config = %q and the file's own run configuration tables: give one", path, sc.Config)
		}
		sc.Config = path
	}
	return sc, nil
}

// isConfigTable reports whether key is a top-level table of the run
// configuration file (config.go), which a scenario file may hold.
func isConfigTable(key string) bool {
	switch key {
	case "filters", "licenses", "quota", "require_runtime", "max_size", "programs",
		"templates", "template_rules", "cluster", "hpcpack", "clusters", "scored",
		"reservation", "limit", "start_window", "power", "priority_tier":
		return true
	}
	return false
}

// maxTOMLDepth bounds the nesting of tables and arrays in a TOML file:
// deeper files are refused before they are parsed, which keeps parsing
// time and memory bounded (the TOML library's cost grows faster than the
// depth). No configuration of schedsim nests more than four levels.
const maxTOMLDepth = 64

// checkTOMLDepth refuses a TOML file whose brackets or braces nest deeper
// than maxTOMLDepth, naming the line. Strings and comments are skipped.
func checkTOMLDepth(path string, data []byte) error {
	depth, line := 0, 1
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line++
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
		case '"', '\'':
			// Skip the string (multi-line strings count their lines).
			q := c
			multi := i+2 < len(data) && data[i+1] == q && data[i+2] == q
			if multi {
				i += 3
				for i+2 < len(data) && !(data[i] == q && data[i+1] == q && data[i+2] == q) {
					if data[i] == '\n' {
						line++
					}
					if q == '"' && data[i] == '\\' {
						i++
					}
					i++
				}
				i += 2
				continue
			}
			for i++; i < len(data) && data[i] != q && data[i] != '\n'; i++ {
				if q == '"' && data[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
			if depth > maxTOMLDepth {
				return inputf("%s: line %d: tables or arrays nested more than %d deep", path, line, maxTOMLDepth)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// Canonical returns the scenario as canonical JSON: the same scenario
// gives the same bytes. Checkpoints store it, and a resumed run must have
// the same.
func (sc *Scenario) Canonical() []byte {
	b, err := json.Marshal(sc)
	if err != nil {
		panic("schedsim: a Scenario always encodes: " + err.Error())
	}
	return b
}

// Hash returns a content hash of the scenario and of every input file it
// names (trace, config, slurm_conf, node_events, and the files an external
// policy's command line names), so that a stored result
// can tell whether it is still the result of this scenario. A file that
// cannot be read is an error.
func (sc *Scenario) Hash() (string, error) { return sc.HashWith(Fingerprint) }

// HashWith is Hash with the files' fingerprints taken by take (a sweep
// takes each file's once, for its many points).
func (sc *Scenario) HashWith(take func(string) (FileFingerprint, error)) (string, error) {
	h := sha256.New()
	h.Write(sc.Canonical())
	files := []string{sc.Trace, sc.Config, sc.SlurmConf, sc.NodeEvents}
	if sc.Power != "" {
		// Only with a power model: the hashes of the runs without one
		// stay what they were.
		files = append(files, sc.Power)
	}
	if sc.Holds != "" {
		files = append(files, sc.Holds)
	}
	for _, p := range files {
		h.Write([]byte{0})
		if p == "" {
			continue
		}
		fp, err := take(p)
		if err != nil {
			return "", &InputError{err}
		}
		fmt.Fprintf(h, "%s\x00%d\x00%08x", fp.Name, fp.Size, fp.CRC)
	}
	// An external policy's program: the files its command line names
	// (the script, the binary), so that a kept result of a sweep point is
	// not taken for the result of a changed program.
	for _, p := range policyFiles(sc.PolicyExec) {
		fp, err := take(p)
		if err != nil {
			return "", &InputError{err}
		}
		fmt.Fprintf(h, "\x00policy\x00%s\x00%d\x00%08x", fp.Name, fp.Size, fp.CRC)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// policyFiles returns the words of an external policy's command line that
// name regular files, quotes removed.
func policyFiles(cmd string) []string {
	var files []string
	for _, w := range strings.Fields(cmd) {
		w = strings.Trim(w, `'"`)
		if fi, err := os.Stat(w); err == nil && fi.Mode().IsRegular() {
			files = append(files, w)
		}
	}
	return files
}

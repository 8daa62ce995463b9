package policy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// This file holds the configuration of SCore-D's priority queues (SPEC §4):
// queue states, modes, limits, the preemption mode, the gang parameters and
// the parsers of their command-line forms. The engine that runs them is
// sim.ScoreD.

// QueueState is the state of a SCore-D queue, like a Unix printer queue's.
type QueueState uint8

// Values of QueueState.
const (
	// Activated: the queue accepts and schedules jobs (the default).
	Activated QueueState = iota
	// Deactivated: enabled but deactivated; the queue accepts jobs but
	// schedules none of them, and its jobs hold no resources (running ones
	// are suspended).
	Deactivated
	// Disabled: submissions are refused (recorded as rejected); jobs
	// already in the queue are held as in a deactivated queue.
	Disabled
)

// String returns the state's name, as ParseQueueState takes it.
func (s QueueState) String() string {
	switch s {
	case Activated:
		return "activated"
	case Deactivated:
		return "deactivated"
	case Disabled:
		return "disabled"
	}
	return fmt.Sprintf("QueueState(%d)", uint8(s))
}

// ParseQueueState parses a queue state: activated, deactivated or disabled
// (also: active/activate, inactive/deactivate, disable).
func ParseQueueState(s string) (QueueState, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "activated", "activate", "active", "enabled", "enable":
		return Activated, nil
	case "deactivated", "deactivate", "inactive":
		return Deactivated, nil
	case "disabled", "disable":
		return Disabled, nil
	}
	return 0, fmt.Errorf("policy: queue state %q: want activated, deactivated or disabled", s)
}

// QueueMode is how a SCore-D queue shares processors.
type QueueMode uint8

// Values of QueueMode; their names double as the --mode flag's values.
const (
	// Exclusive: a started job runs to completion as long as no
	// higher-priority queue needs its processors (space sharing).
	Exclusive QueueMode = iota
	// Gang: the queue's jobs share processors by gang scheduling (time
	// sharing in an Ousterhout matrix).
	Gang
)

// String returns the mode's name.
func (m QueueMode) String() string {
	if m == Gang {
		return "gang"
	}
	return "exclusive"
}

// ParseQueueMode parses gang or exclusive.
func ParseQueueMode(s string) (QueueMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "exclusive":
		return Exclusive, nil
	case "gang", "tss":
		return Gang, nil
	}
	return 0, fmt.Errorf("policy: queue mode %q: want gang or exclusive", s)
}

// PreemptMode is what happens to the lower-priority jobs a higher-priority
// job preempts (Slurm's PreemptMode).
type PreemptMode uint8

// Values of PreemptMode; their names double as the --preempt flag's values.
const (
	// PreemptSuspend suspends the victims; they keep their progress and
	// resume, ahead of later jobs of their queue, when processors free up.
	PreemptSuspend PreemptMode = iota
	// PreemptRequeue puts the victims back in their queue; their progress
	// is lost and they run again from the beginning.
	PreemptRequeue
	// PreemptCancel kills the victims (recorded as killed, "preempted").
	PreemptCancel
	// PreemptOff never preempts: a higher-priority job waits.
	PreemptOff
)

// String returns the mode's name.
func (m PreemptMode) String() string {
	switch m {
	case PreemptSuspend:
		return "suspend"
	case PreemptRequeue:
		return "requeue"
	case PreemptCancel:
		return "cancel"
	case PreemptOff:
		return "off"
	}
	return fmt.Sprintf("PreemptMode(%d)", uint8(m))
}

// ParsePreemptMode parses suspend, requeue, cancel or off.
func ParsePreemptMode(s string) (PreemptMode, error) {
	for _, m := range []PreemptMode{PreemptSuspend, PreemptRequeue, PreemptCancel, PreemptOff} {
		if strings.EqualFold(strings.TrimSpace(s), m.String()) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("policy: preempt mode %q: want suspend, requeue, cancel or off", s)
}

// AnyGroup is Queue.Group's value for a queue every group may submit to.
const AnyGroup = -1

// Queue is one SCore-D queue's configuration. Its zero value is an
// activated exclusive queue without limits that only group 0 may use:
// start from DefaultQueue.
type Queue struct {
	// Name names the queue in reports ("" : its number).
	Name string
	// State is the queue's state at the start of the run.
	State QueueState
	// Mode is how its jobs share processors.
	Mode QueueMode
	// MaxCPUSec is the maximum CPU time of its jobs, in seconds (0: none).
	// A job inherits it from the queue it was submitted to and keeps it
	// when demoted; a job whose CPU time reaches it is killed.
	MaxCPUSec workload.Time
	// ResidenceSec is the queue residence time (0: none): a job whose CPU
	// time in this queue reaches it moves to the next lower-priority queue,
	// where its residence time restarts. The last queue ignores it.
	ResidenceSec workload.Time
	// MemPercent and DiskPercent are the queue's memory and disk limits,
	// as a percentage of the cluster's (0: none). Each is active only when
	// the cluster sets the matching limit too (ScoreD.MemKB, DiskKB).
	MemPercent, DiskPercent int
	// Group is the Unix group id whose members alone may submit, or AnyGroup.
	Group int
	// Wait makes a job whose memory or disk limit cannot be granted at its
	// submission (resource shortage: the limits of the started jobs would
	// sum beyond the cluster's) wait until it can be; false (the default,
	// as in SCore-D) refuses it, recording it as rejected. Busy processors
	// are not a shortage: a job waits for processors either way. A job's
	// own choice (workload.Job.WaitResources, scrun's wait option)
	// overrides it.
	Wait bool
}

// DefaultQueue returns an activated exclusive queue without limits, open
// to every group, that refuses a job on resource shortage.
func DefaultQueue() Queue { return Queue{Group: AnyGroup} }

// QueueChange is a scheduled change of a queue's state: from At on, queue
// Queue is in state State.
type QueueChange struct {
	At    workload.Time
	Queue int
	State QueueState
}

// DefaultQueues is SCore-D's default number of queues.
const DefaultQueues = 3

// DefaultMPL, DefaultQuantumMs and DefaultSwitchMs are the gang defaults:
// multiprogramming level, time quantum and per-switch overhead.
const (
	DefaultMPL       = 2
	DefaultQuantumMs = 1000
	DefaultSwitchMs  = 5
)

// ScoreD configures a SCore-D run: its queues and the machine-wide
// parameters of gang scheduling, preemption and resource limits.
type ScoreD struct {
	// Queues are the queues, highest priority (0) first.
	Queues []Queue
	// Changes are scheduled state changes, applied at their instants
	// after that instant's submissions and ends, before its pass.
	Changes []QueueChange
	// Map maps SWF queue numbers (field 15, or the Parquet queue column)
	// to queue indices; see QueueOf.
	Map QueueMap
	// MPL is the gang multiprogramming level: the rows of the Ousterhout
	// matrix (1 to 16).
	MPL int
	// QuantumMs and SwitchMs are the gang time quantum and the cost of one
	// switch between rows, in milliseconds.
	QuantumMs, SwitchMs int64
	// Preempt is what a higher-priority job does to lower-priority ones
	// when it cannot start otherwise.
	Preempt PreemptMode
	// MemKB and DiskKB are the cluster's memory and disk limits in KB: what
	// one host has (0: none). A queue's percentage of them is a job's limit
	// on each host it runs on. The composition root sets MemKB by default
	// from the trace header's MaxMemory, so that a queue percentage alone
	// turns the limit on.
	MemKB, DiskKB int64
	// ProcsPerHost is the number of processors of one host (0 or 1: every
	// processor is a host). The trace gives a job's used and requested
	// memory per processor; a job on p processors uses, on one host,
	// min(p, ProcsPerHost) times that, and this is what its limit is
	// compared with.
	ProcsPerHost int
}

// PerHost returns how many processors of a job of p processors share one
// host: min(p, ProcsPerHost), at least 1.
func (c *ScoreD) PerHost(p int) int {
	return max(1, min(p, c.ProcsPerHost))
}

// NewScoreD returns n default queues (DefaultQueue) of mode m with the gang
// defaults and suspend preemption.
func NewScoreD(n int, m QueueMode) ScoreD {
	c := ScoreD{MPL: DefaultMPL, QuantumMs: DefaultQuantumMs, SwitchMs: DefaultSwitchMs}
	for range n {
		q := DefaultQueue()
		q.Mode = m
		c.Queues = append(c.Queues, q)
	}
	return c
}

// Validate reports a configuration a user could have got wrong.
func (c *ScoreD) Validate() error {
	switch {
	case len(c.Queues) == 0:
		return fmt.Errorf("policy: SCore-D: no queues")
	case c.MPL < 1 || c.MPL > 16:
		return fmt.Errorf("policy: SCore-D: multiprogramming level %d: want 1 to 16", c.MPL)
	case c.QuantumMs < 1:
		return fmt.Errorf("policy: SCore-D: time quantum %d ms: want at least 1 ms", c.QuantumMs)
	case c.SwitchMs < 0 || c.SwitchMs > 1<<30:
		return fmt.Errorf("policy: SCore-D: switch overhead %d ms: want 0 to 2^30", c.SwitchMs)
	case c.QuantumMs > 1<<30:
		return fmt.Errorf("policy: SCore-D: time quantum %d ms: want at most 2^30", c.QuantumMs)
	case c.MemKB < 0 || c.DiskKB < 0:
		return fmt.Errorf("policy: SCore-D: negative cluster limit")
	case c.ProcsPerHost < 0 || c.ProcsPerHost > workload.MaxMachineProcs:
		return fmt.Errorf("policy: SCore-D: %d processors per host: want 1 to %d", c.ProcsPerHost, workload.MaxMachineProcs)
	}
	for i, q := range c.Queues {
		if q.MemPercent < 0 || q.MemPercent > 100 || q.DiskPercent < 0 || q.DiskPercent > 100 {
			return fmt.Errorf("policy: SCore-D: queue %d: limits are percentages 0 to 100", i)
		}
		if q.MaxCPUSec < 0 || q.ResidenceSec < 0 {
			return fmt.Errorf("policy: SCore-D: queue %d: negative time limit", i)
		}
		if q.Group < AnyGroup {
			return fmt.Errorf("policy: SCore-D: queue %d: group %d: want a Unix group id ≥ 0, or %d for any group", i, q.Group, AnyGroup)
		}
	}
	for _, ch := range c.Changes {
		if ch.Queue < 0 || ch.Queue >= len(c.Queues) {
			return fmt.Errorf("policy: SCore-D: state change of queue %d: there are queues 0 to %d", ch.Queue, len(c.Queues)-1)
		}
	}
	for _, e := range c.Map.entries {
		if e.to >= len(c.Queues) {
			return fmt.Errorf("policy: SCore-D: queue map sends %d to queue %d: there are queues 0 to %d", e.from, e.to, len(c.Queues)-1)
		}
	}
	if c.Map.def >= len(c.Queues) {
		return fmt.Errorf("policy: SCore-D: queue map's default queue %d: there are queues 0 to %d", c.Map.def, len(c.Queues)-1)
	}
	return nil
}

// QueueMap maps trace queue numbers to SCore-D queue indices. Its zero value
// is the identity for numbers that name a queue, and the lowest-priority
// queue for every other number (-1, unknown, included).
type QueueMap struct {
	entries []mapEntry // in the order given
	def     int        // -1: the lowest-priority queue
	hasDef  bool
}

type mapEntry struct{ from, to int }

// QueueOf returns the queue index of trace queue number raw, among n queues.
func (m *QueueMap) QueueOf(raw, n int) int {
	for _, e := range m.entries {
		if e.from == raw {
			return e.to
		}
	}
	if m.hasDef {
		return m.def
	}
	if len(m.entries) == 0 && raw >= 0 && raw < n {
		return raw
	}
	return n - 1
}

// ParseQueueMap parses a queue mapping: comma-separated FROM=TO pairs, FROM
// a trace queue number or * (every other number), TO a queue index; e.g.
// "1=0,2=1,*=2". With pairs but no *, unlisted numbers go to the
// lowest-priority queue. "" is the zero QueueMap.
func ParseQueueMap(s string) (QueueMap, error) {
	var m QueueMap
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, part := range strings.Split(s, ",") {
		from, to, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return QueueMap{}, fmt.Errorf("policy: queue map %q: %q is not FROM=TO", s, part)
		}
		t, err := strconv.Atoi(strings.TrimSpace(to))
		if err != nil || t < 0 || t > 1<<20 {
			return QueueMap{}, fmt.Errorf("policy: queue map %q: target %q: want a queue index ≥ 0", s, to)
		}
		if strings.TrimSpace(from) == "*" {
			if m.hasDef {
				return QueueMap{}, fmt.Errorf("policy: queue map %q: * given twice", s)
			}
			m.def, m.hasDef = t, true
			continue
		}
		f, err := strconv.Atoi(strings.TrimSpace(from))
		if err != nil {
			return QueueMap{}, fmt.Errorf("policy: queue map %q: source %q: want a trace queue number or *", s, from)
		}
		for _, e := range m.entries {
			if e.from == f {
				return QueueMap{}, fmt.Errorf("policy: queue map %q: queue %d mapped twice", s, f)
			}
		}
		m.entries = append(m.entries, mapEntry{f, t})
	}
	return m, nil
}

// ParseQueueChange parses a scheduled state change, Q=STATE@FROM or
// Q=STATE@FROM-TO (times in seconds, with an optional unit s, m, h or d):
// from FROM on queue Q is in STATE, and with TO it returns to initial at
// TO. "2=deactivated@86400-172800" deactivates queue 2 for the second day.
func ParseQueueChange(s string, initial QueueState) ([]QueueChange, error) {
	bad := func(why string) ([]QueueChange, error) {
		return nil, fmt.Errorf("policy: queue state change %q: %s (want Q=STATE@FROM[-TO], e.g. 2=deactivated@86400-172800)", s, why)
	}
	q, rest, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return bad("no '='")
	}
	qi, err := strconv.Atoi(strings.TrimSpace(q))
	if err != nil || qi < 0 || qi > 1<<20 {
		return bad("queue " + strconv.Quote(q) + " is not a queue index")
	}
	st, when, ok := strings.Cut(rest, "@")
	if !ok {
		return bad("no '@'")
	}
	state, err := ParseQueueState(st)
	if err != nil {
		return bad("unknown state " + strconv.Quote(st))
	}
	from, to, hasTo := strings.Cut(when, "-")
	f, err := ParseDuration(from)
	if err != nil {
		return bad("start " + strconv.Quote(from))
	}
	out := []QueueChange{{At: f, Queue: qi, State: state}}
	if hasTo {
		t, err := ParseDuration(to)
		if err != nil {
			return bad("end " + strconv.Quote(to))
		}
		if t <= f {
			return bad("end not after start")
		}
		out = append(out, QueueChange{At: t, Queue: qi, State: initial})
	}
	return out, nil
}

// ParseMillis parses a duration in milliseconds: a number of milliseconds,
// optionally with a unit ms, s or m ("5", "5ms", "2s", "1m").
func ParseMillis(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "ms"):
		t = t[:len(t)-2]
	case strings.HasSuffix(t, "s"):
		mult, t = 1000, t[:len(t)-1]
	case strings.HasSuffix(t, "m"):
		mult, t = 60000, t[:len(t)-1]
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > (1<<40)/mult {
		return 0, fmt.Errorf("policy: duration %q: want whole milliseconds ≥ 0, optionally with a unit ms, s or m (e.g. 5ms, 2s)", s)
	}
	return v * mult, nil
}

// Package sim is schedsim's discrete-event engine.
//
// The engine is a deterministic state machine without I/O: jobs arrive from a
// Source in submission order, the engine applies arrivals and ends in time
// order, asks the Policy once per instant which queued jobs start, applies the
// answer, and tells an Observer of every event: submissions, starts,
// reservations, preemptions, every finished (or rejected) job's record, and
// the state each instant leaves.
//
// SCore-D's priority queues (Config.ScoreD) run on this engine too, as a
// component behind one pointer, on a clock of milliseconds: see ScoreD.
//
// The instant rule (SPEC §2): at time t, first every submission at t in trace
// order, then every job end at t, then (with an Estimator) every running job
// reaching its predicted end at t without ending, then one scheduling pass.
//
// Hold Until: a job whose HoldUntil (workload.Job; the Parquet hold_until
// column, or set by Config.Admission) lies after its submission is held
// out of the queue until then, whatever the policy: it enters the queue at
// its HoldUntil, in its submission-order place, after that instant's
// submissions and ends (HPC Pack: "the scheduler does not start a job
// before its Hold Until", SPEC §6).
//
// Runtime estimates: without an Estimator a job's estimate is its requested
// time, which is also when it is killed. With one (Config.Estimator), the
// policies plan with the estimator's prediction (it replaces the job's
// Estimate in the queue and in the running jobs' predicted ends), while the
// job is still killed only at its requested time; a record carries the job
// as the trace gave it. A running job that reaches its predicted end without
// ending gets a corrected, later prediction at that instant, which is an
// event of its own (a pass follows), and every reservation made before is
// void: it was planned on a prediction that proved wrong.
//
// Predicted starts: with a node selector (Config.Allocator), every job gets
// at its submission the start Slurm's WILL_RUN (cluster.WillRun) predicts
// from the running jobs' predicted ends (their estimates), as Slurm's select
// plugins answer it: the queue ahead is not counted, so under exact
// estimates the prediction never comes later than the start with a policy
// that never delays a job for a later one (FCFS, EASY's head). The record
// carries it (Record.Predicted) and Stats counts how often it was met.
//
// Invariants are checked as the run goes, cheaply and always: no processor is
// allocated twice, no job starts before its submission or after a reservation
// it was promised, and the processor-seconds used equal those the jobs
// consumed. A broken invariant is a simulator bug and panics with "sim:".
package sim

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/internal/fastpath"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

// Source streams the jobs of a workload in submission order. Next fills j and
// returns io.EOF after the last job. *workload.SWFReader is a Source.
type Source interface {
	Next(j *workload.Job) error
}

// RefSource is an optional interface of a Source that lends its next job
// instead of copying it (workload.Prefetch): the engine copies each job
// once, into its own memory, at its submission.
type RefSource interface {
	Source
	// NextRef returns the next job (io.EOF after the last), which stays
	// valid, and may be modified, until the next call of Next or NextRef.
	NextRef() (*workload.Job, error)
}

// State is how a job left the simulation.
type State uint8

// Values of State.
const (
	// Completed: the job ran its full run time.
	Completed State = iota
	// Killed: the job reached its requested time and was killed.
	Killed
	// Rejected: the job was refused at submission and never ran.
	Rejected
	// Failed: a submission or activation filter failed the job (SPEC §6);
	// it never ran. Record.Reason says which filter and why.
	Failed
	// NodeFail: a node the job ran on went down and the job was killed
	// (Config.NodeEvents); Record.Reason names the node.
	NodeFail
	// Pending: the job was still queued when the run ended, kept waiting
	// by the policy's own answers with nothing left that could change
	// them (a policy.Settler: HPC Pack's activation results 1 and 2); it
	// never ran. Record.Reason says why; Start and End are the end of the
	// run. A SCore-D job that ran and was then held by its deactivated
	// queue to the end is Pending too: Start is its first start, CPUTime
	// what it received, and Reason says so.
	Pending
	// LimitKilled: a SCore-D job killed because its use on one host
	// exceeded its memory (or disk) limit (SPEC §4); Record.Reason says
	// which and by how much. It is not a walltime kill: jobs.csv writes it
	// as Batsim's COMPLETED_KILLED with the reason, summary.json counts it
	// apart (limit_killed).
	LimitKilled
	// Preempted: the job was cancelled by preemption (Config.Preempt
	// with PreemptCancel); Record.Reason names its preemptor. jobs.csv
	// writes it as Batsim's COMPLETED_KILLED with the preemption in the
	// metadata.
	Preempted
)

// String returns the state's name.
func (s State) String() string {
	switch s {
	case Completed:
		return "completed"
	case Killed:
		return "killed"
	case Rejected:
		return "rejected"
	case Failed:
		return "failed"
	case NodeFail:
		return "node_fail"
	case Pending:
		return "pending"
	case LimitKilled:
		return "limit_killed"
	case Preempted:
		return "preempted"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Record is the outcome of one job. The engine reuses a Record's memory after
// the Observer's Observe returns: copy what must outlive the call.
type Record struct {
	Job   *workload.Job
	State State
	// Start and End are the job's start and end; both equal the submit time for
	// a rejected job.
	Start, End workload.Time
	// Alloc are the processors the job ran on.
	Alloc []cluster.Range
	// Reason says why a job was rejected or failed.
	Reason string
	// Note is what Config.Annotator noted about the job (the filter
	// results it saw); empty without one.
	Note string
	// Steps are the processor counts of a job with a processor range
	// under Config.Grow, in time order: the first its start, each later
	// one a growth (empty otherwise; the engine reuses the slice like the
	// rest of the Record). Alloc is then the concatenation of the steps'
	// Allocs.
	Steps []GrowStep
	// Predicted is the start Slurm's WILL_RUN predicted for the job at its
	// submission when HasPrediction (Config.Allocator only, jobs that ran;
	// see the package doc); workload.Forever when the running jobs'
	// estimates could not tell.
	Predicted workload.Time
	// HasPrediction reports whether Predicted holds a prediction.
	HasPrediction bool
	// PredictedAlloc is where WILL_RUN predicted the job would start
	// (resource ids as in Alloc), when Predicted is a time; the engine
	// reuses the slice.
	PredictedAlloc []cluster.Range
	// ScoreD reports a record of the SCore-D engine (sim.ScoreD), which
	// sets the fields below; a job's End − Start may then exceed its run
	// (gang time sharing, suspensions), and CPUTime is what it received.
	ScoreD bool
	// Queue is the SCore-D queue the job ended in.
	Queue int
	// Demotions and Suspensions count the job's moves to a lower queue
	// (residence time) and its preemptions (suspended, requeued or
	// cancelled, or held by a deactivated queue).
	Demotions, Suspensions int
	// CPUTime is the CPU time the job received, in whole seconds (rounded
	// down), per processor.
	CPUTime workload.Time
	// MemLimitKB and DiskLimitKB are a SCore-D job's memory and disk
	// limits on each host (0: none), MemKBPerHost its recorded memory
	// use on one host (0: unknown).
	MemLimitKB, DiskLimitKB, MemKBPerHost int64
	// Stints are a SCore-D job's stints on the processors, in order (see
	// Stint); the record owns them.
	Stints []Stint
	// StintAllocs are, in a SCore-D run with node events
	// (ScoreD.SetNodeEvents), the processors of each of Stints (in its
	// row; an exclusive job's in every row); nil without. The record owns
	// them.
	StintAllocs [][]cluster.Range
	// Requeues is how often a node failure requeued the job before this
	// run (Config.OnNodeFail).
	Requeues int
	// Deferred reports the record of a job that ran, under
	// Config.DeferPlacement, whose Alloc the engine left to a Placer.
	Deferred bool
	// Slot is the engine's slot of a job that ran: the one its
	// EventStarted named it by.
	Slot int32
	// Energy is the energy in joules the job's nodes consumed while it ran
	// (Batsim's consumed_energy), when HasEnergy: set behind the engine by
	// a power model (report.EnergyRun), never by the engine.
	Energy float64
	// HasEnergy reports whether Energy holds the job's energy.
	HasEnergy bool
	// Immediate reports the record of a job of an immediate queue
	// (Config.Immediate): it started at its submission beside the
	// machine, on none of its processors (Alloc is empty).
	Immediate bool
	// Pending says why a job that ran waited, as the engine last saw it
	// (PendingNone for a job that started at its submission, and in
	// ScoreD's records).
	Pending PendingReason
	// Who reports a run with Config.Constraints or Config.Shared, whose checks need to
	// know whose job it was: jobs.csv's metadata then names the job's
	// user, account, partition and queue.
	Who bool
	// Tier is the job's tier (its partition's PriorityTier) in a run with
	// preemption (Config.Preempt), when HasTier.
	Tier    int
	HasTier bool
	// Preemptions are the job's preemptions, in order, and Runs the
	// stretches it ran between them, the last one up to its end (both
	// empty for a job never preempted; the engine reuses them). LostRun
	// is the run time that requeues threw away.
	Preemptions []PreemptMark
	Runs        []RunSpan
	LostRun     workload.Time
}

// PendingReason says why a job waited, in the spirit of Slurm's pending
// reasons (squeue's REASON: "Priority" when higher-priority jobs are
// ahead of it, "Resources" when it is next but the processors are busy,
// "BeginTime" while held until a time). The engine records, for each
// job, the reason of the last pass that left it waiting at the head of
// the queue; a job never left at the head waited behind others
// (PendingPriority), or only for its hold (PendingHold). Cheap by design:
// one job is looked at per pass.
type PendingReason uint8

// Pending reasons.
const (
	// PendingNone: the job did not wait (or the engine does not say).
	PendingNone PendingReason = iota
	// PendingPriority: jobs ahead of it in the queue's order went first.
	PendingPriority
	// PendingResources: it was next, and too few processors were idle.
	PendingResources
	// PendingPolicy: it was next and enough processors were idle, but the
	// policy kept it waiting: an activation filter, a limit, a
	// reservation, or idle processors of the wrong nodes.
	PendingPolicy
	// PendingHold: it was held until its Hold Until, and started then.
	PendingHold
	// PendingLimit: a user or account limit held it (Config.Constraints;
	// Slurm's QOSMaxJobsPerUserLimit and the like).
	PendingLimit
	// PendingReservation: it was next and enough processors were idle,
	// but its requested time would have run into a reservation it may
	// not use (Config.Constraints; Slurm's ReqNodeNotAvail, Reserved
	// for maintenance).
	PendingReservation
	// PendingStartWindow: it was next, but a start window forbade it to
	// start then (Config.Constraints).
	PendingStartWindow
)

// String returns the reason's name as the reports show it.
func (r PendingReason) String() string {
	switch r {
	case PendingPriority:
		return "priority"
	case PendingResources:
		return "resources"
	case PendingPolicy:
		return "held by the policy"
	case PendingHold:
		return "hold until"
	case PendingLimit:
		return "limit"
	case PendingReservation:
		return "reservation"
	case PendingStartWindow:
		return "start window"
	}
	return ""
}

// Wait returns the time the job spent queued.
func (r *Record) Wait() workload.Time { return r.Start - r.Job.Submit }

// Config describes a run.
type Config struct {
	// Procs is the machine size in processors.
	Procs int
	// Policy decides what starts; nil means FCFS.
	Policy policy.Policy
	// Estimator predicts run times for planning; nil plans with the
	// requested times. It keeps state: use a new one for every run.
	Estimator policy.Estimator
	// Admission, if not nil, admits every job at its submission, before
	// the machine-size check: HPC Pack's submission filters and job
	// templates (hpcpack.Model). A job it refuses is recorded as Failed.
	Admission policy.Admission
	// Annotator, if not nil, gives every record its Note.
	Annotator policy.Annotator
	// Allocator, if not nil, replaces the single processor pool with a
	// node selector (cluster.Linear, cluster.ConsRes): Procs is then its
	// capacity, a job it can never run (TestOnly) is rejected at submission
	// with its reason, policies ask it whether a job fits now (policy.Fitter),
	// and a record's Alloc holds its node or core numbers. Reservations
	// are then not checked: a plan in processor counts cannot promise a
	// start that depends on where the processors are. Only policies that
	// ask policy.Fitter (FCFS, EASY, Slurm, and Slurm under Ordered) may be
	// used with one. Every job gets a predicted start at its submission
	// (Record.Predicted; see the package doc). With a cluster of clusters
	// (cluster.Federation) a job's run time scales by the chosen
	// cluster's factor (Federation.Scale, rounded up to whole seconds);
	// its record's Job.Run is the scaled run time, while its estimate and
	// requested time (the kill limit) stay as the trace gave them.
	Allocator cluster.Allocator
	// Grow, if not nil, runs HPC Pack's job model with minimum and maximum
	// resources: jobs start on their minimum and running jobs grow toward
	// their maximum (see Grow).
	Grow *Grow

	// CheckpointEvery, if positive, makes the engine call OnCheckpoint at
	// the end of the first instant at or after every multiple of it,
	// counted from the first submission (see MarshalBinary and Restore).
	CheckpointEvery workload.Time
	// OnCheckpoint is called, at a checkpoint, with the instant just
	// completed; an error from it stops the run and is returned by Run.
	OnCheckpoint func(t workload.Time) error
	// NodeEvents, if not empty, is a schedule of node failures and
	// maintenance, sorted by time (cluster.ReadNodeEvents; see nodes.go).
	// With an Allocator, it must implement cluster.NodeStates (Linear,
	// ConsRes: not a Federation); not with conservative backfilling.
	NodeEvents []cluster.NodeEvent
	// NodeSize is the number of processors of a node of the processor
	// pool for NodeEvents; 0 means 1. With an Allocator the nodes are its
	// own.
	NodeSize int
	// OnNodeFail is what happens to the jobs running on a node that goes
	// down: killed (the default) or requeued.
	OnNodeFail NodeFailAction
	// LostRun, if set, is told, on the engine's goroutine, of every run
	// that a node failure cut short and whose job was requeued (the run
	// no record is of): its start, the failure, its processors, its
	// allocation and, under Grow, its steps (the engine reuses both).
	// The energy meter counts that run's busy nodes with it.
	LostRun func(start, end workload.Time, procs int, alloc []cluster.Range, steps []GrowStep)

	// DeferPlacement makes the engine count the processors of its pool
	// without numbering them: the run's Observer, which must want
	// EventStarted, is told of every start (Event.Deferred), and the
	// records of the jobs that ran have no Alloc but a Slot; a Placer
	// behind it numbers them as the engine would have. Only on a pool of
	// processors (no Allocator), and not with Grow, NodeEvents or
	// CheckpointEvery.
	DeferPlacement bool
	// Constraints, if not nil, are the machine's reservations, start
	// windows and user and account limits, which every policy plans
	// around (see Constraints). Not with Grow; reservations are then
	// promises the engine checks only without limits and an Estimator,
	// and not under conservative backfilling (which re-plans every pass).
	Constraints *Constraints
	// SchedInterval, if positive, is the scheduler's cycle: passes run
	// only at the instants a whole number of cycles after the first
	// submission (like Slurm's sched_interval or a PBS scheduler cycle);
	// what happens between them waits for the next. 0 is a pass at every
	// instant where something happened.
	SchedInterval workload.Time

	// ClosedLoop replays the trace's feedback (SWF fields 17 and 18): a
	// job that names a preceding job is submitted no earlier than that
	// job's end plus the think time (see closedLoop for the rules when the
	// preceding job is unknown, rejected or failed). Its record's
	// Job.Submit is the instant it was submitted. A job that follows one
	// stranded by NodeEvents is never submitted (see neverSubmitted). Its
	// state (the jobs waiting for their preceding job) is saved in
	// checkpoints.
	ClosedLoop bool
	// SubmitLatency, if not nil, lays the submission latency on every job
	// at its submission (workload.Latency.Hold): the job reaches the
	// scheduler that long after it, held until then. It is laid after
	// HPC Pack's submission filters (Admission), which see the job as the
	// trace gives it, and on a job a closed loop submits later than its
	// recorded time from the instant the loop submits it. A hold of the
	// trace's own ends when the trace says; an immediate queue's jobs
	// (Immediate), set aside at their submission, have none.
	SubmitLatency func(j *workload.Job)
	// Power, if not nil, switches idle nodes of the processor pool off
	// and on (see power.go; under ScoreD, scored_power.go).
	Power *Power
	// Preempt, if not nil, lets a policy start a queued job by
	// preempting running jobs of lower tiers (see Preemption); it needs an
	// Allocator.
	Preempt *Preemption

	// slowLimits makes a pass walk the whole queue under limits, as it
	// does when the owners' index cannot be used (tests compare both).
	slowLimits bool

	// ScoreD, if not nil, runs SCore-D's priority queues (SPEC §4; see
	// ScoreD for the model) instead of Policy, on the engine's clock in
	// milliseconds. With it only Procs, ClosedLoop, SubmitLatency,
	// NodeEvents, NodeSize, OnNodeFail, CheckpointEvery, OnCheckpoint,
	// TicksPerSec, ScoreDBusy, ScoreDClusters and Power (by idle timeout,
	// see scored_power.go) apply; New refuses the others.
	ScoreD *policy.ScoreD
	// TicksPerSec is the trace's time unit under ScoreD: 1 (or 0: seconds),
	// 1000 (ms) or 1000000 (µs); see ScoreD.SetTicks. Other runs count in
	// whatever tick the trace has and ignore it.
	TicksPerSec int64
	// ScoreDBusy, if set under ScoreD, is told, on the engine's goroutine,
	// of every busy stretch of processors: from when a job of any row of
	// the matrix (or an exclusive job) takes a processor that none held to
	// when the last of them gives it back — a processor time-shared by gang
	// rows is busy as long as any row holds it (see ScoreD). The energy
	// meter counts the machine's busy nodes with them. Times are trace
	// ticks (rounded up as records' are); the engine reuses alloc. With it
	// the jobs are placed on processor numbers, as with NodeEvents.
	ScoreDBusy func(from, to workload.Time, alloc []cluster.Range)
	// ScoreDClusters, if not nil under ScoreD, makes the machine a cluster
	// of clusters (SPEC §5): each job is assigned a cluster at its
	// submission and runs on its processors (see ScoreDClusters).
	ScoreDClusters *ScoreDClusters

	// Immediate, if not nil, reports the jobs of immediate queues: each
	// starts the moment it is submitted, beside the machine, on none of
	// its processors, and no policy, limit, reservation, filter or node
	// event sees it (interactive or non-dedicated jobs; see immediate.go).
	// Its record (Record.Immediate) is its only event. Not with
	// ClosedLoop.
	Immediate func(j *workload.Job) bool

	// Shared, if not nil, reports the jobs of time-shared (non-dedicated)
	// queues: each starts as soon as it is queued and its start windows
	// and the reservations holding the whole machine let it, whatever
	// processors are free, and its processors count as busy for every
	// other job (see shared.go). Only on a machine counted in processors
	// (no Allocator), without ScoreD, Grow, Preempt, NodeEvents or
	// ClosedLoop.
	Shared func(j *workload.Job) bool
}

// Stats summarises a finished run.
type Stats struct {
	Jobs       int64         // jobs submitted (including rejected)
	Started    int64         // jobs that ran
	Killed     int64         // jobs killed at their requested time
	Rejected   int64         // jobs refused at submission
	Failed     int64         // jobs failed by a filter (never ran)
	Pending    int64         // jobs still queued at the end (State Pending)
	FirstEvent workload.Time // first submission
	LastEvent  workload.Time // last end (or submission)
	// ProcSeconds is Σ procs · actual run over the jobs that ran.
	ProcSeconds float64
	// Passes is the number of scheduling passes.
	Passes int64
	// MaxQueue is the longest the queue got.
	MaxQueue int
	// Predicted counts the jobs that ran with a predicted start
	// (Config.Allocator only), and PredictedMet those of them that started
	// no later than predicted.
	Predicted, PredictedMet int64
	// DefaultTimes counts the jobs without a requested time that got
	// their partition's time limit (Slurm's DefaultTime, else MaxTime;
	// Config.Allocator with partitions only).
	DefaultTimes int64
	// NodeKilled counts the jobs killed by a node failure, Requeued the
	// requeues after one, and LostProcSeconds the processor-seconds of
	// the runs they cut short (Config.NodeEvents).
	NodeKilled, Requeued int64
	LostProcSeconds      float64
	// LoopFollowing counts the jobs that name a preceding job (SWF
	// field 17) under Config.ClosedLoop; LoopDelayed those it submitted
	// later than
	// their recorded time (their preceding job had not ended, or ended
	// less than the think time before), and LoopUnknown those that name
	// a preceding job never submitted (not in the trace, later in it,
	// dropped by a cleaning rule), submitted at their recorded time.
	LoopFollowing, LoopDelayed, LoopUnknown int64
	// LoopNeverSubmitted counts the jobs a closed loop never submitted
	// because the job they follow never ran: it was stranded by nodes out
	// of service to the end of the run, or itself never submitted. They
	// are among Rejected.
	LoopNeverSubmitted int64
	// Preemptions counts the preemptions (Config.Preempt), of which
	// PreemptRequeued requeued a job and PreemptCancelled cancelled one
	// (the rest suspended one).
	Preemptions, PreemptRequeued, PreemptCancelled int64
	// Immediate counts the jobs of immediate queues (Config.Immediate),
	// which started at their submission beside the machine; they are not
	// among Jobs, Started or Killed, nor in ProcSeconds.
	Immediate int64
}

// slot holds a job while it is queued or running.
type slot struct {
	job       workload.Job
	start     workload.Time
	end       workload.Time // actual end
	predEnd   workload.Time // start + estimate, or Forever
	limit     workload.Time // requested time (the kill limit), ≤ 0: none
	reserved  workload.Time // latest start promised by a reservation
	epoch     uint32        // the engine's epoch when reserved was set
	alloc     []cluster.Range
	started   bool
	held      int32           // processors the allocator charged (Config.Allocator only)
	predicted workload.Time   // WILL_RUN's start at submission (Config.Allocator only), else −1
	predAt    []cluster.Range // where WILL_RUN would start it (with predicted < Forever)
	requeues  int32           // times a node failure requeued the job
	released  bool            // queued out of arrival order at the end of its hold (see Engine.release)
	run0      workload.Time   // the trace's run time, before a cluster of clusters scaled it (Config.Allocator)
	pending   PendingReason   // why it waited, as the last pass that left it at the head saw it (see PendingReason)
	// memberLimit: the job had no time limit and got that of the
	// cluster-of-clusters member it started on (cleared by a requeue).
	memberLimit bool
	// member is the cluster-of-clusters member the job was assigned at
	// its submission (cluster.Request.Member; 0: none).
	member int32
	// tier is the job's tier under Config.Preempt, preq how often
	// preemption requeued it, and pj what the engine keeps of its
	// preemptions (nil: never preempted).
	tier int32
	preq int32
	pj   *slotPreempt
}

// endEvent is a job's next event in a heap: its end in Engine, or (in
// ScoreD, whose at counts microseconds) its next end or limit.
type endEvent struct {
	at  workload.Time
	seq int64
	id  int32
	gen uint32 // the slot's generation when pushed (Grow, ScoreD): stale if behind
}

func (a endEvent) less(b endEvent) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// endHeap is a typed binary min-heap of job ends.
type endHeap []endEvent

func (h *endHeap) push(e endEvent) {
	*h = append(*h, e)
	h.up(len(*h) - 1)
}

// up moves the event at index i up to its place and returns where it went.
func (h endHeap) up(i int) int {
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return i
}

func (h *endHeap) pop() endEvent {
	s := *h
	top := s[0]
	n := len(s) - 1
	last := s[n]
	s = s[:n]
	*h = s
	if n == 0 {
		return top
	}
	// Move the hole at the root down to a leaf, the smaller child up at
	// each level (one comparison, not two: the last event, which fills
	// the hole, nearly always belongs near the bottom), then let the last
	// event rise from there.
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && s[r].less(s[c]) {
			c = r
		}
		s[i] = s[c]
		i = c
	}
	s[i] = last
	s.up(i)
	return top
}

// down moves the event at index i down to its place.
func (h endHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// timeHeap is a typed binary min-heap of times.
type timeHeap []workload.Time

func (h *timeHeap) push(t workload.Time) {
	*h = append(*h, t)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *timeHeap) pop() workload.Time {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r] < s[l] {
			m = r
		}
		if s[i] <= s[m] {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// Sample is the state of the simulation after one instant (EventSampled).
type Sample struct {
	Time        workload.Time
	Busy        int   // processors allocated
	Running     int   // running jobs
	Queued      int   // waiting jobs
	QueuedProcs int64 // processors the waiting jobs ask for, in all
	// Unavailable is the idle processors out of service: on down or
	// drained nodes (Config.NodeEvents).
	Unavailable int
}

// byEnd is one running job in the predicted-end index.
type byEnd struct {
	predEnd workload.Time
	seq     int64
	procs   int32
	id      int32
}

// Engine runs one simulation. It is not safe for concurrent use; run
// independent simulations in independent engines.
type Engine struct {
	cfg     Config
	pol     policy.Policy
	machine *cluster.Machine
	// pool is where jobs take processors and give them back: the
	// machine's, counted or numbered, or the node selector's (see
	// allocator); alloc is the node selector (Config.Allocator), for what
	// only nodes have (WILL_RUN, the policy's view of the nodes, clusters
	// of clusters, preemption), nil on a pool of processors.
	pool  allocator
	alloc cluster.Allocator
	// count is pool when it is the counted pool (countAlloc, deferred
	// placement, the default of schedsim run), nil otherwise: the calls
	// made at every start, end and pass go to it directly, where the
	// compiler inlines them, rather than through the interface.
	count *countAlloc
	// sharedOver counts the processors the running time-shared jobs
	// (Config.Shared) share beyond the idle ones they took at their
	// start, on a pool that numbers its processors (countAlloc counts
	// them in busy).
	sharedOver int
	sharedOf   map[int32]int // slot id → what its time-shared job shares beyond
	// shared is Config.Shared != nil, and who says the records name
	// whose job each was (Record.Who): with constraints or shared queues.
	shared, who bool
	// toPredict are the jobs submitted at this instant whose WILL_RUN
	// prediction waits for the instant's node events.
	toPredict []int32
	// defTime gives a job without a time limit its partition's (alloc
	// with partitions only).
	defTime cluster.DefaultTimer
	will    willRun         // WILL_RUN scratch (alloc only)
	startOn []cluster.Range // the resources StartOn chose for the job starting
	scale   scaler          // alloc's run-time scaling (a cluster of clusters), or nil
	view    policy.View     // what the policy sees: e, or allocView{e}

	now     workload.Time
	slots   []slot
	freeIDs []int32
	queue   []int32           // slot ids in queue order
	dense   []fastpath.Queued // dense[i] describes the job of queue[i], for a prefix of the queue (see Queued)
	passLen int               // queue length frozen for the current pass
	// headPhase: under Grow, the policy has not yet grown the running
	// jobs in this pass, so a job it starts is started at the head of the
	// queue and is given up to its maximum (see Grow).
	headPhase bool
	started   bool // a job started during the current pass
	ends      endHeap
	expiry    endHeap // predicted ends of running jobs that will outlive them (Estimator only)
	epoch     uint32  // promises made in an earlier epoch are void
	est       policy.Estimator
	running   []byEnd        // sorted by (predEnd, seq)
	ended     []policy.Ended // jobs ended since the previous pass

	lastSeq int64 // Seq of the previous accepted job

	grow *growState // Config.Grow's state, or nil
	// reassign are the jobs a node failure requeued that had a
	// cluster-of-clusters member: assigned one again after the instant's
	// node events (see memberAssigner).
	reassign []int32

	startedAt   []int    // queue indices started in the current pass
	wakes       timeHeap // times a policy asked to be woken at
	queuedProcs int64    // Σ procs over the queue and the held jobs

	// holds are the jobs held until their HoldUntil (at), not yet queued;
	// released counts the queued jobs that a release put before others
	// (slot.released), which ArrivalOrder reports.
	holds    endHeap
	released int

	// settler is the policy as a policy.Settler (nil if it is not one),
	// and lastEvent the last instant at which anything but a wake-up
	// happened.
	settler   policy.Settler
	lastEvent workload.Time

	// fallible is the policy as a policy.Fallible (nil if it is not one):
	// its error stops the run.
	fallible policy.Fallible

	rec   Record
	obs   *sink // the run's observer (and closed loop): records and events
	note  []byte
	stats Stats
	busy  float64 // ∫ busy processors dt, checked against ProcSeconds
	lastT workload.Time

	nextCk  workload.Time // next checkpoint instant (Config.CheckpointEvery)
	resumed bool          // restored from a checkpoint: Run skips the submitted jobs
	loop    *closedLoop   // Config.ClosedLoop's state, made by Run or restored

	nodes nodes       // node failures and maintenance (Config.NodeEvents)
	pw    *powerState // power management (Config.Power); nil without

	// A pass that only submissions preceded may be skipped when the
	// rule the policy left (see fastpath.Quieter) rejects every job that
	// joined: quieter is the policy's Quieter when the engine can trust
	// its rules (a pool of processors, no growth, no node events), quiet
	// the rule, valid while only submissions happen, and quietLen the
	// queue length up to which the joining jobs were checked. After ends,
	// quiet is the engine's own rule when it skipped the pass (see
	// roomRule).
	quieter  fastpath.Quieter
	quiet    fastpath.QuietRule
	quietLen int
	// quietDue reports that the rule is the one the policy's last pass
	// left, not yet fetched: most passes are followed by an end, which
	// voids the rule, so it is asked for only when a pass that only
	// submissions preceded is due.
	quietDue bool
	// roomBound reports that the quieter is a fastpath.RoomBound: a pass
	// that only ends and submissions preceded is skipped too when no
	// queued job fits the free processors, which room tells.
	roomBound bool
	room      roomIndex
	skipped   int64 // passes skipped, among stats.Passes

	// deferred: the pool's processors are numbered behind the engine
	// (Config.DeferPlacement), whose records say so (Record.Deferred).
	deferred bool

	// promises: the engine checks that a job starts no later than its
	// reservation (not on nodes, under limits, an Estimator with
	// constraints, or conservative backfilling re-planning under
	// constraints or a cycle; see Config.Constraints).
	promises bool
	cons     *constraints  // Config.Constraints' state, or nil
	nextTick workload.Time // the cycle's wake-up pending (Config.SchedInterval), or −1
	pre      *preemptState // Config.Preempt's state, or nil
	sd       *sdCore       // Config.ScoreD's component, or nil (see ScoreD)

	// aside are the jobs of immediate queues read and not yet recorded,
	// by end (lateJob.at), asideLast the latest submission among them,
	// and asideNow the one whose record is being given (Config.Immediate).
	aside     lateHeap
	asideLast workload.Time
	asideNow  lateJob
}

// ErrUnsorted is returned when a source yields a job submitted before the
// previous one.
var ErrUnsorted = errors.New("sim: jobs not in submission order")

// New returns an engine for cfg. It returns an error for a configuration a
// user could have got wrong (machine size).
func New(cfg Config) (*Engine, error) {
	if cfg.Immediate != nil && cfg.ClosedLoop {
		return nil, errImmediateLoop
	}
	if cfg.ScoreD != nil {
		return newScoreDEngine(cfg)
	}
	if cfg.ScoreDClusters != nil {
		return nil, errors.New("sim: ScoreDClusters without ScoreD: the main engine's cluster of clusters is a cluster.Federation (Config.Allocator)")
	}
	if cfg.Allocator != nil {
		cfg.Procs = cfg.Allocator.Capacity()
	}
	if err := checkMachine(cfg.Procs); err != nil {
		return nil, err
	}
	if cfg.Policy == nil {
		cfg.Policy = policy.FCFS{}
	}
	g, err := newGrowState(&cfg)
	if err != nil {
		return nil, err
	}
	if cfg.DeferPlacement && (cfg.Allocator != nil || cfg.Grow != nil || len(cfg.NodeEvents) > 0 || cfg.CheckpointEvery > 0) {
		return nil, errors.New("sim: deferred placement needs a pool of processors without growth, node events or checkpoints")
	}
	e := &Engine{cfg: cfg, pol: cfg.Policy, est: cfg.Estimator, machine: cluster.NewMachine(cfg.Procs), alloc: cfg.Allocator, grow: g, deferred: cfg.DeferPlacement}
	e.pool = newAllocator(&cfg, e.machine)
	e.count, _ = e.pool.(*countAlloc)
	if err := checkShared(&cfg); err != nil {
		return nil, err
	}
	if err := e.initNodes(&cfg); err != nil {
		return nil, err
	}
	if err := e.initPower(&cfg); err != nil {
		return nil, err
	}
	if err := e.initPreempt(&cfg); err != nil {
		return nil, err
	}
	e.view = e
	e.settler, _ = e.pol.(policy.Settler)
	e.fallible, _ = e.pol.(policy.Fallible)
	e.pool.attach(e)
	e.nextTick = -1
	if cfg.SchedInterval < 0 {
		return nil, fmt.Errorf("sim: scheduler cycle %d s: want ≥ 0", cfg.SchedInterval)
	}
	if cfg.Constraints != nil {
		cs, err := newConstraints(cfg.Constraints, cfg.Procs)
		if err != nil {
			return nil, err
		}
		e.cons = cs
		if cfg.SchedInterval > 0 {
			cs.onTick = e.cycleTick
		}
		cs.view = consView{e: e, cs: cs, inner: e.view}
		cs.view.fit, _ = e.view.(policy.Fitter)
		cs.dec = consDecisions{&cs.view}
		_, conservative := e.pol.(*policy.Conservative)
		cs.checkPromises = !cs.hasLimits && e.est == nil && !conservative
		if w, ok := e.pol.(policy.WholeQueue); ok && w.WholeQueue() {
			cs.wholeQueue = true
		}
		// A requeued job (a node failure) rejoins the queue where the
		// owners' lists do not see it: the whole queue is walked then.
		// So does a job requeued by preemption (Config.Preempt).
		cs.fast = cs.hasLimits && !cs.wholeQueue && len(cfg.NodeEvents) == 0 && !cfg.slowLimits && cfg.Shared == nil &&
			(cfg.Preempt == nil || cfg.Preempt.Mode != policy.PreemptRequeue)
		if err := cs.initPins(e.alloc); err != nil {
			return nil, err
		}
	}
	e.shared = cfg.Shared != nil
	e.who = e.cons != nil || e.shared
	_, conservative := e.pol.(*policy.Conservative)
	e.promises = e.pool.counting() && (e.cons == nil || e.cons.checkPromises) && !(conservative && cfg.SchedInterval > 0)
	if q, ok := e.pol.(fastpath.Quieter); ok && e.pool.counting() && e.grow == nil && len(cfg.NodeEvents) == 0 && (e.cons == nil || e.cons.steady(cfg)) && cfg.SchedInterval == 0 && cfg.Shared == nil {
		e.quieter = q
		// A checkpoint is taken between instants, with no end left for
		// the next pass: passes after ends run when it may be taken.
		if r, ok := q.(fastpath.RoomBound); ok && r.NeedsRoom() && cfg.CheckpointEvery == 0 && cfg.OnCheckpoint == nil {
			e.roomBound = true
			e.room.reset(cfg.Procs)
		}
	}
	return e, nil
}

// freeProcs returns the idle processors.
func (e *Engine) freeProcs() int {
	if c := e.count; c != nil {
		return c.size - c.busy // small enough to be inlined
	}
	return e.poolFree()
}

// poolFree is freeProcs on a pool of another kind than the counted one:
// its idle processors, less those the time-shared jobs share beyond them
// (Config.Shared; the counted pool counts those in its busy).
//
//go:noinline
func (e *Engine) poolFree() int { return e.pool.free() - e.sharedOver }

// Run replays src to the end, telling observer (which may be nil) of every
// event it wants, and returns the run's statistics. An error from src stops
// the run and is returned as is.
func (e *Engine) Run(src Source, observer Observer) (Stats, error) {
	var buf workload.Job
	next := &buf
	ref, _ := src.(RefSource)
	sd := e.sd // SCore-D's queues (Config.ScoreD), or nil
	if sd != nil {
		if err := sd.begin(); err != nil {
			return e.stats, err
		}
		ref = nil // the component copies each job it reads
	}
	if e.resumed {
		// The jobs the saved engine had read, read again to bring the
		// source (and its cleaning statistics) to where it was: those it
		// submitted, less those a closed loop had delayed (read before,
		// each submitted once), and those the loop still keeps.
		read := e.stats.Jobs
		if e.loop != nil {
			read += int64(e.loop.left())
		}
		e.stats.Immediate, e.asideLast = 0, 0 // counted again as they are read again
		for range read {
			if have, err := e.read(src, ref, &next); err != nil || !have {
				if err == nil {
					err = fmt.Errorf("sim: resuming: the source ended before the %d jobs the checkpoint had read", read)
				}
				return e.stats, err
			}
		}
	}
	have, err := e.read(src, ref, &next)
	if err != nil {
		return e.stats, err
	}
	if e.resumed && len(e.aside) > 0 {
		now := e.now
		if sd != nil {
			now = workload.Time(sd.nowMs)
		}
		e.dropGivenAside(now)
	}
	if have && !e.resumed {
		e.stats.FirstEvent = next.Submit
		e.lastT = next.Submit
		e.nextCk = next.Submit + e.cfg.CheckpointEvery
		if sd != nil {
			sd.nowMs = sd.toMs(next.Submit)
			sd.nextCk = e.nextCk
		}
	}
	e.resumed = false
	obs := newSink(observer)
	if sd == nil { // SCore-D's component keeps its processors itself
		if err := e.pool.observe(obs); err != nil {
			return e.stats, err
		}
	}
	var loop *closedLoop
	if e.cfg.ClosedLoop {
		if e.loop == nil {
			e.loop = newClosedLoop()
		}
		loop = e.loop
		obs.loop = loop
	}
	sampling := obs.wants(EventSampled)
	e.obs = obs
	if sd != nil {
		sd.obs = obs
	}
	idleWakes := 0
	for have || len(e.ends) > 0 || len(e.holds) > 0 || (len(e.queue) > 0 && (len(e.wakes) > 0 || e.nodes.pending())) || (loop != nil && len(loop.late) > 0) ||
		(e.pre != nil && len(e.pre.susp) > 0 && len(e.wakes) > 0) || sd != nil {
		t := workload.Forever
		if sd != nil {
			// SCore-D's instants are milliseconds (see ScoreD).
			ms, stop, err := sd.nextInstant(have, next, loop)
			if err != nil {
				return e.stats, err
			}
			if stop {
				break
			}
			t = workload.Time(ms)
		}
		if have && sd == nil {
			t = next.Submit
		}
		if loop != nil && sd == nil && loop.next() < t {
			t = loop.next()
		}
		if len(e.ends) > 0 && e.ends[0].at < t {
			t = e.ends[0].at
		}
		if len(e.holds) > 0 && e.holds[0].at < t {
			t = e.holds[0].at
		}
		if len(e.expiry) > 0 && e.expiry[0].at < t {
			t = e.expiry[0].at
		}
		if at := e.nodes.nextAt(); at < t {
			t = max(at, e.stats.FirstEvent) // events before the first job apply with it
		}
		woken := false
		if len(e.wakes) > 0 && e.wakes[0] <= t {
			t = e.wakes[0]
			for len(e.wakes) > 0 && e.wakes[0] == t {
				e.wakes.pop()
			}
			woken = true
		}
		if len(e.aside) > 0 {
			e.giveAside(t, false) // the immediate queues' jobs that ended before t
		}
		if sd != nil {
			sd.advance(max(int64(t), sd.nowMs))
			sd.arrived = sd.arrived[:0]
		} else {
			if t > workload.MaxTime {
				return e.stats, pastMaxTime(t)
			}
			e.advance(t)
		}
		event := false
		for (have && e.at(next.Submit) == t) || (loop != nil && e.at(loop.next()) == t) {
			event = true
			if loop != nil {
				// The jobs of the trace and those the loop delayed to
				// t are submitted in trace order.
				if e.at(loop.next()) == t && (!have || e.at(next.Submit) != t || loop.late[0].job.Seq < next.Seq) {
					e.submitLate(loop.pop(), obs)
					continue
				}
				if !loop.arrive(next, e.traceTime(t), &e.stats) {
					if have, err = e.read(src, ref, &next); err != nil {
						return e.stats, err
					}
					if have && e.at(next.Submit) < t {
						return e.stats, fmt.Errorf("%w: job %d submitted at %d after a job at %d", ErrUnsorted, next.ID, next.Submit, e.traceTime(t))
					}
					continue
				}
			}
			e.submit(next, obs)
			if have, err = e.read(src, ref, &next); err != nil {
				return e.stats, err
			}
			if have && e.at(next.Submit) < t {
				return e.stats, fmt.Errorf("%w: job %d submitted at %d after a job at %d", ErrUnsorted, next.ID, next.Submit, e.traceTime(t))
			}
		}
		endedNow := false
		for len(e.ends) > 0 && e.ends[0].at == t {
			event, endedNow = true, true
			e.finish(e.ends.pop().id, obs)
			if e.grow != nil {
				e.dropStaleEnds()
			}
		}
		if sd != nil && sd.ends() {
			event = true
		}
		// Successors of the jobs that just ended, with no think time,
		// join the queue before the pass.
		for loop != nil && e.at(loop.next()) == t {
			if sd != nil {
				event = true
			}
			e.submitLate(loop.pop(), obs)
		}
		if sd != nil && sd.releaseHeld(int64(t)) {
			event = true
		}
		releasedNow := false
		for len(e.holds) > 0 && e.holds[0].at == t {
			event, releasedNow = true, true
			e.release(e.holds.pop().id)
		}
		expired := false
		for len(e.expiry) > 0 && e.expiry[0].at == t {
			ev := e.expiry.pop()
			if e.grow != nil && e.grow.stale(ev) {
				continue // the job grew (or ended) since: re-planned
			}
			event, expired = true, true
			e.expire(ev.id)
		}
		nodesChanged := false
		if e.nodes.nextAt() <= t {
			event, nodesChanged = true, true
			e.applyNodeEvents(obs)
		}
		for _, id := range e.toPredict {
			e.predict(&e.slots[id])
		}
		e.toPredict = e.toPredict[:0]
		if sd != nil {
			if sd.nd != nil && sd.applyNodes() {
				event = true
			}
			if sd.pw != nil && sd.applyPower() {
				event = true
			}
			if sd.changesNow(int64(t)) {
				event = true
			}
			sd.passes()
			if sd.pw != nil && sd.powerPass() {
				event = true
			}
		}
		switch {
		case woken || expired || nodesChanged || releasedNow:
			e.quiet.Valid, e.quietDue = false, false // more than submissions since the last pass
		case endedNow:
			e.quietDue = false
			e.quiet = e.roomRule()
		}
		// A corrected prediction is news to a policy that plans ahead
		// (Conservative) even when nothing waits.
		passed := len(e.queue) > 0 || len(e.ended) > 0 || expired
		// A growth filter that refused a running job asked to be woken at
		// the job's re-evaluation: it is offered the idle processors
		// again then, even with nothing queued (SPEC §6).
		passed = passed || (woken && e.grow != nil && e.grow.filter != nil && len(e.grow.order) > 0)
		// Suspended jobs a reservation kept from resuming (Config.Preempt
		// under Config.Constraints) are tried again at its end.
		passed = passed || (woken && e.pre != nil && len(e.pre.susp) > 0)
		if passed && e.cfg.SchedInterval > 0 {
			// The scheduler's cycle: a pass only at its ticks.
			if tick := e.cycleTick(t); tick != t {
				if e.nextTick != tick {
					e.wakes.push(tick)
					e.nextTick = tick
				}
				passed = false
				if e.pre != nil && len(e.pre.susp) > 0 {
					// Slurm's gang scheduler resumes suspended jobs as
					// their resources free, not at the cycle's ticks.
					e.resume()
				}
			}
		}
		if passed {
			if e.quietDue {
				e.quiet, e.quietDue = e.quieter.Quiet(), false
			}
			if e.quiet.Valid && e.idlePass() {
				e.stats.Passes++ // the pass ran, in effect, and started nothing
				e.skipped++
				e.started = false
			} else {
				e.pass()
				if e.fallible != nil {
					if err := e.fallible.Err(); err != nil {
						return e.stats, err
					}
				}
			}
			if e.grow != nil {
				e.dropStaleEnds()
			}
		}
		if e.pw != nil {
			e.powerPass()
		}
		if event {
			e.lastEvent = t
		}
		if woken && !event && !(passed && e.started) {
			if idleWakes++; idleWakes > 1<<22 {
				if e.fallible != nil {
					return e.stats, fmt.Errorf("policy %s kept asking to be woken, %d times in a row at instants where it started nothing (the last at %d)", e.pol.Name(), idleWakes, t)
				}
				panic(fmt.Sprintf("sim: policy %s keeps waking the engine at %d without starting anything", e.pol.Name(), t))
			}
		} else {
			idleWakes = 0
		}
		if len(e.aside) > 0 {
			e.giveAside(t, true) // those that end at t, before its sample and checkpoint
		}
		if sampling && (event || passed) {
			switch c := obs.copier; {
			case sd != nil:
				obs.smp[0] = sd.sampleNow()
				obs.sampled()
			case c != nil: // as a few words (fastpath.Copier)
				c.Sampled(t, e.busyProcs(), len(e.running), len(e.queue)+len(e.holds), e.queuedProcs, e.nodes.nParked)
			default:
				obs.smp[0] = Sample{Time: t, Busy: e.busyProcs(), Running: len(e.running), Queued: len(e.queue) + len(e.holds), QueuedProcs: e.queuedProcs, Unavailable: e.nodes.nParked}
				obs.sampled()
			}
		}
		if sd != nil {
			if e.cfg.CheckpointEvery > 0 && e.cfg.OnCheckpoint != nil {
				if err := sd.checkpoint(int64(t), e.cfg.CheckpointEvery, e.cfg.OnCheckpoint); err != nil {
					return e.stats, err
				}
			}
			continue
		}
		if e.cfg.CheckpointEvery > 0 && t >= e.nextCk && e.cfg.OnCheckpoint != nil {
			every := e.cfg.CheckpointEvery
			e.nextCk = e.stats.FirstEvent + ((t-e.stats.FirstEvent)/every+1)*every
			if err := e.cfg.OnCheckpoint(t); err != nil {
				return e.stats, err
			}
		}
		if e.settler != nil && passed && !have && (loop == nil || loop.left() == 0) && e.idleButWakes() && e.settler.Settled(e.lastEvent) {
			e.settle(obs)
			break
		}
	}
	if sd != nil {
		sd.finish(loop)
		e.giveAllAside()
		return e.stats, nil
	}
	if len(e.queue) > 0 && e.nodes.unavail > 0 {
		e.strand(obs) // nodes stay out of service to the end
		if loop != nil {
			e.neverSubmitted(loop, obs)
		}
	}
	e.giveAllAside()
	if len(e.queue) > 0 && e.fallible != nil {
		return e.stats, e.fallible.Stranded(len(e.queue))
	}
	if len(e.queue) > 0 {
		panic(fmt.Sprintf("sim: run ended with %d jobs queued and nothing running", len(e.queue)))
	}
	if e.pre != nil && len(e.pre.susp) > 0 {
		panic(fmt.Sprintf("sim: run ended with %d jobs suspended by preemption", len(e.pre.susp)))
	}
	if loop != nil && loop.left() > 0 {
		panic(fmt.Sprintf("sim: run ended with %d jobs of a closed loop never submitted", loop.left()))
	}
	if d := e.busy - e.stats.ProcSeconds; d > 0.5 || d < -0.5 {
		panic(fmt.Sprintf("sim: processor-seconds not conserved: busy integral %.0f, jobs used %.0f", e.busy, e.stats.ProcSeconds))
	}
	return e.stats, nil
}

// at returns trace time t on the engine's clock: t itself, or, in a run of
// SCore-D's queues, t in milliseconds (see ScoreD).
func (e *Engine) at(t workload.Time) workload.Time {
	if e.sd == nil {
		return t
	}
	return e.sd.clockOf(t)
}

// traceTime returns instant t of the engine's clock in trace time (the
// inverse of at, rounded up).
func (e *Engine) traceTime(t workload.Time) workload.Time {
	if e.sd == nil {
		return t
	}
	return e.sd.fromMs(int64(t))
}

// submitLate submits j, a job the closed loop delayed.
func (e *Engine) submitLate(j *workload.Job, obs *sink) {
	if e.sd != nil {
		e.sd.submitLate(j)
		return
	}
	e.submit(j, obs)
}

// cycleTick returns the first tick of the scheduler's cycle
// (Config.SchedInterval) at or after t, counted from the first
// submission.
func (e *Engine) cycleTick(t workload.Time) workload.Time {
	n := e.cfg.SchedInterval
	d := t - e.stats.FirstEvent
	if r := d % n; r != 0 {
		return t - r + n
	}
	return t
}

// idleButWakes reports whether, the source read to its end, the run has
// nothing left to do but the policy's wake-ups: no job to release from its
// hold, none running, no node event to come, jobs queued.
func (e *Engine) idleButWakes() bool {
	return len(e.ends) == 0 && len(e.expiry) == 0 && len(e.holds) == 0 &&
		!e.nodes.pending() && len(e.queue) > 0
}

// settle ends a run that only the policy's wake-ups would go on with (see
// policy.Settler): every queued job is recorded as Pending, in queue
// order, with the policy's reason.
func (e *Engine) settle(obs *sink) {
	for _, id := range e.queue {
		s := &e.slots[id]
		reason := e.settler.Strand(&s.job)
		e.stats.Pending++
		e.touch(e.now)
		s.job.Estimate = s.limit // the job as the trace gave it
		e.rec = Record{Job: &s.job, State: Pending, Start: e.now, End: e.now, Reason: reason, Note: e.noteOf(&s.job), Requeues: int(s.requeues)}
		obs.record(&e.rec)
		e.dequeued(s)
		e.freeIDs = append(e.freeIDs, id)
	}
	e.queue, e.dense = e.queue[:0], e.dense[:0]
	e.queuedProcs = 0
}

// read reads the next job into **j, or points *j at it when ref (src as a
// RefSource) is not nil, and reports whether there was one.
func (e *Engine) read(src Source, ref RefSource, j **workload.Job) (bool, error) {
	var err error
again:
	if ref != nil {
		var p *workload.Job
		if p, err = ref.NextRef(); err == nil {
			*j = p
		}
	} else {
		err = src.Next(*j)
	}
	if err == io.EOF {
		return false, nil
	}
	if err == nil && e.cfg.Immediate != nil {
		// A job of an immediate queue is set aside (a rare path).
		var took bool
		if took, err = e.setAside(*j); took && err == nil {
			goto again
		}
	}
	if err == nil && e.sd != nil {
		err = checkJobLimits(*j)
	}
	return err == nil, err
}

// advance moves the clock to t, integrating busy processors.
func (e *Engine) advance(t workload.Time) {
	if t < e.now {
		panic(fmt.Sprintf("sim: clock moving back from %d to %d", e.now, t))
	}
	e.busy += float64(e.busyProcs()) * float64(t-e.lastT)
	e.lastT = t
	e.now = t
}

func (e *Engine) submit(j *workload.Job, obs *sink) {
	if e.sd != nil {
		e.sd.submitTrace(j)
		return
	}
	e.stats.Jobs++
	if e.cfg.Admission != nil && !e.admitted(j, obs) {
		return
	}
	if e.cfg.SubmitLatency != nil {
		e.cfg.SubmitLatency(j)
	}
	var ok bool
	var reason string
	if c := e.count; c != nil {
		if ok = j.Procs <= c.size && e.grow == nil; !ok { // written out: submit runs inlined, where calls stay calls
			ok, reason = c.testOnly(e, j)
		}
	} else {
		ok, reason = e.pool.testOnly(e, j)
	}
	if ok && e.cons != nil {
		ok, reason = e.consAdmit(j)
	}
	if !ok {
		e.reject(j, reason, obs)
		return
	}
	var id int32
	if j.Seq <= e.lastSeq && e.stats.Jobs > 1 {
		j.Seq = e.lastSeq + 1 // the engine relies on Seq increasing
	}
	e.lastSeq = j.Seq
	if n := len(e.freeIDs); n > 0 {
		id = e.freeIDs[n-1]
		e.freeIDs = e.freeIDs[:n-1]
	} else {
		e.slots = append(e.slots, slot{})
		id = int32(len(e.slots) - 1)
	}
	s := &e.slots[id]
	s.job = *j
	if e.cons != nil {
		e.cons.assign(id, j)
		e.cons.submitted(j, 1)
	}
	s.started = false
	s.requeues = 0
	s.memberLimit = false
	s.reserved = workload.Forever
	s.epoch = e.epoch
	s.limit = j.Estimate
	s.alloc = s.alloc[:0]
	if s.limit <= 0 && e.defTime != nil {
		// Slurm: a job without a time limit gets its partition's.
		if t := e.defTime.DefaultTime(cluster.RequestOf(j)); t > 0 {
			s.job.Estimate, s.limit = t, t
			e.stats.DefaultTimes++
		}
	}
	s.member = 0
	s.pj, s.preq = nil, 0
	if e.pre != nil {
		s.tier = int32(e.pre.cfg.Tier(&s.job))
	}
	if a, ok := e.alloc.(memberAssigner); ok {
		s.member = int32(a.Assign(s.request()))
	}
	if e.est != nil && s.job.Estimate > 0 {
		s.job.Estimate = min(max(e.est.Predict(&s.job), 1), s.limit)
	}
	s.predicted = -1
	s.predAt = s.predAt[:0]
	s.released = false
	s.pending = PendingNone
	if e.count == nil {
		e.pool.queued(e, s, id) // nothing on the counted pool
	}
	if e.grow != nil {
		e.grow.submitted(e, s, id)
	}
	if s.job.HoldUntil > e.now {
		// Held until then: it joins the queue at its release.
		e.holds.push(endEvent{at: s.job.HoldUntil, seq: s.job.Seq, id: id})
		e.queuedProcs += int64(s.job.Procs)
		if obs.wants(EventSubmitted) {
			e.emit(EventSubmitted, &s.job, s.job.Procs, s.job.HoldUntil)
		}
		return
	}
	if obs.wants(EventSubmitted) {
		e.emit(EventSubmitted, &s.job, s.job.Procs, 0)
	}
	e.queue = append(e.queue, id)
	if e.cons != nil {
		e.cons.joined(id, s.job.Seq, s.job.Procs)
	}
	if len(e.dense) == len(e.queue)-1 && len(e.dense) < denseKeep {
		e.dense = append(e.dense, fastpath.QueuedOf(&s.job))
	}
	e.queuedProcs += int64(s.job.Procs)
	if e.roomBound {
		e.room.add(s.job.Procs)
	}
	if len(e.queue) > e.stats.MaxQueue {
		e.stats.MaxQueue = len(e.queue)
	}
}

// admitted reports whether Config.Admission admits job j, and records its
// failure if not. It and the other rare paths of submit are apart from
// it, which runs for every job, so that the compiler can inline submit
// into the event loop.
//
//go:noinline
func (e *Engine) admitted(j *workload.Job, obs *sink) bool {
	ok, reason := e.cfg.Admission.Admit(j)
	if !ok {
		e.stats.Failed++
		e.rec = Record{Job: j, State: Failed, Start: j.Submit, End: j.Submit, Reason: reason, Note: e.noteOf(j)}
		e.touch(j.Submit)
		obs.record(&e.rec)
	}
	return ok
}

// consAdmit returns whether the constraints (Config.Constraints) admit
// job j, and why not.
//
//go:noinline
func (e *Engine) consAdmit(j *workload.Job) (bool, string) {
	e.cons.initWindows(j.Submit)
	aj := j
	if e.grow != nil {
		aj = e.grow.atMinimum(j, e.machine.Size()) // as it will queue
	}
	if r := e.cons.admit(aj, aj.Estimate, j.Submit); r != "" {
		return false, r
	}
	return true, ""
}

// reject records the rejection of job j at its submission.
//
//go:noinline
func (e *Engine) reject(j *workload.Job, reason string, obs *sink) {
	e.stats.Rejected++
	e.rec = Record{Job: j, State: Rejected, Start: j.Submit, End: j.Submit, Reason: reason}
	e.touch(j.Submit)
	obs.record(&e.rec)
}

// release puts held job id into the queue at the end of its hold, at its
// submission-order place (before the jobs submitted after it): the
// scheduler orders HPC Pack's queue by submission, holds or not.
func (e *Engine) release(id int32) {
	s := &e.slots[id]
	seq := s.job.Seq
	k := e.SearchSeq(0, len(e.queue), seq+1)
	e.queue = slices.Insert(e.queue, k, id)
	if e.cons != nil {
		e.cons.joined(id, seq, s.job.Procs)
	}
	if k <= len(e.dense) {
		e.dense = slices.Insert(e.dense, k, fastpath.QueuedOf(&s.job))
	}
	if k < len(e.queue)-1 {
		// It goes before jobs that may hold reservations: they were
		// planned without it, and are void.
		s.released = true
		e.released++
		e.epoch++
	}
	if e.roomBound {
		e.room.add(s.job.Procs)
	}
	e.stats.MaxQueue = max(e.stats.MaxQueue, len(e.queue))
}

// dequeued does what every way out of the queue (a start, a failure)
// must: the counts of jobs queued out of order.
func (e *Engine) dequeued(s *slot) {
	if s.member > 0 || s.requeues > 0 || s.preq > 0 || s.released {
		e.dequeuedRare(s) // apart, so that this is inlined
	}
}

// dequeuedRare is dequeued for a job that was assigned a member, requeued
// or released from a hold.
//
//go:noinline
func (e *Engine) dequeuedRare(s *slot) {
	if s.member > 0 {
		e.alloc.(memberAssigner).Waiting(s.request(), false)
	}
	if s.requeues > 0 || s.preq > 0 {
		e.nodes.requeued--
	}
	if s.released {
		s.released = false
		e.released--
	}
}

func (e *Engine) touch(t workload.Time) {
	if t > e.stats.LastEvent {
		e.stats.LastEvent = t
	}
}

func (e *Engine) finish(id int32, obs *sink) {
	s := &e.slots[id]
	var alloc []cluster.Range // where it ran, for the policy (on nodes)
	if e.sharedOver > 0 {
		e.sharedEnded(id)
	}
	if c := e.count; c != nil {
		c.give(s)
	} else {
		e.pool.give(s)
		alloc = e.pool.ended(s)
	}
	if e.pw != nil {
		e.powerBusy(s.alloc, -1)
	}
	e.nodes.released(s.alloc)
	if e.cons != nil {
		e.cons.running(&s.job, -1)
		e.cons.submitted(&s.job, -1)
		e.cons.runningChanged()
	}
	k := e.findRunning(s.predEnd, s.job.Seq)
	e.running = append(e.running[:k], e.running[k+1:]...)
	e.ended = append(e.ended, policy.Ended{Seq: s.job.Seq, Start: s.start, End: s.end, PredictedEnd: s.predEnd, Procs: s.job.Procs, User: s.job.User, Freed: e.freed(s), Alloc: alloc})
	if e.grow != nil {
		e.grow.finished(e, s, id)
	}
	s.job.Estimate = s.limit // the job as the trace gave it
	if e.est != nil {
		run := s.end - s.start
		if e.grow != nil {
			run = e.grow.runOnP0(id, run)
		}
		if s.pj != nil {
			run += s.pj.done // its runs before a suspension (Config.Preempt)
		}
		e.est.Done(&s.job, run)
	}
	st := Completed
	if s.limit > 0 && s.job.Run > s.limit {
		st = Killed
		e.stats.Killed++
	}
	e.touch(s.end)
	if obs.copier != nil && e.deferred && len(s.alloc) == 0 && e.grow == nil && e.pre == nil && s.predicted < 0 && e.cfg.Annotator == nil {
		// Most ends, handed over without a Record (fastpath.Copier).
		if obs.loop != nil {
			obs.loop.ended(s.job.ID, s.end)
		}
		if obs.kinds&(1<<EventEnded) != 0 {
			obs.copier.PlainEnd(&s.job, s.start, s.end, st == Killed, id, s.requeues, uint8(s.pending), e.who)
		}
		e.freeIDs = append(e.freeIDs, id)
		return
	}
	// Set in place: a Record literal is built aside and then copied,
	// twice the work at every end.
	r := &e.rec
	*r = Record{}
	r.Job, r.State, r.Start, r.End, r.Alloc = &s.job, st, s.start, s.end, s.alloc
	r.Requeues, r.Deferred, r.Slot, r.Pending, r.Who = int(s.requeues), e.deferred, id, s.pending, e.who
	e.recordGrowth(id)
	if e.pre != nil {
		e.pre.ran(s.tier, -1)
		e.preemptRecord(s)
	}
	if s.predicted >= 0 {
		e.rec.Predicted, e.rec.HasPrediction, e.rec.PredictedAlloc = s.predicted, true, s.predAt
		e.stats.Predicted++
		if s.start <= s.predicted {
			e.stats.PredictedMet++
		}
	}
	if e.cfg.Annotator != nil {
		e.rec.Note = e.noteOf(&s.job)
	}
	obs.record(&e.rec)
	e.freeIDs = append(e.freeIDs, id)
}

// findRunning returns the index in e.running of the job with this key.
func (e *Engine) findRunning(predEnd workload.Time, seq int64) int {
	k := e.searchRunning(predEnd, seq)
	if k == len(e.running) || e.running[k].seq != seq {
		panic(fmt.Sprintf("sim: running job with sequence %d not in the end index", seq))
	}
	return k
}

// searchRunning returns the first index in e.running whose key (predicted
// end, seq) is at or after (predEnd, seq). It runs at every start and end:
// the search is written out, without sort.Search's closure call per probe.
func (e *Engine) searchRunning(predEnd workload.Time, seq int64) int {
	lo, hi := 0, len(e.running)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r := &e.running[m]; r.predEnd < predEnd || (r.predEnd == predEnd && r.seq < seq) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// pass runs one scheduling pass and removes the started jobs from the queue.
func (e *Engine) pass() {
	if e.cons != nil {
		if e.pre != nil && len(e.pre.susp) > 0 {
			e.resume()
		}
		e.consPass()
		if e.pre != nil && len(e.pre.requeue) > 0 {
			e.afterPreemptPass()
		}
		if e.grow != nil && e.grow.balanced {
			e.balance()
		}
		if e.quieter != nil {
			e.quietDue, e.quietLen = true, len(e.queue)
		}
		return
	}
	e.stats.Passes++
	if e.pre != nil && len(e.pre.susp) > 0 {
		e.resume()
	}
	if e.shared {
		e.startShared()
	}
	e.passLen = len(e.queue)
	e.headPhase = e.grow != nil
	e.started = false
	e.startedAt = e.startedAt[:0]
	e.pol.Schedule(e.view, e)
	e.ended = e.ended[:0]
	e.nodes.log = e.nodes.log[:0]
	if e.started {
		e.removeStarted()
	}
	if e.pre != nil && len(e.pre.requeue) > 0 {
		e.afterPreemptPass()
	}
	if e.grow != nil && e.grow.balanced {
		e.balance()
	}
	if len(e.queue) > 0 {
		// The head of the queue waits for processors (on a cluster: for
		// nodes where it fits), or, when they are free, for something the
		// policy keeps it for (a filter, a limit, a reservation).
		s := &e.slots[e.queue[0]]
		fits := false
		if c := e.count; c != nil {
			fits = s.job.Procs <= c.size-c.busy // written out, as in submit
		} else {
			fits = e.fits(s)
		}
		if !fits {
			s.pending = PendingResources
		} else {
			s.pending = PendingPolicy
		}
		if e.cons != nil {
			e.cons.touched(e.queue[0], s.job.Seq)
		}
	}
	if e.quieter != nil {
		e.quietDue, e.quietLen = true, len(e.queue)
	}
}

// maxSkippedEnds bounds the ends the engine keeps for the next pass while it
// skips passes (see roomRule): a pass runs when that many have piled up.
const maxSkippedEnds = 4096

// roomRule returns the rule for the pass due after jobs ended: one under
// which every pass skips until a job that fits the free processors joins,
// if the policy is a fastpath.RoomBound and no queued job fits them now, or
// else no rule (the pass must run). A job joining behind the head can
// start only backfilled: with an estimate, and on free processors.
func (e *Engine) roomRule() fastpath.QuietRule {
	if !e.roomBound || len(e.queue) == 0 || len(e.ended) > maxSkippedEnds {
		return fastpath.QuietRule{}
	}
	free := e.freeProcs()
	if e.room.anyFits(free) {
		return fastpath.QuietRule{}
	}
	e.quietLen = len(e.queue) // every queued job was just checked
	return fastpath.QuietRule{Valid: true, Limit: math.MaxInt, Free: free, Extra: free, Shadow: workload.Forever}
}

// idlePass reports whether the pass due now would start nothing, by the
// rule the last pass left (e.quiet, valid: only submissions happened since).
// The jobs that joined since it checked last are the only ones that could
// start; with none of them able to, the pass can be skipped.
func (e *Engine) idlePass() bool {
	q := e.queue
	for i := e.quietLen; i < len(q); i++ {
		if e.quiet.May(i, e.now, &e.slots[q[i]].job) {
			return false
		}
	}
	e.quietLen = len(q)
	return true
}

// removeStarted takes the jobs started in this pass out of the queue (and
// its dense copy).
func (e *Engine) removeStarted() {
	idx := e.startedAt
	if len(idx) > 1 {
		slices.Sort(idx)
	}
	if e.roomBound {
		for _, i := range idx {
			e.room.remove(e.slots[e.queue[i]].job.Procs)
		}
	}
	e.queue = removeAt(e.queue, idx)
	k := 0
	for k < len(idx) && idx[k] < len(e.dense) {
		k++
	}
	if k > 0 {
		e.dense = removeAt(e.dense, idx[:k])
	}
}

// removeOne removes q[i], moving the shorter side of q: the jobs ahead of
// it back (the front is dropped, as removeAt does for a long queue) or
// those after it forward.
func removeOne[T any](q []T, i int) []T {
	if i < len(q)-1-i {
		copy(q[1:i+1], q[:i])
		return q[1:]
	}
	copy(q[i:], q[i+1:])
	return q[:len(q)-1]
}

// removeAt removes the elements at the increasing indices idx from q. The
// queue can hold many thousands of jobs under overload, so it moves whole
// runs of waiting jobs at once, and a started prefix (FCFS's usual case)
// costs nothing at all.
func removeAt[T any](q []T, idx []int) []T {
	if len(idx) == 1 {
		return removeOne(q, idx[0]) // one job started: most passes that start any
	}
	k := 0
	for k < len(idx) && idx[k] == k {
		k++
	}
	if k == len(idx) && len(q)-k > 1024 {
		return q[k:] // a started prefix of a long queue: drop it
	}
	if last := idx[len(idx)-1]; len(q) > 1024 && last+1 < len(q)-idx[0] {
		// In a long queue, the started jobs sit nearer the head than the
		// tail (EASY's backfill under overload takes the first that fit):
		// close the gaps by moving the jobs ahead of them back, and drop
		// the front. (The room dropped is regained when appending
		// reallocates, after about as many submissions as the queue
		// holds; a short queue is cheaper to close towards the front.)
		w := last + 1
		for n := len(idx) - 1; n >= 0; n-- {
			prev := -1
			if n > 0 {
				prev = idx[n-1]
			}
			seg := q[prev+1 : idx[n]]
			w -= len(seg)
			copy(q[w:], seg)
		}
		return q[len(idx):]
	}
	w := idx[0]
	for n, i := range idx {
		next := len(q)
		if n+1 < len(idx) {
			next = idx[n+1]
		}
		w += copy(q[w:], q[i+1:next])
	}
	return q[:w]
}

// Now implements policy.View.
func (e *Engine) Now() workload.Time { return e.now }

// Capacity implements policy.View.
func (e *Engine) Capacity() int { return e.machine.Size() - e.nodes.unavail }

// Free implements policy.View.
func (e *Engine) Free() int { return e.freeProcs() }

// Len implements policy.View.
func (e *Engine) Len() int { return e.passLen }

// Job implements policy.View.
func (e *Engine) Job(i int) *workload.Job { return &e.slots[e.queue[i]].job }

// denseKeep is how long a prefix of the queue the engine keeps in its
// dense copy as jobs join; Queued extends it on demand. EASY reads it only
// for windows of up to indexMinWindow jobs behind the head, and keeping
// the copy of a queue of thousands under overload would cost more, at
// every removal, than it saves.
const denseKeep = 512

// Queued implements fastpath.DenseQueue: the engine keeps a dense copy of a
// prefix of the queue, from the jobs' slots, and extends it when a policy
// asks for more.
func (e *Engine) Queued(n int) []fastpath.Queued {
	if n > e.passLen {
		panic(fmt.Sprintf("sim: policy %s asked for %d queued jobs of %d", e.pol.Name(), n, e.passLen))
	}
	for k := len(e.dense); k < n; k++ {
		e.dense = append(e.dense, fastpath.QueuedOf(&e.slots[e.queue[k]].job))
	}
	return e.dense[:n]
}

// NumRunning implements policy.View.
func (e *Engine) NumRunning() int { return len(e.running) }

// Running implements policy.View.
func (e *Engine) Running(k int) (workload.Time, int) {
	r := &e.running[k]
	return r.predEnd, int(r.procs)
}

// ShadowOf returns the earliest predicted time at which procs processors
// are free and how many beyond procs are free then, as policy.ShadowOver
// computes it from this View (with unknownEndsNow, as if every running job
// without an estimate ended now): the same loop over the running jobs in
// predicted-end order, without an interface call per job.
func (e *Engine) ShadowOf(procs int, unknownEndsNow bool) (at workload.Time, extra int) {
	avail := e.freeProcs()
	at = e.now
	run := e.running
	if unknownEndsNow {
		for k := len(run) - 1; k >= 0 && run[k].predEnd >= workload.Forever; k-- {
			avail += int(run[k].procs)
		}
	}
	if avail >= procs {
		return at, avail - procs
	}
	// Add the running jobs in predicted-end order until procs are free,
	// then those that end at that same time.
	k := 0
	for ; avail < procs; k++ {
		if k == len(run) || run[k].predEnd >= workload.Forever {
			return workload.Forever, 0
		}
		avail += int(run[k].procs)
	}
	at = run[k-1].predEnd
	for ; k < len(run) && run[k].predEnd == at; k++ {
		avail += int(run[k].procs)
	}
	return at, avail - procs
}

// ArrivalOrder reports that the queue is in submission order, which lets
// policies keep indexes keyed by Seq (see policy.EASY). It reports false
// while a job requeued after a node failure, or released from its hold
// before jobs submitted after it, waits: the queue is still in submission
// order, but it holds a job such an index has let go of or never saw.
func (e *Engine) ArrivalOrder() bool { return e.nodes.requeued == 0 && e.released == 0 }

// SearchSeq returns the smallest queue index k in [lo, hi) whose job has
// Seq ≥ seq, or hi if there is none. The queue must be in arrival order
// (ArrivalOrder); policies use it to find a job they indexed by Seq.
func (e *Engine) SearchSeq(lo, hi int, seq int64) int {
	q := e.queue
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if e.slots[q[m]].job.Seq < seq {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Ended implements policy.View.
func (e *Engine) Ended() []policy.Ended { return e.ended }

// Start implements policy.Decisions.
func (e *Engine) Start(i int) {
	procs := -1
	if e.headPhase {
		procs = int(^uint(0) >> 1)
	}
	e.startWith(i, procs)
}

// startWith starts queue index i; under Grow a malleable job is then given
// up to procs processors in all (its maximum and the idle processors
// permitting), procs < 0 meaning its minimum only.
func (e *Engine) startWith(i, procs int) {
	if i < 0 || i >= e.passLen {
		panic(fmt.Sprintf("sim: policy %s started queue index %d of %d", e.pol.Name(), i, e.passLen))
	}
	id := e.queue[i]
	s := &e.slots[id]
	if s.started {
		panic(fmt.Sprintf("sim: policy %s started job %d twice", e.pol.Name(), s.job.ID))
	}
	if e.now < s.job.Submit {
		panic(fmt.Sprintf("sim: job %d started at %d before its submission at %d", s.job.ID, e.now, s.job.Submit))
	}
	if e.now > s.reserved && s.epoch == e.epoch && e.promises &&
		(e.cfg.SchedInterval == 0 || e.now > e.cycleTick(s.reserved)) { // under a cycle, the first pass at or after it
		panic(fmt.Sprintf("sim: job %d started at %d after its reservation at %d: a reservation was delayed", s.job.ID, e.now, s.reserved))
	}
	s.started = true
	if e.cons != nil {
		e.cons.running(&s.job, 1)
	}
	if s.pending == PendingNone && e.now > s.job.Submit {
		// Never at the head of the queue after a pass: jobs ahead of it
		// went first, unless its hold alone kept it until now.
		s.pending = PendingPriority
		if s.job.HoldUntil >= e.now {
			s.pending = PendingHold
		}
	}
	e.started = true
	e.startedAt = append(e.startedAt, i)
	e.queuedProcs -= int64(s.job.Procs)
	e.dequeued(s)
	s.start = e.now
	var held int
	if c := e.count; c != nil {
		held = c.take(e, s, id)
	} else {
		held = e.pool.take(e, s, id)
	}
	if e.scale != nil {
		// A cluster of clusters: where the job runs sets its run time.
		s.run0 = s.job.Run
		s.job.Run = scaleRun(s.job.Run, e.scale.Scale(s.alloc))
		if s.limit <= 0 {
			// The time limit of the member's partition (SPEC §5: a
			// partition's limits hold on whichever member runs the job).
			if t := e.scale.DefaultTimeOn(cluster.RequestOf(&s.job), s.alloc); t > 0 {
				s.job.Estimate, s.limit, s.memberLimit = t, t, true
				if s.requeues == 0 {
					e.stats.DefaultTimes++
				}
			}
		}
	}
	run := s.job.Run
	if s.limit > 0 && run > s.limit {
		run = s.limit // killed at its requested time
	}
	s.end = e.now + run
	s.predEnd = workload.Forever
	if s.job.Estimate > 0 {
		s.predEnd = e.now + s.job.Estimate
		if s.predEnd < s.end {
			// Only under an Estimator: the job will outlive its
			// prediction (under Grow, unless it grows first: the
			// event carries the generation the start gives it).
			var gen uint32
			if e.grow != nil {
				gen = e.grow.slots[id].gen + 1
			}
			e.expiry.push(endEvent{at: s.predEnd, seq: s.job.Seq, id: id, gen: gen})
		}
	}
	if e.pw != nil {
		e.powerBusy(s.alloc, 1)
	}
	e.stats.Started++
	e.stats.ProcSeconds += float64(held) * float64(run)
	var gen uint32
	if e.grow != nil {
		e.grow.started(e, s, id)
		gen = e.grow.endGen(id)
	}
	e.ends.push(endEvent{at: s.end, seq: s.job.Seq, id: id, gen: gen})
	e.insertRunning(s, id)
	if e.pre != nil {
		e.pre.ran(s.tier, 1)
	}
	if e.obs.wants(EventStarted) {
		e.obs.started(e.now, &s.job, int(held), id, e.deferred)
	}
	if e.grow != nil && procs > s.job.Procs {
		e.grow.assign(e, s, id, procs)
	}
}

// insertRunning puts the running job in slot id into the predicted-end index.
func (e *Engine) insertRunning(s *slot, id int32) {
	// Seqs are unique: the first key at or after the job's is after it.
	k := e.searchRunning(s.predEnd, s.job.Seq)
	if e.cons != nil {
		e.cons.runningChanged()
	}
	e.running = append(e.running, byEnd{})
	copy(e.running[k+1:], e.running[k:])
	e.running[k] = byEnd{predEnd: s.predEnd, seq: s.job.Seq, procs: int32(e.held(s)), id: id}
	if e.nodes.draining > 0 {
		e.running[k].procs -= int32(e.nodes.drainingIn(s.alloc))
	}
}

// expire handles a running job that reached its predicted end without
// ending: the Estimator corrects its prediction, the job moves in the
// predicted-end index, and every reservation promised so far is void.
func (e *Engine) expire(id int32) {
	s := &e.slots[id]
	if !s.started || s.end <= e.now || s.predEnd != e.now {
		panic(fmt.Sprintf("sim: prediction of job %d expired at %d: started %v, end %d, predicted end %d", s.job.ID, e.now, s.started, s.end, s.predEnd))
	}
	k := e.findRunning(s.predEnd, s.job.Seq)
	e.running = append(e.running[:k], e.running[k+1:]...)
	var gen uint32
	if e.grow != nil && e.grow.malleable(id) {
		s.predEnd = e.grow.expire(e, s, id)
		s.job.Estimate = s.predEnd - s.start
		gen = e.grow.endGen(id)
	} else {
		from := s.start // where its whole run would have started
		if s.pj != nil {
			from -= s.pj.done // resumed after a suspension (Config.Preempt)
		}
		pred := s.predEnd - from
		s.job.Estimate = s.limit
		next := min(max(e.est.Correct(&s.job, pred), pred+1), s.limit)
		s.job.Estimate = next
		s.predEnd = from + next
		if e.grow != nil {
			gen = e.grow.endGen(id)
		}
	}
	e.insertRunning(s, id)
	if s.predEnd < s.end {
		e.expiry.push(endEvent{at: s.predEnd, seq: s.job.Seq, id: id, gen: gen})
	}
	e.epoch++
}

// noteOf returns the Annotator's note about j ("" without one).
func (e *Engine) noteOf(j *workload.Job) string {
	if e.cfg.Annotator == nil {
		return ""
	}
	e.note = e.cfg.Annotator.AppendNote(e.note[:0], j)
	return string(e.note)
}

// Fail implements policy.Failer: queued job i leaves the queue without
// running and is recorded as Failed, with reason, at once.
func (e *Engine) Fail(i int, reason string) {
	if i < 0 || i >= e.passLen {
		panic(fmt.Sprintf("sim: policy %s failed queue index %d of %d", e.pol.Name(), i, e.passLen))
	}
	id := e.queue[i]
	s := &e.slots[id]
	if s.started {
		panic(fmt.Sprintf("sim: policy %s failed job %d, which started", e.pol.Name(), s.job.ID))
	}
	s.started = true // leaves the queue at the end of the pass
	e.started = true
	e.startedAt = append(e.startedAt, i)
	e.queuedProcs -= int64(s.job.Procs)
	e.dequeued(s)
	if e.cons != nil {
		e.cons.submitted(&s.job, -1)
	}
	e.stats.Failed++
	e.touch(e.now)
	s.job.Estimate = s.limit // the job as the trace gave it
	e.rec = Record{Job: &s.job, State: Failed, Start: e.now, End: e.now, Reason: reason, Note: e.noteOf(&s.job)}
	e.obs.record(&e.rec)
	e.freeIDs = append(e.freeIDs, id)
}

// WakeAt implements policy.Decisions.
func (e *Engine) WakeAt(t workload.Time) {
	if t <= e.now {
		panic(fmt.Sprintf("sim: policy %s asked to be woken at %d, not after now (%d)", e.pol.Name(), t, e.now))
	}
	e.wakes.push(t)
}

// Reserve implements policy.Decisions.
func (e *Engine) Reserve(i int, at workload.Time) {
	if i < 0 || i >= e.passLen {
		panic(fmt.Sprintf("sim: policy %s reserved queue index %d of %d", e.pol.Name(), i, e.passLen))
	}
	s := &e.slots[e.queue[i]]
	if s.epoch != e.epoch {
		s.reserved, s.epoch = workload.Forever, e.epoch
	}
	if at < s.reserved {
		s.reserved = at
	}
	if e.obs.wants(EventReserved) {
		e.emit(EventReserved, &s.job, s.job.Procs, at)
	}
}

var (
	_ policy.View         = (*Engine)(nil)
	_ policy.Decisions    = (*Engine)(nil)
	_ policy.Failer       = (*Engine)(nil)
	_ fastpath.DenseQueue = (*Engine)(nil)
	_ policy.Preempter    = (*Engine)(nil)
)

package sim

import (
	"fmt"
	"math/bits"
	"slices"
	"sort"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/policy/scored"
	"github.com/schedsim/schedsim/workload"
)

// ScoreD runs SCore-D's priority queues (SPEC §4): several
// queues with states, gang (time sharing) and exclusive (space sharing)
// modes, preemption by suspend/requeue/cancel, maximum CPU time, queue
// residence time with demotion, memory and disk limits, group restrictions
// and rejection on resource shortage. Its configuration is a policy.ScoreD;
// it reads a Source and writes Records to an Observer like Engine, so every
// report writer works unchanged.
//
// Time. Events are kept in integer milliseconds, so that gang switch costs
// of a few milliseconds count; progress (CPU time) is credited in integer
// microseconds. Submissions and scheduled queue changes happen on whole
// seconds (the trace's unit; with SetTicks, submissions on the trace's
// ms or µs, taken at the next whole ms). A record's Start and End are the
// job's first start and its end rounded up to whole seconds (ticks), CPUTime
// its CPU time rounded down. No float time is used anywhere. Times are bounded by
// workload.MaxTime (10^11 s, 10^17 µs): a job's times are checked when it
// is read, and a run whose clock would pass MaxTime stops with an error, so
// that no instant plus a job's work, in microseconds, can overflow.
//
// The instant rule (SPEC §2) holds at every millisecond instant: first the
// submissions, then the ends (and demotions, kills), then the scheduled
// queue state changes, then one scheduling pass, then the refusal of the
// instant's submissions whose memory or disk limits cannot be granted
// (resource shortage) and that do not wait for resources (policy.Queue.Wait,
// workload.Job.WaitResources); busy processors are not a shortage.
//
// Scheduling pass. Queues are served in priority order (0 first); in an
// activated queue, jobs start in queue order (submission order; a suspended
// or requeued job goes back to its place by submission order) while the
// head fits: strict FCFS within a queue. When a queue's head does not fit
// and lower-priority queues run jobs, it preempts them (policy.PreemptMode)
// if that makes it fit: victims are taken from the lowest-priority queue
// first, most recently started first, until it fits (Slurm's order); a gang
// job takes them only from the row that needs the fewest victims (then the
// fewest processors), so that no job of another row is suspended for
// nothing. Otherwise the queue
// waits, and lower queues may use the processors left (space sharing).
//
// Priority between queues holds in gang mode too (SPEC §4): only rows
// holding a job of the highest queue in the matrix take time slices. A
// gang job of a lower queue may join such a row, never open a row of its
// own, and the gang jobs of a row without a job of that queue (after a
// higher job opens a row, or a demotion) are descheduled: suspended back
// to their queues, whatever the preemption mode, keeping their memory.
//
// Processors. The machine has P processors and, for gang queues, an
// Ousterhout matrix of MPL rows. An exclusive job holds its processors in
// every row (it runs all the time, at full speed); a gang job holds its
// processors in one row (first row where it fits). With r non-empty rows,
// the rows take turns, each for one quantum q followed by a switch costing
// s, so every gang job progresses at rate q / (r·(q+s)), or 1 when r ≤ 1:
// the fluid limit of round-robin gang scheduling. Two equal jobs filling the
// machine on MPL 2 thus each end after 2·run·(q+s)/q: twice their run time
// plus the switch overheads. A global virtual clock advances at that rate,
// and each gang job's next event is a point on it, so a change of load moves
// every gang job's end without touching any of them: an event costs
// O(log n) in the running jobs, never O(n). The clock is exact: whole µs
// plus a fraction over lcm(1..MPL)·(q+s), so no rounding accumulates, and
// an end is rounded up to the millisecond only when it is planned.
//
// Record.Alloc holds an exclusive job's processors (of its last stint);
// a gang job's record has none: its row has no fixed processor numbers.
//
// Limits. A job's work is its run time, cut at its requested time and at
// its queue's maximum CPU time (both measured in CPU time received; a cut
// job is recorded as Killed with the reason). The maximum CPU time is the
// one of the queue the job was submitted to (inherited, fixed). Queue
// residence: when a job's CPU time in a queue reaches the queue's residence
// time it moves to the next lower queue (Record.Demotions), where its
// residence restarts; a running job keeps running in the mode it started in
// until it is preempted, but now with its new queue's priority.
//
// Memory and disk (SPEC §4): the cluster's limits are what one host has
// (policy.ScoreD.MemKB, DiskKB) and a job's limit holds on each host it
// runs on. A job's limit is the cluster's limit times its queue's
// percentage, or, for memory, the job's own request (ReqMemKB, per
// processor, times its processors on one host, policy.ScoreD.PerHost) if
// smaller. The limits of the jobs that started and have not ended may not
// sum beyond the cluster's limit: a started job keeps its limits while it
// is descheduled (suspended, preempted by suspension, held by a deactivated
// queue) and gives them back only when it ends or is requeued or cancelled
// (policy.PreemptRequeue, PreemptCancel). A job whose limits cannot be
// granted at its submission is refused unless it or its queue waits (see
// the instant rule). Each rule is active only when both the cluster and the
// queue set a limit. A job whose recorded memory use on one host
// (UsedMemKB × PerHost(Procs)) exceeds its limit is killed when it starts,
// in state LimitKilled.
//
// Queue states: a disabled queue rejects submissions; a deactivated (or
// disabled) queue schedules nothing and its running jobs are suspended
// until it is activated again. Jobs still held when the run ends are
// recorded as rejected, with the reason.
//
// Invariants are checked as the run goes: no row of the matrix holds more
// than P processors, no job starts before its submission, and the CPU time
// the machine gave equals the CPU time the jobs received. A broken
// invariant panics with "sim:".
//
// ScoreD is a thin handle on the one engine (Engine) set up with
// Config.ScoreD: its Run is Engine.Run. sim.New(Config{ScoreD: &cfg, …})
// makes the same engine with every option in one Config.
type ScoreD struct{ eng *Engine }

// One engine (DESIGN: "One of each"). SCore-D's queues are not an engine of
// their own: they are a component of Engine, the way a node selector or the
// power model is, reached through one pointer (Engine.sd) that is nil in
// every other run, so that other runs pay one nil check per instant and
// per submission, never an interface call. Engine.Run's loop is the only
// loop: it reads the source, submits (closed loop included), applies ends,
// node events and queue changes, runs the pass, samples, checkpoints, and
// hands records and events to the one observer path (eventTee, loopTee,
// report.Async), for SCore-D runs as for all others.
//
// The time unit. A SCore-D run's engine clock is in milliseconds (as
// --time-unit ms runs are), so that gang switch costs count: trace times are
// taken onto it with clockOf (rounded up) and records carry trace ticks
// again. The gang clock's exact CPU ledger (µs plus a fraction, see above)
// stays inside the component, where progress is credited; nothing else
// needs it.
//
// Decisions. As in etcd's raft and Nomad's harness, the policy decides and
// the engine applies and records. SCore-D's scheduler is a policy of its
// own, package policy/scored (a scored.Policy, sdCore.pol): it reads the
// queues, the matrix's occupation (scored.Matrix, sdCore.m) and the jobs
// (scored.Job, the front of each sdSlot) through a view (scored.View, which
// sdCore implements, with scored.Placement for placed processors) and
// issues each outcome of its pass (queue order, the row a gang job takes,
// the victims a blocked head preempts, the gang jobs the priority between
// queues deschedules, the running jobs a deactivated queue holds, the jobs
// refused for a resource shortage) as a scored.Decision: start on a row or
// resume, preempt, suspend, hold, reject. One method, Apply, carries it
// out: the matrix, the exact gang clock and its ledger, the stints, the
// queues and the events the observers see. A decision is applied as it is
// issued, since the next one is decided on the state it leaves. Tests
// record the decisions (sdCore.decided) and read them as a table. What is
// not a decision but an event stays with the engine: ends, demotions at
// the residence time, node failures, queue state changes.
//
// sdCore is SCore-D's component of the engine: queues, the Ousterhout
// matrix, the gang clock and the CPU-time ledger.
type sdCore struct {
	eng    *Engine // the engine that runs this component
	cfg    policy.ScoreD
	procs  int
	mpl    int
	q, s   int64 // quantum and switch overhead, ms
	queues []sdQueue

	slots   []sdSlot
	freeIDs []int32
	running []int32 // running jobs, unordered (sdSlot.runIdx)
	exEnds  endHeap // exclusive jobs' next events (at: real µs, gen: the slot's ver); stale ones are skipped
	gEnds   endHeap // gang jobs' next events (at: gang virtual µs), as exEnds

	nowMs int64
	vg    int64  // gang virtual clock: µs of progress of a running gang job …
	vgRem uint64 // … plus vgRem/vgDen µs, so that the clock is exact
	vgDen uint64 // lcm(1..MPL)·(q+s)
	lcm   int64  // lcm(1..MPL)

	// m is the occupation of the machine, which the scheduler reads
	// (scored.View) and Apply changes.
	m   scored.Matrix
	exM *cluster.Machine // the processors of exclusive jobs (Record.Alloc)

	changes []policy.QueueChange // sorted by time (stable)
	ci      int

	arrived     []int32 // jobs submitted (or released) at the current instant
	queuedProcs int64   // the processors of the waiting and held jobs
	// holds are the jobs held until their Hold Until (at: its instant in
	// ms), not yet in their queues.
	holds endHeap

	// given and taken are the CPU-time ledger, processor·µs: what the
	// machine gave (the integral) and what the jobs were credited with.
	given, taken u128

	stats  *Stats // the engine's
	rec    Record
	obs    *sink // the engine's: records and events
	sample Sample

	lastSeq int64         // Seq of the last job submitted
	nextCk  workload.Time // next checkpoint instant (Config.CheckpointEvery)
	resumed bool          // restored from a checkpoint (Restore)

	tps        int64         // the trace's ticks a second (Config.TicksPerSec): 1, 1000 or 1000000
	nd         *sdNodes      // node events (Config.NodeEvents); nil without
	pw         *sdPower      // switching nodes off (Config.Power); nil without
	savedNodes *sdNodesState // their state in a checkpoint, until setNodeEvents

	// busyRun is Config.ScoreDBusy: with it, jobs are placed (nd) even
	// without node events.
	busyRun func(from, to workload.Time, alloc []cluster.Range)
	// pol is SCore-D's scheduler: it decides, Apply carries out.
	pol scored.Policy
	// decided, if set (tests), sees every decision before Apply carries
	// it out.
	decided func(d scored.Decision)
	// fed is the cluster of clusters (Config.ScoreDClusters); nil on one
	// cluster.
	fed *sdFed
}

// sdQueue is one queue at run time.
type sdQueue struct {
	cfg   policy.Queue
	state policy.QueueState
	wait  []int32 // waiting jobs by Seq from head on
	head  int
}

// live returns the waiting jobs.
func (q *sdQueue) live() []int32 { return q.wait[q.head:] }

// pop removes the first waiting job, reusing the buffer's front when it
// can.
func (q *sdQueue) pop() {
	q.head++
	switch {
	case q.head == len(q.wait):
		q.wait, q.head = q.wait[:0], 0
	case q.head >= 1024 && 2*q.head >= len(q.wait):
		n := copy(q.wait, q.wait[q.head:])
		q.wait, q.head = q.wait[:n], 0
	}
}

// sdSlot holds a job from its submission to its end.
type sdSlot struct {
	// Job is what the scheduler reads (scored.View): its processors,
	// submission order and choice to wait (copies of job's), its queue now,
	// whether it runs and where, its first start and current stint (ms, -1
	// before), its memory and disk limits (held from the first start to the
	// end: Holds, counted in m.MemHeld and m.DiskHeld).
	scored.Job
	job       workload.Job
	workUs    int64 // CPU time to completion (run time cut at its limits)
	cut       string
	cpuUs     int64 // progress before the current stint
	resUs     int64 // progress in the current queue before the current stint
	usedUs    int64 // CPU time received in all (progress lost to requeue included)
	stintAt   int64 // the job's clock at the current stint's start
	target    int64 // the job's clock at its next event
	ver       uint32
	runIdx    int
	demotions int
	susp      int
	alloc     []cluster.Range // an exclusive job's processors in its last stint
	stintMs   int64           // start of the current stint as Record.Stints cuts them (a demotion starts one)
	stints    []Stint         // the stints so far (Record.Stints); handed over to the record at the end
	requeues  int             // times a node failure requeued the job (Record.Requeues)
	// allocs are the processors of each stint, with node events
	// (Record.StintAllocs); apart from stints so that a Stint holds no
	// pointer (stints are many; the collector does not scan them).
	allocs [][]cluster.Range
}

// Stint is a stretch of time in which a SCore-D job held processors and
// ran in one queue: from its start, resumption or demotion to its
// suspension, requeue, demotion or end. Record.Stints lists a job's
// stints, so that `schedsim verify` can check who held the processors
// when: the priority between queues in gang mode and the memory and disk
// limits the started jobs hold.
type Stint struct {
	FromMs, ToMs int64 // [FromMs, ToMs), in milliseconds
	Queue        int   // the queue the job was in
	Row          int   // its row of the Ousterhout matrix; -1: exclusive (every row)
	// Released says the stint ended with the job giving its memory and
	// disk limits back (requeued by preemption or by a node failure); an
	// ended job gives them back at its end.
	Released bool
}

// u128 is an unsigned 128-bit accumulator.
type u128 struct{ hi, lo uint64 }

func (a *u128) add(x, y uint64) {
	hi, lo := bits.Mul64(x, y)
	var c uint64
	a.lo, c = bits.Add64(a.lo, lo, 0)
	a.hi += hi + c
}

// divMod128 divides the 128-bit hi:lo by d > 0: it returns the quotient,
// saturated at workload.Forever, and the remainder.
func divMod128(hi, lo, d uint64) (uint64, uint64) {
	qhi, r := hi/d, hi%d
	q, r := bits.Div64(r, lo, d)
	if qhi > 0 || q > uint64(workload.Forever) {
		return uint64(workload.Forever), r
	}
	return q, r
}

// lcmUpTo returns the least common multiple of 1..n.
func lcmUpTo(n int) int64 {
	l := int64(1)
	for k := int64(2); k <= int64(n); k++ {
		a, b := l, k
		for b != 0 {
			a, b = b, a%b
		}
		l = l / a * k
	}
	return l
}

// newSDCore returns SCore-D's component for a machine of procs processors.
// It returns an error for a configuration a user could have got wrong.
func newSDCore(procs int, cfg policy.ScoreD) (*sdCore, error) {
	if err := checkMachine(procs); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkScoreD(&cfg); err != nil {
		return nil, err
	}
	n := len(cfg.Queues)
	e := &sdCore{cfg: cfg, procs: procs, mpl: cfg.MPL, q: cfg.QuantumMs, s: cfg.SwitchMs,
		exM: cluster.NewMachine(procs), m: scored.NewMatrix(procs, cfg.MPL, n), pol: scored.New(cfg), lastSeq: -1, tps: 1}
	for _, q := range cfg.Queues {
		e.queues = append(e.queues, sdQueue{cfg: q, state: q.State})
	}
	e.lcm = lcmUpTo(cfg.MPL)
	e.vgDen = uint64(e.lcm) * uint64(e.q+e.s)
	e.changes = slices.Clone(cfg.Changes)
	slices.SortStableFunc(e.changes, func(a, b policy.QueueChange) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return 0
	})
	return e, nil
}

// begin checks, as Engine.Run starts, that a restored component was
// restored as it was saved.
func (e *sdCore) begin() error {
	if saved := e.eng.loop != nil; e.resumed && saved != e.eng.cfg.ClosedLoop {
		return fmt.Errorf("sim: SCore-D engine state: saved with a closed loop %v, resumed with one %v", saved, e.eng.cfg.ClosedLoop)
	}
	if e.savedNodes != nil {
		return fmt.Errorf("sim: SCore-D engine state: saved with node events, resumed without")
	}
	return nil
}

// clockOf returns trace time t (ticks) on the engine's clock, in ms
// (rounded up); workload.Forever stays Forever.
func (e *sdCore) clockOf(t workload.Time) workload.Time {
	if t >= workload.Forever {
		return workload.Forever
	}
	return workload.Time(e.toMs(t))
}

// nextInstant returns the engine's next instant, in ms: the next
// submission (next, if have), of the closed loop, end or residence limit,
// scheduled queue change or node event, whichever comes first; a queue
// change scheduled before the first submission is applied with it (the
// clock advances to max(t, now)). stop says the run is over: nothing is
// left to happen.
func (e *sdCore) nextInstant(have bool, next *workload.Job, loop *closedLoop) (t int64, stop bool, err error) {
	t = int64(workload.Forever)
	if have {
		t = e.toMs(next.Submit)
	}
	if ev, ok := e.peek(&e.exEnds); ok {
		t = min(t, ceilDiv(int64(ev.at), 1000))
	}
	if len(e.holds) > 0 {
		t = min(t, int64(e.holds[0].at))
	}
	if ev, ok := e.peek(&e.gEnds); ok {
		t = min(t, e.nowMs+e.gangDelayMs(int64(ev.at)))
	}
	if e.ci < len(e.changes) {
		t = min(t, int64(e.changes[e.ci].At)*1000)
	}
	if e.nd != nil {
		t = min(t, e.nextNodeMs(have))
	}
	if e.pw != nil {
		t = min(t, e.nextPowerMs(have))
	}
	if loop != nil && loop.next() < workload.Forever {
		t = min(t, e.toMs(loop.next()))
	}
	if t > maxClockMs {
		if t >= int64(workload.Forever) {
			return t, true, nil
		}
		return t, false, pastMaxTime(workload.Time(ceilDiv(t, 1000)))
	}
	return t, false, nil
}

// submitTrace submits j, the source's next job.
func (e *sdCore) submitTrace(j *workload.Job) {
	if j.Seq <= e.lastSeq {
		j.Seq = e.lastSeq + 1 // the engine relies on Seq increasing
	}
	e.lastSeq = j.Seq
	e.submit(j)
}

// ends applies the ends and residence limits reached by now. It reports
// whether there was one.
func (e *sdCore) ends() bool {
	event := false
	for {
		ev, ok := e.peek(&e.exEnds)
		if !ok || int64(ev.at) > e.nowMs*1000 {
			break
		}
		e.exEnds.pop()
		event = true
		e.reached(ev.id, e.nowMs*1000)
	}
	for {
		ev, ok := e.peek(&e.gEnds)
		if !ok || int64(ev.at) > e.vg {
			break
		}
		e.gEnds.pop()
		event = true
		e.reached(ev.id, e.vg)
	}
	return event
}

// changesNow applies the scheduled queue state changes of instant t (ms).
// It reports whether there was one.
func (e *sdCore) changesNow(t int64) bool {
	event := false
	for e.ci < len(e.changes) && int64(e.changes[e.ci].At)*1000 == t {
		event = true
		e.change(e.changes[e.ci])
		e.ci++
	}
	return event
}

// passes runs the instant's scheduling pass, and again after each refusal
// for resource shortage (a refused job may have blocked its queue's head).
func (e *sdCore) passes() {
	e.stats.Passes += int64(e.pol.Schedule(e, e))
}

// sampleNow returns the state the instant left.
func (e *sdCore) sampleNow() Sample {
	s := Sample{Time: e.fromMs(e.nowMs), Busy: e.busy(), Running: len(e.running), Queued: e.queued() + len(e.holds), QueuedProcs: e.queuedProcs}
	if e.nd != nil {
		s.Unavailable = e.nd.nParked
	}
	return s
}

// checkpoint calls save at the end of instant t (ms) if a checkpoint is
// due (Config.CheckpointEvery, in seconds: a SCore-D run with checkpoints
// is in seconds).
func (e *sdCore) checkpoint(t int64, every workload.Time, save func(workload.Time) error) error {
	if t < int64(e.nextCk)*1000 {
		return nil
	}
	now := workload.Time(t / 1000)
	e.nextCk = e.stats.FirstEvent + ((now-e.stats.FirstEvent)/every+1)*every
	return save(workload.Time(ceilDiv(t, 1000)))
}

// finish records the jobs left when nothing is left to happen and checks
// the run's invariants.
func (e *sdCore) finish(loop *closedLoop) {
	// Jobs still held by a queue that was never activated again.
	for qi := range e.queues {
		// With node events, a head larger than the processors left in
		// service strands its activated queue.
		stranded := e.nd != nil && e.queues[qi].state == policy.Activated && len(e.queues[qi].live()) > 0 &&
			e.slots[e.queues[qi].live()[0]].job.Procs > e.procs-e.nd.unavail
		for _, id := range e.queues[qi].live() {
			s := &e.slots[id]
			e.queuedProcs -= int64(s.job.Procs)
			reason := fmt.Sprintf("queue %d %s at the end of the run", qi, e.queues[qi].state)
			if stranded {
				reason = e.nd.strandReason(s.job.Procs)
			}
			if s.FirstMs >= 0 {
				// It ran, then its queue held it: not a refusal.
				e.holdToEnd(s, qi, reason)
			} else {
				e.rejectSlot(s, qi, reason)
			}
			e.freeIDs = append(e.freeIDs, id)
		}
		e.queues[qi].wait, e.queues[qi].head = e.queues[qi].wait[:0], 0
	}
	if loop != nil {
		// The successors of jobs that never ended (held by their queue, or
		// stranded, to the end of the run), and theirs in turn, were never
		// submitted.
		for js := loop.drain(); len(js) > 0; js = loop.drain() {
			for i := range js {
				e.neverSubmitted(&js[i])
			}
		}
	}
	if len(e.running) > 0 {
		panic(fmt.Sprintf("sim: SCore-D run ended with %d jobs running", len(e.running)))
	}
	if e.m.MemHeld != 0 || e.m.DiskHeld != 0 {
		panic(fmt.Sprintf("sim: SCore-D run ended with %d KB memory and %d KB disk still held", e.m.MemHeld, e.m.DiskHeld))
	}
	if e.given != e.taken {
		panic(fmt.Sprintf("sim: CPU time not conserved: the machine gave %v processor·µs, the jobs received %v", e.given, e.taken))
	}
}

// setTicks sets the trace's time unit (Config.TicksPerSec, see
// ScoreD.SetTicks).
func (e *sdCore) setTicks(perSec int64) error {
	if perSec != 1 && perSec != 1000 && perSec != 1_000_000 {
		return fmt.Errorf("sim: SCore-D: %d ticks a second: want 1, 1000 or 1000000", perSec)
	}
	if e.resumed && perSec != 1 {
		return fmt.Errorf("sim: SCore-D: checkpoints are in seconds")
	}
	e.tps = perSec
	return nil
}

// toMs returns trace time t (ticks) on the engine's clock, in ms, rounded
// up.
func (e *sdCore) toMs(t workload.Time) int64 {
	switch e.tps {
	case 1:
		return int64(t) * 1000
	case 1000:
		return int64(t)
	}
	return ceilDiv(int64(t), e.tps/1000)
}

// fromMs returns the instant ms (ms) as trace time, in ticks, rounded up.
func (e *sdCore) fromMs(ms int64) workload.Time {
	if e.tps >= 1000 {
		return workload.Time(ms * (e.tps / 1000))
	}
	return workload.Time(ceilDiv(ms, 1000))
}

// toUs returns a duration in ticks in µs of progress.
func (e *sdCore) toUs(d workload.Time) int64 { return int64(d) * (1_000_000 / e.tps) }

// cpuTicks returns us µs of CPU time in whole ticks, rounded down.
func (e *sdCore) cpuTicks(us int64) workload.Time { return workload.Time(us / (1_000_000 / e.tps)) }

// usTicks returns us µs in ticks, as a float (Stats.ProcSeconds).
func (e *sdCore) usTicks(us int64) float64 { return float64(us) / float64(1_000_000/e.tps) }

// dur formats a duration of d ticks with its unit.
func (e *sdCore) dur(d workload.Time) string {
	switch e.tps {
	case 1000:
		return fmt.Sprintf("%d ms", d)
	case 1_000_000:
		return fmt.Sprintf("%d us", d)
	}
	return fmt.Sprintf("%d s", d)
}

// submitLate submits j, a job the closed loop delayed, as the last one
// submitted so far.
func (e *sdCore) submitLate(j *workload.Job) {
	j.Seq = e.lastSeq + 1
	e.lastSeq = j.Seq
	e.submit(j)
}

// neverSubmitted records j, whose preceding job in a closed loop never
// ended, as rejected at its recorded submission.
func (e *sdCore) neverSubmitted(j *workload.Job) {
	e.stats.Jobs++
	e.stats.Rejected++
	e.stats.LoopNeverSubmitted++
	e.rec = Record{Job: j, State: Rejected, Start: j.Submit, End: j.Submit, ScoreD: true, Queue: e.cfg.Map.QueueOf(j.Queue, len(e.queues)),
		Reason: fmt.Sprintf("never submitted: it follows job %d (SWF field 17), which never ended", j.PrecedingJob)}
	e.obs.record(&e.rec)
}

// maxClockMs is workload.MaxTime in milliseconds: the clock never passes
// it (a run that would stops with an error), so that every instant in
// microseconds, plus a job's work in microseconds (at most MaxTime too),
// fits an int64 many times over.
const maxClockMs = int64(workload.MaxTime) * 1000

// peek returns the first valid event of h, dropping stale ones.
func (e *sdCore) peek(h *endHeap) (endEvent, bool) {
	for len(*h) > 0 {
		ev := (*h)[0]
		s := &e.slots[ev.id]
		if s.Running && s.ver == ev.gen {
			return ev, true
		}
		h.pop()
	}
	return endEvent{}, false
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return a / b
	}
	return (a + b - 1) / b
}

// gangStep returns how far the exact gang clock moves in one millisecond
// at the current load, in 1/vgDen µs: 1000·q·lcm/r with r ≥ 2 non-empty rows
// (rate q/(r·(q+s))), 1000·vgDen with one (rate 1).
func (e *sdCore) gangStep() uint64 {
	if e.m.NonEmpty <= 1 {
		return 1000 * e.vgDen
	}
	return 1000 * uint64(e.q) * uint64(e.lcm/int64(e.m.NonEmpty))
}

// gangDelayMs returns the milliseconds until the exact gang clock reaches
// target at the current load (rounded up).
func (e *sdCore) gangDelayMs(target int64) int64 {
	if target <= e.vg {
		return 0
	}
	hi, lo := bits.Mul64(uint64(target-e.vg), e.vgDen)
	var b uint64
	lo, b = bits.Sub64(lo, e.vgRem, 0)
	hi -= b
	step := e.gangStep()
	q, r := divMod128(hi, lo, step)
	if r > 0 {
		q++
	}
	return int64(min(q, uint64(workload.Forever)))
}

// advance moves the clock to t (ms), advancing the gang clock and the
// CPU-time ledger.
func (e *sdCore) advance(t int64) {
	if t < e.nowMs {
		panic(fmt.Sprintf("sim: clock moving back from %d ms to %d ms", e.nowMs, t))
	}
	dt := t - e.nowMs
	if dt > 0 {
		e.given.add(uint64(e.m.Ex), uint64(dt)*1000)
		if e.m.NonEmpty > 0 {
			hi, lo := bits.Mul64(uint64(dt), e.gangStep())
			var c uint64
			lo, c = bits.Add64(lo, e.vgRem, 0)
			hi += c
			q, r := divMod128(hi, lo, e.vgDen)
			dv := int64(q)
			e.vg += dv
			e.vgRem = r
			e.given.add(uint64(e.m.GangP), uint64(dv))
		}
	}
	e.nowMs = t
	if tk := e.fromMs(t); tk > e.stats.LastEvent {
		e.stats.LastEvent = tk
	}
}

// clock is the current value of a running job's clock.
func (e *sdCore) clock(s *sdSlot) int64 {
	if s.Gang {
		return e.vg
	}
	return e.nowMs * 1000
}

func (e *sdCore) submit(j *workload.Job) {
	if l := e.eng.cfg.SubmitLatency; l != nil {
		l(j)
	}
	e.stats.Jobs++
	nq := len(e.queues)
	qi := e.cfg.Map.QueueOf(j.Queue, nq)
	q := &e.queues[qi]
	reason := ""
	switch {
	case q.state == policy.Disabled:
		reason = fmt.Sprintf("queue %d is disabled", qi)
	case q.cfg.Group != policy.AnyGroup && j.Group != q.cfg.Group:
		reason = fmt.Sprintf("group %d may not submit to queue %d (group %d only)", j.Group, qi, q.cfg.Group)
	case j.Procs > e.procs:
		reason = fmt.Sprintf("needs %d processors, machine has %d", j.Procs, e.procs)
	}
	if reason != "" {
		e.stats.Rejected++
		e.rec = Record{Job: j, State: Rejected, Start: j.Submit, End: j.Submit, Reason: reason, ScoreD: true, Queue: qi}
		e.obs.record(&e.rec)
		return
	}
	var id int32
	if n := len(e.freeIDs); n > 0 {
		id = e.freeIDs[n-1]
		e.freeIDs = e.freeIDs[:n-1]
	} else {
		e.slots = append(e.slots, sdSlot{})
		id = int32(len(e.slots) - 1)
	}
	s := &e.slots[id]
	ver := s.ver + 1
	*s = sdSlot{Job: scored.Job{Procs: j.Procs, Seq: j.Seq, WaitResources: j.WaitResources, Queue: qi, FirstMs: -1},
		job: *j, ver: ver, alloc: s.alloc[:0]}
	if e.fed != nil {
		e.assign(s)
	}
	s.workUs = e.toUs(s.job.Run)
	if j.Estimate > 0 && j.Run > j.Estimate {
		s.workUs, s.cut = e.toUs(j.Estimate), fmt.Sprintf("reached its requested time %s", e.dur(j.Estimate))
	}
	if m := q.cfg.MaxCPUSec; m > 0 && int64(m)*1e6 < s.workUs {
		s.workUs, s.cut = int64(m)*1e6, fmt.Sprintf("exceeded queue %d's maximum CPU time %d s", qi, m)
	}
	if e.cfg.MemKB > 0 && q.cfg.MemPercent > 0 {
		s.MemKB = e.cfg.MemKB * int64(q.cfg.MemPercent) / 100
		if j.ReqMemKB > 0 {
			s.MemKB = min(s.MemKB, int64(j.ReqMemKB)*int64(e.cfg.PerHost(j.Procs)))
		}
	}
	if e.cfg.DiskKB > 0 && q.cfg.DiskPercent > 0 {
		s.DiskKB = e.cfg.DiskKB * int64(q.cfg.DiskPercent) / 100
	}
	if e.fed != nil {
		e.fedLimits(s, q)
	}
	e.queuedProcs += int64(j.Procs)
	if at := e.toMs(j.HoldUntil); at > e.nowMs {
		// Held until then: it joins its queue at its release, in its
		// submission-order place, as on the other policies' engine.
		e.holds.push(endEvent{at: workload.Time(at), seq: j.Seq, id: id})
		if e.obs.wants(EventSubmitted) {
			e.obs.emit(EventSubmitted, e.fromMs(e.nowMs), &s.job, s.job.Procs, s.job.HoldUntil)
		}
		return
	}
	e.enqueue(id)
	e.arrived = append(e.arrived, id)
	e.emit(EventSubmitted, id)
	e.stats.MaxQueue = max(e.stats.MaxQueue, e.queued())
}

// releaseHeld puts the held jobs whose Hold Until is instant t (ms) in
// their queues. It reports whether there was one.
func (e *sdCore) releaseHeld(t int64) bool {
	if len(e.holds) == 0 || int64(e.holds[0].at) > t {
		return false
	}
	for len(e.holds) > 0 && int64(e.holds[0].at) <= t {
		id := e.holds.pop().id
		e.enqueue(id)
		e.arrived = append(e.arrived, id)
	}
	e.stats.MaxQueue = max(e.stats.MaxQueue, e.queued())
	return true
}

// enqueue puts job id in its queue, in submission order: at the end, but
// for a job released from a hold or stopped and put back.
func (e *sdCore) enqueue(id int32) {
	s := &e.slots[id]
	q := &e.queues[s.Queue]
	live := q.live()
	if n := len(live); n == 0 || e.slots[live[n-1]].job.Seq < s.job.Seq {
		q.wait = append(q.wait, id)
	} else {
		k := sort.Search(n, func(i int) bool { return e.slots[live[i]].job.Seq > s.job.Seq })
		q.wait = slices.Insert(q.wait, q.head+k, id)
	}
	if e.fed != nil {
		e.fed.wait(s, 1)
	}
}

// queued returns the number of waiting jobs.
func (e *sdCore) queued() int {
	n := 0
	for i := range e.queues {
		n += len(e.queues[i].live())
	}
	return n
}

// busy returns the processors held in at least one row.
func (e *sdCore) busy() int { return e.m.Ex + slices.Max(e.m.Rows) }

// preempt stops running job id for job by, as Config.Preempt says.
func (e *sdCore) preempt(id int32, by *sdSlot) {
	v := &e.slots[id]
	e.stop(id, e.clock(v)-v.stintAt)
	v.susp++
	switch e.cfg.Preempt {
	case policy.PreemptCancel:
		e.end(id, Killed, fmt.Sprintf("preempted by job %d (queue %d)", by.job.ID, by.Queue))
		return
	case policy.PreemptRequeue:
		v.cpuUs, v.resUs = 0, 0
		e.release(v)
		if n := len(v.stints); n > 0 {
			v.stints[n-1].Released = true
		}
		e.emit(EventPreempted, id)
	default:
		e.emit(EventSuspended, id)
	}
	e.requeue(id)
}

// emit sends an event about job id, if the run's observer wants it.
func (e *sdCore) emit(k EventKind, id int32) {
	if !e.obs.wants(k) {
		return
	}
	s := &e.slots[id]
	e.obs.emit(k, e.fromMs(e.nowMs), &s.job, s.job.Procs, 0)
}

// requeue puts a stopped job back in its queue, in submission order.
func (e *sdCore) requeue(id int32) {
	e.enqueue(id)
	e.queuedProcs += int64(e.slots[id].job.Procs)
}

// span is the progress a job makes in its next stint before its next
// event: its end or its demotion.
func (e *sdCore) span(s *sdSlot) int64 {
	d := s.workUs - s.cpuUs
	if r := e.queues[s.Queue].cfg.ResidenceSec; r > 0 && s.Queue < len(e.queues)-1 {
		d = min(d, int64(r)*1e6-s.resUs)
	}
	return max(d, 1)
}

// start starts (or resumes) waiting job id in row (-1: exclusive).
func (e *sdCore) start(id int32, row int) {
	s := &e.slots[id]
	p := s.job.Procs
	if e.nowMs < e.toMs(s.job.Submit) {
		panic(fmt.Sprintf("sim: job %d started at %d ms before its submission at %d s", s.job.ID, e.nowMs, s.job.Submit))
	}
	e.queuedProcs -= int64(p)
	if e.fed != nil {
		e.fed.wait(s, -1)
	}
	if s.FirstMs < 0 {
		s.FirstMs = e.nowMs
		e.stats.Started++
		e.emit(EventStarted, id)
	} else {
		e.emit(EventResumed, id)
	}
	s.LastMs = e.nowMs
	s.stintMs = e.nowMs
	s.Running = true
	s.ver++
	s.runIdx = len(e.running)
	e.running = append(e.running, id)
	e.m.RunQ[s.Queue]++
	if !s.Holds {
		s.Holds = true
		e.m.MemHeld += s.MemKB
		e.m.DiskHeld += s.DiskKB
		if e.fed != nil {
			e.fed.hold(s, 1)
		}
		if s.MemKB > 0 && e.m.MemHeld > e.cfg.MemKB || s.DiskKB > 0 && e.m.DiskHeld > e.cfg.DiskKB {
			panic(fmt.Sprintf("sim: job %d's limits push the held ones (%d KB memory, %d KB disk) beyond the cluster's (%d KB, %d KB)", s.job.ID, e.m.MemHeld, e.m.DiskHeld, e.cfg.MemKB, e.cfg.DiskKB))
		}
	}
	e.m.MemQ[s.Queue] += s.MemKB
	e.m.DiskQ[s.Queue] += s.DiskKB
	if row >= 0 {
		s.Gang, s.Row, s.alloc = true, row, s.alloc[:0]
		if e.nd != nil {
			e.nd.place(s, row)
		}
		if e.m.Rows[row] == 0 {
			e.m.NonEmpty++
		}
		e.m.Rows[row] += p
		e.m.RowQ[s.Queue*e.mpl+row] += p
		e.m.GangP += p
		if e.m.Ex+e.m.Rows[row] > e.procs {
			panic(fmt.Sprintf("sim: row %d over-allocated: %d exclusive + %d gang processors of %d", row, e.m.Ex, e.m.Rows[row], e.procs))
		}
	} else {
		s.Gang = false
		if e.nd != nil {
			e.nd.place(s, -1)
		} else {
			s.alloc = e.exM.Alloc(p, s.alloc[:0])
		}
		e.m.Ex += p
		e.m.ExQ[s.Queue] += p
		if e.busy() > e.procs {
			panic(fmt.Sprintf("sim: machine over-allocated: %d exclusive + %d gang processors of %d", e.m.Ex, slices.Max(e.m.Rows), e.procs))
		}
	}
	s.stintAt = e.clock(s)
	if used := s.job.UsedMemKB; s.MemKB > 0 && used > 0 && int64(used)*int64(e.perHost(s)) > s.MemKB {
		e.stop(id, 0)
		e.end(id, LimitKilled, fmt.Sprintf("memory use %d KB per host exceeds its limit %d KB", int64(used)*int64(e.perHost(s)), s.MemKB))
		return
	}
	s.target = s.stintAt + e.span(s)
	e.schedule(id)
}

// schedule pushes running job id's next event.
func (e *sdCore) schedule(id int32) {
	s := &e.slots[id]
	ev := endEvent{at: workload.Time(s.target), seq: s.job.Seq, id: id, gen: s.ver}
	if s.Gang {
		e.gEnds.push(ev)
	} else {
		e.exEnds.push(ev)
	}
}

// stop takes running job id off the machine, crediting it with credit µs
// of progress.
func (e *sdCore) stop(id int32, credit int64) {
	s := &e.slots[id]
	p := s.job.Procs
	s.cpuUs += credit
	s.resUs += credit
	s.usedUs += credit
	e.taken.add(uint64(p), uint64(credit))
	if s.Gang {
		e.m.Rows[s.Row] -= p
		e.m.RowQ[s.Queue*e.mpl+s.Row] -= p
		e.m.GangP -= p
		if e.m.Rows[s.Row] == 0 {
			e.m.NonEmpty--
		}
		// The gang clock overshoots a job's target by the rounding of
		// the instant; the machine gave that time, to nobody.
		if over := e.vg - s.stintAt - credit; over > 0 {
			e.taken.add(uint64(p), uint64(over))
		}
	} else {
		e.m.Ex -= p
		e.m.ExQ[s.Queue] -= p
		if e.nd == nil {
			e.exM.Release(s.alloc)
		}
		if over := e.nowMs*1000 - s.stintAt - credit; over > 0 {
			e.taken.add(uint64(p), uint64(over))
		}
	}
	e.m.RunQ[s.Queue]--
	e.m.MemQ[s.Queue] -= s.MemKB
	e.m.DiskQ[s.Queue] -= s.DiskKB
	e.cutStint(s)
	if e.nd != nil {
		e.nd.unplace(s)
	}
	last := e.running[len(e.running)-1]
	e.running[s.runIdx] = last
	e.slots[last].runIdx = s.runIdx
	e.running = e.running[:len(e.running)-1]
	s.Running = false
	s.ver++
}

// reached handles running job id reaching its event target; clock is its
// clock now.
func (e *sdCore) reached(id int32, clock int64) {
	s := &e.slots[id]
	credit := s.target - s.stintAt
	if s.cpuUs+credit >= s.workUs {
		e.stop(id, credit)
		if s.cut != "" {
			e.end(id, Killed, s.cut)
		} else {
			e.end(id, Completed, "")
		}
		return
	}
	// Residence time reached: demotion to the next lower queue, in place.
	s.cpuUs += credit
	s.resUs = 0
	s.usedUs += credit
	e.taken.add(uint64(s.job.Procs), uint64(credit))
	from := s.Queue
	to := from + 1
	e.cutStint(s)
	e.m.RunQ[from]--
	e.m.RunQ[to]++
	e.m.MemQ[from] -= s.MemKB
	e.m.MemQ[to] += s.MemKB
	e.m.DiskQ[from] -= s.DiskKB
	e.m.DiskQ[to] += s.DiskKB
	if s.Gang {
		e.m.RowQ[from*e.mpl+s.Row] -= s.job.Procs
		e.m.RowQ[to*e.mpl+s.Row] += s.job.Procs
	} else {
		e.m.ExQ[from] -= s.job.Procs
		e.m.ExQ[to] += s.job.Procs
	}
	s.Queue = to
	s.demotions++
	s.stintAt = s.target
	if e.queues[to].state != policy.Activated {
		e.stop(id, clock-s.stintAt)
		s.susp++
		e.requeue(id)
		return
	}
	s.target = s.stintAt + e.span(s)
	s.ver++
	e.schedule(id)
}

// cutStint ends running job s's current stint now (Record.Stints); an
// empty one is left out.
func (e *sdCore) cutStint(s *sdSlot) {
	if e.nowMs > s.stintMs {
		row := -1
		if s.Gang {
			row = s.Row
		}
		s.stints = append(s.stints, Stint{FromMs: s.stintMs, ToMs: e.nowMs, Queue: s.Queue, Row: row})
		if e.nd != nil {
			s.allocs = append(s.allocs, slices.Clone(s.alloc))
		}
	}
	s.stintMs = e.nowMs
}

// release gives back the memory and disk limits job s holds, if it does.
func (e *sdCore) release(s *sdSlot) {
	if s.Holds {
		s.Holds = false
		e.m.MemHeld -= s.MemKB
		e.m.DiskHeld -= s.DiskKB
		if e.fed != nil {
			e.fed.hold(s, -1)
		}
	}
}

// end records stopped job id as ended now in state st.
func (e *sdCore) end(id int32, st State, reason string) {
	s := &e.slots[id]
	e.release(s)
	if st == Killed || st == LimitKilled {
		e.stats.Killed++
	}
	e.stats.ProcSeconds += float64(s.job.Procs) * e.usTicks(s.usedUs)
	e.rec = Record{Job: &s.job, State: st, Start: e.fromMs(s.FirstMs), End: e.fromMs(e.nowMs),
		Alloc: s.alloc, Reason: reason, ScoreD: true, Queue: s.Queue, Demotions: s.demotions, Suspensions: s.susp, CPUTime: e.cpuTicks(s.usedUs), Requeues: s.requeues}
	e.limits(s)
	e.obs.record(&e.rec)
	e.freeIDs = append(e.freeIDs, id)
}

// limits sets e.rec's memory and disk fields and stints from job s, whose
// stints the record takes over.
func (e *sdCore) limits(s *sdSlot) {
	e.rec.MemLimitKB, e.rec.DiskLimitKB = s.MemKB, s.DiskKB
	if used := s.job.UsedMemKB; used > 0 {
		e.rec.MemKBPerHost = int64(used) * int64(e.perHost(s))
	}
	e.rec.Stints, s.stints = s.stints, nil
	e.rec.StintAllocs, s.allocs = s.allocs, nil
}

// rejectSlot records waiting job s of queue qi as rejected now.
func (e *sdCore) rejectSlot(s *sdSlot, qi int, reason string) {
	e.release(s)
	e.stats.Rejected++
	e.rec = Record{Job: &s.job, State: Rejected, Start: s.job.Submit, End: s.job.Submit, Reason: reason, ScoreD: true, Queue: qi,
		Demotions: s.demotions, Suspensions: s.susp, CPUTime: e.cpuTicks(s.usedUs), Requeues: s.requeues}
	e.limits(s)
	if s.usedUs > 0 {
		e.stats.ProcSeconds += float64(s.job.Procs) * e.usTicks(s.usedUs)
	}
	e.obs.record(&e.rec)
}

// holdToEnd records job s, which ran and was then held by its deactivated
// queue qi to the end of the run, as Pending: started at its first start,
// with the CPU time it received; the reason says when it started.
func (e *sdCore) holdToEnd(s *sdSlot, qi int, reason string) {
	e.release(s)
	e.stats.Pending++
	e.stats.ProcSeconds += float64(s.job.Procs) * e.usTicks(s.usedUs)
	start := e.fromMs(s.FirstMs)
	e.rec = Record{Job: &s.job, State: Pending, Start: start, End: e.fromMs(e.nowMs),
		Reason: fmt.Sprintf("%s (it ran from %d with %d s of CPU time and was held since)", reason, start, s.usedUs/1e6),
		ScoreD: true, Queue: qi, Demotions: s.demotions, Suspensions: s.susp, CPUTime: e.cpuTicks(s.usedUs), Requeues: s.requeues}
	e.limits(s)
	e.obs.record(&e.rec)
}

// shortReason says why job s's limits cannot be granted now.
func (e *sdCore) shortReason(s *sdSlot) string {
	if e.fed != nil {
		return e.fed.shortReason(s)
	}
	if s.MemKB > 0 && e.m.MemHeld+s.MemKB > e.cfg.MemKB {
		return fmt.Sprintf("resource shortage at submission (queue %d): memory limit %d KB, %d KB of the cluster's %d KB held", s.Queue, s.MemKB, e.m.MemHeld, e.cfg.MemKB)
	}
	return fmt.Sprintf("resource shortage at submission (queue %d): disk limit %d KB, %d KB of the cluster's %d KB held", s.Queue, s.DiskKB, e.m.DiskHeld, e.cfg.DiskKB)
}

// change applies a scheduled queue state change; the scheduler holds the
// running jobs of a queue that stops being activated.
func (e *sdCore) change(c policy.QueueChange) {
	q := &e.queues[c.Queue]
	q.state = c.State
	if c.State == policy.Activated {
		return
	}
	e.pol.Deactivated(e, e, c.Queue)
}

// Apply carries out decision d now (scored.Applier): the matrix, the
// ledger, the stints, the queues and the events the observers see. A
// recorder (sdCore.decided) sees it first.
func (e *sdCore) Apply(d scored.Decision) {
	if e.decided != nil {
		e.decided(d)
	}
	s := &e.slots[d.ID]
	switch d.Kind {
	case scored.Start:
		q := &e.queues[s.Queue]
		if l := q.live(); len(l) == 0 || l[0] != d.ID {
			panic(fmt.Sprintf("sim: job %d started out of its queue's order", s.job.ID))
		}
		q.pop()
		e.start(d.ID, d.Row)
	case scored.Preempt:
		e.preempt(d.ID, &e.slots[d.By])
	case scored.Suspend, scored.Hold:
		e.stop(d.ID, e.clock(s)-s.stintAt)
		s.susp++
		if d.Kind == scored.Suspend {
			e.emit(EventSuspended, d.ID)
		}
		e.requeue(d.ID)
	case scored.Reject:
		q := &e.queues[s.Queue]
		if l := q.live(); d.Row < 0 || d.Row >= len(l) || l[d.Row] != d.ID {
			panic(fmt.Sprintf("sim: job %d rejected at place %d of its queue, where it is not", s.job.ID, d.Row))
		}
		q.wait = slices.Delete(q.wait, q.head+d.Row, q.head+d.Row+1)
		e.queuedProcs -= int64(s.job.Procs)
		if e.fed != nil {
			e.fed.wait(s, -1)
		}
		if k := slices.Index(e.arrived, d.ID); k >= 0 {
			e.arrived = slices.Delete(e.arrived, k, k+1)
		}
		e.rejectSlot(s, s.Queue, e.shortReason(s))
		e.freeIDs = append(e.freeIDs, d.ID)
	default:
		panic(fmt.Sprintf("sim: unknown SCore-D decision %v", d.Kind))
	}
}

// The scheduler's view of the component (scored.View).

// Matrix returns the machine's occupation.
func (e *sdCore) Matrix() *scored.Matrix { return &e.m }

// QueueState returns queue q's state now.
func (e *sdCore) QueueState(q int) policy.QueueState { return e.queues[q].state }

// Waiting returns queue q's waiting jobs, head first.
func (e *sdCore) Waiting(q int) []int32 { return e.queues[q].live() }

// Running returns the running jobs.
func (e *sdCore) Running() []int32 { return e.running }

// Arrived returns the jobs submitted at this instant that were not refused.
func (e *sdCore) Arrived() []int32 { return e.arrived }

// Job returns what the scheduler reads of job id.
func (e *sdCore) Job(id int32) *scored.Job { return &e.slots[id].Job }

// Placement returns the placed processors with node events, else nil.
func (e *sdCore) Placement() scored.Placement {
	if e.nd == nil {
		return nil
	}
	return sdPlacement{e}
}

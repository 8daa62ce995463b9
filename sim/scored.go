package sim

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sort"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
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
// the engine applies and records: SCore-D's scheduling pass (queue order,
// the row a gang job takes, the victims a blocked head preempts, the gang
// jobs the priority between queues deschedules, the jobs refused for a
// resource shortage) issues each outcome as an sdDecision (start on a row
// or resume, preempt, suspend, hold, reject), and one function, apply,
// carries it out: the matrix, the ledger, the stints, the queues and the
// events the observers see. A decision is applied as it is issued, since
// the next one is decided on the state it leaves. Tests record the
// decisions (sdCore.decided) and read them as a table. What is not a
// decision but an event stays with the engine: ends, demotions at the
// residence time, node failures.
//
// sdCore is SCore-D's component of the engine: queues, the Ousterhout
// matrix, the gang clock and the CPU-time ledger.
type sdCore struct {
	eng    *Engine       // the engine that runs this component
	events EventObserver // Config.Events
	ev     Event
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

	ex       int              // processors held by exclusive jobs
	exM      *cluster.Machine // which ones (Record.Alloc)
	rows     []int            // processors held by gang jobs, per row
	rowQ     []int            // the same per queue and row: rowQ[q*mpl+row]
	exQ      []int            // exclusive processors per queue
	runQ     []int            // running jobs per queue
	memQ     []int64          // memory limits of the running jobs, per queue
	diskQ    []int64
	nonEmpty int   // rows holding gang jobs
	gangP    int   // processors held by gang jobs, all rows
	memHeld  int64 // memory limits of the jobs that started and did not end (descheduled ones too)
	diskHeld int64

	changes []policy.QueueChange // sorted by time (stable)
	ci      int

	arrived     []int32 // jobs submitted at the current instant
	queuedProcs int64
	victims     []int32
	scratch     []int

	// given and taken are the CPU-time ledger, processor·µs: what the
	// machine gave (the integral) and what the jobs were credited with.
	given, taken u128

	stats  *Stats // the engine's
	rec    Record
	obs    Observer
	sample Sample

	lastSeq int64         // Seq of the last job submitted
	nextCk  workload.Time // next checkpoint instant (Config.CheckpointEvery)
	resumed bool          // restored from a checkpoint (Restore)

	tps        int64         // the trace's ticks a second (Config.TicksPerSec): 1, 1000 or 1000000
	nd         *sdNodes      // node events (Config.NodeEvents); nil without
	savedNodes *sdNodesState // their state in a checkpoint, until setNodeEvents

	// decided, if set (tests), sees every decision before apply carries
	// it out (see sdDecision).
	decided func(d sdDecision)
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
	job       workload.Job
	queue     int   // current queue
	workUs    int64 // CPU time to completion (run time cut at its limits)
	cut       string
	cpuUs     int64 // progress before the current stint
	resUs     int64 // progress in the current queue before the current stint
	usedUs    int64 // CPU time received in all (progress lost to requeue included)
	stintAt   int64 // the job's clock at the current stint's start
	target    int64 // the job's clock at its next event
	ver       uint32
	running   bool
	gang      bool
	row       int
	runIdx    int
	firstMs   int64 // first start, -1 before
	lastMs    int64 // start of the current stint
	demotions int
	susp      int
	alloc     []cluster.Range // an exclusive job's processors in its last stint
	memKB     int64           // memory and disk limits, held from the first start to the end
	diskKB    int64
	holds     bool    // the job holds memKB and diskKB (e.memHeld, e.diskHeld)
	stintMs   int64   // start of the current stint as Record.Stints cuts them (a demotion starts one)
	stints    []Stint // the stints so far (Record.Stints); handed over to the record at the end
	requeues  int     // times a node failure requeued the job (Record.Requeues)
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
		exM: cluster.NewMachine(procs), rows: make([]int, cfg.MPL), rowQ: make([]int, n*cfg.MPL), exQ: make([]int, n), runQ: make([]int, n),
		memQ: make([]int64, n), diskQ: make([]int64, n), lastSeq: -1, tps: 1}
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
	if ev, ok := e.peek(&e.gEnds); ok {
		t = min(t, e.nowMs+e.gangDelayMs(int64(ev.at)))
	}
	if e.ci < len(e.changes) {
		t = min(t, int64(e.changes[e.ci].At)*1000)
	}
	if e.nd != nil {
		t = min(t, e.nextNodeMs(have))
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
	for e.pass(); e.rejectShort(); e.pass() {
	}
}

// sampleNow returns the state the instant left.
func (e *sdCore) sampleNow() Sample {
	s := Sample{Time: e.fromMs(e.nowMs), Busy: e.busy(), Running: len(e.running), Queued: e.queued(), QueuedProcs: e.queuedProcs}
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
			if s.firstMs >= 0 {
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
	if e.memHeld != 0 || e.diskHeld != 0 {
		panic(fmt.Sprintf("sim: SCore-D run ended with %d KB memory and %d KB disk still held", e.memHeld, e.diskHeld))
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
	e.obs.JobDone(&e.rec)
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
		if s.running && s.ver == ev.gen {
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
	if e.nonEmpty <= 1 {
		return 1000 * e.vgDen
	}
	return 1000 * uint64(e.q) * uint64(e.lcm/int64(e.nonEmpty))
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
		e.given.add(uint64(e.ex), uint64(dt)*1000)
		if e.nonEmpty > 0 {
			hi, lo := bits.Mul64(uint64(dt), e.gangStep())
			var c uint64
			lo, c = bits.Add64(lo, e.vgRem, 0)
			hi += c
			q, r := divMod128(hi, lo, e.vgDen)
			dv := int64(q)
			e.vg += dv
			e.vgRem = r
			e.given.add(uint64(e.gangP), uint64(dv))
		}
	}
	e.nowMs = t
	if tk := e.fromMs(t); tk > e.stats.LastEvent {
		e.stats.LastEvent = tk
	}
}

// clock is the current value of a running job's clock.
func (e *sdCore) clock(s *sdSlot) int64 {
	if s.gang {
		return e.vg
	}
	return e.nowMs * 1000
}

func (e *sdCore) submit(j *workload.Job) {
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
		e.obs.JobDone(&e.rec)
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
	*s = sdSlot{job: *j, queue: qi, firstMs: -1, ver: ver, alloc: s.alloc[:0]}
	s.workUs = e.toUs(j.Run)
	if j.Estimate > 0 && j.Run > j.Estimate {
		s.workUs, s.cut = e.toUs(j.Estimate), fmt.Sprintf("reached its requested time %s", e.dur(j.Estimate))
	}
	if m := q.cfg.MaxCPUSec; m > 0 && int64(m)*1e6 < s.workUs {
		s.workUs, s.cut = int64(m)*1e6, fmt.Sprintf("exceeded queue %d's maximum CPU time %d s", qi, m)
	}
	if e.cfg.MemKB > 0 && q.cfg.MemPercent > 0 {
		s.memKB = e.cfg.MemKB * int64(q.cfg.MemPercent) / 100
		if j.ReqMemKB > 0 {
			s.memKB = min(s.memKB, int64(j.ReqMemKB)*int64(e.cfg.PerHost(j.Procs)))
		}
	}
	if e.cfg.DiskKB > 0 && q.cfg.DiskPercent > 0 {
		s.diskKB = e.cfg.DiskKB * int64(q.cfg.DiskPercent) / 100
	}
	q.wait = append(q.wait, id)
	e.queuedProcs += int64(j.Procs)
	e.arrived = append(e.arrived, id)
	e.emit(EventSubmitted, id)
	if n := e.queued(); n > e.stats.MaxQueue {
		e.stats.MaxQueue = n
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
func (e *sdCore) busy() int { return e.ex + slices.Max(e.rows) }

// fitRow returns the row a job of p processors would run in now: -1 for an
// exclusive job that fits (it takes every row), -2 when it does not fit.
// ex, rows, mem and disk describe the machine to fit it in.
func (e *sdCore) fitRow(s *sdSlot, gang bool, ex int, rows []int, mem, disk int64) int {
	if e.short(s, mem, disk) {
		return -2
	}
	p := s.job.Procs
	if !gang {
		if ex+slices.Max(rows)+p <= e.procs {
			return -1
		}
		return -2
	}
	qt := e.topGang()
	for k := range e.mpl {
		if ex+rows[k]+p <= e.procs && e.rowAllowed(s.queue, qt, k) {
			return k
		}
	}
	return -2
}

// short reports whether job s's memory or disk limit would push the held
// limits, mem and disk, beyond the cluster's. A job that already holds its
// limits (it started, and was descheduled) is never short.
func (e *sdCore) short(s *sdSlot, mem, disk int64) bool {
	if s.holds {
		return false
	}
	return s.memKB > 0 && mem+s.memKB > e.cfg.MemKB || s.diskKB > 0 && disk+s.diskKB > e.cfg.DiskKB
}

// frees reports whether preempting a job releases its memory and disk: a
// requeued or cancelled job's processes are gone, a suspended job keeps
// them (SPEC §4).
func (e *sdCore) frees() bool {
	return e.cfg.Preempt == policy.PreemptRequeue || e.cfg.Preempt == policy.PreemptCancel
}

// fitsNow returns where job id fits now (see fitRow).
func (e *sdCore) fitsNow(s *sdSlot) int {
	gang := e.queues[s.queue].cfg.Mode == policy.Gang
	if e.nd != nil {
		return e.nd.fit(e, s, gang)
	}
	return e.fitRow(s, gang, e.ex, e.rows, e.memHeld, e.diskHeld)
}

// topGang returns the highest-priority queue (lowest index) with gang jobs
// in the matrix, or len(e.queues) when there are none.
func (e *sdCore) topGang() int {
	if e.gangP == 0 {
		return len(e.queues)
	}
	for q := range e.queues {
		for k := range e.mpl {
			if e.rowQ[q*e.mpl+k] > 0 {
				return q
			}
		}
	}
	return len(e.queues)
}

// rowAllowed reports whether a gang job of queue qi may take row k:
// priority between queues in gang mode (SPEC §4) lets it share time only
// with the rows of the highest queue in the matrix, so a job of a lower
// queue than that one may only join a row holding one of its jobs (space
// sharing within the row), never open a row of its own.
// qt is e.topGang(), which the caller computes once for all rows.
func (e *sdCore) rowAllowed(qi, qt, k int) bool {
	return qi <= qt || e.rowQ[qt*e.mpl+k] > 0
}

// gangPriority deschedules (suspends, back to their queues by submission
// order) the gang jobs of rows that hold no job of the highest queue in the
// matrix: such rows would take time slices from that queue's jobs. They
// keep their memory and disk (SPEC §4) and resume when a pass finds them
// room. It runs after a gang job of a higher queue starts and at each pass
// (a demotion can leave a row without a job of the top queue).
func (e *sdCore) gangPriority() {
	qt := e.topGang()
	if qt >= len(e.queues) {
		return
	}
	bad := false
	for k := range e.mpl {
		if e.rows[k] > 0 && e.rowQ[qt*e.mpl+k] == 0 {
			bad = true
		}
	}
	if !bad {
		return
	}
	e.victims = e.victims[:0]
	for _, id := range e.running {
		if s := &e.slots[id]; s.gang && e.rowQ[qt*e.mpl+s.row] == 0 {
			e.victims = append(e.victims, id)
		}
	}
	e.descheduleVictims(sdSuspend)
}

// pass runs one scheduling pass.
func (e *sdCore) pass() {
	e.stats.Passes++
	e.gangPriority()
	for qi := range e.queues {
		q := &e.queues[qi]
		if q.state != policy.Activated {
			continue
		}
		for len(q.live()) > 0 {
			id := q.wait[q.head]
			s := &e.slots[id]
			row := e.fitsNow(s)
			if row == -2 {
				if !e.preemptFor(id, s, qi) {
					break
				}
				row = e.fitsNow(s)
				q = &e.queues[qi]
			}
			e.apply(sdDecision{Kind: sdStart, ID: id, Row: row})
			if row >= 0 {
				e.gangPriority()
			}
		}
	}
	if qt := e.topGang(); qt < len(e.queues) {
		for k := range e.mpl {
			if e.rows[k] > 0 && e.rowQ[qt*e.mpl+k] == 0 {
				panic(fmt.Sprintf("sim: row %d takes time slices without a job of queue %d, the highest in the matrix", k, qt))
			}
		}
	}
}

// preemptFor frees processors for s, the blocked head of queue qi, by
// preempting jobs of lower-priority queues, if that makes it fit. It
// reports whether it did.
func (e *sdCore) preemptFor(id int32, s *sdSlot, qi int) bool {
	if e.cfg.Preempt == policy.PreemptOff {
		return false
	}
	lower := 0
	for q := qi + 1; q < len(e.queues); q++ {
		lower += e.runQ[q]
	}
	if lower == 0 {
		return false
	}
	if e.nd != nil {
		return e.nd.preemptFor(e, id, s, qi)
	}
	// Would it fit with every lower-priority job gone?
	ex, mem, disk := e.ex, e.memHeld, e.diskHeld
	for q := qi + 1; q < len(e.queues); q++ {
		ex -= e.exQ[q]
		if e.frees() {
			mem -= e.memQ[q]
			disk -= e.diskQ[q]
		}
	}
	rows := append(e.scratch[:0], e.rows...)
	for k := range rows {
		for q := qi + 1; q < len(e.queues); q++ {
			rows[k] -= e.rowQ[q*e.mpl+k]
		}
	}
	e.scratch = rows
	gang := e.queues[qi].cfg.Mode == policy.Gang
	if e.fitRow(s, gang, ex, rows, mem, disk) == -2 {
		return false
	}
	e.victims = e.victims[:0]
	for _, id := range e.running {
		if e.slots[id].queue > qi {
			e.victims = append(e.victims, id)
		}
	}
	e.sortVictims()
	if gang && e.mpl > 1 {
		e.victims = e.victimsForRow(s, rows)
	}
	for _, v := range e.victims {
		e.apply(sdDecision{Kind: sdPreempt, ID: v, By: id})
		if e.fitsNow(s) != -2 {
			return true
		}
	}
	panic(fmt.Sprintf("sim: preempting every lower-priority job did not make job %d fit", s.job.ID))
}

// sortVictims sorts e.victims in preemption order: lowest priority first,
// then the most recently started, then the latest submitted: Slurm's
// preemption order.
func (e *sdCore) sortVictims() {
	sort.Slice(e.victims, func(a, b int) bool {
		x, y := &e.slots[e.victims[a]], &e.slots[e.victims[b]]
		if x.queue != y.queue {
			return x.queue > y.queue
		}
		if x.lastMs != y.lastMs {
			return x.lastMs > y.lastMs
		}
		return x.job.Seq > y.job.Seq
	})
}

// victimsIn narrows e.victims, in place, to the exclusive ones and the
// gang ones of row k.
func (e *sdCore) victimsIn(k int) []int32 {
	out := e.victims[:0]
	for _, id := range e.victims {
		if v := &e.slots[id]; !v.gang || v.row == k {
			out = append(out, id)
		}
	}
	return out
}

// victimsForRow narrows e.victims (in preemption order) for gang job s to
// the row that needs the fewest victims, then the fewest preempted
// processors, then the lowest row: the exclusive victims and the gang
// victims of that row, so that no job of another row is suspended for
// nothing. after are the rows with every victim gone.
func (e *sdCore) victimsForRow(s *sdSlot, after []int) []int32 {
	p := s.job.Procs
	best, bestN, bestP := -1, 0, 0
	qt := e.topGang()
	for k := range e.mpl {
		if e.ex-e.exLower(s)+after[k]+p > e.procs || !e.rowAllowed(s.queue, qt, k) {
			continue // not even with every victim gone, or a row of a lower queue
		}
		ex, row, mem, disk := e.ex, e.rows[k], e.memHeld, e.diskHeld
		n, procs := 0, 0
		for _, id := range e.victims {
			if ex+row+p <= e.procs && !e.short(s, mem, disk) {
				break
			}
			v := &e.slots[id]
			switch {
			case !v.gang:
				ex -= v.job.Procs
			case v.row == k:
				row -= v.job.Procs
			default:
				continue
			}
			if e.frees() {
				mem -= v.memKB
				disk -= v.diskKB
			}
			n++
			procs += v.job.Procs
		}
		if ex+row+p > e.procs || e.short(s, mem, disk) {
			continue
		}
		if best < 0 || n < bestN || n == bestN && procs < bestP {
			best, bestN, bestP = k, n, procs
		}
	}
	if best < 0 {
		return e.victims // memory or disk decide: no row is better
	}
	return e.victimsIn(best)
}

// exLower returns the processors exclusive jobs of queues below s's hold.
func (e *sdCore) exLower(s *sdSlot) int {
	n := 0
	for q := s.queue + 1; q < len(e.queues); q++ {
		n += e.exQ[q]
	}
	return n
}

// preempt stops running job id for job by, as Config.Preempt says.
func (e *sdCore) preempt(id int32, by *sdSlot) {
	v := &e.slots[id]
	e.stop(id, e.clock(v)-v.stintAt)
	v.susp++
	switch e.cfg.Preempt {
	case policy.PreemptCancel:
		e.end(id, Killed, fmt.Sprintf("preempted by job %d (queue %d)", by.job.ID, by.queue))
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

// emit sends an event about job id, if the run has an event observer.
func (e *sdCore) emit(k EventKind, id int32) {
	if e.events == nil {
		return
	}
	s := &e.slots[id]
	e.ev = Event{Kind: k, Time: e.fromMs(e.nowMs), Job: &s.job, Procs: s.job.Procs}
	e.events.Event(&e.ev)
}

// requeue puts a stopped job back in its queue, in submission order.
func (e *sdCore) requeue(id int32) {
	s := &e.slots[id]
	q := &e.queues[s.queue]
	live := q.live()
	k := sort.Search(len(live), func(i int) bool { return e.slots[live[i]].job.Seq > s.job.Seq })
	q.wait = slices.Insert(q.wait, q.head+k, id)
	e.queuedProcs += int64(s.job.Procs)
}

// span is the progress a job makes in its next stint before its next
// event: its end or its demotion.
func (e *sdCore) span(s *sdSlot) int64 {
	d := s.workUs - s.cpuUs
	if r := e.queues[s.queue].cfg.ResidenceSec; r > 0 && s.queue < len(e.queues)-1 {
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
	if s.firstMs < 0 {
		s.firstMs = e.nowMs
		e.stats.Started++
		e.emit(EventStarted, id)
	} else {
		e.emit(EventResumed, id)
	}
	s.lastMs = e.nowMs
	s.stintMs = e.nowMs
	s.running = true
	s.ver++
	s.runIdx = len(e.running)
	e.running = append(e.running, id)
	e.runQ[s.queue]++
	if !s.holds {
		s.holds = true
		e.memHeld += s.memKB
		e.diskHeld += s.diskKB
		if s.memKB > 0 && e.memHeld > e.cfg.MemKB || s.diskKB > 0 && e.diskHeld > e.cfg.DiskKB {
			panic(fmt.Sprintf("sim: job %d's limits push the held ones (%d KB memory, %d KB disk) beyond the cluster's (%d KB, %d KB)", s.job.ID, e.memHeld, e.diskHeld, e.cfg.MemKB, e.cfg.DiskKB))
		}
	}
	e.memQ[s.queue] += s.memKB
	e.diskQ[s.queue] += s.diskKB
	if row >= 0 {
		s.gang, s.row, s.alloc = true, row, s.alloc[:0]
		if e.nd != nil {
			e.nd.place(s, row)
		}
		if e.rows[row] == 0 {
			e.nonEmpty++
		}
		e.rows[row] += p
		e.rowQ[s.queue*e.mpl+row] += p
		e.gangP += p
		if e.ex+e.rows[row] > e.procs {
			panic(fmt.Sprintf("sim: row %d over-allocated: %d exclusive + %d gang processors of %d", row, e.ex, e.rows[row], e.procs))
		}
	} else {
		s.gang = false
		if e.nd != nil {
			e.nd.place(s, -1)
		} else {
			s.alloc = e.exM.Alloc(p, s.alloc[:0])
		}
		e.ex += p
		e.exQ[s.queue] += p
		if e.busy() > e.procs {
			panic(fmt.Sprintf("sim: machine over-allocated: %d exclusive + %d gang processors of %d", e.ex, slices.Max(e.rows), e.procs))
		}
	}
	s.stintAt = e.clock(s)
	if used := s.job.UsedMemKB; s.memKB > 0 && used > 0 && int64(used)*int64(e.cfg.PerHost(p)) > s.memKB {
		e.stop(id, 0)
		e.end(id, LimitKilled, fmt.Sprintf("memory use %d KB per host exceeds its limit %d KB", int64(used)*int64(e.cfg.PerHost(p)), s.memKB))
		return
	}
	s.target = s.stintAt + e.span(s)
	e.schedule(id)
}

// schedule pushes running job id's next event.
func (e *sdCore) schedule(id int32) {
	s := &e.slots[id]
	ev := endEvent{at: workload.Time(s.target), seq: s.job.Seq, id: id, gen: s.ver}
	if s.gang {
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
	if s.gang {
		e.rows[s.row] -= p
		e.rowQ[s.queue*e.mpl+s.row] -= p
		e.gangP -= p
		if e.rows[s.row] == 0 {
			e.nonEmpty--
		}
		// The gang clock overshoots a job's target by the rounding of
		// the instant; the machine gave that time, to nobody.
		if over := e.vg - s.stintAt - credit; over > 0 {
			e.taken.add(uint64(p), uint64(over))
		}
	} else {
		e.ex -= p
		e.exQ[s.queue] -= p
		if e.nd == nil {
			e.exM.Release(s.alloc)
		}
		if over := e.nowMs*1000 - s.stintAt - credit; over > 0 {
			e.taken.add(uint64(p), uint64(over))
		}
	}
	e.runQ[s.queue]--
	e.memQ[s.queue] -= s.memKB
	e.diskQ[s.queue] -= s.diskKB
	e.cutStint(s)
	if e.nd != nil {
		e.nd.unplace(s)
	}
	last := e.running[len(e.running)-1]
	e.running[s.runIdx] = last
	e.slots[last].runIdx = s.runIdx
	e.running = e.running[:len(e.running)-1]
	s.running = false
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
	from := s.queue
	to := from + 1
	e.cutStint(s)
	e.runQ[from]--
	e.runQ[to]++
	e.memQ[from] -= s.memKB
	e.memQ[to] += s.memKB
	e.diskQ[from] -= s.diskKB
	e.diskQ[to] += s.diskKB
	if s.gang {
		e.rowQ[from*e.mpl+s.row] -= s.job.Procs
		e.rowQ[to*e.mpl+s.row] += s.job.Procs
	} else {
		e.exQ[from] -= s.job.Procs
		e.exQ[to] += s.job.Procs
	}
	s.queue = to
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
		if s.gang {
			row = s.row
		}
		s.stints = append(s.stints, Stint{FromMs: s.stintMs, ToMs: e.nowMs, Queue: s.queue, Row: row})
		if e.nd != nil {
			s.allocs = append(s.allocs, slices.Clone(s.alloc))
		}
	}
	s.stintMs = e.nowMs
}

// release gives back the memory and disk limits job s holds, if it does.
func (e *sdCore) release(s *sdSlot) {
	if s.holds {
		s.holds = false
		e.memHeld -= s.memKB
		e.diskHeld -= s.diskKB
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
	e.rec = Record{Job: &s.job, State: st, Start: e.fromMs(s.firstMs), End: e.fromMs(e.nowMs),
		Alloc: s.alloc, Reason: reason, ScoreD: true, Queue: s.queue, Demotions: s.demotions, Suspensions: s.susp, CPUTime: e.cpuTicks(s.usedUs), Requeues: s.requeues}
	e.limits(s)
	e.obs.JobDone(&e.rec)
	e.freeIDs = append(e.freeIDs, id)
}

// limits sets e.rec's memory and disk fields and stints from job s, whose
// stints the record takes over.
func (e *sdCore) limits(s *sdSlot) {
	e.rec.MemLimitKB, e.rec.DiskLimitKB = s.memKB, s.diskKB
	if used := s.job.UsedMemKB; used > 0 {
		e.rec.MemKBPerHost = int64(used) * int64(e.cfg.PerHost(s.job.Procs))
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
	e.obs.JobDone(&e.rec)
}

// holdToEnd records job s, which ran and was then held by its deactivated
// queue qi to the end of the run, as Pending: started at its first start,
// with the CPU time it received; the reason says when it started.
func (e *sdCore) holdToEnd(s *sdSlot, qi int, reason string) {
	e.release(s)
	e.stats.Pending++
	e.stats.ProcSeconds += float64(s.job.Procs) * e.usTicks(s.usedUs)
	start := e.fromMs(s.firstMs)
	e.rec = Record{Job: &s.job, State: Pending, Start: start, End: e.fromMs(e.nowMs),
		Reason: fmt.Sprintf("%s (it ran from %d with %d s of CPU time and was held since)", reason, start, s.usedUs/1e6),
		ScoreD: true, Queue: qi, Demotions: s.demotions, Suspensions: s.susp, CPUTime: e.cpuTicks(s.usedUs), Requeues: s.requeues}
	e.limits(s)
	e.obs.JobDone(&e.rec)
}

// rejectShort refuses the jobs submitted at this instant that did not start
// and whose memory or disk limits cannot be granted now (SPEC §4: resource
// shortage), unless they or their queue wait for resources. A job that only
// lacks processors queues for them. It reports whether it refused one; the
// jobs it keeps stay in e.arrived.
func (e *sdCore) rejectShort() bool {
	kept, refused := e.arrived[:0], false
	for _, id := range e.arrived {
		s := &e.slots[id]
		q := &e.queues[s.queue]
		wait := q.cfg.Wait
		if w := s.job.WaitResources; w != 0 {
			wait = w > 0 // the job's own choice
		}
		if s.firstMs >= 0 || wait || q.state != policy.Activated || !e.short(s, e.memHeld, e.diskHeld) {
			kept = append(kept, id)
			continue
		}
		refused = true
		k := slices.Index(q.live(), id)
		if k < 0 {
			panic(fmt.Sprintf("sim: job %d neither started nor waiting", s.job.ID))
		}
		e.apply(sdDecision{Kind: sdReject, ID: id, Row: k})
	}
	e.arrived = kept
	return refused
}

// shortReason says why job s's limits cannot be granted now.
func (e *sdCore) shortReason(s *sdSlot) string {
	if s.memKB > 0 && e.memHeld+s.memKB > e.cfg.MemKB {
		return fmt.Sprintf("resource shortage at submission (queue %d): memory limit %d KB, %d KB of the cluster's %d KB held", s.queue, s.memKB, e.memHeld, e.cfg.MemKB)
	}
	return fmt.Sprintf("resource shortage at submission (queue %d): disk limit %d KB, %d KB of the cluster's %d KB held", s.queue, s.diskKB, e.diskHeld, e.cfg.DiskKB)
}

// change applies a scheduled queue state change.
func (e *sdCore) change(c policy.QueueChange) {
	q := &e.queues[c.Queue]
	q.state = c.State
	if c.State == policy.Activated {
		return
	}
	e.victims = e.victims[:0]
	for _, id := range e.running {
		if e.slots[id].queue == c.Queue {
			e.victims = append(e.victims, id)
		}
	}
	e.descheduleVictims(sdHold)
}

// descheduleVictims deschedules the running jobs of e.victims, in
// submission order: decisions of kind k (sdSuspend or sdHold).
func (e *sdCore) descheduleVictims(k sdKind) {
	slices.SortFunc(e.victims, func(a, b int32) int {
		return cmp.Compare(e.slots[a].job.Seq, e.slots[b].job.Seq)
	})
	for _, id := range e.victims {
		e.apply(sdDecision{Kind: k, ID: id})
	}
}

// sdKind is the kind of a decision of SCore-D's scheduler (sdDecision).
type sdKind uint8

// Kinds of sdDecision.
const (
	// sdStart starts waiting job ID, the head of its queue, in row Row
	// (-1: an exclusive job, in every row); a job that ran before
	// resumes.
	sdStart sdKind = iota
	// sdPreempt preempts running job ID for job By, the blocked head of a
	// higher queue, as policy.ScoreD.Preempt says: suspended (back to its
	// queue, keeping its memory), requeued (its progress and limits
	// given back) or cancelled.
	sdPreempt
	// sdSuspend suspends running gang job ID back to its queue: its row
	// holds no job of the highest queue in the matrix (priority between
	// queues in gang mode, SPEC §4).
	sdSuspend
	// sdHold deschedules running job ID back to its queue, which was
	// deactivated or disabled; it keeps its memory and sends no event.
	sdHold
	// sdReject refuses job ID, submitted at this instant, at place Row of
	// its queue's waiting jobs: its memory or disk limit cannot be
	// granted (resource shortage).
	sdReject
)

// String returns the kind's name.
func (k sdKind) String() string {
	switch k {
	case sdStart:
		return "start"
	case sdPreempt:
		return "preempt"
	case sdSuspend:
		return "suspend"
	case sdHold:
		return "hold"
	case sdReject:
		return "reject"
	}
	return fmt.Sprintf("sdKind(%d)", uint8(k))
}

// sdDecision is one decision of SCore-D's scheduler, which apply carries
// out: the scheduling pass decides (queue order, rows, victims), apply
// changes the matrix, the ledger, the stints and the queues, and sends
// the events the observers see.
type sdDecision struct {
	Kind sdKind
	ID   int32 // the job's slot
	Row  int   // sdStart's row (-1: exclusive); sdReject's place in its queue
	By   int32 // sdPreempt's preemptor (a slot)
}

// apply carries out decision d now; a recorder (sdCore.decided) sees it
// first.
func (e *sdCore) apply(d sdDecision) {
	if e.decided != nil {
		e.decided(d)
	}
	s := &e.slots[d.ID]
	switch d.Kind {
	case sdStart:
		q := &e.queues[s.queue]
		if l := q.live(); len(l) == 0 || l[0] != d.ID {
			panic(fmt.Sprintf("sim: job %d started out of its queue's order", s.job.ID))
		}
		q.pop()
		e.start(d.ID, d.Row)
	case sdPreempt:
		e.preempt(d.ID, &e.slots[d.By])
	case sdSuspend, sdHold:
		e.stop(d.ID, e.clock(s)-s.stintAt)
		s.susp++
		if d.Kind == sdSuspend {
			e.emit(EventSuspended, d.ID)
		}
		e.requeue(d.ID)
	case sdReject:
		q := &e.queues[s.queue]
		q.wait = slices.Delete(q.wait, q.head+d.Row, q.head+d.Row+1)
		e.queuedProcs -= int64(s.job.Procs)
		e.rejectSlot(s, s.queue, e.shortReason(s))
		e.freeIDs = append(e.freeIDs, d.ID)
	default:
		panic(fmt.Sprintf("sim: unknown SCore-D decision %v", d.Kind))
	}
}

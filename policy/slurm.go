package policy

import (
	"fmt"
	"strconv"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/workload"
)

// SlurmParams are the scheduling parameters of Slurm's sched/backfill
// plugin that schedsim models (slurm.conf SchedulerParameters; see
// https://slurm.schedmd.com/sched_config.html). The zero value of each
// field means Slurm's default, given in its documentation.
type SlurmParams struct {
	// Interval is bf_interval: a backfill cycle runs at every multiple of
	// it (default 30 s).
	Interval workload.Time
	// MaxJobTest is bf_max_job_test: a backfill cycle examines at most this
	// many jobs, in priority order (default 500; LookaheadAll: every job).
	MaxJobTest int
	// Window is bf_window: a job gets a reservation only if it can start
	// within this time from now (default 1 day; slurm.conf gives it in
	// minutes, 1440).
	Window workload.Time
	// Resolution is bf_resolution: the granularity of the backfill plan
	// (default 60 s). See Slurm for how it rounds.
	Resolution workload.Time
	// Continue is bf_continue (default off). Slurm's backfill thread
	// releases its locks every bf_yield_interval (2 s of wall time); without
	// bf_continue the cycle stops there if any job or node changed state
	// meanwhile. A simulated cycle takes no simulated time, so nothing can
	// change during it and Continue does not change the schedule; it is
	// kept for slurm.conf and shows in the policy's name.
	Continue bool
	// QueueDepth is default_queue_depth: how many jobs the main scheduler
	// examines at each event (default 100; LookaheadAll: every job).
	QueueDepth int
	// WindowLinear is bf_window_linear: WILL_RUN groups running jobs'
	// predicted ends in windows that start at 30 s and double after each
	// group (0, the default), or grow by this many seconds. Only the plan
	// on nodes groups ends.
	WindowLinear workload.Time
	// Phase is the backfill cycle's phase: cycles run at the instants t
	// with (t - Phase) a multiple of Interval (default 0: at multiples of
	// Interval from the trace's time 0). slurmctld starts its cycles when
	// it starts, bf_interval apart.
	Phase workload.Time
	// MainAt says which events run the main scheduler (default
	// MainDefault: MainAtEnds on a cluster of nodes, MainAtEvents on a
	// pool of processors, as schedsim did before).
	MainAt MainTrigger
	// Completing is how long after a job's end the backfill cycle still
	// holds its nodes: the cycles within it run before slurmctld has taken
	// the end in. They see the job running until its predicted end, or,
	// with EndedCompleting, its nodes completing until the end plus
	// Completing (Slurm's COMPLETING state, until the epilog is done);
	// the main scheduler, which the end runs, starts jobs on them at once.
	// 0 is the default, 1 s on a cluster of nodes (the cycle of the second
	// the job ended in); CompletingNone: none. Only the plan on nodes uses
	// it.
	Completing workload.Time
	// GroupsFromFirst makes WILL_RUN's groups of running jobs' ends span
	// a window from the group's first end (--bf-groups first, schedsim's
	// rule before) instead of select/cons_tres's: a barrier at the first
	// usable end rounded up to the next multiple of 30 s, each group going
	// on while the next end is within the barrier plus the window. Only
	// the plan on nodes groups ends.
	GroupsFromFirst bool
	// EndedCompleting makes the backfill cycle that runs in the instant a
	// job ended hold its nodes until the end plus Completing (--bf-ended
	// completing, schedsim's rule before) instead of until the job's
	// predicted end (start plus limit): slurmctld's cycle of that second
	// runs before the job completes and plans with it running, ending when
	// its limit says. Only the plan on nodes uses it.
	EndedCompleting bool
	// EndedRunning makes the backfill cycle that runs in the second a job
	// ended always see it running until its predicted end (--bf-ended
	// running, schedsim's rule before). By default (--bf-ended phase) the
	// cycle's sub-second drift decides whether it ran before or after the
	// end: slurmctld's backfill thread sleeps bf_interval after a cycle
	// *ends*, so each cycle starts its duration later in the second than
	// the one before (the slurmctld log: every "beginning" comes 1.000 s
	// after the previous "completed testing"). A job a cycle starts
	// completes EndLatency after that cycle's instant plus its run time;
	// the cycle of the second it ends in sees it ended when the cycles run
	// meanwhile took more than that. A job the main scheduler starts
	// begins MainLatency after the end that ran it. Wrapping round the
	// second is not modelled. Only the plan on nodes uses it.
	EndedRunning bool
	// CycleBase and CyclePerJob are a backfill cycle's duration in
	// microseconds: CycleBase plus CyclePerJob for each waiting job it
	// tests (0: the defaults DefaultCycleBase, DefaultCyclePerJob).
	CycleBase, CyclePerJob int64
	// EndLatency is how long after its instant plus its run time a job
	// completes in slurmctld, and MainLatency how long after an end the
	// main scheduler starts a job, in microseconds (0: the defaults
	// DefaultEndLatency, DefaultMainLatency).
	EndLatency, MainLatency int64
	// PlanProcs plans in processor counts on a cluster of nodes too
	// (--bf-plan procs), as schedsim did before its plan on nodes: a
	// reservation is a number of processors, not a set of nodes.
	PlanProcs bool
	// Tick is the run's ticks a second (0 or 1: seconds): Interval,
	// Window and Resolution, given in seconds as Slurm gives them, are
	// planned in ticks (Config.Tick sets it).
	Tick workload.Time
}

// CompletingNone is SlurmParams.Completing for no completing time.
const CompletingNone workload.Time = -1

// DefaultCompleting is how long an ended job's nodes stay out of the
// backfill cycle's reach on a cluster of nodes by default.
const DefaultCompleting workload.Time = 1

// The sub-second timing of --bf-ended phase (the default), in microseconds, measured on
// the slurmctld logs of six runs of .ci/slurm-backfill-check.sh (Slurm
// 22.05.8, 32 slurmd on one machine): the time from a cycle's beginning
// to the next one's, less bf_interval, is about 0.3 ms plus 0.25 ms per
// job tested (medians 1 ms for 1-5 jobs, 2 ms for 6-7, 3-4 ms for 8-18);
// a job's end less its start less its sleep has median 22 ms (16 to 50);
// a start by the main scheduler comes a median 60 ms after the end that
// ran it.
const (
	DefaultCycleBase   int64 = 300
	DefaultCyclePerJob int64 = 250
	DefaultEndLatency  int64 = 22000
	DefaultMainLatency int64 = 60000
)

// MainTrigger says which events run Slurm's main scheduler.
type MainTrigger uint8

// The events that run the main scheduler.
const (
	// MainDefault is MainAtEnds on a cluster of nodes, MainAtEvents on a
	// pool of processors.
	MainDefault MainTrigger = iota
	// MainAtEnds runs it when jobs end only, as slurmctld 22.05 does: a
	// job submitted to a queue it could start in waits for the next
	// backfill cycle (a real run: 35 of 40 jobs started by backfill, the
	// main scheduler starting only jobs that began at another job's end).
	MainAtEnds
	// MainAtEvents runs it at every submission and end.
	MainAtEvents
)

// ParseMainTrigger parses "ends" or "events".
func ParseMainTrigger(s string) (MainTrigger, error) {
	switch s {
	case "ends":
		return MainAtEnds, nil
	case "events":
		return MainAtEvents, nil
	}
	return MainDefault, fmt.Errorf("policy: main scheduler at %q: want ends or events", s)
}

// String returns "ends", "events" or "" (the default).
func (m MainTrigger) String() string {
	switch m {
	case MainAtEnds:
		return "ends"
	case MainAtEvents:
		return "events"
	}
	return ""
}

// Slurm's sched/backfill defaults (src/plugins/sched/backfill/backfill.c and
// slurm.conf(5)).
const (
	DefaultBFInterval      workload.Time = 30
	DefaultBFMaxJobTest                  = 500
	DefaultBFWindow        workload.Time = 24 * 3600
	DefaultBFResolution    workload.Time = 60
	DefaultSlurmQueueDepth               = 100
)

// Slurm's upper limits for the backfill times.
const (
	maxBFInterval   workload.Time = 10800
	maxBFResolution workload.Time = 3600
	maxBFWindow     workload.Time = 30 * 24 * 3600
)

// withDefaults returns p with every zero field replaced by Slurm's default:
// one line per parameter.
func (p SlurmParams) withDefaults() SlurmParams {
	orDefault(&p.Interval, DefaultBFInterval)
	orDefault(&p.MaxJobTest, DefaultBFMaxJobTest)
	orDefault(&p.Window, DefaultBFWindow)
	orDefault(&p.Resolution, DefaultBFResolution)
	orDefault(&p.QueueDepth, DefaultSlurmQueueDepth)
	orDefault(&p.CycleBase, DefaultCycleBase)
	orDefault(&p.CyclePerJob, DefaultCyclePerJob)
	orDefault(&p.EndLatency, DefaultEndLatency)
	orDefault(&p.MainLatency, DefaultMainLatency)
	return p
}

// orDefault sets *v to def if it is zero.
func orDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// inTicks returns p with Slurm's defaults, its times (given in seconds)
// in ticks of 1/Tick second: what the policy plans with.
func (p SlurmParams) inTicks() SlurmParams {
	p = p.withDefaults()
	if t := p.Tick; t > 1 {
		p.Interval, p.Window, p.Resolution = p.Interval*t, p.Window*t, p.Resolution*t
		p.WindowLinear, p.Phase = p.WindowLinear*t, p.Phase*t
		switch {
		case p.Completing == 0:
			p.Completing = DefaultCompleting * t
		case p.Completing > 0:
			p.Completing *= t
		}
	}
	return p
}

// Validate reports settings Slurm would refuse: negative values (other than
// LookaheadAll for the job counts), or an interval, resolution or window
// beyond Slurm's maxima (3 hours, 1 hour, 30 days).
func (p SlurmParams) Validate() error {
	switch {
	case p.Interval < 0 || p.Interval > maxBFInterval:
		return fmt.Errorf("policy: bf_interval %ds: want 1 to %d seconds", p.Interval, maxBFInterval)
	case p.Resolution < 0 || p.Resolution > maxBFResolution:
		return fmt.Errorf("policy: bf_resolution %ds: want 1 to %d seconds", p.Resolution, maxBFResolution)
	case p.Window < 0 || p.Window > maxBFWindow:
		return fmt.Errorf("policy: bf_window %ds: want 1 to %d seconds (30 days)", p.Window, maxBFWindow)
	case p.MaxJobTest < LookaheadAll:
		return fmt.Errorf("policy: bf_max_job_test %d: want ≥ 1 or all", p.MaxJobTest)
	case p.QueueDepth < LookaheadAll:
		return fmt.Errorf("policy: default_queue_depth %d: want ≥ 1 or all", p.QueueDepth)
	case p.Phase < 0 || (p.Interval > 0 && p.Phase >= p.Interval) || (p.Interval == 0 && p.Phase >= DefaultBFInterval):
		return fmt.Errorf("policy: backfill phase %ds: want 0 to bf_interval - 1", p.Phase)
	case p.Completing < CompletingNone || p.Completing > maxBFInterval:
		return fmt.Errorf("policy: completing time %ds: want 0 to %d seconds", p.Completing, maxBFInterval)
	case p.MainAt > MainAtEvents:
		return fmt.Errorf("policy: main scheduler trigger %d: want ends or events", p.MainAt)
	case p.CycleBase < 0 || p.CyclePerJob < 0 || p.EndLatency < 0 || p.MainLatency < 0:
		return fmt.Errorf("policy: backfill cycle timing %d, %d, %d, %d µs: want no negative values", p.CycleBase, p.CyclePerJob, p.EndLatency, p.MainLatency)
	case p.WindowLinear < 0 || p.WindowLinear > maxBFInterval:
		return fmt.Errorf("policy: bf_window_linear %ds: want 0 to %d seconds", p.WindowLinear, maxBFInterval)
	}
	return nil
}

// Slurm schedules as Slurm's sched/backfill plugin does, on a single
// partition, with the queue in the order its View gives (wrap it in Ordered
// for a priority order such as MultiFactor). On a View that is a NodeView
// (a cluster of nodes, sim.Config.Allocator, in queue order) whose
// Decisions are a NodeStarter, the plan is made of node sets and the
// timing is slurmctld's (see slurmnodes.go and scheduleNodes): the backfill
// cycle first, then the main scheduler when jobs ended, nodes chosen as
// the select plugins choose them. Elsewhere, and with PlanProcs, what
// follows holds: on a View that is a Fitter a job starts only where it fits
// the nodes and the backfill plan stays in processor counts.
//
// The main scheduler runs at every instant where a job arrives or ends: it
// starts jobs in strict queue order while they fit, examining at most
// QueueDepth jobs, and stops at the first that does not fit (Slurm stops a
// partition's jobs there). It never backfills.
//
// The backfill scheduler runs a cycle at every multiple of Interval (the
// engine wakes the policy for it), if any job arrived, started or ended
// since the previous cycle (Slurm skips a cycle with nothing new, too). A
// cycle builds an availability profile from the running jobs' predicted
// ends and examines the waiting jobs in queue order, at most MaxJobTest of
// them: each starts now if it fits in the profile for its whole estimate;
// otherwise, if it can start within Window from now, it gets a reservation
// at its earliest start, which the later jobs must not delay; a job that
// can start only later gets no reservation, and lower-priority jobs may then
// delay it. A job without an estimate is planned as running forever.
//
// Resolution coarsens the plan as Slurm's bf_resolution does: running jobs'
// predicted ends are rounded up to a multiple of Resolution, and every
// planned job's estimate up to a whole number of Resolutions. (Slurm rounds a
// reservation's start and end down; its time limits are whole minutes, so
// with the default 60 s the end loses nothing there. schedsim's estimates
// are in seconds, and rounding outward keeps every reservation whole.) A
// job a cycle starts is planned until the later of now plus its rounded
// estimate and its predicted end rounded up, which is how the later
// cycles see it, and starts only if it fits until then: else a
// reservation made beside it in this cycle could fail at the next.
//
// Under a Calendar with reservations that admit some jobs, each job
// planned after another leaves free, at every instant, what the
// reservations withhold from the jobs planned before it (planFloor): a
// job a reservation admits is not started on processors a plan beside
// the reservation counted on.
//
// The first job that gets a reservation in a cycle, if it is the first
// waiting job, is promised its start: the engine checks it. Later
// reservations are plans only, remade at the next cycle.
type Slurm struct {
	SlurmParams

	p      SlurmParams // with defaults
	prof   cluster.Profile
	nodes  nodePlan
	dirty  bool          // something changed since the last cycle
	expect int           // queue length expected at the next pass, if nothing arrives
	wake   workload.Time // the last wake-up asked for
	// bounds: what the jobs a cycle planned prove of the later ones'
	// earliest starts (planBounds); noBound keeps them out (tests).
	bounds  planBounds
	noBound bool
	// floor: what the reservations a cycle made under a Calendar need
	// left free (planFloor).
	floor planFloor
	last  workload.Time // the instant of the last pass
	init  bool
	ph    phaseClock // --bf-ended phase
}

var _ Policy = (*Slurm)(nil)

// NewSlurm returns Slurm's scheduling with parameters p (zero fields take
// Slurm's defaults). It returns an error if p is not valid.
func NewSlurm(p SlurmParams) (*Slurm, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Slurm{SlurmParams: p}, nil
}

// Name implements Policy, e.g.
// "slurm(bf_interval=30,bf_max_job_test=500,bf_window=86400,bf_resolution=60,default_queue_depth=100)".
func (s *Slurm) Name() string {
	p := s.SlurmParams.withDefaults()
	n := "slurm(bf_interval=" + strconv.FormatInt(int64(p.Interval), 10) +
		",bf_max_job_test=" + FormatLookahead(p.MaxJobTest) +
		",bf_window=" + strconv.FormatInt(int64(p.Window), 10) +
		",bf_resolution=" + strconv.FormatInt(int64(p.Resolution), 10)
	if p.Continue {
		n += ",bf_continue"
	}
	if p.WindowLinear > 0 {
		n += ",bf_window_linear=" + strconv.FormatInt(int64(p.WindowLinear), 10)
	}
	if p.Phase > 0 {
		n += ",bf_phase=" + strconv.FormatInt(int64(p.Phase), 10)
	}
	switch {
	case p.Completing == CompletingNone:
		n += ",bf_completing=0"
	case p.Completing > 0:
		n += ",bf_completing=" + strconv.FormatInt(int64(p.Completing), 10)
	}
	if p.MainAt != MainDefault {
		n += ",sched_main=" + p.MainAt.String()
	}
	if p.GroupsFromFirst {
		n += ",bf_groups=first"
	}
	if p.EndedCompleting {
		n += ",bf_ended=completing"
	}
	if p.EndedRunning {
		n += ",bf_ended=running"
	}
	if p.phase() && p.EndLatency != DefaultEndLatency {
		n += ",bf_end_latency=" + strconv.FormatInt(p.EndLatency, 10) + "us"
	}
	if p.PlanProcs {
		n += ",bf_plan=procs"
	}
	return n + ",default_queue_depth=" + FormatLookahead(p.QueueDepth) + ")"
}

// Schedule implements Policy.
func (s *Slurm) Schedule(v View, d Decisions) {
	if !s.init {
		s.p = s.SlurmParams.inTicks()
		s.init = true
		s.wake, s.last = -1, -1
	}
	now := v.Now()
	defer func() { s.last = now }()
	n := v.Len()
	if n != s.expect || len(v.Ended()) > 0 {
		s.dirty = true
	}
	// The main scheduler: strict queue order, when an event that runs it
	// happened.
	nv, onNodes := v.(NodeView)
	ns, canChoose := d.(NodeStarter)
	nodes := onNodes && canChoose && !s.p.PlanProcs
	mainAt := s.p.MainAt
	if mainAt == MainDefault {
		mainAt = MainAtEvents
		if onNodes {
			mainAt = MainAtEnds
		}
	}
	if nodes {
		s.scheduleNodes(v, d, nv, ns, mainAt)
		return
	}
	free := v.Free()
	depth := n
	if s.p.QueueDepth >= 0 && depth > s.p.QueueDepth {
		depth = s.p.QueueDepth
	}
	if mainAt == MainAtEnds && len(v.Ended()) == 0 {
		depth = 0
	}
	fit, _ := v.(Fitter)
	h := 0
	for ; h < depth; h++ {
		p := v.Job(h).Procs
		if p > free || (fit != nil && !fit.Fits(h)) {
			break
		}
		d.Start(h)
		if fit != nil {
			free = v.Free() // whole nodes may hold more than p
		} else {
			free -= p
		}
	}
	started := h
	if started > 0 {
		s.dirty = true
	}
	if s.bfDue(now) && s.dirty {
		k := s.cycle(v, d, fit, h, free)
		started += k
		s.dirty = k > 0
	}
	s.expect = n - started
	if next := now - mod(now-s.p.Phase, s.p.Interval) + s.p.Interval; s.expect > 0 && s.dirty && s.wake != next {
		d.WakeAt(next)
		s.wake = next
	}
}

// bfDue reports whether a backfill cycle comes at instant now: now is
// one of its instants, or the one asked to be woken at passed without a
// pass while the last pass left jobs waiting. Without a scheduler cycle
// the engine runs a pass at every wake-up while jobs wait, so only the
// first holds; under one (sim.Config.SchedInterval) passes come at the
// cycle's ticks alone, and the first pass after a backfill instant runs
// its cycle (else a cycle whose ticks never meet the backfill's instants
// would never backfill).
func (s *Slurm) bfDue(now workload.Time) bool {
	return mod(now-s.p.Phase, s.p.Interval) == 0 || (s.wake > s.last && s.wake < now && s.expect > 0)
}

// scheduleNodes is Schedule on a cluster of nodes with the plan on nodes.
// Within an instant, slurmctld takes the submissions first, then the
// backfill cycle (before the jobs that end in that second have completed:
// their nodes are still completing), then the main scheduler, which the
// jobs' ends run: the cycle runs first here, and the main scheduler
// passes over the jobs it started.
func (s *Slurm) scheduleNodes(v View, d Decisions, nv NodeView, ns NodeStarter, mainAt MainTrigger) {
	now, n := v.Now(), v.Len()
	pl := &s.nodes
	pl.started = append(pl.started[:0], make([]bool, n)...)
	started := 0
	phase := s.p.phase()
	if phase {
		if s.ph.cost == nil {
			s.ph.cost = s.cycleCost
		}
		s.ph.advance(now, s.p.Phase, s.p.Interval, s.expect)
	}
	// slurmctld runs a cycle every bf_interval while jobs wait (the log
	// with DebugFlags=Backfill shows one a second with bf_interval=1). A
	// cycle after which nothing changed decides as the one before, unless
	// the plan depended on the time: nodes completing, a running job past
	// its predicted end. Otherwise the next event runs the next cycle.
	if s.bfDue(now) && s.dirty {
		k, timed := s.nodeCycle(v, d, nv, ns)
		started += k
		s.dirty = k > 0 || timed
	}
	if mainAt == MainAtEvents || len(v.Ended()) > 0 {
		depth := n
		if s.p.QueueDepth >= 0 && depth > s.p.QueueDepth {
			depth = s.p.QueueDepth
		}
		var work cluster.Allocator
		// --bf-ended phase: the jobs it starts complete after the last
		// end that ran it, plus the main scheduler's latency.
		trig := s.ph.d
		for _, e := range v.Ended() {
			if at, ok := s.ph.end[e.Seq]; ok && e.End == now && at > trig {
				trig = at
			}
		}
		for h := 0; h < depth; h++ {
			if pl.started[h] {
				continue
			}
			if work == nil {
				work = nv.Scratch()
			}
			req := nv.Request(h)
			rs, ok := chooseNodes(work, work.(cluster.NodeUnits), req, pl.alloc[:0], &pl.idle)
			if !ok {
				break
			}
			pl.alloc = rs
			ns.StartOn(h, rs)
			work.Commit(req, rs)
			pl.started[h] = true
			started++
			s.dirty = true
			if phase {
				s.ph.started(v.Job(h).Seq, trig+s.p.MainLatency+s.p.EndLatency)
			}
		}
	}
	if phase {
		s.ph.ran(now, s.p.Interval, n)
		for _, e := range v.Ended() {
			s.ph.ended(e.Seq)
		}
	}
	s.expect = n - started
	if next := now - mod(now-s.p.Phase, s.p.Interval) + s.p.Interval; s.expect > 0 && s.dirty && s.wake != next {
		d.WakeAt(next)
		s.wake = next
	}
}

// phase reports whether --bf-ended phase holds: neither running nor
// completing.
func (p SlurmParams) phase() bool { return !p.EndedRunning && !p.EndedCompleting }

// cycleCost is how long a backfill cycle takes with queued jobs waiting,
// in microseconds (--bf-ended phase): none without jobs ("no jobs to
// backfill"), else CycleBase plus CyclePerJob for each job it tests.
func (s *Slurm) cycleCost(queued int) int64 {
	if queued <= 0 {
		return 0
	}
	if s.p.MaxJobTest >= 0 && queued > s.p.MaxJobTest {
		queued = s.p.MaxJobTest
	}
	return s.p.CycleBase + s.p.CyclePerJob*int64(queued)
}

// cycle runs one backfill cycle over the waiting jobs from queue index h
// (those before it have started) with free processors idle, and returns how
// many jobs it started. With a Fitter (a cluster of nodes), a job the
// profile lets start now starts only if it fits the nodes; one that does not
// is planned from the profile's next change on, and a started job takes the
// processors it holds (whole nodes under select/linear) out of the profile,
// as far as the profile has them free.
func (s *Slurm) cycle(v View, d Decisions, fit Fitter, h, free int) int {
	now := v.Now()
	res := s.p.Resolution
	pr := &s.prof
	pr.Reset(v.Capacity(), now)
	pr.Add(now, workload.Forever, v.Capacity()-free)
	for k, nr := 0, v.NumRunning(); k < nr; k++ {
		end, procs := v.Running(k)
		pr.Release(roundUp(end, res), procs)
	}
	cal, _ := v.(Calendar)
	earliest := func(i, procs int, from, dur workload.Time) workload.Time {
		if cal != nil {
			return earliestOn(pr, cal, &s.floor, i, procs, from, dur)
		}
		return pr.Earliest(from, procs, dur)
	}
	started, tested := 0, 0
	s.bounds.reset(cal, s.noBound)
	visit := v.Len() // the jobs the cycle may test
	if s.p.MaxJobTest >= 0 {
		visit = min(visit, h+s.p.MaxJobTest)
	}
	s.floor.reset(cal, visit)
	for i, n := h, v.Len(); i < n; i++ {
		if s.p.MaxJobTest >= 0 && tested >= s.p.MaxJobTest {
			break
		}
		tested++
		j := v.Job(i)
		dur := j.Limit()
		if dur < workload.Forever {
			dur = roundUp(dur, res)
		}
		at := earliest(i, j.Procs, s.bounds.begin(i, j.Procs, dur, now), dur)
		s.bounds.note(at, now)
		procs := j.Procs
		if at == now {
			// Later cycles see a job started now running until its
			// predicted end rounded up to the resolution, which may pass
			// now plus its rounded estimate: it starts only if it fits
			// over that longer run too, which the plan then holds (else a
			// reservation made beside it would not hold at the next cycle).
			run := dur
			if seen := roundUp(satAdd(now, j.Limit()), res); seen < workload.Forever && seen-now > dur {
				run = seen - now
			}
			fits := run == dur || (cal == nil && pr.Fits(now, procs, run)) || (cal != nil && fitsOn(pr, cal, &s.floor, i, procs, now, run))
			switch {
			case fits && fit == nil:
				d.Start(i)
				started++
				pr.Add(now, satAdd(now, run), procs)
				continue
			case fits && fit.Fits(i):
				before := v.Free()
				d.Start(i)
				started++
				// Whole nodes may hold more than the job's processors: the
				// plan gives them as far as it has them free (the later
				// reservations are plans, not promises, on nodes).
				end := satAdd(now, run)
				took, room := before-v.Free(), pr.MinFree(now, end)
				if took > room {
					s.bounds.void() // whole nodes took more than the plan had free
				}
				pr.Add(now, end, min(took, room))
				continue
			}
			// Not over its longer run, or enough processors but not on
			// the nodes it needs: plan it later.
			if next := pr.NextChange(now); next < workload.Forever {
				at = earliest(i, procs, next, dur)
			} else {
				at = workload.Forever
			}
		}
		switch {
		case at == workload.Forever || at-now > s.p.Window:
			continue // no reservation
		case i == h:
			d.Reserve(i, at) // the first waiting job: a promise
		}
		pr.Add(at, satAdd(at, dur), procs)
		s.floor.plan(cal, i, at, dur)
	}
	return started
}

// roundUp rounds t up to a multiple of res (Forever stays Forever).
func roundUp(t, res workload.Time) workload.Time {
	if res <= 1 || t >= workload.Forever {
		return t
	}
	if r := mod(t, res); r != 0 {
		return t - r + res
	}
	return t
}

// Package infer reads what a real machine did from its log — each job's
// recorded start (submit + wait) and end — and infers the rules the
// machine had that a textbook replay lacks: its size and capacity
// timeline, planned outages, recurring drains (and the clock that makes
// them line up), start windows that depend on the requested time,
// per-user concurrency caps, queue priorities, and a time-shared
// machine's shared queues and the processors kept for them by day.
// Result.WriteTOML writes them as a schedsim scenario whose every entry is
// preceded by comment lines giving its evidence.
//
// The rules are general: each one is a pattern any log can show (see
// Options for every threshold), none names a particular log. Inference
// uses only the log's own records, never a simulation.
package infer

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/schedsim/schedsim/workload"
)

// Job is what inference needs of a job: its recorded times.
type Job struct {
	ID int64
	// Submit, Start and End are the recorded times in trace time: Start =
	// Submit + the recorded wait, End = Start + the recorded run time.
	Submit, Start, End workload.Time
	// Procs is the number of processors the job held.
	Procs int
	// ReqTime is the requested time in seconds, workload.Unknown when
	// none.
	ReqTime workload.Time
	// User and Queue are SWF fields 12 and 15 (-1 unknown).
	User, Queue int
}

// Log is a log's jobs with recorded times, and what its header says.
type Log struct {
	// Jobs are the jobs with a recorded wait and run time.
	Jobs []Job
	// Skipped counts the jobs without (wait or run time unknown).
	Skipped int
	// Procs is the header's machine size (MaxProcs, else MaxNodes), 0
	// when it gives none.
	Procs int
	// Epoch is the Unix time of trace time 0 and Zone the header's zone;
	// HasCalendar is false when the header has no UnixStartTime (then
	// trace time 0 is taken as midnight UTC).
	Epoch       int64
	Zone        *time.Location
	HasCalendar bool
	// Name names the log in the scenario's comments.
	Name string
}

// Read reads the jobs of a trace (opened with workload.Open) into a Log.
func Read(rd workload.Reader) (*Log, error) {
	l := &Log{Name: rd.Path(), Zone: time.UTC}
	h := rd.Header()
	l.Procs = h.MaxProcs
	if l.Procs <= 0 {
		l.Procs = h.MaxNodes
	}
	if epoch, loc, ok := h.Calendar(); ok {
		l.Epoch, l.Zone, l.HasCalendar = epoch, loc, true
	}
	var j workload.Job
	for {
		err := rd.Next(&j)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if j.RawWait < 0 || j.RawRun < 0 {
			l.Skipped++
			continue
		}
		start := j.Submit + workload.Time(j.RawWait+0.5)
		req := workload.Time(workload.Unknown)
		if j.ReqTime > 0 {
			req = workload.Time(j.ReqTime + 0.5)
		}
		procs := j.AllocProcs
		if procs <= 0 {
			procs = j.Procs
		}
		l.Jobs = append(l.Jobs, Job{ID: j.ID, Submit: j.Submit, Start: start, End: start + workload.Time(j.RawRun+0.5),
			Procs: procs, ReqTime: req, User: j.User, Queue: j.Queue})
	}
	return l, nil
}

// Options are the thresholds of inference. Defaults returns the documented
// defaults; every field must be set.
type Options struct {
	// NearZeroFrac: busy processors at most this fraction of the machine
	// count as "near zero" (drains and outages).
	NearZeroFrac float64
	// BinSec is the width of the clock-time bins of drains (seconds; it
	// divides a day).
	BinSec int
	// DrainMinFrac: a clock-time bin of a weekday is a drain when on at
	// least this fraction of those days the machine was near zero there
	// with jobs queued.
	DrainMinFrac float64
	// DrainMinDays: ... and it was seen on at least this many days.
	DrainMinDays int
	// OutageMinSec: an idle-with-queue gap (near-zero busy processors
	// while a queued job would fit) at least this long is a planned
	// outage, when ...
	OutageMinSec workload.Time
	// OutageMinStarts: ... at least this many jobs start within
	// OutageBurstSec of its end (the queue released together).
	OutageMinStarts int
	OutageBurstSec  workload.Time
	// CapacityMinDays: a capacity drop is at least this many days in a
	// row whose maximum of busy processors stays at most CapacityLowFrac
	// of the machine while, each day, a queued job that would fit waited
	// at least CapacityQueuedSec, and on at least CapacityPlateauFrac of
	// them the maximum reached the stretch's plateau (95 % of its
	// highest: a machine held at a lower size, not one kept from its
	// processors by its users' limits).
	CapacityMinDays     int
	CapacityLowFrac     float64
	CapacityQueuedSec   workload.Time
	CapacityPlateauFrac float64
	// WindowBoundsSec are the candidate maximum requested times of start
	// windows (ascending).
	WindowBoundsSec []workload.Time
	// WindowMinExpected: a cell (weekday or weekend × start hour) is
	// restricted to requested times ≤ B when the jobs asking more than B
	// would be expected there at least this many times (from their share
	// of all starts) and ...
	WindowMinExpected float64
	// WindowLeakFrac: ... at most this fraction of that expectation
	// started there.
	WindowLeakFrac float64
	// SizeWindowMinExpected: a cell (weekday or weekend × start hour) of
	// a queue is restricted to at most B processors when the queue's jobs
	// asking more than B would be expected there at least this many times
	// (from the queue's own starts there) and at most WindowLeakFrac of
	// that expectation started there (0: never). Looked for on a
	// time-shared machine only (TimeShareFrac).
	SizeWindowMinExpected float64
	// NonDedicatedFrac: on a time-shared machine, the queues without
	// whose jobs the others held more processors than the machine on
	// under this fraction of the CapSampleSec samples ran beside the
	// others (written as shared_queues; 0: never looked for).
	NonDedicatedFrac float64
	// NonDedicatedNote: the non-dedicated queues are only said in a note,
	// not written as shared_queues (and the processors kept for them by
	// day are not looked for).
	NonDedicatedNote bool
	// SharedDayFreeFrac: on a machine with shared queues, a local weekday
	// hour keeps processors for them when the median of the processors
	// the dedicated jobs (those of the other queues, but the immediate
	// ones) held while one of them waited left at least this fraction of
	// the machine free; the longest run of such hours, sharedDayMinHours
	// or more, whose other hours leave less, is written as a recurring
	// reservation of what they left (0: never looked for).
	SharedDayFreeFrac float64
	// CapSampleSec is the sampling step of the per-user concurrency.
	CapSampleSec workload.Time
	// CapMinHoldSec: a user's concurrency is capped at its maximum when it
	// sat at that maximum, with a queued job of its own that would have
	// fit the idle processors, at least this long in all, ...
	CapMinHoldSec workload.Time
	// CapMinEpisodes: ... in at least this many separate episodes.
	CapMinEpisodes int
	// CapMinUsers: a cap K reached by at least this many capped users
	// (each at most CapShareTol below it), which no user exceeds, becomes
	// one limit of K for every user ("*").
	CapMinUsers int
	CapShareTol float64
	// QueueMinOvertakes and QueueRatio: queue p ranks above queue q when
	// p's jobs started ahead of earlier-submitted waiting q jobs at least
	// QueueMinOvertakes times, and at least QueueRatio times as often as
	// the reverse.
	QueueMinOvertakes int
	QueueRatio        float64
	// TimeShareFrac: the machine time-shared its processors when the
	// recorded jobs held more than it has on at least this fraction of the
	// CapSampleSec samples; its effective size and nodes are then not
	// inferred.
	TimeShareFrac float64
	// EffectiveMinFrac: the machine's effective size is the median of the
	// recorded busy processors while jobs were queued, when that is below
	// the machine size and at least this fraction of it (0: never).
	EffectiveMinFrac float64
	// NodeMinShare, NodeMinJobs and NodeMaxSize: the machine has nodes of
	// k processors (2 ≤ k ≤ NodeMaxSize dividing the machine, the largest
	// such) when at least NodeMinShare of the jobs asking more than one
	// processor and a count that is not a power of two, NodeMinJobs of
	// them or more, ask a multiple of k (NodeMaxSize < 2: never).
	NodeMinShare float64
	NodeMinJobs  int
	NodeMaxSize  int
	// HeldRoomSec: a job that waited at least this long although, for
	// this long after its submission, the recorded jobs left its
	// processors idle, was held by something the log does not record; it
	// is held until its recorded start (0: never).
	HeldRoomSec workload.Time
	// ThrottleQuantile, ThrottleRoomFrac and ThrottleMinBacklogSec: a user
	// whose jobs were queued ThrottleMinBacklogSec or more in all, with
	// room for them (idle processors at least their median size) in
	// ThrottleRoomFrac or more of that time, is capped at the
	// ThrottleQuantile quantile of the processors it held then (0: never).
	ThrottleQuantile      float64
	ThrottleRoomFrac      float64
	ThrottleMinBacklogSec workload.Time
	// ImmediateWaitSec, ImmediateShare and ImmediateMinJobs: a queue of
	// ImmediateMinJobs jobs or more, ImmediateShare or more of which
	// started within ImmediateWaitSec of their submission, is immediate
	// (its jobs ran beside the machine) when, besides, ImmediatePastFrac
	// of those (and 20 or more) started while a job of another queue,
	// submitted before them, had waited ImmediateWaitSec or more and
	// still waited: the machine was not idle (ImmediateShare 0: never).
	ImmediateWaitSec  workload.Time
	ImmediateShare    float64
	ImmediateMinJobs  int
	ImmediatePastFrac float64
	// ImmediateBeside: the rules that count busy processors (machine
	// size, drains, capacity, outages, caps, time sharing, non-dedicated
	// queues, effective size, nodes, throttled users) leave the immediate
	// queues' jobs out, as the simulation runs them beside the machine;
	// false counts them as the log shows them. The rules that describe
	// queueing (start and size windows, queue priorities, held jobs)
	// leave them out either way.
	ImmediateBeside bool
	// LatencyWaitSec: the jobs that started within this long of their
	// submission give the submission latency, their median wait (0:
	// never looked for).
	LatencyWaitSec workload.Time
}

// Defaults returns the default thresholds.
func Defaults() Options {
	h := workload.Time(3600)
	return Options{
		NearZeroFrac:        0.05,
		BinSec:              600,
		DrainMinFrac:        0.6,
		DrainMinDays:        4,
		OutageMinSec:        2 * h,
		OutageMinStarts:     3,
		OutageBurstSec:      15 * 60,
		CapacityMinDays:     7,
		CapacityLowFrac:     0.8,
		CapacityPlateauFrac: 0.5,
		CapacityQueuedSec:   4 * h,
		WindowBoundsSec: []workload.Time{10 * 60, 30 * 60, h, 2 * h, 4 * h, 6 * h, 8 * h, 12 * h, 15 * h, 18 * h,
			24 * h, 36 * h, 48 * h, 60 * h, 72 * h, 96 * h, 120 * h, 168 * h},
		WindowMinExpected:     20,
		WindowLeakFrac:        0.05,
		SizeWindowMinExpected: 20,
		NonDedicatedFrac:      0.01,
		SharedDayFreeFrac:     0.10,
		CapSampleSec:          300,
		CapMinHoldSec:         24 * h,
		CapMinEpisodes:        10,
		CapMinUsers:           3,
		CapShareTol:           0.05,
		QueueMinOvertakes:     100,
		QueueRatio:            5,
		TimeShareFrac:         0.05,
		EffectiveMinFrac:      0.9,
		NodeMinShare:          0.9,
		NodeMinJobs:           100,
		NodeMaxSize:           64,
		HeldRoomSec:           h,
		ThrottleQuantile:      0.85,
		ThrottleRoomFrac:      0.9,
		ThrottleMinBacklogSec: 100 * h,
		ImmediateWaitSec:      60,
		ImmediateShare:        0.99,
		ImmediateMinJobs:      100,
		ImmediatePastFrac:     0.1,
		ImmediateBeside:       true,
		LatencyWaitSec:        60,
	}
}

// Reservation is an inferred [[reservation]] of the scenario.
type Reservation struct {
	Name string
	// Start is the first occurrence, in trace time; DurationSec its
	// length.
	Start       workload.Time
	DurationSec workload.Time
	// Recur is "once", "daily", "weekdays", "weekends" or "weekly";
	// Until, when positive, the last occurrence's start bound.
	Recur string
	Until workload.Time
	// Procs is how many processors it holds (0: the whole machine).
	Procs int
	// Evidence are the comment lines above it.
	Evidence []string
	// weekday is the day of a weekly reservation.
	weekday time.Weekday
}

// StartWindow is an inferred [[start_window]].
type StartWindow struct {
	// Queue is the SWF queue (field 15) it holds for, -1 every job.
	Queue      int
	Days       string        // "Mon-Fri" or "Sat,Sun"
	FromHour   int           // local hour the window opens
	ToHour     int           // local hour it closes (may be ≤ FromHour: wraps midnight)
	MaxWallSec workload.Time // 0: no bound on the requested time
	// MaxProcs and MinProcs, when positive, bound the processors instead
	// (a size window: the job asking more, or fewer, may not start inside
	// it).
	MaxProcs, MinProcs int
	Evidence           []string
}

// Limit is an inferred [[limit]].
type Limit struct {
	Users    []string // "*" or user numbers
	MaxJobs  int      // max_jobs_per_user (0: none)
	MaxCPUs  int      // max_cpus_per_user (0: none)
	Evidence []string
}

// QueueRank is one queue of the inferred priority order.
type QueueRank struct {
	Queue int
	// Above and Below count the queues it ranks above and below.
	Above, Below int
	// Tier is its [[priority_tier]]: 1 for the lowest of the queues
	// ranked, one more for each higher level of Above − Below.
	Tier int
}

// Result is what inference found.
type Result struct {
	Log *Log
	// Procs is the machine size and ProcsEvidence how it was found.
	Procs         int
	ProcsEvidence []string
	// TimeShared says the recorded jobs overlapped beyond the machine
	// often enough to show time sharing.
	TimeShared bool
	// NodeSize, when above 1, is the inferred node size and Nodes the
	// node count (Procs = Nodes × NodeSize), NodeEvidence why: the
	// scenario then describes a cluster of whole nodes.
	NodeSize, Nodes int
	NodeEvidence    []string
	// Zone is the zone the calendar rules are written in (an IANA name,
	// or a fixed offset "UTC+02:00"); ZoneEvidence says why.
	Zone         string
	ZoneEvidence []string
	Capacity     []Reservation
	Outages      []Reservation
	Drains       []Reservation
	Windows      []StartWindow
	Limits       []Limit
	// Queues is the queue priority order found, highest first, and
	// QueueEvidence its evidence (written as [[priority_tier]] tables).
	Queues        []QueueRank
	QueueEvidence []string
	// Immediate are the queues whose jobs started at their submission,
	// beside the machine (written as immediate_queues), in queue order.
	Immediate []ImmediateQueue
	// Shared are the non-dedicated queues, whose jobs time-shared the
	// processors beside the others' (written as shared_queues), ascending,
	// and SharedEvidence why.
	Shared         []int
	SharedEvidence []string
	// SharedDay holds the processors kept for the shared queues by day
	// (a recurring maintenance reservation the shared queues' jobs are not
	// held by), when found.
	SharedDay []Reservation
	// Holds are the jobs the log shows held (by job number), each until
	// its recorded start, and HoldEvidence why; HoldsFile, when set, is
	// the holds file the scenario names (written with WriteHolds).
	Holds        []Hold
	HoldEvidence []string
	HoldsFile    string
	// Latency is the submission latency found (zero: none).
	Latency Latency
	// Notes are comments on what was looked for and not found.
	Notes []string

	loc *time.Location
}

// Infer infers the machine's rules from the log.
func Infer(l *Log, opt Options) (*Result, error) {
	if len(l.Jobs) == 0 {
		return nil, fmt.Errorf("infer: %s: no job with a recorded wait and run time (SWF fields 3 and 4)", l.Name)
	}
	if opt.BinSec <= 0 || 86400%opt.BinSec != 0 || opt.CapSampleSec <= 0 {
		return nil, fmt.Errorf("infer: bin %d s, sample %d s: want a bin that divides a day and a positive sample step", opt.BinSec, opt.CapSampleSec)
	}
	jobs := slices.Clone(l.Jobs)
	slices.SortFunc(jobs, func(a, b Job) int {
		if c := cmp.Compare(a.Submit, b.Submit); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	r := &Result{Log: l}
	// Immediate queues come first: their jobs were not scheduled, so the
	// rules that describe queueing leave them out (sched), and those that
	// count busy processors too when they ran beside the machine (busy).
	r.immediate(jobs, opt)
	sched := jobs
	if imm := r.immediateSet(); len(imm) > 0 {
		sched = slices.DeleteFunc(slices.Clone(jobs), func(j Job) bool { return imm[j.Queue] })
	}
	busy := jobs
	if opt.ImmediateBeside {
		busy = sched
	}
	tl := newTimeline(busy)
	r.machineSize(l, tl)
	r.drains(l, tl, opt)
	r.immediateEvidence(opt)
	sw := sweep(busy, r.Procs, r.loc, l.Epoch, opt)
	r.capacity(sw, opt)
	r.outages(sw, tl, opt)
	r.windows(sched, opt)
	r.caps(busy, opt)
	r.queues(sched, opt)
	// The machine's effective size and nodes come last: the rules above
	// count busy processors against the machine the header describes.
	occ := sampleOccupancy(tl, r.Procs, opt.CapSampleSec)
	r.timeSharing(occ, opt)
	r.nonDedicated(busy, opt)
	r.sizeWindows(sched, opt)
	r.effectiveSize(occ, opt)
	r.nodeSize(busy, opt)
	r.sharedDay(jobs, opt)
	// Throttled users and held jobs count idle processors against the
	// machine as inferred; held jobs are those no inferred rule explains.
	r.throttled(busy, tl, opt)
	r.held(sched, tl, opt)
	r.latency(sched, tl, opt)
	return r, nil
}

// machineSize sets the machine size: the header's, else (or when jobs
// used more) the most processors busy at once.
func (r *Result) machineSize(l *Log, tl *timeline) {
	peak := tl.peak()
	switch {
	case l.Procs > 0 && peak <= l.Procs:
		r.Procs = l.Procs
		r.ProcsEvidence = []string{fmt.Sprintf("the header's machine size; at most %d processors were ever busy at once", peak)}
	case l.Procs > 0:
		r.Procs = l.Procs
		r.ProcsEvidence = []string{fmt.Sprintf("the header's machine size; the recorded jobs held up to %d processors at once (%.1f times the machine):", peak, float64(peak)/float64(l.Procs)),
			"the recorded times overlap more than the machine holds (time sharing, or jobs outside the batch partition), so the inferences below that count busy processors are weaker"}
	default:
		r.Procs = peak
		r.ProcsEvidence = []string{fmt.Sprintf("the header gives no machine size: the most processors busy at once (%d)", peak)}
	}
}

// timeline answers how many processors were busy and how many jobs were
// queued at an instant, from the jobs' recorded times.
type timeline struct {
	starts, ends, submits []workload.Time
	// startProcs[i] is the processors of the jobs of starts[:i], endProcs
	// likewise.
	startProcs, endProcs []int64
	// reqEnds are the ends the jobs asked for (start + requested time, or
	// the end when later or without a requested time), sorted, and
	// reqEndProcs their prefix sums of processors.
	reqEnds     []workload.Time
	reqEndProcs []int64
	first, last workload.Time
}

func newTimeline(jobs []Job) *timeline {
	type tp struct {
		t workload.Time
		p int
	}
	st := make([]tp, len(jobs))
	en := make([]tp, len(jobs))
	re := make([]tp, len(jobs))
	tl := &timeline{submits: make([]workload.Time, len(jobs)), first: jobs[0].Submit}
	for i, j := range jobs {
		st[i], en[i] = tp{j.Start, j.Procs}, tp{j.End, j.Procs}
		re[i] = tp{j.End, j.Procs}
		if j.ReqTime > 0 && j.Start+j.ReqTime > j.End {
			re[i].t = j.Start + j.ReqTime
		}
		tl.submits[i] = j.Submit
		tl.last = max(tl.last, j.End)
	}
	by := func(a, b tp) int { return cmp.Compare(a.t, b.t) }
	slices.SortFunc(st, by)
	slices.SortFunc(en, by)
	slices.SortFunc(re, by)
	slices.Sort(tl.submits)
	tl.starts, tl.ends = make([]workload.Time, len(jobs)), make([]workload.Time, len(jobs))
	tl.startProcs, tl.endProcs = make([]int64, len(jobs)+1), make([]int64, len(jobs)+1)
	tl.reqEnds, tl.reqEndProcs = make([]workload.Time, len(jobs)), make([]int64, len(jobs)+1)
	for i := range st {
		tl.starts[i], tl.ends[i], tl.reqEnds[i] = st[i].t, en[i].t, re[i].t
		tl.startProcs[i+1] = tl.startProcs[i] + int64(st[i].p)
		tl.endProcs[i+1] = tl.endProcs[i] + int64(en[i].p)
		tl.reqEndProcs[i+1] = tl.reqEndProcs[i] + int64(re[i].p)
	}
	return tl
}

// upTo returns how many of the sorted times are ≤ t.
func upTo(ts []workload.Time, t workload.Time) int {
	n, _ := slices.BinarySearchFunc(ts, t+1, cmp.Compare)
	return n
}

// busy returns the processors busy at t (jobs with start ≤ t < end).
func (tl *timeline) busy(t workload.Time) int64 {
	return tl.startProcs[upTo(tl.starts, t)] - tl.endProcs[upTo(tl.ends, t)]
}

// reqBusy returns the processors of the jobs whose requested run spans t
// (start ≤ t < start + requested time): what the scheduler had promised
// away at t.
func (tl *timeline) reqBusy(t workload.Time) int64 {
	return tl.startProcs[upTo(tl.starts, t)] - tl.reqEndProcs[upTo(tl.reqEnds, t)]
}

// queued returns the jobs queued at t (submit ≤ t < start).
func (tl *timeline) queued(t workload.Time) int {
	return upTo(tl.submits, t) - upTo(tl.starts, t)
}

// startsIn counts the jobs that start in [from, to].
func (tl *timeline) startsIn(from, to workload.Time) int {
	return upTo(tl.starts, to) - upTo(tl.starts, from-1)
}

// peak returns the most processors busy at once.
func (tl *timeline) peak() int {
	var best int64
	for _, t := range tl.starts {
		best = max(best, tl.busy(t))
	}
	return int(best)
}

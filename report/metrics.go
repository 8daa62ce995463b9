package report

import (
	"math"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// BoundedSlowdownTauSec is the bound τ of the bounded slowdown, in seconds:
// jobs shorter than τ count as running τ.
const BoundedSlowdownTauSec = 10

// Metrics is a sim.Observer that collects what a run's Summary needs: counts,
// sums, and for each started job its wait and bounded slowdown tagged with
// its class, for the percentiles over all jobs and per class (at most 16
// bytes per job; a wait of 0 or a slowdown of 1 is only counted). It keeps
// nothing else per job. It sorts these values as they come, a run of
// runLen at a time (see column), so that Summary has little left to do.
type Metrics struct {
	jobs, completed, killed, rejected, failed int64
	nodeFailed                                int64 // killed by a node failure
	limitKilled                               int64 // killed for a memory or disk limit (SCore-D)
	preempted                                 int64 // cancelled by preemption (sim.Preempted)
	pending                                   int64 // still queued at the end (sim.Pending)

	ran      int64  // jobs that ran: each has a wait and a slowdown below
	waits    column // keys: the waits, as uint64 (≥ 0: they sort as values)
	bslds    column // keys: the bounded slowdowns' bits (≥ 1: they sort as values)
	cellJobs [numCells]int64
	killedIn [numCells]int64

	waitSum int64
	respSum int64
	bsldSum float64 // Σ bounded slowdown, summed in report order
	procSec int64   // Σ procs · actual run

	firstSubmit, lastEnd workload.Time

	// sortedWaits are the waits sorted by the last Summary, which the next
	// Waits returns (and forgets) while no job was added since.
	sortedWaits []int64

	// journal, when on (Journal), keeps each job's wait, slowdown and
	// cell in the order they came since the last TakeJournal, so that a
	// checkpoint writes only what changed.
	journal   []byte
	journalOn bool

	// tick is the run's ticks a second (SetTick; 0 or 1: seconds).
	tick workload.Time
}

// SetTick tells m the run's times are ticks of 1/tick second: the bound τ
// of the bounded slowdown and the runtime classes' bounds are then that
// many ticks a second. Summary's times stay in ticks; Summary.ScaleTime
// turns them into seconds.
func (m *Metrics) SetTick(tick int64) { m.tick = workload.Time(tick) }

// The floors of the columns: a job that did not wait, a slowdown of 1.
const (
	waitFloor uint64 = 0
	bsldFloor uint64 = 0x3FF0000000000000 // math.Float64bits(1)
)

var _ sim.Observer = (*Metrics)(nil)

// NewMetrics returns an empty Metrics.
func NewMetrics() *Metrics { return &Metrics{} }

// BoundedSlowdown returns max(1, (wait + run) / max(run, τ)) with τ =
// BoundedSlowdownTauSec, for a job that waited wait and ran run seconds.
func BoundedSlowdown(wait, run workload.Time) float64 {
	return max(1, float64(wait+run)/float64(max(run, BoundedSlowdownTauSec)))
}

// Wants implements sim.Observer: the records; a Metrics reads only the head of
// a record's job.
func (m *Metrics) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds, JobHead: true} }

// Observe implements sim.Observer: JobDone with the event's record.
func (m *Metrics) Observe(e *sim.Event) { m.JobDone(e.Record) }

// JobDone records r, the record of an ended or refused job.
func (m *Metrics) JobDone(r *sim.Record) {
	m.jobs++
	switch r.State {
	case sim.Rejected:
		m.rejected++
		return
	case sim.Failed:
		m.failed++
		return
	case sim.Pending:
		m.pending++
		return
	case sim.Killed:
		m.killed++
	case sim.NodeFail:
		m.nodeFailed++
	case sim.LimitKilled:
		m.limitKilled++
	case sim.Preempted:
		m.preempted++
	default:
		m.completed++
	}
	j := r.Job
	wait := r.Start - j.Submit
	run := r.End - r.Start
	if m.ran == 0 || j.Submit < m.firstSubmit {
		m.firstSubmit = j.Submit
	}
	if m.ran == 0 || r.End > m.lastEnd {
		m.lastEnd = r.End
	}
	m.ran++
	bsld := BoundedSlowdown(wait, run)
	classRun := run
	if m.tick > 1 {
		bsld = max(1, float64(wait+run)/float64(max(run, BoundedSlowdownTauSec*m.tick)))
		classRun = run / m.tick
	}
	used := run
	if r.ScoreD {
		// SCore-D (gang, suspensions): the job ran stretched; its slowdown
		// and its share of the machine count the CPU time it received.
		used = r.CPUTime
		bsld = BoundedSlowdown(r.End-j.Submit-used, used)
	}
	cell := uint8(SizeClass(j.Procs)*NumRuntimeClasses + RuntimeClass(classRun))
	if r.State == sim.Killed {
		m.killedIn[cell]++
	}
	m.cellJobs[cell]++
	m.waits.add(uint64(wait), waitFloor, cell)
	m.bslds.add(math.Float64bits(bsld), bsldFloor, cell)
	if m.journalOn {
		m.journal = appendJournal(m.journal, int64(wait), bsld, cell)
	}
	m.waitSum += int64(wait)
	m.respSum += int64(wait + run)
	switch {
	case r.Immediate: // beside the machine: none of its processors
	case r.ScoreD:
		m.procSec += int64(j.Procs) * int64(used)
	default:
		m.procSec += r.ProcSeconds() // Procs · run, or what a growing job held
	}
	m.bsldSum += bsld
}

// Summary is the outcome of one run, as written to summary.json. Times are in
// seconds of simulated time.
//
// Every average is over the jobs that ran (completed or killed); rejected jobs
// count only in Jobs and Rejected. When no job ran, every average, percentile,
// Utilisation, MakespanSec, FirstSubmit and LastEnd is 0 (JSON has no NaN).
//
// Summary is comparable with ==: its class tables are arrays (Cluster, a
// pointer, compares by identity).
type Summary struct {
	// SchedsimVersion is the version of schedsim that made the run
	// (workload.Version): Summary sets it. It describes the build, not the
	// run: comparisons of runs (check, compare, sweeps) ignore it. Omitted
	// when empty, as in a summary.json written before it existed.
	SchedsimVersion string `json:"schedsim_version,omitempty"`
	// Trace names the workload.
	Trace string `json:"trace"`
	// Policy is the policy's name with its settings.
	Policy string `json:"policy"`
	// Procs is the machine size P in processors.
	Procs int `json:"procs"`

	// Jobs counts every job seen, rejected ones included.
	Jobs int64 `json:"jobs"`
	// Started counts the jobs that ran: Completed + Killed + NodeFail +
	// LimitKilled.
	Started int64 `json:"started"`
	// Completed counts the jobs that ran their full run time.
	Completed int64 `json:"completed"`
	// Killed counts the jobs killed at their requested time.
	Killed int64 `json:"killed"`
	// Rejected counts the jobs refused at submission.
	Rejected int64 `json:"rejected"`
	// Failed counts the jobs a submission or activation filter failed
	// (they never ran; omitted when 0).
	Failed int64 `json:"failed,omitempty"`
	// Pending counts the jobs still queued when the run ended, kept
	// waiting by activation filters with nothing left that could change
	// their answer (they never ran; omitted when 0).
	Pending int64 `json:"pending,omitempty"`
	// NodeFail counts the jobs killed by a node failure (they ran until
	// then; omitted when 0).
	NodeFail int64 `json:"node_fail,omitempty"`
	// LimitKilled counts the SCore-D jobs killed because their use on a
	// host exceeded their memory or disk limit (they ran until then;
	// omitted when 0).
	LimitKilled int64 `json:"limit_killed,omitempty"`
	// Preempted counts the jobs cancelled by preemption (Slurm's
	// PreemptMode=CANCEL; they ran until then; omitted when 0).
	Preempted int64 `json:"preempted,omitempty"`
	// Preemption is what preemption by partition priority did (omitted
	// in a run without it).
	Preemption *PreemptionInfo `json:"preemption,omitempty"`

	// Wait describes the waits (start − submit) of the jobs that ran.
	Wait WaitStats `json:"wait"`
	// MeanBoundedSlowdown is the mean of max(1, (wait + run) / max(run, τ))
	// with τ = BoundedSlowdownTauSec and run the actual execution time
	// (end − start). It equals BoundedSlowdown.Mean.
	MeanBoundedSlowdown float64 `json:"mean_bounded_slowdown"`
	// BoundedSlowdown describes the bounded slowdowns of the jobs that ran.
	BoundedSlowdown Dist `json:"bounded_slowdown"`
	// MeanResponse is the mean response time (end − submit), in seconds.
	MeanResponse float64 `json:"mean_response"`
	// Utilisation is Σ procs · run / (P · MakespanSec), a fraction in [0, 1].
	Utilisation float64 `json:"utilisation"`
	// MakespanSec is LastEnd − FirstSubmit.
	MakespanSec int64 `json:"makespan_sec"`
	// FirstSubmit is the earliest submission of a job that ran.
	FirstSubmit workload.Time `json:"first_submit"`
	// LastEnd is the latest end of a job that ran.
	LastEnd workload.Time `json:"last_end"`
	// ThroughputPerHour is Started / MakespanSec, in jobs per hour.
	ThroughputPerHour float64 `json:"throughput_jobs_per_hour"`
	// LossOfCapacityProcSec is the processor-time left idle while jobs waited
	// that the waiting jobs could have used (see TimeSeries.LossProcSec for
	// the exact definition), in processor-seconds. It is 0 when no TimeSeries
	// observed the run.
	LossOfCapacityProcSec int64 `json:"loss_of_capacity_proc_sec"`
	// LossOfCapacity is LossOfCapacityProcSec / (P · MakespanSec), a fraction
	// in [0, 1 − Utilisation].
	LossOfCapacity float64 `json:"loss_of_capacity"`

	// BySize gives the metrics per job size class (SizeClassNames).
	BySize [NumSizeClasses]ClassStats `json:"by_size"`
	// ByRuntime gives the metrics per runtime class (RuntimeClassNames).
	ByRuntime [NumRuntimeClasses]ClassStats `json:"by_runtime"`
	// BySizeRuntime gives the metrics per size class (outer) and runtime class
	// (inner).
	BySizeRuntime [NumSizeClasses][NumRuntimeClasses]ClassStats `json:"by_size_runtime"`

	// Cleaning counts what the trace's cleaning rules did.
	Cleaning workload.CleanStats `json:"cleaning"`
	// Passes is the number of scheduling passes (from sim.Stats).
	Passes int64 `json:"passes"`
	// MaxQueue is the longest the queue got, in jobs (from sim.Stats).
	MaxQueue int `json:"max_queue"`
	// Immediate counts the jobs of immediate queues (from sim.Stats),
	// among Jobs and Started: each started at its submission beside the
	// machine, on none of its processors (not in Utilisation), and
	// ImmediateQueues are those queues (SWF field 15), which verify reads.
	Immediate       int64   `json:"immediate,omitempty"`
	ImmediateQueues []int64 `json:"immediate_queues,omitempty"`
	// SharedQueues are the time-shared queues (SWF field 15,
	// sim.Config.Shared), which verify reads: their jobs started whatever
	// processors were idle, and the others only beside them.
	SharedQueues []int64 `json:"shared_queues,omitempty"`
	// SubmitLatency is the run's submission latency (workload.Latency):
	// how long after its submission each job reached the scheduler.
	SubmitLatency string `json:"submit_latency,omitempty"`
	// PredictedStarts counts the jobs that ran with a start predicted at
	// their submission (WILL_RUN, runs with a node selector only; omitted
	// when 0), and PredictedStartsMet those that started no later than
	// predicted (from sim.Stats). The caller sets them (SetPredictions).
	PredictedStarts    int64 `json:"predicted_starts,omitempty"`
	PredictedStartsMet int64 `json:"predicted_starts_met,omitempty"`
	// PartitionDefaultTimes counts the jobs without a requested time that
	// got their partition's DefaultTime (else MaxTime) as their time limit
	// (sim.Stats.DefaultTimes; omitted when 0). SetPredictions sets it.
	PartitionDefaultTimes int64 `json:"partition_default_times,omitempty"`
	// Cluster describes the cluster of nodes the run placed jobs on (nil,
	// and omitted, for a single pool of processors). The caller sets it
	// (NewClusterInfo). Being a pointer, it compares by identity.
	Cluster *ClusterInfo `json:"cluster,omitempty"`
	// NodeFailures describes the run's node failures and maintenance (nil,
	// and omitted, without node events). The caller sets it
	// (SetNodeFailures). Being a pointer, it compares by identity.
	NodeFailures *NodeFailures `json:"node_failures,omitempty"`
	// Constraints are the run's reservations, start windows and limits
	// (nil, and omitted, without any); the caller sets them. schedsim
	// verify checks the per-job table against them.
	Constraints *sim.Constraints `json:"constraints,omitempty"`
	// ClosedLoop counts what a closed-loop replay (--closed-loop) did to
	// submit times (nil, and omitted, without one); the caller sets it.
	// Being a pointer, it compares by identity.
	ClosedLoop *ClosedLoop `json:"closed_loop,omitempty"`
	// ScoreD describes the limits of a run of SCore-D's queues that
	// `schedsim verify` checks (nil, and omitted, for other runs); the
	// caller sets it. Being a pointer, it compares by identity.
	ScoreD *ScoreDInfo `json:"scored,omitempty"`
	// TimeUnit is the run's time unit when finer than the second (ms,
	// us; omitted for seconds); the caller sets it.
	TimeUnit string `json:"time_unit,omitempty"`
	// Energy is the run's energy with a power model (nil, and omitted,
	// without one); the caller sets it.
	Energy *EnergySummary `json:"energy,omitempty"`
	// Breakdowns break the run down by user, group, queue and partition,
	// list the longest waits with why, and give each partition's loss of
	// capacity (omitted when not gathered); the caller sets them
	// (Breakdown). Being a pointer, it compares by identity.
	Breakdowns *Breakdowns `json:"breakdowns,omitempty"`
	// Warnings are what the run's user should know about the run's input
	// or options (omitted when there are none); the caller sets them.
	Warnings []string `json:"warnings,omitempty"`
}

// ClosedLoop is summary.json's closed_loop: the jobs that name a
// preceding job (SWF field 17); of them, those submitted later than their
// recorded time because that job ended later (or less than the think time
// before), and those whose preceding job was never submitted (not in the
// trace, later in it, or dropped by a cleaning rule), which kept their
// recorded time (sim.Stats.LoopFollowing, LoopDelayed, LoopUnknown); and
// those never submitted because the job they follow never ran, stranded by
// nodes out of service to the end of the run (sim.Stats.LoopNeverSubmitted;
// written only when not 0).
type ClosedLoop struct {
	Following        int64 `json:"following"`
	Delayed          int64 `json:"delayed"`
	UnknownPreceding int64 `json:"unknown_preceding"`
	NeverSubmitted   int64 `json:"never_submitted,omitempty"`
}

// Dist summarises a distribution over jobs. Percentiles are nearest-rank:
// with the n values sorted ascending as v[1] ≤ … ≤ v[n], the p-th percentile
// is v[⌈p·n/100⌉]. So Median is v[⌈n/2⌉] (the lower median when n is even),
// P95 is v[⌈0.95·n⌉] and Max is v[n]. All are 0 when n is 0.
type Dist struct {
	// Mean is the arithmetic mean.
	Mean float64 `json:"mean"`
	// Median is the nearest-rank 50th percentile.
	Median float64 `json:"median"`
	// P90 is the nearest-rank 90th percentile.
	P90 float64 `json:"p90"`
	// P95 is the nearest-rank 95th percentile.
	P95 float64 `json:"p95"`
	// P99 is the nearest-rank 99th percentile.
	P99 float64 `json:"p99"`
	// Max is the largest value.
	Max float64 `json:"max"`
}

// WaitStats summarises waits, in seconds.
type WaitStats = Dist

// ClassStats are the metrics of the jobs of one class that ran.
type ClassStats struct {
	// Size is the size class's name, or empty for a runtime class.
	Size string `json:"size,omitempty"`
	// Runtime is the runtime class's name, or empty for a size class.
	Runtime string `json:"runtime,omitempty"`
	// Jobs counts the class's jobs that ran.
	Jobs int64 `json:"jobs"`
	// Killed counts those killed at their requested time.
	Killed int64 `json:"killed"`
	// Wait describes their waits, in seconds.
	Wait Dist `json:"wait"`
	// BoundedSlowdown describes their bounded slowdowns.
	BoundedSlowdown Dist `json:"bounded_slowdown"`
}

// Waits returns the waits of the jobs that ran, in seconds, sorted ascending,
// in a new slice.
func (m *Metrics) Waits() []int64 {
	if w := m.sortedWaits; w != nil && int64(len(w)) == m.ran {
		m.sortedWaits = nil // sorted by the last Summary: handed over, not copied
		return w
	}
	if m.ran == 0 {
		return nil
	}
	w := make([]int64, m.ran)
	rest := w[m.waits.floors():] // after the waits of 0
	wide := m.waits.sorted(func(keys []uint64) {
		for i, k := range keys {
			rest[i] = int64(k>>tagBits + waitFloor)
		}
		rest = rest[len(keys):]
	})
	for i, k := range wide.keys {
		rest[i] = int64(k)
	}
	return w
}

// Summary returns the run's summary for a run of trace under policy on procs
// processors, with the engine's statistics st and the trace's cleaning counts,
// made by this build of schedsim (SchedsimVersion). It leaves m unchanged;
// calling it again gives the same result. It needs about 8 bytes per job
// that ran, for the sorted waits it keeps for Waits.
func (m *Metrics) Summary(trace, policy string, procs int, st sim.Stats, cleaning workload.CleanStats) Summary {
	s := Summary{
		SchedsimVersion: workload.Version(),
		Trace:           trace,
		Policy:          policy,
		Procs:           procs,
		Jobs:            m.jobs,
		Started:         m.completed + m.killed + m.nodeFailed + m.limitKilled + m.preempted,
		Completed:       m.completed,
		Killed:          m.killed,
		Rejected:        m.rejected,
		Failed:          m.failed,
		Pending:         m.pending,
		NodeFail:        m.nodeFailed,
		LimitKilled:     m.limitKilled,
		Preempted:       m.preempted,
		Cleaning:        cleaning,
		Passes:          st.Passes,
		MaxQueue:        st.MaxQueue,
		Immediate:       st.Immediate,
	}
	for i := range s.BySize {
		s.BySize[i].Size = SizeClassNames[i]
		for k := range s.BySizeRuntime[i] {
			s.BySizeRuntime[i][k].Size = SizeClassNames[i]
			s.BySizeRuntime[i][k].Runtime = RuntimeClassNames[k]
		}
	}
	for k := range s.ByRuntime {
		s.ByRuntime[k].Runtime = RuntimeClassNames[k]
	}
	n := m.ran
	if n == 0 {
		return s
	}
	var all ClassStats
	classes := [numClasses]*ClassStats{&all}
	for i := range s.BySize {
		classes[1+NumSizeClasses*NumRuntimeClasses+i] = &s.BySize[i]
		for k := range s.BySizeRuntime[i] {
			classes[1+i*NumRuntimeClasses+k] = &s.BySizeRuntime[i][k]
		}
	}
	for k := range s.ByRuntime {
		classes[1+NumSizeClasses*NumRuntimeClasses+NumSizeClasses+k] = &s.ByRuntime[k]
	}
	m.classDists(&classes)
	s.Wait = all.Wait
	// The mean over all jobs keeps its report-order sum, as before classes.
	s.Wait.Mean = float64(m.waitSum) / float64(n)
	s.BoundedSlowdown = all.BoundedSlowdown
	s.BoundedSlowdown.Mean = m.bsldSum / float64(n)
	s.MeanBoundedSlowdown = s.BoundedSlowdown.Mean
	s.MeanResponse = float64(m.respSum) / float64(n)
	s.FirstSubmit = m.firstSubmit
	s.LastEnd = m.lastEnd
	s.MakespanSec = int64(m.lastEnd - m.firstSubmit)
	if s.MakespanSec > 0 {
		s.ThroughputPerHour = float64(s.Started) * 3600 / float64(s.MakespanSec)
		if procs > 0 {
			s.Utilisation = float64(m.procSec) / (float64(procs) * float64(s.MakespanSec))
		}
	}
	return s
}

// numClasses counts the classes a summary describes: all jobs, every size ×
// runtime cell, every size class and every runtime class.
const numClasses = 1 + NumSizeClasses*NumRuntimeClasses + NumSizeClasses + NumRuntimeClasses

// classesOf returns the indices in classDists' table of the classes a job
// of this cell belongs to: all jobs (0) first.
func classesOf(cell uint8) [4]int {
	return [4]int{0, 1 + int(cell), 1 + NumSizeClasses*NumRuntimeClasses + int(cell)/NumRuntimeClasses,
		1 + NumSizeClasses*NumRuntimeClasses + NumSizeClasses + int(cell)%NumRuntimeClasses}
}

// cellClasses are classesOf of every cell, as small numbers: they index
// the accumulators of a summary's inner loop.
var cellClasses = func() (t [numCells][4]uint8) {
	for c := range t {
		for i, k := range classesOf(uint8(c)) {
			t[c][i] = uint8(k)
		}
	}
	return t
}()

// classDists fills the job counts, kills and wait and bounded-slowdown
// distributions of every class. It reads every class's percentiles in one
// pass over the waits in ascending order, and another over the slowdowns,
// each tagged with its job's cell: a class's members come in sorted order,
// so its k-th member is its k-th smallest value. The two passes run side
// by side. It keeps the sorted waits for Waits.
func (m *Metrics) classDists(classes *[numClasses]*ClassStats) {
	var count [numClasses]int64
	for cell := range numCells {
		for _, k := range classesOf(uint8(cell)) {
			count[k] += m.cellJobs[cell]
			classes[k].Killed += m.killedIn[cell]
		}
	}
	for k, c := range classes {
		c.Jobs = count[k]
	}
	var bsld [numClasses]Dist
	done := make(chan struct{})
	go func() {
		defer close(done)
		bsld = m.bslds.dists(bsldFloor, true, &count, nil)
	}()
	sorted := make([]int64, m.ran)
	wait := m.waits.dists(waitFloor, false, &count, sorted[m.waits.floors():])
	m.sortedWaits = sorted
	<-done
	for k, c := range classes {
		c.Wait, c.BoundedSlowdown = wait[k], bsld[k]
	}
}

// dists returns every class's Dist of the column's values, where a key is
// a float64's bits if isFloat and an integer otherwise, floor is the
// column's floor and count[k] the number of jobs in class k. The keys not
// at the floor, as int64, go to out in ascending order if it is not nil.
// The values at the floor come first in every class, and adding them one
// by one to a sum starting at 0 gives exactly their count times the floor
// (0 or 1).
func (c *column) dists(floor uint64, isFloat bool, count *[numClasses]int64, out []int64) [numClasses]Dist {
	var acc classAccs
	var atFloor [numClasses]int64
	for cell, n := range c.atFloor {
		for _, k := range classesOf(uint8(cell)) {
			atFloor[k] += n
		}
	}
	fv := keyValue(floor, isFloat)
	for k := range acc {
		acc[k].init(count[k])
		acc[k].addRepeated(fv, atFloor[k])
	}
	wide := c.sorted(func(keys []uint64) {
		for _, k := range keys {
			// classAccs.add, written out: too large to be inlined.
			v := keyValue(k>>tagBits+floor, isFloat)
			cl := &cellClasses[k&tagMask]
			acc[0].add(v)
			acc[cl[1]].add(v)
			acc[cl[2]].add(v)
			acc[cl[3]].add(v)
		}
		if out != nil {
			for i, k := range keys {
				out[i] = int64(k>>tagBits + floor)
			}
			out = out[len(keys):]
		}
	})
	for i, k := range wide.keys {
		acc.add(keyValue(k, isFloat), wide.tags[i])
		if out != nil {
			out[i] = int64(k)
		}
	}
	var d [numClasses]Dist
	for k := range acc {
		d[k] = acc[k].dist()
	}
	return d
}

// keyValue returns the value of a column's key: a float64's bits if
// isFloat, else an integer.
func keyValue(key uint64, isFloat bool) float64 {
	if isFloat {
		return math.Float64frombits(key)
	}
	return float64(key)
}

// classAccs are the accumulators of every class (see classesOf).
type classAccs [numClasses]distAcc

// add adds v, of a job in cell, to the classes the job is in.
func (a *classAccs) add(v float64, cell uint8) {
	cl := &cellClasses[cell]
	a[0].add(v)
	a[cl[1]].add(v)
	a[cl[2]].add(v)
	a[cl[3]].add(v)
}

// distAcc builds a Dist from a class's values given in ascending order.
type distAcc struct {
	n, seen int64
	sum     float64
	// ranks are the 0-based positions of the median, p90, p95, p99 and
	// max (ascending), at the values there.
	ranks [5]int64
	at    [5]float64
	next  int   // the first rank not reached yet
	due   int64 // ranks[next], or -1 once every rank is reached
}

func (a *distAcc) init(n int64) {
	*a = distAcc{n: n, due: -1}
	if n > 0 {
		a.ranks = [5]int64{nearestRank(50, n), nearestRank(90, n), nearestRank(95, n), nearestRank(99, n), n - 1}
		a.due = a.ranks[0]
	} else {
		a.next = len(a.ranks)
	}
}

// add adds the class's next value. It is called for every job of every
// class: the common case is one comparison, an increment and a sum.
func (a *distAcc) add(v float64) {
	if a.seen == a.due {
		a.reach(v)
	}
	a.seen++
	a.sum += v
}

// reach records v at the ranks at the current position (several can share
// one in a small class). It is rare: kept out of line, so that add and
// its callers stay small enough to be inlined.
//
//go:noinline
func (a *distAcc) reach(v float64) {
	for a.next < len(a.ranks) && a.ranks[a.next] == a.seen {
		a.at[a.next] = v
		a.next++
	}
	a.due = -1
	if a.next < len(a.ranks) {
		a.due = a.ranks[a.next]
	}
}

// addRepeated adds v cnt times to a class that has no value yet, with v 0
// or 1, so that the sum is exactly v·cnt as cnt additions would make it.
func (a *distAcc) addRepeated(v float64, cnt int64) {
	if cnt == 0 {
		return
	}
	if a.seen != 0 || (v != 0 && v != 1) {
		panic("report: addRepeated needs a fresh class and a floor of 0 or 1")
	}
	last := cnt - 1
	for a.next < len(a.ranks) && a.ranks[a.next] <= last {
		a.at[a.next] = v
		a.next++
	}
	a.due = -1
	if a.next < len(a.ranks) {
		a.due = a.ranks[a.next]
	}
	a.seen = cnt
	a.sum = v * float64(cnt)
}

func (a *distAcc) dist() Dist {
	if a.n == 0 {
		return Dist{}
	}
	return Dist{Mean: a.sum / float64(a.n), Median: a.at[0], P90: a.at[1], P95: a.at[2], P99: a.at[3], Max: a.at[4]}
}

// nearestRank returns the 0-based index of the p-th percentile (0 < p ≤ 100)
// of n > 0 sorted values: ⌈p·n/100⌉ − 1.
func nearestRank(p, n int64) int64 {
	return max((p*n+99)/100-1, 0)
}

// ScoreDInfo is summary.json's scored: what a SCore-D run's limits were.
type ScoreDInfo struct {
	// MemoryKB and DiskKB are the cluster's memory and disk limits, what
	// one host has (0: none).
	MemoryKB int64 `json:"memory_kb"`
	DiskKB   int64 `json:"disk_kb"`
	// MPL is the Ousterhout matrix's number of rows.
	MPL int `json:"mpl"`
	// Queues are the queues' limits, in priority order (queue 0 first).
	Queues []ScoreDQueueInfo `json:"queues"`
	// Preempt is what a higher queue's blocked job does to lower queues'
	// jobs: suspend, requeue, cancel or off.
	Preempt string `json:"preempt,omitempty"`
	// Holds are the instants queues stopped scheduling (deactivated or
	// disabled by a scheduled state change).
	Holds []ScoreDHold `json:"holds,omitempty"`
	// Clusters and Speeds are, on a cluster of clusters, each cluster's
	// processors (numbered cluster after cluster) and speed.
	Clusters []int     `json:"clusters,omitempty"`
	Speeds   []float64 `json:"speeds,omitempty"`
	// ClusterMemoryKB and ClusterDiskKB are, on a cluster of clusters, each
	// cluster's memory and disk limit (MemoryKB and DiskKB are then the
	// clusters' together).
	ClusterMemoryKB []int64 `json:"cluster_memory_kb,omitempty"`
	ClusterDiskKB   []int64 `json:"cluster_disk_kb,omitempty"`
}

// ScoreDHold is an instant a queue stopped scheduling.
type ScoreDHold struct {
	Queue int           `json:"queue"`
	At    workload.Time `json:"at"`
}

// ScoreDQueueInfo is one queue's memory and disk limits in percent of the
// cluster's (0: none), and its mode.
type ScoreDQueueInfo struct {
	MemoryPercent int `json:"memory_percent"`
	DiskPercent   int `json:"disk_percent"`
	// Mode is the queue's mode, gang or exclusive.
	Mode string `json:"mode,omitempty"`
}

// ScaleTime turns the times of a summary of a run in ticks of 1/tick
// second (Metrics.SetTick) into seconds: the waits, the response time,
// the makespan, the first submission and last end (rounded to whole
// seconds), the throughput, the loss of capacity and the processor-time
// lost to node failures and out of service (rounded to whole
// processor-seconds). The breakdowns,
// whose tables are in whole seconds, are left out.
func (s *Summary) ScaleTime(tick int64) {
	if tick <= 1 {
		return
	}
	f := float64(tick)
	scale := func(d *Dist) {
		d.Mean, d.Median, d.P90, d.P95, d.P99, d.Max = d.Mean/f, d.Median/f, d.P90/f, d.P95/f, d.P99/f, d.Max/f
	}
	round := func(t int64) int64 { return (t + tick/2) / tick }
	scale(&s.Wait)
	s.MeanResponse /= f
	s.MakespanSec = round(s.MakespanSec)
	s.FirstSubmit = workload.Time(round(int64(s.FirstSubmit)))
	s.LastEnd = workload.Time(round(int64(s.LastEnd)))
	s.ThroughputPerHour *= f
	s.LossOfCapacityProcSec = round(s.LossOfCapacityProcSec)
	if n := s.NodeFailures; n != nil { // its events are in seconds already
		n.LostProcSec = round(n.LostProcSec)
		n.UnavailableProcSec = round(n.UnavailableProcSec)
	}
	for i := range s.BySize {
		scale(&s.BySize[i].Wait)
	}
	for i := range s.ByRuntime {
		scale(&s.ByRuntime[i].Wait)
	}
	for i := range s.BySizeRuntime {
		for k := range s.BySizeRuntime[i] {
			scale(&s.BySizeRuntime[i][k].Wait)
		}
	}
	s.Breakdowns = nil
}

// PreemptionInfo is summary.json's preemption: the mode of a run with
// Slurm's preemption by partition priority (sim.Preemption), and how
// often jobs were preempted, requeued and cancelled.
type PreemptionInfo struct {
	// Mode is suspend, requeue or cancel.
	Mode string `json:"mode"`
	// YoungestFirst is preempt_youngest_first.
	YoungestFirst bool `json:"youngest_first,omitempty"`
	// Preemptions counts every preemption, Requeued and Cancelled those
	// that requeued or cancelled a job (the rest suspended one).
	Preemptions int64 `json:"preemptions"`
	Requeued    int64 `json:"requeued"`
	Cancelled   int64 `json:"cancelled"`
}

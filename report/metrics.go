package report

import (
	"slices"

	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// BoundedSlowdownTauSec is the bound τ of the bounded slowdown, in seconds:
// jobs shorter than τ count as running τ.
const BoundedSlowdownTauSec = 10

// Metrics is a sim.Observer that collects what a run's Summary needs: counts,
// sums, and each started job's wait (8 bytes per job, for the wait
// percentiles). It keeps nothing else per job.
type Metrics struct {
	jobs, completed, killed, rejected int64

	waits   []int64 // wait of every job that ran, in report order
	waitSum int64
	respSum int64
	bsldSum float64 // Σ bounded slowdown, summed in report order
	procSec int64   // Σ procs · actual run

	firstSubmit, lastEnd workload.Time
}

var _ sim.Observer = (*Metrics)(nil)

// NewMetrics returns an empty Metrics.
func NewMetrics() *Metrics { return &Metrics{} }

// JobDone records r.
func (m *Metrics) JobDone(r *sim.Record) {
	m.jobs++
	switch r.State {
	case sim.Rejected:
		m.rejected++
		return
	case sim.Killed:
		m.killed++
	default:
		m.completed++
	}
	j := r.Job
	wait := int64(r.Start - j.Submit)
	run := int64(r.End - r.Start)
	resp := wait + run
	if len(m.waits) == 0 || j.Submit < m.firstSubmit {
		m.firstSubmit = j.Submit
	}
	if len(m.waits) == 0 || r.End > m.lastEnd {
		m.lastEnd = r.End
	}
	m.waits = append(m.waits, wait)
	m.waitSum += wait
	m.respSum += resp
	m.procSec += int64(j.Procs) * run
	bsld := float64(resp) / float64(max(run, BoundedSlowdownTauSec))
	m.bsldSum += max(1, bsld)
}

// Summary is the outcome of one run, as written to summary.json. Times are in
// seconds of simulated time.
//
// Every average is over the jobs that ran (completed or killed); rejected jobs
// count only in Jobs and Rejected. When no job ran, every average, percentile,
// Utilisation, MakespanSec, FirstSubmit and LastEnd is 0 (JSON has no NaN).
type Summary struct {
	// Trace names the workload.
	Trace string `json:"trace"`
	// Policy is the policy's name with its settings.
	Policy string `json:"policy"`
	// Procs is the machine size P in processors.
	Procs int `json:"procs"`

	// Jobs counts every job seen, rejected ones included.
	Jobs int64 `json:"jobs"`
	// Started counts the jobs that ran: Completed + Killed.
	Started int64 `json:"started"`
	// Completed counts the jobs that ran their full run time.
	Completed int64 `json:"completed"`
	// Killed counts the jobs killed at their requested time.
	Killed int64 `json:"killed"`
	// Rejected counts the jobs refused at submission.
	Rejected int64 `json:"rejected"`

	// Wait describes the waits (start − submit) of the jobs that ran.
	Wait WaitStats `json:"wait"`
	// MeanBoundedSlowdown is the mean of max(1, (wait + run) / max(run, τ))
	// with τ = BoundedSlowdownTauSec and run the actual execution time
	// (end − start).
	MeanBoundedSlowdown float64 `json:"mean_bounded_slowdown"`
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

	// Cleaning counts what the trace's cleaning rules did.
	Cleaning workload.CleanStats `json:"cleaning"`
	// Passes is the number of scheduling passes (from sim.Stats).
	Passes int64 `json:"passes"`
	// MaxQueue is the longest the queue got, in jobs (from sim.Stats).
	MaxQueue int `json:"max_queue"`
}

// WaitStats summarises waits, in seconds. Percentiles are nearest-rank: with
// the n waits sorted ascending as w[1] ≤ … ≤ w[n], the p-th percentile is
// w[⌈p·n/100⌉]. So Median is w[⌈n/2⌉] (the lower median when n is even), P95
// is w[⌈0.95·n⌉] and Max is w[n]. All are 0 when n is 0.
type WaitStats struct {
	// Mean is the arithmetic mean wait.
	Mean float64 `json:"mean"`
	// Median is the nearest-rank 50th percentile.
	Median float64 `json:"median"`
	// P95 is the nearest-rank 95th percentile.
	P95 float64 `json:"p95"`
	// Max is the longest wait.
	Max float64 `json:"max"`
}

// Summary returns the run's summary for a run of trace under policy on procs
// processors, with the engine's statistics st and the trace's cleaning counts.
// It sorts the recorded waits in place; calling it again gives the same result.
func (m *Metrics) Summary(trace, policy string, procs int, st sim.Stats, cleaning workload.CleanStats) Summary {
	s := Summary{
		Trace:     trace,
		Policy:    policy,
		Procs:     procs,
		Jobs:      m.jobs,
		Started:   m.completed + m.killed,
		Completed: m.completed,
		Killed:    m.killed,
		Rejected:  m.rejected,
		Cleaning:  cleaning,
		Passes:    st.Passes,
		MaxQueue:  st.MaxQueue,
	}
	n := int64(len(m.waits))
	if n == 0 {
		return s
	}
	slices.Sort(m.waits)
	s.Wait = WaitStats{
		Mean:   float64(m.waitSum) / float64(n),
		Median: float64(m.waits[nearestRank(50, n)]),
		P95:    float64(m.waits[nearestRank(95, n)]),
		Max:    float64(m.waits[n-1]),
	}
	s.MeanBoundedSlowdown = m.bsldSum / float64(n)
	s.MeanResponse = float64(m.respSum) / float64(n)
	s.FirstSubmit = m.firstSubmit
	s.LastEnd = m.lastEnd
	s.MakespanSec = int64(m.lastEnd - m.firstSubmit)
	if s.MakespanSec > 0 && procs > 0 {
		s.Utilisation = float64(m.procSec) / (float64(procs) * float64(s.MakespanSec))
	}
	return s
}

// nearestRank returns the 0-based index of the p-th percentile (0 < p ≤ 100)
// of n > 0 sorted values: ⌈p·n/100⌉ − 1.
func nearestRank(p, n int64) int64 {
	return max((p*n+99)/100-1, 0)
}

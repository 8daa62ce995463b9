package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/schedsim/schedsim/workload"
)

// FidelityJob is one job whose wait both the real machine (the log's
// recorded wait, SWF field 3) and the simulation give.
type FidelityJob struct {
	// ID is the job number, the key that joins the two sides.
	ID int64
	// Submit is the job's submission, in trace time.
	Submit workload.Time
	// Procs is the number of processors the job ran on.
	Procs int
	// ReqTime is the job's requested time in seconds, workload.Unknown
	// when it has none.
	ReqTime workload.Time
	// Queue and User are the log's queue number (SWF field 15) and user id
	// (field 12), -1 when unknown.
	Queue, User int
	// RunSec is the execution time both sides' bounded slowdowns divide by:
	// the simulated run (end − start), so that the two slowdowns differ
	// only by their waits.
	RunSec workload.Time
	// Recorded and Simulated are the two waits, in seconds.
	Recorded, Simulated workload.Time
	// Held says the scenario held the job until a release time (a holds
	// file): such jobs get the class "held" of the dimension "hold", the
	// others "not held", when any job is held.
	Held bool
}

// Tolerance says when a simulated wait counts as close to the recorded
// one: |simulated − recorded| ≤ max(AbsSec, Rel × recorded).
type Tolerance struct {
	// AbsSec is the absolute slack in seconds.
	AbsSec workload.Time `json:"abs_sec"`
	// Rel is the relative slack, a fraction of the recorded wait.
	Rel float64 `json:"rel"`
}

// DefaultTolerance is max(10 min, 50 %).
var DefaultTolerance = Tolerance{AbsSec: 600, Rel: 0.5}

// Within reports whether the simulated wait sim is within the tolerance
// of the recorded wait rec.
func (t Tolerance) Within(rec, sim workload.Time) bool {
	d := sim - rec
	if d < 0 {
		d = -d
	}
	return float64(d) <= math.Max(float64(t.AbsSec), t.Rel*float64(rec))
}

// FidelityStats compares the recorded and simulated waits of a set of
// jobs.
type FidelityStats struct {
	// Jobs counts the jobs compared.
	Jobs int `json:"jobs"`
	// RecordedMeanWait and SimulatedMeanWait are the mean waits, s.
	RecordedMeanWait  float64 `json:"recorded_mean_wait"`
	SimulatedMeanWait float64 `json:"simulated_mean_wait"`
	// MeanWaitRatio is SimulatedMeanWait / RecordedMeanWait (null when the
	// recorded mean is 0).
	MeanWaitRatio *float64 `json:"mean_wait_ratio"`
	// RecordedMedianWait and SimulatedMedianWait are the median waits, s
	// (the mean of the two middle values for an even count).
	RecordedMedianWait  float64 `json:"recorded_median_wait"`
	SimulatedMedianWait float64 `json:"simulated_median_wait"`
	// RecordedMeanBoundedSlowdown and SimulatedMeanBoundedSlowdown are the
	// means of max(1, (wait + run) / max(run, BoundedSlowdownTauSec)).
	RecordedMeanBoundedSlowdown  float64 `json:"recorded_mean_bounded_slowdown"`
	SimulatedMeanBoundedSlowdown float64 `json:"simulated_mean_bounded_slowdown"`
	// Spearman is the Spearman rank correlation of the per-job waits, ties
	// given their average rank; null when it is undefined (fewer than two
	// jobs, or one side's waits all equal).
	Spearman *float64 `json:"spearman"`
	// WithinTolerance is the fraction of the jobs whose simulated wait is
	// within the tolerance of the recorded one.
	WithinTolerance float64 `json:"within_tolerance"`
}

// FidelityClass is the comparison over one class of jobs.
type FidelityClass struct {
	// By is the dimension: "size", "requested_time", "queue", "user",
	// "month" or, when the scenario held jobs, "hold".
	By string `json:"by"`
	// Class names the class within it (e.g. "5-16", "1996-07", "other").
	Class string `json:"class"`
	FidelityStats
}

// FidelityWeek is the mean recorded and simulated wait of the jobs
// submitted in one week.
type FidelityWeek struct {
	// From is the week's first instant in trace time (Monday 00:00 on the
	// calendar, else a multiple of seven days from time 0).
	From workload.Time `json:"from"`
	// Jobs counts the jobs submitted that week.
	Jobs int `json:"jobs"`
	// RecordedMeanWait and SimulatedMeanWait are their mean waits, s.
	RecordedMeanWait  float64 `json:"recorded_mean_wait"`
	SimulatedMeanWait float64 `json:"simulated_mean_wait"`
}

// Fidelity is the comparison of a simulation with the log it replays.
type Fidelity struct {
	// Trace names the log with the recorded waits; Policy the simulated
	// policy.
	Trace  string `json:"trace"`
	Policy string `json:"policy"`
	// Tolerance is the tolerance of WithinTolerance.
	Tolerance Tolerance `json:"tolerance"`
	// LogJobs counts the jobs of the log (after the cleaning rules).
	LogJobs int `json:"log_jobs"`
	// UnknownWait counts the jobs skipped because the log gives no wait.
	UnknownWait int `json:"skipped_unknown_wait"`
	// NotSimulated counts the jobs skipped because the simulation has no
	// record of them; NotRun those it did not run (rejected, failed or
	// still pending at the end).
	NotSimulated int `json:"skipped_not_simulated"`
	NotRun       int `json:"skipped_not_run"`
	// Zone is the zone of the months and weeks ("" without a calendar:
	// they count from trace time 0).
	Zone string `json:"zone,omitempty"`
	// Overall compares every job compared.
	Overall FidelityStats `json:"overall"`
	// Classes compare the classes of jobs, dimension by dimension in the
	// order of FidelityDimensions, classes in their natural order.
	Classes []FidelityClass `json:"classes"`
	// Weeks are the weekly means, in time order.
	Weeks []FidelityWeek `json:"weeks"`

	// jobs are the jobs compared, for the plots.
	jobs []FidelityJob
	cal  *Calendar
}

// FidelityDimensions are the class dimensions of a Fidelity, in order.
var FidelityDimensions = []string{"size", "requested_time", "queue", "user", "month", "hold"}

// FidelityTopUsers is how many users (those with the most jobs) get a
// class of their own; the others share the class "other".
const FidelityTopUsers = 10

// NewFidelity compares the jobs (each with both waits; their order does
// not matter) under the tolerance. With a calendar, months and weeks are
// on its wall clock; without, months are 30-day periods and weeks 7-day
// periods from trace time 0. The skip counts are the caller's to fill.
func NewFidelity(jobs []FidelityJob, cal *Calendar, tol Tolerance) *Fidelity {
	js := slices.Clone(jobs)
	slices.SortFunc(js, func(a, b FidelityJob) int {
		if c := cmp.Compare(a.Submit, b.Submit); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	f := &Fidelity{Tolerance: tol, jobs: js, cal: cal}
	if cal != nil {
		// The calendar's zone name, as its axis labels give it.
		f.Zone = cal.Loc.String()
		if f.Zone == "" || f.Zone == "Local" {
			f.Zone = "UTC"
		}
	}
	f.Overall = fidelityStats(js, tol)
	f.Classes = fidelityClasses(js, cal, tol)
	f.Weeks = fidelityWeeks(js, cal)
	return f
}

// fidelityStats compares the jobs js.
func fidelityStats(js []FidelityJob, tol Tolerance) FidelityStats {
	s := FidelityStats{Jobs: len(js)}
	if len(js) == 0 {
		return s
	}
	rec := make([]float64, len(js))
	sim := make([]float64, len(js))
	var within int
	for i, j := range js {
		rec[i], sim[i] = float64(j.Recorded), float64(j.Simulated)
		s.RecordedMeanWait += rec[i]
		s.SimulatedMeanWait += sim[i]
		s.RecordedMeanBoundedSlowdown += boundedSlowdown(j.Recorded, j.RunSec)
		s.SimulatedMeanBoundedSlowdown += boundedSlowdown(j.Simulated, j.RunSec)
		if tol.Within(j.Recorded, j.Simulated) {
			within++
		}
	}
	n := float64(len(js))
	s.RecordedMeanWait /= n
	s.SimulatedMeanWait /= n
	s.RecordedMeanBoundedSlowdown /= n
	s.SimulatedMeanBoundedSlowdown /= n
	s.WithinTolerance = float64(within) / n
	if s.RecordedMeanWait > 0 {
		r := s.SimulatedMeanWait / s.RecordedMeanWait
		s.MeanWaitRatio = &r
	}
	if rho, ok := Spearman(rec, sim); ok {
		s.Spearman = &rho
	}
	s.RecordedMedianWait = median(rec)
	s.SimulatedMedianWait = median(sim)
	return s
}

// boundedSlowdown is max(1, (wait + run) / max(run, τ)).
func boundedSlowdown(wait, run workload.Time) float64 {
	return math.Max(1, float64(wait+run)/float64(max(run, BoundedSlowdownTauSec)))
}

// median returns the median of x, which it sorts.
func median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// Spearman returns the Spearman rank correlation of x and y (equal
// lengths): the Pearson correlation of their ranks, tied values given the
// average of the ranks they span. ok is false when it is undefined: fewer
// than two pairs, or all of x (or of y) equal. It panics if the lengths
// differ.
func Spearman(x, y []float64) (rho float64, ok bool) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("report: Spearman of %d and %d values", len(x), len(y)))
	}
	if len(x) < 2 {
		return 0, false
	}
	rx, ry := Ranks(x), Ranks(y)
	// Both rank vectors have mean (n+1)/2.
	m := float64(len(x)+1) / 2
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-m, ry[i]-m
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	rho = sxy / math.Sqrt(sxx*syy)
	return math.Max(-1, math.Min(1, rho)), true
}

// Ranks returns the ranks (1 to n) of the values of x, tied values given
// the average of the ranks they span.
func Ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		k := i
		for k < len(idx) && x[idx[k]] == x[idx[i]] {
			k++
		}
		// Positions i..k-1 hold ranks i+1..k: their average.
		avg := float64(i+1+k) / 2
		for _, j := range idx[i:k] {
			r[j] = avg
		}
		i = k
	}
	return r
}

// ReqTimeClassNames are the requested-time classes of a fidelity
// comparison: RuntimeClassNames' bounds applied to the requested time, and
// "none" for jobs without one.
var ReqTimeClassNames = [NumRuntimeClasses + 1]string{"<10m", "10m-1h", "1h-10h", ">=10h", "none"}

// fidelityClasses returns the classes of every dimension.
func fidelityClasses(js []FidelityJob, cal *Calendar, tol Tolerance) []FidelityClass {
	var out []FidelityClass
	group := func(by string, names []string, key func(j *FidelityJob) int) {
		buckets := make([][]FidelityJob, len(names))
		for i := range js {
			k := key(&js[i])
			buckets[k] = append(buckets[k], js[i])
		}
		for k, b := range buckets {
			if len(b) > 0 {
				out = append(out, FidelityClass{By: by, Class: names[k], FidelityStats: fidelityStats(b, tol)})
			}
		}
	}
	group("size", SizeClassNames[:], func(j *FidelityJob) int { return SizeClass(j.Procs) })
	group("requested_time", ReqTimeClassNames[:], func(j *FidelityJob) int {
		if j.ReqTime < 0 {
			return NumRuntimeClasses
		}
		return RuntimeClass(j.ReqTime)
	})

	// Queues: each queue number, ascending.
	queues := map[int]int{}
	for _, j := range js {
		queues[j.Queue] = 0
	}
	qs := sortedKeys(queues)
	qnames := make([]string, len(qs))
	for i, q := range qs {
		queues[q] = i
		qnames[i] = strconv.Itoa(q)
		if q < 0 {
			qnames[i] = "unknown"
		}
	}
	group("queue", qnames, func(j *FidelityJob) int { return queues[j.Queue] })

	// Users: the FidelityTopUsers with the most jobs (ties: the lower
	// id), most jobs first, then "other".
	count := map[int]int{}
	for _, j := range js {
		count[j.User]++
	}
	us := sortedKeys(count)
	slices.SortStableFunc(us, func(a, b int) int { return cmp.Compare(count[b], count[a]) })
	top := map[int]int{}
	var unames []string
	for i, u := range us {
		if i == FidelityTopUsers {
			break
		}
		top[u] = i
		unames = append(unames, "user "+strconv.Itoa(u))
	}
	other := len(unames)
	unames = append(unames, "other")
	group("user", unames, func(j *FidelityJob) int {
		if k, ok := top[j.User]; ok {
			return k
		}
		return other
	})

	// Months, in time order.
	month := func(t workload.Time) (string, int64) {
		if cal != nil {
			w := cal.At(t)
			return w.Format("2006-01"), int64(w.Year())*12 + int64(w.Month())
		}
		k := int64(t / (30 * 86400))
		return fmt.Sprintf("days %d-%d", 30*k, 30*k+29), k
	}
	keys := map[int64]int{}
	names := map[int64]string{}
	for _, j := range js {
		n, k := month(j.Submit)
		keys[k], names[k] = 0, n
	}
	ks := sortedKeys(keys)
	mnames := make([]string, len(ks))
	for i, k := range ks {
		keys[k] = i
		mnames[i] = names[k]
	}
	group("month", mnames, func(j *FidelityJob) int {
		_, k := month(j.Submit)
		return keys[k]
	})

	// Held jobs apart from the others, when there are any: on the held
	// ones the simulation was told their recorded start.
	if slices.ContainsFunc(js, func(j FidelityJob) bool { return j.Held }) {
		group("hold", []string{"not held", "held"}, func(j *FidelityJob) int {
			if j.Held {
				return 1
			}
			return 0
		})
	}
	return out
}

// sortedKeys returns m's keys, ascending.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	ks := make([]K, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// weekStart returns the first instant, in trace time, of the week holding
// t: Monday 00:00 on the calendar, else the multiple of 7 days at or
// before t.
func weekStart(t workload.Time, cal *Calendar) workload.Time {
	if cal == nil {
		w := workload.Time(7 * 86400)
		if t < 0 {
			return -((-t + w - 1) / w) * w
		}
		return t / w * w
	}
	w := cal.At(t)
	d := dayStart(w).AddDate(0, 0, -((int(w.Weekday()) + 6) % 7))
	return workload.Time(d.Unix() - cal.Epoch)
}

// fidelityWeeks returns the weekly means of the jobs js, sorted by
// submission.
func fidelityWeeks(js []FidelityJob, cal *Calendar) []FidelityWeek {
	var out []FidelityWeek
	for _, j := range js {
		from := weekStart(j.Submit, cal)
		if n := len(out); n == 0 || out[n-1].From != from {
			out = append(out, FidelityWeek{From: from})
		}
		w := &out[len(out)-1]
		w.Jobs++
		w.RecordedMeanWait += float64(j.Recorded)
		w.SimulatedMeanWait += float64(j.Simulated)
	}
	for i := range out {
		out[i].RecordedMeanWait /= float64(out[i].Jobs)
		out[i].SimulatedMeanWait /= float64(out[i].Jobs)
	}
	return out
}

// WriteFidelityJSON writes the comparison as indented JSON (fidelity.json).
func WriteFidelityJSON(w io.Writer, f *Fidelity) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteFidelityTable writes the comparison as a table for people: the
// counts, then a row for all jobs and one per class, each with the
// recorded and simulated mean and median waits, mean bounded slowdowns,
// the Spearman correlation and the fraction within tolerance.
func WriteFidelityTable(w io.Writer, f *Fidelity) error {
	fmt.Fprintf(w, "trace:     %s\npolicy:    %s\n", f.Trace, f.Policy)
	fmt.Fprintf(w, "compared:  %d of the log's %d jobs (skipped: %d without a recorded wait, %d not simulated, %d not run by the simulation)\n",
		f.Overall.Jobs, f.LogJobs, f.UnknownWait, f.NotSimulated, f.NotRun)
	fmt.Fprintf(w, "tolerance: |simulated - recorded| <= max(%s, %.0f %% of recorded)\n", durationText(float64(f.Tolerance.AbsSec)), 100*f.Tolerance.Rel)
	if f.Zone != "" {
		fmt.Fprintf(w, "months in: %s\n", f.Zone)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "class\tjobs\tmean wait rec\tsim\tsim/rec\tmedian rec\tsim\tbsld rec\tsim\tspearman\twithin tol\t")
	row := func(name string, s *FidelityStats) {
		ratio, rho := "-", "-"
		if s.MeanWaitRatio != nil {
			ratio = fmt.Sprintf("%.2f", *s.MeanWaitRatio)
		}
		if s.Spearman != nil {
			rho = fmt.Sprintf("%.3f", *s.Spearman)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t%.1f %%\t\n", name, s.Jobs,
			durationText(s.RecordedMeanWait), durationText(s.SimulatedMeanWait), ratio,
			durationText(s.RecordedMedianWait), durationText(s.SimulatedMedianWait),
			s.RecordedMeanBoundedSlowdown, s.SimulatedMeanBoundedSlowdown, rho, 100*s.WithinTolerance)
	}
	row("all", &f.Overall)
	for i := range f.Classes {
		c := &f.Classes[i]
		row(c.By+" "+c.Class, &c.FidelityStats)
	}
	return tw.Flush()
}

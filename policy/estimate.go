package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// Estimator predicts how long jobs run, for planning, separately from the
// time at which a job is killed (its requested time). The engine
// (sim.Config.Estimator) asks it for a prediction when a job is submitted,
// shows the policies that prediction as the job's Estimate, and asks again
// when a running job reaches its predicted end without ending. A job is
// still killed only at its requested time, never at a prediction.
//
// Jobs without a requested time are not predicted: they stay without an
// estimate (give them one with the cleaning rule --missing-estimate).
//
// Without an Estimator (nil) the requested time is the estimate, as in
// EASY's original form. An Estimator keeps per-run state: use a new one for
// every run.
type Estimator interface {
	// Name identifies the estimator and its settings, e.g. "predict(correct=gradual)".
	Name() string
	// Predict returns the run time to plan job j with, at its submission.
	// j.Estimate is its requested time (> 0). The engine clamps the result
	// to [1, requested time].
	Predict(j *workload.Job) workload.Time
	// Correct returns a new prediction for job j, which has run for its
	// whole prediction pred without ending (j.Estimate is its requested
	// time, more than pred). The engine clamps the result to
	// [pred+1, requested time].
	Correct(j *workload.Job, pred workload.Time) workload.Time
	// Done records that job j ended after running for run seconds
	// (j.Estimate is its requested time). Jobs end in time order.
	Done(j *workload.Job, run workload.Time)
}

// Correction is what an estimator does when a job outlives its prediction.
type Correction string

// Values of Correction.
const (
	// CorrectGradual adds 1 minute to the first prediction, then 5, 15 and
	// 30 minutes, 1, 2, 5, 10, 20, 50 and 100 hours (each time replacing
	// the previous addition), then gives the requested time: the correction
	// of Tsafrir, Etsion and Feitelson (TPDS 2007), as in pyss.
	CorrectGradual Correction = "gradual"
	// CorrectRequested raises the prediction to the requested time.
	CorrectRequested Correction = "requested"
	// CorrectDouble doubles the prediction.
	CorrectDouble Correction = "double"
)

// gradualSteps are the additions of CorrectGradual, in seconds.
var gradualSteps = [...]workload.Time{60, 5 * 60, 15 * 60, 30 * 60, 3600, 2 * 3600, 5 * 3600, 10 * 3600, 20 * 3600, 50 * 3600, 100 * 3600}

// correct applies c to a prediction pred of job j whose first prediction
// was first and that was corrected n times before.
// gradualSteps are in seconds; tick is the run's ticks a second.
func (c Correction) correct(j *workload.Job, first, pred workload.Time, n int, tick workload.Time) workload.Time {
	switch c {
	case CorrectRequested:
		return j.Estimate
	case CorrectDouble:
		return 2 * pred
	}
	if n < len(gradualSteps) {
		return first + gradualSteps[n]*tick
	}
	return j.Estimate
}

func parseCorrection(s string) (Correction, error) {
	switch c := Correction(strings.ToLower(s)); c {
	case CorrectGradual, CorrectRequested, CorrectDouble:
		return c, nil
	}
	return "", fmt.Errorf("policy: correction %q: want gradual, requested or double", s)
}

// Perfect predicts every job's run time exactly (its run time, cut at its
// requested time): the "perfect estimates" of the backfilling literature,
// with the kill limit unchanged.
type Perfect struct{}

// Name implements Estimator.
func (Perfect) Name() string { return "perfect" }

// Predict implements Estimator.
func (Perfect) Predict(j *workload.Job) workload.Time { return min(j.Run, j.Estimate) }

// Correct implements Estimator; a perfect prediction is never outlived.
func (Perfect) Correct(j *workload.Job, _ workload.Time) workload.Time { return j.Estimate }

// Done implements Estimator.
func (Perfect) Done(*workload.Job, workload.Time) {}

// Factor predicts F times the run time (rounded up, cut at the requested
// time): F > 1 models uniformly loose estimates (Mu'alem and Feitelson's
// f-model uses a random factor per job), F < 1 optimistic ones, which are
// corrected by Correction when a job outlives them.
type Factor struct {
	F          float64
	Correction Correction
	// Tick is the run's ticks a second (0 or 1: seconds): the shortest
	// prediction is a second, and CorrectGradual's steps are seconds.
	Tick workload.Time

	corr corrections
}

// Name implements Estimator.
func (f *Factor) Name() string {
	return "factor(" + strconv.FormatFloat(f.F, 'g', -1, 64) + ",correct=" + string(f.Correction) + ")"
}

// Predict implements Estimator.
func (f *Factor) Predict(j *workload.Job) workload.Time {
	p := math.Ceil(f.F * float64(j.Run))
	if p >= float64(j.Estimate) {
		return j.Estimate
	}
	return max(workload.Time(p), oneSecond(f.Tick))
}

// oneSecond returns a second in ticks of 1/tick second (0: seconds).
func oneSecond(tick workload.Time) workload.Time { return max(tick, 1) }

// Correct implements Estimator.
func (f *Factor) Correct(j *workload.Job, pred workload.Time) workload.Time {
	return f.corr.correct(f.Correction, j, pred, oneSecond(f.Tick))
}

// Done implements Estimator.
func (f *Factor) Done(j *workload.Job, _ workload.Time) { f.corr.done(j) }

// Predict is the prediction of EASY++ (Tsafrir, Etsion and Feitelson,
// "Backfilling using system-generated predictions rather than user runtime
// estimates", IEEE TPDS 18(6), 2007): a job is predicted to run as long as
// the average of its user's last two completed jobs (by end time, their
// actual run times), at most its requested time; a user with fewer than two
// completed jobs gets the requested time. A job that outlives its
// prediction is corrected by Correction (CorrectGradual in the paper). Jobs
// of an unknown user (SWF user -1) share one history.
type Predict struct {
	Correction Correction
	// Tick is the run's ticks a second (0 or 1: seconds): a run of less
	// than a second counts as one, and CorrectGradual's steps are
	// seconds.
	Tick workload.Time

	hist map[int]*[2]workload.Time // user → last two run times, latest first (0: none)
	corr corrections
}

// Name implements Estimator.
func (p *Predict) Name() string { return "predict(correct=" + string(p.Correction) + ")" }

// Predict implements Estimator.
func (p *Predict) Predict(j *workload.Job) workload.Time {
	h := p.hist[j.User]
	if h == nil || h[1] == 0 {
		return j.Estimate
	}
	return min((h[0]+h[1])/2, j.Estimate)
}

// Correct implements Estimator.
func (p *Predict) Correct(j *workload.Job, pred workload.Time) workload.Time {
	return p.corr.correct(p.Correction, j, pred, oneSecond(p.Tick))
}

// Done implements Estimator.
func (p *Predict) Done(j *workload.Job, run workload.Time) {
	p.corr.done(j)
	if p.hist == nil {
		p.hist = map[int]*[2]workload.Time{}
	}
	h := p.hist[j.User]
	if h == nil {
		h = new([2]workload.Time)
		p.hist[j.User] = h
	}
	h[1], h[0] = h[0], max(run, oneSecond(p.Tick))
}

// corrections remembers, per running job that was corrected, its first
// prediction and how many corrections it had.
type corrections struct {
	m map[int64]correctionState // job Seq →
}

type correctionState struct {
	first workload.Time
	n     int
}

// correct returns the next prediction of job j, now at pred (at the first
// correction, pred is the job's first prediction).
func (c *corrections) correct(how Correction, j *workload.Job, pred, tick workload.Time) workload.Time {
	if c.m == nil {
		c.m = map[int64]correctionState{}
	}
	st, ok := c.m[j.Seq]
	if !ok {
		st.first = pred
	}
	next := how.correct(j, st.first, pred, st.n, tick)
	st.n++
	c.m[j.Seq] = st
	return next
}

// done forgets job j.
func (c *corrections) done(j *workload.Job) {
	if c.m != nil {
		delete(c.m, j.Seq)
	}
}

// Estimate kinds, as the --estimates flag takes them.
const (
	EstimatesUser    = "user"
	EstimatesPerfect = "perfect"
	EstimatesFactor  = "factor"
	EstimatesPredict = "predict"
)

// ParseEstimator parses an estimator: "user" (nil: the requested time),
// "perfect", "factor:F[:CORRECTION]" (F > 0) or "predict[:CORRECTION]",
// where CORRECTION is gradual (the default), requested or double.
func ParseEstimator(s string) (Estimator, error) { return ParseEstimatorIn(s, 1) }

// ParseEstimatorIn is ParseEstimator for a run whose times are ticks of
// 1/tick second: the estimators' durations given in seconds (the gradual
// correction's steps, the one-second floor of a prediction) are turned
// into ticks.
func ParseEstimatorIn(s string, tick workload.Time) (Estimator, error) {
	kind, rest, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	switch kind {
	case EstimatesUser, "":
		if rest != "" {
			break
		}
		return nil, nil
	case EstimatesPerfect:
		if rest != "" {
			break
		}
		return Perfect{}, nil
	case EstimatesFactor:
		fs, cs, _ := strings.Cut(rest, ":")
		f, err := strconv.ParseFloat(fs, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("policy: estimates %q: want factor:F with a number F > 0, e.g. factor:2", s)
		}
		c := CorrectGradual
		if cs != "" {
			if c, err = parseCorrection(cs); err != nil {
				return nil, err
			}
		}
		return &Factor{F: f, Correction: c, Tick: tick}, nil
	case EstimatesPredict:
		c := CorrectGradual
		if rest != "" {
			var err error
			if c, err = parseCorrection(rest); err != nil {
				return nil, err
			}
		}
		return &Predict{Correction: c, Tick: tick}, nil
	}
	return nil, fmt.Errorf("policy: estimates %q: want user, perfect, factor:F[:correction] or predict[:correction] (correction: gradual, requested or double)", s)
}

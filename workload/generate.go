package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// The synthetic workload generator implements the model of
//
//	U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
//	modeling the characteristics of rigid jobs", Journal of Parallel and
//	Distributed Computing 63(11):1105–1122, 2003,
//
// following its reference implementation, m_lublin99.c by Uri Lublin and
// Dror Feitelson (distributed with the Parallel Workloads Archive), whose
// constants are the parameter values below. A job is drawn in three parts:
//
//   - Size: serial (one processor) with probability SerialProb; otherwise
//     log2(size) is drawn from a two-stage uniform distribution — uniform on
//     [ULow, UMed] with probability UProb, on [UMed, UHi] otherwise, UHi being
//     log2 of the machine size — and, with probability Pow2Prob (of all jobs),
//     rounded to an integer so that the size is a power of two. The size is
//     round(2^x).
//   - Run time: ln(run) follows a hyper-gamma distribution, gamma(A1, B1) with
//     probability p and gamma(A2, B2) otherwise (shape, scale), where
//     p = PA·size + PB clamped to [0, 1]: larger jobs run longer. Draws above
//     ln(run) = 12 (run > 162,754 s, about two days) are redrawn.
//   - Arrivals: the natural log of the inter-arrival time at rush hours follows
//     gamma(AArr·ARAR, BArr) (draws above 13 are redrawn); the time is then
//     spread over a daily cycle of 48 half-hour buckets whose weights are the
//     mass the gamma(ANum, BNum) distribution gives each bucket (the day
//     starting at bucket 11 of that distribution, and time 0 at midnight): a
//     job "pays" for the time it waits in each bucket with the bucket's
//     weight, so arrivals are denser in busy hours.
//
// The offered load is then set by scaling the rush-hour inter-arrival times
// (see GenConfig.Load), and each job gets a runtime estimate (see
// GenConfig.EstimateFactorMax).

// LublinModel holds the parameters of the Lublin–Feitelson model for one
// class of jobs. Sizes are given relative to the machine: UHi = log2(P) −
// UHiBelow and UMed = UHi − UMedBelow, as the model's authors advise setting
// UMed = UHi − 2.5 (±1) for a machine of another size.
type LublinModel struct {
	// Name names the parameter set in generated headers.
	Name string

	// SerialProb is the probability that a job is serial (one processor).
	SerialProb float64
	// Pow2Prob is the probability (of all jobs) that a parallel job's size is
	// rounded to a power of two.
	Pow2Prob float64
	// ULow is log2 of the smallest parallel job size (0.8 makes 2 likely).
	ULow float64
	// UMedBelow is UHi − UMed, where the two-stage uniform changes stage.
	UMedBelow float64
	// UHiBelow is log2(P) − UHi: 0 when the largest job may fill the machine.
	UHiBelow float64
	// UProb is the probability of the first stage, uniform on [ULow, UMed].
	UProb float64

	// A1, B1 and A2, B2 are the shape and scale of the two gamma
	// distributions of ln(run time); PA and PB give the probability of the
	// first, p = PA·size + PB.
	A1, B1, A2, B2, PA, PB float64

	// AArr and BArr are the shape and scale of the gamma distribution of
	// ln(inter-arrival time) at rush hours; ARAR (arrive-rush-to-all ratio)
	// multiplies AArr to describe all hours. ANum and BNum are the shape and
	// scale of the gamma distribution whose mass over the half-hour buckets
	// gives the daily cycle.
	AArr, BArr, ARAR, ANum, BNum float64
}

// The three parameter sets of the model's reference implementation
// (m_lublin99.c): LublinAll is fitted to all jobs of the logs the model was
// built from, LublinBatch and LublinInteractive to batch and interactive jobs
// alone. Values are those of the reference implementation, quoted as given.
var (
	// LublinAll is the "whole sample" parameter set (no job types), the
	// default of GenConfig.
	LublinAll = LublinModel{
		Name:       "all",
		SerialProb: 0.244, Pow2Prob: 0.576, ULow: 0.8, UMedBelow: 2.5, UHiBelow: 0, UProb: 0.86,
		A1: 4.2, B1: 0.94, A2: 312, B2: 0.03, PA: -0.0054, PB: 0.78,
		AArr: 10.2303, BArr: 0.4871, ARAR: 1.0225, ANum: 8.1737, BNum: 3.9631,
	}
	// LublinBatch is the parameter set fitted to batch jobs.
	LublinBatch = LublinModel{
		Name:       "batch",
		SerialProb: 0.2927, Pow2Prob: 0.6686, ULow: 1.2, UMedBelow: 2, UHiBelow: 0, UProb: 0.875,
		A1: 6.57, B1: 0.823, A2: 639.1, B2: 0.0156, PA: -0.003, PB: 0.6986,
		AArr: 6.0415, BArr: 0.8531, ARAR: 1.0519, ANum: 6.1271, BNum: 5.2740,
	}
	// LublinInteractive is the parameter set fitted to interactive jobs (the
	// largest of which use 2^5.5 of 2^7 nodes: UHiBelow 1.5).
	LublinInteractive = LublinModel{
		Name:       "interactive",
		SerialProb: 0.1541, Pow2Prob: 0.625, ULow: 1, UMedBelow: 2.5, UHiBelow: 1.5, UProb: 0.705,
		A1: 3.8351, B1: 0.6605, A2: 7.073, B2: 0.6856, PA: -0.0118, PB: 0.9156,
		AArr: 6.5510, BArr: 0.6621, ARAR: 0.9797, ANum: 8.9186, BNum: 3.6680,
	}
)

// LublinByName returns the parameter set named name (LublinModel.Name:
// all, batch or interactive), or nil.
func LublinByName(name string) *LublinModel {
	for _, m := range []*LublinModel{&LublinAll, &LublinBatch, &LublinInteractive} {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// DefaultEstimateFactorMax is the default GenConfig.EstimateFactorMax: the
// factors are uniform on [1, 5], 3 on average.
const DefaultEstimateFactorMax = 5

// GenConfig configures Generate. The zero value of every optional field means
// its documented default.
type GenConfig struct {
	// Jobs is the number of jobs to generate (≥ 0).
	Jobs int
	// Procs is the machine size P in processors (≥ 1). No job is larger: a
	// size the model draws above P (possible only when P is not a power of
	// two) becomes the largest power of two ≤ P for power-of-two jobs, P for
	// the others.
	Procs int
	// Seed seeds the generator's one random source: the same configuration
	// and seed give the same jobs.
	Seed int64
	// Load is the target offered load Σ procs·run / (P · span), where span is
	// the time from the first submission to the last. Generate reaches it
	// (typically within 0.1%) by scaling every rush-hour inter-arrival time by
	// one factor, found by generating the workload again until the load
	// matches; the daily cycle, sizes and run times are left as they are. 0
	// keeps the model's own arrival rate. It needs at least two jobs.
	Load float64
	// Model is the parameter set; nil means LublinAll.
	Model *LublinModel
	// EstimateFactorMax sets the runtime estimates (requested times). A job's
	// estimate is its run time times a factor drawn uniformly from
	// [1, EstimateFactorMax], rounded up to a multiple of EstimateRoundSec:
	// users over-estimate, never under-estimate since the limit kills a job,
	// and the ratio varies from job to job, as in the "f-model" of Mu'alem and
	// Feitelson (IEEE TPDS 12(6), 2001). 1 gives exact estimates; 0 means
	// DefaultEstimateFactorMax.
	EstimateFactorMax float64
	// EstimateRoundSec is the granularity, in seconds, estimates are rounded
	// up to (60 mimics users who ask for whole minutes); 0 means 1.
	EstimateRoundSec int64
}

// withDefaults returns c with its defaults filled in, or an error naming the
// first invalid field.
func (c GenConfig) withDefaults() (GenConfig, error) {
	if c.Model == nil {
		c.Model = &LublinAll
	}
	if c.EstimateFactorMax == 0 {
		c.EstimateFactorMax = DefaultEstimateFactorMax
	}
	if c.EstimateRoundSec == 0 {
		c.EstimateRoundSec = 1
	}
	switch {
	case c.Jobs < 0:
		return c, fmt.Errorf("workload: generate: Jobs = %d, want ≥ 0", c.Jobs)
	case c.Procs < 1:
		return c, fmt.Errorf("workload: generate: Procs = %d, want ≥ 1", c.Procs)
	case c.Procs > MaxMachineProcs:
		return c, fmt.Errorf("workload: generate: Procs = %d is %w: at most %d processors", c.Procs, ErrLimit, MaxMachineProcs)
	case !(c.Load >= 0 && c.Load <= 1000):
		return c, fmt.Errorf("workload: generate: Load = %v, want 0 (the model's rate) or a target in (0, 1000]", c.Load)
	case !(c.EstimateFactorMax >= 1 && c.EstimateFactorMax <= 1e6):
		return c, fmt.Errorf("workload: generate: EstimateFactorMax = %v, want 0 (default) or a factor in [1, 1e6]", c.EstimateFactorMax)
	case c.EstimateRoundSec < 0 || c.EstimateRoundSec > 1e6:
		return c, fmt.Errorf("workload: generate: EstimateRoundSec = %d, want 0 (1 s) to 1e6", c.EstimateRoundSec)
	}
	if err := c.Model.validate(); err != nil {
		return c, err
	}
	return c, nil
}

func (m *LublinModel) validate() error {
	bad := func(name string, v float64) error {
		return fmt.Errorf("workload: generate: model %q: %s = %v is out of range", m.Name, name, v)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"SerialProb", m.SerialProb}, {"Pow2Prob", m.Pow2Prob}, {"UProb", m.UProb}} {
		if !(p.v >= 0 && p.v <= 1) {
			return bad(p.name, p.v)
		}
	}
	if m.SerialProb+m.Pow2Prob > 1 {
		return bad("SerialProb + Pow2Prob", m.SerialProb+m.Pow2Prob)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"A1", m.A1}, {"B1", m.B1}, {"A2", m.A2}, {"B2", m.B2}, {"AArr", m.AArr}, {"BArr", m.BArr}, {"ARAR", m.ARAR}, {"ANum", m.ANum}, {"BNum", m.BNum}} {
		if !(p.v > 0 && p.v < 1e6) {
			return bad(p.name, p.v)
		}
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"ULow", m.ULow}, {"UMedBelow", m.UMedBelow}, {"UHiBelow", m.UHiBelow}, {"PA", m.PA}, {"PB", m.PB}} {
		if math.IsNaN(p.v) || math.IsInf(p.v, 0) || math.Abs(p.v) > 1e6 || (p.name == "ULow" && p.v < 0) {
			return bad(p.name, p.v)
		}
	}
	return nil
}

// Header returns an SWF header describing the workload Generate makes with c:
// Version, Computer, Notes on the model, seed and load, MaxJobs, MaxRecords,
// MaxProcs and MaxNodes (one processor per node).
func (c GenConfig) Header() *Header {
	d, err := c.withDefaults()
	if err == nil {
		c = d
	}
	name := "all"
	if c.Model != nil {
		name = c.Model.Name
	}
	load := "the model's own arrival rate"
	if c.Load > 0 {
		load = "target offered load " + strconv.FormatFloat(c.Load, 'f', -1, 64)
	}
	h := &Header{
		Fields: []HeaderField{
			{"Version", "2.2"},
			{"Computer", "schedsim synthetic"},
			{"Note", "generated by schedsim (workload.Generate): Lublin-Feitelson model, JPDC 63(11) 2003, parameter set " + strconv.Quote(name)},
			{"Note", fmt.Sprintf("seed %d, %d jobs, %d processors, %s", c.Seed, c.Jobs, c.Procs, load)},
			{"Note", fmt.Sprintf("requested time = run time x U[1, %s], rounded up to a multiple of %d s",
				strconv.FormatFloat(c.EstimateFactorMax, 'f', -1, 64), c.EstimateRoundSec)},
			{"MaxJobs", strconv.Itoa(c.Jobs)},
			{"MaxRecords", strconv.Itoa(c.Jobs)},
			{"MaxProcs", strconv.Itoa(c.Procs)},
			{"MaxNodes", strconv.Itoa(c.Procs)},
		},
		MaxProcs: c.Procs,
		MaxNodes: c.Procs,
	}
	if c.Procs < 1 {
		h.MaxProcs, h.MaxNodes = 0, 0
	}
	return h
}

// Generate streams cfg.Jobs synthetic jobs of the Lublin–Feitelson model to
// fn, in submission order, and returns the first error fn returns. The *Job
// passed to fn is reused for the next job: copy it to keep it. Memory does not
// grow with the number of jobs.
//
// The jobs are a pure function of cfg (one explicit PCG source seeded with
// cfg.Seed), identical from run to run; across architectures they can differ
// only if math.Exp or math.Log round differently there, which would have to
// move a value across a whole second to show. Each job has ID i+1, Seq i,
// Submit, Procs, Run and Estimate set; as SWF fields, allocated and requested
// processors are Procs, run time Run, requested time Estimate, status 1, the
// rest -1 (unknown). Reading the jobs back from an SWF file written with
// SWFWriter, with the default rules, gives the same jobs.
func Generate(cfg GenConfig, fn func(*Job) error) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	g := newGenerator(cfg)
	scale := 1.0
	if cfg.Load > 0 && cfg.Jobs >= 2 {
		scale = g.calibrate()
	}
	return g.run(scale, fn)
}

// generator holds what one configuration needs: the daily cycle and the
// resolved size parameters. Every pass draws from a new source seeded alike.
type generator struct {
	cfg              GenConfig
	m                *LublinModel
	uLow, uMed, uHi  float64
	maxPow2          int
	weights          [buckets]float64
	dayWeight        float64
	arrShape         float64
	estMax, estRound float64
}

const (
	buckets        = 48               // half-hour buckets in a day
	bucketSec      = 86400 / 48       // seconds in a bucket
	cycleStart     = 11               // CYCLIC_DAY_START: first bucket of the day in gamma(ANum, BNum)
	maxLnRun       = 12               // TOO_MUCH_TIME: ln of the longest run time
	maxLnArrival   = 13               // TOO_MUCH_ARRIVE_TIME: ln of the longest inter-arrival
	loadTolerance  = 1e-3             // relative error of the load Generate aims for
	maxCalibration = 40               // passes at most
	seedStream     = 0x5ced51d0c0ffee // second word of the PCG seed
)

func newGenerator(cfg GenConfig) *generator {
	m := cfg.Model
	g := &generator{cfg: cfg, m: m, estMax: cfg.EstimateFactorMax, estRound: float64(cfg.EstimateRoundSec)}
	g.uHi = math.Log2(float64(cfg.Procs)) - m.UHiBelow
	g.uLow = m.ULow
	g.uMed = min(max(g.uHi-m.UMedBelow, g.uLow), g.uHi)
	g.maxPow2 = 1
	for g.maxPow2*2 <= cfg.Procs {
		g.maxPow2 *= 2
	}
	g.arrShape = m.AArr * m.ARAR

	// The daily cycle, as arrive_init computes it: bucket (i−1) mod 48 gets
	// the gamma(ANum, BNum) mass of [i−½, i+½], for i from the start of
	// the day on; the weights are then normalised to a mean of 1.
	sum := 0.0
	for i := cycleStart; i < buckets+cycleStart; i++ {
		w := gammaCDF(float64(i)+0.5, m.ANum, m.BNum) - gammaCDF(float64(i)-0.5, m.ANum, m.BNum)
		g.weights[(i-1)%buckets] = w
		sum += w
	}
	for i := range g.weights {
		g.weights[i] = max(g.weights[i]/(sum/buckets), 1e-12) // never 0: a bucket must be payable
		g.dayWeight += g.weights[i]
	}
	return g
}

// state is one pass's position in the stream.
type genState struct {
	rng      *rand.Rand
	t        float64 // seconds since midnight of day 0
	bucket   int
	points   float64
	reminder float64
}

func (g *generator) newState() genState {
	return genState{rng: rand.New(rand.NewPCG(uint64(g.cfg.Seed), seedStream))}
}

// next draws the next job into j, its arrival time scaled by scale.
func (g *generator) next(s *genState, scale float64, i int, j *Job) {
	r := s.rng
	m := g.m

	// Arrival (calc_next_arrive): the rush-hour inter-arrival time, in
	// bucket-sized points, pays each bucket's weight in turn.
	var gam float64
	for {
		gam = gammaRand(r, g.arrShape, m.BArr)
		if gam <= maxLnArrival {
			break
		}
	}
	s.points += math.Exp(gam) * scale / bucketSec
	next := 0.0
	if days := math.Floor(s.points/g.dayWeight) - 1; days > 0 {
		s.points -= days * g.dayWeight // whole days cost the same from any bucket
		next += days * 86400
	}
	for s.points > g.weights[s.bucket] {
		s.points -= g.weights[s.bucket]
		s.bucket = (s.bucket + 1) % buckets
		next += bucketSec
	}
	rem := s.points / g.weights[s.bucket]
	next += bucketSec * (rem - s.reminder)
	s.reminder = rem
	s.t += next

	// Size (calc_number_of_nodes).
	procs := 1
	if u := r.Float64(); u >= m.SerialProb && g.cfg.Procs > 1 {
		lo, hi := g.uLow, g.uMed
		if r.Float64() >= m.UProb {
			lo, hi = g.uMed, g.uHi
		}
		par := lo + r.Float64()*(hi-lo)
		if u < m.SerialProb+m.Pow2Prob {
			procs = 1 << int(math.Round(max(par, 0)))
			if procs > g.cfg.Procs || procs < 1 {
				procs = g.maxPow2
			}
		} else {
			procs = int(math.Round(math.Exp2(par)))
			procs = min(max(procs, 1), g.cfg.Procs)
		}
	}

	// Run time (time_from_nodes): ln(run) from the hyper-gamma.
	p := min(max(m.PA*float64(procs)+m.PB, 0), 1)
	var hg float64
	for {
		if r.Float64() < p {
			hg = gammaRand(r, m.A1, m.B1)
		} else {
			hg = gammaRand(r, m.A2, m.B2)
		}
		if hg <= maxLnRun {
			break
		}
	}
	run := max(Time(math.Exp(hg)), 1)

	// Estimate: run time × U[1, max], rounded up to the granularity.
	f := 1 + r.Float64()*(g.estMax-1)
	est := Time(math.Ceil(float64(run)*f/g.estRound) * g.estRound)
	est = max(est, run)

	*j = Job{
		Seq: int64(i), ID: int64(i + 1), Submit: Time(math.Floor(s.t)),
		Procs: procs, Run: run, Estimate: est,
		RawWait: Unknown, RawRun: float64(run), AllocProcs: procs, AvgCPUSec: Unknown,
		UsedMemKB: Unknown, ReqProcs: procs, ReqTime: float64(est), ReqMemKB: Unknown,
		Status: 1, User: Unknown, Group: Unknown, Executable: Unknown, Queue: Unknown,
		Partition: Unknown, PrecedingJob: Unknown, ThinkTime: Unknown,
	}
}

// run generates the whole stream with inter-arrival scale factor scale.
func (g *generator) run(scale float64, fn func(*Job) error) error {
	s := g.newState()
	var j Job
	for i := 0; i < g.cfg.Jobs; i++ {
		g.next(&s, scale, i, &j)
		if err := fn(&j); err != nil {
			return err
		}
	}
	return nil
}

// measure generates the stream without emitting it and returns its work
// Σ procs·run and its span, last submission − first.
func (g *generator) measure(scale float64) (work, span float64) {
	s := g.newState()
	var j Job
	var first Time
	for i := 0; i < g.cfg.Jobs; i++ {
		g.next(&s, scale, i, &j)
		work += float64(j.Procs) * float64(j.Run)
		if i == 0 {
			first = j.Submit
		}
	}
	return work, float64(j.Submit - first)
}

// calibrate finds the inter-arrival scale factor that gives the target load.
// The jobs' work does not depend on the factor, and the span is a continuous,
// non-decreasing function of it (0 at 0), so this solves span(scale) =
// work / (P · Load) by the secant method kept inside a bracket, bisecting
// when the secant stalls. It returns the best factor seen.
func (g *generator) calibrate() float64 {
	work, span := g.measure(1)
	target := work / (float64(g.cfg.Procs) * g.cfg.Load)
	scale, best, bestErr := 1.0, 1.0, math.Inf(1)
	lo, spanLo := 0.0, 0.0
	hi, spanHi := math.Inf(1), math.Inf(1)
	lastSide := 0
	for pass := 0; ; pass++ {
		if pass > 0 {
			_, span = g.measure(scale)
		}
		e := math.Abs(target/span - 1) // relative error of the load
		if e < bestErr {
			best, bestErr = scale, e
		}
		if e <= loadTolerance || pass == maxCalibration-1 {
			return best
		}
		side := 1
		if span < target {
			lo, spanLo, side = scale, span, -1
		} else {
			hi, spanHi = scale, span
		}
		switch {
		case math.IsInf(hi, 1):
			scale = min(scale*min(target/max(span, 1), 1e3), 1e9)
		case side == lastSide:
			scale = (lo + hi) / 2 // the secant keeps landing on one side
			side = 0
		default:
			scale = lo + (target-spanLo)*(hi-lo)/(spanHi-spanLo)
			if !(scale > lo && scale < hi) {
				scale = (lo + hi) / 2
			}
		}
		lastSide = side
	}
}

// gammaRand draws from the gamma distribution with the given shape and scale
// (Marsaglia and Tsang, ACM TOMS 26(3), 2000; shape < 1 by boosting).
func gammaRand(r *rand.Rand, shape, scale float64) float64 {
	if shape < 1 {
		u := r.Float64()
		return gammaRand(r, shape+1, scale) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			x = r.NormFloat64()
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := r.Float64()
		x2 := x * x
		if u < 1-0.0331*x2*x2 || math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v * scale
		}
	}
}

// gammaCDF is the distribution function of the gamma distribution with the
// given shape and scale at x.
func gammaCDF(x, shape, scale float64) float64 {
	return regGammaP(shape, x/scale)
}

// regGammaP is the regularized lower incomplete gamma function P(a, x), by
// its series for x < a+1 and its continued fraction (modified Lentz)
// otherwise (Numerical Recipes §6.2, as the model's reference code does).
func regGammaP(a, x float64) float64 {
	if x <= 0 {
		return 0
	}
	lg, _ := math.Lgamma(a)
	front := math.Exp(a*math.Log(x) - x - lg)
	if x < a+1 {
		ap, del, sum := a, 1/a, 1/a
		for range 10000 {
			ap++
			del *= x / ap
			sum += del
			if math.Abs(del) < math.Abs(sum)*1e-16 {
				break
			}
		}
		return min(sum*front, 1)
	}
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i < 10000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return max(1-front*h, 0)
}

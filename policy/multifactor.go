package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// PriorityParams are the settings of Slurm's priority/multifactor plugin
// (slurm.conf; https://slurm.schedmd.com/priority_multifactor.html) that
// schedsim models: the age, job-size, fair-share and partition factors. The
// QOS, association, TRES, nice and site factors are not modelled.
//
// Each field's documentation gives Slurm's default. Slurm's default weights
// are all 0, which makes every priority equal (first come, first served);
// DefaultPriorityParams uses the weights of the configuration example of
// Slurm's multifactor documentation instead.
type PriorityParams struct {
	// WeightAge is PriorityWeightAge (Slurm's default 0).
	WeightAge float64
	// WeightFairShare is PriorityWeightFairshare (default 0).
	WeightFairShare float64
	// WeightJobSize is PriorityWeightJobSize (default 0).
	WeightJobSize float64
	// WeightPartition is PriorityWeightPartition (default 0).
	WeightPartition float64
	// MaxAge is PriorityMaxAge: the wait at which the age factor reaches
	// its maximum of 1 (default 7 days). It must be positive.
	MaxAge workload.Time
	// HalfLife is PriorityDecayHalfLife: past usage counts half as much
	// after this time (default 7 days). 0 disables the decay.
	HalfLife workload.Time
	// CalcPeriod is PriorityCalcPeriod: how often usage is decayed and the
	// priorities of waiting jobs are recomputed (default 5 minutes). A job
	// submitted between two recomputations gets its priority at once, with
	// age 0. It must be positive.
	CalcPeriod workload.Time
	// FavorSmall is PriorityFavorSmall (default off): the job-size factor is
	// the job's share of the machine's processors, or with FavorSmall one
	// minus it.
	FavorSmall bool
	// Partitions gives the priority settings of SWF partitions (field 16).
	// A partition that is not listed has tier 0 and job factor 0.
	Partitions map[int]PartitionPriority
}

// PartitionPriority is a partition's priority settings in slurm.conf.
type PartitionPriority struct {
	// Tier is PriorityTier (default 1): the jobs of a partition of a higher
	// tier are considered before those of a lower one, whatever their
	// priority.
	Tier int
	// JobFactor is PriorityJobFactor (default 1): a job's partition factor
	// is its partition's JobFactor divided by the largest JobFactor of all
	// partitions.
	JobFactor int
}

// Slurm's multifactor defaults.
const (
	DefaultPriorityMaxAge     workload.Time = 7 * 24 * 3600
	DefaultPriorityHalfLife   workload.Time = 7 * 24 * 3600
	DefaultPriorityCalcPeriod workload.Time = 5 * 60
)

// DefaultPriorityParams returns Slurm's defaults for MaxAge, HalfLife and
// CalcPeriod, with the weights of the configuration example in Slurm's
// multifactor documentation: age 1000, fair-share 10000, job size 1000,
// partition 1000 (Slurm's own default weights are 0).
func DefaultPriorityParams() PriorityParams {
	return PriorityParams{
		WeightAge: 1000, WeightFairShare: 10000, WeightJobSize: 1000, WeightPartition: 1000,
		MaxAge: DefaultPriorityMaxAge, HalfLife: DefaultPriorityHalfLife, CalcPeriod: DefaultPriorityCalcPeriod,
	}
}

// ParsePriority applies settings of the form "key=value,key=value" to p and
// returns the result. Keys: weight-age, weight-fairshare, weight-jobsize,
// weight-partition (numbers ≥ 0); max-age, half-life, calc-period
// (durations, see ParseDuration); favor-small (yes or no; alone, yes).
func ParsePriority(s string, p PriorityParams) (PriorityParams, error) {
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, val, hasVal := strings.Cut(kv, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		val = strings.TrimSpace(val)
		var w *float64
		var d *workload.Time
		switch k {
		case "weight-age":
			w = &p.WeightAge
		case "weight-fairshare":
			w = &p.WeightFairShare
		case "weight-jobsize":
			w = &p.WeightJobSize
		case "weight-partition":
			w = &p.WeightPartition
		case "max-age":
			d = &p.MaxAge
		case "half-life":
			d = &p.HalfLife
		case "calc-period":
			d = &p.CalcPeriod
		case "favor-small":
			switch strings.ToLower(val) {
			case "yes", "true", "1":
				p.FavorSmall = true
			case "no", "false", "0":
				p.FavorSmall = false
			default:
				if hasVal {
					return p, fmt.Errorf("policy: priority setting %q: want favor-small=yes or no", kv)
				}
				p.FavorSmall = true
			}
			continue
		default:
			return p, fmt.Errorf("policy: priority setting %q: unknown key %q (want weight-age, weight-fairshare, weight-jobsize, weight-partition, max-age, half-life, calc-period or favor-small)", kv, k)
		}
		if !hasVal {
			return p, fmt.Errorf("policy: priority setting %q: missing =value", kv)
		}
		if w != nil {
			f, err := strconv.ParseFloat(val, 64)
			if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				return p, fmt.Errorf("policy: priority setting %q: want a weight ≥ 0", kv)
			}
			*w = f
			continue
		}
		t, err := ParseDuration(val)
		if err != nil {
			return p, fmt.Errorf("policy: priority setting %q: %w", kv, err)
		}
		*d = t
	}
	return p, p.Validate()
}

// Validate reports settings that cannot work: negative weights or half-life,
// a max age or calc period that is not positive.
func (p PriorityParams) Validate() error {
	switch {
	case p.WeightAge < 0 || p.WeightFairShare < 0 || p.WeightJobSize < 0 || p.WeightPartition < 0:
		return fmt.Errorf("policy: priority weights must be ≥ 0")
	case p.MaxAge <= 0:
		return fmt.Errorf("policy: priority max age %ds: must be positive", p.MaxAge)
	case p.HalfLife < 0:
		return fmt.Errorf("policy: priority half-life %ds: must be ≥ 0 (0: no decay)", p.HalfLife)
	case p.CalcPeriod <= 0:
		return fmt.Errorf("policy: priority calc period %ds: must be positive", p.CalcPeriod)
	}
	return nil
}

// ParseDuration parses a duration in seconds: a whole number of seconds, or
// a whole number followed by s, m, h or d ("30", "30s", "5m", "1d").
func ParseDuration(s string) (workload.Time, error) {
	t, ok := workload.ParseSeconds(strings.TrimSpace(s), workload.Forever/2)
	if !ok {
		return 0, fmt.Errorf("policy: duration %q: want whole seconds ≥ 0, optionally with a unit s, m, h or d (e.g. 30s, 5m, 1d)", s)
	}
	return t, nil
}

// MultiFactor is Slurm's multifactor priority as an Order. A job's priority
// is
//
//	WeightAge·age + WeightFairShare·fairshare + WeightJobSize·size + WeightPartition·partition
//
// truncated to an integer, each factor in [0, 1]:
//   - age: the job's wait at the last recomputation over MaxAge, at most 1;
//   - fair-share, Slurm's classic formula (PriorityFlags=NO_FAIR_TREE):
//     2^(−U/S), with U the user's share of all users' decayed usage and S
//     the user's share of the machine. Every user who has run a job so far
//     holds an equal share S = 1/users. Usage is processors × seconds,
//     charged when the job ends (Slurm charges running jobs at every
//     recomputation; schedsim's policies see jobs only when they end) and
//     halved every HalfLife after that;
//   - size: the job's processors over the machine's (FavorSmall: one minus
//     that);
//   - partition: the job's partition's JobFactor over the largest.
//
// Jobs of a higher partition tier come first; within a tier, higher
// priority first; ties in submission order (Slurm's: submit time, then job
// id). Usage, fair-share factors and ages are recomputed every CalcPeriod,
// at multiples of it; a job submitted in between is ordered with age 0.
//
// A MultiFactor keeps the users' usage: use a new one for every run.
type MultiFactor struct {
	p PriorityParams

	capacity int
	init     bool
	calcAt   workload.Time // time of the last recomputation
	maxJob   int           // largest partition JobFactor
	users    map[int]int   // user → index into usage and share
	usage    []float64     // decayed usage at calcAt, by user index
	share    []float64     // fair-share factor at calcAt, by user index
	pending  []Ended       // ended jobs not yet charged
}

var (
	_ Order   = (*MultiFactor)(nil)
	_ Updater = (*MultiFactor)(nil)
)

// NewMultiFactor returns a multifactor order with settings p.
func NewMultiFactor(p PriorityParams) (*MultiFactor, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m := &MultiFactor{p: p, users: map[int]int{}}
	for _, pp := range p.Partitions {
		m.maxJob = max(m.maxJob, pp.JobFactor)
	}
	return m, nil
}

// Params returns the order's settings.
func (m *MultiFactor) Params() PriorityParams { return m.p }

// Name implements Order.
func (m *MultiFactor) Name() string { return OrderMultiFactor }

// Update implements Updater: it records the jobs that ended and, at every
// multiple of CalcPeriod, decays and charges usage and recomputes the
// fair-share factors.
func (m *MultiFactor) Update(v View) {
	now := v.Now()
	m.capacity = v.Capacity()
	m.pending = append(m.pending, v.Ended()...)
	at := now - mod(now, m.p.CalcPeriod)
	if m.init && at <= m.calcAt {
		return
	}
	if !m.init {
		m.init = true
		m.calcAt = at
	}
	m.recompute(at)
}

// recompute brings usage and fair-share factors to time at.
func (m *MultiFactor) recompute(at workload.Time) {
	if d := m.decay(at - m.calcAt); d != 1 {
		for i := range m.usage {
			m.usage[i] *= d
		}
	}
	m.calcAt = at
	w := 0
	for _, e := range m.pending {
		if e.End > at {
			m.pending[w] = e
			w++
			continue
		}
		k, ok := m.users[e.User]
		if !ok {
			k = len(m.usage)
			m.users[e.User] = k
			m.usage = append(m.usage, 0)
			m.share = append(m.share, 1)
		}
		m.usage[k] += float64(e.Procs) * float64(e.End-e.Start) * m.decay(at-e.End)
	}
	m.pending = m.pending[:w]
	total := 0.0
	for _, u := range m.usage {
		total += u
	}
	n := float64(len(m.usage))
	for i, u := range m.usage {
		m.share[i] = 1
		if total > 0 {
			// 2^(−U/S) with U = u/total and S = 1/n.
			m.share[i] = math.Exp2(-u / total * n)
		}
	}
}

// decay returns the factor usage shrinks by over d seconds.
func (m *MultiFactor) decay(d workload.Time) float64 {
	if m.p.HalfLife <= 0 || d <= 0 {
		return 1
	}
	return math.Exp2(-float64(d) / float64(m.p.HalfLife))
}

// Usage returns user's decayed usage (processor-seconds) as of the last
// recomputation, as Slurm's sshare shows it.
func (m *MultiFactor) Usage(user int) float64 {
	if k, ok := m.users[user]; ok {
		return m.usage[k]
	}
	return 0
}

// FairShare returns user's fair-share factor as of the last recomputation.
func (m *MultiFactor) FairShare(user int) float64 {
	if k, ok := m.users[user]; ok {
		return m.share[k]
	}
	return 1
}

// Priority returns job j's priority (without the partition tier) as of the
// last recomputation.
func (m *MultiFactor) Priority(j *workload.Job) float64 {
	age := math.Min(float64(max(m.calcAt-j.Submit, 0))/float64(m.p.MaxAge), 1)
	size := 0.0
	if m.capacity > 0 {
		size = math.Min(float64(j.Procs)/float64(m.capacity), 1)
		if m.p.FavorSmall {
			size = 1 - size
		}
	}
	part := 0.0
	if m.maxJob > 0 {
		part = float64(m.p.Partitions[j.Partition].JobFactor) / float64(m.maxJob)
	}
	prio := m.p.WeightAge*age + m.p.WeightFairShare*m.FairShare(j.User) + m.p.WeightJobSize*size + m.p.WeightPartition*part
	return math.Floor(math.Min(prio, math.MaxUint32))
}

// Key implements Order: minus the tier (above any priority) and priority.
func (m *MultiFactor) Key(j *workload.Job, _ workload.Time) float64 {
	tier := 0.0
	if m.p.Partitions != nil {
		tier = float64(m.p.Partitions[j.Partition].Tier)
	}
	return -(tier*(1<<32) + m.Priority(j))
}

// mod is t mod p in [0, p).
func mod(t, p workload.Time) workload.Time {
	r := t % p
	if r < 0 {
		r += p
	}
	return r
}

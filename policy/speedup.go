package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/schedsim/schedsim/workload"
)

// Speedup is a run-time model for jobs whose processor count changes (HPC
// Pack's minimum and maximum resources, SPEC §6): how much faster a job
// runs on p processors than on one. A job's work is its trace run time times
// Factor at its trace processor count; on p processors it runs work /
// Factor(p) seconds (see Span).
type Speedup interface {
	// Name is the model as ParseSpeedup reads it, e.g. "amdahl:0.1".
	Name() string
	// Factor is the speedup on p ≥ 1 processors: Factor(1) = 1, never
	// decreasing in p.
	Factor(p int) float64
}

// Speedup model names, as ParseSpeedup reads them.
const (
	SpeedupLinear = "linear"
	SpeedupAmdahl = "amdahl"
)

// Linear is perfect speedup: p processors run a job p times as fast as one.
type Linear struct{}

// Name implements Speedup.
func (Linear) Name() string { return SpeedupLinear }

// Factor implements Speedup: p.
func (Linear) Factor(p int) float64 { return float64(p) }

// Amdahl is Amdahl's law with a serial fraction: on p processors a job runs
// Serial + (1 − Serial)/p of its one-processor time, a speedup of
// 1 / (Serial + (1 − Serial)/p).
type Amdahl struct {
	// Serial is the fraction of the work that does not parallelise, in
	// [0, 1]; 0 is Linear.
	Serial float64
}

// Name implements Speedup.
func (a Amdahl) Name() string {
	return SpeedupAmdahl + ":" + strconv.FormatFloat(a.Serial, 'g', -1, 64)
}

// Factor implements Speedup.
func (a Amdahl) Factor(p int) float64 {
	// The explicit conversions keep the compiler from fusing the
	// multiply-add, so that every platform rounds alike.
	par := float64((1 - a.Serial) / float64(p))
	return 1 / float64(a.Serial+par)
}

// ParseSpeedup reads a speedup model: "linear", or "amdahl:F" with a serial
// fraction F in [0, 1] (e.g. "amdahl:0.1"). "" is linear.
func ParseSpeedup(s string) (Speedup, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
	switch strings.ToLower(name) {
	case "", SpeedupLinear:
		if hasArg {
			return nil, fmt.Errorf("policy: speedup %q: linear takes no parameter", s)
		}
		return Linear{}, nil
	case SpeedupAmdahl:
		f, err := strconv.ParseFloat(arg, 64)
		if !hasArg || err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return nil, fmt.Errorf("policy: speedup %q: want amdahl:F with a serial fraction 0 ≤ F ≤ 1, e.g. amdahl:0.1", s)
		}
		return Amdahl{Serial: f}, nil
	}
	return nil, fmt.Errorf("policy: speedup %q: want linear or amdahl:F (F the serial fraction, e.g. amdahl:0.1)", s)
}

// Work returns the work of a job that runs t seconds on p processors under
// m: t · m.Factor(p), in one-processor seconds.
func Work(m Speedup, t workload.Time, p int) float64 {
	return float64(float64(t) * m.Factor(p))
}

// Span returns how long work (one-processor seconds) takes on p processors
// under m, rounded up to whole seconds, and at least 1 s for any work > 0
// (0 for none). A quotient within 1e-9 s above a whole second counts as that
// second, so that rounding in the floating-point work does not add a second
// a hand computation would not.
func Span(m Speedup, work float64, p int) workload.Time {
	if work <= 0 {
		return 0
	}
	q := work / m.Factor(p)
	t := math.Ceil(q)
	if t-q > 1-1e-9 {
		t-- // q is a whole second plus rounding noise
	}
	return max(workload.Time(t), 1)
}

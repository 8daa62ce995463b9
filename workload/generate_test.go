package workload

import (
	"bytes"
	"errors"
	"io"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// genAll returns every job Generate makes with cfg.
func genAll(t testing.TB, cfg GenConfig) []Job {
	t.Helper()
	var jobs []Job
	if err := Generate(cfg, func(j *Job) error {
		jobs = append(jobs, *j)
		return nil
	}); err != nil {
		t.Fatalf("Generate(%+v): %v", cfg, err)
	}
	return jobs
}

// offeredLoad is Σ procs·run / (P · (last submit − first submit)).
func offeredLoad(jobs []Job, procs int) float64 {
	var work float64
	for _, j := range jobs {
		work += float64(j.Procs) * float64(j.Run)
	}
	return work / (float64(procs) * float64(jobs[len(jobs)-1].Submit-jobs[0].Submit))
}

// pow2Chance is the probability that round(2^x) is a power of two ≥ 2 for
// x uniform on [a, b].
func pow2Chance(a, b float64) float64 {
	if b <= a {
		return 0
	}
	in := 0.0
	for k := 1; k < 40; k++ {
		p := math.Ldexp(1, k)
		lo, hi := max(math.Log2(p-0.5), a), min(math.Log2(p+0.5), b)
		if hi > lo {
			in += hi - lo
		}
	}
	return in / (b - a)
}

// TestGenerateModel checks, for a fixed seed, that the generated jobs follow
// the model: the fraction of serial jobs, of power-of-two sizes, the run time
// distribution of serial jobs, the daily cycle and the offered load.
func TestGenerateModel(t *testing.T) {
	tests := []struct {
		name  string
		model *LublinModel
		procs int
		load  float64
	}{
		{"all/128/0.9", nil, 128, 0.9},
		{"all/1024/0.7", &LublinAll, 1024, 0.7},
		{"batch/256/0.85", &LublinBatch, 256, 0.85},
		{"interactive/128/1.1", &LublinInteractive, 128, 1.1},
		{"all/100/0.5", &LublinAll, 100, 0.5},
	}
	const n = 20000
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := GenConfig{Jobs: n, Procs: tc.procs, Seed: 42, Load: tc.load, Model: tc.model}
			jobs := genAll(t, cfg)
			if len(jobs) != n {
				t.Fatalf("%d jobs, want %d", len(jobs), n)
			}
			m := tc.model
			if m == nil {
				m = &LublinAll
			}
			g := newGenerator(mustDefaults(t, cfg))

			var serial, pow2 int
			var lnRun, longRun float64
			for _, j := range jobs {
				switch {
				case j.Procs == 1:
					serial++
					lnRun += math.Log(float64(j.Run))
					if j.Run > 1096 { // e^7
						longRun++
					}
				case j.Procs&(j.Procs-1) == 0:
					pow2++
				}
			}

			// Sizes: serial with probability SerialProb; a power of two with
			// probability Pow2Prob, plus the chance that an unrounded size
			// round(2^x) is one (P = 100 is not a power of two: the sizes
			// above 2^6.5 also land on 64 or on 100, so skip the exact figure).
			if got := float64(serial) / n; math.Abs(got-m.SerialProb) > 0.015 {
				t.Errorf("serial fraction %.4f, model %.4f", got, m.SerialProb)
			}
			chance := m.UProb*pow2Chance(g.uLow, g.uMed) + (1-m.UProb)*pow2Chance(g.uMed, g.uHi)
			wantPow2 := m.Pow2Prob + (1-m.SerialProb-m.Pow2Prob)*chance
			got := float64(pow2) / n
			if tc.procs&(tc.procs-1) == 0 {
				if math.Abs(got-wantPow2) > 0.015 {
					t.Errorf("power-of-two fraction %.4f, model %.4f", got, wantPow2)
				}
			} else if got < m.Pow2Prob-0.015 {
				t.Errorf("power-of-two fraction %.4f, below the model's %.4f", got, m.Pow2Prob)
			}

			// Run time of serial jobs: ln(run) is hyper-gamma with p = PA + PB.
			p := min(max(m.PA+m.PB, 0), 1)
			wantMean := p*m.A1*m.B1 + (1-p)*m.A2*m.B2
			if got := lnRun / float64(serial); math.Abs(got-wantMean) > 0.25 {
				t.Errorf("mean ln(run) of serial jobs %.3f, model %.3f", got, wantMean)
			}
			wantLong := p*(1-gammaCDF(7, m.A1, m.B1)) + (1-p)*(1-gammaCDF(7, m.A2, m.B2))
			if got := longRun / float64(serial); math.Abs(got-wantLong) > 0.03 {
				t.Errorf("serial jobs longer than e^7 s: %.4f, model %.4f", got, wantLong)
			}

			if got := offeredLoad(jobs, tc.procs); math.Abs(got/tc.load-1) > 0.05 {
				t.Errorf("offered load %.4f, target %.4f", got, tc.load)
			}
			checkGenerated(t, cfg, jobs)
		})
	}
}

// TestGenerateDailyCycle checks that a half-hour bucket gets arrivals in
// proportion to its weight: the busiest third of the day gets the share the
// model gives it. Arrivals are heavy-tailed, so this needs a long trace.
func TestGenerateDailyCycle(t *testing.T) {
	for _, m := range []*LublinModel{&LublinAll, &LublinInteractive} {
		t.Run(m.Name, func(t *testing.T) {
			const n = 200000
			cfg := GenConfig{Jobs: n, Procs: 128, Seed: 42, Model: m}
			g := newGenerator(mustDefaults(t, cfg))
			arrivals := make([]float64, buckets)
			if err := Generate(cfg, func(j *Job) error {
				arrivals[(j.Submit%86400)/bucketSec]++
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			idx := make([]int, buckets)
			for i := range idx {
				idx[i] = i
			}
			sort.Slice(idx, func(a, b int) bool { return g.weights[idx[a]] > g.weights[idx[b]] })
			var busy, want float64
			for _, i := range idx[:16] {
				busy += arrivals[i] / n
				want += g.weights[i] / g.dayWeight
			}
			if math.Abs(busy-want) > 0.015 {
				t.Errorf("arrivals in the busiest 8 hours: %.4f, model %.4f", busy, want)
			}
			if want < 0.5 {
				t.Errorf("the model's busiest 8 hours get only %.3f of the arrivals: no daily cycle?", want)
			}
			// The model's day peaks in the early afternoon (buckets 26–30).
			if peak := idx[0]; peak < 24 || peak > 32 {
				t.Errorf("the busiest bucket is %d (%02d:%02d)", peak, peak/2, peak%2*30)
			}
		})
	}
}

// checkGenerated checks what every generated job guarantees.
func checkGenerated(t *testing.T, cfg GenConfig, jobs []Job) {
	t.Helper()
	cfg = mustDefaults(t, cfg)
	for i, j := range jobs {
		switch {
		case j.Seq != int64(i) || j.ID != int64(i+1):
			t.Fatalf("job %d: seq %d id %d", i, j.Seq, j.ID)
		case i > 0 && j.Submit < jobs[i-1].Submit, j.Submit < 0:
			t.Fatalf("job %d: submit %d after %d", i, j.Submit, jobs[max(i-1, 0)].Submit)
		case j.Procs < 1 || j.Procs > cfg.Procs:
			t.Fatalf("job %d: %d processors on a machine of %d", i, j.Procs, cfg.Procs)
		case j.Run < 1 || float64(j.Run) > math.Exp(maxLnRun):
			t.Fatalf("job %d: run %d", i, j.Run)
		case j.Estimate < j.Run || float64(j.Estimate) > math.Ceil(float64(j.Run)*cfg.EstimateFactorMax/float64(cfg.EstimateRoundSec))*float64(cfg.EstimateRoundSec):
			t.Fatalf("job %d: estimate %d for run %d (factor at most %v)", i, j.Estimate, j.Run, cfg.EstimateFactorMax)
		case int64(j.Estimate)%cfg.EstimateRoundSec != 0:
			t.Fatalf("job %d: estimate %d not a multiple of %d", i, j.Estimate, cfg.EstimateRoundSec)
		case j.AllocProcs != j.Procs || j.ReqProcs != j.Procs || j.RawRun != float64(j.Run) || j.ReqTime != float64(j.Estimate) || j.Status != 1:
			t.Fatalf("job %d: SWF fields do not match: %+v", i, j)
		}
	}
}

func mustDefaults(t testing.TB, c GenConfig) GenConfig {
	t.Helper()
	c, err := c.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGenerateDeterministic(t *testing.T) {
	cfg := GenConfig{Jobs: 3000, Procs: 256, Seed: 7, Load: 0.8}
	a, b, c := genAll(t, cfg), genAll(t, cfg), genAll(t, cfg)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a, c) {
		t.Fatal("the same configuration gave different jobs")
	}
	cfg.Seed = 8
	if d := genAll(t, cfg); reflect.DeepEqual(a, d) {
		t.Fatal("seeds 7 and 8 gave the same jobs")
	}
	// A prefix of the stream does not depend on the number of jobs without
	// load scaling.
	short := genAll(t, GenConfig{Jobs: 100, Procs: 256, Seed: 7})
	long := genAll(t, GenConfig{Jobs: 1000, Procs: 256, Seed: 7})
	if !reflect.DeepEqual(short, long[:100]) {
		t.Fatal("the first 100 jobs of 1000 differ from 100 jobs")
	}
}

// TestGenerateConfigs checks the guarantees on the corners of the
// configuration space.
func TestGenerateConfigs(t *testing.T) {
	tests := []struct {
		name string
		cfg  GenConfig
	}{
		{"one processor", GenConfig{Jobs: 500, Procs: 1, Seed: 1, Load: 0.9}},
		{"two processors", GenConfig{Jobs: 500, Procs: 2, Seed: 1, Load: 0.9}},
		{"three processors", GenConfig{Jobs: 500, Procs: 3, Seed: 1}},
		{"huge machine", GenConfig{Jobs: 500, Procs: 1 << 20, Seed: 1, Load: 0.5}},
		{"exact estimates", GenConfig{Jobs: 500, Procs: 64, Seed: 2, EstimateFactorMax: 1}},
		{"minute estimates", GenConfig{Jobs: 500, Procs: 64, Seed: 3, EstimateFactorMax: 10, EstimateRoundSec: 60}},
		{"two jobs", GenConfig{Jobs: 2, Procs: 64, Seed: 4, Load: 0.9}},
		{"one job with a load", GenConfig{Jobs: 1, Procs: 64, Seed: 4, Load: 0.9}},
		{"light load", GenConfig{Jobs: 500, Procs: 64, Seed: 5, Load: 0.01}},
		{"heavy load", GenConfig{Jobs: 500, Procs: 64, Seed: 5, Load: 50}},
		{"negative seed", GenConfig{Jobs: 500, Procs: 64, Seed: -5, Load: 0.9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs := genAll(t, tc.cfg)
			if len(jobs) != tc.cfg.Jobs {
				t.Fatalf("%d jobs, want %d", len(jobs), tc.cfg.Jobs)
			}
			checkGenerated(t, tc.cfg, jobs)
			if tc.cfg.EstimateFactorMax == 1 {
				for _, j := range jobs {
					if j.Estimate != j.Run {
						t.Fatalf("exact estimates: estimate %d for run %d", j.Estimate, j.Run)
					}
				}
			}
			if tc.cfg.Load > 0 && len(jobs) >= 2 {
				if got := offeredLoad(jobs, tc.cfg.Procs); math.Abs(got/tc.cfg.Load-1) > 0.05 {
					t.Errorf("offered load %.4f, target %v", got, tc.cfg.Load)
				}
			}
		})
	}
}

func TestGenerateErrors(t *testing.T) {
	bad := LublinAll
	bad.SerialProb = 0.9 // + Pow2Prob > 1
	nan := LublinAll
	nan.B2 = math.NaN()
	tests := []struct {
		name string
		cfg  GenConfig
		want string
	}{
		{"negative jobs", GenConfig{Jobs: -1, Procs: 4}, "Jobs"},
		{"no processors", GenConfig{Jobs: 1}, "Procs"},
		{"beyond the largest machine", GenConfig{Jobs: 1, Procs: MaxMachineProcs + 1}, "beyond schedsim's limits"},
		{"10^14 processors", GenConfig{Jobs: 1, Procs: 100000000000000}, "Procs = 100000000000000"},
		{"negative load", GenConfig{Jobs: 1, Procs: 4, Load: -0.5}, "Load"},
		{"NaN load", GenConfig{Jobs: 1, Procs: 4, Load: math.NaN()}, "Load"},
		{"estimate factor below 1", GenConfig{Jobs: 1, Procs: 4, EstimateFactorMax: 0.5}, "EstimateFactorMax"},
		{"negative rounding", GenConfig{Jobs: 1, Procs: 4, EstimateRoundSec: -60}, "EstimateRoundSec"},
		{"probabilities above 1", GenConfig{Jobs: 1, Procs: 4, Model: &bad}, "SerialProb + Pow2Prob"},
		{"NaN parameter", GenConfig{Jobs: 1, Procs: 4, Model: &nan}, "B2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := Generate(tc.cfg, func(*Job) error { calls++; return nil })
			if err == nil || !strings.HasPrefix(err.Error(), "workload: generate: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Generate(%+v) = %v, want an error naming %s", tc.cfg, err, tc.want)
			}
			if calls != 0 {
				t.Errorf("%d jobs emitted before the error", calls)
			}
		})
	}

	stop := errors.New("stop")
	calls := 0
	err := Generate(GenConfig{Jobs: 100, Procs: 4}, func(*Job) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 3 {
		t.Errorf("Generate returned %v after %d calls, want fn's error after 3", err, calls)
	}
	if err := Generate(GenConfig{Procs: 4, Load: 0.9}, func(*Job) error { t.Fatal("called"); return nil }); err != nil {
		t.Errorf("zero jobs: %v", err)
	}
}

// TestGenerateRoundtrip writes generated jobs as SWF and reads them back:
// the jobs and the header's machine size must survive, and no cleaning rule
// may touch them.
func TestGenerateRoundtrip(t *testing.T) {
	cfg := GenConfig{Jobs: 3000, Procs: 128, Seed: 3, Load: 0.9, EstimateRoundSec: 60}
	var buf bytes.Buffer
	w, err := NewSWFWriter(&buf, cfg.Header())
	if err != nil {
		t.Fatal(err)
	}
	var jobs []Job
	if err := Generate(cfg, func(j *Job) error {
		jobs = append(jobs, *j)
		return w.Write(j)
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r, err := NewSWFReader(bytes.NewReader(buf.Bytes()), "gen.swf", Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var back []Job
	for {
		var j Job
		err := r.Next(&j)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		back = append(back, j)
	}
	if !reflect.DeepEqual(jobs, back) {
		for i := range min(len(jobs), len(back)) {
			if jobs[i] != back[i] {
				t.Fatalf("job %d: wrote %+v\nread  %+v", i, jobs[i], back[i])
			}
		}
		t.Fatalf("wrote %d jobs, read %d", len(jobs), len(back))
	}
	want := CleanStats{Records: 3000, Kept: 3000}
	if st := r.Stats(); st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	h := r.Header()
	if h.MaxProcs != 128 || h.MaxNodes != 128 || h.Get("Computer") != "schedsim synthetic" || h.Get("MaxJobs") != "3000" {
		t.Errorf("header read back: %+v", h)
	}
	if !strings.Contains(buf.String(), "; Note: seed 3, 3000 jobs, 128 processors, target offered load 0.9\n") {
		t.Errorf("header lacks the seed note:\n%s", buf.String()[:600])
	}
}

func TestGenerateNoAllocs(t *testing.T) {
	cfg := mustDefaults(t, GenConfig{Jobs: 1 << 30, Procs: 128, Seed: 1})
	g := newGenerator(cfg)
	s := g.newState()
	var j Job
	i := 0
	if a := testing.AllocsPerRun(1000, func() { g.next(&s, 1, i, &j); i++ }); a != 0 {
		t.Errorf("%v allocations per generated job, want 0", a)
	}
}

// TestRegGammaP checks the incomplete gamma function against closed forms.
func TestRegGammaP(t *testing.T) {
	tests := []struct {
		name string
		a    float64
		f    func(x float64) float64
	}{
		{"a=1", 1, func(x float64) float64 { return 1 - math.Exp(-x) }},
		{"a=2", 2, func(x float64) float64 { return 1 - math.Exp(-x)*(1+x) }},
		{"a=3", 3, func(x float64) float64 { return 1 - math.Exp(-x)*(1+x+x*x/2) }},
		{"a=1/2", 0.5, func(x float64) float64 { return math.Erf(math.Sqrt(x)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, x := range []float64{0, 1e-3, 0.1, 0.5, 1, 1.5, 2, 2.9, 3.1, 5, 10, 30, 80} {
				if got, want := regGammaP(tc.a, x), tc.f(x); math.Abs(got-want) > 1e-12 {
					t.Errorf("P(%v, %v) = %.15g, want %.15g", tc.a, x, got, want)
				}
			}
		})
	}
	// Scale: the gamma(k, θ) distribution at x is P(k, x/θ).
	if got, want := gammaCDF(6, 2, 3), 1-math.Exp(-2)*3; math.Abs(got-want) > 1e-12 {
		t.Errorf("gammaCDF(6, 2, 3) = %v, want %v", got, want)
	}
}

// TestGammaRand checks the gamma sampler's mean and variance.
func TestGammaRand(t *testing.T) {
	g := newGenerator(mustDefaults(t, GenConfig{Procs: 1, Seed: 99}))
	s := g.newState()
	for _, p := range []struct{ shape, scale float64 }{{0.5, 2}, {1, 1}, {4.2, 0.94}, {312, 0.03}, {10.46, 0.4871}} {
		const n = 200000
		var sum, sum2 float64
		for range n {
			x := gammaRand(s.rng, p.shape, p.scale)
			if x < 0 {
				t.Fatalf("gamma(%v, %v) gave %v", p.shape, p.scale, x)
			}
			sum += x
			sum2 += x * x
		}
		mean := sum / n
		variance := sum2/n - mean*mean
		wantMean, wantVar := p.shape*p.scale, p.shape*p.scale*p.scale
		if math.Abs(mean/wantMean-1) > 0.01 || math.Abs(variance/wantVar-1) > 0.03 {
			t.Errorf("gamma(%v, %v): mean %.4f var %.4f, want %.4f and %.4f", p.shape, p.scale, mean, variance, wantMean, wantVar)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, tc := range []struct {
		name string
		load float64
	}{{"native", 0}, {"load0.9", 0.9}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			const n = 100000
			for b.Loop() {
				if err := Generate(GenConfig{Jobs: n, Procs: 1024, Seed: 1, Load: tc.load}, func(*Job) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/job")
		})
	}
}

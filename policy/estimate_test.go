package policy_test

import (
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/workload"
)

func TestParseEstimator(t *testing.T) {
	for _, c := range []struct {
		in, name string
	}{
		{"user", ""}, {"", ""}, {"perfect", "perfect"}, {"PERFECT", "perfect"},
		{"factor:2", "factor(2,correct=gradual)"}, {"factor:0.5:double", "factor(0.5,correct=double)"},
		{"predict", "predict(correct=gradual)"}, {"predict:requested", "predict(correct=requested)"},
	} {
		e, err := policy.ParseEstimator(c.in)
		if err != nil {
			t.Errorf("ParseEstimator(%q): %v", c.in, err)
			continue
		}
		name := ""
		if e != nil {
			name = e.Name()
		}
		if name != c.name {
			t.Errorf("ParseEstimator(%q) = %q, want %q", c.in, name, c.name)
		}
	}
	for _, bad := range []string{"factor", "factor:0", "factor:-1", "factor:x", "factor:2:never", "predict:soon", "oracle", "user:1", "perfect:2"} {
		if _, err := policy.ParseEstimator(bad); err == nil || !strings.HasPrefix(err.Error(), "policy: ") {
			t.Errorf("ParseEstimator(%q): error %v, want one with the package prefix", bad, err)
		}
	}
}

// TestPredict works EASY++'s prediction by hand: the average of the user's
// last two completed jobs, at most the requested time; the requested time
// without two of them.
func TestPredict(t *testing.T) {
	p := &policy.Predict{Correction: policy.CorrectGradual}
	j := func(user int, req workload.Time) *workload.Job {
		return &workload.Job{User: user, Estimate: req, Run: 1}
	}
	steps := []struct {
		done *workload.Job // a job that ends first (nil: none)
		run  workload.Time
		job  *workload.Job
		want workload.Time
	}{
		{nil, 0, j(7, 1000), 1000},          // no history: requested
		{j(7, 1000), 100, j(7, 1000), 1000}, // one job: requested
		{j(7, 1000), 300, j(7, 1000), 200},  // (300 + 100) / 2
		{nil, 0, j(7, 150), 150},            // capped at the requested time
		{nil, 0, j(8, 500), 500},            // another user has no history
		{j(7, 1000), 50, j(7, 1000), 175},   // the last two: (50 + 300) / 2
	}
	for i, s := range steps {
		if s.done != nil {
			p.Done(s.done, s.run)
		}
		if got := p.Predict(s.job); got != s.want {
			t.Errorf("step %d: prediction %d, want %d", i, got, s.want)
		}
	}
}

// TestCorrections: what each correction does to a job first predicted to
// run 200 s of its requested 10 h, each time it outlives its prediction.
func TestCorrections(t *testing.T) {
	for _, c := range []struct {
		corr policy.Correction
		want []workload.Time
	}{
		// 200 + 1 min, + 5 min, + 15 min, ... (Tsafrir et al. 2007).
		{policy.CorrectGradual, []workload.Time{260, 500, 1100, 2000, 3800, 7400, 18200, 36200}},
		{policy.CorrectRequested, []workload.Time{36000}},
		{policy.CorrectDouble, []workload.Time{400, 800, 1600}},
	} {
		p := &policy.Predict{Correction: c.corr}
		job := &workload.Job{Seq: 1, User: 1, Estimate: 36000, Run: 99999}
		pred := workload.Time(200)
		for i, w := range c.want {
			pred = p.Correct(job, pred)
			if pred != w {
				t.Errorf("%s: correction %d gives %d, want %d", c.corr, i+1, pred, w)
			}
		}
		// After the job ends, a new job with the same Seq starts afresh.
		p.Done(job, 500)
		if got := p.Correct(job, 200); got != c.want[0] {
			t.Errorf("%s: first correction after Done gives %d, want %d", c.corr, got, c.want[0])
		}
	}
}

func TestPerfectAndFactor(t *testing.T) {
	j := &workload.Job{Run: 100, Estimate: 1000}
	killed := &workload.Job{Run: 2000, Estimate: 1000}
	for _, c := range []struct {
		e    policy.Estimator
		job  *workload.Job
		want workload.Time
	}{
		{policy.Perfect{}, j, 100},
		{policy.Perfect{}, killed, 1000},
		{&policy.Factor{F: 2}, j, 200},
		{&policy.Factor{F: 0.333}, j, 34}, // rounded up
		{&policy.Factor{F: 20}, j, 1000},  // cut at the requested time
	} {
		if got := c.e.Predict(c.job); got != c.want {
			t.Errorf("%s predicts %d for run %d, requested %d; want %d", c.e.Name(), got, c.job.Run, c.job.Estimate, c.want)
		}
	}
}

func TestNewConfig(t *testing.T) {
	prio := policy.DefaultPriorityParams()
	for _, c := range []struct {
		cfg  policy.Config
		name string
	}{
		{policy.Config{Backfill: policy.BackfillEASY, Lookahead: policy.LookaheadAll, SJBF: true}, "easy(lookahead=all,sjbf)"},
		{policy.Config{Backfill: policy.BackfillEASY, Lookahead: 10, Order: "sjf"}, "easy(lookahead=10)+order=sjf"},
		{policy.Config{Backfill: policy.BackfillEASY, Lookahead: 10, Order: "fcfs"}, "easy(lookahead=10)"},
		{policy.Config{Backfill: policy.BackfillOff, Order: "wfp3"}, "fcfs+order=wfp3"},
		{policy.Config{Backfill: policy.BackfillEASY, Depth: 4, Order: "multifactor", Priority: &prio}, "backfill(depth=4,lookahead=0)+order=multifactor"},
		{policy.Config{Backfill: policy.BackfillSlurm}, "slurm(bf_interval=30,bf_max_job_test=500,bf_window=86400,bf_resolution=60,default_queue_depth=100)"},
		{policy.Config{Backfill: policy.BackfillSlurm, Order: "multifactor", Slurm: policy.SlurmParams{Interval: 60, MaxJobTest: policy.LookaheadAll, Continue: true}},
			"slurm(bf_interval=60,bf_max_job_test=all,bf_window=86400,bf_resolution=60,bf_continue,default_queue_depth=100)+order=multifactor"},
	} {
		p, err := policy.New(c.cfg)
		if err != nil {
			t.Errorf("New(%+v): %v", c.cfg, err)
			continue
		}
		if p.Name() != c.name {
			t.Errorf("New(%+v).Name() = %q, want %q", c.cfg, p.Name(), c.name)
		}
	}
	for _, c := range []struct {
		cfg  policy.Config
		want string // in the error
	}{
		{policy.Config{Backfill: policy.BackfillConservative, SJBF: true}, "SJBF"},
		{policy.Config{Backfill: policy.BackfillEASY, Depth: 2, SJBF: true}, "SJBF"},
		{policy.Config{Backfill: policy.BackfillConservative, Order: "sjf"}, "conservative"},
		{policy.Config{Backfill: policy.BackfillEASY, Depth: policy.DepthAll, Order: "sjf"}, "conservative"},
		{policy.Config{Backfill: policy.BackfillEASY, Order: "random"}, "random"},
		{policy.Config{Backfill: policy.BackfillSlurm, Slurm: policy.SlurmParams{Interval: -1}}, "bf_interval"},
		{policy.Config{Backfill: policy.BackfillSlurm, Slurm: policy.SlurmParams{Window: 31 * 86400}}, "bf_window"},
		{policy.Config{Backfill: policy.BackfillSlurm, Slurm: policy.SlurmParams{Resolution: 7200}}, "bf_resolution"},
		{policy.Config{Backfill: policy.BackfillSlurm, Slurm: policy.SlurmParams{MaxJobTest: -2}}, "bf_max_job_test"},
		{policy.Config{Backfill: policy.BackfillSlurm, Slurm: policy.SlurmParams{QueueDepth: -2}}, "default_queue_depth"},
		{policy.Config{Backfill: "maui"}, "slurm"},
	} {
		if _, err := policy.New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): error %v, want one mentioning %q", c.cfg, err, c.want)
		}
	}
}

// TestSJBF: the same window as the EASY crossing case, scanned shortest
// first: 4 (2 procs, 5 s) starts before 1 and 3 (100 s) use the extra.
func TestSJBF(t *testing.T) {
	for _, c := range []struct {
		pol  policy.Policy
		want string
	}{
		// Queue order: 1 (1 proc, crossing) takes extra → 1; 2 (2, crossing) refused;
		// 3 (1, crossing) takes the last extra; 4 ends before the shadow: starts.
		{&policy.EASY{Lookahead: policy.LookaheadAll}, "reserve 0 at 10; start 1; start 3; start 4"},
		// Shortest first: 4 (5 s), then 1, 2, 3 (100 s each, queue order):
		// 4 takes 2 of the 4 free; 1 takes 1 extra; 2 needs 2 > 1 free; 3 takes the last.
		{&policy.EASY{Lookahead: policy.LookaheadAll, SJBF: true}, "reserve 0 at 10; start 4; start 1; start 3"},
		// Lookahead 2 cuts the candidates to 1 and 2 before sorting.
		{&policy.EASY{Lookahead: 2, SJBF: true}, "reserve 0 at 10; start 1"},
	} {
		v := newView(0, 10, []running{{10, 6}}, q(8, 10), q(1, 100), q(2, 100), q(1, 100), q(2, 5))
		c.pol.Schedule(v, v)
		if got := strings.Join(v.log, "; "); got != c.want {
			t.Errorf("%s decided %q, want %q", c.pol.Name(), got, c.want)
		}
	}
}

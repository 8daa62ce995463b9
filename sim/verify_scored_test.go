package sim_test

import (
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// TestVerifyScoreD plants one violation of each SCore-D rule VerifyScoreD
// checks (and legal schedules next to them) and wants each caught, with a
// message naming the job(s) and the time.
func TestVerifyScoreD(t *testing.T) {
	lim := sim.ScoreDLimits{MemKB: 1000, DiskKB: 100, MPL: 2, MemPercent: []int{60, 60}, DiskPercent: []int{0, 0}}
	st := func(from, to int64, q, row int) sim.Stint {
		return sim.Stint{FromMs: from * 1000, ToMs: to * 1000, Queue: q, Row: row}
	}
	job := func(id int64, procs int, end workload.Time, mem int64, stints ...sim.Stint) sim.ScoreDOutcome {
		if mem == 0 {
			mem = 100 // what every job of a 60 % queue gets at most
		}
		o := sim.ScoreDOutcome{ID: id, Procs: procs, State: sim.Completed, End: end, MemLimitKB: mem, Stints: stints}
		if len(stints) > 0 {
			o.Queue = stints[len(stints)-1].Queue
		}
		return o
	}
	released := func(s sim.Stint) sim.Stint { s.Released = true; return s }
	cases := []struct {
		name string
		jobs []sim.ScoreDOutcome
		want []string // one substring per violation, in order; none: legal
	}{
		{"two queue-0 gang rows", []sim.ScoreDOutcome{
			job(1, 4, 10, 0, st(0, 10, 0, 0)), job(2, 4, 10, 0, st(0, 10, 0, 1))}, nil},
		{"a queue-1 job shares a queue-0 job's row", []sim.ScoreDOutcome{
			job(1, 4, 10, 0, st(0, 10, 0, 0)), job(2, 4, 15, 0, st(5, 15, 1, 0))}, nil},
		{"a queue-1 job opens a row beside a queue-0 job", []sim.ScoreDOutcome{
			job(1, 4, 10, 0, st(0, 10, 0, 0)), job(2, 4, 15, 0, st(5, 15, 1, 1))},
			[]string{"job 2: queue-priority: from 5 s row 1 takes time slices with jobs 2 of lower queues only, while jobs 1 of queue 0"}},
		{"a queue-1 row is fine once queue 0 left", []sim.ScoreDOutcome{
			job(1, 4, 10, 0, st(0, 10, 0, 0)), job(2, 4, 15, 0, st(10, 15, 1, 1)), job(3, 4, 15, 0, st(10, 15, 1, 0))}, nil},
		{"an exclusive job of queue 1 beside a queue-0 gang job", []sim.ScoreDOutcome{
			job(1, 4, 10, 0, st(0, 10, 0, 0)), job(2, 4, 15, 0, st(5, 15, 1, -1))}, nil},
		{"a row over-allocated", []sim.ScoreDOutcome{
			job(1, 8, 10, 0, st(0, 10, 1, -1)), job(2, 4, 15, 0, st(5, 15, 0, 0))},
			[]string{"job 2: row-over-allocated: from 5 s row 0 holds 12 processors (jobs 1, 2) of 10"}},
		{"memory use over the limit, not killed", []sim.ScoreDOutcome{
			func() sim.ScoreDOutcome { o := job(1, 4, 10, 500, st(0, 10, 0, 0)); o.MemKBPerHost = 800; return o }()},
			[]string{"job 1: memory-per-host: its memory use on one host, 800 KB, exceeds its limit 500 KB, but it ran (from 0 s) and ended completed at 10 s instead of being killed"}},
		{"memory use over the limit, killed", []sim.ScoreDOutcome{
			func() sim.ScoreDOutcome {
				o := job(1, 4, 0, 500)
				o.MemKBPerHost = 800
				o.State = sim.LimitKilled
				return o
			}()}, nil},
		{"killed within its limit", []sim.ScoreDOutcome{
			func() sim.ScoreDOutcome {
				o := job(1, 4, 3, 500)
				o.MemKBPerHost = 400
				o.State = sim.LimitKilled
				return o
			}()},
			[]string{"job 1: memory-per-host: killed at 3 s for its memory limit, but its use on one host, 400 KB, is within its limit 500 KB"}},
		{"a limit beyond the queue's", []sim.ScoreDOutcome{job(1, 4, 10, 700, st(0, 10, 0, 0))},
			[]string{"job 1: limit: its memory limit is 700 KB; queue 0's is 60 % of the cluster's 1000 KB = 600 KB"}},
		{"a disk limit where the queue sets none", []sim.ScoreDOutcome{
			func() sim.ScoreDOutcome { o := job(1, 4, 10, 0, st(0, 10, 0, 0)); o.DiskLimitKB = 50; return o }()},
			[]string{"job 1: limit: its disk limit is 50 KB, but the cluster (100 KB) and queue 0 (0 %) do not both set one"}},
		{"limits held beyond the cluster's", []sim.ScoreDOutcome{
			job(1, 4, 10, 600, st(0, 10, 0, 0)), job(2, 4, 15, 500, st(5, 15, 0, 1))},
			[]string{"job 2: memory-held: at 5 s the started jobs 1, 2 hold memory limits of 1100 KB in all, beyond the cluster's 1000 KB"}},
		{"one ends as the other starts", []sim.ScoreDOutcome{
			job(1, 4, 10, 600, st(0, 10, 0, 0)), job(2, 4, 15, 500, st(10, 15, 0, 1))}, nil},
		{"a suspended job keeps its memory", []sim.ScoreDOutcome{
			job(1, 4, 20, 600, st(0, 5, 1, 0), st(10, 20, 1, 0)), job(2, 4, 10, 500, st(5, 10, 0, 0))},
			[]string{"job 2: memory-held: at 5 s the started jobs 1, 2 hold memory limits of 1100 KB"}},
		{"a requeued job gives it back", []sim.ScoreDOutcome{
			job(1, 4, 20, 600, released(st(0, 5, 1, 0)), st(10, 20, 1, 0)), job(2, 4, 10, 500, st(5, 10, 0, 0))}, nil},
		{"a job held to the end keeps it", []sim.ScoreDOutcome{
			func() sim.ScoreDOutcome {
				o := job(1, 4, 0, 600, st(0, 5, 1, 0))
				o.State, o.End = sim.Pending, workload.Forever
				return o
			}(), job(2, 4, 110, 500, st(100, 110, 0, 0))},
			[]string{"job 2: memory-held: at 100 s the started jobs 1, 2 hold memory limits of 1100 KB"}},
		{"a stint after the end", []sim.ScoreDOutcome{job(1, 4, 10, 0, st(0, 12, 0, 0))},
			[]string{"job 1: stint: it ran from 0 s to 12 s, outside its submission at 0 s and end at 10 s"}},
		{"a stint in a row the matrix lacks", []sim.ScoreDOutcome{job(1, 4, 10, 0, st(0, 10, 0, 2))},
			[]string{"job 1: stint: it ran in row 2 from 0 s; the matrix has 2 rows"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := sim.VerifyScoreD(10, c.jobs, lim)
			if len(vs) != len(c.want) {
				t.Fatalf("got %d violations %v, want %d", len(vs), vs, len(c.want))
			}
			for i, v := range vs {
				if !strings.Contains(v.Error(), c.want[i]) {
					t.Errorf("violation %d: %q, want %q in it", i, v.Error(), c.want[i])
				}
			}
		})
	}
}

// TestVerifyScoreDAcceptsEngineRuns: the SCore-D engine's own schedules,
// in gang and exclusive mode, with demotions, every preemption mode,
// memory limits and queue state changes, break none of VerifyScoreD's
// rules (the two agree on them), and they exercise the rules: jobs share
// rows, queues meet in the matrix, limits are held.
func TestVerifyScoreDAcceptsEngineRuns(t *testing.T) {
	const procs = 64
	cfgs := map[string]func() policy.ScoreD{
		"gang-suspend": func() policy.ScoreD {
			c := policy.NewScoreD(3, policy.Gang)
			c.MPL = 4
			c.Queues[0].ResidenceSec = 1800
			return c
		},
		"gang-cancel-memory-changes": func() policy.ScoreD {
			c := policy.NewScoreD(3, policy.Gang)
			c.Preempt = policy.PreemptCancel
			c.MemKB = 1 << 20
			c.Queues[1].MemPercent = 30
			c.Queues[2].MemPercent = 50
			c.Changes = []policy.QueueChange{{At: 3000, Queue: 1, State: policy.Deactivated}, {At: 9000, Queue: 1, State: policy.Activated}}
			return c
		},
		"exclusive-cancel-demotion": func() policy.ScoreD {
			c := policy.NewScoreD(3, policy.Exclusive)
			c.Preempt = policy.PreemptCancel
			c.Queues[0].ResidenceSec = 600
			c.Changes = []policy.QueueChange{{At: 2000, Queue: 2, State: policy.Deactivated}, {At: 5000, Queue: 2, State: policy.Activated}}
			return c
		},
		"exclusive-requeue-memory": func() policy.ScoreD {
			c := policy.NewScoreD(3, policy.Exclusive)
			c.Preempt = policy.PreemptRequeue
			c.MemKB = 1 << 20
			for i := range c.Queues {
				c.Queues[i].MemPercent = 40
				c.Queues[i].Wait = true
			}
			return c
		},
	}
	for _, name := range []string{"gang-suspend", "gang-cancel-memory-changes", "exclusive-cancel-demotion", "exclusive-requeue-memory"} {
		t.Run(name, func(t *testing.T) {
			cfg := cfgs[name]()
			jobs := syntheticJobs(7, 400, procs)
			for i := range jobs {
				jobs[i].Seq = int64(i)
				jobs[i].Queue = i % 3
				jobs[i].UsedMemKB = float64(i%7) * 40000
			}
			eng, err := sim.NewScoreD(procs, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rec := &simtest.Recorder{}
			if _, err := eng.Run(&simtest.Source{Jobs: jobs}, rec); err != nil {
				t.Fatal(err)
			}
			lim := sim.ScoreDLimits{MemKB: cfg.MemKB, DiskKB: cfg.DiskKB, MPL: cfg.MPL}
			resumed, limited := 0, 0
			var outs []sim.ScoreDOutcome
			for _, r := range rec.Records {
				o := sim.ScoreDOutcome{ID: r.Job.ID, Submit: r.Job.Submit, Procs: r.Job.Procs, State: r.State, End: r.End, Queue: r.Queue,
					Reason: r.Reason, MemLimitKB: r.MemLimitKB, DiskLimitKB: r.DiskLimitKB, MemKBPerHost: r.MemKBPerHost, Stints: r.Stints}
				switch r.State {
				case sim.Rejected:
					o.End = r.Job.Submit
				case sim.Pending:
					o.End = workload.Forever
				}
				if len(r.Stints) > 1 {
					resumed++
				}
				if r.MemLimitKB > 0 && len(r.Stints) > 0 {
					limited++
				}
				outs = append(outs, o)
			}
			for _, q := range cfg.Queues {
				lim.MemPercent = append(lim.MemPercent, q.MemPercent)
				lim.DiskPercent = append(lim.DiskPercent, q.DiskPercent)
				lim.Modes = append(lim.Modes, q.Mode)
			}
			lim.Preempt = cfg.Preempt
			for _, c := range cfg.Changes {
				if c.State != policy.Activated {
					lim.Holds = append(lim.Holds, sim.QueueHold{Queue: c.Queue, At: c.At})
				}
			}
			if vs := sim.VerifyScoreD(procs, outs, lim); len(vs) > 0 {
				t.Fatalf("%d violations, the first %v", len(vs), vs[:min(len(vs), 5)])
			}
			if resumed == 0 {
				t.Error("no job ran in several stints (descheduled, demoted)")
			}
			if cfg.MemKB > 0 && limited == 0 {
				t.Error("no job that ran had a memory limit")
			}
		})
	}
}

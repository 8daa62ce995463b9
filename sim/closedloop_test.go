package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/cluster"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// after is job with a preceding job (SWF field 17) and a think time
// (field 18, -1 for unknown).
func after(j workload.Job, pred int64, think float64) workload.Job {
	j.PrecedingJob, j.ThinkTime = pred, think
	return j
}

// TestClosedLoop replays hand-worked closed-loop schedules under FCFS on 4
// processors: each job's submission, start and end, and the counts of
// delayed jobs and of unknown preceding jobs.
func TestClosedLoop(t *testing.T) {
	type want struct {
		id                 int64
		submit, start, end workload.Time
		state              sim.State
	}
	tests := []struct {
		name             string
		jobs             []workload.Job
		want             []want // in record order
		delayed, unknown int64
	}{
		{
			// Job 2 was recorded at 10, while job 1 runs: it is submitted
			// at 1's end (100) plus its think time (20); job 3, recorded
			// at 30 with no preceding job, starts first.
			name: "waits for its preceding job's end",
			jobs: []workload.Job{
				job(1, 0, 4, 100, none),
				after(job(2, 10, 2, 50, none), 1, 20),
				job(3, 30, 2, 10, none),
			},
			want:    []want{{1, 0, 0, 100, sim.Completed}, {3, 30, 100, 110, sim.Completed}, {2, 120, 120, 170, sim.Completed}},
			delayed: 1,
		},
		{
			// The preceding job ended at 10, think time 5: 15 is before
			// the recorded 50, which stands.
			name: "recorded time later than end plus think",
			jobs: []workload.Job{
				job(1, 0, 4, 10, none),
				after(job(2, 50, 4, 10, none), 1, 5),
			},
			want: []want{{1, 0, 0, 10, sim.Completed}, {2, 50, 50, 60, sim.Completed}},
		},
		{
			// Ended at 10, think time 20: recorded at 12, submitted at 30.
			name: "ended less than the think time before",
			jobs: []workload.Job{
				job(1, 0, 4, 10, none),
				after(job(2, 12, 4, 10, none), 1, 20),
			},
			want:    []want{{1, 0, 0, 10, sim.Completed}, {2, 30, 30, 40, sim.Completed}},
			delayed: 1,
		},
		{
			// Job 99 is not in the trace, job 3 comes after job 1 names
			// it, and job 4 names itself: all at their recorded times.
			name: "unknown preceding jobs",
			jobs: []workload.Job{
				after(job(1, 0, 2, 10, none), 3, 5),
				after(job(2, 0, 2, 10, none), 99, 5),
				job(3, 1, 4, 10, none),
				after(job(4, 2, 4, 10, none), 4, 5),
			},
			want:    []want{{1, 0, 0, 10, sim.Completed}, {2, 0, 0, 10, sim.Completed}, {3, 1, 10, 20, sim.Completed}, {4, 2, 20, 30, sim.Completed}},
			unknown: 3,
		},
		{
			// Job 1 is rejected at 5 (8 processors on 4): job 2 is
			// submitted at 5 + 10. An unknown think time counts as 0.
			name: "rejected preceding job, unknown think time",
			jobs: []workload.Job{
				job(1, 5, 8, 10, none),
				after(job(2, 6, 4, 10, none), 1, 10),
				after(job(3, 7, 4, 10, none), 1, -1),
			},
			want:    []want{{1, 5, 5, 5, sim.Rejected}, {3, 7, 7, 17, sim.Completed}, {2, 15, 17, 27, sim.Completed}},
			delayed: 1,
		},
		{
			// At 100, job 2 (delayed to 50 + 50) and job 3 (recorded at
			// 100) are submitted in trace order, so FCFS runs 2 first.
			name: "a delayed job keeps its trace order at its instant",
			jobs: []workload.Job{
				job(1, 0, 4, 50, none),
				after(job(2, 10, 4, 10, none), 1, 50),
				job(3, 100, 4, 10, none),
			},
			want:    []want{{1, 0, 0, 50, sim.Completed}, {2, 100, 100, 110, sim.Completed}, {3, 100, 110, 120, sim.Completed}},
			delayed: 1,
		},
		{
			// Job 2 waits for job 1's end at 100 with no think time: it is
			// submitted at 100, after job 3 (recorded at 100, submitted
			// before the ends of the instant), and both are in the
			// instant's one pass.
			name: "no think time: submitted after the end of its instant",
			jobs: []workload.Job{
				job(1, 0, 4, 100, none),
				after(job(2, 10, 4, 10, none), 1, 0),
				job(3, 100, 4, 10, none),
			},
			want:    []want{{1, 0, 0, 100, sim.Completed}, {3, 100, 100, 110, sim.Completed}, {2, 100, 110, 120, sim.Completed}},
			delayed: 1,
		},
		{
			// A chain: 1 ends at 10; 2 at 10 + 5 runs to 25; 3 at 25 + 5.
			name: "a chain of three",
			jobs: []workload.Job{
				job(1, 0, 4, 10, none),
				after(job(2, 1, 4, 10, none), 1, 5),
				after(job(3, 2, 4, 10, none), 2, 5.4),
			},
			want:    []want{{1, 0, 0, 10, sim.Completed}, {2, 15, 15, 25, sim.Completed}, {3, 30, 30, 40, sim.Completed}},
			delayed: 2,
		},
		{
			// Two jobs wait for the same job; a killed job ends at its
			// limit.
			name: "two successors of a killed job",
			jobs: []workload.Job{
				job(1, 0, 4, 100, 50),
				after(job(2, 1, 2, 10, none), 1, 3),
				after(job(3, 2, 2, 10, none), 1, 1),
			},
			want:    []want{{1, 0, 0, 50, sim.Killed}, {3, 51, 51, 61, sim.Completed}, {2, 53, 53, 63, sim.Completed}},
			delayed: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			simtest.NewSource(tc.jobs)
			rec, st := simtest.Run(t, sim.Config{Procs: 4, Policy: policy.FCFS{}, ClosedLoop: true}, tc.jobs)
			if len(rec.Records) != len(tc.want) {
				t.Fatalf("%d records, want %d:\n%s", len(rec.Records), len(tc.want), simtest.Format(rec.Records))
			}
			for i, w := range tc.want {
				r := rec.Records[i]
				if r.Job.ID != w.id || r.Job.Submit != w.submit || r.Start != w.start || r.End != w.end || r.State != w.state {
					t.Errorf("record %d: job %d submitted %d, %v %d–%d; want job %d submitted %d, %v %d–%d\n%s", i,
						r.Job.ID, r.Job.Submit, r.State, r.Start, r.End, w.id, w.submit, w.state, w.start, w.end, simtest.Format(rec.Records))
				}
			}
			if st.LoopDelayed != tc.delayed || st.LoopUnknown != tc.unknown {
				t.Errorf("%d delayed, %d unknown; want %d and %d", st.LoopDelayed, st.LoopUnknown, tc.delayed, tc.unknown)
			}
			var following int64
			for _, j := range tc.jobs {
				if j.PrecedingJob > 0 {
					following++
				}
			}
			if st.LoopFollowing != following {
				t.Errorf("%d jobs following another, want %d", st.LoopFollowing, following)
			}
			if st.Jobs != int64(len(tc.jobs)) {
				t.Errorf("%d jobs submitted, want %d", st.Jobs, len(tc.jobs))
			}
			// Without the loop, every job is submitted at its recorded
			// time.
			rec, st = simtest.Run(t, sim.Config{Procs: 4, Policy: policy.FCFS{}}, tc.jobs)
			for _, r := range rec.Records {
				for _, j := range tc.jobs {
					if j.ID == r.Job.ID && j.Submit != r.Job.Submit {
						t.Errorf("open loop: job %d submitted at %d, recorded %d", j.ID, r.Job.Submit, j.Submit)
					}
				}
			}
			if st.LoopDelayed != 0 || st.LoopUnknown != 0 {
				t.Errorf("open loop counts %d delayed, %d unknown", st.LoopDelayed, st.LoopUnknown)
			}
		})
	}
}

// TestClosedLoopStranded works out by hand a closed loop under FCFS on 4
// processors where node 3 (of 0–3) goes down at 10 for good. Job 1 (4 processors)
// is killed then. Job 2 (4 processors, at 20) can never start, and job 5
// (at 30, following job 1, which ended at 10) waits behind it: both are
// stranded, rejected when the run is over. Job 3 follows job 2 and job 6
// follows job 5, so neither is ever submitted; nor is job 4, which follows
// job 3. Those three are recorded as rejected at their recorded times,
// after the stranded jobs, chain by chain.
func TestClosedLoopStranded(t *testing.T) {
	jobs := []workload.Job{
		job(1, 0, 4, 100, none),
		job(2, 20, 4, 50, none),
		after(job(3, 25, 1, 10, none), 2, 5),
		after(job(4, 30, 1, 10, none), 3, 0),
		after(job(5, 30, 1, 10, none), 1, 5),
		after(job(6, 40, 1, 10, none), 5, 0),
	}
	cfg := sim.Config{Procs: 4, Policy: policy.FCFS{}, ClosedLoop: true, NodeEvents: []cluster.NodeEvent{
		{At: 10, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 3, Hi: 4}}},
	}}
	rec, st := simtest.Run(t, cfg, jobs)
	type want struct {
		id         int64
		state      sim.State
		start, end workload.Time
		reason     string
	}
	wants := []want{
		{1, sim.NodeFail, 0, 10, ""},
		{2, sim.Rejected, 20, 20, "never started: 3 processors in service"},
		{5, sim.Rejected, 30, 30, "never started: 3 processors in service"},
		{3, sim.Rejected, 25, 25, "never submitted: it follows job 2 (SWF field 17), which never ran"},
		{6, sim.Rejected, 40, 40, "never submitted: it follows job 5 (SWF field 17), which never ran"},
		{4, sim.Rejected, 30, 30, "never submitted: it follows job 3 (SWF field 17), which never ran"},
	}
	if len(rec.Records) != len(wants) {
		t.Fatalf("%d records, want %d", len(rec.Records), len(wants))
	}
	for i, w := range wants {
		r := rec.Records[i]
		if r.Job.ID != w.id || r.State != w.state || r.Start != w.start || r.End != w.end || !strings.Contains(r.Reason, w.reason) {
			t.Errorf("record %d: job %d %v %d–%d %q, want job %d %v %d–%d %q", i, r.Job.ID, r.State, r.Start, r.End, r.Reason, w.id, w.state, w.start, w.end, w.reason)
		}
	}
	if st.Jobs != 6 || st.Rejected != 5 || st.LoopNeverSubmitted != 3 || st.LoopFollowing != 4 {
		t.Errorf("stats: %d jobs, %d rejected, %d never submitted, %d following; want 6, 5, 3, 4", st.Jobs, st.Rejected, st.LoopNeverSubmitted, st.LoopFollowing)
	}
}

// TestVerifyNeverSubmitted: verify accepts a job a closed loop never
// submitted only when the job it names is in the schedule and never ran.
func TestVerifyNeverSubmitted(t *testing.T) {
	never := func(id, pred int64) sim.Outcome {
		return sim.Outcome{Job: job(id, 30, 1, 10, none), State: sim.Rejected, Start: 30, End: 30,
			Reason: fmt.Sprintf("never submitted: it follows job %d (SWF field 17), which never ran", pred)}
	}
	ran := sim.Outcome{Job: job(1, 0, 2, 10, none), State: sim.Completed, Start: 0, End: 10, Alloc: []cluster.Range{{Lo: 0, Hi: 2}}}
	stranded := sim.Outcome{Job: job(2, 0, 8, 10, none), State: sim.Rejected, Start: 0, End: 0, Reason: "never started: 3 processors in service after the last node event"}
	tests := []struct {
		name string
		outs []sim.Outcome
		rule string // "" for none
	}{
		{"follows a stranded job", []sim.Outcome{ran, stranded, never(3, 2)}, ""},
		{"follows a job never submitted", []sim.Outcome{ran, stranded, never(3, 2), never(4, 3)}, ""},
		{"follows a job that ran", []sim.Outcome{ran, never(3, 1)}, "never-submitted"},
		{"follows a job not in the schedule", []sim.Outcome{ran, never(3, 9)}, "never-submitted"},
	}
	events := []cluster.NodeEvent{{At: 5, State: cluster.NodeDown, Nodes: []cluster.Range{{Lo: 3, Hi: 4}}}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs := sim.Verify(4, tc.outs, sim.VerifyOptions{NodeEvents: events, NodeSize: 1})
			var rules []string
			for _, v := range vs {
				rules = append(rules, v.Rule)
			}
			if got := strings.Join(rules, ","); got != tc.rule {
				t.Errorf("violations %v, want %q", vs, tc.rule)
			}
		})
	}
}

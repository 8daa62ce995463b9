package sim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// sdJob is job with a SWF queue number.
func sdJob(id int64, submit workload.Time, procs int, run, estimate workload.Time, queue int) workload.Job {
	j := job(id, submit, procs, run, estimate)
	j.Queue = queue
	return j
}

// sdWant is the expected record of one job.
type sdWant struct {
	id                   int64
	state                sim.State
	start, end           workload.Time
	queue, demoted, susp int
	cpu                  workload.Time
	reason               string // a substring of the record's reason
}

// sdConfig returns n queues of mode m with quantum 100 ms, switch 10 ms.
func sdConfig(n int, m policy.QueueMode, mpl int) policy.ScoreD {
	c := policy.NewScoreD(n, m)
	c.MPL, c.QuantumMs, c.SwitchMs = mpl, 100, 10
	return c
}

func runScoreD(t *testing.T, procs int, cfg policy.ScoreD, jobs []workload.Job) (*simtest.Recorder, sim.Stats) {
	t.Helper()
	eng, err := sim.NewScoreD(procs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &simtest.Recorder{}
	st, err := eng.Run(simtest.NewSource(jobs), rec)
	if err != nil {
		t.Fatal(err)
	}
	return rec, st
}

// TestScoreDRules checks each SCore-D rule (SPEC §4) on a small scenario
// whose times were computed by hand (in the comments).
func TestScoreDRules(t *testing.T) {
	type tc struct {
		name  string
		procs int
		cfg   func() policy.ScoreD
		jobs  []workload.Job
		want  []sdWant
	}
	cases := []tc{
		{
			// Two full-machine jobs on MPL 2: rate q/(2(q+s)) = 100/220,
			// so 100 s of work take 220 s = 2×100 s + 2000 switches of 10 ms.
			name: "gang/two equal jobs MPL 2", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(1, policy.Gang, 2) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 0, 4, 100, none, 0)},
			want: []sdWant{{id: 1, start: 0, end: 220, cpu: 100}, {id: 2, start: 0, end: 220, cpu: 100}},
		},
		{
			// Alone in the matrix a gang job runs at full speed.
			name: "gang/alone", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(1, policy.Gang, 2) },
			jobs: []workload.Job{sdJob(1, 5, 4, 100, none, 0)},
			want: []sdWant{{id: 1, start: 5, end: 105, cpu: 100}},
		},
		{
			// Two half-machine jobs share one row: no switching.
			name: "gang/one row", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(1, policy.Gang, 2) },
			jobs: []workload.Job{sdJob(1, 0, 2, 100, none, 0), sdJob(2, 0, 2, 100, none, 0)},
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, end: 100, cpu: 100}},
		},
		{
			// A alone 0–50 (50 s done); from 50 both at 5/11: A's last 50 s
			// take 110 s (end 160), in which B gets 50 s; B's last 50 s
			// alone: end 210.
			name: "gang/end moves with the load", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(1, policy.Gang, 2) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 50, 4, 100, none, 0)},
			want: []sdWant{{id: 1, start: 0, end: 160, cpu: 100}, {id: 2, start: 50, end: 210, cpu: 100}},
		},
		{
			// MPL 3 without switch cost: three full jobs at rate 1/3.
			name: "gang/MPL 3 no overhead", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Gang, 3)
				c.SwitchMs = 0
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 0, 4, 100, none, 0), sdJob(3, 0, 4, 100, none, 0), sdJob(4, 0, 4, 10, none, 0)},
			// The fourth waits for a row: 300..310.
			want: []sdWant{{id: 1, end: 300, cpu: 100}, {id: 2, end: 300, cpu: 100}, {id: 3, end: 300, cpu: 100}, {id: 4, start: 300, end: 310, cpu: 10}},
		},
		{
			// MPL 1 is space sharing: FCFS.
			name: "gang/MPL 1", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(1, policy.Gang, 1) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 0, 4, 100, none, 0)},
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, start: 100, end: 200, cpu: 100}},
		},
		{
			// A job killed at its requested time (of CPU).
			name: "exclusive/requested time", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(1, policy.Exclusive, 2) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, 50, 0), sdJob(2, 0, 4, 10, 20, 0)},
			want: []sdWant{{id: 1, state: sim.Killed, end: 50, cpu: 50, reason: "requested time 50"}, {id: 2, start: 50, end: 60, cpu: 10}},
		},
		{
			// A low-priority job uses the processors the high one leaves.
			name: "exclusive/space sharing", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(2, policy.Exclusive, 2) },
			jobs: []workload.Job{sdJob(1, 0, 2, 100, none, 1), sdJob(2, 10, 2, 50, none, 0)},
			want: []sdWant{{id: 1, end: 100, queue: 1, cpu: 100}, {id: 2, start: 10, end: 60, cpu: 50}},
		},
		{
			// B (queue 0) suspends A (queue 1) at 10; A resumes at 60 with
			// 90 s to go: end 150.
			name: "preempt/suspend", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(2, policy.Exclusive, 2) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 10, 4, 50, none, 0)},
			want: []sdWant{{id: 2, start: 10, end: 60, cpu: 50}, {id: 1, end: 150, queue: 1, susp: 1, cpu: 100}},
		},
		{
			// Requeued, A loses its 10 s and runs 60–160; it received 110 s.
			name: "preempt/requeue", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Exclusive, 2)
				c.Preempt = policy.PreemptRequeue
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 10, 4, 50, none, 0)},
			want: []sdWant{{id: 2, start: 10, end: 60, cpu: 50}, {id: 1, end: 160, queue: 1, susp: 1, cpu: 110}},
		},
		{
			name: "preempt/cancel", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Exclusive, 2)
				c.Preempt = policy.PreemptCancel
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 10, 4, 50, none, 0)},
			want: []sdWant{{id: 1, state: sim.Killed, end: 10, queue: 1, susp: 1, cpu: 10, reason: "preempted by job 2"}, {id: 2, start: 10, end: 60, cpu: 50}},
		},
		{
			// Without preemption B waits for A.
			name: "preempt/off", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Exclusive, 2)
				c.Preempt = policy.PreemptOff
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 10, 4, 50, none, 0)},
			want: []sdWant{{id: 1, end: 100, queue: 1, cpu: 100}, {id: 2, start: 100, end: 150, cpu: 50}},
		},
		{
			// A gang job of queue 0 suspends a gang job of queue 1 that
			// blocks every row (MPL 1); it resumes at 30 with 90 s to go.
			name: "preempt/gang", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(2, policy.Gang, 1) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 10, 4, 20, none, 0)},
			want: []sdWant{{id: 2, start: 10, end: 30, cpu: 20}, {id: 1, end: 120, queue: 1, susp: 1, cpu: 100}},
		},
		{
			// Rows: A and B (queue 1) fill row 0, C (queue 1) fills row 1,
			// s = 0. At 10 (A 6 s done, B 5, C 4) D (queue 0, 2 procs)
			// needs a row: suspending B frees row 0 with one victim of 2
			// processors, C would cost 4. Queue priority in gang mode then
			// deschedules C too (row 1 holds no queue-0 job), so D runs
			// 10–20 at full speed beside A. At 20 B and C resume (rate 1/2):
			// A ends at 20 + 2·84 = 188 (B 11 s and C 12 s left), B at
			// 188 + 22 = 210, C alone 210–211.
			name: "preempt/gang picks the row", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Gang, 2)
				c.SwitchMs = 0
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 2, 100, none, 1), sdJob(2, 1, 2, 100, none, 1), sdJob(3, 2, 4, 100, none, 1), sdJob(4, 10, 2, 10, none, 0)},
			want: []sdWant{{id: 1, end: 188, queue: 1, cpu: 100}, {id: 2, start: 1, end: 210, queue: 1, susp: 1, cpu: 100}, {id: 3, start: 2, end: 211, queue: 1, susp: 1, cpu: 100}, {id: 4, start: 10, end: 20, cpu: 10}},
		},
		{
			// Priority between queues in gang mode (issue #22 item 12): B
			// (queue 0) opens row 1 at 10 and A (queue 1, 10 s done) is
			// descheduled rather than sharing time with it; B runs 10–60
			// at full speed, A resumes at 60 with 90 s to go: end 150.
			name: "gang priority/higher queue never shares time", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(2, policy.Gang, 2) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 10, 4, 50, none, 0)},
			want: []sdWant{{id: 2, start: 10, end: 60, cpu: 50}, {id: 1, end: 150, queue: 1, susp: 1, cpu: 100}},
		},
		{
			// Even with preemption off: descheduling a lower row is the gang
			// scheduler's time slicing, not a preemption.
			name: "gang priority/preempt off", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Gang, 2)
				c.Preempt = policy.PreemptOff
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 10, 4, 50, none, 0)},
			want: []sdWant{{id: 2, start: 10, end: 60, cpu: 50}, {id: 1, end: 150, queue: 1, susp: 1, cpu: 100}},
		},
		{
			// A lower queue's job may not open a row beside a higher
			// queue's: A (queue 1) waits for B's end at 50, then 50–150.
			name: "gang priority/lower queue waits for a row", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(2, policy.Gang, 2) },
			jobs: []workload.Job{sdJob(1, 0, 4, 50, none, 0), sdJob(2, 10, 4, 100, none, 1)},
			want: []sdWant{{id: 1, end: 50, cpu: 50}, {id: 2, start: 50, end: 150, queue: 1, cpu: 100}},
		},
		{
			// Space sharing inside a row stays: B (queue 0, 2 processors)
			// joins A's row 0 on the processors A does not use; both run at
			// full speed.
			name: "gang priority/space sharing in a row", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(2, policy.Gang, 2) },
			jobs: []workload.Job{sdJob(1, 0, 2, 100, none, 1), sdJob(2, 10, 2, 50, none, 0)},
			want: []sdWant{{id: 1, end: 100, queue: 1, cpu: 100}, {id: 2, start: 10, end: 60, cpu: 50}},
		},
		{
			// Residence 10 s in queue 0, s = 0. A alone 0–5 (5 s), then A
			// and B at 1/2: A reaches 10 s at 15 and sinks to queue 1; its
			// row holds no queue-0 job, so it is descheduled; B alone
			// reaches 10 s at 20 and sinks too; from 20 both (queue 1) share
			// at 1/2: B's last 40 s end at 100, A's last 50 s alone 100–150.
			name: "gang priority/demoted job leaves the time slices", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Gang, 2)
				c.SwitchMs = 0
				c.Queues[0].ResidenceSec = 10
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 5, 4, 50, none, 0)},
			want: []sdWant{{id: 1, end: 150, queue: 1, demoted: 1, susp: 1, cpu: 100}, {id: 2, start: 5, end: 100, queue: 1, demoted: 1, cpu: 50}},
		},
		{
			// Maximum CPU time 30 s, inherited from queue 0 although the
			// job is demoted to queue 1 (residence 10 s) at 10.
			name: "max CPU inherited", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Exclusive, 2)
				c.Queues[0].MaxCPUSec, c.Queues[0].ResidenceSec = 30, 10
				c.Queues[1].MaxCPUSec = 1000
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0)},
			want: []sdWant{{id: 1, state: sim.Killed, end: 30, queue: 1, demoted: 1, cpu: 30, reason: "queue 0's maximum CPU time 30 s"}},
		},
		{
			// Residence 10 s in queues 0 and 1: the job sinks at 10 and 20
			// (its residence restarts), the last queue keeps it.
			name: "residence/sinks", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(3, policy.Exclusive, 2)
				c.Queues[0].ResidenceSec, c.Queues[1].ResidenceSec, c.Queues[2].ResidenceSec = 10, 10, 10
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0)},
			want: []sdWant{{id: 1, end: 100, queue: 2, demoted: 2, cpu: 100}},
		},
		{
			// Demoted at 10, A is preempted at 20 by a queue-0 job (20–30)
			// and resumes with 80 s to go: end 110.
			name: "residence/demoted job is preempted", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Exclusive, 2)
				c.Queues[0].ResidenceSec = 10
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 20, 4, 10, none, 0)},
			want: []sdWant{{id: 2, start: 20, end: 30, cpu: 10}, {id: 1, end: 110, queue: 1, demoted: 1, susp: 1, cpu: 100}},
		},
		{
			// Queue 0 deactivated 20–50: A is suspended at 20 (20 s done),
			// B is accepted at 30 and held; at 50 A resumes (end 130), then B.
			name: "state/deactivated for a while", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				ch, err := policy.ParseQueueChange("0=deactivated@20-50", policy.Activated)
				if err != nil {
					panic(err)
				}
				c.Changes = ch
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 30, 4, 10, none, 0)},
			want: []sdWant{{id: 1, end: 130, susp: 1, cpu: 100}, {id: 2, start: 130, end: 140, cpu: 10}},
		},
		{
			name: "state/disabled refuses", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Exclusive, 2)
				c.Queues[1].State = policy.Disabled
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 10, none, 1), sdJob(2, 0, 4, 10, none, 0)},
			want: []sdWant{{id: 1, state: sim.Rejected, queue: 1, reason: "queue 1 is disabled"}, {id: 2, end: 10, cpu: 10}},
		},
		{
			// Issue 22 item 15: queue 0 deactivated at 20 for good: A ran
			// 0-20 and is held to the end of the run (20): Pending with
			// its start and CPU time, not Rejected with no start.
			name: "state/deactivated after it ran, to the end", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				ch, err := policy.ParseQueueChange("0=deactivated@20", policy.Activated)
				if err != nil {
					panic(err)
				}
				c.Changes = ch
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0)},
			want: []sdWant{{id: 1, state: sim.Pending, start: 0, end: 20, susp: 1, cpu: 20, reason: "queue 0 deactivated at the end of the run (it ran from 0 with 20 s of CPU time and was held since)"}},
		},
		{
			name: "state/never activated", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.Queues[0].State = policy.Deactivated
				return c
			},
			jobs: []workload.Job{sdJob(1, 7, 4, 10, none, 0)},
			want: []sdWant{{id: 1, state: sim.Rejected, start: 7, end: 7, reason: "queue 0 deactivated at the end of the run"}},
		},
		{
			name: "group", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.Queues[0].Group = 100
				return c
			},
			jobs: func() []workload.Job {
				a, b := sdJob(1, 0, 4, 10, none, 0), sdJob(2, 0, 4, 10, none, 0)
				a.Group, b.Group = 5, 100
				return []workload.Job{a, b}
			}(),
			want: []sdWant{{id: 1, state: sim.Rejected, reason: "group 5 may not submit to queue 0"}, {id: 2, end: 10, cpu: 10}},
		},
		{
			// Cluster 1000 KB, queue 60 % (waiting on shortage): a job's
			// limit is 600 KB, so only one runs at a time; the user's 200 KB
			// lets the third join.
			name: "memory/limit", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent, c.Queues[0].Wait = 1000, 60, true
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 0, 1, 100, none, 0), sdJob(3, 0, 1, 100, none, 0)}
				js[2].ReqMemKB = 200
				return js
			}(),
			// FCFS: job 2 blocks the queue until 100; then 2 (600) and 3
			// (200) fit together.
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, start: 100, end: 200, cpu: 100}, {id: 3, start: 100, end: 200, cpu: 100}},
		},
		{
			name: "memory/inactive without a cluster limit", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.Queues[0].MemPercent = 60
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 0, 1, 100, none, 0)},
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, end: 100, cpu: 100}},
		},
		{
			// Hosts of 2 processors: 400 KB per processor is 800 KB on a
			// host, beyond the 600 KB limit; killed at its start with its
			// own state (issue #22 item 9).
			name: "memory/kill on use", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent, c.ProcsPerHost = 1000, 60, 2
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 3, 2, 100, none, 0)}
				js[0].UsedMemKB = 400
				return js
			}(),
			want: []sdWant{{id: 1, state: sim.LimitKilled, start: 3, end: 3, reason: "memory use 800 KB per host exceeds its limit 600 KB"}},
		},
		{
			// The case: 200 KB on each of 4 one-processor hosts
			// under a 500 KB limit is within it (not 800 KB in all).
			name: "memory/use per host", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent = 1000, 50
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 0, 4, 100, none, 0)}
				js[0].UsedMemKB = 200
				return js
			}(),
			want: []sdWant{{id: 1, end: 100, cpu: 100}},
		},
		{
			// Hosts of 4 processors, limit 500 KB: A (4 processors × 200 KB
			// = 800 KB on its host) is killed at 3 and gives its memory
			// back; B (2 × 200 = 400 KB on its host) runs 5–105.
			name: "memory/SMP hosts", procs: 8,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent, c.ProcsPerHost = 1000, 50, 4
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 3, 4, 100, none, 0), sdJob(2, 5, 2, 100, none, 0)}
				js[0].UsedMemKB, js[1].UsedMemKB = 200, 200
				return js
			}(),
			want: []sdWant{{id: 1, state: sim.LimitKilled, start: 3, end: 3, reason: "memory use 800 KB per host exceeds its limit 500 KB"}, {id: 2, start: 5, end: 105, cpu: 100}},
		},
		{
			// The user's request is per processor too: 100 KB on hosts of
			// 2 processors is a 200 KB limit (below the queue's 500 KB);
			// 150 KB per processor uses 300 KB on a host: killed.
			name: "memory/user limit per host", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent, c.ProcsPerHost = 1000, 50, 2
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 0, 4, 100, none, 0)}
				js[0].ReqMemKB, js[0].UsedMemKB = 100, 150
				return js
			}(),
			want: []sdWant{{id: 1, state: sim.LimitKilled, reason: "memory use 300 KB per host exceeds its limit 200 KB"}},
		},
		{
			// A started job keeps its memory while suspended (issue #22
			// item 11): cluster 1000 KB, both queues 60 %. B (queue 0)
			// cannot take A's processors, since A's 600 KB stay held, so it
			// waits (it asked to) for A's end: 100–150.
			name: "memory/suspended job keeps it", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent, c.Queues[1].MemPercent = 1000, 60, 60
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 10, 4, 50, none, 0)}
				js[1].WaitResources = 1
				return js
			}(),
			want: []sdWant{{id: 1, end: 100, queue: 1, cpu: 100}, {id: 2, start: 100, end: 150, cpu: 50}},
		},
		{
			// Requeued, A's processes are gone and so is its memory: B
			// preempts it at 10 (10–60), A runs again 60–160.
			name: "memory/requeue releases it", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent, c.Queues[1].MemPercent = 1000, 60, 60
				c.Preempt = policy.PreemptRequeue
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 10, 4, 50, none, 0)}
				js[1].WaitResources = 1
				return js
			}(),
			want: []sdWant{{id: 2, start: 10, end: 60, cpu: 50}, {id: 1, end: 160, queue: 1, susp: 1, cpu: 110}},
		},
		{
			// Queue 0 deactivated 20–50: A is suspended at 20 but keeps its
			// 600 KB, so B (queue 1, 600 KB) cannot start on the idle
			// processors at 30; A resumes at 50 (80 s to go, end 130), then B
			// 130–140.
			name: "memory/deactivated queue keeps it", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent, c.Queues[1].MemPercent = 1000, 60, 60
				ch, err := policy.ParseQueueChange("0=deactivated@20-50", policy.Activated)
				if err != nil {
					panic(err)
				}
				c.Changes = ch
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 30, 1, 10, none, 1)}
				js[1].WaitResources = 1
				return js
			}(),
			want: []sdWant{{id: 1, end: 130, susp: 1, cpu: 100}, {id: 2, start: 130, end: 140, queue: 1, cpu: 10}},
		},
		{
			// Gang, cluster 1000 KB, queue 0 30 %, queue 1 60 %. B (queue 0)
			// opens row 1 at 10 and A (queue 1, 600 KB) is descheduled but
			// keeps its memory; C (queue 0, 300 KB) at 20 finds row 0 free
			// but 600 + 300 + 300 > 1000, so it waits for B's end at 60 and
			// runs 60–70 alone; A resumes at 70 with 90 s to go: end 160.
			name: "memory/gang descheduled job keeps it", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Gang, 2)
				c.MemKB, c.Queues[0].MemPercent, c.Queues[1].MemPercent = 1000, 30, 60
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 0, 4, 100, none, 1), sdJob(2, 10, 4, 50, none, 0), sdJob(3, 20, 4, 10, none, 0)}
				js[2].WaitResources = 1
				return js
			}(),
			want: []sdWant{{id: 1, end: 160, queue: 1, susp: 1, cpu: 100}, {id: 2, start: 10, end: 60, cpu: 50}, {id: 3, start: 60, end: 70, cpu: 10}},
		},
		{
			// Disk 100 KB at 50 % (waiting on shortage): two jobs at once,
			// the third waits.
			name: "disk/limit", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.DiskKB, c.Queues[0].DiskPercent, c.Queues[0].Wait = 100, 50, true
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 0, 1, 50, none, 0), sdJob(3, 0, 1, 10, none, 0)},
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, end: 50, cpu: 50}, {id: 3, start: 50, end: 60, cpu: 10}},
		},
		{
			// Busy processors are not a shortage (issue #22 item 10): B
			// waits for A's processors although its queue refuses jobs on
			// shortage (the default).
			name: "shortage/busy processors are not one", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(1, policy.Exclusive, 2) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 10, 4, 10, none, 0), sdJob(3, 100, 4, 10, none, 0)},
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, start: 100, end: 110, cpu: 10}, {id: 3, start: 110, end: 120, cpu: 10}},
		},
		{
			// Cluster 1000 KB, queue 60 %: A holds 600 KB, so B's 600 KB
			// cannot be granted at 10 and B is refused (the default); C at
			// 100 comes after A's end at the same instant and starts.
			name: "shortage/memory refused by default", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent = 1000, 60
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 10, 1, 10, none, 0), sdJob(3, 100, 1, 10, none, 0)},
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, state: sim.Rejected, start: 10, end: 10, reason: "resource shortage at submission (queue 0): memory limit 600 KB, 600 KB of the cluster's 1000 KB held"},
				{id: 3, start: 100, end: 110, cpu: 10}},
		},
		{
			// The same with a queue that waits (on_shortage = "wait"): B
			// starts at A's end.
			name: "shortage/queue waits", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent, c.Queues[0].Wait = 1000, 60, true
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 10, 1, 10, none, 0)},
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, start: 100, end: 110, cpu: 10}},
		},
		{
			// A job that ends at the instant of a submission frees its
			// memory first: B is granted at 10.
			name: "shortage/ends come first", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent = 1000, 60
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 1, 10, none, 0), sdJob(2, 10, 1, 10, none, 0)},
			want: []sdWant{{id: 1, end: 10, cpu: 10}, {id: 2, start: 10, end: 20, cpu: 10}},
		},
		{
			// Disk 100 KB at 50 %: A and B hold it all; C, submitted at the
			// same instant, is refused.
			name: "shortage/disk", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.DiskKB, c.Queues[0].DiskPercent = 100, 50
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 0, 1, 50, none, 0), sdJob(3, 0, 1, 10, none, 0)},
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, end: 50, cpu: 50}, {id: 3, state: sim.Rejected, reason: "disk limit 50 KB, 100 KB of the cluster's 100 KB held"}},
		},
		{
			// The jobs' own choices override the queues': job 2 asks to
			// wait in a refusing queue, job 3 to be refused in a waiting one.
			name: "shortage/per job", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent, c.Queues[1].MemPercent = 1000, 60, 60
				c.Queues[1].Wait = true
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 10, 1, 10, none, 0), sdJob(3, 10, 1, 10, none, 1)}
				js[1].WaitResources, js[2].WaitResources = 1, -1
				return js
			}(),
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, start: 100, end: 110, cpu: 10}, {id: 3, state: sim.Rejected, start: 10, end: 10, queue: 1, reason: "resource shortage at submission (queue 1)"}},
		},
		{
			// A refused head no longer blocks its queue: at 0 job 2 (600 KB)
			// is refused, and job 3 (its own 200 KB) starts beside job 1 in
			// a second pass of the same instant.
			name: "shortage/refused head unblocks", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(1, policy.Exclusive, 2)
				c.MemKB, c.Queues[0].MemPercent = 1000, 60
				return c
			},
			jobs: func() []workload.Job {
				js := []workload.Job{sdJob(1, 0, 1, 100, none, 0), sdJob(2, 0, 1, 100, none, 0), sdJob(3, 0, 1, 100, none, 0)}
				js[2].ReqMemKB = 200
				return js
			}(),
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, state: sim.Rejected, reason: "memory limit 600 KB"}, {id: 3, end: 100, cpu: 100}},
		},
		{
			name: "shortage/wait", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(1, policy.Exclusive, 2) },
			jobs: []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 10, 4, 10, none, 0)},
			want: []sdWant{{id: 1, end: 100, cpu: 100}, {id: 2, start: 100, end: 110, cpu: 10}},
		},
		{
			name: "too large", procs: 4,
			cfg:  func() policy.ScoreD { return sdConfig(1, policy.Exclusive, 2) },
			jobs: []workload.Job{sdJob(1, 0, 5, 100, none, 0)},
			want: []sdWant{{id: 1, state: sim.Rejected, reason: "needs 5 processors, machine has 4"}},
		},
		{
			// An exclusive job takes its processors in every row: with a
			// 2-processor exclusive job, two 2-processor gang jobs share
			// one row's other half by time slicing (rows 0 and 1).
			name: "mixed/exclusive above gang", procs: 4,
			cfg: func() policy.ScoreD {
				c := sdConfig(2, policy.Gang, 2)
				c.Queues[0].Mode = policy.Exclusive
				c.SwitchMs = 0
				return c
			},
			jobs: []workload.Job{sdJob(1, 0, 2, 1000, none, 0), sdJob(2, 0, 2, 100, none, 1), sdJob(3, 0, 2, 100, none, 1)},
			want: []sdWant{{id: 1, end: 1000, cpu: 1000}, {id: 2, end: 200, queue: 1, cpu: 100}, {id: 3, end: 200, queue: 1, cpu: 100}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, st := runScoreD(t, c.procs, c.cfg(), c.jobs)
			if len(rec.Records) != len(c.want) {
				t.Fatalf("%d records, want %d", len(rec.Records), len(c.want))
			}
			for _, w := range c.want {
				r := rec.ByID(t, w.id)
				got := sdWant{id: w.id, state: r.State, start: r.Start, end: r.End, queue: r.Queue, demoted: r.Demotions, susp: r.Suspensions, cpu: r.CPUTime, reason: w.reason}
				if got != w {
					t.Errorf("job %d: got %+v, want %+v (reason %q)", w.id, got, w, r.Reason)
				}
				if !strings.Contains(r.Reason, w.reason) || (w.reason == "") != (r.Reason == "") {
					t.Errorf("job %d: reason %q, want one containing %q", w.id, r.Reason, w.reason)
				}
				if !r.ScoreD {
					t.Errorf("job %d: record not marked ScoreD", w.id)
				}
			}
			if st.Jobs != int64(len(c.jobs)) {
				t.Errorf("stats: %d jobs, want %d", st.Jobs, len(c.jobs))
			}
		})
	}
}

// TestScoreDRecordOrder checks that records at one instant come in the
// engine's order: rejections at submission first, then ends in trace order.
func TestScoreDRecordOrder(t *testing.T) {
	cfg := sdConfig(1, policy.Gang, 2)
	rec, _ := runScoreD(t, 4, cfg, []workload.Job{sdJob(1, 0, 4, 100, none, 0), sdJob(2, 0, 4, 100, none, 0), sdJob(3, 0, 8, 1, none, 0)})
	var ids []int64
	for _, r := range rec.Records {
		ids = append(ids, r.Job.ID)
	}
	if !slices.Equal(ids, []int64{3, 1, 2}) {
		t.Errorf("record order %v, want [3 1 2]", ids)
	}
}

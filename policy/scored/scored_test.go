package scored

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedsim/schedsim/policy"
)

// fake is an engine reduced to what the scheduler reads: a counted
// matrix, queues and jobs. Its Apply records each decision and carries it
// out on the counts, so that the scheduler runs without the engine.
type fake struct {
	m       Matrix
	states  []policy.QueueState
	wait    [][]int32
	running []int32
	arrived []int32
	jobs    []Job
	name    []string
	log     []string
}

func (f *fake) Matrix() *Matrix                    { return &f.m }
func (f *fake) QueueState(q int) policy.QueueState { return f.states[q] }
func (f *fake) Waiting(q int) []int32              { return f.wait[q] }
func (f *fake) Running() []int32                   { return f.running }
func (f *fake) Arrived() []int32                   { return f.arrived }
func (f *fake) Job(id int32) *Job                  { return &f.jobs[id] }
func (f *fake) Placement() Placement               { return nil }

// take counts job j, running in its row (or exclusive), in the matrix.
func (f *fake) take(j *Job, sign int) {
	m := &f.m
	if j.Gang {
		if sign > 0 && m.Rows[j.Row] == 0 {
			m.NonEmpty++
		}
		m.Rows[j.Row] += sign * j.Procs
		m.RowQ[j.Queue*m.MPL+j.Row] += sign * j.Procs
		m.GangP += sign * j.Procs
		if sign < 0 && m.Rows[j.Row] == 0 {
			m.NonEmpty--
		}
	} else {
		m.Ex += sign * j.Procs
		m.ExQ[j.Queue] += sign * j.Procs
	}
	m.RunQ[j.Queue] += sign
}

func (f *fake) Apply(d Decision) {
	j := &f.jobs[d.ID]
	line := fmt.Sprintf("%v %s", d.Kind, f.name[d.ID])
	switch d.Kind {
	case Start:
		line += fmt.Sprintf(" row %d", d.Row)
		if f.wait[j.Queue][0] != d.ID {
			panic("start out of order")
		}
		f.wait[j.Queue] = f.wait[j.Queue][1:]
		j.Running, j.Gang, j.Row, j.FirstMs = true, d.Row >= 0, d.Row, 0
		f.take(j, 1)
		f.running = append(f.running, d.ID)
	case Preempt, Suspend, Hold:
		if d.Kind == Preempt {
			line += " by " + f.name[d.By]
		}
		f.take(j, -1)
		j.Running = false
		f.running = slices.DeleteFunc(f.running, func(x int32) bool { return x == d.ID })
		w := append(f.wait[j.Queue], d.ID)
		slices.SortFunc(w, func(a, b int32) int { return cmp.Compare(f.jobs[a].Seq, f.jobs[b].Seq) })
		f.wait[j.Queue] = w
	case Reject:
		f.wait[j.Queue] = slices.Delete(f.wait[j.Queue], d.Row, d.Row+1)
		f.arrived = slices.DeleteFunc(f.arrived, func(x int32) bool { return x == d.ID })
	}
	f.log = append(f.log, line)
}

// fakeJob is a job of a scenario: running in a row (row ≥ -1) since
// lastMs, or waiting (row -2).
type fakeJob struct {
	name          string
	queue, procs  int
	row           int
	lastMs        int64
	memKB         int64
	arrived, wait bool
}

// TestSchedulerDecisions runs the scheduler alone on hand-made states and
// compares its decisions, worked out by hand in the comments, as a table.
func TestSchedulerDecisions(t *testing.T) {
	gang2 := func() policy.ScoreD {
		c := policy.NewScoreD(2, policy.Gang)
		c.MPL = 2
		return c
	}
	cases := []struct {
		name  string
		procs int
		cfg   func() policy.ScoreD
		jobs  []fakeJob
		want  []string
	}{
		{
			// Row 0 holds a, b, c (1, 1, 2 processors), row 1 d, e (3, 1),
			// all of queue 1, started in that order. h (queue 0, 2
			// processors) preempts in Slurm's order (latest start first):
			// row 0 needs one victim (c), row 1 two (e, d): it takes row 0.
			// Row 1 then holds no job of queue 0, the top queue in the
			// matrix: d and e are suspended. c waits: row 0 is full and
			// row 1 is no row of queue 0's.
			name: "gang/the row with the fewest victims", procs: 4, cfg: gang2,
			jobs: []fakeJob{
				{name: "a", queue: 1, procs: 1, row: 0, lastMs: 1},
				{name: "b", queue: 1, procs: 1, row: 0, lastMs: 2},
				{name: "c", queue: 1, procs: 2, row: 0, lastMs: 3},
				{name: "d", queue: 1, procs: 3, row: 1, lastMs: 4},
				{name: "e", queue: 1, procs: 1, row: 1, lastMs: 5},
				{name: "h", queue: 0, procs: 2, row: -2},
			},
			want: []string{"preempt c by h", "start h row 0", "suspend d", "suspend e"},
		},
		{
			// Exclusive: x and y (queue 1) hold 3 of 4 processors; h needs
			// 2: y, the later started, is enough.
			name: "exclusive/latest started first", procs: 4,
			cfg: func() policy.ScoreD { return policy.NewScoreD(2, policy.Exclusive) },
			jobs: []fakeJob{
				{name: "x", queue: 1, procs: 2, row: -1, lastMs: 1},
				{name: "y", queue: 1, procs: 1, row: -1, lastMs: 2},
				{name: "h", queue: 0, procs: 2, row: -2},
			},
			want: []string{"preempt y by h", "start h row -1"},
		},
		{
			// Preemption off: h waits, and w (queue 1, 1 processor) uses the
			// processor left (space sharing).
			name: "exclusive/no preemption, space sharing", procs: 4,
			cfg: func() policy.ScoreD {
				c := policy.NewScoreD(2, policy.Exclusive)
				c.Preempt = policy.PreemptOff
				return c
			},
			jobs: []fakeJob{
				{name: "x", queue: 1, procs: 3, row: -1, lastMs: 1},
				{name: "h", queue: 0, procs: 2, row: -2},
				{name: "w", queue: 1, procs: 1, row: -2},
			},
			want: []string{"start w row -1"},
		},
		{
			// A 60% memory limit admits one job at a time: r, submitted
			// now, is refused; q, which waits for resources, stays.
			name: "exclusive/resource shortage", procs: 4,
			cfg: func() policy.ScoreD {
				c := policy.NewScoreD(1, policy.Exclusive)
				c.MemKB, c.Queues[0].MemPercent = 100, 60
				return c
			},
			jobs: []fakeJob{
				{name: "x", queue: 0, procs: 1, row: -1, lastMs: 1, memKB: 60},
				{name: "q", queue: 0, procs: 1, row: -2, memKB: 60, arrived: true, wait: true},
				{name: "r", queue: 0, procs: 1, row: -2, memKB: 60, arrived: true},
			},
			want: []string{"reject r"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg()
			nq := len(cfg.Queues)
			f := &fake{m: NewMatrix(tc.procs, cfg.MPL, nq), wait: make([][]int32, nq)}
			for _, q := range cfg.Queues {
				f.states = append(f.states, q.State)
			}
			for i, fj := range tc.jobs {
				id := int32(i)
				j := Job{Procs: fj.procs, Seq: int64(i), Queue: fj.queue, FirstMs: -1, LastMs: fj.lastMs, MemKB: fj.memKB}
				if fj.wait {
					j.WaitResources = 1
				}
				f.jobs = append(f.jobs, j)
				f.name = append(f.name, fj.name)
				if fj.row == -2 {
					f.wait[fj.queue] = append(f.wait[fj.queue], id)
					if fj.arrived {
						f.arrived = append(f.arrived, id)
					}
					continue
				}
				jj := &f.jobs[id]
				jj.Running, jj.Gang, jj.Row, jj.FirstMs, jj.Holds = true, fj.row >= 0, fj.row, 0, fj.memKB > 0
				f.take(jj, 1)
				f.m.MemHeld += fj.memKB
				f.running = append(f.running, id)
			}
			New(cfg).Schedule(f, f)
			if !slices.Equal(f.log, tc.want) {
				t.Errorf("decisions:\n%s\nwant:\n%s", strings.Join(f.log, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

package schedsim_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/schedsim/schedsim"
	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/workload"
)

// Run the embedded sample trace as `schedsim run` does, with a lookahead of
// 100 instead of HPC Pack's default.
func ExampleRun() {
	sc := schedsim.Default()
	sc.Lookahead = "100"
	res, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Summary.Policy, res.Summary.Jobs)
	// Output: easy(lookahead=100) 2000
}

// Load a scenario file, as `schedsim run scenario.toml` does; its keys are
// run's options with '_' for '-'.
func ExampleLoadScenario() {
	dir, _ := os.MkdirTemp("", "scenario")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "fcfs.toml")
	os.WriteFile(path, []byte("backfill = \"off\"\nlookahead = \"all\"\n"), 0o644)
	sc, err := schedsim.LoadScenario(path, schedsim.Default())
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := schedsim.Run(context.Background(), &sc, schedsim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Summary.Policy)
	// Output: fcfs
}

// waitCounter is a custom observer: it wants every job's record, the event
// that ends or refuses the job.
type waitCounter struct{ waited, jobs int }

func (c *waitCounter) Wants() sim.Wants { return sim.Wants{Kinds: sim.RecordKinds} }

func (c *waitCounter) Observe(e *sim.Event) {
	c.jobs++
	if r := e.Record; r.State != sim.Rejected && r.Wait() > 0 {
		c.waited++
	}
}

// Add an observer of your own beside the built-in metrics.
func ExampleOptions_observer() {
	sc := schedsim.Default()
	var c waitCounter
	if _, err := schedsim.Run(context.Background(), &sc, schedsim.Options{Observers: []sim.Observer{&c}}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.jobs, c.waited > 0)
	// Output: 2000 true
}

// smallestFirst is a custom policy: at each pass it starts the queued jobs
// that fit, smallest first, and never reserves.
type smallestFirst struct{}

func (smallestFirst) Name() string { return "smallest-first" }

func (smallestFirst) Schedule(v policy.View, d policy.Decisions) {
	free := v.Free()
	for size := 1; size <= free; size *= 2 {
		for i := 0; i < v.Len(); i++ {
			if j := v.Job(i); j.Procs <= size && j.Procs > size/2 && j.Procs <= free {
				d.Start(i)
				free -= j.Procs
			}
		}
	}
}

// jobs is a custom job source: any sim.Source streams jobs in submission
// order and returns io.EOF at the end.
type jobs struct {
	list []workload.Job
	next int
}

func (s *jobs) Next(j *workload.Job) error {
	if s.next == len(s.list) {
		return io.EOF
	}
	*j = s.list[s.next]
	j.Seq = int64(s.next)
	s.next++
	return nil
}

// job builds a job with no estimate and unknown optional fields.
func job(id int64, submit workload.Time, procs int, run workload.Time) workload.Job {
	return workload.Job{ID: id, Submit: submit, Procs: procs, Run: run, Estimate: workload.Unknown,
		RawWait: -1, RawRun: float64(run), AllocProcs: procs, ReqProcs: procs, ReqTime: -1,
		AvgCPUSec: -1, UsedMemKB: -1, ReqMemKB: -1, Status: 1, User: -1, Group: -1,
		Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
}

// printer prints each job's record as the engine reports it, at its end
// (sim.RecordFunc makes an observer of the records of a function).
var printer = sim.RecordFunc(func(r *sim.Record) {
	fmt.Printf("job %d ran from %d to %d\n", r.Job.ID, r.Start, r.End)
})

// Drive the engine directly with a policy and a job source of your own.
func Example_customPolicy() {
	src := &jobs{list: []workload.Job{job(1, 0, 4, 100), job(2, 0, 2, 50), job(3, 1, 1, 10)}}
	eng, err := sim.New(sim.Config{Procs: 4, Policy: smallestFirst{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := eng.Run(src, printer); err != nil {
		fmt.Println(err)
	}
	// Output:
	// job 3 ran from 1 to 11
	// job 2 ran from 0 to 50
	// job 1 ran from 50 to 150
}

// kinds counts the events of a run by kind.
type kinds map[sim.EventKind]int

// Wants asks for every kind of event.
func (k kinds) Wants() sim.Wants { return sim.Wants{Kinds: sim.AllKinds} }

func (k kinds) Observe(e *sim.Event) { k[e.Kind]++ }

// Follow every job through the run: its submission, start, the
// reservations the policy promised it, and its end.
func ExampleOptions_events() {
	sc := schedsim.Default()
	k := kinds{}
	if _, err := schedsim.Run(context.Background(), &sc, schedsim.Options{Observers: []sim.Observer{k}}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(k[sim.EventSubmitted], k[sim.EventStarted], k[sim.EventEnded], k[sim.EventReserved] > 0, k[sim.EventSampled] > 0)
	// Output: 2000 2000 2000 true true
}

// startsAndPreemptions is a custom observer that counts the starts and
// the preemptions of a run; it wants nothing else, so the engine builds
// no other event for it.
type startsAndPreemptions struct{ starts, preemptions int }

func (c *startsAndPreemptions) Wants() sim.Wants {
	return sim.Wants{Kinds: sim.KindsOf(sim.EventStarted, sim.EventPreempted)}
}

func (c *startsAndPreemptions) Observe(e *sim.Event) {
	switch e.Kind {
	case sim.EventStarted:
		c.starts++
	case sim.EventPreempted:
		c.preemptions++
	}
}

// Count the starts and preemptions of a run of SCore-D's exclusive queues
// (4 processors), where a job of the higher queue 0 preempts (requeues) a
// running job of queue 1, which starts over once the processors are free.
func Example_observer() {
	low, high, small := job(1, 0, 4, 100), job(2, 10, 4, 20), job(3, 50, 2, 10)
	low.Queue, high.Queue, small.Queue = 1, 0, 1
	cfg := policy.NewScoreD(2, policy.Exclusive)
	cfg.Preempt = policy.PreemptRequeue
	eng, err := sim.NewScoreD(4, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	var c startsAndPreemptions
	if _, err := eng.Run(&jobs{list: []workload.Job{low, high, small}}, &c); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.starts, "starts,", c.preemptions, "preemption")
	// Output: 3 starts, 1 preemption
}

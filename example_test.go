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

// waitCounter is a custom observer: it sees every job's record.
type waitCounter struct{ waited, jobs int }

func (c *waitCounter) JobDone(r *sim.Record) {
	c.jobs++
	if r.State != sim.Rejected && r.Wait() > 0 {
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

// printer prints each job's record as the engine reports it, at its end.
type printer struct{}

func (printer) JobDone(r *sim.Record) {
	fmt.Printf("job %d ran from %d to %d\n", r.Job.ID, r.Start, r.End)
}

// Drive the engine directly with a policy and a job source of your own.
func Example_customPolicy() {
	src := &jobs{list: []workload.Job{job(1, 0, 4, 100), job(2, 0, 2, 50), job(3, 1, 1, 10)}}
	eng, err := sim.New(sim.Config{Procs: 4, Policy: smallestFirst{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := eng.Run(src, printer{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// job 3 ran from 1 to 11
	// job 2 ran from 0 to 50
	// job 1 ran from 50 to 150
}

// kinds counts the events of a run by kind.
type kinds map[sim.EventKind]int

func (k kinds) Event(e *sim.Event) { k[e.Kind]++ }

// Follow every job through the run: its submission, start, the
// reservations the policy promised it, and its end.
func ExampleOptions_events() {
	sc := schedsim.Default()
	k := kinds{}
	if _, err := schedsim.Run(context.Background(), &sc, schedsim.Options{Events: k}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(k[sim.EventSubmitted], k[sim.EventStarted], k[sim.EventEnded], k[sim.EventReserved] > 0)
	// Output: 2000 2000 2000 true
}

package sim_test

import (
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedsim/schedsim/policy"
	"github.com/schedsim/schedsim/sim"
	"github.com/schedsim/schedsim/sim/simtest"
	"github.com/schedsim/schedsim/workload"
)

// lender is a sim.RefSource over jobs: it lends a job of its own, which it
// scribbles over at the next call, as workload.Prefetch may reuse a batch.
type lender struct {
	jobs []workload.Job
	next int
	cur  workload.Job
}

func (l *lender) Next(j *workload.Job) error {
	r, err := l.NextRef()
	if err == nil {
		*j = *r
	}
	return err
}

func (l *lender) NextRef() (*workload.Job, error) {
	l.cur = workload.Job{ID: -1, Submit: -1, Procs: -1}
	if l.next >= len(l.jobs) {
		return nil, io.EOF
	}
	l.cur = l.jobs[l.next]
	l.next++
	return &l.cur, nil
}

// A RefSource gives the same run as a Source that copies its jobs.
func TestRefSourceSameRun(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	jobs := make([]workload.Job, 3000)
	var t0 workload.Time
	for i := range jobs {
		t0 += workload.Time(r.IntN(20))
		run := workload.Time(1 + r.IntN(300))
		jobs[i] = job(int64(i+1), t0, 1+r.IntN(70), run, run+workload.Time(r.IntN(100)))
	}
	simtest.NewSource(jobs)
	var want, got simtest.Recorder
	for _, c := range []struct {
		src sim.Source
		rec *simtest.Recorder
	}{{&simtest.Source{Jobs: jobs}, &want}, {&lender{jobs: jobs}, &got}} {
		eng, err := sim.New(sim.Config{Procs: 64, Policy: &policy.EASY{Lookahead: 20}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Run(c.src, c.rec); err != nil {
			t.Fatal(err)
		}
	}
	if len(got.Records) != len(want.Records) {
		t.Fatalf("%d records lent, %d copied", len(got.Records), len(want.Records))
	}
	for i := range want.Records {
		a, b := want.Records[i], got.Records[i]
		if a.Job.ID != b.Job.ID || a.Start != b.Start || a.End != b.End || !slices.Equal(a.Alloc, b.Alloc) {
			t.Fatalf("record %d: job %d at %d, lent: job %d at %d", i, a.Job.ID, a.Start, b.Job.ID, b.Start)
		}
	}
}
